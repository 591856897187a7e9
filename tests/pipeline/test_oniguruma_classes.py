"""Oniguruma's classes (``\\w``, ``\\d``, ``\\s``, ``\\h``, ``\\b``, their negations, POSIX brackets, classes read
under ``(?i)``), alone and in a set, as hf_bpe's dialect reads them, against ``tokenizers`` on every code point.

The judge is ``tokenizers``' ``Split(Regex(pattern), "removed")`` over a string of every code point (lone surrogates
aside): with a pattern matching runs of one class, what it keeps is the class's complement, run by run. hf_bpe's
twins are loaded from the same pattern both ways it reaches them: a ``tokenizer.json``'s ``Split`` step
(:func:`pattern_from_json`) and a split of one's own (:meth:`PreTokenizer.from_regex`, with its fast paths).
"""

from __future__ import annotations

import json

import pytest
from tokenizers import Regex, Tokenizer, models, pre_tokenizers

import hf_bpe
from hf_bpe.pipeline._regex.dialect import (
    ALL_CLASS_NAMES,
    UnsupportedConstruct,
    _disagreement,
    compute_disagreement,
)
from hf_bpe.pipeline.component import pattern_from_json
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer, Split

EVERY = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp < 0xE000)

#: Each class Oniguruma spells, alone and in a set, negated both ways, where its reading is not ``regex``'s
#: (``[\\w]`` is not ``\\w``; ``\\h`` is a hexadecimal digit). The classes that already read alike (``\\s``,
#: ``\\d``, ``\\p{L}``, ``[[:space:]]``, ...) are test_pretokenizer.py's.
POSIX_READ_APART = ("alnum", "alpha", "digit", "graph", "lower", "print", "punct", "upper", "word")
CLASSES = [
    *(r"[\w]", r"[-\w]", r"[\W]", r"[^\w]", r"\p{Word}", r"[\p{Word}]", r"\P{Word}"),
    *(r"\h", r"[\h]", r"\H", r"[^\h]", r"\p{Punct}", r"\p{Alpha}", r"\p{XDigit}", r"\p{^Alnum}"),
    *(f"[[:{name}:]]" for name in POSIX_READ_APART),
    *(f"[[:^{name}:]]" for name in POSIX_READ_APART),
    *(r"[^[:alpha:]\d]", r"[x[:upper:]]"),
    # (?i): a class alone keeps its case in Oniguruma (hf_bpe refused these before).
    *(r"(?i)\p{Lu}", r"(?i)\p{Ll}", r"(?i)\w", r"(?i)\W", r"(?i)\h"),
]


def _kept(pieces: list[tuple[str, object]]) -> list[str]:
    return [piece for piece, _ in pieces]


@pytest.fixture(scope="module")
def spans() -> list[tuple[int, int]]:
    return [(i, i + 1) for i in range(len(EVERY))]


@pytest.mark.slow
@pytest.mark.parametrize("spelled", CLASSES)
def test_a_class_cuts_every_code_point_as_tokenizers_does(spelled, spans):
    pattern = f"(?:{spelled})+"
    reference = _kept(pre_tokenizers.Split(Regex(pattern), "removed").pre_tokenize_str(EVERY))
    twin = Split(pattern_from_json({"Regex": pattern}, "pattern"), "Removed", False)
    assert _kept(twin.split(EVERY, spans)) == reference
    # A split of one's own keeps the matches and the gaps: the gaps are what tokenizers kept.
    isolated = _kept(pre_tokenizers.Split(Regex(pattern), "isolated").pre_tokenize_str(EVERY))
    assert PreTokenizer.from_regex(pattern).pre_tokenize(EVERY) == isolated


@pytest.mark.parametrize("boundary", [r"a\b", r"\ba", r"a\B", r"\Ba"])
def test_a_word_boundary_reads_oniguruma_s_word_characters(boundary, spans):
    # Each code point next to "a": \b holds where one side is a word character and the other is not; Oniguruma's
    # word characters there are \w's alone (U+00B2 is one, as it is not in [\w]).
    text = "".join(f"a{c}" if boundary.startswith("a") else f"{c}a" for c in EVERY)
    both = spans + [(i, i + 1) for i in range(len(EVERY), len(text))]
    reference = _kept(pre_tokenizers.Split(Regex(boundary), "isolated").pre_tokenize_str(text))
    twin = Split(pattern_from_json({"Regex": boundary}, "pattern"), "Isolated", False)
    assert _kept(twin.split(text, both)) == reference
    assert PreTokenizer.from_regex(boundary).pre_tokenize(text) == reference


def test_stored_disagreements_of_oniguruma_s_own_classes_are_the_installed_regex_s():
    for name in ALL_CLASS_NAMES:
        assert _disagreement(name) == compute_disagreement(name), name


CHESS = r" ?\d+\.|\. ?| ?[-\w]+|[#+]\s+"


def test_the_chess_split_encodes_superscript_two_as_tokenizers_does(tmp_path):
    # tokenizers#37: "²" is a \w alone but not in [-\w]; with no match "²≥" stays one piece and merges to one id.
    vocab = {"²": 0, "≥": 1, "²≥": 2, "1": 3, ".": 4, " ": 5, "e": 6, "4": 7, "e4": 8, "1.": 9}
    reference = Tokenizer(models.BPE(vocab, [("²", "≥"), ("e", "4"), ("1", ".")]))
    reference.pre_tokenizer = pre_tokenizers.Split(Regex(CHESS), "isolated")
    path = tmp_path / "tokenizer.json"
    reference.save(str(path))
    ours = hf_bpe.from_pretrained(path)
    for text in ["²≥", "1. e4 ²≥", "≥²", "²²≥1."]:
        expected = reference.encode(text).ids
        assert ours(text, add_special_tokens=False)["input_ids"] == expected, text
    assert reference.encode("²≥").ids == [2]


@pytest.mark.parametrize(
    ("pattern", "culprit"),
    [(r"(?i)[\p{Lu}]+|.", r"\p{Lu}"), (r"(?i:[\w-])|.", r"\w"), (r"(?i)[[:upper:]x]|.", "[:upper:]")],
)
def test_a_cased_class_in_a_set_read_case_insensitively_is_refused_by_name(pattern, culprit, tmp_path):
    # Oniguruma folds such a set by its own case-fold closure: [\p{Lu}] matches "a", \p{Lu} alone does not.
    assert _kept(pre_tokenizers.Split(Regex(r"(?i)[\p{Lu}]+|."), "isolated").pre_tokenize_str("aB")) == ["aB"]
    assert _kept(pre_tokenizers.Split(Regex(r"(?i)\p{Lu}+|."), "isolated").pre_tokenize_str("aB")) == ["a", "B"]
    with pytest.raises(UnsupportedConstruct, match=f"the class {culprit.replace('[', '.').replace(chr(92), '.')}"):
        PreTokenizer.from_regex(pattern)
    data = {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}
    with pytest.raises(ValueError, match=r"pattern\.Regex.*case-insensitively"):
        pattern_from_json(json.loads(json.dumps(data))["pattern"], "pattern")
