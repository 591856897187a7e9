"""BPETokenizer with GPT-2's own files gives exactly GPT-2's ids: tiktoken's and transformers' Rust tokenizer's."""

from __future__ import annotations

import hashlib

import pytest
from conftest import ADVERSARIAL, multilingual_text
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_bpe.reference.gpt2 import RANKS_SHA256


def test_gpt2_files_are_the_real_vocabulary(gpt2_dir, gpt2_ours):
    assert hashlib.sha256((gpt2_dir / "gpt2.tiktoken").read_bytes()).hexdigest() == RANKS_SHA256
    assert len(gpt2_ours) == 50257
    merges = (gpt2_dir / "merges.txt").read_text(encoding="utf-8").splitlines()
    assert merges[:4] == ["#version: 0.2", "Ġ t", "Ġ a", "h e"]
    assert len(merges) == 50001
    assert gpt2_ours.convert_tokens_to_ids(["Hello", "Ġworld", "<|endoftext|>"]) == [15496, 995, 50256]


@pytest.mark.parametrize("text", ADVERSARIAL, ids=range(len(ADVERSARIAL)))
def test_adversarial_text(text, gpt2_ours, gpt2_tiktoken, gpt2_rust):
    ids = gpt2_ours(text)["input_ids"]
    assert ids == gpt2_tiktoken.encode(text, allowed_special="all")
    assert ids == gpt2_rust(text)["input_ids"]
    assert gpt2_ours.decode(ids) == gpt2_rust.decode(ids) == gpt2_tiktoken.decode(ids) == text


def test_hello_world_by_hand(gpt2_ours):
    # GPT-2's ids for "Hello world" and for the end-of-text token, as published with the model.
    assert gpt2_ours("Hello world<|endoftext|>")["input_ids"] == [15496, 995, 50256]


def test_standard_library_sources(gpt2_ours, gpt2_tiktoken, gpt2_rust, stdlib_files):
    docs = [path.read_text(encoding="utf-8") for path in stdlib_files]
    ours = gpt2_ours(docs)["input_ids"]
    assert ours == gpt2_tiktoken.encode_batch(docs, allowed_special="all")
    assert ours == gpt2_rust(docs)["input_ids"]
    assert sum(map(len, ours)) > 100_000


def test_multilingual_text(gpt2_ours, gpt2_tiktoken, gpt2_rust):
    docs = multilingual_text(3000, seed=5).split("\n\n")
    ours = gpt2_ours(docs)["input_ids"]
    assert ours == gpt2_tiktoken.encode_batch(docs, allowed_special="all")
    assert ours == gpt2_rust(docs)["input_ids"]
    assert gpt2_ours.batch_decode(ours) == gpt2_rust.batch_decode(ours) == docs


@pytest.mark.slow
def test_whole_standard_library(gpt2_ours, gpt2_tiktoken, stdlib_all_files):
    docs = [path.read_text(encoding="utf-8", errors="surrogateescape") for path in stdlib_all_files]
    assert gpt2_ours(docs)["input_ids"] == gpt2_tiktoken.encode_batch(docs, allowed_special="all")


def test_long_word_matches_rust(gpt2_ours, gpt2_rust):
    """A 200,000-character pre-token takes the heap-and-linked-list path; the Rust BPE model is the reference."""
    import random

    rng = random.Random(7)
    word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(200_000))
    assert gpt2_ours(word)["input_ids"] == gpt2_rust(word)["input_ids"]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(codec=None), max_size=60))
def test_random_unicode_matches_tiktoken(gpt2_ours, gpt2_tiktoken, text):
    """Every code point, lone surrogates included (both replace them with U+FFFD)."""
    ids = gpt2_ours(text)["input_ids"]
    assert ids == gpt2_tiktoken.encode(text, allowed_special="all")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=60))
def test_decode_inverts_encode(gpt2_ours, text):
    assert gpt2_ours.decode(gpt2_ours(text)["input_ids"]) == text


def test_offsets_match_rust(gpt2_ours, gpt2_rust):
    """Character spans per token; a token holding part of a character's bytes spans the whole character."""
    docs = [*ADVERSARIAL, *multilingual_text(300, seed=11).split("\n")]
    ours = gpt2_ours(docs, return_offsets_mapping=True)
    assert dict(ours) == dict(gpt2_rust(docs, return_offsets_mapping=True))
    assert gpt2_ours("héllo", return_offsets_mapping=True)["offset_mapping"] == [(0, 1), (1, 2), (2, 5)]
    truncated = {"return_offsets_mapping": True, "truncation": True, "max_length": 4}
    assert dict(gpt2_ours(docs, **truncated)) == dict(gpt2_rust(docs, **truncated))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40))
def test_random_offsets_match_rust(gpt2_ours, gpt2_rust, text):
    mine = gpt2_ours(text, return_offsets_mapping=True)
    assert mine["offset_mapping"] == gpt2_rust(text, return_offsets_mapping=True)["offset_mapping"]
