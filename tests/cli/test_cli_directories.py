"""Every command that takes a tokenizer directory, on each of the four kinds hf-bpe writes (byte-level BPE,
char-level BPE, WordPiece, Unigram); the judge of ids is ``tokenizers``' Rust tokenizer loaded from the same
directory's ``tokenizer.json``. A command that cannot apply to a kind refuses it by name (exit 2, one line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import multilingual_text
from tokenizers import Tokenizer

from hf_bpe.cli import main
from hf_bpe.reference.gpt2 import tiktoken_encoding

KINDS = {
    "byte-level": ["--vocab-size", "400"],
    "char-level": ["--char-level", "--vocab-size", "300"],
    "wordpiece": ["--model", "wordpiece", "--vocab-size", "300"],
    "unigram": ["--model", "unigram", "--vocab-size", "200", "--unk-token", "<unk>"],
}
NAMES = {"char-level": "char-level BPE", "wordpiece": "WordPiece", "unigram": "Unigram"}
TEXTS = ["Hello world, naïve café!", "xylophone 日本語 ☃ 2024", "The  end\n"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("kinds")
    corpus = root / "corpus.txt"
    corpus.write_text(multilingual_text(300, seed=7), encoding="utf-8", newline="")
    directories = {}
    for kind, options in KINDS.items():
        directories[kind] = root / kind
        assert main(["train", str(corpus), "-o", str(root / kind), "--no-progress", "--workers", "1", *options]) == 0
    directories["sample"] = corpus
    return directories


def rust(directory: Path) -> Tokenizer:
    return Tokenizer.from_file(str(directory / "tokenizer.json"))


@pytest.mark.parametrize("kind", list(KINDS))
def test_encode_gives_the_rust_backends_ids_and_tokens(trained, kind, capsys):
    assert main(["encode", str(trained[kind]), *TEXTS, "--json"]) == 0
    shown = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["text"] for row in shown] == TEXTS
    for row in shown:
        reference = rust(trained[kind])
        ids = reference.encode(row["text"]).ids
        assert row["ids"] == ids, row["text"]
        assert row["tokens"] == [reference.id_to_token(token_id) for token_id in ids], row["text"]


@pytest.mark.parametrize("kind", list(KINDS))
def test_report_counts_the_rust_backends_tokens(trained, kind, capsys):
    sample = trained["sample"]
    assert main(["report", str(trained[kind]), "--sample", str(sample), "--json"]) == 0
    (found,) = json.loads(capsys.readouterr().out)
    reference = rust(trained[kind])
    ids = reference.encode(sample.read_bytes().decode("utf-8"), add_special_tokens=False).ids
    assert found["overall"]["tokens"] == len(ids)
    assert found["used"] == len(set(ids))
    assert found["vocab_size"] == reference.get_vocab_size()


@pytest.mark.parametrize("kind", list(KINDS))
def test_verify_encode_against_transformers_passes(trained, kind, capsys):
    status = main(["verify", "encode", "--tokenizer", str(trained[kind]), str(trained["sample"]), "--json"])
    found = json.loads(capsys.readouterr().out)
    assert status == 0 and found["ok"] is True
    assert found["differing"] == 0 and found["units"] == len(trained["sample"].read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("kind", list(NAMES))
@pytest.mark.parametrize(
    "command",
    [
        ["export", "tiktoken", "{dir}", "-o", "{out}"],
        ["verify", "encode", "--tokenizer", "{dir}", "--against", "tiktoken", "--ranks", "{out}", "{sample}"],
        ["train", "{sample}", "-o", "{out}", "--continue-from", "{dir}", "--vocab-size", "9000"],
    ],
    ids=["export", "verify-tiktoken", "continue-from"],
)
def test_a_command_for_byte_level_bpe_refuses_another_kind_by_name(trained, kind, command, tmp_path, capsys):
    out = tmp_path / "out"
    argv = [part.format(dir=trained[kind], out=out, sample=trained["sample"]) for part in command]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and f"a {NAMES[kind]} tokenizer" in error and "byte-level BPE only" in error
    assert "vocab.json" not in error and not out.exists()


def test_export_writes_a_byte_level_directory(trained, tmp_path, capsys):
    out = tmp_path / "byte.tiktoken"
    assert main(["export", "tiktoken", str(trained["byte-level"]), "-o", str(out)]) == 0
    capsys.readouterr()
    encoding = tiktoken_encoding(out)
    for text in TEXTS:
        assert encoding.encode(text) == rust(trained["byte-level"]).encode(text).ids


def test_a_directory_of_no_known_kind_is_named(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["encode", str(tmp_path), "hi"]) == 2
    error = capsys.readouterr().err
    assert f"{tmp_path}: not a tokenizer directory hf-bpe reads" in error and "vocab.txt (WordPiece)" in error


@pytest.mark.parametrize("kind", ["wordpiece", "unigram"])
def test_force_removes_another_tokenizers_files_for_wordpiece_and_unigram(trained, kind, tmp_path, capsys):
    out = tmp_path / "tok"
    out.mkdir()
    # what an earlier tokenizer's save_pretrained left: another eos and two added tokens
    (out / "special_tokens_map.json").write_text(json.dumps({"eos_token": "<eos>"}), encoding="utf-8")
    (out / "added_tokens.json").write_text(json.dumps({"<eos>": 500, "<pad>": 501}), encoding="utf-8")
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    argv = ["train", str(trained["sample"]), "-o", str(out), "--no-progress", "--workers", "1", *KINDS[kind]]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert "special_tokens_map.json, added_tokens.json" in error and "--force" in error
    assert sorted(path.name for path in out.iterdir()) == ["added_tokens.json", "notes.txt", "special_tokens_map.json"]

    assert main([*argv, "--force"]) == 0
    written = sorted(path.name for path in out.iterdir())
    assert "special_tokens_map.json" not in written and "added_tokens.json" not in written and "notes.txt" in written
    # the same tokenizer as trained without the old files: the Rust backend gives the same ids from both
    for text in TEXTS:
        assert rust(out).encode(text).ids == rust(trained[kind]).encode(text).ids
