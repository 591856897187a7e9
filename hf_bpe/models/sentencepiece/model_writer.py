"""Writing a SentencePiece ``tokenizer.model``: a :class:`~.model_proto.ModelProto` encoded in protobuf's wire format
by hand, the inverse of :mod:`.model_proto`'s reader, so that hf_bpe writes models without sentencepiece or protobuf.

Fields go out in field-number order, as protobuf's own serializer writes them. A piece's type is left out where it
is ``NORMAL`` (sentencepiece's ``TrainerInterface::Serialize`` never sets it for the pieces it learned, so the bytes
of the pieces match ``spm_train``'s); every other scalar field is written, defaults included, which protobuf reads
as the same message. The field numbers and kinds are the reader's own tables, so the two cannot drift apart.
"""

from __future__ import annotations

import enum
import struct
from typing import Any

from hf_bpe.models.sentencepiece.model_proto import (
    _MESSAGES,
    FIXED32,
    LENGTH_DELIMITED,
    VARINT,
    ModelProto,
    Piece,
    PieceType,
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


__all__ = ["write_model_proto"]
