"""``Pipeline.encode``'s span-free path, its steps looked up once (the normalizers' ``normalize_str``, a lone
pre-tokenizer step's ``split_str`` or none, the model's ``token_ids``), against the Rust backend's ``Tokenizer``
loaded from the same real file, in the same test: the same ids before and after a pickle (which makes the steps
again), text by text in two orders."""

from __future__ import annotations

import pickle

import pytest
from real_tokenizers import model_tokenizer_json
from tokenizers import Tokenizer

import hf_bpe

#: No added token in them (Gemma-3's "\n", "\t" and "▁▁" are added tokens, matched before the pipeline).
TEXTS = ["Hello world", "  two  spaces ", "", "日本語のテキスト", "Привет, мир!", "x" * 70 + " ab", " ", "a😀b é"]


@pytest.mark.parametrize("name", ["gemma3", "llama2", "command_r_plus"])
def test_span_free_steps_give_the_rust_backends_ids(name):
    path = model_tokenizer_json(name)
    rust = Tokenizer.from_file(str(path))
    expected = [rust.encode(text, add_special_tokens=False).ids for text in TEXTS]
    pipeline = hf_bpe.from_pretrained(path).pipeline
    assert pipeline._str_path is not None  # the span-free path, its steps looked up once
    assert [pipeline.encode(text) for text in TEXTS] == expected
    again = pickle.loads(pickle.dumps(pipeline))
    assert again._str_path is not None
    assert [again.encode(text) for text in reversed(TEXTS)] == expected[::-1]
