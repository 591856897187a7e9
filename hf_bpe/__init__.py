"""hf_bpe: byte-level BPE training identical to HuggingFace ``tokenizers``, and a Python-backend GPT-2 tokenizer.

The package's pieces, in the order data flows through them: :mod:`hf_bpe.pretokenizer` (normalizer, split
patterns and presets, prefix space), :mod:`hf_bpe.byte_level` (byte alphabet),
:mod:`hf_bpe.counting` (text to pre-token counts), :mod:`hf_bpe.trainer` (counts to merges),
:mod:`hf_bpe.files` (vocab.json / merges.txt), :mod:`hf_bpe.tokenizer` (the transformers class). Unigram
training and encoding live in :mod:`hf_bpe.models.unigram`, its transformers class in
:mod:`hf_bpe.unigram_tokenizer`.

Importing ``hf_bpe`` does not import transformers (training never needs it): ``BPETokenizer``,
``CharBPETokenizer``, ``WordPieceTokenizer`` and ``UnigramTokenizer`` are imported on first access, and
:mod:`hf_bpe._auto` registers them with ``AutoTokenizer`` as soon as transformers loads it, before or after
``hf_bpe``. WordPiece (BERT's tokenizer) and Unigram live in :mod:`hf_bpe.models`.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

from hf_bpe import _auto
from hf_bpe.byte_level import bytes_to_unicode
from hf_bpe.files import CharLevel, Merges, Vocab, read_merges, read_vocab, write_merges, write_vocab
from hf_bpe.models.wordpiece.recipe import BertRecipe
from hf_bpe.models.wordpiece.trainer import WordPieceResult, train_wordpiece
from hf_bpe.models.wordpiece.training import (
    train_wordpiece_from_dataset,
    train_wordpiece_from_files,
    train_wordpiece_from_iterator,
)
from hf_bpe.pretokenizer import GPT2_SPLIT_PATTERN, PRESETS, PreTokenizer, SplitPattern
from hf_bpe.trainer import TrainResult
from hf_bpe.training import train_from_counts, train_from_dataset, train_from_files, train_from_iterator

if _typing.TYPE_CHECKING:
    from hf_bpe.char_tokenizer import CharBPETokenizer
    from hf_bpe.tokenizer import BPETokenizer
    from hf_bpe.unigram_tokenizer import UnigramTokenizer
    from hf_bpe.wordpiece_tokenizer import WordPieceTokenizer

# The tokenizer classes are transformers classes, and importing transformers takes seconds that training never
# needs: they are imported on first use (PEP 562), and registered with AutoTokenizer when transformers loads it.
_LAZY_CLASSES = {
    "BPETokenizer": "hf_bpe.tokenizer",
    "CharBPETokenizer": "hf_bpe.char_tokenizer",
    "UnigramTokenizer": "hf_bpe.unigram_tokenizer",
    "WordPieceTokenizer": "hf_bpe.wordpiece_tokenizer",
}

_auto.register_when_transformers_is_loaded()


def __getattr__(name: str) -> _typing.Any:
    """``BPETokenizer`` and ``CharBPETokenizer``, imported (with transformers) on first access."""
    if name not in _LAZY_CLASSES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(_LAZY_CLASSES[name]), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY_CLASSES})


__version__ = "0.1.0"

__all__ = [
    "GPT2_SPLIT_PATTERN",
    "PRESETS",
    "BPETokenizer",
    "BertRecipe",
    "CharBPETokenizer",
    "CharLevel",
    "Merges",
    "PreTokenizer",
    "SplitPattern",
    "TrainResult",
    "UnigramTokenizer",
    "Vocab",
    "WordPieceResult",
    "WordPieceTokenizer",
    "__version__",
    "bytes_to_unicode",
    "read_merges",
    "read_vocab",
    "train_from_counts",
    "train_from_dataset",
    "train_from_files",
    "train_from_iterator",
    "train_wordpiece",
    "train_wordpiece_from_dataset",
    "train_wordpiece_from_files",
    "train_wordpiece_from_iterator",
    "write_merges",
    "write_vocab",
]
