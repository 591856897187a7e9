"""Every command that writes a tokenizer directory keeps to one rule: a directory that holds a tokenizer is refused
(exit 2, one line naming what it holds) unless ``--force``, which replaces it whole, so no directory is left with
two tokenizers mixed. Also what continuing from a file says and keeps: no roles the base did not have (the judge:
``TokenizersBackend`` loading the base), the option's own usage error for ``DIR/vocab.json``, a truncated
``tokenizer.json`` named with its line and column. Ids are judged by ``tokenizers`` loading the written file."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import AutoTokenizer, PreTrainedTokenizerFast

import hf_bpe  # noqa: F401  (registers the classes with AutoTokenizer)
from hf_bpe.cli import main

TEXT = "hello world, héllo wörld! 123"
LINES = ["hello world, héllo wörld! 123 4567 hello there"] * 60


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path


def model_dir(directory: Path) -> Path:
    """A model's tokenizer directory: a byte-level BPE ``tokenizer.json`` trained by ``tokenizers`` (no roles) and a
    ``tokenizer_config.json`` with a chat template."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=290, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=["<|endoftext|>"]
    )
    tokenizer.train_from_iterator(LINES, trainer)
    directory.mkdir()
    tokenizer.save(str(directory / "tokenizer.json"))
    config = {"tokenizer_class": "Qwen2Tokenizer", "chat_template": "{{ messages }}"}
    (directory / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return directory


def contents(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in directory.iterdir()}


def rust_ids(directory: Path) -> list[int]:
    return Tokenizer.from_file(str(directory / "tokenizer.json")).encode(TEXT).ids


def test_train_into_a_models_directory_is_refused_naming_it_and_replaced_with_force(corpus, tmp_path, capsys):
    out = model_dir(tmp_path / "model")
    before = contents(out)
    argv = ["train", str(corpus), "-o", str(out), "--vocab-size", "280", "--no-progress"]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "tokenizer.json, tokenizer_config.json with a chat template" in error
    assert "--force" in error and "Qwen2Tokenizer" in error
    assert contents(out) == before

    assert main([*argv, "--force"]) == 0
    config = json.loads((out / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert "chat_template" not in config
    assert AutoTokenizer.from_pretrained(str(out))(TEXT)["input_ids"] == rust_ids(out)


def test_trim_into_another_tokenizers_directory_is_refused_and_forced_leaves_no_mix(corpus, tmp_path, capsys):
    other = tmp_path / "other"
    assert main(["train", str(corpus), "-o", str(other), "--vocab-size", "300", "--no-progress"]) == 0
    source = model_dir(tmp_path / "model") / "tokenizer.json"
    before = contents(other)
    argv = ["trim", str(source), "--sample", str(corpus), "--vocab-size", "270", "--output", str(other)]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert "vocab.json, merges.txt" in error and "--force" in error
    assert contents(other) == before

    assert main([*argv, "--force"]) == 0
    assert sorted(contents(other)) == ["id_map.json", "tokenizer.json"]  # GPT-2-style files of the other gone
    capsys.readouterr()
    assert main(["encode", str(other), TEXT, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ids"] == rust_ids(other)


def test_continuing_into_the_base_is_refused_unless_forced(corpus, tmp_path, capsys):
    base = tmp_path / "base"
    assert main(["train", str(corpus), "-o", str(base), "--vocab-size", "270", "--no-progress"]) == 0
    before = contents(base)
    argv = ["train", str(corpus), "--continue-from", str(base), "-o", str(base), "--vocab-size", "280", "--no-progress"]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert "is the tokenizer --continue-from reads" in error and "--force" in error
    assert contents(base) == before
    assert main([*argv, "--force"]) == 0
    assert AutoTokenizer.from_pretrained(str(base))(TEXT)["input_ids"] == rust_ids(base)


def test_continuing_a_bare_tokenizer_json_invents_no_roles(corpus, tmp_path):
    source = model_dir(tmp_path / "model") / "tokenizer.json"
    (tmp_path / "model" / "tokenizer_config.json").unlink()  # the bare file
    out = tmp_path / "more"
    argv = ["train", str(corpus), "--continue-from", str(source), "-o", str(out), "--vocab-size", "300"]
    assert main([*argv, "--no-progress"]) == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rust = PreTrainedTokenizerFast(tokenizer_file=str(source))
    loaded = AutoTokenizer.from_pretrained(str(out))
    roles = ("bos_token", "eos_token", "unk_token", "pad_token")
    assert [getattr(loaded, role) for role in roles] == [getattr(rust, role) for role in roles] == [None] * 4


@pytest.mark.parametrize("name", ["vocab.json", "merges.txt", "tokenizer_config.json"])
def test_continue_from_a_file_of_the_directory_is_a_usage_error(corpus, tmp_path, capsys, name):
    base = tmp_path / "base"
    assert main(["train", str(corpus), "-o", str(base), "--vocab-size", "270", "--no-progress"]) == 0
    capsys.readouterr()
    argv = ["train", str(corpus), "--continue-from", str(base / name), "-o", str(tmp_path / "x"), "--vocab-size", "300"]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "model type" not in error
    assert f"a {name} file, not a tokenizer" in error and "a tokenizer directory or a tokenizer.json" in error
    assert f"give the directory: {base}" in error


def test_a_truncated_tokenizer_json_is_named_with_line_and_column(corpus, tmp_path, capsys):
    source = model_dir(tmp_path / "model") / "tokenizer.json"
    broken = tmp_path / "broken"
    broken.mkdir()
    text = source.read_text(encoding="utf-8")[:3000]
    (broken / "tokenizer.json").write_text(text, encoding="utf-8")
    try:
        json.loads(text)
    except json.JSONDecodeError as e:
        where = f"not valid JSON (line {e.lineno}, column {e.colno}"
    for argv in (["encode", str(broken), "hi"], ["report", str(broken), "--sample", str(corpus)]):
        assert main(argv) == 1
        error = capsys.readouterr().err
        assert f"{broken / 'tokenizer.json'}: {where}" in error and "holds none of" not in error


def test_a_refused_base_does_not_advise_loading_with_the_rust_backend(corpus, tmp_path, capsys):
    source = model_dir(tmp_path / "model") / "tokenizer.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    data["model"]["byte_fallback"] = True
    source.write_text(json.dumps(data), encoding="utf-8")
    argv = ["train", str(corpus), "--continue-from", str(source), "-o", str(tmp_path / "x"), "--vocab-size", "300"]
    assert main([*argv, "--no-progress"]) == 1
    error = capsys.readouterr().err
    assert "model.byte_fallback is true" in error and "TokenizersBackend" not in error
    assert "train a new tokenizer" in error


def test_export_replaces_no_file_unasked(corpus, tmp_path, capsys):
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    from hf_bpe.reference.gpt2 import TIKTOKEN_PATTERN

    tok = tmp_path / "tok"
    assert main(["train", str(corpus), "-o", str(tok), "--vocab-size", "280", "--no-progress"]) == 0
    before = contents(tok)
    for output in (tok / "tokenizer.json", tok):  # a file of the tokenizer, or its directory
        assert main(["export", "tiktoken", str(tok), "-o", str(output)]) == 2
        assert capsys.readouterr().err.count("\n") == 1
    assert contents(tok) == before
    ranks = tmp_path / "tok.tiktoken"
    ranks.write_text("mine", encoding="utf-8")
    assert main(["export", "tiktoken", str(tok), "-o", str(ranks)]) == 2
    assert "exists already" in capsys.readouterr().err and ranks.read_text(encoding="utf-8") == "mine"
    assert main(["export", "tiktoken", str(tok), "-o", str(ranks), "--force"]) == 0
    encoding = tiktoken.Encoding("t", pat_str=TIKTOKEN_PATTERN, mergeable_ranks=load_tiktoken_bpe(str(ranks)),
                                 special_tokens={})  # fmt: skip
    assert encoding.encode(TEXT) == rust_ids(tok)


def test_each_size_of_a_multi_size_run_and_download_keep_to_the_rule(corpus, tmp_path, capsys):
    sizes = tmp_path / "sizes"
    argv = ["train", str(corpus), "-o", str(sizes), "--vocab-size", "265,275", "--no-progress"]
    assert main(argv) == 0
    before = {size: contents(sizes / size) for size in ("265", "275")}
    assert main(argv) == 2
    assert f"{sizes / '265'}: holds a byte-level BPE tokenizer" in capsys.readouterr().err
    assert {size: contents(sizes / size) for size in ("265", "275")} == before
    assert main([*argv, "--force"]) == 0
    assert AutoTokenizer.from_pretrained(str(sizes / "275"))(TEXT)["input_ids"] == rust_ids(sizes / "275")

    out = model_dir(tmp_path / "model")
    before_model = contents(out)
    assert main(["download", "gpt2", str(out)]) == 2
    assert "tokenizer_config.json with a chat template" in capsys.readouterr().err
    assert contents(out) == before_model
    assert main(["download", "gpt2", str(out), "--force"]) == 0
    assert "chat_template" not in json.loads((out / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert AutoTokenizer.from_pretrained(str(out))(TEXT)["input_ids"] == rust_ids(out)
