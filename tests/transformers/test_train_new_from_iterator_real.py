"""``train_new_from_iterator`` on real models' tokenizers (Qwen3's, Llama-3.1's, DeepSeek-V3's ``tokenizer.json``),
judged by the Rust backend's ``TokenizersBackend.train_new_from_iterator`` on the same file and texts: the same
vocabulary (special added tokens first, counted in ``vocab_size``), merges, added tokens with their flags, ``len``
and ids; saved, the same files (``tokenizer.json`` equal as parsed JSON: the file's normalizer, pre-tokenizer,
decoder and model flags kept, the post-processor's ids renumbered) that load back, with hf_bpe's class and with the
Rust backend, to the same ids."""

from __future__ import annotations

import functools
import json
from pathlib import Path
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


SAMPLES = ["<|im_start|>user\nhi<|im_end|><think>", "<|begin_of_text|>hello world", "<｜begin▁of▁sentence｜>x"]


@functools.cache
def _trained(name: str) -> tuple[Any, Any]:
    """hf_bpe's and the Rust backend's tokenizers trained from ``name``'s file on the same texts at 1,500 tokens."""
    path = str(model_tokenizer_json(name))
    ours = hf_bpe.from_pretrained(path).train_new_from_iterator(_texts(), 1500, show_progress=False)
    rust = PreTrainedTokenizerFast(tokenizer_file=path).train_new_from_iterator(_texts(), 1500, show_progress=False)
    return ours, rust


@pytest.mark.parametrize("name", ["qwen3", "llama3_1"])
def test_trains_the_rust_backends_vocabulary(name):
    """Qwen3 (26 added tokens, 12 of them not special: the Rust backend drops those) and Llama-3.1 (256 special
    tokens, ignore_merges, a BOS template nested in a Sequence that keeps its old id) at 1,500 tokens."""
    ours, rust = _trained(name)
    assert len(rust) == 1500
    _check_same(ours, rust, [*_texts()[:300], *SAMPLES])


#: tokenizer_config.json keys both write whose values differ by design: each names the class that wrote the
#: directory (transformers' "BPETokenizer" / "custom" for hf_bpe's Python-backend class, "TokenizersBackend" /
#: "tokenizers" for the Rust one). hf_bpe also writes its class's own arguments (errors, pre_tokenizer,
#: add_prefix_space, ignore_merges, clean_up_tokenization_spaces) and added_tokens_decoder, which TokenizersBackend
#: leaves to tokenizer.json; the Rust backend writes no key hf_bpe does not.
CLASS_KEYS = ("tokenizer_class", "backend")


@pytest.mark.parametrize("name", ["qwen3", "llama3_1", "deepseek_v3"])
def test_saves_what_the_rust_backend_saves(name, tmp_path):
    """Qwen3 (ByteLevel flags all False, continuing_subword_prefix ""), Llama-3.1 (a Sequence post-processor) and
    DeepSeek-V3 (an empty normalizer Sequence): the trained tokenizers save the same files and tokenizer.json."""
    ours, rust = _trained(name)
    ours.save_pretrained(str(tmp_path / "ours"))
    rust.save_pretrained(str(tmp_path / "rust"))

    def read(side: str, file: str) -> Any:
        return json.loads((tmp_path / side / file).read_text(encoding="utf-8"))

    names = {side: sorted(path.name for path in (tmp_path / side).iterdir()) for side in ("ours", "rust")}
    assert names["ours"] == names["rust"]
    assert read("ours", "tokenizer.json") == read("rust", "tokenizer.json")
    ours_config, rust_config = read("ours", "tokenizer_config.json"), read("rust", "tokenizer_config.json")
    assert set(rust_config) <= set(ours_config)
    shared = set(rust_config) - set(CLASS_KEYS)
    assert {key: ours_config[key] for key in shared} == {key: rust_config[key] for key in shared}
    _check_reloads(tmp_path / "ours", rust, [*_texts()[:100], *SAMPLES])


def _check_reloads(directory: Path, rust: Any, samples: list[str]) -> None:
    """The saved ``directory`` loads with hf_bpe's class and with the Rust backend to ``rust``'s ids."""
    expected = [rust(text)["input_ids"] for text in samples]
    mine = hf_bpe.from_pretrained(str(directory))
    assert type(mine).__name__ == "BPETokenizer"
    assert [mine(text)["input_ids"] for text in samples] == expected
    theirs = PreTrainedTokenizerFast.from_pretrained(str(directory))
    assert [theirs(text)["input_ids"] for text in samples] == expected


def test_renames_and_new_special_tokens_on_qwen3(tmp_path):
    """A renamed special token and new ones (a string and an AddedToken) go to the trainer after the file's; saved,
    they are the Rust backend's added tokens."""
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
    samples = [*_texts()[:100], "<|end|> a <new> b <lstripped> <|im_end|>"]
    _check_same(ours, rust, samples)
    ours.save_pretrained(str(tmp_path / "ours"))
    rust.save_pretrained(str(tmp_path / "rust"))
    saved = [json.loads((tmp_path / side / "tokenizer.json").read_text(encoding="utf-8")) for side in ("ours", "rust")]
    assert saved[0] == saved[1]
    _check_reloads(tmp_path / "ours", rust, samples)
