"""One entry for loading a tokenizer with hf_bpe's classes: :func:`from_pretrained` takes a directory or a
``tokenizer.json`` and returns the transformers ``PythonBackend`` tokenizer that gives its ids.

The class follows from what the directory holds: ``tokenizer_config.json`` naming one of hf_bpe's classes (what
hf_bpe writes), else the ``tokenizer.json``'s model: byte-level BPE (GPT-2, Llama-3, Qwen, DeepSeek-V3, Mistral-Nemo,
GPT-OSS) is :class:`~hf_bpe.transformers.bpe.BPETokenizer`, SentencePiece-style BPE (Gemma, Mistral-7B, Llama-2,
Yi, ...) :class:`~hf_bpe.transformers.sentencepiece_bpe.SentencePieceBPETokenizer`, Unigram
:class:`~hf_bpe.transformers.unigram.UnigramTokenizer`, WordPiece with its ``vocab.txt``
:class:`~hf_bpe.transformers.wordpiece.WordPieceTokenizer`. The special-token roles of a model's
``tokenizer_config.json`` (``bos_token``, ``eos_token``, ...) apply as transformers applies them.
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any

from hf_bpe.models.bpe.symbol_files import is_symbol_bpe
from hf_bpe.models.directory import TOKENIZER_CONFIG_FILE, TOKENIZER_FILE, read_json_object, read_tokenizer_config
from hf_bpe.pipeline.tokenizer_json import UnsupportedComponent

#: hf_bpe's classes, by the name ``tokenizer_config.json`` gives them.
CLASSES = {
    "BPETokenizer": "hf_bpe.transformers.bpe",
    "CharBPETokenizer": "hf_bpe.transformers.char_bpe",
    "SentencePieceBPETokenizer": "hf_bpe.transformers.sentencepiece_bpe",
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
        name = _class_for_json(path, directory=None)
        cls = getattr(importlib.import_module(CLASSES[name]), name)
        return cls(tokenizer_file=str(path), **kwargs)
    named = read_tokenizer_config(path).get("tokenizer_class")
    if named not in CLASSES:
        if not (path / TOKENIZER_FILE).is_file():
            raise FileNotFoundError(
                f"{path}: no {TOKENIZER_FILE} there, and no {TOKENIZER_CONFIG_FILE} naming one of hf_bpe's classes"
            )
        named = _class_for_json(path / TOKENIZER_FILE, directory=path)
    cls = getattr(importlib.import_module(CLASSES[named]), named)
    return cls.from_pretrained(str(path), **kwargs)


def _class_for_json(path: Path, directory: Path | None) -> str:
    """The name of hf_bpe's class for a ``tokenizer.json``, by its model and pipeline."""
    data = read_json_object(path)
    model = data.get("model")
    kind = model.get("type") if isinstance(model, dict) else None
    if kind == "BPE":
        return "SentencePieceBPETokenizer" if is_symbol_bpe(data) else "BPETokenizer"
    if kind == "Unigram":
        return "UnigramTokenizer"
    if kind == "WordPiece" and directory is not None and (directory / "vocab.txt").is_file():
        return "WordPieceTokenizer"
    what = {"WordPiece": "a WordPiece model without its vocab.txt beside it"}.get(str(kind), f"the model {kind!r}")
    shown = json.dumps(kind)
    raise UnsupportedComponent(
        f"{path}: model.type is {shown}: {what}, which hf_bpe does not implement; load this file with "
        "transformers' TokenizersBackend instead"
    )
