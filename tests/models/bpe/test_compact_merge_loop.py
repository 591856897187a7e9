"""The merge loop for many words (``at_scale.merge_tracked`` on ``CompactWords``: one flat buffer of symbols, pairs
tracked only from a floor count on) against ``tokenizers``' BpeTrainer, trained in the same test: it is used from
``COMPACT_MIN_WORDS`` words on, so the tests lower that to 0 and every training below goes through it. Small corpora
start at floor 1 (fewer words than merges wanted); ``floors`` below starts them higher, so that pairs are left
untracked and counted again, in parts of a few left ids each."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from conftest import multilingual_text, ours, reference_train, reference_train_counts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hf_bpe.models.bpe import at_scale, trainer
from hf_bpe.models.bpe.at_scale import CompactWords
from hf_bpe.models.bpe.training import train_from_counts, train_from_files, train_from_iterator


@pytest.fixture(autouse=True)
def compact(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trainer, "COMPACT_MIN_WORDS", 0)


@pytest.mark.parametrize("wide", [False, True], ids=["utf16", "utf32"])
def test_words_read_and_write_every_id(wide):
    """Ids up to the largest a width holds, surrogates included in UTF-32, come back as written."""
    top = 0x10FFFF if wide else trainer._NARROW_IDS - 1
    ids = [0, 1, 255, 256, 0xD7FF, *([0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xFFFF, top] if wide else [top])]
    word = "".join(map(chr, ids))
    words = CompactWords.pack([word, "ab", word[::-1]], [1, 2**40, 7], wide=wide)
    assert [words[i] for i in range(3)] == [word, "ab", word[::-1]] and list(words.counts) == [1, 2**40, 7]
    words[0] = word[2:5]
    assert words[0] == word[2:5] and words[2] == word[::-1]


@pytest.fixture
def floors(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Start at floor ``first[0]`` (set by the test), each recount's parts holding at most 20 pairs; returns the
    number of parts each recount ended with."""
    first = [1]
    parts: list[int] = []
    counts_in_parts = at_scale._counts_in_parts

    def counted(words, count_parts, *rest):
        kept = counts_in_parts(words, count_parts, *rest)
        if kept is not None:
            parts.append(count_parts)
        return kept

    monkeypatch.setattr(at_scale, "first_floor", lambda words, rank, limit: first[0])
    monkeypatch.setattr(at_scale, "RECOUNT_BUDGET", 0)
    monkeypatch.setattr(at_scale, "RECOUNT_MIN_PAIRS", 20)
    monkeypatch.setattr(at_scale, "_counts_in_parts", counted)
    return [first, parts]  # type: ignore[list-item]


@pytest.mark.parametrize("floor", [2, 5, 10**9])
@pytest.mark.parametrize("max_token_length", [None, 3])
def test_pairs_left_untracked_are_counted_again_when_the_best_tracked_falls_below_the_floor(
    tmp_path, floors, floor, max_token_length
):
    """A first floor above the counts makes the loop count the pairs again, in parts, until it has merged as many
    as the reference (which runs out of pairs here: the last recount finds none)."""
    floors[0][0] = floor
    path = tmp_path / "corpus.txt"
    path.write_text(multilingual_text(300, seed=5), encoding="utf-8", newline="")
    options = {"vocab_size": 2000, "max_token_length": max_token_length}
    expected = reference_train([path], tmp_path / "ref", **options)
    result = train_from_files([path], workers=1, progress=False, **options)
    assert ours(result) == expected and result.stop_reason == "no_pairs"
    assert floors[1] and max(floors[1]) > 1  # counted again, in parts


@pytest.mark.parametrize("workers", [1, 2])
def test_multilingual_text_trains_identically(tmp_path, monkeypatch, workers):
    """With two workers the initial pair count is split with a child process, which reads the compact words."""
    monkeypatch.setattr(trainer, "PARALLEL_MIN_WORDS", 0)
    path = tmp_path / "corpus.txt"
    path.write_text(multilingual_text(300, seed=3), encoding="utf-8", newline="")
    expected = reference_train([path], tmp_path / "ref", vocab_size=700)
    assert ours(train_from_files([path], vocab_size=700, workers=workers)) == expected


def test_a_vocabulary_past_the_utf16_surrogates_trains_identically(tmp_path, monkeypatch):
    """Above 0xD800 tokens the symbols take 4 bytes (UTF-32): made to happen here with a small vocabulary."""
    monkeypatch.setattr(trainer, "_NARROW_IDS", 300)
    path = tmp_path / "corpus.txt"
    path.write_text(multilingual_text(200, seed=5), encoding="utf-8", newline="")
    expected = reference_train([path], tmp_path / "ref", vocab_size=600)
    assert ours(train_from_files([path], vocab_size=600, workers=1)) == expected


# Few letters and small counts: most merges are ties, decided by the smaller (left id, right id).
corpora = st.lists(st.text(alphabet="ab cé\n", max_size=30), min_size=1, max_size=25)


@settings(max_examples=60, deadline=None)
@given(
    corpus=corpora,
    vocab_size=st.integers(250, 320),
    min_frequency=st.sampled_from([0, 2]),
    max_token_length=st.sampled_from([None, 2, 3, 5]),
    special_tokens=st.sampled_from([[], ["ab"], ["<s>", "aa"]]),
)
def test_random_corpora_with_ties_train_identically(
    corpus, vocab_size, min_frequency, max_token_length, special_tokens
):
    options = {
        "vocab_size": vocab_size,
        "min_frequency": min_frequency,
        "max_token_length": max_token_length,
        "special_tokens": special_tokens,
    }
    with tempfile.TemporaryDirectory() as directory:
        expected = reference_train(corpus, Path(directory), files=False, **options)
    assert ours(train_from_iterator(corpus, **options)) == expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    corpus=corpora,
    vocab_size=st.integers(250, 320),
    min_frequency=st.sampled_from([0, 2, 3]),
    max_token_length=st.sampled_from([None, 2, 3]),
    floor=st.sampled_from([2, 3, 100]),
)
def test_random_corpora_train_identically_from_any_first_floor(
    floors, corpus, vocab_size, min_frequency, max_token_length, floor
):
    floors[0][0] = floor
    options = {"vocab_size": vocab_size, "min_frequency": min_frequency, "max_token_length": max_token_length}
    with tempfile.TemporaryDirectory() as directory:
        expected = reference_train(corpus, Path(directory), files=False, **options)
    assert ours(train_from_iterator(corpus, **options)) == expected


@settings(max_examples=40, deadline=None)
@given(
    counts=st.dictionaries(st.text(alphabet="ab", min_size=1, max_size=9), st.integers(1, 4), min_size=1, max_size=14)
)
def test_random_counts_train_identically(counts):
    with tempfile.TemporaryDirectory() as directory:
        expected = reference_train_counts(counts, Path(directory), vocab_size=300)
    assert ours(train_from_counts(counts, vocab_size=300)) == expected


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_reports_the_initial_pair_count_then_the_merges(monkeypatch, workers):
    """A StageCallback hears the pair count (words done of this process's part, ending at its total) before the
    merges; counting the pairs does not change the result."""
    from hf_bpe.progress import StageCallback

    monkeypatch.setattr(trainer, "PARALLEL_MIN_WORDS", 0)
    monkeypatch.setattr(trainer, "_REPORT_WORDS", 2)
    counts = {f"w{a}{b}{c}": 1 + (ord(a) * ord(b)) % 3 for a in "abcde" for b in "fghij" for c in "klm"}
    calls: list[tuple[str, int, int]] = []
    result = trainer.train_bpe(counts, vocab_size=280, workers=workers, progress=StageCallback(
        lambda *call: calls.append(call), "merge"))  # fmt: skip
    stages = [stage for stage, _, _ in calls]
    assert stages == sorted(stages, key=["pairs", "merge"].index) and "pairs" in stages
    pairs = [(done, total) for stage, done, total in calls if stage == "pairs"]
    assert len(pairs) > 2 and pairs[-1][0] == pairs[-1][1] == len(counts) // workers
    assert calls[-1] == ("merge", len(result.merges), 280 - 256)
    assert result.merges == trainer.train_bpe(counts, vocab_size=280, workers=workers).merges


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    counts=st.dictionaries(st.text(alphabet="abcd", min_size=2, max_size=7), st.integers(1, 30), min_size=1),
    merges=st.integers(1, 40),
    max_token_length=st.sampled_from([None, 3, 5]),
)
def test_the_first_floor_is_never_above_a_merge_of_a_training_that_fills_its_vocabulary(
    monkeypatch, counts, merges, max_token_length
):
    """The module docstring's bound: the (R + T)-th most frequent word that can become one token counts at most
    the last merge, so a training that fills its vocabulary never counts the pairs again."""
    recounts = []
    recount = at_scale._recount
    monkeypatch.setattr(at_scale, "_recount", lambda *args: recounts.append(args) or recount(*args))
    options = {"vocab_size": 256 + merges, "max_token_length": max_token_length}
    result = train_from_counts(counts, **options)
    with tempfile.TemporaryDirectory() as directory:
        assert ours(result) == reference_train_counts(counts, Path(directory), **options)
    assert result.stop_reason != "vocab_size" or not recounts
