"""``hf-bpe train --model unigram`` and ``hf-bpe verify train --model unigram``, against ``tokenizers``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import multilingual_text

from hf_bpe.cli import main
from hf_bpe.models.unigram.trainer import UnigramOptions
from hf_bpe.reference.unigram_verify import reference_train


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text(multilingual_text(600, seed=21), encoding="utf-8", newline="")
    return path


def test_train_writes_the_reference_model(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tok"
    argv = [
        "train",
        str(corpus),
        "--model",
        "unigram",
        "--vocab-size",
        "300",
        "--unk-token",
        "<unk>",
        "--special-tokens",
        "<pad>",
        "</s>",
        "--pad-token",
        "<pad>",
        "--eos-token",
        "</s>",
        "--shrinking-factor",
        "0.6",
        "--max-piece-length",
        "8",
        "--n-sub-iterations",
        "3",
        "-o",
        str(out),
    ]
    assert main(argv) == 0
    assert "unigram" in capsys.readouterr().out
    data = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))
    reference, unk_id = reference_train(
        [corpus],
        UnigramOptions(
            vocab_size=300,
            unk_token="<unk>",
            special_tokens=("<pad>", "</s>"),
            shrinking_factor=0.6,
            max_piece_length=8,
            n_sub_iterations=3,
        ),
    )
    assert data["model"]["unk_id"] == unk_id == 0
    assert [p for p, _ in data["model"]["vocab"][:3]] == [p for p, _ in reference[:3]] == ["<unk>", "<pad>", "</s>"]
    assert {p for p, _ in data["model"]["vocab"]} == {p for p, _ in reference}
    assert [t["content"] for t in data["added_tokens"]] == ["<pad>", "</s>"]
    config = json.loads((out / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["tokenizer_class"] == "UnigramTokenizer"
    assert (config["unk_token"], config["pad_token"], config["eos_token"]) == ("<unk>", "<pad>", "</s>")


def test_verify_train_reports_no_difference(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "verify",
        "train",
        str(corpus),
        "--model",
        "unigram",
        "--vocab-size",
        "250",
        "--unk-token",
        "<unk>",
        "--json",
    ]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["first_difference"] is None
    assert report["final"]["same_pieces"] and report["seed_and_first_em_round"]["same_pieces"]
    assert report["steps"][0] == "seed" and report["steps"][-1].startswith("em ")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--min-frequency", "2"], "--min-frequency is a BPE option"),
        (["--shrinking-factor", "1.5"], "--shrinking-factor 1.5: must be between 0 and 1"),
        (["--char-level"], "--char-level is a BPE option"),
        (["--vocab-size", "100,200"], "one --vocab-size at a time"),
        (["--pattern", "o200k"], "--pattern is a BPE option"),
    ],
    ids=["min-frequency", "shrinking-factor", "char-level", "several-sizes", "pattern"],
)
def test_user_mistakes_get_one_clear_line(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    out = tmp_path / "tok"
    assert main(["train", str(corpus), "--model", "unigram", "-o", str(out), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not out.exists()


def test_invalid_utf8_names_the_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nstill fine\nbroken \xff here\n")
    out = tmp_path / "tok"
    assert main(["train", str(bad), "--model", "unigram", "--vocab-size", "40", "-o", str(out)]) == 1
    assert f"{bad}:3: invalid UTF-8" in capsys.readouterr().err
    assert not out.exists()


def test_too_small_a_vocabulary_is_one_clear_line(corpus: Path, tmp_path: Path, capsys) -> None:
    assert main(["train", str(corpus), "--model", "unigram", "--vocab-size", "10", "-o", str(tmp_path / "t")]) == 1
    assert "raise --vocab-size" in capsys.readouterr().err
