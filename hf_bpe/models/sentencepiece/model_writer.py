"""Writing a SentencePiece ``tokenizer.model``: a :class:`~.model_proto.ModelProto` encoded in protobuf's wire format
by hand, the inverse of :mod:`.model_proto`'s reader, so that hf_bpe writes models without sentencepiece or protobuf.

Fields go out in field-number order, as protobuf's own serializer writes them. A piece's type is left out where it
is ``NORMAL`` (sentencepiece's ``TrainerInterface::Serialize`` never sets it for the pieces it learned, so the bytes
of the pieces match ``spm_train``'s); every other scalar field is written, defaults included, which protobuf reads
as the same message. The field numbers and kinds are the reader's own tables, so the two cannot drift apart.

:func:`save_sentencepiece` writes a trained model as a directory every loader reads: the ``tokenizer.model``, the
``tokenizer.json`` transformers' converter makes of it (:mod:`.convert`'s document) and a ``tokenizer_config.json``.
"""

from __future__ import annotations

import enum
import json
import os
import struct
from pathlib import Path
from typing import Any

from hf_bpe.atomic import write_files
from hf_bpe.models.directory import TOKENIZER_CONFIG_FILE, TOKENIZER_FILE, replaced_files
from hf_bpe.models.sentencepiece.convert import SENTENCEPIECE_FILE, tokenizer_json
from hf_bpe.models.sentencepiece.model_proto import (
    _MESSAGES,
    FIXED32,
    LENGTH_DELIMITED,
    VARINT,
    ModelProto,
    Piece,
    PieceType,
    parse_model_proto,
)


def write_model_proto(model: ModelProto) -> bytes:
    """The serialized bytes of ``model``, which ``sentencepiece.SentencePieceProcessor(model_proto=...)`` loads.

    >>> from hf_bpe.models.sentencepiece.model_proto import parse_model_proto
    >>> model = ModelProto(pieces=(Piece("<unk>", 0.0, PieceType.UNKNOWN), Piece("▁a", -1.0)))
    >>> parse_model_proto(write_model_proto(model)).pieces == model.pieces
    True
    """
    return _message(model, "ModelProto")


def _message(value: Any, name: str) -> bytes:
    """The bytes of one message ``value`` of the reader's message ``name``."""
    _, fields = _MESSAGES[name]
    out = bytearray()
    for number in sorted(fields):
        field, kind = fields[number]
        item = getattr(value, field)
        if item is None:
            continue
        if kind.startswith("repeated "):
            for element in item:
                out += _field(number, element, kind.removeprefix("repeated "))
            continue
        if isinstance(value, Piece) and field == "type" and item == PieceType.NORMAL:
            continue  # sentencepiece leaves a learned piece's type unset
        out += _field(number, item, kind)
    return bytes(out)


def _field(number: int, value: Any, kind: str) -> bytes:
    """One field: its tag and its value's bytes."""
    if kind in _MESSAGES:
        body = _message(value, kind)
        return _varint(number << 3 | LENGTH_DELIMITED) + _varint(len(body)) + body
    if kind == "float":
        return _varint(number << 3 | FIXED32) + struct.pack("<f", value)
    if kind in ("string", "bytes"):
        body = value.encode("utf-8") if kind == "string" else bytes(value)
        return _varint(number << 3 | LENGTH_DELIMITED) + _varint(len(body)) + body
    number_value = int(value.value if isinstance(value, enum.Enum) else value)
    # int32 and enums: a negative value is its 64-bit two's complement (ten bytes), as protobuf writes it
    return _varint(number << 3 | VARINT) + _varint(number_value & 0xFFFFFFFFFFFFFFFF)


def _varint(value: int) -> bytes:
    """A base-128 varint."""
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def save_sentencepiece(model_bytes: bytes, directory: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Write a ``.model`` as a tokenizer directory that ``SentencePieceProcessor(model_file=...)``, transformers'
    ``AutoTokenizer`` (the Rust backend) and ``hf_bpe.from_pretrained`` all load, and encode alike.

    The ``tokenizer.json`` is the document transformers v5 converts a ``tokenizer.model`` alone into
    (``TokenizersBackend._convert_from_sentencepiece``, :func:`~.convert.tokenizer_json`); the config names
    ``TokenizersBackend`` and the special-token roles transformers takes from the trainer spec. All three files are
    written at once or not at all.

    Args:
        model_bytes: a serialized ``ModelProto`` (:func:`write_model_proto`'s, or ``spm_train``'s).
        directory: where to write (made if missing).
        force: remove another tokenizer's files found there instead of refusing.

    Returns:
        The directory.

    Raises:
        ~.model_proto.MalformedModel: naming the byte offset of a broken model.
        ~.convert.UnsupportedModel: naming what the ``tokenizer.json`` document cannot express.
        FileExistsError: the directory holds another tokenizer's files and ``force`` is not set.

    >>> import tempfile, sentencepiece
    >>> from hf_bpe.models.sentencepiece.train_bpe import train_bpe_from_text
    >>> path = save_sentencepiece(train_bpe_from_text(["abab ab"], vocab_size=9), tempfile.mkdtemp())
    >>> sorted(p.name for p in path.iterdir())
    ['tokenizer.json', 'tokenizer.model', 'tokenizer_config.json']
    """
    where = Path(directory) / SENTENCEPIECE_FILE
    model = parse_model_proto(model_bytes, str(where))
    document = tokenizer_json(model, str(where))
    spec = model.trainer_spec
    config: dict[str, Any] = {"tokenizer_class": "TokenizersBackend"}
    for role in ("bos", "eos", "unk"):  # the roles _convert_from_sentencepiece takes from the trainer spec
        piece_id = getattr(spec, f"{role}_id")
        if 0 <= piece_id < len(model.pieces):
            config[f"{role}_token"] = model.pieces[piece_id].piece
    files: dict[str, str | bytes] = {
        SENTENCEPIECE_FILE: model_bytes,
        TOKENIZER_FILE: json.dumps(document, ensure_ascii=False, indent=2) + "\n",
        TOKENIZER_CONFIG_FILE: json.dumps(config, ensure_ascii=False, indent=2) + "\n",
    }
    write_files(directory, files, remove=replaced_files(directory, files, force=force))
    return Path(directory)


__all__ = ["save_sentencepiece", "write_model_proto"]
