"""``Precompiled.normalize_str``, the span-free path the pipeline takes when nobody asks for offsets, against
``tokenizers``' ``normalizers.Precompiled`` on the same charsmap, in the same test: ASCII text goes through one
``str.translate`` (CR LF, one grapheme, excepted), other text grapheme by grapheme through a cache. Whichever way a
text goes (ASCII or not, graphemes met before or not, in any order), its text is the reference's and
:meth:`normalize`'s."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_normalizer_twins import EXAMPLES, RULES, TEXTS, charsmap, identity_spans, twin_of
from tokenizers import normalizers

ASCII = st.lists(st.characters(max_codepoint=127) | st.sampled_from(["\r\n", "\r", "\x00"])).map("".join)


def spans_path(twin, text):  # type: ignore[no-untyped-def]
    return twin.normalize(text, identity_spans(text))[0]


@EXAMPLES
@given(st.sampled_from(RULES), st.lists(TEXTS | ASCII, min_size=1, max_size=5))
def test_text_is_the_references_whatever_the_path(rule, texts):
    reference = normalizers.Precompiled(charsmap(rule))
    twin = twin_of(reference)
    expected = [reference.normalize_str(text) for text in texts]
    assert [twin.normalize_str(text) for text in texts] == expected  # graphemes met for the first time
    assert [twin.normalize_str(text) for text in reversed(texts)] == expected[::-1]  # from the cache
    assert [spans_path(twin, text) for text in texts] == expected
    again = pickle.loads(pickle.dumps(twin))
    assert [again.normalize_str(text) for text in reversed(texts)] == expected[::-1]


@pytest.mark.parametrize("rule", RULES)
def test_every_ascii_character_and_crlf(rule):
    """ASCII text of every character (controls the charsmap maps or drops included), with and without CR LF."""
    reference = normalizers.Precompiled(charsmap(rule))
    twin = twin_of(reference)
    text = "".join(map(chr, range(128))) * 2
    for each in (text, text.replace("\r", "\r\n"), "a\r\nb", "\r\r\n\n"):
        assert twin.normalize_str(each) == reference.normalize_str(each) == spans_path(twin, each)
    (precompiled,) = twin.normalizers
    assert precompiled.__dict__.get("_ascii_texts") is not None  # the translate path was taken
    assert "_ascii_texts" not in pickle.loads(pickle.dumps(precompiled)).__dict__
