"""The pipeline's span-free path on a byte-level BPE file: ``ByteLevel``'s pieces go to the model as cut, not yet
spelled in the byte alphabet (``SymbolBPE.byte_level_ids``: a ``BytePairEncoder`` on the model's own id tables,
its cache keyed by the piece as cut). Both sides of that switch against the Rust backend loaded from the same real
file, in the same test: one instance encodes real documents one by one, then in the opposite order, then as one
batch; and the switch is seen to be taken (or not) where each side says.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from real_tokenizers import model_tokenizer_json, olmo_tokenizer_json
from transformers import PreTrainedTokenizerFast

from hf_bpe.models.bpe.encoder import BytePairEncoder
from hf_bpe.models.bpe.symbols import SymbolBPE
from hf_bpe.transformers.pipeline import PipelineTokenizer

#: Lines a document, and documents a language.
LINES, DOCUMENTS = 30, 10

#: GPT-2's ByteLevel alone; Llama-3's, Qwen's, Mistral-Nemo's and GPT-OSS's Split steps before ByteLevel (ignore_merges
#: in Llama-3's); Command-R's Digits first; OLMo-2's inverted Removed split.
FILES = {
    **{
        name: (lambda name=name: model_tokenizer_json(name))
        for name in ("gpt2", "llama3", "qwen3", "mistral_nemo", "gptoss", "command_r_plus")
    },
    "allenai_dolma2": lambda: olmo_tokenizer_json("allenai_dolma2"),
}


@pytest.fixture(scope="module")
def documents(debian_corpora: dict[str, Path], stdlib_files: list[Path]) -> list[str]:
    """Real documents, the languages interleaved (a document's pre-tokens often met before in another's)."""
    by_source = []
    for path in [*debian_corpora.values(), stdlib_files[0]]:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        by_source.append(["".join(lines[at : at + LINES]) for at in range(0, LINES * DOCUMENTS, LINES)])
    return [document for group in zip(*by_source, strict=True) for document in group]


@pytest.mark.parametrize("fused", [True, False], ids=["unspelled-pieces", "spelled-pieces"])
@pytest.mark.parametrize("name", sorted(FILES))
def test_both_sides_give_the_rust_backends_ids_in_any_order(name, fused, documents, tmp_path, monkeypatch):
    shutil.copy(FILES[name](), tmp_path / "tokenizer.json")
    path = str(tmp_path / "tokenizer.json")
    rust = PreTrainedTokenizerFast(tokenizer_file=path)
    expected = rust(documents, add_special_tokens=False)["input_ids"]
    if not fused:
        monkeypatch.setattr(SymbolBPE, "byte_level_ids", lambda self: None)
    ours = PipelineTokenizer(tokenizer_file=path)
    ids_of = ours.pipeline._str_path[2]
    assert isinstance(getattr(ids_of, "__self__", None), BytePairEncoder) is fused
    for index, document in enumerate(documents):
        assert ours(document, add_special_tokens=False)["input_ids"] == expected[index], (name, "forward", index)
    for index in reversed(range(len(documents))):
        assert ours(documents[index], add_special_tokens=False)["input_ids"] == expected[index], (name, index)
    assert ours(documents[::-1], add_special_tokens=False)["input_ids"] == expected[::-1], (name, "batch")


def test_a_file_missing_a_byte_keeps_the_spelled_path(tmp_path):
    """A byte-level vocabulary without one byte's character is not plain: its pieces are spelled and merged by the
    model itself, which gives the unknown token where it has one, as the Rust model does."""
    vocab = {"<unk>": 0, **{char: index + 1 for index, char in enumerate("abcĠ")}, "ab": 5}
    document = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": "<unk>",
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": [["a", "b"]],
        },
    }
    import json

    (tmp_path / "tokenizer.json").write_text(json.dumps(document), encoding="utf-8")
    path = str(tmp_path / "tokenizer.json")
    rust = PreTrainedTokenizerFast(tokenizer_file=path)
    ours = PipelineTokenizer(tokenizer_file=path)
    assert ours.pipeline.model.byte_level_ids() is None
    for text in ["ab c", "abd", "xab"]:
        assert ours(text)["input_ids"] == rust(text)["input_ids"], text
    assert rust("abd")["input_ids"] == [5, 0]
