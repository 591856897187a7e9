"""SymbolBPE's ids-only path (``token_ids``, what the pipeline asks for when nobody wants offsets) against its Rust
twin (``tokenizers.models.BPE`` with ``unk_token``, ``fuse_unk`` and ``byte_fallback``): a part met for the first
time is merged from its characters' ids, a character outside the vocabulary spelled by its bytes' ``<0xXX>`` tokens
where every byte has one, a long part cut where no merge can cross and its pieces remembered. Whichever way a word
goes (short or long part, first time or from the cache, ``token_ids`` or ``tokenize`` first, in any order), its ids
are the Rust model's."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, models

from hf_bpe.models.bpe.symbols import SymbolBPE

CHARS = ["▁", "a", "b", "c", "d", "é", "日"]
#: "ab", "▁ab", "cd", "▁c", "abcd" are made; "b" "▁" and "d" "a" are side by side in no result: cut there.
MERGES = [("a", "b"), ("▁", "ab"), ("c", "d"), ("▁", "c"), ("ab", "cd"), ("<0xC3>", "<0xBC>")]
#: Characters of the vocabulary and outside it ("x", "ü" whose two bytes merge, "本", an emoji).
ALPHABET = [*CHARS, "x", "ü", "本", "\U0001f600"]


def vocabulary(every_byte: bool) -> dict[str, int]:
    """The characters, the merges' results and byte tokens: all 256 (no unknown token can come up), or two."""
    tokens = ["<unk>", *CHARS]
    tokens += [f"<0x{byte:02X}>" for byte in range(256)] if every_byte else ["<0x78>", "<0xC3>", "<0xBC>"]
    tokens += [left + right for left, right in MERGES]
    return {token: index for index, token in enumerate(dict.fromkeys(tokens))}


def rust_ids(vocab: dict[str, int], options: dict[str, object], word: str) -> list[int]:
    return Tokenizer(models.BPE(vocab=vocab, merges=MERGES, **options)).encode(word).ids  # type: ignore[arg-type]


@pytest.mark.parametrize("every_byte", [False, True])
@pytest.mark.parametrize("fuse_unk", [False, True])
@settings(max_examples=150, deadline=None)
@given(words=st.lists(st.text(alphabet=st.sampled_from(ALPHABET), min_size=1, max_size=60), min_size=1, max_size=6))
def test_ids_are_the_rust_models_whatever_the_path(every_byte, fuse_unk, words):
    vocab = vocabulary(every_byte)
    options = {"unk_token": "<unk>", "fuse_unk": fuse_unk, "byte_fallback": True}
    expected = [rust_ids(vocab, options, word) for word in words]
    model = SymbolBPE(vocab, MERGES, **options)  # type: ignore[arg-type]
    # First met, then from the cache, in both orders; tokenize's own cache in between.
    assert [model.token_ids(word) for word in words] == expected
    assert [model.token_ids(word) for word in reversed(words)] == expected[::-1]
    assert [[token_id for token_id, _ in model.tokenize(word)] for word in words] == expected
    fresh = SymbolBPE(vocab, MERGES, **options)  # type: ignore[arg-type]
    assert [[token_id for token_id, _ in fresh.tokenize(word)] for word in reversed(words)] == expected[::-1]
    assert [fresh.token_ids(word) for word in words] == expected


def test_byte_fallback_characters_are_spelled_in_c_where_every_byte_has_a_token():
    """The bytes' path is taken where all 256 byte tokens exist (and only then), short and long parts alike."""
    options = {"unk_token": "<unk>", "fuse_unk": True, "byte_fallback": True}
    short, long = "▁abü本x", "▁ab" * 4 + "üü本" + "cd▁ab" * 4 + "x😀"
    for every_byte in (True, False):
        vocab = vocabulary(every_byte)
        model = SymbolBPE(vocab, MERGES, **options)  # type: ignore[arg-type]
        for word in (short, long):
            assert model.token_ids(word) == rust_ids(vocab, options, word)
        if every_byte:
            assert "ü" in model._by_char  # type: ignore[operator]  # spelled through the bytes' path
            again = pickle.loads(pickle.dumps(model))
            assert not again._by_char and again.token_ids(long) == rust_ids(vocab, options, long)
        else:
            assert model._by_char is None
    ids = SymbolBPE(vocabulary(True), MERGES, **options).token_ids("xü")  # type: ignore[arg-type]
    vocab = vocabulary(True)
    assert ids == [vocab["<0x78>"], vocab["<0xC3><0xBC>"]] == rust_ids(vocab, options, "xü")
