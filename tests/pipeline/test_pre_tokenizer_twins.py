"""The pre-tokenizer twins of hf_bpe.pipeline.pre_tokenizers against ``tokenizers``' own, run in the same test.

Each twin is read from the JSON the Rust component serializes to, then both cut the same text: the reference's
``pre_tokenize_str`` pieces and character offsets against the twin's pieces and the first and last spans of their
characters (the twin starts from each character's own span). Texts: every code point, hypothesis strings of every
code point and of a mix of spaces, digits, punctuation, CJK and ``▁``, and golden cases worked by hand.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
import tokenizers
from conftest import multilingual_text
from hypothesis import given, settings
from hypothesis import strategies as st
from real_tokenizers import PACKAGES, model_tokenizer_json
from tokenizers import Regex, normalizers
from tokenizers import pre_tokenizers as pre

from hf_bpe.pipeline.component import UnknownComponent
from hf_bpe.pipeline.normalizers import normalizer_from_json
from hf_bpe.pipeline.pre_tokenizers import (
    ByteLevel,
    Digits,
    Metaspace,
    PreTokenizerSequence,
    pre_tokenizer_from_json,
)

LLAMA3 = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
    r"|\s+(?!\S)|\s+"
)

#: Each Rust pre-tokenizer checked, by a readable id.
REFERENCES: dict[str, Any] = {
    "metaspace": pre.Metaspace(),
    "metaspace-first": pre.Metaspace(prepend_scheme="first"),
    "metaspace-never": pre.Metaspace(prepend_scheme="never"),
    "metaspace-no-split": pre.Metaspace(split=False),
    "metaspace-underscore-first-no-split": pre.Metaspace(replacement="_", prepend_scheme="first", split=False),
    "whitespace": pre.Whitespace(),
    "whitespace-split": pre.WhitespaceSplit(),
    "digits": pre.Digits(),
    "digits-individual": pre.Digits(individual_digits=True),
    **{f"punctuation-{b}": pre.Punctuation(b) for b in ("removed", "isolated", "merged_with_previous")},
    **{f"punctuation-{b}": pre.Punctuation(b) for b in ("merged_with_next", "contiguous")},
    "bert": pre.BertPreTokenizer(),
    "char-delimiter": pre.CharDelimiterSplit("-"),
    "char-delimiter-cjk": pre.CharDelimiterSplit("中"),
    "byte-level": pre.ByteLevel(),
    "byte-level-no-prefix": pre.ByteLevel(add_prefix_space=False),
    "byte-level-no-regex": pre.ByteLevel(add_prefix_space=False, use_regex=False),
    "byte-level-prefix-no-regex": pre.ByteLevel(add_prefix_space=True, use_regex=False),
    "fixed-length-1": pre.FixedLength(1),
    "fixed-length-3": pre.FixedLength(3),
    "sequence-digits-metaspace": pre.Sequence([pre.Digits(individual_digits=True), pre.Metaspace()]),
    "sequence-llama3": pre.Sequence(
        [pre.Split(Regex(LLAMA3), "isolated"), pre.ByteLevel(add_prefix_space=False, use_regex=False)]
    ),
    "sequence-split-prefix-bytes": pre.Sequence(
        [pre.Split(Regex(r"\p{N}{1,3}"), "isolated"), pre.ByteLevel(add_prefix_space=True, use_regex=False)]
    ),
    "sequence-whitespace-metaspace-first": pre.Sequence([pre.WhitespaceSplit(), pre.Metaspace(prepend_scheme="first")]),
    "sequence-punctuation-digits": pre.Sequence([pre.Punctuation(), pre.Digits()]),
    "sequence-metaspace-then-bytes": pre.Sequence(
        [pre.Metaspace(prepend_scheme="first"), pre.ByteLevel(add_prefix_space=False)]
    ),
    "sequence-empty": pre.Sequence([]),
}

MIX = st.lists(
    st.sampled_from([" ", "  ", "\t", "\n", "\u3000", "1", "42", "²", "½", "٣", "!", "?", "-", "'s", "$", "+", "_"])
    | st.sampled_from(["中", "文", "ひ", "▁", "a", "B", "é", "e\u0301", "😀", "\u200d", "x", "Hello", " world"]),
    max_size=12,
).map("".join)
EVERY_CODE_POINT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)


def json_of(component: Any) -> Any:
    """What a ``tokenizer.json`` holds for the Rust pre-tokenizer ``component``."""
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordLevel({"a": 0}, unk_token="a"))
    tokenizer.pre_tokenizer = component
    return json.loads(tokenizer.to_str())["pre_tokenizer"]


def identity(text: str) -> list[tuple[int, int]]:
    return [(i, i + 1) for i in range(len(text))]


def ours(twin: PreTokenizerSequence, text: str) -> list[tuple[str, tuple[int, int]]]:
    """The twin's pieces with offsets as ``pre_tokenize_str`` gives them."""
    return [(piece, (spans[0][0], spans[-1][1])) for piece, spans in twin.pre_tokenize(text, identity(text))]


def read(component: Any) -> PreTokenizerSequence:
    return pre_tokenizer_from_json(json_of(component))


def assert_same(name: str, text: str) -> None:
    reference = REFERENCES[name]
    assert ours(read(reference), text) == reference.pre_tokenize_str(text), (name, text)


# -- every twin on texts ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(REFERENCES))
@settings(max_examples=150, deadline=None)
@given(text=MIX | EVERY_CODE_POINT)
def test_twin_cuts_as_the_reference(name, text):
    if name == "sequence-empty" and not text:
        # With no step at all, the reference keeps an empty text as one empty piece (no token comes of it).
        assert REFERENCES[name].pre_tokenize_str(text) == [("", (0, 0))] and ours(read(REFERENCES[name]), text) == []
        return
    assert_same(name, text)


GOLDEN = [
    ("metaspace", "Hey  friend! ", [("▁Hey", (0, 3)), ("▁", (3, 4)), ("▁friend!", (4, 12)), ("▁", (12, 13))]),
    ("metaspace", "▁a b", [("▁a", (0, 2)), ("▁b", (2, 4))]),
    ("metaspace-first", "ab cd", [("▁ab", (0, 2)), ("▁cd", (2, 5))]),
    ("metaspace-never", " a", [("▁a", (0, 2))]),
    ("sequence-whitespace-metaspace-first", "ab cd", [("▁ab", (0, 2)), ("cd", (3, 5))]),
    ("whitespace", "Hi, you²!", [("Hi", (0, 2)), (",", (2, 3)), ("you", (4, 7)), ("²!", (7, 9))]),
    ("whitespace", "a\u200db", [("a\u200db", (0, 3))]),  # ZWJ is \w to Rust's regex crate, not to Oniguruma
    ("digits", "a12½b3", [("a", (0, 1)), ("12½", (1, 4)), ("b", (4, 5)), ("3", (5, 6))]),
    ("digits-individual", "x\U00011de0\U00011de1", [("x", (0, 1)), ("\U00011de0", (1, 2)), ("\U00011de1", (2, 3))]),
    ("punctuation-isolated", "a$b?!", [("a", (0, 1)), ("$", (1, 2)), ("b", (2, 3)), ("?", (3, 4)), ("!", (4, 5))]),
    ("punctuation-contiguous", "a?!b", [("a", (0, 1)), ("?!", (1, 3)), ("b", (3, 4))]),
    ("punctuation-merged_with_previous", "a?!b", [("a?", (0, 2)), ("!", (2, 3)), ("b", (3, 4))]),
    ("punctuation-merged_with_next", "a?!b", [("a", (0, 1)), ("?", (1, 2)), ("!b", (2, 4))]),
    ("bert", "Hey, 中文!", [("Hey", (0, 3)), (",", (3, 4)), ("中文", (5, 7)), ("!", (7, 8))]),
    ("char-delimiter", "a--b-", [("a", (0, 1)), ("b", (3, 4))]),
    ("byte-level", "i⭢j  k", [("Ġi", (0, 1)), ("âŃ¢", (1, 2)), ("j", (2, 3)), ("Ġ", (3, 4)), ("Ġk", (4, 6))]),
    ("byte-level-prefix-no-regex", "a b", [("ĠaĠb", (0, 3))]),
    ("fixed-length-3", "abcdefg", [("abc", (0, 3)), ("def", (3, 6)), ("g", (6, 7))]),
    ("sequence-llama3", "I'VE 2024123 apples", [("I", (0, 1)), ("'VE", (1, 4)), ("Ġ", (4, 5)), ("202", (5, 8)),
                                                    ("412", (8, 11)), ("3", (11, 12)), ("Ġapples", (12, 19))]),
    ("sequence-split-prefix-bytes", "ab12", [("Ġab", (0, 2)), ("Ġ12", (2, 4))]),
    ("sequence-empty", "a b", [("a b", (0, 3))]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "expected"), GOLDEN, ids=[f"{n}:{t!r}" for n, t, _ in GOLDEN])
def test_golden(name, text, expected):
    assert REFERENCES[name].pre_tokenize_str(text) == expected  # the hand-worked case is the reference's too
    assert ours(read(REFERENCES[name]), text) == expected


@pytest.mark.parametrize("name", ["metaspace", "byte-level", "whitespace", "bert", "digits"])
def test_empty_text_has_no_pieces(name):
    assert REFERENCES[name].pre_tokenize_str("") == [] == ours(read(REFERENCES[name]), "")


def test_byte_level_spans_follow_each_byte_to_its_character():
    twin = read(pre.ByteLevel(add_prefix_space=True, use_regex=False))
    [(piece, spans)] = twin.pre_tokenize("é😀", [(10, 11), (11, 12)])
    assert piece == "ĠÃ©ðŁĺĢ"
    assert spans == [(10, 11)] * 3 + [(11, 12)] * 4


# -- every code point -----------------------------------------------------------------------------------------------

CODE_POINTS = [chr(cp) for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp < 0xE000]


@pytest.mark.parametrize(
    ("name", "glue"),
    [
        pytest.param("whitespace", "a", marks=pytest.mark.slow),
        ("whitespace-split", "a"),
        ("digits-individual", "a"),
        ("punctuation-isolated", "a"),
        ("bert", "a"),
        pytest.param("byte-level", " ", marks=pytest.mark.slow),
    ],
)
def test_every_code_point(name, glue):
    """Each code point between two letters (or spaces), so that each one's class decides a cut of its own: a
    letter of ``\\w`` joins the ``a`` before it, white space is dropped, anything else is a piece of its own."""
    text = glue.join(CODE_POINTS)
    reference = REFERENCES[name]
    if ours(read(reference), text) != reference.pre_tokenize_str(text):
        wrong = [f"U+{ord(c):04X}" for c in CODE_POINTS if ours(read(reference), f"a{c}a") != (
            reference.pre_tokenize_str(f"a{c}a"))]  # fmt: skip
        raise AssertionError(f"{name} cuts differently from tokenizers around {wrong[:20]}")


# -- Split, every behavior --------------------------------------------------------------------------------------

SPLIT_PATTERNS = ["a", "a+", "a*", "", r"\s", r"\s+", r"(?=a)", r"\p{P}", r"\p{N}{1,3}", "ab|b", "▁", r"\w+"]
BEHAVIORS = ["removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous"]


@settings(max_examples=400, deadline=None)
@given(
    pattern=st.sampled_from(SPLIT_PATTERNS),
    literal=st.booleans(),
    behavior=st.sampled_from(BEHAVIORS),
    invert=st.booleans(),
    text=st.text(st.sampled_from("aab b▁,.1234 中"), max_size=14) | EVERY_CODE_POINT,
)
def test_split_every_behavior(pattern, literal, behavior, invert, text):
    reference = pre.Split(pattern if literal else Regex(pattern), behavior, invert=invert)
    assert ours(read(reference), text) == reference.pre_tokenize_str(text)


# -- Metaspace's "first" through a whole tokenizer --------------------------------------------------------------


def _whole_tokenizer(normalizer: Any, vocab: dict[str, int]) -> tokenizers.Tokenizer:
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre.Metaspace(prepend_scheme="first")
    tokenizer.add_special_tokens(["<s>"])
    return tokenizer


def _ours_with_added_tokens(text: str, normalizer: Any) -> list[tuple[str, tuple[int, int]]]:
    """Text cut at ``<s>``, each stretch normalized and pre-tokenized with its spans in the whole text."""
    twin = read(pre.Metaspace(prepend_scheme="first"))
    normalize = normalizer_from_json(None if normalizer is None else json.loads(normalizer.__getstate__()))
    out: list[tuple[str, tuple[int, int]]] = []
    at = 0
    for index, stretch in enumerate(text.split("<s>")):
        if index:
            out.append(("<s>", (at - 3, at)))
        spans = [(at + i, at + i + 1) for i in range(len(stretch))]
        normalized, spans = normalize.normalize(stretch, spans)
        out += [(piece, (s[0][0], s[-1][1])) for piece, s in twin.pre_tokenize(normalized, spans)]
        at += len(stretch) + 3
    return out


@pytest.mark.parametrize("normalizer", [None, normalizers.Replace("x", "")], ids=["none", "replace-x"])
@settings(max_examples=200, deadline=None)
@given(text=st.lists(st.sampled_from(["a", "b", " ", "  ", "x", "<s>", "▁"]), max_size=8).map("".join))
def test_metaspace_first_after_an_added_token(normalizer, text):
    """``"first"`` prepends only on the stretch that starts the text: not after ``<s>``, nor where the normalizer
    removed the first characters."""
    expected = _ours_with_added_tokens(text, normalizer)
    vocab = {"<unk>": 0, "<s>": 1} | {piece: i + 2 for i, (piece, _) in enumerate(expected) if piece != "<s>"}
    encoding = _whole_tokenizer(normalizer, vocab).encode(text, add_special_tokens=False)
    assert list(zip(encoding.tokens, encoding.offsets, strict=True)) == expected


def test_metaspace_first_golden():
    assert _ours_with_added_tokens("a<s>a b", None) == [("▁a", (0, 1)), ("<s>", (1, 4)), ("a", (4, 5)), ("▁b", (5, 7))]
    assert _ours_with_added_tokens("xa b", normalizers.Replace("x", "")) == [("a", (1, 2)), ("▁b", (2, 4))]


# -- reading JSON -------------------------------------------------------------------------------------------------


def test_read_twins_are_the_expected_objects():
    assert read(pre.Metaspace(replacement="_", prepend_scheme="first", split=False)).steps == (
        Metaspace("_", "first", False),
    )
    assert read(pre.ByteLevel(add_prefix_space=False, use_regex=False)).steps == (ByteLevel(False, False),)
    assert read(pre.Sequence([pre.Digits(True), pre.Sequence([pre.Digits()])])).steps == (Digits(True), Digits())
    assert pre_tokenizer_from_json(None).steps == ()


@pytest.mark.parametrize(
    ("data", "legacy"),
    [
        ({"type": "Metaspace", "replacement": "▁", "add_prefix_space": True}, "always"),
        ({"type": "Metaspace", "replacement": "▁", "add_prefix_space": False, "prepend_scheme": "never"}, "never"),
        ({"type": "Metaspace", "replacement": "▁", "str_rep": "▁", "split": None}, "always"),
    ],
)
def test_metaspace_of_older_files(data, legacy):
    assert pre_tokenizer_from_json(data).steps == (Metaspace("▁", legacy, True),)
    assert _loads_in_reference(data)


def _loads_in_reference(data: Any) -> bool:
    whole = json.loads(tokenizers.Tokenizer(tokenizers.models.WordLevel({"a": 0}, unk_token="a")).to_str())
    whole["pre_tokenizer"] = data
    try:
        tokenizers.Tokenizer.from_str(json.dumps(whole))
    except Exception:
        return False
    return True


MS = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}
BL = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
SPLIT = {"type": "Split", "pattern": {"Regex": "a"}, "behavior": "Isolated", "invert": False}
REFUSED = [
    # (id, JSON, path of the refusal, whether tokenizers refuses to load it too)
    ("metaspace-replacement-two-chars", {**MS, "replacement": "ab"}, "pre_tokenizer.replacement", True),
    ("metaspace-replacement-missing", {"type": "Metaspace"}, "pre_tokenizer.replacement", True),
    ("metaspace-scheme", {**MS, "prepend_scheme": "First"}, "pre_tokenizer.prepend_scheme", True),
    ("metaspace-scheme-null", {**MS, "prepend_scheme": None}, "pre_tokenizer.prepend_scheme", True),
    ("metaspace-split", {**MS, "split": "yes"}, "pre_tokenizer.split", True),
    ("metaspace-legacy-contradiction", {"type": "Metaspace", "replacement": "▁", "add_prefix_space": False},
     "pre_tokenizer.add_prefix_space", True),
    ("byte-level-prefix", {**BL, "add_prefix_space": 1}, "pre_tokenizer.add_prefix_space", True),
    ("byte-level-trim-missing", {"type": "ByteLevel", "add_prefix_space": False}, "pre_tokenizer.trim_offsets",
     True),
    ("byte-level-regex", {**BL, "use_regex": None}, "pre_tokenizer.use_regex", True),
    ("digits-missing", {"type": "Digits"}, "pre_tokenizer.individual_digits", True),
    ("punctuation-behavior", {"type": "Punctuation", "behavior": "removed"}, "pre_tokenizer.behavior", True),
    ("char-delimiter", {"type": "CharDelimiterSplit", "delimiter": "ab"}, "pre_tokenizer.delimiter", True),
    ("fixed-length-negative", {"type": "FixedLength", "length": -1}, "pre_tokenizer.length", True),
    # The reference loads FixedLength(0) and panics on the first text.
    ("fixed-length-zero", {"type": "FixedLength", "length": 0}, "pre_tokenizer.length", False),
    ("split-behavior", {**SPLIT, "behavior": "isolated"}, "pre_tokenizer.behavior", True),
    ("split-invert", {**SPLIT, "invert": None}, "pre_tokenizer.invert", True),
    ("split-pattern", {**SPLIT, "pattern": "a"}, "pre_tokenizer.pattern", True),
    ("sequence-without-list", {"type": "Sequence"}, "pre_tokenizer.pretokenizers", True),
    ("sequence-inner", {"type": "Sequence", "pretokenizers": [BL, {**MS, "split": 0}]},
     "pre_tokenizer.pretokenizers[1].split", True),
    ("unknown-type", {"type": "Delimiter", "delimiter": "a"}, "pre_tokenizer.type", True),
    ("not-an-object", ["ByteLevel"], "pre_tokenizer", True),
    # Loads in the reference: hf_bpe has no script tables.
    ("unicode-scripts", {"type": "UnicodeScripts"}, "pre_tokenizer.type", False),
]  # fmt: skip


@pytest.mark.parametrize(("data", "path", "reference_refuses"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_refused_naming_the_json_path(data, path, reference_refuses):
    with pytest.raises(UnknownComponent) as refused:
        pre_tokenizer_from_json(data)
    assert refused.value.path == path
    assert str(refused.value).startswith(f"{path}: ")
    assert _loads_in_reference(data) is not reference_refuses


# -- real models' files -----------------------------------------------------------------------------------------

#: The models whose file has a pre-tokenizer (the others have none).
REAL_MODELS = [
    name for name in PACKAGES if name not in {"baichuan2", "chatglm3", "gemini", "gemma", "internlm2", "llama2", "yi"}
]


@pytest.mark.slow
@pytest.mark.parametrize("model", REAL_MODELS)
def test_real_models_pre_tokenizers(model):
    """Each real ``tokenizer.json``'s ``pre_tokenizer`` section (the files without one aside), read by both."""
    section = json.loads(model_tokenizer_json(model).read_text(encoding="utf-8"))["pre_tokenizer"]
    whole = json.loads(tokenizers.Tokenizer(tokenizers.models.WordLevel({"a": 0}, unk_token="a")).to_str())
    whole["pre_tokenizer"] = section
    reference = tokenizers.Tokenizer.from_str(json.dumps(whole)).pre_tokenizer
    twin = pre_tokenizer_from_json(section)
    text = multilingual_text(200, seed=7)
    for line in [text, *text.splitlines(keepends=True)]:
        assert ours(twin, line) == reference.pre_tokenize_str(line), (model, line)
