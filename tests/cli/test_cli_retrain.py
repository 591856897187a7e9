"""Training a directory again as another kind: the other kind's model files never stay beside the new tokenizer
(``hf-bpe encode`` would read them while AutoTokenizer loads the new one). Without ``--force`` the directory is
refused and left as it was; with it, they go in the same all-or-nothing write, and files hf-bpe does not know
stay. The judge of ids is ``tokenizers``' Rust tokenizer loaded from the directory's ``tokenizer.json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import multilingual_text
from tokenizers import Tokenizer
from transformers import AutoTokenizer

import hf_bpe  # noqa: F401  (registers the classes with AutoTokenizer)
from hf_bpe.cli import main

KINDS = {
    "bpe": (["--vocab-size", "400"], {"vocab.json", "merges.txt"}),
    "wordpiece": (["--model", "wordpiece", "--vocab-size", "300"], {"vocab.txt"}),
    "unigram": (["--model", "unigram", "--vocab-size", "200", "--unk-token", "<unk>"], set()),
}
COMMON = {"tokenizer.json", "tokenizer_config.json"}
TEXT = "Hello world, naïve café! xylophone"


def train(corpus: Path, out: Path, kind: str, *extra: str) -> int:
    return main(["train", str(corpus), "-o", str(out), "--no-progress", "--workers", "1", *KINDS[kind][0], *extra])


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text(multilingual_text(200, seed=3), encoding="utf-8", newline="")
    return path


@pytest.mark.parametrize(
    ("first", "second"), [("bpe", "wordpiece"), ("bpe", "unigram"), ("wordpiece", "bpe"), ("wordpiece", "unigram")]
)
def test_retraining_as_another_kind_leaves_only_the_new_kinds_files(corpus, tmp_path, first, second, capsys):
    out = tmp_path / "tok"
    assert train(corpus, out, first) == 0
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    before = {path.name: path.read_bytes() for path in out.iterdir()}

    assert train(corpus, out, second) == 2  # a usage error: --force, or another directory
    error = capsys.readouterr().err
    assert "--force" in error and str(out) in error
    for name in KINDS[first][1] - KINDS[second][1]:
        assert name in error
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before

    assert train(corpus, out, second, "--force") == 0
    assert {path.name for path in out.iterdir()} == COMMON | KINDS[second][1] | {"notes.txt"}
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"

    capsys.readouterr()
    assert main(["encode", str(out), TEXT, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    expected = Tokenizer.from_file(str(out / "tokenizer.json")).encode(TEXT).ids
    assert shown["ids"] == expected
    assert AutoTokenizer.from_pretrained(str(out))(TEXT)["input_ids"] == expected


def test_the_python_api_refuses_and_replaces_another_kinds_files(corpus, tmp_path):
    from hf_bpe.models.wordpiece.training import train_wordpiece_from_files

    out = tmp_path / "tok"
    assert train(corpus, out, "bpe") == 0
    result = train_wordpiece_from_files([corpus], vocab_size=300)
    with pytest.raises(FileExistsError, match=r"vocab\.json, merges\.txt"):
        result.save(out)
    assert (out / "vocab.json").exists() and not (out / "vocab.txt").exists()
    result.save(out, force=True)
    assert {path.name for path in out.iterdir()} == COMMON | {"vocab.txt"}


@pytest.mark.parametrize(("model", "size"), [("wordpiece", "len(vocab)"), ("unigram", "pieces")])
def test_wordpiece_and_unigram_say_when_they_stop_short(corpus, tmp_path, model, size, capsys):
    out = tmp_path / model
    args = ["train", str(corpus), "-o", str(out), "--model", model, "--vocab-size", "90000", "--no-progress"]
    assert main([*args, "--workers", "1"]) == 0
    err = capsys.readouterr().err
    made = Tokenizer.from_file(str(out / "tokenizer.json")).get_vocab_size()
    assert f"hf-bpe: warning: the vocabulary has {made:,} of the 90,000 tokens asked for (stopped: " in err
