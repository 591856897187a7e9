"""Each merge loop, forced on and off, against ``tokenizers``' BpeTrainer trained in the same test: the cases a
differential fuzzer found (issue 40) where a loop chosen by size gave another result than the reference.

The loop is picked by the words' kind and number: plain words (byte-level, or characters without affixes) take the
loop at scale from ``COMPACT_MIN_WORDS`` distinct words on, affixed words (``##b``, ``a</w>``) never. Each test
runs with ``COMPACT_MIN_WORDS`` at 0 and at a size never reached, so both sides of the switch meet the reference.
"""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Mapping
from pathlib import Path

import pytest
from conftest import multilingual_text, ours, reference_train, reference_train_counts
from tokenizers import pre_tokenizers

import hf_bpe
from hf_bpe.models.bpe import at_scale, trainer
from hf_bpe.models.bpe.options import BpeOptions, CharLevel
from hf_bpe.reference.trainers import bpe_tokenizer, bpe_trainer

PREFIX = CharLevel(end_of_word_suffix=None, continuing_subword_prefix="##")
SUFFIX = CharLevel()  # </w>
BOTH = CharLevel(continuing_subword_prefix="##")


@pytest.fixture(params=[0, 10**12], ids=["compact-from-0-words", "compact-never"])
def compact_min_words(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """Every training of the test on one side of the switch to compact words and the loop at scale."""
    monkeypatch.setattr(trainer, "COMPACT_MIN_WORDS", request.param)
    return int(request.param)


def char_level_reference(
    counts: Mapping[str, int], options: BpeOptions, *, runs: int = 5
) -> tuple[list[tuple[str, str]], set[str]]:
    """tokenizers' char-level training on ``counts`` (words without white space, each fed ``count`` times behind a
    WhitespaceSplit): its merges and its set of tokens. The ids of affixed symbols follow the reference's hash order,
    which changes from run to run, so the set is compared, not the ids; ``runs`` runs must agree on both (the case
    is one where the reference's result does not depend on that order)."""
    outcomes = set()
    for _ in range(runs):
        tokenizer = bpe_tokenizer(options, pre_tokenizer=pre_tokenizers.WhitespaceSplit())
        tokenizer.train_from_iterator(
            (" ".join([word] * count) for word, count in counts.items()), bpe_trainer(options)
        )
        model = json.loads(tokenizer.to_str())["model"]
        outcomes.add((tuple(tuple(merge) for merge in model["merges"]), frozenset(model["vocab"])))
    assert len(outcomes) == 1, "the reference's runs differ: not a case to judge by"
    merges, vocab = outcomes.pop()
    return list(merges), set(vocab)


def char_level_ours(counts: Mapping[str, int], options: BpeOptions) -> tuple[list[tuple[str, str]], set[str]]:
    result = hf_bpe.train_from_counts(dict(counts), options=options, workers=1, progress=False)
    return result.merges, set(result.vocab)


HUG = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5, "hugging": 3, "unhug": 2, "bugs": 7, "sun": 1}


def letter_words(seed: int, number: int = 150) -> dict[str, int]:
    """``number`` distinct words of 2 to 7 letters from ``a`` to ``h``, counts 1 to 3000: few ties at the top, so
    that the reference's first 60 or so merges do not depend on its hash order."""
    rng = random.Random(seed)
    words: dict[str, int] = {}
    while len(words) < number:
        words["".join(rng.choices("abcdefgh", k=rng.randint(2, 7)))] = rng.randint(1, 3000)
    return words


LETTERS = letter_words(2)


@pytest.mark.parametrize("max_token_length", [None, 3])
@pytest.mark.parametrize(
    ("counts", "vocab_size", "char_level"),
    [
        pytest.param({"aa": 1}, 3, PREFIX, id="aa-prefix-3"),
        pytest.param(LETTERS, 80, PREFIX, id="letters-prefix-80"),
        pytest.param(LETTERS, 80, SUFFIX, id="letters-suffix-80"),
        pytest.param(LETTERS, 80, BOTH, id="letters-prefix-and-suffix-80"),
        pytest.param({"cc": 1, "ac</w>cc</w>a": 1}, 14, SUFFIX, id="suffix-text-in-a-word-14"),
        pytest.param({"ab##ab": 3, "b##a": 2, "##ab": 1}, 16, BOTH, id="prefix-text-in-a-word-16"),
    ],
)
def test_affixed_words_merge_as_the_reference_on_both_sides_of_the_switch(
    compact_min_words, counts, vocab_size, char_level, max_token_length
):
    """The loop at scale joined two tokens' spellings whole (``a`` + ``##a`` made ``a##a``, tokenizers ``aa``) and
    merged a pair that re-makes an existing symbol once where the reference's queue merges it twice
    (``ac</w>cc</w>a``: merges 4 and 5 swapped); affixed words must merge as the reference's Word::merge and
    queue do, with and without ``max_token_length``, whatever the number of words."""
    options = BpeOptions(vocab_size=vocab_size, max_token_length=max_token_length, char_level=char_level)
    assert char_level_ours(counts, options) == char_level_reference(counts, options)


@pytest.fixture
def first_floor(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The loop at scale's first floor, set by the test (``[floor]``; ``[0]``: its own)."""
    floor = [0]
    computed = at_scale.first_floor
    monkeypatch.setattr(at_scale, "first_floor", lambda words, rank, limit: floor[0] or computed(words, rank, limit))
    return floor


@pytest.mark.parametrize("max_token_length", [None, 2, 4])
@pytest.mark.parametrize("floor", [0, 2, 7, 10**9], ids=["own-floor", "floor-2", "floor-7", "floor-above-all"])
def test_plain_words_merge_as_the_reference_from_any_floor(
    tmp_path, compact_min_words, first_floor, floor, max_token_length
):
    """Byte-level words through either loop, the loop at scale started from floors that leave pairs untracked and
    count them again (its exactness argument), with and without ``max_token_length``."""
    first_floor[0] = floor
    path = tmp_path / "corpus.txt"
    path.write_text(multilingual_text(200, seed=11), encoding="utf-8", newline="")
    options = {"vocab_size": 900, "max_token_length": max_token_length}
    expected = reference_train([path], tmp_path / "ref", **options)
    assert ours(hf_bpe.train_from_files([path], workers=1, progress=False, **options)) == expected


@pytest.mark.parametrize(
    ("min_frequency", "max_token_length"), [(0, None), (3, None), (0, 3)], ids=["plain", "min-frequency", "maxlen3"]
)
def test_counts_past_2_to_the_64_merge_as_the_reference_scaled_down(compact_min_words, min_frequency, max_token_length):
    """Counts multiplied by 2**64 (past any fixed-width integer) keep every comparison of the counts they came from,
    so they train as the reference trained on the small counts (it cannot be given 2**64 words); the compact words
    once refused such a count with an OverflowError."""
    options = {"vocab_size": 275, "max_token_length": max_token_length}
    with tempfile.TemporaryDirectory() as directory:
        expected = reference_train_counts(HUG, Path(directory), min_frequency=min_frequency, **options)
    huge = {word: count << 64 for word, count in HUG.items()}
    result = hf_bpe.train_from_counts(huge, min_frequency=min_frequency << 64, workers=1, progress=False, **options)
    assert ours(result) == expected


def head_and_tail(number: int, seed: int) -> dict[str, int]:
    """300 words of the letters ``s`` to ``z`` counting 1,000 to 10,000 each, then distinct words of the letters
    ``a`` to ``r`` counting 1, up to ``number`` words: the first merges are all the head's, whose pair counts are
    far apart (the reference's runs agree on them), while the tail makes the number of distinct words."""
    rng = random.Random(seed)
    words: dict[str, int] = {}
    while len(words) < 300:
        words["".join(rng.choices("stuvwxyz", k=rng.randint(3, 8)))] = rng.randint(1000, 10000)
    while len(words) < number:
        words["".join(rng.choices("abcdefghijklmnopqr", k=rng.randint(4, 9)))] = 1
    return words


@pytest.mark.slow
def test_half_a_million_affixed_words_merge_as_the_reference():
    """520,000 distinct words with ``##`` (past ``COMPACT_MIN_WORDS`` as it stands, nothing forced): the loop at
    scale once gave tokens like ``##x##h`` here where tokenizers makes ``##xh``."""
    counts = head_and_tail(520_000, seed=40)
    options = BpeOptions(vocab_size=118, char_level=PREFIX)
    assert len(counts) >= trainer.COMPACT_MIN_WORDS
    assert char_level_ours(counts, options) == char_level_reference(counts, options, runs=3)
