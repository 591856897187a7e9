"""``Split.split_str``, the span-free cut the pipeline takes when nobody asks for offsets, against ``tokenizers``'
``pre_tokenizers.Split`` in the same test: text where the pattern does not match is one piece, found by one search
(not inverted: an inverted pattern's whole text is the match), other text cut as :meth:`Split.split` cuts it.
Whichever way a text goes, its pieces are the reference's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex, pre_tokenizers

from hf_bpe.pipeline.pre_tokenizers import BEHAVIORS, Split, pre_tokenizer_from_json

#: Patterns as a tokenizer.json spells them: Gemma-3's " ", a regex with empty matches, a run class.
PATTERNS = [{"String": " "}, {"String": "ab"}, {"Regex": "a*"}, {"Regex": r"\s+"}, {"Regex": "▁"}]
TEXTS = st.text(alphabet=st.sampled_from(["a", "b", " ", "▁", "\n", "é"]), max_size=12)


def twins(pattern: dict[str, str], behavior: str, invert: bool) -> tuple[Split, pre_tokenizers.Split]:
    data = {"type": "Split", "pattern": pattern, "behavior": behavior, "invert": invert}
    (ours,) = pre_tokenizer_from_json(data).steps
    theirs = pre_tokenizers.Split(Regex(pattern["Regex"]) if "Regex" in pattern else pattern["String"],
                                  behavior.lower().replace("withp", "_with_p").replace("withn", "_with_n"),
                                  invert=invert)  # fmt: skip
    return ours, theirs


@pytest.mark.parametrize("behavior", BEHAVIORS)
@pytest.mark.parametrize("invert", [False, True])
@settings(max_examples=60, deadline=None)
@given(pattern=st.sampled_from(PATTERNS), texts=st.lists(TEXTS, min_size=1, max_size=4))
def test_pieces_are_the_references_match_or_none(behavior, invert, pattern, texts):
    ours, theirs = twins(pattern, behavior, invert)
    for text in [*texts, *reversed(texts)]:
        expected = [piece for piece, _ in theirs.pre_tokenize_str(text)]
        assert ours.split_str(text) == expected == [piece for piece, _ in ours.split(text, [(0, 0)] * len(text))]


def test_text_with_no_match_is_one_piece_without_the_bookkeeping(monkeypatch):
    """Gemma-3's Split on " " after its normalizer made every space "▁": the text whole, ``_kept`` never run."""
    for behavior in BEHAVIORS:
        ours, theirs = twins({"String": " "}, behavior, False)
        text = "▁Hello▁world\n"
        with monkeypatch.context() as patched:
            patched.setattr(Split, "_kept", lambda *_: pytest.fail("cut with bookkeeping"))
            assert ours.split_str(text) == [text] == [piece for piece, _ in theirs.pre_tokenize_str(text)]
            assert ours.split_str("") == [] == theirs.pre_tokenize_str("")


#: Real files' isolating splits (Llama-3's, Qwen2's, GPT-2's), a pattern that matches the empty string at an end
#: (``compiled`` refuses it: no Splitter), and one that can match empty only where its probes do not look.
ISOLATING = [
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
    r"|\s+(?!\S)|\s+",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
    r"|\s+(?!\S)|\s+",
    r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
    r"a*",
    r"\p{L}+|(?=9)",
]
REAL_TEXTS = st.text(alphabet=st.sampled_from(["a", "B", " ", "\n", "1", "9", "'", "s", "é", "日", "!", "\u0300"]))


@pytest.mark.parametrize("pattern", ISOLATING)
@settings(max_examples=80, deadline=None)
@given(texts=st.lists(REAL_TEXTS, min_size=1, max_size=4))
def test_isolating_splits_by_splitter_or_by_bookkeeping_are_the_references(pattern, texts):
    """``"Isolated"`` regex splits go by the pattern's ``Splitter`` (``findall`` in C) where it has one and finds no
    empty match, else by ``_kept``: both ways the reference's pieces, with and without spans."""
    ours, theirs = twins({"Regex": pattern}, "Isolated", False)
    for text in [*texts, *reversed(texts)]:
        expected = [piece for piece, _ in theirs.pre_tokenize_str(text)]
        fast = ours.split_str(text)
        slow = [text[start:end] for start, end in ours._kept(text) if end > start]
        spanned = ours.split(text, [(i, i + 1) for i in range(len(text))])
        assert fast == slow == expected == [piece for piece, _ in spanned]
        assert [spans for _, spans in spanned] == [[(i, i + 1) for i in range(a, b)] for a, b in _bounds(expected)]


def _bounds(pieces: list[str]) -> list[tuple[int, int]]:
    out, at = [], 0
    for piece in pieces:
        out.append((at, at + len(piece)))
        at += len(piece)
    return out


def test_real_isolating_splits_take_the_splitter_and_empty_matches_do_not():
    from hf_bpe.pipeline.pre_tokenizers import _isolating_splitter

    assert _isolating_splitter(ISOLATING[0]) is not None
    assert _isolating_splitter("a*") is None
    ours, _ = twins({"Regex": r"\p{L}+|(?=9)"}, "Isolated", False)
    assert ours._isolated("ab9") is None  # its Splitter met an empty match: cut by _kept
    assert ours._isolated("ab c") == ["ab", " ", "c"]
