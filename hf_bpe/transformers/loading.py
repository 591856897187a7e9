"""One entry for loading a tokenizer with hf_bpe's classes: :func:`from_pretrained` takes a directory or a
``tokenizer.json`` and returns the transformers ``PythonBackend`` tokenizer that gives its ids.

The class follows from what the directory holds: ``tokenizer_config.json`` naming one of hf_bpe's classes (what
hf_bpe writes), else the ``tokenizer.json``'s model and pipeline: byte-level BPE (GPT-2, Llama-3, Qwen, DeepSeek-V3,
Mistral-Nemo, GPT-OSS) is :class:`~hf_bpe.transformers.bpe.BPETokenizer` (its fast path) where it reads the file, and
any file (Gemma, Mistral-7B, BERT, T5, ...) :class:`~hf_bpe.transformers.pipeline.PipelineTokenizer`, which runs the
file's own pipeline. The special-token roles of a model's
``tokenizer_config.json`` (``bos_token``, ``eos_token``, ...) apply as transformers applies them.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hf_bpe.models.directory import TOKENIZER_CONFIG_FILE, TOKENIZER_FILE, read_json_object, read_tokenizer_config
from hf_bpe.models.pipeline_files import is_byte_level
from hf_bpe.pipeline.tokenizer_json import with_model_type

#: hf_bpe's classes, by the name ``tokenizer_config.json`` gives them.
CLASSES = {
    "BPETokenizer": "hf_bpe.transformers.bpe",
    "CharBPETokenizer": "hf_bpe.transformers.char_bpe",
    "PipelineTokenizer": "hf_bpe.transformers.pipeline",
    "SentencePieceBPETokenizer": "hf_bpe.transformers.pipeline",
    "UnigramTokenizer": "hf_bpe.transformers.unigram",
    "WordPieceTokenizer": "hf_bpe.transformers.wordpiece",
}


def from_pretrained(path: str | os.PathLike[str], **kwargs: Any) -> Any:
    """The transformers tokenizer (``PythonBackend``) of hf_bpe's for a directory or a ``tokenizer.json`` file.

    Args:
        path: a tokenizer directory, or a ``tokenizer.json`` (of any name).
        kwargs: passed to the class's ``from_pretrained`` (special-token roles, ``model_max_length``, ...).

    Raises:
        FileNotFoundError: naming ``path`` where it does not exist or holds no tokenizer.
        ValueError: naming the file and the JSON path of what hf_bpe does not implement.

    >>> import hf_bpe, tempfile
    >>> directory = tempfile.mkdtemp()
    >>> _ = hf_bpe.train_from_iterator(["hug pug hug"], vocab_size=260).save(directory)
    >>> tok = hf_bpe.from_pretrained(directory)
    >>> type(tok).__name__, tok("hug pug")["input_ids"]
    ('BPETokenizer', [257, 220, 258])
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or directory")
    if path.is_file():
        return _first_that_reads(_classes_for_json(path), lambda cls: cls(tokenizer_file=str(path), **kwargs))
    named = read_tokenizer_config(path).get("tokenizer_class")
    if named in CLASSES:
        return _class(named).from_pretrained(str(path), **kwargs)
    if "model_input_names" not in kwargs and isinstance(named, str):
        # A directory transformers saved names its own class (BertTokenizer): its rows carry that class's inputs.
        with contextlib.suppress(AttributeError, ImportError, TypeError):
            kwargs["model_input_names"] = list(
                getattr(importlib.import_module("transformers"), named).model_input_names
            )
    if not (path / TOKENIZER_FILE).is_file():
        raise FileNotFoundError(
            f"{path}: no {TOKENIZER_FILE} there, and no {TOKENIZER_CONFIG_FILE} naming one of hf_bpe's classes"
        )
    classes = _classes_for_json(path / TOKENIZER_FILE)
    return _first_that_reads(classes, lambda cls: cls.from_pretrained(str(path), **kwargs))


def _class(name: str) -> Any:
    return getattr(importlib.import_module(CLASSES[name]), name)


def _first_that_reads(names: list[str], load: Callable[[Any], Any]) -> Any:
    """The tokenizer of the first class in ``names`` that implements all the file holds; else the last one's
    refusal (:class:`PipelineTokenizer`'s, which names the first component hf_bpe lacks)."""
    for name in names[:-1]:
        with contextlib.suppress(ValueError):  # UnsupportedComponent, or a reader's own refusal
            return load(_class(name))
    return load(_class(names[-1]))


def _classes_for_json(path: Path) -> list[str]:
    """hf_bpe's classes that may read a ``tokenizer.json``, the fastest first."""
    data = with_model_type(read_json_object(path))
    model = data.get("model")
    kind = model.get("type") if isinstance(model, dict) else None
    if kind == "BPE" and is_byte_level(data):
        return ["BPETokenizer", "PipelineTokenizer"]
    if kind == "Unigram":
        return ["UnigramTokenizer", "PipelineTokenizer"]
    return ["PipelineTokenizer"]
