"""One entry for loading a tokenizer with hf_bpe's classes: :func:`from_pretrained` takes a directory or a
``tokenizer.json`` and returns the transformers ``PythonBackend`` tokenizer that gives its ids.

The class is the one :func:`hf_bpe.tokenizer.directory.tokenizer_kind` decides from what the directory holds:
``tokenizer_config.json`` naming one of hf_bpe's classes (what hf_bpe writes), else the ``tokenizer.json``'s model
and pipeline (byte-level BPE that :class:`~hf_bpe.transformers.bpe.BPETokenizer`'s fast path reads: GPT-2, Llama-3,
Qwen, DeepSeek-V3, Mistral-Nemo, GPT-OSS; any other file, Gemma, Mistral-7B, BERT, T5, ...:
:class:`~hf_bpe.transformers.pipeline.PipelineTokenizer`, which runs the file's own pipeline and names what hf_bpe
does not implement), else the model files alone (a SentencePiece ``tokenizer.model``: the ``tokenizer.json`` document
transformers converts it into, :func:`~hf_bpe.models.sentencepiece.convert.sentencepiece_directory`, run by
:class:`~hf_bpe.transformers.pipeline.PipelineTokenizer`). The special-token roles of a model's
``tokenizer_config.json`` (``bos_token``, ``eos_token``, ...) apply as transformers applies them.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from hf_bpe.models.directory import TOKENIZER_CONFIG_FILE, TOKENIZER_FILE, read_tokenizer_config
from hf_bpe.models.sentencepiece.convert import SENTENCEPIECE_FILE, sentencepiece_directory
from hf_bpe.tokenizer.directory import BARE_FILES, TokenizerKind, tokenizer_kind
from hf_bpe.tokenizer.serialization import collector_paused, parsing_once, read_json
from hf_bpe.transformers.classes import CLASSES, tokenizer_class
from hf_bpe.transformers.rows import added_tokens_decoder


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
    # The tokenizer.json that decides the class is the one the class reads: parsed once for both. The parse is
    # dropped before the collector is back on (its first pass would walk every list of it).
    with collector_paused(), parsing_once():
        found = tokenizer_kind(path)
        if found is None:
            bare = " or ".join(" + ".join(files) for files, _ in BARE_FILES)
            raise FileNotFoundError(
                f"{path}: no {TOKENIZER_FILE} there, no {TOKENIZER_CONFIG_FILE} naming one of hf_bpe's classes, and "
                f"no {bare}"
            )
        return load(found, **kwargs)


def load(found: TokenizerKind, **kwargs: Any) -> Any:
    """The tokenizer of the class ``found`` names, loaded from its directory or file (the directory read once, by
    :func:`~hf_bpe.tokenizer.directory.tokenizer_kind`, for :func:`from_pretrained` and the command line alike).

    Args:
        found: what the directory or file holds.
        kwargs: passed to the class's ``from_pretrained``.
    """
    # The collector paused and each file read once, as from_pretrained has them (the command line's loads).
    with collector_paused(), parsing_once():
        return _load(found, **kwargs)


def _load(found: TokenizerKind, **kwargs: Any) -> Any:
    """:func:`load`, within its scope."""
    cls = tokenizer_class(found.tokenizer_class)
    if found.is_file:
        return cls(tokenizer_file=str(found.path), **kwargs)
    if found.files == (SENTENCEPIECE_FILE,):
        return _from_sentencepiece(found, cls, **kwargs)
    _take_added_tokens(found, kwargs)
    if "model_input_names" not in kwargs and found.named is not None and found.named not in CLASSES:
        # A directory transformers saved names its own class (BertTokenizer): its rows carry that class's inputs.
        with contextlib.suppress(AttributeError, ImportError, TypeError):
            kwargs["model_input_names"] = list(
                getattr(importlib.import_module("transformers"), found.named).model_input_names
            )
    return cls.from_pretrained(str(found.path), **kwargs)


#: The files whose presence sends transformers' ``_from_pretrained`` down its legacy branch, which reads them too.
LEGACY_FILES = ("special_tokens_map.json", "added_tokens.json")


def _take_added_tokens(found: TokenizerKind, kwargs: dict[str, Any]) -> None:
    """Pass the ``tokenizer.json``'s ``added_tokens`` as ``added_tokens_decoder`` where transformers would parse the
    file a second time to make that same decoder: ``PreTrainedTokenizerBase._from_pretrained``, given none (not by
    ``tokenizer_config.json``, not by the call), takes it from ``tokenizer.json`` (its legacy branch, which reads
    ``special_tokens_map.json`` and ``added_tokens.json`` too: left to it where either is there). Made from the
    parse that decided the class (Llama-3's file took 0.07 s to parse again)."""
    tokenizer_json = found.path / TOKENIZER_FILE
    if "added_tokens_decoder" in kwargs or not tokenizer_json.is_file():
        return
    if any((found.path / name).is_file() for name in LEGACY_FILES):
        return
    if "added_tokens_decoder" in read_tokenizer_config(found.path):
        return
    entries = read_json(tokenizer_json).get("added_tokens")
    if isinstance(entries, list) and all(isinstance(entry, dict) and "id" in entry for entry in entries):
        kwargs["added_tokens_decoder"] = added_tokens_decoder(entries)


def _from_sentencepiece(found: TokenizerKind, cls: Any, **kwargs: Any) -> Any:
    """A directory holding a ``tokenizer.model`` alone, loaded as transformers' ``TokenizersBackend`` loads it: the
    converted document is written to a scratch ``tokenizer.json`` that the class reads in its constructor (it keeps
    the parsed file, not the path), with the special-token roles the model's trainer spec gives and the document's
    added tokens (``from_pretrained`` would pass the empty ``added_tokens_decoder`` of a directory without them)."""
    document, roles = sentencepiece_directory(found.path)
    kwargs.setdefault("added_tokens_decoder", added_tokens_decoder(document["added_tokens"]))
    with tempfile.TemporaryDirectory(prefix="hf-bpe-sentencepiece-") as scratch:
        converted = Path(scratch) / TOKENIZER_FILE
        converted.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
        return cls.from_pretrained(str(found.path), tokenizer_file=str(converted), **{**roles, **kwargs})
