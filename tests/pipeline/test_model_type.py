"""A ``tokenizer.json`` whose model section has no ``"type"`` (written before ``tokenizers`` tagged its models, as
LaTeX-OCR's is): ``tokenizers`` reads it as the first model whose fields it holds, and so must hf_bpe. The judge is
``tokenizers.Tokenizer.from_str`` on the same file."""

from __future__ import annotations

import json

import pytest
from conftest import multilingual_text
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

import hf_bpe

TEXTS = [multilingual_text(200, seed=1), "hello world", "straße naïve 日本語 привет", ""]


def _byte_level_bpe() -> Tokenizer:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator(TEXTS[:1], trainers.BpeTrainer(vocab_size=400, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))  # fmt: skip
    return tokenizer


def _whitespace_bpe() -> Tokenizer:
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator(TEXTS[:1], trainers.BpeTrainer(vocab_size=300, special_tokens=["[UNK]"],
                                  show_progress=False))  # fmt: skip
    return tokenizer


def _wordpiece() -> Tokenizer:
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer()
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.train_from_iterator(TEXTS[:1], trainers.WordPieceTrainer(vocab_size=300, special_tokens=["[UNK]"],
                                  show_progress=False))  # fmt: skip
    return tokenizer


def _unigram() -> Tokenizer:
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.train_from_iterator(TEXTS[:1], trainers.UnigramTrainer(vocab_size=200, special_tokens=["<unk>"],
                                  unk_token="<unk>", show_progress=False))  # fmt: skip
    return tokenizer


def _word_level() -> Tokenizer:
    """A vocabulary and an unk token, no merges: a part of a WordPiece section's fields, read as WordLevel."""
    tokenizer = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.train_from_iterator(TEXTS[:1], trainers.WordLevelTrainer(vocab_size=150, special_tokens=["[UNK]"],
                                  show_progress=False))  # fmt: skip
    return tokenizer


def _without_type(tokenizer: Tokenizer, directory) -> str:
    data = json.loads(tokenizer.to_str())
    del data["model"]["type"]
    directory.mkdir()
    text = json.dumps(data, ensure_ascii=False)
    (directory / "tokenizer.json").write_text(text, encoding="utf-8")
    return text


@pytest.mark.parametrize(
    ("build", "kind"),
    [
        pytest.param(_byte_level_bpe, "BPE", id="byte-level-bpe"),
        pytest.param(_whitespace_bpe, "BPE", id="whitespace-bpe"),
        pytest.param(_wordpiece, "WordPiece", id="wordpiece"),
        pytest.param(_unigram, "Unigram", id="unigram"),
        pytest.param(_word_level, "WordLevel", id="word-level"),
    ],
)
def test_a_model_without_type_loads_as_tokenizers_reads_it(build, kind, tmp_path):
    text = _without_type(build(), tmp_path / "tok")
    reference = Tokenizer.from_str(text)
    assert type(reference.model).__name__ == kind
    ours = hf_bpe.from_pretrained(str(tmp_path / "tok"))
    for sample in TEXTS:
        assert ours(sample, add_special_tokens=False)["input_ids"] == reference.encode(sample).ids, sample[:40]
