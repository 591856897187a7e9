"""Every long run shows progress by default (tqdm bars on stderr) and none with ``progress=False`` /
``--no-progress``: the Python API's training front ends for BPE, WordPiece and Unigram, and ``verify train``."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import multilingual_text

import hf_bpe
from hf_bpe.cli import main
from hf_bpe.models.unigram.trainer import UnigramOptions
from hf_bpe.models.unigram.training import train_unigram_from_files, train_unigram_from_iterator
from hf_bpe.models.wordpiece.training import train_wordpiece_from_files, train_wordpiece_from_iterator

LINES = multilingual_text(60, seed=11).splitlines()

RUNS = {
    "bpe files": (lambda path, **kw: hf_bpe.train_from_files([path], vocab_size=400, **kw), ["counting", "merging"]),
    "bpe iterator": (lambda path, **kw: hf_bpe.train_from_iterator(LINES, vocab_size=400, **kw), ["merging"]),
    "wordpiece files": (
        lambda path, **kw: train_wordpiece_from_files([path], vocab_size=300, **kw),
        ["counting", "merging"],
    ),
    "wordpiece iterator": (lambda path, **kw: train_wordpiece_from_iterator(LINES, vocab_size=300, **kw), ["merging"]),
    "unigram files": (
        lambda path, **kw: train_unigram_from_files([path], UnigramOptions(vocab_size=150), **kw),
        ["counting", "EM rounds"],
    ),
    "unigram iterator": (
        lambda path, **kw: train_unigram_from_iterator(LINES, UnigramOptions(vocab_size=150), **kw),
        ["EM rounds"],
    ),
}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("run", list(RUNS))
def test_training_shows_bars_by_default_and_none_when_asked(corpus, run, capsys):
    train, stages = RUNS[run]
    shown = train(corpus)
    err = capsys.readouterr().err
    for stage in stages:
        assert f"\n{stage}: " in err.replace("\r", "\n"), (stage, err[-300:])
    quiet = train(corpus, progress=False)
    assert capsys.readouterr().err == ""
    assert quiet == shown
    calls = []
    train(corpus, progress=lambda stage, done, total: calls.append(stage))
    assert capsys.readouterr().err == ""
    assert {"count", "merge", "em"} & set(calls)


@pytest.mark.parametrize("model", ["bpe", "unigram"])
def test_verify_train_shows_progress_unless_told_not_to(corpus, model, capsys):
    args = ["verify", "train", str(corpus), "--vocab-size", "300", "--model", model]
    assert main(args) == 0
    assert "counting: 100%" in capsys.readouterr().err.replace("\r", "\n")
    assert main([*args, "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


def test_an_iterators_counting_bar_counts_texts_not_bytes(capsys):
    """The iterator's counting reports how many texts it has counted: the bar says so in texts (seq), where it
    once labelled 6,683 texts as 6.68 kB."""
    lines = multilingual_text(6000, seed=11).splitlines()
    calls = []
    hf_bpe.train_from_iterator(lines, vocab_size=300, progress=lambda *call: calls.append(call))
    counted = [call for call in calls if call[0] in ("count", "sequences")]
    assert counted[-1][:2] == ("sequences", len(lines)) and all(stage == "sequences" for stage, *_ in counted)
    hf_bpe.train_from_iterator(lines, vocab_size=300)
    shown = capsys.readouterr().err.replace("\r", "\n")
    assert f"counting: {len(lines)}seq " in shown and "B/s" not in shown, shown[:300]
