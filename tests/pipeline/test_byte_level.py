"""The byte table and the split pattern against ``tokenizers``' ByteLevel pre-tokenizer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import pre_tokenizers

from hf_bpe.pipeline.byte_level import (
    BYTE_ALPHABET,
    BYTE_TO_UNICODE,
    bytes_to_unicode,
    from_byte_level,
    replace_surrogates,
    to_byte_level,
)
from hf_bpe.pipeline.pre_tokenizers import SplitPattern

REFERENCE_SPLIT = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
REFERENCE_BYTES = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
SPLIT = SplitPattern()


def reference_pieces(text: str) -> list[str]:
    return [piece for piece, _offsets in REFERENCE_SPLIT.pre_tokenize_str(text)]


def our_pieces(text: str) -> list[str]:
    return [to_byte_level(piece) for piece in SPLIT.findall(text)]


def test_byte_table_by_hand():
    table = bytes_to_unicode()
    assert len(set(table.values())) == 256
    assert table[ord("!")] == "!"
    assert table[ord(" ")] == "Ġ"  # the 33rd unprintable byte: 0x100 + 32
    assert table[0] == "Ā"
    assert table[0x7F] == "ġ"
    assert table[0xAD] == "Ń"  # the soft hyphen is the last one moved
    assert tuple(sorted(pre_tokenizers.ByteLevel.alphabet())) == BYTE_ALPHABET


def test_every_byte_spelled_like_reference():
    for byte, char in BYTE_TO_UNICODE.items():
        text = bytes([byte]).decode("latin-1")
        assert REFERENCE_BYTES.pre_tokenize_str(text)[0][0] == to_byte_level(text), byte
        assert len(to_byte_level(text)) in (1, 2)
        assert from_byte_level(char) == bytes([byte])


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Hello world's  end\n", id="contraction-and-spaces"),
        pytest.param("I'M HERE, you're 'll\tthere\r\n", id="case-sensitive-contractions"),
        pytest.param("   leading and trailing   ", id="space-runs"),
        pytest.param("a\u00a0b\u3000c \u2028d", id="unicode-spaces"),
        pytest.param("日本語のテキスト、です。123 ١٢٣ ߁", id="cjk-and-digits"),
        pytest.param(
            "👩\u200d👩\u200d👧 e\u0301 \u0558x \ua7ce \U00010940 \U00018e00", id="emoji-marks-new-code-points"
        ),
        pytest.param("\x00\x01\x1c\x1f\x7f\x85", id="controls"),
    ],
)
def test_split_like_reference(text):
    assert our_pieces(text) == reference_pieces(text)


def test_split_every_code_point_like_reference():
    """Every code point in letter, number, white-space and other contexts, 64 code points per probe string.

    Code points assigned after the references' Unicode version (U+0558, U+A7CE, U+10940, U+18E00, ...) are
    letters to the ``regex`` module but not to ``tokenizers``; this is where a plain ``\\p{L}`` would differ.
    """
    code_points = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    mismatches = []
    for start in range(0, len(code_points), 64):
        chunk = [chr(cp) for cp in code_points[start : start + 64]]
        text = "".join(f"a{c}1{c} {c}{c}!\t{c} x" for c in chunk)
        if our_pieces(text) != reference_pieces(text):
            mismatches.append(f"U+{ord(chunk[0]):04X}..U+{ord(chunk[-1]):04X}")
    assert mismatches == []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40))
def test_split_random_text_like_reference(text):
    assert our_pieces(text) == reference_pieces(text)


def test_lone_surrogate_becomes_replacement_character():
    assert to_byte_level("a\ud800b") == to_byte_level("a\ufffdb") == "aï¿½b"
    assert replace_surrogates("\udfff\ud83d\ude00") == "\ufffd😀"


def test_from_byte_level_rejects_foreign_character():
    with pytest.raises(ValueError, match="U\\+4E00"):
        from_byte_level("a一")


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        pytest.param(r"(\p{L}", "does not compile", id="unbalanced"),
        pytest.param(r"\p{L}*|\s+", "empty string", id="star-matches-empty"),
        pytest.param(r"x?", "empty string", id="optional-matches-empty"),
    ],
)
def test_bad_split_pattern_is_refused(pattern, message):
    with pytest.raises(ValueError, match=message):
        SplitPattern(pattern)
