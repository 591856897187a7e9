"""Tables a loaded tokenizer builds only when first asked for (the BPE model's ``ranks`` by string pair, the
tokenizer's ``merges`` as a list of tuples): no encoding needs them, and loading without them changes no result. A
real file (Llama-3's 280,000 merges) encodes and decodes the same through a tokenizer whose tables were never built
and one whose tables were built before its first call, both judged by the Rust backend (``PreTrainedTokenizerFast``)
on the same file."""

from __future__ import annotations

import json

from conftest import multilingual_text
from real_tokenizers import model_tokenizer_json
from transformers import PreTrainedTokenizerFast

import hf_bpe
from hf_bpe.transformers import bpe, pipeline


def _fresh(path):  # type: ignore[no-untyped-def]
    """A tokenizer loaded from the file, not from the classes' cache of loaded files (which shares encoders)."""
    bpe._loaded.cache_clear()
    return hf_bpe.from_pretrained(path)


def test_llama3_loads_without_the_string_tables_and_encodes_the_same_with_them():
    path = model_tokenizer_json("llama3")
    docs = [multilingual_text(40, seed) for seed in range(4)]
    rust = PreTrainedTokenizerFast(tokenizer_file=str(path))
    expected = rust(docs)["input_ids"]

    lazy = _fresh(path)
    assert isinstance(lazy, hf_bpe.BPETokenizer)
    assert lazy.pipeline.model._ranks is None
    assert lazy._merge_list is None
    assert lazy(docs)["input_ids"] == expected
    assert lazy.batch_decode(expected) == rust.batch_decode(expected)
    assert lazy.pipeline.model._ranks is None and lazy._merge_list is None

    eager = _fresh(path)
    assert eager.bpe is not lazy.bpe
    ranks, merges = eager.pipeline.model.ranks, eager.merges
    rust_merges = json.loads(rust.backend_tokenizer.to_str())["model"]["merges"]
    assert ranks == {tuple(merge): rank for rank, merge in enumerate(rust_merges)}
    assert merges == [tuple(merge) for merge in rust_merges] and type(merges) is list
    assert eager(docs)["input_ids"] == expected
    assert eager.batch_decode(expected) == rust.batch_decode(expected)


def test_mistral7b_keeps_its_merges_as_read_and_encodes_the_same_with_its_ranks_made():
    path = model_tokenizer_json("llama2")  # Mistral-7B v0.1's file: SentencePiece-style BPE, byte fallback
    docs = [multilingual_text(40, seed) for seed in range(4)]
    rust = PreTrainedTokenizerFast(tokenizer_file=str(path))
    expected = rust(docs)["input_ids"]
    rust_merges = json.loads(rust.backend_tokenizer.to_str())["model"]["merges"]

    pipeline.loaded_file.cache_clear()
    lazy = hf_bpe.from_pretrained(path)
    model = lazy.pipeline.model
    assert not isinstance(model._merges, list) and len(model._merges) == len(rust_merges)
    assert lazy(docs)["input_ids"] == expected

    pipeline.loaded_file.cache_clear()
    eager = hf_bpe.from_pretrained(path)
    assert eager.pipeline.model is not model
    assert eager.pipeline.model.ranks == {tuple(merge): rank for rank, merge in enumerate(rust_merges)}
    assert eager(docs)["input_ids"] == expected
