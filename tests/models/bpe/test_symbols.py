"""SymbolBPE, the BPE model of SentencePiece-style files, against its Rust twin (``tokenizers.models.BPE`` with
``unk_token``, ``fuse_unk`` and ``byte_fallback``) on words of known, unknown and byte-fallback characters: the
parts it merges apart (cut where no merge can cross) give the whole word's tokens, unknown runs and the order
of a pending unknown token after byte tokens included. (Offsets are checked on real files, through the
transformers class, in tests/transformers/test_real_tokenizers.py.)"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, models

from hf_bpe.models.bpe.symbols import SymbolBPE

CHARS = ["▁", "a", "b", "c", "d", "é", "日"]
#: "ab", "▁ab", "cd", "▁c", "abcd" are made; "b" "▁" and "d" "a" are side by side in no result: cut there.
MERGES = [("a", "b"), ("▁", "ab"), ("c", "d"), ("▁", "c"), ("ab", "cd")]
#: Text of the vocabulary's characters, an unknown one ("x", "y") and one whose bytes have tokens only in part.
ALPHABET = [*CHARS, "x", "y", "ü", "\u00e9"]


def vocabulary(byte_fallback: bool) -> dict[str, int]:
    tokens = ["<unk>", *CHARS, *(left + right for left, right in MERGES)]
    if byte_fallback:
        tokens += ["<0x78>", "<0xC3>"]  # "x" falls back to its byte; "ü" (C3 BC) lacks a byte token: unknown
    return {token: index for index, token in enumerate(dict.fromkeys(tokens))}


@pytest.mark.parametrize("byte_fallback", [False, True])
@pytest.mark.parametrize("fuse_unk", [False, True])
@settings(max_examples=150, deadline=None)
@given(word=st.text(alphabet=st.sampled_from(ALPHABET), min_size=1, max_size=30))
def test_tokens_are_the_rust_models(byte_fallback, fuse_unk, word):
    vocab = vocabulary(byte_fallback)
    options = {"unk_token": "<unk>", "fuse_unk": fuse_unk, "byte_fallback": byte_fallback}
    rust = Tokenizer(models.BPE(vocab=vocab, merges=MERGES, **options)).encode(word)
    ours = SymbolBPE(vocab, MERGES, **options).tokenize(word)
    assert [token_id for token_id, _ in ours] == rust.ids


def test_a_word_is_merged_in_parts_cut_where_no_merge_crosses():
    model = SymbolBPE(vocabulary(False), MERGES, unk_token="<unk>")
    assert model._parts("▁abcd▁ab") == ["▁abcd", "▁ab"]
    assert model._parts("dab") == ["d", "ab"]
    assert model._parts("xx") == ["xx"]  # unknown characters are never cut apart (their run may be fused)
