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


@pytest.mark.parametrize("name", ["llama2", "gemma3", "qwen3"])
def test_tokens_added_as_normalized_are_matched_named_and_decoded_as_the_rust_backend_does(name):
    """A text given to ``add_tokens`` is a ``normalized`` token: the Rust backend normalizes its content and matches
    that in the normalized text (Llama-2's ``"hello world"`` is ``"▁hello▁world"``, so it takes the space before it),
    names it so in ``convert_ids_to_tokens`` and hands it to the decoder like any token (a byte-level file's
    ``"Wörld"`` decodes to the bytes its characters stand for). The classes matched such tokens in the raw text
    and named them by their content. (How many tokens ``add_tokens`` reports is each backend's own: the Python
    backend does not count a token its vocabulary has, the Rust backend does.)"""
    path = model_tokenizer_json(name)
    ours, rust = hf_bpe.from_pretrained(path), PreTrainedTokenizerFast(tokenizer_file=str(path))
    texts = [*TEXTS, "say hello world and the wide Wörld xyzxyz", " hello world", "Hello  world, Hello!"]
    assert _rows(ours, texts) == _rows(rust, texts)
    for tok in (ours, rust):
        tok.add_tokens(["hello world", "Wörld", "▁wide", "xyz"])
        tok.add_tokens([AddedToken("Hello", single_word=True, normalized=True)])
    assert _rows(ours, texts) == _rows(rust, texts)
    for ids in ours(texts)["input_ids"]:
        assert ours.convert_ids_to_tokens(ids) == rust.convert_ids_to_tokens(ids)
        assert ours.convert_ids_to_tokens(ids, skip_special_tokens=True) == rust.convert_ids_to_tokens(
            ids, skip_special_tokens=True
        )
        assert ours.decode(ids) == rust.decode(ids)
        assert ours.decode(ids, skip_special_tokens=True) == rust.decode(ids, skip_special_tokens=True)
    again = pickle.loads(pickle.dumps(ours))
    assert _rows(again, texts) == _rows(rust, texts)
