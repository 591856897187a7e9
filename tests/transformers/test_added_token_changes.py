"""What a transformers class derives from its added tokens (the pattern matching them, whether any strips the space
beside it, which are matched in the raw text) follows every change to them: encoding, then adding tokens (new ones,
one with other flags, special ones), then encoding again gives the Rust backend's rows after the same calls, on a
byte-level file (BPETokenizer), a SentencePiece-style one with thousands of added tokens (Gemma's, PipelineTokenizer)
and a WordPiece one; and a pickled tokenizer derives it all again."""

from __future__ import annotations

import pickle

import pytest
from conftest import multilingual_text
from real_tokenizers import model_tokenizer_json
from transformers import AddedToken, PreTrainedTokenizerFast

import hf_bpe

TEXTS = [*multilingual_text(6, seed=41).splitlines(), "a <new>b  <strip>  c <new> <sp> d<sp>e"]


def _rows(tok, texts):
    batch = tok(texts, return_offsets_mapping=True)
    return batch["input_ids"], batch["offset_mapping"], [batch.tokens(i) for i in range(len(texts))]


@pytest.mark.parametrize("name", ["qwen3", "gemma3", "llama2"])
def test_adding_tokens_after_encoding_gives_the_rust_backends_rows(name):
    path = model_tokenizer_json(name)
    ours, rust = hf_bpe.from_pretrained(path), PreTrainedTokenizerFast(tokenizer_file=str(path))
    assert _rows(ours, TEXTS) == _rows(rust, TEXTS)
    # Tokens matched in the raw text (normalized=False): the classes match transformers-added tokens there, where
    # the Rust backend matches a normalized one in the normalized text (a gap of its own, not this test's).
    steps = [
        lambda tok: tok.add_tokens([AddedToken("<new>", normalized=False)]),
        lambda tok: tok.add_tokens([AddedToken("<strip>", lstrip=True, rstrip=True, normalized=False)]),
        lambda tok: tok.add_special_tokens({"additional_special_tokens": ["<sp>"]}),
    ]
    for step in steps:
        assert step(ours) == step(rust)
        assert _rows(ours, TEXTS) == _rows(rust, TEXTS)
    # The same token again with other flags: transformers' Python class says it added none, the Rust backend one;
    # both match it by its new flags.
    for tok in (ours, rust):
        tok.add_tokens([AddedToken("<new>", single_word=True, normalized=False)])
    assert _rows(ours, TEXTS) == _rows(rust, TEXTS)
    again = pickle.loads(pickle.dumps(ours))
    assert _rows(again, TEXTS) == _rows(rust, TEXTS)
