"""hf_bpe: byte-level BPE training identical to HuggingFace ``tokenizers``, and a Python-backend GPT-2 tokenizer.

The package's pieces, in the order data flows through them: :mod:`hf_bpe.byte_level` (byte alphabet, split
pattern), :mod:`hf_bpe.counting` (text to pre-token counts), :mod:`hf_bpe.trainer` (counts to merges),
:mod:`hf_bpe.files` (vocab.json / merges.txt), :mod:`hf_bpe.tokenizer` (the transformers class).
"""

from __future__ import annotations

import os as _os

# transformers advises on first import that PyTorch is missing; hf_bpe needs no models, so the advice would only
# be noise on every `hf-bpe` run. Silence that one import (the user's setting, if any, is left as it was).
_advisory = _os.environ.get("TRANSFORMERS_NO_ADVISORY_WARNINGS")
_os.environ["TRANSFORMERS_NO_ADVISORY_WARNINGS"] = "1"
import transformers  # noqa: F401

if _advisory is None:
    del _os.environ["TRANSFORMERS_NO_ADVISORY_WARNINGS"]

from hf_bpe import _auto
from hf_bpe.byte_level import GPT2_SPLIT_PATTERN, SplitPattern, bytes_to_unicode
from hf_bpe.char_tokenizer import CharBPETokenizer
from hf_bpe.files import CharLevel, Merges, Vocab, read_merges, read_vocab, write_merges, write_vocab
from hf_bpe.tokenizer import BPETokenizer
from hf_bpe.trainer import TrainResult
from hf_bpe.training import train_from_counts, train_from_dataset, train_from_files, train_from_iterator

_auto.register()

__version__ = "0.1.0"

__all__ = [
    "GPT2_SPLIT_PATTERN",
    "BPETokenizer",
    "CharBPETokenizer",
    "CharLevel",
    "Merges",
    "SplitPattern",
    "TrainResult",
    "Vocab",
    "__version__",
    "bytes_to_unicode",
    "read_merges",
    "read_vocab",
    "train_from_counts",
    "train_from_dataset",
    "train_from_files",
    "train_from_iterator",
    "write_merges",
    "write_vocab",
]
