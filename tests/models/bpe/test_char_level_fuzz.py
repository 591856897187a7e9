"""Char-level training against ``tokenizers``' BpeTrainer (WhitespaceSplit, Lowercase) where the reference is
deterministic: the seven cases of issue 18, and a differential fuzzer over tiny alphabets that contain the affix
characters themselves, special tokens spelled like affixed symbols and merge results, ``max_token_length`` and
lowercasing of case-sensitive scripts.

The reference numbers affixed symbols and fills its queue in hash order, which changes from run to run in one
process (``ahash``); each example is trained by the reference several times, and only examples where its runs
agree are compared (a difference is confirmed by 200 more runs before it fails the test).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from tokenizers import normalizers, pre_tokenizers

import hf_bpe
from hf_bpe import cli
from hf_bpe.models.bpe.files import read_merges, read_vocab
from hf_bpe.models.bpe.options import BpeOptions, CharLevel
from hf_bpe.reference.trainers import bpe_tokenizer, bpe_trainer

Outcome = tuple[tuple[tuple[str, int], ...], tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class Example:
    text: str
    vocab_size: int
    suffix: str | None = None
    prefix: str | None = None
    lowercase: bool = False
    special_tokens: tuple[str, ...] = ()
    max_token_length: int | None = None
    min_frequency: int = 0

    @property
    def char_level(self) -> CharLevel:
        return CharLevel(self.suffix, self.prefix, self.lowercase)


def reference(example: Example) -> Outcome:
    """One run of tokenizers' char-level training: (sorted vocab items, merges)."""
    options = BpeOptions(
        vocab_size=example.vocab_size,
        min_frequency=example.min_frequency,
        special_tokens=example.special_tokens,
        max_token_length=example.max_token_length,
        char_level=CharLevel(example.suffix, example.prefix, example.lowercase),
    )
    lowercase = normalizers.Lowercase() if example.lowercase else None
    tokenizer = bpe_tokenizer(options, pre_tokenizer=pre_tokenizers.WhitespaceSplit(), normalizer=lowercase)
    trainer = bpe_trainer(options)
    tokenizer.train_from_iterator([example.text], trainer)
    model = json.loads(tokenizer.to_str())["model"]
    return tuple(sorted(model["vocab"].items())), tuple(tuple(merge) for merge in model["merges"])


def ours(example: Example) -> Outcome:
    result = trained(example)
    return tuple(sorted(result.vocab.items())), tuple(result.merges)


def trained(example: Example) -> hf_bpe.TrainResult:
    return hf_bpe.train_from_iterator(
        [example.text],
        vocab_size=example.vocab_size,
        min_frequency=example.min_frequency,
        special_tokens=example.special_tokens,
        max_token_length=example.max_token_length,
        char_level=example.char_level,
    )


def stable_reference(example: Example, runs: int = 5) -> Outcome | None:
    """The reference's outcome if ``runs`` runs agree, else None."""
    outcomes = {reference(example) for _ in range(runs)}
    return outcomes.pop() if len(outcomes) == 1 else None


def words_of(example: Example) -> list[list[str]]:
    """The words as the reference's trainer starts them: normalized, split, affixed symbols."""
    text = normalizers.Lowercase().normalize_str(example.text) if example.lowercase else example.text
    words = []
    for word, _ in pre_tokenizers.WhitespaceSplit().pre_tokenize_str(text):
        symbols = [(example.prefix or "") + c if i else c for i, c in enumerate(word)]
        symbols[-1] += example.suffix or ""
        words.append(symbols)
    return words


def first_merge_of_no_pair(example: Example, merges: Sequence[tuple[str, str]]) -> int | None:
    """The rank of the first merge whose pair occurs in no word when it is applied, or None."""
    words = words_of(example)
    prefix = example.prefix or ""
    for rank, (left, right) in enumerate(merges):
        token = left + (right[len(prefix) :] if prefix and right.startswith(prefix) else right)
        found = False
        for symbols in words:
            i = 0
            while i < len(symbols) - 1:
                if symbols[i] == left and symbols[i + 1] == right:
                    symbols[i : i + 2] = [token]
                    found = True
                i += 1
        if not found:
            return rank
    return None


def check(example: Example) -> str:
    """Assert that hf_bpe trains as the reference where the reference is deterministic; say what was compared."""
    expected = stable_reference(example)
    if expected is None:
        return "reference not deterministic: skipped"
    got = ours(example)
    if got != expected:
        # Five agreeing runs can be luck where the reference depends on its hash order: confirm.
        if stable_reference(example, runs=200) != expected:
            return "reference not deterministic: skipped"
        # tokenizers#2320: with affixes and max_token_length, the reference merges a pair of count -1 read as
        # unsigned (see the test below); hf_bpe is the same up to there.
        affixed = example.suffix is not None or example.prefix is not None
        wrapped = first_merge_of_no_pair(example, expected[1]) if affixed and example.max_token_length else None
        if (
            wrapped is not None
            and got[1][:wrapped] == expected[1][:wrapped]
            and got[1][wrapped:] != expected[1][wrapped:]
        ):
            return "reference merged a pair that does not occur (tokenizers#2320): compared up to it"
        # The same bug where the pair does occur, in a word where it was too long to be counted: hf_bpe, counting as
        # the reference does, finds no pair of positive count and stops; the reference, its count -1 read as
        # unsigned, goes on (found by this fuzzer: "a a#a a#aaaa " with affixes "a", max_token_length=1).
        if (
            affixed
            and example.max_token_length
            and len(got[1]) < len(expected[1])
            and got[1] == expected[1][: len(got[1])]
            and trained(example).stop_reason == "no_pairs"
        ):
            return "reference merged past a count it let fall below zero (tokenizers#2320): compared up to it"
        assert got[1] == expected[1], f"merges differ for {example}"
        assert got[0] == expected[0], f"vocabularies differ for {example}"
    return "compared"


# The cases of issue 18, each the same in 300 of 300 reference runs ("prefix only" is ``##`` and no suffix).
CASES = {
    # A: new affixed symbols are numbered by first appearance, not by spelling.
    "A-prefix": Example("abcaa", 8, prefix="##"),
    "A-suffix-prefix": Example("aaacaa", 7, suffix="</w>", prefix="##"),
    # B: max_token_length counts each occurrence's characters; every initial symbol spans 1, however spelled.
    "B-special-token": Example("aaa", 4, suffix="</w>", special_tokens=("a</w>",), max_token_length=5),
    "B-prefix": Example("### ###a", 6, prefix="##", max_token_length=4),
    # D: lowercase character by character (a final capital sigma is σ, not ς).
    "D-final-sigma": Example("ΟΔΟΣ ΟΔΟΣ", 12, suffix="</w>", lowercase=True),
    # E: the same pair queued twice with the same count pops as from the reference's octonary heap.
    "E-equal-entries": Example("##a## ###### ##### ###a## #####", 11, prefix="##"),
}
EXPECTED_MERGES = {
    "A-prefix": [("a", "##b"), ("##c", "##a")],
    "A-suffix-prefix": [("a", "##a"), ("##a", "##c")],
    "B-special-token": [("a", "a</w>"), ("a", "aa</w>")],
    "B-prefix": [("#", "###"), ("##", "###")],
    "D-final-sigma": [("δ", "ο"), ("ο", "δο"), ("οδο", "σ</w>")],
    "E-equal-entries": [
        ("###", "###"),
        ("#", "####"),
        ("###", "####"),
        ("###", "##a"),
        ("#", "###a##"),
        ("#####", "###"),
        ("###a", "####"),
    ],
}


@pytest.mark.parametrize("name", list(CASES))
def test_issue_cases_through_the_api(name):
    example = CASES[name]
    runs = Counter(reference(example) for _ in range(50))
    assert len(runs) == 1, f"the reference is not deterministic on {example}"
    (expected,) = runs
    assert list(expected[1]) == EXPECTED_MERGES[name]
    assert ours(example) == expected


@pytest.mark.parametrize("name", list(CASES))
def test_issue_cases_through_the_cli(name, tmp_path):
    example = CASES[name]
    (tmp_path / "text.txt").write_text(example.text + "\n", encoding="utf-8")
    argv = [
        "train", str(tmp_path / "text.txt"), "-o", str(tmp_path / "out"), "--char-level", "--no-progress",
        "--vocab-size", str(example.vocab_size), "--end-of-word-suffix", example.suffix or "",
    ]  # fmt: skip
    if example.prefix:
        argv += ["--continuing-subword-prefix", example.prefix]
    if example.lowercase:
        argv.append("--lowercase")
    if example.special_tokens:
        argv += ["--special-tokens", *example.special_tokens]
    if example.max_token_length:
        argv += ["--max-token-length", str(example.max_token_length)]
    assert cli.main(argv) == 0
    vocab, merges = reference(example)
    assert read_merges(tmp_path / "out" / "merges.txt") == list(merges)
    assert sorted(read_vocab(tmp_path / "out" / "vocab.json").items()) == list(vocab)


def replay(text: str, merges: list[tuple[str, str]], suffix: str) -> list[bool]:
    """For each merge in order, whether its pair occurs in the words when it is applied (suffix only)."""
    words = [[*word[:-1], word[-1] + suffix] for word in text.split()]
    occurs = []
    for left, right in merges:
        found = False
        for symbols in words:
            i = 0
            while i < len(symbols) - 1:
                if symbols[i] == left and symbols[i + 1] == right:
                    symbols[i : i + 2] = [left + right]
                    found = True
                i += 1
        occurs.append(found)
    return occurs


def test_negative_pair_count_is_not_a_huge_count():
    """tokenizers#2320, a deliberate difference: with affixes and max_token_length a pair count can go to -1 in
    the reference (an occurrence too long to be counted is uncounted again when a neighbour merges), which it
    reads as a huge unsigned count: its sixth merge, ``/w> a</w>``, is of a pair that does not occur. hf_bpe
    counts it as zero: the same first five merges, then nothing left to merge."""
    example = Example("/w>a</w>a", 11, suffix="</w>", max_token_length=8)
    expected = stable_reference(example, runs=20)
    assert expected is not None
    theirs = list(expected[1])
    assert theirs[5] == ("/w>", "a</w>")
    assert replay(example.text, theirs, "</w>") == [True] * 5 + [False]
    result = hf_bpe.train_from_iterator([example.text], vocab_size=11, max_token_length=8, char_level=CharLevel())
    assert result.merges == theirs[:5]
    assert replay(example.text, result.merges, "</w>") == [True] * 5
    assert result.stop_reason == "no_pairs"


# The fuzzer. Pools of characters: the affix characters themselves, and case-sensitive scripts for --lowercase
# (Greek final sigma; Turkish dotted and dotless i; a title-case digraph and sharp s; Cherokee, whose lowercase
# letters were encoded after its capitals; U+1C89, lowercased by the reference's Unicode and not by Python 3.11's).
POOLS = ["ab", "abc", "a#", "ab#", "a</w>", "aw<>/", "ab#w</>", "ΣσςΟοΔ", "İIıiΣ", "ǅǄǆßẞ", "ᎠꭰᏸᏰa", "\u1c89\u1c8aAa"]
SEPARATORS = [" ", " ", "  ", "\t", "\n", "\u3000", "\xa0"]
SUFFIXES = [None, "</w>", "</w>", "w>", "#", "a"]
PREFIXES = [None, "##", "##", "#", "a"]


@st.composite
def examples(draw: st.DrawFn) -> Example:
    pool = draw(st.sampled_from(POOLS))
    words = draw(st.lists(st.text(pool, min_size=1, max_size=8), min_size=1, max_size=8))
    separators = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(words), max_size=len(words)))
    text = "".join(word + separator for word, separator in zip(words, separators, strict=True))
    suffix = draw(st.sampled_from(SUFFIXES))
    prefix = draw(st.sampled_from(PREFIXES))
    # Special tokens spelled like affixed symbols, like merge results (a word's start, a whole word), or neither.
    spelled = {f"{c}{suffix or ''}" for c in pool} | {f"{prefix or ''}{c}" for c in pool}
    spelled |= {word[:2] for word in words} | set(words) | {"<unk>"}
    specials = draw(st.lists(st.sampled_from(sorted(spelled)), max_size=3, unique=True))
    return Example(
        text=text,
        vocab_size=draw(st.integers(1, 40)),
        suffix=suffix,
        prefix=prefix,
        lowercase=draw(st.booleans()),
        special_tokens=tuple(specials),
        max_token_length=draw(st.sampled_from([None, None, 1, 2, 3, 4, 5, 6, 8])),
        min_frequency=draw(st.sampled_from([0, 0, 0, 1, 2])),
    )


@settings(max_examples=300, deadline=None)
@given(examples())
def test_fuzz_matches_reference_where_deterministic(example):
    event(check(example))


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(examples())
def test_fuzz_matches_reference_where_deterministic_long(example):
    event(check(example))


def test_a_count_below_zero_of_a_pair_that_occurs_is_recognized():
    """tokenizers#2320 where the wrapped pair does occur: in "a#aaaa" the first merge makes ``a# aaa`` too long to
    be counted, and merging ``a a#`` uncounts it there too, so its count goes from 1 to -1; the reference merges it
    as a huge count, hf_bpe stops after the same three merges."""
    example = Example(
        "a a#a a#aaaa ", 9, suffix="a", prefix="a", special_tokens=("#a", "<unk>", "aa"), max_token_length=1
    )
    assert check(example) == "reference merged past a count it let fall below zero (tokenizers#2320): compared up to it"
    assert ours(example)[1] == (("aa", "aa"), ("a", "a#"), ("aa", "aaa"))
