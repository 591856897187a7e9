"""UnigramEncoder's ids-only path (``token_ids``, what the pipeline asks for when nobody wants offsets) against its
Rust twin (``tokenizers.models.Unigram`` with and without ``byte_fallback``): the ids are read off the best path
with no token texts made but the fused unknown runs'. Whichever way a word goes (``token_ids`` or ``tokenize`` or
``encode_word`` first, met before or not, in any order), its ids are the Rust model's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, models

from hf_bpe.models.unigram.encoder import UnigramEncoder

#: Pieces with ties ("ab" = "a" + "b"), a piece that is a prefix of nothing, the unknown piece's own text.
PIECES = [("<unk>", 0.0), ("a", -1.0), ("b", -1.0), ("ab", -2.0), ("abc", -2.5), ("c", -3.0), ("▁", -1.5),
          ("▁ab", -2.0), ("é", -4.0), ("日本", -3.0)]  # fmt: skip
#: Characters of the pieces, unknown ones ("x", "日" alone, "ü" whose bytes are partly tokens, an emoji) and "<unk>".
ALPHABET = ["a", "b", "c", "▁", "é", "日", "本", "x", "ü", "\U0001f600", "<unk>"]


def pieces(byte_tokens: str) -> list[tuple[str, float]]:
    """:data:`PIECES` and byte tokens: every one (``"all"``), a few (``"some"``: "x" and "é"'s, not "ü"'s), none."""
    found = list(PIECES)
    if byte_tokens == "all":
        found += [(f"<0x{byte:02X}>", -8.0) for byte in range(256)]
    elif byte_tokens == "some":
        found += [("<0x78>", -8.0), ("<0xC3>", -8.0), ("<0xA9>", -8.0)]
    return found


def rust_ids(vocab: list[tuple[str, float]], byte_fallback: bool, word: str) -> list[int]:
    return Tokenizer(models.Unigram(vocab, unk_id=0, byte_fallback=byte_fallback)).encode(word).ids


@pytest.mark.parametrize(("byte_tokens", "byte_fallback"), [("none", False), ("all", True), ("some", True)])
@settings(max_examples=150, deadline=None)
@given(words=st.lists(st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=25).map("".join), max_size=6))
def test_ids_are_the_rust_models_whatever_the_path(byte_tokens, byte_fallback, words):
    vocab = pieces(byte_tokens)
    expected = [rust_ids(vocab, byte_fallback, word) for word in words]
    encoder = UnigramEncoder(vocab, 0, byte_fallback=byte_fallback)
    assert [encoder.token_ids(word) for word in words] == expected
    assert [encoder.token_ids(word) for word in reversed(words)] == expected[::-1]
    assert [[token_id for token_id, _ in encoder.tokenize(word)] for word in words] == expected
    fresh = UnigramEncoder(vocab, 0, byte_fallback=byte_fallback)
    fresh.encode_word(words[-1]) if words else None
    assert [[token_id for token_id, _ in fresh.tokenize(word)] for word in reversed(words)] == expected[::-1]
    assert [fresh.token_ids(word) for word in words] == expected


def test_ids_path_makes_no_token_texts():
    """``token_ids`` reads the ids off the best path: neither the tokens' texts nor their sizes are made or kept."""
    vocab = pieces("all")
    encoder = UnigramEncoder(vocab, 0, byte_fallback=True)
    words = ["▁abc", "xxü<unk>ab", "日本日", "▁ab😀c"]
    assert [encoder.token_ids(word) for word in words] == [rust_ids(vocab, True, word) for word in words]
    assert not encoder._cache and not encoder._sized_cache


def test_the_unknown_pieces_own_text_is_that_piece():
    """With byte fallback, "<unk>" in a word is the unknown piece (``Unigram::tokenize`` looks a text up before it
    falls back to bytes); fused with an unknown character, the run is not a piece: its bytes."""
    vocab = pieces("all")
    for word in ["a<unk>b", "<unk>", "x<unk>", "<unk>x"]:
        rust = Tokenizer(models.Unigram(vocab, unk_id=0, byte_fallback=True)).encode(word)
        encoder = UnigramEncoder(vocab, 0, byte_fallback=True)
        assert encoder.token_ids(word) == [token_id for token_id, _ in encoder.tokenize(word)] == rust.ids
        assert [token for _, token in encoder.tokens(word)] == rust.tokens
    assert rust_ids(vocab, True, "a<unk>b") == [1, 0, 2]
