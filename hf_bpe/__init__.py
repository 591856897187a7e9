"""hf_bpe: byte-level BPE training identical to HuggingFace ``tokenizers``, and a Python-backend GPT-2 tokenizer.

The package's pieces, in the order data flows through them: :mod:`hf_bpe.pipeline.pre_tokenizers` (normalizer, split
patterns and presets, prefix space), :mod:`hf_bpe.pipeline.byte_level` (byte alphabet),
:mod:`hf_bpe.counting.counting` (text to pre-token counts), :mod:`hf_bpe.models.bpe.trainer` (counts to merges),
:mod:`hf_bpe.models.bpe.files` (vocab.json / merges.txt), :mod:`hf_bpe.transformers.bpe` (the transformers class).
Unigram training and encoding live in :mod:`hf_bpe.models.unigram`, its transformers class in
:mod:`hf_bpe.transformers.unigram`.

Importing ``hf_bpe`` does not import transformers (training never needs it): ``BPETokenizer``,
``CharBPETokenizer``, ``WordPieceTokenizer`` and ``UnigramTokenizer`` are imported on first access, and
:mod:`hf_bpe.transformers.auto` registers them with ``AutoTokenizer`` as soon as transformers loads it, before or after
``hf_bpe``. WordPiece (BERT's tokenizer) and Unigram live in :mod:`hf_bpe.models`.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

from hf_bpe import _moved
from hf_bpe.models.bpe.files import read_merges, read_vocab, write_merges, write_vocab
from hf_bpe.models.bpe.options import CharLevel, Merges, Vocab
from hf_bpe.models.bpe.trainer import TrainResult
from hf_bpe.models.bpe.training import train_from_counts, train_from_dataset, train_from_files, train_from_iterator
from hf_bpe.models.wordpiece.result import WordPieceResult
from hf_bpe.models.wordpiece.trainer import train_wordpiece
from hf_bpe.models.wordpiece.training import (
    train_wordpiece_from_dataset,
    train_wordpiece_from_files,
    train_wordpiece_from_iterator,
)
from hf_bpe.pipeline.bert import BertRecipe
from hf_bpe.pipeline.byte_level import bytes_to_unicode
from hf_bpe.pipeline.pre_tokenizers import GPT2_SPLIT_PATTERN, PRESETS, PreTokenizer, SplitPattern
from hf_bpe.transformers import auto as _auto

if _typing.TYPE_CHECKING:
    from hf_bpe.transformers.bpe import BPETokenizer
    from hf_bpe.transformers.char_bpe import CharBPETokenizer
    from hf_bpe.transformers.unigram import UnigramTokenizer
    from hf_bpe.transformers.wordpiece import WordPieceTokenizer

# The tokenizer classes are transformers classes, and importing transformers takes seconds that training never
# needs: they are imported on first use (PEP 562), and registered with AutoTokenizer when transformers loads it.
_LAZY_CLASSES = {
    "BPETokenizer": "hf_bpe.transformers.bpe",
    "CharBPETokenizer": "hf_bpe.transformers.char_bpe",
    "UnigramTokenizer": "hf_bpe.transformers.unigram",
    "WordPieceTokenizer": "hf_bpe.transformers.wordpiece",
}

_moved.install()
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
