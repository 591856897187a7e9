"""hf_bpe.pipeline.normalizers against ``tokenizers``' normalizers, run in the same test."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import normalizers

from hf_bpe.pipeline._tables.lowercase import LOWERCASE
from hf_bpe.pipeline.normalizers import lowercase

SURROGATES = range(0xD800, 0xE000)


def test_lowercase_every_code_point():
    reference = normalizers.Lowercase()
    chars = [chr(cp) for cp in range(sys.maxunicode + 1) if cp not in SURROGATES]
    # Lowercase works character by character, so one call over all of them is one call per character.
    if lowercase("\0".join(chars)) != reference.normalize_str("\0".join(chars)):
        wrong = [f"U+{ord(c):04X}" for c in chars if lowercase(c) != reference.normalize_str(c)]
        raise AssertionError(f"lowercased differently from tokenizers: {wrong[:20]}")
    assert len(LOWERCASE) > 50  # the characters Python's Unicode lowers otherwise, and capital sigma


def test_lowercase_where_python_differs():
    reference = normalizers.Lowercase()
    for text, python in [
        ("ΟΔΟΣ ΟΔΟΣ.", "οδος οδος."),  # a final sigma: ς to Python, σ to the reference
        ("ΣΑΣ", "σας"),
        ("\u1c89", "\u1c89"),  # CYRILLIC CAPITAL LETTER TJE: not a capital to Python 3.11's Unicode
    ]:
        if sys.version_info[:2] == (3, 11):
            assert text.lower() == python
        assert lowercase(text) == reference.normalize_str(text) != python
    assert lowercase("İSTANBUL") == reference.normalize_str("İSTANBUL") == "i\u0307stanbul"


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        st.sampled_from("ΣσςΟΔαİIıiǅẞßᎠꭰ \u1c89\u1c8a\U00010d50 a.") | st.characters(exclude_categories=["Cs"]),
        max_size=20,
    )
)
def test_lowercase_strings(text):
    assert lowercase(text) == normalizers.Lowercase().normalize_str(text)


@pytest.mark.parametrize("form", ["NFC", "NFKC"])
def test_nfc_and_nfkc_follow_the_reference_on_marks_it_does_not_know(form):
    """Around every mark and decomposable character: the reference's Unicode is older than Python's (marks it gives
    class 0, a composition it lacks)."""
    from tokenizers.normalizers import NFC, NFKC

    from hf_bpe.pipeline.normalizers import unicode_normalize

    reference = (NFC if form == "NFC" else NFKC)()
    text = "".join(
        f"a{chr(cp)}\u0334 a\u0301{chr(cp)} {unicodedata.normalize('NFD', chr(cp))} "
        for cp in range(0x300, 0x20000)
        if unicodedata.combining(chr(cp)) or unicodedata.decomposition(chr(cp))
    )
    assert unicode_normalize(form, text) == reference.normalize_str(text)
