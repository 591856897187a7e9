"""The one reader and writer of ``tokenizer.json`` (``tokenizers``' ``src/tokenizer/serialization.rs``): any file
read as a :class:`~hf_bpe.pipeline.pipeline.Pipeline`, each section into its twin, the model into hf_bpe's own (BPE
on a word's characters with byte fallback, WordPiece, Unigram, WordLevel), without the ``tokenizers`` library.

What a twin does not implement is refused by its JSON path
(:class:`hf_bpe.pipeline.tokenizer_json.UnsupportedComponent`), never ignored. The ``truncation`` and ``padding``
sections are read as ``tokenizers`` reads them, for the transformers class to take its defaults from (what
transformers does with each field: :func:`hf_bpe.transformers.rows.file_defaults`). Writing gives back the file's
sections as ``tokenizers`` writes back what it read (truncation and padding in its spelling), the model as its twin
holds it, and the tokenizer's added tokens: :func:`tokenizer_text` as ``Tokenizer.to_str`` writes the file,
:func:`pipeline_json` as transformers' Rust backend saves it.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import gc
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from hf_bpe.models.bpe.files import model_vocab_and_pairs
from hf_bpe.models.bpe.symbols import SymbolBPE
from hf_bpe.models.unigram.encoder import UnigramEncoder
from hf_bpe.models.unigram.files import serde_json_float
from hf_bpe.models.word_level import WordLevel
from hf_bpe.models.wordpiece.encoder import WordPieceEncoder
from hf_bpe.pipeline.added_tokens import AddedToken
from hf_bpe.pipeline.component import UnknownComponent
from hf_bpe.pipeline.decoders import decoder_from_json
from hf_bpe.pipeline.normalizers import normalizer_from_json
from hf_bpe.pipeline.pipeline import Pipeline
from hf_bpe.pipeline.pre_tokenizers import pre_tokenizer_from_json
from hf_bpe.pipeline.processors import PostProcessor, post_processor_from_json
from hf_bpe.pipeline.tokenizer_json import (
    NO_TEMPLATE,
    dumps,
    pretty_dumps,
    read_truncation_and_padding,
    refuse_unsupported,
    tokenizer_document,
    truncation_and_padding_json,
    unsupported,
    with_model_type,
)
from hf_bpe.utf8 import decode_utf8

OWNER = "PipelineTokenizer"
#: The sections written back as read.
SECTIONS = ("normalizer", "pre_tokenizer", "post_processor", "decoder")


@dataclasses.dataclass(frozen=True)
class PipelineJson:
    """A ``tokenizer.json``, read.

    Attributes:
        pipeline: its stages, the model included.
        vocab: the model's token to id.
        added_tokens: the ``added_tokens`` entries as written.
        sections: the file's normalizer, pre-tokenizer, post-processor and decoder as written.
        merges: a BPE model's merges in rank order (for writing; empty for the other models).
        truncation: the ``truncation`` section as ``tokenizers``' Python binding gives it (``Tokenizer.truncation``),
            or None.
        padding: the ``padding`` section as the binding gives it (``Tokenizer.padding``), or None.
    """

    pipeline: Pipeline
    vocab: dict[str, int]
    added_tokens: list[dict[str, Any]]
    sections: dict[str, Any]
    merges: Sequence[tuple[str, str]] = dataclasses.field(default_factory=list)
    truncation: dict[str, Any] | None = None
    padding: dict[str, Any] | None = None


def is_byte_level(data: Mapping[str, Any]) -> bool:
    """Whether a parsed ``tokenizer.json`` is byte-level BPE (a ``ByteLevel`` pre-tokenizer or decoder, no subword
    affixes): what :class:`~hf_bpe.transformers.bpe.BPETokenizer` reads, on its fast path."""
    model = data.get("model") or {}
    if not isinstance(model, Mapping) or model.get("type") != "BPE":
        return False
    byte_level = "ByteLevel" in {*_types(data.get("pre_tokenizer")), *_types(data.get("decoder"))}
    return byte_level and not model.get("continuing_subword_prefix") and not model.get("end_of_word_suffix")


def _types(component: Any) -> Iterator[Any]:
    """The ``type`` of a pre-tokenizer or decoder section and of every part of its ``Sequence``."""
    if isinstance(component, Mapping):
        yield component.get("type")
        for part in component.get("pretokenizers") or component.get("decoders") or []:
            yield from _types(part)


def read_json(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A ``tokenizer.json`` parsed, its numbers as ``tokenizers`` reads them (Unigram's scores: see
    :func:`~hf_bpe.models.unigram.files.serde_json_float`). Inside :func:`parsing_once`, a content read before in
    the same scope is not parsed again: the same object is returned, which no reader changes.

    Raises:
        FileNotFoundError: naming the file where there is none.
        ValueError: naming the file (line and byte) where it is not UTF-8 text, or naming it where it is not a
            JSON object.
    """
    scope = _SCOPE.get()
    if scope is None:
        # Nothing to recognize it by later: no digest taken (Gemma-3's 33 MB took 0.02 s to hash).
        return parse_json(decode_utf8(_read_bytes(path), path), str(path))
    content, digest = read_file(path)
    if digest not in scope.documents:
        scope.documents[digest] = parse_json(decode_utf8(content, path), str(path))
    return scope.documents[digest]


def read_file(path: str | os.PathLike[str]) -> tuple[bytes, bytes]:
    """A file's bytes and their SHA-256: what it holds now, whatever its modification time says (a file rewritten
    within the file system's clock tick, at the same size, keeps its ``st_mtime_ns``). Inside :func:`parsing_once`,
    each file is read and hashed once: the decision on the class, the classes' cache key and their parse all see
    the one content read first (three reads and hashes were a tenth of a second of Gemma-3's load).

    Raises:
        FileNotFoundError: naming the file where there is none.
    """
    scope = _SCOPE.get()
    if scope is None:
        content = _read_bytes(path)
        return content, hashlib.sha256(content).digest()
    where = os.path.realpath(path)
    if where not in scope.files:
        content = _read_bytes(path)
        scope.files[where] = (content, hashlib.sha256(content).digest())
    return scope.files[where]


def _read_bytes(path: str | os.PathLike[str]) -> bytes:
    """A file's bytes.

    Raises:
        FileNotFoundError: naming the file where there is none; IsADirectoryError naming a directory.
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path}: is a directory, expected a file")
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None


@dataclasses.dataclass
class _Scope:
    """What :func:`parsing_once` keeps while it lasts: each file's bytes and SHA-256 by its real path, and the
    documents parsed, by their bytes' SHA-256."""

    files: dict[str, tuple[bytes, bytes]] = dataclasses.field(default_factory=dict)
    documents: dict[bytes, dict[str, Any]] = dataclasses.field(default_factory=dict)


#: The scope of :func:`parsing_once` (None: outside one).
_SCOPE: contextvars.ContextVar[_Scope | None] = contextvars.ContextVar("_SCOPE", default=None)


@contextlib.contextmanager
def parsing_once() -> Iterator[None]:
    """Within it, :func:`read_file` reads each file once and :func:`read_json` parses each file content once:
    :func:`hf_bpe.from_pretrained` decides the class from the parsed ``tokenizer.json`` and the class reads the
    same parse (Gemma-3's 33 MB took half a second to parse, twice). Documents are keyed by the bytes read, not
    the path or time, so a file changed between two scopes is parsed anew; they are dropped when the outermost scope
    ends (a parsed Gemma-3 holds hundreds of MB).
    """
    if _SCOPE.get() is not None:
        yield  # an inner scope shares the outer one's files and documents
        return
    token = _SCOPE.set(_Scope())
    try:
        yield
    finally:
        _SCOPE.reset(token)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a tokenizer loads (back on after, if it was on): parsing a
    ``tokenizer.json`` makes millions of lists and tuples that no cycle holds (Gemma-3's 514,000 merge pairs), and
    each 700 of them started a collection, the oldest generation's walking the whole heap (0.5 s of Gemma-3's 1.7 s).
    Nothing is left uncollected: the next collection after the load sees everything."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def parse_json(text: str, where: str) -> dict[str, Any]:
    """A ``tokenizer.json``'s text parsed as :func:`read_json` parses a file (``where`` names it in errors).

    Raises:
        ValueError: naming ``where`` where the text is not a JSON object.
    """
    try:
        data = with_model_type(json.loads(text, parse_float=serde_json_float))
    except json.JSONDecodeError as e:
        raise ValueError(f"{where}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where}: not a JSON object")
    return data


def read_pipeline_json(path: str | os.PathLike[str], owner: str = OWNER) -> PipelineJson:
    """Read any ``tokenizer.json`` into a pipeline.

    Raises:
        FileNotFoundError: if there is no such file.
        ValueError: naming the file, if it is not JSON, and the JSON path of a truncation or padding section
            ``tokenizers`` cannot read; an :class:`~hf_bpe.pipeline.tokenizer_json.UnsupportedComponent` naming the
            JSON path of what is not implemented.
    """
    return pipeline_from_data(read_json(path), Path(path), owner)


def pipeline_from_data(data: dict[str, Any], path: str | os.PathLike[str], owner: str = OWNER) -> PipelineJson:
    """:func:`read_pipeline_json` of a parsed file (``path`` names it in errors: a file, or ``<string>``).

    Raises:
        ValueError: as :func:`read_pipeline_json`.
    """
    path = Path(path)
    refuse_unsupported(
        data,
        path,
        owner,
        post_processor=lambda part: None,
        decoder=lambda part: None,
        normalized_added_tokens=True,
        dropout=True,
        truncation_and_padding=True,
    )
    try:
        model, vocab, merges = _model_from_json(data.get("model"), path)
        normalizer = normalizer_from_json(data.get("normalizer"))
        added_ids, added_flags = normalized_added(data.get("added_tokens") or [], normalizer)
        pipeline = Pipeline(
            model=model,
            normalizer=normalizer,
            pre_tokenizer=pre_tokenizer_from_json(data.get("pre_tokenizer")),
            post_processor=post_processor_from_json(data.get("post_processor")),
            decoder=decoder_from_json(data.get("decoder")),
            normalized_added=added_ids,
            normalized_flags=added_flags,
        )
    except UnknownComponent as e:
        raise unsupported(path, e.path, e.value, e.what, owner) from None
    sections = {key: data.get(key) for key in SECTIONS}
    truncation, padding = read_truncation_and_padding(data, path)
    added = list(data.get("added_tokens") or [])
    return PipelineJson(pipeline, vocab, added, sections, merges, truncation, padding)


def with_model(
    read: PipelineJson,
    model: Any,
    vocab: Mapping[str, int],
    merges: Sequence[tuple[str, str]],
    *,
    added_tokens: list[dict[str, Any]],
    post_processor: PostProcessor,
) -> PipelineJson:
    """``read`` with another model (``vocab``: its token to id; ``merges``: a BPE model's, in rank order), added
    tokens (entries as the file writes them) and post-processor twin; the other stages, truncation and padding as
    they were, and what follows from the added tokens made again (those matched in the normalized text). What
    ``tokenizers`` holds after ``tokenizer.model = model`` with the added tokens and post-processor replaced, for
    the writers to write back: trim loads a tokenizer, changes its model and writes it back."""
    matched, flags = normalized_added(added_tokens, read.pipeline.normalizer)
    pipeline = dataclasses.replace(
        read.pipeline, model=model, post_processor=post_processor, normalized_added=matched, normalized_flags=flags
    )
    sections = {**read.sections, "post_processor": post_processor.to_json()}
    return dataclasses.replace(
        read, pipeline=pipeline, vocab=dict(vocab), added_tokens=list(added_tokens), sections=sections, merges=merges
    )


def normalized_content(normalizer: Any, content: str) -> str:
    """What a ``normalized`` added token's content becomes through the normalizer (``AddedVocabulary`` matches that
    in the normalized text and names the token so when it decodes)."""
    return str(normalizer.normalize(content, [(i, i + 1) for i in range(len(content))])[0])


def normalized_added(entries: list[Any], normalizer: Any) -> tuple[dict[str, int], dict[str, AddedToken]]:
    """The added tokens matched in the normalized text, by their content normalized (``AddedVocabulary`` normalizes
    a ``normalized`` token's content when it is added): their ids, and their flags.

    Raises:
        UnknownComponent: at an entry without content and id.
    """
    found, flags = {}, {}
    for index, entry in enumerate(entries):
        content = entry.get("content") if isinstance(entry, Mapping) else None
        if not isinstance(content, str) or type(entry.get("id")) is not int:
            raise UnknownComponent(f"added_tokens[{index}]", entry, "an added token without content and id")
        if entry.get("normalized"):
            normalized = normalized_content(normalizer, content)
            if normalized:
                found[normalized] = entry["id"]
                flags[normalized] = AddedToken(
                    content, **{key: bool(entry.get(key)) for key in ("single_word", "lstrip", "rstrip")}
                )
    return found, flags


def _model_from_json(model: Any, path: Path) -> tuple[Any, dict[str, int], Sequence[tuple[str, str]]]:
    """The model twin of a ``model`` section, its vocabulary and (BPE) merges."""
    if not isinstance(model, Mapping):
        raise UnknownComponent("model", model, "a model that is not an object")
    kind = model.get("type")
    read = _MODELS.get(str(kind))
    if read is None:
        raise UnknownComponent("model.type", kind, f"the model {kind!r}")
    try:
        return read(model, path)
    except UnknownComponent:
        raise  # already names its JSON path
    except (ValueError, TypeError, KeyError) as e:
        raise ValueError(f"{path}: model: {e}") from None


def _bpe(model: Mapping[str, Any], path: Path) -> tuple[Any, dict[str, int], Sequence[tuple[str, str]]]:
    for name in ("unk_token", "continuing_subword_prefix", "end_of_word_suffix"):
        if not isinstance(model.get(name), str | None):
            raise ValueError(f"model.{name} is {model[name]!r}; expected a string or null")
    # As two lists, no tuple per merge (MergePairs): the model's id tables read the lists.
    vocab, merges = model_vocab_and_pairs(model, path)
    bpe = SymbolBPE(
        vocab,
        merges,
        unk_token=model.get("unk_token"),
        continuing_subword_prefix=model.get("continuing_subword_prefix"),
        end_of_word_suffix=model.get("end_of_word_suffix"),
        fuse_unk=bool(model.get("fuse_unk")),
        byte_fallback=bool(model.get("byte_fallback")),
        ignore_merges=bool(model.get("ignore_merges")),
        dropout=_dropout(model.get("dropout")),
    )
    return bpe, bpe.vocab, merges


def _dropout(value: Any) -> float | None:
    """A BPE model's ``dropout``: None, or a probability."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        raise UnknownComponent("model.dropout", value, "a dropout that is not a probability between 0 and 1")
    return float(value)


def _wordpiece(model: Mapping[str, Any], path: Path) -> tuple[Any, dict[str, int], Sequence[tuple[str, str]]]:
    vocab = _vocab(model)
    encoder = WordPieceEncoder(
        vocab,
        unk_token=str(model.get("unk_token", "[UNK]")),
        continuing_subword_prefix=str(model.get("continuing_subword_prefix", "##")),
        max_input_chars_per_word=int(model.get("max_input_chars_per_word", 100)),
    )
    return encoder, vocab, []


def _unigram(model: Mapping[str, Any], path: Path) -> tuple[Any, dict[str, int], Sequence[tuple[str, str]]]:
    pieces = [(str(piece), float(score)) for piece, score in model.get("vocab") or []]
    unk_id = model.get("unk_id")
    if unk_id is not None and not (type(unk_id) is int and 0 <= unk_id < len(pieces)):
        raise UnknownComponent("model.unk_id", unk_id, "an unknown id that is not a piece's")
    encoder = UnigramEncoder(pieces, unk_id, byte_fallback=bool(model.get("byte_fallback")))
    return encoder, dict(encoder.ids), []


def _word_level(model: Mapping[str, Any], path: Path) -> tuple[Any, dict[str, int], Sequence[tuple[str, str]]]:
    vocab = _vocab(model)
    return WordLevel(vocab, unk_token=str(model.get("unk_token", "<unk>"))), vocab, []


def _vocab(model: Mapping[str, Any]) -> dict[str, int]:
    vocab = model.get("vocab")
    # Every id an int (not a bool) and none negative, checked in C: the set of their types, then the least.
    if not isinstance(vocab, dict) or (vocab and ({*map(type, vocab.values())} != {int} or min(vocab.values()) < 0)):
        raise UnknownComponent("model.vocab", "...", "a vocabulary that is not an object from token to id")
    return dict(vocab)


#: How each model is read from its JSON object.
_MODELS: dict[str, Callable[[Mapping[str, Any], Path], tuple[Any, dict[str, int], Sequence[tuple[str, str]]]]] = {
    "BPE": _bpe,
    "WordPiece": _wordpiece,
    "Unigram": _unigram,
    "WordLevel": _word_level,
}


def pipeline_json(read: PipelineJson, added_tokens: list[dict[str, Any]]) -> str:
    """The ``tokenizer.json`` text of ``read`` with ``added_tokens`` (entries as the file writes them), as
    transformers' ``TokenizersBackend.save_pretrained`` writes the same file back: :func:`tokenizer_text`'s, with
    the file's truncation and padding, and a template adding nothing where the file has no post-processor."""
    return pretty_dumps(_document(read, added_tokens, read.truncation, read.padding, no_post_processor=False))


def tokenizer_text(
    read: PipelineJson,
    added_tokens: list[dict[str, Any]],
    truncation: Mapping[str, Any] | None,
    padding: Mapping[str, Any] | None,
    *,
    pretty: bool,
) -> str:
    """The ``tokenizer.json`` text ``tokenizers``' ``Tokenizer.to_str(pretty)`` gives for ``read`` with
    ``added_tokens`` (entries as the file writes them, by id) and the truncation and padding settings (the
    binding's form, :func:`~hf_bpe.pipeline.tokenizer_json.read_truncation_and_padding`'s): each section as serde
    writes back what it read (a ``ByteLevel``'s missing flags filled in, a post-processor's fields of its type
    only), the model as its twin holds it."""
    document = _document(read, added_tokens, truncation, padding, no_post_processor=True)
    return pretty_dumps(document) if pretty else dumps(document)


def _document(
    read: PipelineJson,
    added_tokens: list[dict[str, Any]],
    truncation: Mapping[str, Any] | None,
    padding: Mapping[str, Any] | None,
    *,
    no_post_processor: bool,
) -> dict[str, Any]:
    """The parsed document both writers write, each stage by its twin (``to_json``, as ``tokenizers``' serde writes
    it); ``no_post_processor``: a file without one stays so (else it gets
    :data:`~hf_bpe.pipeline.tokenizer_json.NO_TEMPLATE`, as transformers' Rust backend sets it)."""
    pipeline = read.pipeline
    post_processor = pipeline.post_processor.to_json()
    if post_processor is None and not no_post_processor:
        post_processor = dict(NO_TEMPLATE)
    return tokenizer_document(
        _model_json(read),
        added_tokens=added_tokens,
        normalizer=pipeline.normalizer.to_json(),
        pre_tokenizer=pipeline.pre_tokenizer.to_json(),
        post_processor=post_processor,
        decoder=pipeline.decoder.to_json(),
        **truncation_and_padding_json(truncation, padding),
    )


def _model_json(read: PipelineJson) -> dict[str, Any]:
    model = read.pipeline.model
    if not isinstance(model, SymbolBPE):
        return dict(model.to_json())
    return {
        "type": "BPE",
        "dropout": model.dropout,
        "unk_token": model.unk_token,
        "continuing_subword_prefix": model.continuing_subword_prefix,
        "end_of_word_suffix": model.end_of_word_suffix,
        "fuse_unk": model.fuse_unk,
        "byte_fallback": model.byte_fallback,
        "ignore_merges": model.ignore_merges,
        "vocab": dict(sorted(model.vocab.items(), key=lambda item: item[1])),
        "merges": [[left, right] for left, right in read.merges],
    }
