"""hf_bpe's transformers classes in one table: the name ``tokenizer_config.json``'s ``tokenizer_class`` gives each,
and the module that defines it.

Everything that lists the classes derives from :data:`CLASSES`: :func:`hf_bpe.transformers.auto.register` (each
class with its config class, named ``<class>Config`` beside it), :func:`hf_bpe.transformers.loading.from_pretrained`
and ``hf_bpe``'s lazy attributes. This module imports nothing, so ``import hf_bpe`` reads it without transformers.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Each class's name and its module. The names are :data:`hf_bpe.tokenizer.directory.KINDS`' keys.
CLASSES = {
    "BPETokenizer": "hf_bpe.transformers.bpe",
    "CharBPETokenizer": "hf_bpe.transformers.char_bpe",
    "PipelineTokenizer": "hf_bpe.transformers.pipeline",
    "SentencePieceBPETokenizer": "hf_bpe.transformers.pipeline",
    "UnigramTokenizer": "hf_bpe.transformers.unigram",
    "WordPieceTokenizer": "hf_bpe.transformers.wordpiece",
}

#: The suffix of the stand-in model config class defined beside each tokenizer class (``BPETokenizerConfig``).
CONFIG_SUFFIX = "Config"


def tokenizer_class(name: str) -> Any:
    """The class :data:`CLASSES` names ``name`` (importing its module, and transformers with it).

    Raises:
        KeyError: if ``name`` is not one of hf_bpe's classes.
    """
    return getattr(importlib.import_module(CLASSES[name]), name)


def config_class(name: str) -> Any:
    """The stand-in config class of the class ``name`` (see :mod:`hf_bpe.transformers.auto`)."""
    return getattr(importlib.import_module(CLASSES[name]), name + CONFIG_SUFFIX)
