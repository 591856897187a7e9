"""Unigram training against ``tokenizers``' ``UnigramTrainer``, run in the same test on the same text.

The reference sums its E-step and pruning statistics in per-thread chunks added in an order that changes between
runs, so its scores move a little from run to run (and, with them, the order of near-equal pieces); its piece
set does not. Each comparison trains the reference two or three times, measures that spread, and asserts: the
same piece set, special tokens and unknown id at the same places, and every score within the spread (at least
``SCORE_FLOOR``) of the reference's. Characters the model lost are scored ``min_score + k * 1e-4`` in the
reference's hash order, which differs between its own runs: for them the set of scores is compared.

The reference's runs on a file are made once per module and shared (:func:`reference_runs`); the real corpora
(the issue's 4k to 16k pieces on English, Russian, Japanese and Chinese) are trained once by hf_bpe and twice by
the reference, in a module-scoped fixture that every real-corpus test reads.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, multilingual_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hf_bpe.models.unigram.trainer import UnigramOptions, UnigramTrainingError, train_unigram
from hf_bpe.pipeline import sentencepiece as recipe
from hf_bpe.reference.trainers import unigram_reference

PENALTY = 1e-4
# The least tolerance for a score: the reference's own runs, and hf_bpe against them, differ by at most 4e-11 on
# the real-corpus cases (sums of 7,000 to 26,000 words' expected counts, added in another order, through three EM
# rounds and digamma) on this 2-core machine; two runs can come out equal (same chunks), so the spread measured in a
# test may be 0. 1e-9 leaves 25 times that and is still far below what a real difference moves: one token more in
# the expected total (about 1e5 to 1e6 here) moves every score by 1e-6 or more.
SCORE_FLOOR = 1e-9


def reference_pieces(text_path: Path, options: UnigramOptions) -> list[tuple[str, float]]:
    """Train ``tokenizers``' UnigramTrainer with SentencePieceUnigramTokenizer's recipe on a file."""
    tokenizer, trainer = unigram_reference(options)
    tokenizer.train([str(text_path)], trainer)
    model = json.loads(tokenizer.to_str())["model"]
    return [(piece, score) for piece, score in model["vocab"]], model["unk_id"]


_REFERENCE_RUNS: dict[tuple[bytes, UnigramOptions], list[Any]] = {}


def reference_runs(text_path: Path, options: UnigramOptions, runs: int) -> list[Any]:
    """``runs`` reference trainings of the file, made once per module and shared by the tests that ask again
    (for the same text and options)."""
    made = _REFERENCE_RUNS.setdefault((hashlib.sha256(text_path.read_bytes()).digest(), options), [])
    while len(made) < runs:
        made.append(reference_pieces(text_path, options))
    return made[:runs]


def ours(text_path: Path, options: UnigramOptions, trace=None):
    with open(text_path, encoding="utf-8", newline="") as file:
        counts = recipe.count_words(recipe.lines(file.read()))
    return train_unigram(counts, options, trace=trace)


def assert_same_training(
    text_path: Path, options: UnigramOptions, runs: int = 3, result: Any = None
) -> dict[str, float]:
    """Train both (``result``: hf_bpe's, if already trained); assert parity as the module docstring says. Returns
    the measured spread and difference."""
    references = reference_runs(text_path, options, runs)
    result = result or ours(text_path, options)
    ref_vocab, ref_unk = references[0]
    assert result.unk_id == ref_unk
    special = len(result.special_tokens) + (
        1 if result.unk_id == 0 and options.unk_token not in options.special_tokens and options.unk_token else 0
    )
    assert result.pieces[:special] == ref_vocab[:special]
    ref_sets = [{piece for piece, _ in vocab} for vocab, _ in references]
    assert all(pieces == ref_sets[0] for pieces in ref_sets)  # the reference's own set is stable
    mine = dict(result.pieces)
    assert len(mine) == len(result.pieces)
    assert set(mine) == ref_sets[0], (sorted(set(mine) - ref_sets[0])[:10], sorted(ref_sets[0] - set(mine))[:10])
    ref_scores = [dict(vocab) for vocab, _ in references]
    # Lost characters: min_score + k * 1e-4, k in hash order (so they also differ between the reference's runs).
    floor = min(score for piece, score in ref_vocab[special:])
    band = [piece for piece in mine if len(piece) == 1 and mine[piece] < floor + PENALTY * len(mine) - PENALTY / 2]
    lost = [p for p in band if any(abs((mine[p] - floor) / PENALTY - k) < 1e-3 for k in range(1, len(mine)))]
    lost_floor = [p for p in band if abs(mine[p] - floor) <= 1e-9]
    penalized = set(lost) | set(lost_floor) if lost else set()
    spread = max(
        (
            max(r[piece] for r in ref_scores) - min(r[piece] for r in ref_scores)
            for piece in mine
            if piece not in penalized
        ),
        default=0.0,
    )
    tolerance = max(spread, SCORE_FLOOR)
    worst = 0.0
    for piece, score in mine.items():
        if piece in penalized:
            continue
        low = min(r[piece] for r in ref_scores) - tolerance
        high = max(r[piece] for r in ref_scores) + tolerance
        assert low <= score <= high, (piece, score, [r[piece] for r in ref_scores])
        worst = max(worst, abs(score - ref_scores[0][piece]))
    if penalized:
        assert sorted(round(mine[p] - floor, 6) for p in penalized) == sorted(
            round(ref_scores[0][p] - floor, 6) for p in penalized
        )
    scores = [score for _, score in result.pieces[special:]]
    assert scores == sorted(scores, reverse=True)
    return {"spread": spread, "worst": worst}


@pytest.fixture
def course_corpus(tmp_path: Path) -> Path:
    path = tmp_path / "course.txt"
    path.write_text(
        "hug " * 10 + "\n" + "pug " * 5 + "\n" + "pun " * 12 + "\n" + "bun " * 4 + "\n" + "hugs " * 5 + "\n"
    )
    return path


@pytest.mark.parametrize(
    "options",
    [
        pytest.param(UnigramOptions(vocab_size=12, unk_token="<unk>"), id="unk-added"),
        pytest.param(
            UnigramOptions(vocab_size=14, special_tokens=("<pad>", "<unk>"), unk_token="<unk>"), id="unk-special"
        ),
        pytest.param(UnigramOptions(vocab_size=13, special_tokens=("<s>", "</s>")), id="no-unk"),
    ],
)
def test_course_corpus_trains_like_the_reference(course_corpus: Path, options: UnigramOptions) -> None:
    assert_same_training(course_corpus, options)


@pytest.mark.parametrize("vocab_size", [150, 1000])
def test_multilingual_text_trains_like_the_reference(tmp_path: Path, vocab_size: int) -> None:
    path = tmp_path / "multi.txt"
    path.write_text(multilingual_text(1500, seed=3), encoding="utf-8", newline="")
    assert_same_training(path, UnigramOptions(vocab_size=vocab_size, unk_token="<unk>", special_tokens=("<s>",)))


def test_options_reach_the_trainer(tmp_path: Path) -> None:
    path = tmp_path / "multi.txt"
    path.write_text(multilingual_text(800, seed=5), encoding="utf-8", newline="")
    options = UnigramOptions(
        vocab_size=300, unk_token="<unk>", shrinking_factor=0.5, max_piece_length=6, n_sub_iterations=1
    )
    assert_same_training(path, options)


def test_python_sources_train_like_the_reference(tmp_path: Path, stdlib_files: Sequence[Path]) -> None:
    path = tmp_path / "code.txt"
    path.write_bytes(stdlib_files[0].read_bytes()[:120_000])
    assert_same_training(path, UnigramOptions(vocab_size=1500, unk_token="<unk>"))


def test_too_small_a_vocabulary_is_refused_as_the_reference_does(course_corpus: Path) -> None:
    with pytest.raises(Exception, match="not large enough"):
        reference_pieces(course_corpus, UnigramOptions(vocab_size=5))
    with pytest.raises(UnigramTrainingError, match="raise --vocab-size"):
        ours(course_corpus, UnigramOptions(vocab_size=5))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    corpus=st.lists(st.text(alphabet="aab \n\tén", max_size=30), min_size=1, max_size=25),
    vocab_size=st.integers(min_value=8, max_value=40),
)
def test_random_corpora_train_like_the_reference(tmp_path: Path, corpus: list[str], vocab_size: int) -> None:
    path = tmp_path / "random.txt"
    path.write_text("\n".join(corpus), encoding="utf-8", newline="")
    if not recipe.count_words(recipe.lines("\n".join(corpus))):
        return
    options = UnigramOptions(vocab_size=vocab_size, unk_token="<unk>")
    chars = {c for line in corpus for c in recipe.normalize(line).replace(" ", "▁")} | {"▁"}
    if len(chars) + 1 > vocab_size:
        return
    assert_same_training(path, options, runs=1)


# The sizes (4k to 16k pieces) on the four languages, each on the smallest prefix (whole lines) of its 1 MB
# corpus that still works every step of the trainer at that size: seed pieces 4.8 to 7.5 times the size, EM
# dropping three quarters of them, two pruning rounds (the second cutting 87 to 2,900 pieces),
# characters the model lost that finalize puts back. Measured on 2026-11-23 (CPU seconds, hf_bpe / one reference
# run): english 8.4 / 2.4, russian 4.7 / 1.4, japanese 14.9 / 5.6, chinese 23 / 8.5. English cannot reach 8k
# or 16k honestly here: on its whole 1 MB, EM leaves 11,600 pieces for 8k (one pruning round); Chinese reaches
# 16k with two rounds only from about 600,000 of its 620,000 characters. The whole 1 MB corpora at 4k and 16k
# also passed (25 min on a loaded 2-core machine).
REAL_CORPORA = {  # id: (language, characters of the corpus, vocab_size)
    "english-4k": ("english", 400_000, 4000),
    "russian-4k": ("russian", 200_000, 4000),
    "japanese-8k": ("japanese", 300_000, 8000),
    "chinese-16k": ("chinese", 600_000, 16000),
}


@pytest.fixture(scope="module", params=list(REAL_CORPORA))
def real_training(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, debian_corpora: dict[str, Path]
) -> dict[str, Any]:
    """One case's sample, trained once by hf_bpe (every step traced) and twice by the reference (two runs
    measure its spread; a reference run is a third of the case's time, hf_bpe's run the rest)."""
    case = request.param
    language, length, vocab_size = REAL_CORPORA[case]
    text = debian_corpora[language].read_bytes().decode("utf-8")[:length]
    path = tmp_path_factory.mktemp("real") / f"{case}.txt"
    path.write_bytes(text[: text.rindex("\n") + 1].encode("utf-8"))
    options = UnigramOptions(vocab_size=vocab_size, unk_token="<unk>")
    steps: list[tuple[str, set[str]]] = []
    result = ours(path, options, trace=lambda name, pieces: steps.append((name, {piece for piece, _ in pieces})))
    reference_runs(path, options, 2)
    return {"case": case, "path": path, "options": options, "result": result, "steps": steps}


@pytest.mark.slow
def test_real_corpora_train_like_the_reference(real_training: dict[str, Any]) -> None:
    measured = assert_same_training(
        real_training["path"], real_training["options"], runs=2, result=real_training["result"]
    )
    print(f"{real_training['case']}: reference spread {measured['spread']:.3g}, off by {measured['worst']:.3g}")


@pytest.mark.slow
def test_real_corpora_samples_exercise_every_step(real_training: dict[str, Any]) -> None:
    """The samples are the smallest that reach their size honestly: each goes through every step the reference
    has, with the seed set well above the size and two pruning rounds."""
    steps = real_training["steps"]
    vocab_size = real_training["options"].vocab_size
    desired = vocab_size * 11 // 10
    names = [name for name, _ in steps]
    assert names[0] == "seed" and len(steps[0][1]) > 4 * vocab_size  # many repeated substrings as seeds
    prunes = [index for index, name in enumerate(names) if name.startswith("prune")]
    assert len(prunes) >= 2
    assert all(len(steps[index][1]) < len(steps[index - 1][1]) for index in prunes)
    assert len(steps[prunes[-1]][1]) == desired  # the last round stops at vocab_size * 1.1
    assert names[-1].startswith("em") and len(steps[-1][1]) <= desired
    assert len(steps[1][1]) < len(steps[0][1]) // 2  # EM drops most seeds
    final = {piece for piece, _ in real_training["result"].pieces}
    assert len(final) == vocab_size  # <unk> included
    words = recipe.count_words(recipe.lines(real_training["path"].read_bytes().decode("utf-8")))
    chars = {char for word in words for char in word}
    assert chars <= final
    assert chars - steps[-1][1]  # characters the model lost, which finalize puts back


_TRAIN_IN_A_FRESH_PROCESS = """
import json, sys
from hf_bpe.pipeline import sentencepiece as recipe
from hf_bpe.models.unigram.trainer import UnigramOptions, train_unigram

with open(sys.argv[1], encoding="utf-8", newline="") as file:
    counts = recipe.count_words(recipe.lines(file.read()))
result = train_unigram(counts, UnigramOptions(vocab_size=int(sys.argv[2]), unk_token="<unk>"))
print(json.dumps({"pieces": result.pieces, "unk_id": result.unk_id}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("real_training", ["russian-4k"], indirect=True)
def test_real_corpus_training_is_deterministic(real_training: dict[str, Any]) -> None:
    """hf_bpe's result is the same, piece order and every bit of every score, in a second run -- in a fresh process
    with another string-hash seed (so no set or dict order can leak in). Run on the cheapest case only (Russian at
    4k, about 5 s); the others' single run is compared with the reference above."""
    import os
    import subprocess

    seed = "1" if os.environ.get("PYTHONHASHSEED") == "0" else "0"
    root = str(REPO)
    path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": path}
    options = real_training["options"]
    command = [sys.executable, "-c", _TRAIN_IN_A_FRESH_PROCESS, str(real_training["path"]), str(options.vocab_size)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    again = json.loads(done.stdout)
    result = real_training["result"]
    assert again["unk_id"] == result.unk_id
    assert [tuple(piece) for piece in again["pieces"]] == result.pieces


def test_training_from_an_iterator_matches_train_from_iterator() -> None:
    from tokenizers import SentencePieceUnigramTokenizer

    from hf_bpe.models.unigram.training import train_unigram_from_iterator

    sequences = multilingual_text(500, seed=8).split("\n\n")  # items with newlines inside, as users pass them
    reference = SentencePieceUnigramTokenizer()
    reference.train_from_iterator(
        sequences, vocab_size=200, unk_token="<unk>", special_tokens=["<pad>"], show_progress=False
    )
    theirs = json.loads(reference.to_str())["model"]
    ours = train_unigram_from_iterator(
        sequences, UnigramOptions(vocab_size=200, unk_token="<unk>", special_tokens=("<pad>",))
    )
    assert ours.unk_id == theirs["unk_id"]
    assert [p for p, _ in ours.pieces[:2]] == [p for p, _ in theirs["vocab"][:2]]
    assert {p for p, _ in ours.pieces} == {p for p, _ in theirs["vocab"]}


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    corpus=st.lists(st.text(alphabet="aab \n\tén", max_size=40), min_size=1, max_size=40),
    vocab_size=st.integers(min_value=8, max_value=60),
    shrinking_factor=st.sampled_from([0.5, 0.75, 0.9]),
)
def test_many_random_corpora_train_like_the_reference(
    tmp_path: Path, corpus: list[str], vocab_size: int, shrinking_factor: float
) -> None:
    path = tmp_path / "random.txt"
    path.write_text("\n".join(corpus), encoding="utf-8", newline="")
    if not recipe.count_words(recipe.lines("\n".join(corpus))):
        return
    chars = {c for line in corpus for c in recipe.normalize(line).replace(" ", "▁")} | {"▁"}
    if len(chars) + 1 > vocab_size:
        return
    assert_same_training(
        path, UnigramOptions(vocab_size=vocab_size, unk_token="<unk>", shrinking_factor=shrinking_factor), runs=1
    )


def test_stopping_short_of_vocab_size_warns_with_the_references_size(tmp_path):
    from hf_bpe.models.shortfall import TrainingWarning
    from hf_bpe.models.unigram.training import train_unigram_from_files

    corpus = tmp_path / "text.txt"
    corpus.write_text(multilingual_text(20, seed=5), encoding="utf-8")
    options = UnigramOptions(vocab_size=5000, unk_token="<unk>")
    with pytest.warns(TrainingWarning, match=r"of the 5,000 tokens asked for \(stopped: no_pieces\)"):
        result = train_unigram_from_files([corpus], options, workers=1)
    pieces, _unk_id = reference_pieces(corpus, options)
    assert len(result.pieces) == len(pieces) < 5000


def test_an_empty_file_is_refused_by_name(tmp_path, capsys):
    from hf_bpe.cli import main
    from hf_bpe.models.unigram.training import train_unigram_from_files

    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match=r"empty\.txt: no text to train on"):
        train_unigram_from_files([empty], UnigramOptions(vocab_size=100), workers=1, progress=False)
    with pytest.raises(UnigramTrainingError, match="no text to train on"):
        train_unigram({}, UnigramOptions(vocab_size=100))
    assert main(["train", str(empty), "-o", str(tmp_path / "out"), "--model", "unigram", "--no-progress"]) == 1
    assert capsys.readouterr().err == f"hf-bpe: error: {empty}: no text to train on (the files are empty)\n"
    assert not (tmp_path / "out").exists()


def test_one_process_or_two_train_the_same_floats(tmp_path, debian_corpora, monkeypatch):
    """The E-step sums fixed groups of words and pruning's Viterbi pass sums whole numbers, whatever processes
    share them: the forks forced on and off give the same scores bit for bit, and the reference's pieces."""
    from hf_bpe.models.unigram import trainer

    text = debian_corpora["japanese"].read_bytes().decode("utf-8")[:60_000]
    path = tmp_path / "ja.txt"
    path.write_bytes(text[: text.rindex("\n") + 1].encode("utf-8"))
    options = UnigramOptions(vocab_size=1500, unk_token="<unk>")
    monkeypatch.setattr(trainer, "fork_processes", lambda: 2)
    monkeypatch.setattr(trainer, "PARALLEL_MIN_WORDS", 0)
    forked = ours(path, options)
    monkeypatch.setattr(trainer, "PARALLEL_MIN_WORDS", 10**9)
    assert ours(path, options) == forked
    assert_same_training(path, options, runs=2, result=forked)
