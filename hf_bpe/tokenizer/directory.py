"""Which files of a tokenizer directory make its tokenizer, and which of hf_bpe's classes reads them: decided once,
here, for :func:`hf_bpe.from_pretrained` and every ``hf-bpe`` command that takes a directory.

A directory names its class in ``tokenizer_config.json``'s ``tokenizer_class`` (what hf_bpe writes); else its
``tokenizer.json`` decides, by what the file holds (:func:`json_class`: byte-level BPE that
:class:`~hf_bpe.transformers.bpe.BPETokenizer`'s fast path reads, a Unigram file of hf_bpe's recipe, or any other
file, run by :class:`~hf_bpe.transformers.pipeline.PipelineTokenizer`'s pipeline); else the model files alone
(GPT-2's ``vocab.json`` + ``merges.txt``, a ``vocab.txt``). The decision is made up front from the parsed file,
never by loading one class and falling back on another's refusal; loading is the transformers classes' job.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from hf_bpe.models.bpe.files import gapless_splits
from hf_bpe.models.directory import TOKENIZER_FILE, read_tokenizer_config
from hf_bpe.models.unigram.files import _recipe_sections
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
from hf_bpe.pipeline.processors import template_of
from hf_bpe.pipeline.tokenizer_json import UnsupportedComponent, only_types, refuse_other_sections, refuse_unsupported
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
#: The model files that make a tokenizer without ``tokenizer.json`` or a class named, and the class reading them.
BARE_FILES = ((("vocab.json", "merges.txt"), BYTE_LEVEL), (("vocab.txt",), "WordPieceTokenizer"))


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
    it does: the checks :func:`hf_bpe.models.bpe.files.read_tokenizer_json` makes, in its order, on the parsed file
    (a BPE model; a pre-tokenizer :meth:`PreTokenizer.from_tokenizer_json` expresses; no subword affix or byte
    fallback; the post-processor, decoder and dropout it takes; a template it expresses).

    Raises:
        ValueError: naming the file and the JSON path of a truncation or padding section ``tokenizers`` cannot read.
    """
    model = data.get("model")
    if not isinstance(model, Mapping) or model.get("type") != "BPE":
        return "model.type: not BPE"
    try:
        PreTokenizer.from_tokenizer_json(gapless_splits(data))
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        return f"pre_tokenizer: {e}"
    for name in ("continuing_subword_prefix", "end_of_word_suffix", "byte_fallback"):
        if model.get(name):
            return f"model.{name}"
    try:
        refuse_unsupported(
            data,
            path,
            BYTE_LEVEL,
            post_processor=only_types(
                "ByteLevel",
                settings={"trim_offsets": False},
                accept=lambda part: part.get("type") == "TemplateProcessing",
            ),
            decoder=only_types("ByteLevel"),
            truncation_and_padding=True,
        )
    except UnsupportedComponent as e:
        return str(e)
    try:
        template_of(data.get("post_processor"))
    except ValueError as e:
        return f"post_processor: {e}"
    return None


def unigram_refusal(data: Mapping[str, Any], path: str | os.PathLike[str]) -> str | None:
    """Why :class:`~hf_bpe.transformers.unigram.UnigramTokenizer` does not read a parsed ``tokenizer.json``, or None
    where it does: the checks :func:`hf_bpe.models.unigram.files.read_unigram_json` makes (a Unigram model without
    byte fallback, no post-processor, truncation or padding, the recipe's normalizer, pre-tokenizer and decoder)."""
    model = data.get("model")
    if not isinstance(model, Mapping) or model.get("type") != "Unigram":
        return "model.type: not Unigram"
    if model.get("byte_fallback"):
        return "model.byte_fallback"
    try:
        refuse_unsupported(data, path, UNIGRAM, post_processor=only_types(), decoder=lambda _: None)
        refuse_other_sections(data, _recipe_sections(), path, UNIGRAM)
    except UnsupportedComponent as e:
        return str(e)
    return None
