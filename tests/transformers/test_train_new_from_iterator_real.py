"""``train_new_from_iterator`` on real models' tokenizers (Qwen3's, Llama-3.1's, DeepSeek-V3's ``tokenizer.json``),
judged by the Rust backend's ``TokenizersBackend.train_new_from_iterator`` on the same file and texts: the same
vocabulary (special added tokens first, counted in ``vocab_size``), merges, added tokens with their flags, ``len``
and ids."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest
from conftest import multilingual_text
from real_tokenizers import model_tokenizer_json
from transformers import PreTrainedTokenizerFast

import hf_bpe


@functools.cache
def _texts() -> list[str]:
    """About 290 KB of mixed-script lines."""
    return multilingual_text(4500).splitlines(keepends=True)


def _added(tokenizer: Any) -> dict[int, tuple[Any, ...]]:
    """Each added token's id, text and flags."""
    return {
        token_id: (token.content, token.single_word, token.lstrip, token.rstrip, token.normalized, token.special)
        for token_id, token in tokenizer.added_tokens_decoder.items()
    }


def _check_same(ours: Any, rust: Any, samples: list[str]) -> None:
    """Vocabulary, merges, added tokens, length and ids of ``ours`` are the Rust backend's ``rust``."""
    model = json.loads(rust.backend_tokenizer.to_str())["model"]
    assert ours.get_vocab() == rust.get_vocab()
    assert [list(merge) for merge in ours.merges] == model["merges"]
    assert _added(ours) == _added(rust)
    assert len(ours) == len(rust)
    assert [ours(text)["input_ids"] for text in samples] == [rust(text)["input_ids"] for text in samples]


@pytest.mark.parametrize("name", ["qwen3", "llama3_1"])
def test_trains_the_rust_backends_vocabulary(name):
    """Qwen3 (26 added tokens, 12 of them not special: the Rust backend drops those) and Llama-3.1 (256 special
    tokens, ignore_merges, a BOS template nested in a Sequence that keeps its old id) at 1,500 tokens."""
    path = str(model_tokenizer_json(name))
    ours = hf_bpe.from_pretrained(path).train_new_from_iterator(_texts(), 1500, show_progress=False)
    rust = PreTrainedTokenizerFast(tokenizer_file=path).train_new_from_iterator(_texts(), 1500, show_progress=False)
    assert len(rust) == 1500
    samples = [*_texts()[:300], "<|im_start|>user\nhi<|im_end|><think>", "<|begin_of_text|>hello world"]
    _check_same(ours, rust, samples)


def test_renames_and_new_special_tokens_on_qwen3():
    """A renamed special token and new ones (a string and an AddedToken) go to the trainer after the file's."""
    from transformers import AddedToken

    path = str(model_tokenizer_json("qwen3"))
    options: dict[str, Any] = {
        "new_special_tokens": ["<new>", AddedToken("<lstripped>", lstrip=True)],
        "special_tokens_map": {"<|im_end|>": "<|end|>"},
        "show_progress": False,
    }
    ours = hf_bpe.from_pretrained(path).train_new_from_iterator(_texts()[:1500], 1000, **options)
    rust = PreTrainedTokenizerFast(tokenizer_file=path).train_new_from_iterator(_texts()[:1500], 1000, **options)
    assert ours.convert_tokens_to_ids(["<|end|>", "<new>", "<lstripped>"]) == [2, 14, 15]
    _check_same(ours, rust, [*_texts()[:100], "<|end|> a <new> b <lstripped> <|im_end|>"])
