"""Which files of a tokenizer directory make its tokenizer, and which of hf_bpe's classes reads them: decided once,
here, for :func:`hf_bpe.from_pretrained` and every ``hf-bpe`` command that takes a directory.

A directory names its class in ``tokenizer_config.json``'s ``tokenizer_class`` (what hf_bpe writes); else its
``tokenizer.json`` decides, by what the file holds (:func:`json_class`: byte-level BPE that
:class:`~hf_bpe.transformers.bpe.BPETokenizer`'s fast path reads, a Unigram file of hf_bpe's recipe, or any other
file, run by :class:`~hf_bpe.transformers.pipeline.PipelineTokenizer`'s pipeline); else the model files alone
(GPT-2's ``vocab.json`` + ``merges.txt``, a ``vocab.txt``, a SentencePiece ``tokenizer.model``: the document
transformers converts it into, run by the pipeline). The decision is made up front from the parsed file,
never by loading one class and falling back on another's refusal; loading is the transformers classes' job.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from hf_bpe.models.bpe.files import fast_path_settings
from hf_bpe.models.directory import TOKENIZER_FILE, read_tokenizer_config
from hf_bpe.models.sentencepiece.convert import SENTENCEPIECE_FILE
from hf_bpe.models.unigram.files import check_recipe_file
from hf_bpe.tokenizer.serialization import is_byte_level, read_json


class Kind(NamedTuple):
    """A kind of tokenizer directory: how messages call it, and the files its directory must hold."""

    label: str
    files: tuple[str, ...]


#: hf_bpe's classes, by the name ``tokenizer_config.json``'s ``tokenizer_class`` gives them, and their kinds
#: (:data:`hf_bpe.transformers.classes.CLASSES` gives each class's module).
KINDS: dict[str, Kind] = {
    "BPETokenizer": Kind("byte-level BPE", ("vocab.json", "merges.txt")),
    "CharBPETokenizer": Kind("char-level BPE", ("vocab.json", "merges.txt")),
    "WordPieceTokenizer": Kind("WordPiece", ("vocab.txt",)),
    "UnigramTokenizer": Kind("Unigram", (TOKENIZER_FILE,)),
    "SentencePieceBPETokenizer": Kind("SentencePiece-style BPE", (TOKENIZER_FILE,)),
    "PipelineTokenizer": Kind("tokenizer.json pipeline", (TOKENIZER_FILE,)),
}
BYTE_LEVEL = "BPETokenizer"
UNIGRAM = "UnigramTokenizer"
PIPELINE = "PipelineTokenizer"
#: The model files that make a tokenizer without ``tokenizer.json`` or a class named, and the class reading them (a
#: ``tokenizer.model`` through the ``tokenizer.json`` document transformers converts it into).
BARE_FILES = (
    (("vocab.json", "merges.txt"), BYTE_LEVEL),
    (("vocab.txt",), "WordPieceTokenizer"),
    ((SENTENCEPIECE_FILE,), PIPELINE),
)


@dataclasses.dataclass(frozen=True)
class TokenizerKind:
    """What a directory (or a ``tokenizer.json`` given as a file) holds.

    Attributes:
        path: the directory, or the file, as given.
        tokenizer_class: the hf_bpe class (a key of :data:`KINDS`) that reads it.
        files: the names of the files that make the tokenizer.
        missing: the files the named class needs that are not there (a directory left incomplete).
        named: the ``tokenizer_class`` its ``tokenizer_config.json`` names, whoever's class that is (None: none).
        byte_level: whether it is byte-level BPE (its ranks are what a ``.tiktoken`` file holds), whichever class
            reads it.
    """

    path: Path
    tokenizer_class: str
    files: tuple[str, ...]
    missing: tuple[str, ...] = ()
    named: str | None = None
    byte_level: bool = False

    @property
    def is_file(self) -> bool:
        """Whether :attr:`path` is a ``tokenizer.json`` itself, not a directory."""
        return self.path.is_file()

    @property
    def label(self) -> str:
        """The kind as messages name it (``"WordPiece"``; ``"byte-level BPE"`` whichever class reads it)."""
        return KINDS[BYTE_LEVEL if self.byte_level else self.tokenizer_class].label


def tokenizer_kind(path: str | os.PathLike[str]) -> TokenizerKind | None:
    """The kind of tokenizer a directory holds, or of a ``tokenizer.json`` file; None for a directory that holds
    none of :data:`KINDS`' files.

    Raises:
        FileNotFoundError: naming ``path`` where it does not exist.
        ValueError: naming ``tokenizer_config.json`` or ``tokenizer.json`` (line and column) where it is not a JSON
            object.

    >>> import hf_bpe, tempfile
    >>> directory = tempfile.mkdtemp()
    >>> _ = hf_bpe.train_from_iterator(["hug pug hug"], vocab_size=260).save(directory)
    >>> found = tokenizer_kind(directory)
    >>> found.tokenizer_class, found.files, tokenizer_kind(f"{directory}/tokenizer.json").tokenizer_class
    ('BPETokenizer', ('vocab.json', 'merges.txt', 'tokenizer.json'), 'BPETokenizer')
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or directory")
    if path.is_file():
        data = read_json(path)
        return TokenizerKind(path, json_class(data, path), (path.name,), byte_level=is_byte_level(data))
    named = read_tokenizer_config(path).get("tokenizer_class")
    named = named if isinstance(named, str) else None
    tokenizer_json = path / TOKENIZER_FILE
    if named in KINDS:
        files = KINDS[named].files
        missing = tuple(name for name in files if not (path / name).is_file())
        if named == BYTE_LEVEL and tokenizer_json.is_file():
            # BPETokenizer reads a byte-level tokenizer.json alone (as the Rust backend saves one) too.
            files, missing = (*(name for name in files if name not in missing), TOKENIZER_FILE), ()
        return TokenizerKind(path, named, files, missing, named, byte_level=named == BYTE_LEVEL)
    if tokenizer_json.is_file():
        data = read_json(tokenizer_json)
        found = json_class(data, tokenizer_json)
        return TokenizerKind(path, found, (TOKENIZER_FILE,), named=named, byte_level=is_byte_level(data))
    for files, tokenizer_class in BARE_FILES:
        if all((path / name).is_file() for name in files):
            return TokenizerKind(path, tokenizer_class, files, named=named, byte_level=tokenizer_class == BYTE_LEVEL)
    return None


def json_class(data: Mapping[str, Any], path: str | os.PathLike[str]) -> str:
    """The hf_bpe class that reads a parsed ``tokenizer.json`` (``path`` names it): :data:`BYTE_LEVEL` where its
    fast path reads all the file holds (:func:`fast_path_refusal`), :data:`UNIGRAM` for a file of hf_bpe's Unigram
    recipe (:func:`unigram_refusal`), else :data:`PIPELINE`, which runs any file's own pipeline (and refuses,
    naming the JSON path, what hf_bpe does not implement).

    Raises:
        ValueError: naming the file and the JSON path of a truncation or padding section ``tokenizers`` cannot read.
    """
    if fast_path_refusal(data, path) is None:
        return BYTE_LEVEL
    if unigram_refusal(data, path) is None:
        return UNIGRAM
    return PIPELINE


def fast_path_refusal(data: Mapping[str, Any], path: str | os.PathLike[str]) -> str | None:
    """Why :class:`~hf_bpe.transformers.bpe.BPETokenizer` does not read a parsed ``tokenizer.json``, or None where
    it does: a BPE model, and the fast path's own checks (:func:`~hf_bpe.models.bpe.files.fast_path_settings`)."""
    model = data.get("model")
    if not isinstance(model, Mapping) or model.get("type") != "BPE":
        return "model.type: not BPE"
    try:
        fast_path_settings(data, model, path)
    except ValueError as e:
        return str(e)
    return None


def unigram_refusal(data: Mapping[str, Any], path: str | os.PathLike[str]) -> str | None:
    """Why :class:`~hf_bpe.transformers.unigram.UnigramTokenizer` does not read a parsed ``tokenizer.json``, or None
    where it does (:func:`~hf_bpe.models.unigram.files.check_recipe_file`)."""
    model = data.get("model")
    try:
        check_recipe_file(data, model if isinstance(model, Mapping) else {}, path)
    except ValueError as e:
        return str(e)
    return None
