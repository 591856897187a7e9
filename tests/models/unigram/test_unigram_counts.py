"""Unigram from counts directories (local and datatrove engines): the words the reference's recipe cuts, the
recipe recorded, the piece set of ``UnigramTrainer`` trained on the same files; BPE, WordPiece and Unigram counts
are not mixed up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import COURSE, multilingual_text
from tokenizers import Regex, normalizers, pre_tokenizers

from hf_bpe.cli import main
from hf_bpe.counting.counts_dir import iter_counts, read_manifest
from hf_bpe.models.bpe.training import count_to_directory, train_from_count_directory
from hf_bpe.models.unigram.trainer import UnigramOptions
from hf_bpe.models.unigram.training import (
    count_files,
    count_unigram_to_directory,
    train_unigram_from_count_directory,
    train_unigram_from_files,
)
from hf_bpe.models.wordpiece.training import count_wordpiece_to_directory, train_wordpiece_from_count_directory
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
from hf_bpe.reference.unigram_verify import reference_train

NORMALIZER = normalizers.Sequence([normalizers.Nmt(), normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
PRE_TOKENIZER = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("unigram-counts")
    paths = []
    for index in range(3):
        path = root / f"part{index}.txt"
        text = "".join(COURSE) + multilingual_text(120, index) + "tab\there  two  spaces\r\n\u2581lead\x07\n"
        path.write_text(text, encoding="utf-8", newline="")
        paths.append(path)
    return paths


@pytest.mark.parametrize("engine", ["local", "datatrove"])
def test_counts_directory_holds_the_words_the_recipe_cuts(corpus: list[Path], tmp_path: Path, engine: str) -> None:
    count_unigram_to_directory(corpus, tmp_path / "counts", engine=engine, workers=2, buckets=3)
    settings = read_manifest(tmp_path / "counts")["settings"]
    assert settings["sentencepiece"] == {"replacement": "▁", "prepend_scheme": "always"}
    assert PreTokenizer.from_settings(settings) == PreTokenizer.sentencepiece_recipe()
    # The words are the reference's: its normalizer and Metaspace over each line, as Tokenizer.train feeds them.
    expected: dict[str, int] = {}
    for path in corpus:
        text = path.read_bytes().decode("utf-8")
        for line in [part + "\n" for part in text.split("\n")[:-1]] + [text.rsplit("\n", 1)[-1]]:
            for word, _ in PRE_TOKENIZER.pre_tokenize_str(NORMALIZER.normalize_str(line)):
                expected[word] = expected.get(word, 0) + 1
    assert dict(iter_counts(tmp_path / "counts")) == expected
    assert dict(count_files(corpus, workers=2)) == expected


def test_count_then_train_from_counts_gives_the_reference_pieces(
    corpus: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    counts, out = tmp_path / "counts", tmp_path / "tok"
    assert main(["count", *map(str, corpus), "--model", "unigram", "-o", str(counts), "--workers", "2"]) == 0
    argv = ["train", "--from-counts", str(counts), "--model", "unigram", "--vocab-size", "300"]
    assert main([*argv, "--unk-token", "<unk>", "--special-tokens", "<pad>", "-o", str(out)]) == 0
    assert "unigram" in capsys.readouterr().out
    options = UnigramOptions(vocab_size=300, unk_token="<unk>", special_tokens=("<pad>",))
    reference, unk_id = reference_train(corpus, options)
    model = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))["model"]
    assert model["unk_id"] == unk_id == 0
    assert [p for p, _ in model["vocab"][:2]] == [p for p, _ in reference[:2]] == ["<unk>", "<pad>"]
    assert {p for p, _ in model["vocab"]} == {p for p, _ in reference}
    # The files path trains the same model (same counts, in another order: the trainer sorts them).
    assert train_unigram_from_files(corpus, options, workers=1).pieces == [tuple(p) for p in model["vocab"]]


def test_bpe_wordpiece_and_unigram_counts_are_not_mixed_up(
    corpus: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = UnigramOptions(vocab_size=300)
    count_to_directory(corpus, tmp_path / "bpe", workers=1)
    count_wordpiece_to_directory(corpus, tmp_path / "wordpiece", workers=1)
    count_unigram_to_directory(corpus, tmp_path / "unigram", workers=1)
    with pytest.raises(ValueError, match="byte-level BPE's pre-tokenizer, not the SentencePiece recipe"):
        train_unigram_from_count_directory(tmp_path / "bpe", options)
    with pytest.raises(ValueError, match="BERT's recipe"):
        train_unigram_from_count_directory(tmp_path / "wordpiece", options)
    with pytest.raises(ValueError, match="--model unigram"):
        train_from_count_directory(tmp_path / "unigram")
    with pytest.raises(ValueError, match=r"counted with the SentencePiece recipe \(Unigram\), not BERT's recipe"):
        train_wordpiece_from_count_directory(tmp_path / "unigram")
    out = tmp_path / "tok"
    argv = ["train", "--from-counts", str(tmp_path / "bpe"), "--model", "unigram", "-o", str(out)]
    assert main(argv) != 0
    err = capsys.readouterr().err
    assert "hf-bpe count --model unigram" in err and "Traceback" not in err
    assert not out.exists()
    assert main(["count", str(corpus[0]), "--model", "unigram", "--pattern", "o200k", "-o", str(tmp_path / "c")]) == 2
    assert "leave them out for unigram" in capsys.readouterr().err
