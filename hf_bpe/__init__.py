"""hf_bpe: BPE, WordPiece and Unigram training identical to HuggingFace ``tokenizers``, in readable Python, and
transformers v5 tokenizer classes (``PythonBackend``) that load the result.

The packages, in the order data flows through them (``pyproject.toml``'s import-linter contracts keep it so):

* :mod:`hf_bpe.pipeline`: ``tokenizers``' stages before the model: normalizers, pre-tokenizers and their
  presets, BERT's and SentencePiece's recipes, the byte-level alphabet, the references' Unicode classes.
* :mod:`hf_bpe.counting`: text sources to pre-token counts: files, iterators, ``datasets`` columns, local
  processes, counts directories, datatrove (local, Slurm, Ray).
* :mod:`hf_bpe.models`: one package per model (``bpe``, ``wordpiece``, ``unigram``): its trainer, its result,
  its encoder and its files.
* :mod:`hf_bpe.tokenizer`: the assembled :class:`Tokenizer` (``tokenizers.Tokenizer``'s twin: ``from_file``,
  ``encode``, ``decode``, truncation, padding) giving :class:`Encoding` rows, without transformers.
* :mod:`hf_bpe.transformers`: the transformers classes and their registration with ``AutoTokenizer``;
  :mod:`hf_bpe.reference`: off the data path (GPT-2, cl100k and o200k files, tiktoken converters, parity checks);
  :mod:`hf_bpe.report`: what a tokenizer buys on a sample; :mod:`hf_bpe.cli`: the ``hf-bpe`` command.

Importing ``hf_bpe`` does not import transformers (training never needs it): ``BPETokenizer``,
``CharBPETokenizer``, ``WordPieceTokenizer`` and ``UnigramTokenizer`` are imported on first access, and
:mod:`hf_bpe.transformers.auto` registers them with ``AutoTokenizer`` as soon as transformers loads it, before or
after ``hf_bpe``.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

from hf_bpe.models.bpe.files import read_merges, read_vocab, write_merges, write_vocab
from hf_bpe.models.bpe.options import BpeOptions, CharLevel, Merges, Vocab
from hf_bpe.models.bpe.parity import train_parity_aware
from hf_bpe.models.bpe.trainer import TrainResult
from hf_bpe.models.bpe.training import train_from_counts, train_from_dataset, train_from_files, train_from_iterator
from hf_bpe.models.unigram.options import UnigramOptions
from hf_bpe.models.wordpiece.options import WordPieceOptions
from hf_bpe.models.wordpiece.result import WordPieceResult
from hf_bpe.models.wordpiece.trainer import train_wordpiece
from hf_bpe.models.wordpiece.training import (
    train_wordpiece_from_dataset,
    train_wordpiece_from_files,
    train_wordpiece_from_iterator,
)
from hf_bpe.pipeline.bert import BertRecipe
from hf_bpe.pipeline.byte_level import bytes_to_unicode
from hf_bpe.pipeline.encoding import Encoding
from hf_bpe.pipeline.pre_tokenizers import GPT2_SPLIT_PATTERN, PRESETS, PreTokenizer, SplitPattern
from hf_bpe.tokenizer.tokenizer import Tokenizer
from hf_bpe.tokenizer.trim import TrimResult, trim
from hf_bpe.transformers import auto as _auto
from hf_bpe.transformers.classes import CLASSES as _CLASSES

if _typing.TYPE_CHECKING:
    # For type checkers only (re-exported by name: ``__all__`` takes them from the table at run time).
    from hf_bpe.transformers.bpe import BPETokenizer as BPETokenizer
    from hf_bpe.transformers.char_bpe import CharBPETokenizer as CharBPETokenizer
    from hf_bpe.transformers.loading import from_pretrained as from_pretrained
    from hf_bpe.transformers.pipeline import PipelineTokenizer as PipelineTokenizer
    from hf_bpe.transformers.pipeline import SentencePieceBPETokenizer as SentencePieceBPETokenizer
    from hf_bpe.transformers.unigram import UnigramTokenizer as UnigramTokenizer
    from hf_bpe.transformers.wordpiece import WordPieceTokenizer as WordPieceTokenizer

# The tokenizer classes are transformers classes, and importing transformers takes seconds that training never
# needs: they are imported on first use (PEP 562), and registered with AutoTokenizer when transformers loads it.
_LAZY = {**_CLASSES, "from_pretrained": "hf_bpe.transformers.loading"}

_auto.register_when_transformers_is_loaded()


def __getattr__(name: str) -> _typing.Any:
    """The tokenizer classes and ``from_pretrained``, imported (with transformers) on first access."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(_LAZY[name]), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__version__ = "0.1.0"

__all__ = [
    "GPT2_SPLIT_PATTERN",
    "PRESETS",
    "BertRecipe",
    "BpeOptions",
    "CharLevel",
    "Encoding",
    "Merges",
    "PreTokenizer",
    "SplitPattern",
    "Tokenizer",
    "TrainResult",
    "TrimResult",
    "UnigramOptions",
    "Vocab",
    "WordPieceOptions",
    "WordPieceResult",
    "__version__",
    "bytes_to_unicode",
    "read_merges",
    "read_vocab",
    "train_from_counts",
    "train_from_dataset",
    "train_from_files",
    "train_from_iterator",
    "train_parity_aware",
    "train_wordpiece",
    "train_wordpiece_from_dataset",
    "train_wordpiece_from_files",
    "train_wordpiece_from_iterator",
    "trim",
    "write_merges",
    "write_vocab",
    *_LAZY,
]
