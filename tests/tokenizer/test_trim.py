"""Trimming a real model's tokenizer to a language (``hf_bpe.trim``, ``hf-bpe trim``): Qwen3 to Japanese and
Llama-3.1 to Russian, judged by the Rust ``tokenizers`` loading the original and the trimmed ``tokenizer.json``, and
transformers' Rust backend against ``hf_bpe.from_pretrained`` on the trimmed directory."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import ADVERSARIAL, multilingual_text
from real_tokenizers import model_tokenizer_json
from tokenizers import Tokenizer

import hf_bpe
from hf_bpe.pipeline.byte_level import BYTE_ALPHABET

#: model -> (the corpus trimmed to, the vocabulary size asked for: small enough that some sample tokens go).
CASES = {"qwen3": ("japanese", 2500), "llama3_1": ("russian", 2500)}
#: A line of Vietnamese and Turkish words that are Llama-3.1 tokens its merges never build (it gives them whole,
#: by ignore_merges), added to the Russian sample so that trimming must keep them.
WHOLE_ONLY_LINE = "ektedir Tiếng Việt và nhiều điều mới\n"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hf_bpe.cli", *args], capture_output=True, text=True)


def sample_lines(path: Path, size: int) -> str:
    """The first ``size`` bytes of a corpus, cut at a line end."""
    data = path.read_bytes()[:size]
    return data[: data.rindex(b"\n") + 1].decode("utf-8")


@pytest.fixture(scope="module", params=sorted(CASES))
def trimmed(request, debian_corpora, tmp_path_factory):
    """(model name, the original file, the sample file, the trimmed directory, the CLI's output)."""
    name = request.param
    language, size = CASES[name]
    root = tmp_path_factory.mktemp(f"trim-{name}")
    sample = root / f"{language}.txt"
    text = sample_lines(debian_corpora[language], 150_000)
    sample.write_text(text + (WHOLE_ONLY_LINE * 60 if name == "llama3_1" else ""), encoding="utf-8", newline="")
    original = model_tokenizer_json(name)
    out = root / "out"
    done = run_cli("trim", str(original), "--sample", str(sample), "--vocab-size", str(size), "--output", str(out))
    assert done.returncode == 0, done.stderr
    return name, original, sample, out, done.stdout


def test_the_rust_backend_loads_the_trimmed_file_and_agrees_with_hf_bpe(trimmed):
    from transformers import PreTrainedTokenizerFast

    _name, _original, sample, out, _stdout = trimmed
    rust = PreTrainedTokenizerFast(tokenizer_file=str(out / "tokenizer.json"))
    ours = hf_bpe.from_pretrained(out)
    assert type(ours).__name__ == "BPETokenizer"
    texts = [*ADVERSARIAL, *multilingual_text(150, seed=7).splitlines(keepends=True)]
    texts += sample.read_text(encoding="utf-8").splitlines(keepends=True)[:300]
    for text in texts:
        assert ours(text)["input_ids"] == rust(text)["input_ids"], text
        assert ours(text, add_special_tokens=False)["input_ids"] == rust(text, add_special_tokens=False)["input_ids"]
    assert len(ours) == len(rust) == rust.backend_tokenizer.get_vocab_size()


def test_wherever_the_original_used_only_kept_tokens_the_trimmed_gives_the_same_tokens(trimmed):
    name, original_path, sample, out, _stdout = trimmed
    original = Tokenizer.from_file(str(original_path))
    trim = Tokenizer.from_file(str(out / "tokenizer.json"))
    kept = set(trim.get_vocab())
    checked = {"line": 0, "word": 0}
    other = 0
    lines = sample.read_text(encoding="utf-8").splitlines(keepends=True)
    units = [("line", line) for line in lines] + [("word", word) for line in lines for word in line.split()]
    for unit, text in units:
        tokens = original.encode(text, add_special_tokens=False).tokens
        if set(tokens) <= kept:
            assert trim.encode(text, add_special_tokens=False).tokens == tokens, (unit, text)
            checked[unit] += 1
        else:
            other += 1
    # Both kinds occur: the vocabulary asked for is too small for the whole sample, and most of it is covered.
    assert checked["line"] > 100 and checked["word"] > 2000 and other > 0, (name, checked, other)
    # The sample's most used tokens are kept (each with what builds it).
    counts = Counter(token for line in lines for token in original.encode(line, add_special_tokens=False).tokens)
    assert {token for token, _ in counts.most_common(300)} <= kept


def test_the_kept_tokens_are_the_specials_the_bytes_and_what_the_sample_uses_closed_under_their_merges(trimmed):
    name, original_path, _sample, out, _stdout = trimmed
    original = json.loads(original_path.read_text(encoding="utf-8"))
    data = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))
    vocab = data["model"]["vocab"]
    assert len(vocab) + len(data["added_tokens"]) == CASES[name][1]
    assert set(BYTE_ALPHABET) <= set(vocab)
    assert [entry["content"] for entry in data["added_tokens"]] == [e["content"] for e in original["added_tokens"]]

    # The merges whose three tokens are kept, in the original's order (written as pairs, as tokenizers writes them
    # whether it read "a b" or ["a", "b"]).
    def parts(merge):
        return merge.split(" ") if isinstance(merge, str) else merge

    assert data["model"]["merges"] == [
        parts(merge)
        for merge in original["model"]["merges"]
        if all(t in vocab for t in (*parts(merge), "".join(parts(merge))))
    ]

    # Every kept token is built by the kept merges: the Rust BPE model, merges only (ignore_merges off), gives it
    # whole from its bytes; where it does not, the original's merges do not build it either (a Llama-3 token
    # given whole only, by ignore_merges), and it was kept because the sample used it.
    def merges_only(model_json):
        model_json = json.loads(json.dumps(model_json))
        model_json["model"]["ignore_merges"] = False
        return Tokenizer.from_str(json.dumps(model_json)).model

    trimmed_model, original_model = merges_only(data), merges_only(original)
    whole_only = []
    for token in vocab:
        if [t.value for t in trimmed_model.tokenize(token)] != [token]:
            assert [t.value for t in original_model.tokenize(token)] != [token], token
            whole_only.append(token)
    if name == "llama3_1":
        assert data["model"]["ignore_merges"] is True
        assert {"ĠViá»ĩt", "Ġnhiá»ģu", "ektedir"} <= set(whole_only)
        trim = Tokenizer.from_file(str(out / "tokenizer.json"))
        assert trim.encode(" Việt nhiều").tokens == ["<|begin_of_text|>", "ĠViá»ĩt", "Ġnhiá»ģu"]
    else:
        assert whole_only == []


def test_id_map_maps_every_kept_token_to_its_old_id(trimmed):
    _name, original_path, _sample, out, stdout = trimmed
    original = Tokenizer.from_file(str(original_path))
    trim = Tokenizer.from_file(str(out / "tokenizer.json"))
    id_map = {int(old): new for old, new in json.loads((out / "id_map.json").read_text()).items()}
    assert sorted(id_map.values()) == list(range(trim.get_vocab_size())) == list(range(len(id_map)))
    for old, new in id_map.items():
        assert trim.id_to_token(new) == original.id_to_token(old)
    # The order chosen: the original's (increasing old ids), added tokens after the model's as they were.
    old_ids_in_new_order = sorted(id_map, key=id_map.__getitem__)
    assert old_ids_in_new_order == sorted(id_map)
    assert "old_embeddings[torch.tensor(old_ids_in_new_order)]" in stdout and str(out / "id_map.json") in stdout


def test_the_file_is_what_tokenizers_writes_for_the_trimmed_tokenizer(trimmed):
    _name, _original, _sample, out, _stdout = trimmed
    text = (out / "tokenizer.json").read_text(encoding="utf-8")
    assert Tokenizer.from_file(str(out / "tokenizer.json")).to_str(pretty=True) == text


@pytest.mark.parametrize("name", ["gpt2", "llama3_1", "allenai_dolma2"])
def test_the_file_is_what_tokenizers_save_writes_merges_as_pairs_every_model_field(name, tmp_path):
    """GPT-2 and OLMo-2 write their merges as "a b" and no ``ignore_merges``, Llama-3.1 its merges as "a b":
    ``Tokenizer.save`` writes pairs and every field of the model, and so does the trimmed file."""
    from real_tokenizers import olmo_tokenizer_json

    source = olmo_tokenizer_json(name) if name.startswith("allenai") else model_tokenizer_json(name)
    sample = tmp_path / "sample.txt"
    sample.write_text(multilingual_text(200, seed=3), encoding="utf-8")
    hf_bpe.trim(source, [sample], vocab_size=1500, output=tmp_path / "out", progress=False)
    text = (tmp_path / "out" / "tokenizer.json").read_text(encoding="utf-8")
    assert Tokenizer.from_file(str(tmp_path / "out" / "tokenizer.json")).to_str(pretty=True) == text
    assert isinstance(json.loads(text)["model"]["merges"][0], list)


def test_every_other_section_of_the_file_is_the_original_s(trimmed):
    _name, original_path, _sample, out, _stdout = trimmed
    # The original as tokenizers writes it back: the trimmed file is tokenizers' writing too.
    original = json.loads(Tokenizer.from_file(str(original_path)).to_str())
    data = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))
    id_map = {int(old): new for old, new in json.loads((out / "id_map.json").read_text()).items()}
    for key in original:
        if key not in ("model", "added_tokens", "post_processor"):
            assert data[key] == original[key], key
    assert {k: v for k, v in data["model"].items() if k not in ("vocab", "merges")} == {
        k: v for k, v in original["model"].items() if k not in ("vocab", "merges")
    }
    assert data["added_tokens"] == [{**entry, "id": id_map[entry["id"]]} for entry in original["added_tokens"]]
    renumbered = json.dumps(original["post_processor"])
    for old, new in id_map.items():
        if old >= len(original["model"]["vocab"]):
            renumbered = renumbered.replace(f"[{old}]", f"[{new}]")
    assert json.loads(renumbered) == data["post_processor"]


def test_a_directory_keeps_its_config_with_ids_renumbered(tmp_path):
    import transformers

    source = tmp_path / "qwen3"
    source.mkdir()
    shutil.copy(model_tokenizer_json("qwen3"), source / "tokenizer.json")
    # tokenizer_config.json as Qwen3's model repository has it: the added tokens by id, the roles by text.
    added = json.loads((source / "tokenizer.json").read_text(encoding="utf-8"))["added_tokens"]
    decoder = {str(entry["id"]): {k: v for k, v in entry.items() if k != "id"} for entry in added}
    config = {"added_tokens_decoder": decoder, "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>",
              "tokenizer_class": "Qwen2Tokenizer", "model_max_length": 131072}  # fmt: skip
    (source / "tokenizer_config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    sample = tmp_path / "ja.txt"
    sample.write_text("日本語のテキストです。<think>考える</think>\n" * 5, encoding="utf-8")
    found = hf_bpe.trim(source, [sample], vocab_size=400, output=tmp_path / "out")
    config = json.loads((tmp_path / "out" / "tokenizer_config.json").read_text(encoding="utf-8"))
    new_id = found.id_map[151667]  # <think>
    assert config["added_tokens_decoder"][str(new_id)]["content"] == "<think>"
    rust = transformers.AutoTokenizer.from_pretrained(tmp_path / "out")
    ours = hf_bpe.from_pretrained(tmp_path / "out")
    text = "日本語の<think>テキスト</think>です"
    assert ours(text)["input_ids"] == rust(text)["input_ids"]
    assert new_id in rust(text)["input_ids"]
    assert rust.eos_token_id == ours.eos_token_id == found.id_map[151645]  # <|im_end|>


def test_errors_name_the_culprit(tmp_path, course_file):
    from tokenizers import Tokenizer as RustTokenizer
    from tokenizers import models, pre_tokenizers, trainers

    qwen = model_tokenizer_json("qwen3")
    done = run_cli("trim", str(qwen), "--sample", str(course_file), "--vocab-size", "100", "-o", str(tmp_path / "o"))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "vocab size 100 is below the 282 tokens every trim keeps (26 added" in done.stderr
    assert not (tmp_path / "o").exists()
    wordpiece = RustTokenizer(models.WordPiece(unk_token="[UNK]"))
    wordpiece.pre_tokenizer = pre_tokenizers.Whitespace()
    wordpiece.train([str(course_file)], trainers.WordPieceTrainer(vocab_size=200, special_tokens=["[UNK]"]))
    (tmp_path / "wp").mkdir()
    wordpiece.save(str(tmp_path / "wp" / "tokenizer.json"))
    done = run_cli(
        "trim", str(tmp_path / "wp"), "--sample", str(course_file), "--vocab-size", "300", "-o", str(tmp_path / "o")
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{tmp_path / 'wp' / 'tokenizer.json'}: not a byte-level BPE tokenizer (trim keeps" in done.stderr
    assert "model type is 'WordPiece'" in done.stderr
    gemma = model_tokenizer_json("gemma2")  # BPE on characters with byte fallback, not byte-level
    done = run_cli("trim", str(gemma), "--sample", str(course_file), "--vocab-size", "300", "-o", str(tmp_path / "o"))
    assert done.returncode == 1 and f"{gemma}: not a byte-level BPE tokenizer" in done.stderr
    done = run_cli(
        "trim", str(tmp_path / "nope"), "--sample", str(course_file), "--vocab-size", "300", "-o", str(tmp_path / "o")
    )
    assert done.returncode == 1 and f"{tmp_path / 'nope'}: no such file or directory" in done.stderr
    done = run_cli(
        "trim", str(qwen), "--sample", str(tmp_path / "missing.txt"), "--vocab-size", "300", "-o", str(tmp_path / "o")
    )
    assert done.returncode == 1 and f"{tmp_path / 'missing.txt'}: no such sample file" in done.stderr
    done = run_cli("trim", str(qwen), "--sample", str(course_file), "--vocab-size", "0", "-o", str(tmp_path / "o"))
    assert done.returncode == 2 and "'0' is not a positive integer" in done.stderr


def test_the_sample_is_counted_as_the_rust_backend_encodes_it_stripping_added_tokens_take_their_spaces(tmp_path):
    """An added token with ``lstrip`` and ``rstrip`` takes the spaces around it (``AddedVocabulary::find_matches``):
    the sample's tokens are those the Rust backend gives, so a space it never encodes alone is no sample token."""
    source = tmp_path / "tok"
    hf_bpe.train_from_iterator(["hug pug hug bug", "mug hug"], vocab_size=270).save(source)
    document = json.loads((source / "tokenizer.json").read_text(encoding="utf-8"))
    marker = {"id": 270, "content": "<m>", "single_word": False, "lstrip": True, "rstrip": True,
              "normalized": False, "special": True}  # fmt: skip
    document["added_tokens"] = [*document["added_tokens"], marker]
    (tmp_path / "tokenizer.json").write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    sample = tmp_path / "sample.txt"
    sample.write_text("hug <m> pug\nbug <m> mug\n", encoding="utf-8")
    found = hf_bpe.trim(tmp_path / "tokenizer.json", [sample], vocab_size=300, output=tmp_path / "out")
    rust = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    used = {i for line in ("hug <m> pug\n", "bug <m> mug\n") for i in rust.encode(line, add_special_tokens=False).ids}
    assert rust.token_to_id("Ġ") not in used
    assert (found.sample_tokens, found.from_sample) == (len(used), len(used))


def test_the_model_s_unknown_token_is_kept_as_the_trimmed_model_names_it(tmp_path):
    """A byte-level model naming a vocabulary token as ``unk_token`` keeps it (the trimmed model names it too), and
    the file stays what ``tokenizers`` writes for it."""
    source = tmp_path / "tok"
    hf_bpe.train_from_iterator(["hug pug hug bug", "mug hug"], vocab_size=264, progress=False).save(source)
    document = json.loads((source / "tokenizer.json").read_text(encoding="utf-8"))
    document["model"]["unk_token"] = "Ġpug"
    (tmp_path / "tokenizer.json").write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    sample = tmp_path / "sample.txt"
    sample.write_text("hug hug\n", encoding="utf-8")
    found = hf_bpe.trim(tmp_path / "tokenizer.json", [sample], vocab_size=258, output=tmp_path / "out")
    rust = Tokenizer.from_file(str(tmp_path / "out" / "tokenizer.json"))
    assert rust.get_vocab_size() == found.vocab_size == 258
    assert rust.token_to_id("Ġpug") == found.id_map[document["model"]["vocab"]["Ġpug"]]
    assert rust.to_str(pretty=True) == (tmp_path / "out" / "tokenizer.json").read_text(encoding="utf-8")
    ours = hf_bpe.Tokenizer.from_file(tmp_path / "out" / "tokenizer.json")
    assert ours.encode("hug pug").ids == rust.encode("hug pug").ids


@pytest.mark.parametrize("kind", ["RobertaProcessing", "BertProcessing"])
def test_a_post_processor_s_cls_and_sep_are_renumbered(kind, tmp_path, course_file):
    """``cls``/``sep`` of Roberta's and Bert's post-processors (which the byte-level fast path does not read; trim
    reads the file as a Tokenizer), added after the model's tokens, follow their tokens' new ids."""
    from tokenizers import Tokenizer as RustTokenizer
    from tokenizers import decoders, models, pre_tokenizers, processors, trainers

    rust = RustTokenizer(models.BPE())
    rust.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    rust.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    rust.train([str(course_file)], trainers.BpeTrainer(vocab_size=600, initial_alphabet=alphabet, show_progress=False))
    rust.add_special_tokens(["<s>", "</s>"])
    cls, sep = ("<s>", rust.token_to_id("<s>")), ("</s>", rust.token_to_id("</s>"))
    rust.post_processor = getattr(processors, kind)(sep, cls)
    rust.save(str(tmp_path / "tokenizer.json"))
    sample = tmp_path / "sample.txt"
    sample.write_text(course_file.read_text(encoding="utf-8")[:300] + "\n", encoding="utf-8")
    found = hf_bpe.trim(tmp_path / "tokenizer.json", [sample], vocab_size=300, output=tmp_path / "out")
    trimmed = RustTokenizer.from_file(str(tmp_path / "out" / "tokenizer.json"))
    assert trimmed.to_str(pretty=True) == (tmp_path / "out" / "tokenizer.json").read_text(encoding="utf-8")
    section = json.loads(trimmed.to_str())["post_processor"]
    assert section["cls"] == ["<s>", found.id_map[cls[1]]] and section["sep"] == ["</s>", found.id_map[sep[1]]]
    assert found.id_map[cls[1]] != cls[1]
    ours = hf_bpe.Tokenizer.from_file(tmp_path / "out" / "tokenizer.json")
    for line in sample.read_text(encoding="utf-8").splitlines():
        encoding = trimmed.encode(line)
        assert ours.encode(line).ids == encoding.ids, line
        assert encoding.ids[0] == found.id_map[cls[1]] and encoding.ids[-1] == found.id_map[sep[1]]
        assert (encoding.tokens[0], encoding.tokens[-1]) == ("<s>", "</s>")
