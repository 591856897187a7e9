"""``train_new_from_iterator`` on the classes over a ``tokenizer.json`` or ``vocab.txt`` (issue #38): WordPiece,
Unigram and SentencePiece-style BPE, each judged by the Rust backend's ``train_new_from_iterator`` loaded from the
same file and trained on the same texts (English lines, where the trainers' ties are rare).

Two references are not exact run to run, and are compared within their own spread: ``tokenizers``' WordPieceTrainer
numbers the ``##`` symbols (and merges tied with them) in hash order, and its UnigramTrainer sums scores in a
parallel order (the last bits of a score differ between two runs of the reference itself).
"""

from __future__ import annotations

import functools
import shutil
from pathlib import Path
from typing import Any

import pytest
from real_tokenizers import bert_base_uncased_vocab
from transformers import BertTokenizer

from hf_bpe.transformers.wordpiece import WordPieceTokenizer

ENGLISH = Path(__file__).resolve().parents[2] / "cache" / "corpora" / "english.txt"


@functools.cache
def _lines() -> list[str]:
    """English lines (Python's documentation), with their endings."""
    return ENGLISH.read_text(encoding="utf-8").splitlines(keepends=True)


def _added(tokenizer: Any) -> dict[int, tuple[Any, ...]]:
    """Each added token's id, text and flags."""
    return {
        token_id: (token.content, token.single_word, token.lstrip, token.rstrip, token.normalized, token.special)
        for token_id, token in tokenizer.added_tokens_decoder.items()
    }


@functools.cache
def _wordpiece() -> tuple[Any, Any, Any]:
    """hf_bpe's WordPieceTokenizer and the Rust BertTokenizer (twice) trained from bert-base-uncased's vocab.txt."""
    vocab = str(bert_base_uncased_vocab())
    ours = WordPieceTokenizer(vocab_file=vocab).train_new_from_iterator(_lines()[:3000], 800, show_progress=False)
    rust = [
        BertTokenizer(vocab=vocab).train_new_from_iterator(_lines()[:3000], 800, show_progress=False) for _ in range(2)
    ]
    return ours, rust[0], rust[1]


def test_wordpiece_tokenizer_trains_as_bert_tokenizer():
    """The same tokens (the special ones at the same ids), added tokens, ``tokenize()`` and tokens of the ids; the
    ids of ``##`` symbols differ between two runs of the reference itself, so they are compared by their tokens."""
    ours, rust, again = _wordpiece()
    assert set(rust.get_vocab()) == set(again.get_vocab())
    assert rust.get_vocab() != again.get_vocab()  # the reference's own spread: ## ids in hash order
    assert set(ours.get_vocab()) == set(rust.get_vocab())
    assert len(ours) == len(rust) == 800
    assert _added(ours) == _added(rust) == {i: (t, False, False, False, False, True) for i, t in enumerate(SPECIALS)}
    samples = _lines()[:200]
    assert [ours.tokenize(text) for text in samples] == [rust.tokenize(text) for text in samples]
    ours_tokens = [ours.convert_ids_to_tokens(ours(text)["input_ids"]) for text in samples]
    assert ours_tokens == [rust.convert_ids_to_tokens(rust(text)["input_ids"]) for text in samples]
    assert ours_tokens[0][0] == "[CLS]"


SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def test_unimplemented_trainer_option_is_refused_by_name(tmp_path):
    """A trainer option hf_bpe does not implement is named, not ignored."""
    shutil.copy(bert_base_uncased_vocab(), tmp_path / "vocab.txt")
    tokenizer = WordPieceTokenizer(vocab_file=str(tmp_path / "vocab.txt"))
    with pytest.raises(ValueError, match="initial_alphabet not implemented for a WordPiece model"):
        tokenizer.train_new_from_iterator(["a b"], 10, initial_alphabet=["x"])
