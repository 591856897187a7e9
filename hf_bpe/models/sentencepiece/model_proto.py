"""Reading a SentencePiece ``tokenizer.model``: the ``ModelProto`` message of sentencepiece's
``sentencepiece_model.proto``, decoded from the protobuf wire format by hand, so that hf_bpe needs neither
sentencepiece nor protobuf to run.

This module owns the wire format (varints, length-delimited fields, fixed32 floats) and the three messages a model
holds: its pieces (text, score, type), its ``TrainerSpec`` and its ``NormalizerSpec`` (and the optional
``denormalizer_spec``). Field numbers and defaults are those of sentencepiece 0.2's ``sentencepiece_model.proto``.
Fields this module does not know are skipped as protobuf skips them (a newer file still reads); a file that breaks
the wire format, or gives a known field the wrong wire type, is refused naming the file, the byte offset and the
field. What the model *asks for* is :mod:`.convert`'s to judge.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: The wire types of protobuf's encoding.
VARINT, FIXED64, LENGTH_DELIMITED, FIXED32 = 0, 1, 2, 5


class PieceType(enum.IntEnum):
    """``ModelProto.SentencePiece.Type``."""

    NORMAL = 1
    UNKNOWN = 2
    CONTROL = 3
    USER_DEFINED = 4
    UNUSED = 5
    BYTE = 6


class ModelType(enum.IntEnum):
    """``TrainerSpec.ModelType``."""

    UNIGRAM = 1
    BPE = 2
    WORD = 3
    CHAR = 4


@dataclasses.dataclass(frozen=True)
class Piece:
    """One ``ModelProto.SentencePiece``: its text, its score (a float32), its type; its id is its index."""

    piece: str = ""
    score: float = 0.0
    type: PieceType = PieceType.NORMAL


@dataclasses.dataclass(frozen=True)
class TrainerSpec:
    """``TrainerSpec``: how the model was trained, with sentencepiece's defaults for fields the file leaves out."""

    input: tuple[str, ...] = ()
    input_format: str = ""
    model_prefix: str = ""
    model_type: ModelType = ModelType.UNIGRAM
    vocab_size: int = 8000
    accept_language: tuple[str, ...] = ()
    self_test_sample_size: int = 0
    character_coverage: float = 0.9994999766349792
    input_sentence_size: int = 0
    mining_sentence_size: int = 0
    training_sentence_size: int = 0
    seed_sentencepiece_size: int = 1000000
    shrinking_factor: float = 0.75
    num_threads: int = 16
    num_sub_iterations: int = 2
    max_sentence_length: int = 4192
    shuffle_input_sentence: bool = True
    max_sentencepiece_length: int = 16
    split_by_unicode_script: bool = True
    split_by_whitespace: bool = True
    split_by_number: bool = True
    treat_whitespace_as_suffix: bool = False
    split_digits: bool = False
    allow_whitespace_only_pieces: bool = False
    control_symbols: tuple[str, ...] = ()
    user_defined_symbols: tuple[str, ...] = ()
    vocabulary_output_piece_score: bool = True
    hard_vocab_limit: bool = True
    use_all_vocab: bool = False
    byte_fallback: bool = False
    required_chars: str = ""
    unk_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    pad_id: int = -1
    unk_surface: str = " \u2047 "
    unk_piece: str = "<unk>"
    bos_piece: str = "<s>"
    eos_piece: str = "</s>"
    pad_piece: str = "<pad>"
    train_extremely_large_corpus: bool = False
    enable_differential_privacy: bool = False
    differential_privacy_noise_level: float = 0.0
    differential_privacy_clipping_threshold: int = 0
    pretokenization_delimiter: str = ""
    seed_sentencepieces_file: str = ""
    auto_character_coverage: bool = False


@dataclasses.dataclass(frozen=True)
class NormalizerSpec:
    """``NormalizerSpec``: the normalization rule (its name and compiled table) and the white-space handling."""

    name: str = ""
    precompiled_charsmap: bytes = b""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True
    normalization_rule_tsv: str = ""


@dataclasses.dataclass(frozen=True)
class ModelProto:
    """A whole ``tokenizer.model``.

    Attributes:
        pieces: the vocabulary; a piece's id is its index.
        trainer_spec: the training options (``model_type``, ``byte_fallback``, the special pieces' ids, ...).
        normalizer_spec: how text is normalized before encoding.
        denormalizer_spec: how decoded text is denormalized, where the file has one (None: it has none).
    """

    pieces: tuple[Piece, ...] = ()
    trainer_spec: TrainerSpec = TrainerSpec()
    normalizer_spec: NormalizerSpec = NormalizerSpec()
    denormalizer_spec: NormalizerSpec | None = None


#: Each message's fields, by number: (name, kind). Kinds: the scalar types, "repeated string", or a message name.
_PIECE_FIELDS = {1: ("piece", "string"), 2: ("score", "float"), 3: ("type", "PieceType")}
_TRAINER_FIELDS = {
    1: ("input", "repeated string"),
    7: ("input_format", "string"),
    2: ("model_prefix", "string"),
    3: ("model_type", "ModelType"),
    4: ("vocab_size", "int32"),
    5: ("accept_language", "repeated string"),
    6: ("self_test_sample_size", "int32"),
    10: ("character_coverage", "float"),
    11: ("input_sentence_size", "uint64"),
    12: ("mining_sentence_size", "int32"),
    13: ("training_sentence_size", "int32"),
    14: ("seed_sentencepiece_size", "int32"),
    15: ("shrinking_factor", "float"),
    16: ("num_threads", "int32"),
    17: ("num_sub_iterations", "int32"),
    18: ("max_sentence_length", "int32"),
    19: ("shuffle_input_sentence", "bool"),
    20: ("max_sentencepiece_length", "int32"),
    21: ("split_by_unicode_script", "bool"),
    22: ("split_by_whitespace", "bool"),
    23: ("split_by_number", "bool"),
    24: ("treat_whitespace_as_suffix", "bool"),
    25: ("split_digits", "bool"),
    26: ("allow_whitespace_only_pieces", "bool"),
    30: ("control_symbols", "repeated string"),
    31: ("user_defined_symbols", "repeated string"),
    32: ("vocabulary_output_piece_score", "bool"),
    33: ("hard_vocab_limit", "bool"),
    34: ("use_all_vocab", "bool"),
    35: ("byte_fallback", "bool"),
    36: ("required_chars", "string"),
    40: ("unk_id", "int32"),
    41: ("bos_id", "int32"),
    42: ("eos_id", "int32"),
    43: ("pad_id", "int32"),
    44: ("unk_surface", "string"),
    45: ("unk_piece", "string"),
    46: ("bos_piece", "string"),
    47: ("eos_piece", "string"),
    48: ("pad_piece", "string"),
    49: ("train_extremely_large_corpus", "bool"),
    50: ("enable_differential_privacy", "bool"),
    51: ("differential_privacy_noise_level", "float"),
    52: ("differential_privacy_clipping_threshold", "uint64"),
    53: ("pretokenization_delimiter", "string"),
    54: ("seed_sentencepieces_file", "string"),
    55: ("auto_character_coverage", "bool"),
}
_NORMALIZER_FIELDS = {
    1: ("name", "string"),
    2: ("precompiled_charsmap", "bytes"),
    3: ("add_dummy_prefix", "bool"),
    4: ("remove_extra_whitespaces", "bool"),
    5: ("escape_whitespaces", "bool"),
    6: ("normalization_rule_tsv", "string"),
}
_MODEL_FIELDS = {
    1: ("pieces", "repeated Piece"),
    2: ("trainer_spec", "TrainerSpec"),
    3: ("normalizer_spec", "NormalizerSpec"),
    5: ("denormalizer_spec", "NormalizerSpec"),
}
_MESSAGES: dict[str, tuple[type, dict[int, tuple[str, str]]]] = {
    "Piece": (Piece, _PIECE_FIELDS),
    "TrainerSpec": (TrainerSpec, _TRAINER_FIELDS),
    "NormalizerSpec": (NormalizerSpec, _NORMALIZER_FIELDS),
    "ModelProto": (ModelProto, _MODEL_FIELDS),
}
_ENUMS: dict[str, type[enum.IntEnum]] = {"PieceType": PieceType, "ModelType": ModelType}
_WIRE_TYPES = {"float": FIXED32, "string": LENGTH_DELIMITED, "bytes": LENGTH_DELIMITED}


class MalformedModel(ValueError):
    """A ``tokenizer.model`` that is not a well-formed ``ModelProto``; the message names the file and byte offset."""


def read_model_proto(path: str | os.PathLike[str]) -> ModelProto:
    """Read a ``tokenizer.model`` file.

    Raises:
        FileNotFoundError: naming ``path`` where there is no such file.
        MalformedModel: naming the file, the byte offset and the field where it breaks the wire format.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "tokenizer.model"
    >>> _ = path.write_bytes(b"\\x0a\\x0e\\x0a\\x05<unk>\\x18\\x02\\x15\\x00\\x00\\x80\\xbf")
    >>> read_model_proto(path).pieces
    (Piece(piece='<unk>', score=-1.0, type=<PieceType.UNKNOWN: 2>),)
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    return parse_model_proto(path.read_bytes(), str(path))


def parse_model_proto(data: bytes, where: str = "<bytes>") -> ModelProto:
    """A ``ModelProto`` from its serialized bytes (``where`` names them in errors).

    Raises:
        MalformedModel: as :func:`read_model_proto`.
    """
    if not data:
        raise MalformedModel(f"{where}: empty, not a SentencePiece model")
    model = _message(data, 0, len(data), "ModelProto", where, "")
    assert isinstance(model, ModelProto)  # _message builds the class its name gives
    return model


def _message(data: bytes, start: int, end: int, name: str, where: str, path: str) -> Any:
    """Decode ``data[start:end]`` as the message ``name``; ``path`` is the field path leading to it."""
    cls, fields = _MESSAGES[name]
    values: dict[str, Any] = {}
    for number, wire, value_start, value_end, offset in _fields(data, start, end, where, path):
        if number not in fields:
            continue  # an unknown field, skipped as protobuf skips it
        field, kind = fields[number]
        field_path = f"{path}.{field}" if path else field
        if kind.startswith("repeated "):
            kind = kind.removeprefix("repeated ")
            values.setdefault(field, []).append(
                _value(data, wire, value_start, value_end, kind, where, field_path, offset)
            )
        else:
            values[field] = _value(data, wire, value_start, value_end, kind, where, field_path, offset)
    return cls(**{key: tuple(value) if isinstance(value, list) else value for key, value in values.items()})


def _value(data: bytes, wire: int, start: int, end: int, kind: str, where: str, path: str, offset: int) -> Any:
    """One field's value of ``kind`` from its bytes (a varint's value is ``start`` itself)."""
    expected = LENGTH_DELIMITED if kind in _MESSAGES else _WIRE_TYPES.get(kind, VARINT)
    if wire != expected:
        raise MalformedModel(f"{where}: byte {offset}: field {path} ({kind}) has wire type {wire}, expected {expected}")
    if kind in _MESSAGES:
        return _message(data, start, end, kind, where, path)
    if kind == "float":
        return struct.unpack_from("<f", data, start)[0]
    if kind == "bytes":
        return bytes(data[start:end])
    if kind == "string":
        try:
            return data[start:end].decode("utf-8")
        except UnicodeDecodeError as e:
            raise MalformedModel(f"{where}: byte {start + e.start}: field {path} is not UTF-8") from None
    if kind == "bool":
        return start != 0
    if kind == "uint64":
        return start
    signed = start & 0xFFFFFFFF  # int32 and enums: the low 32 bits, two's complement (protobuf's truncation)
    signed = signed - (1 << 32) if signed >= 1 << 31 else signed
    if kind in _ENUMS:
        try:
            return _ENUMS[kind](signed)
        except ValueError:
            known = ", ".join(f"{member.name}={member.value}" for member in _ENUMS[kind])
            raise MalformedModel(f"{where}: byte {offset}: field {path} is {signed}, not one of {known}") from None
    return signed


def _fields(data: bytes, start: int, end: int, where: str, path: str) -> Iterator[tuple[int, int, int, int, int]]:
    """Each field of a message's bytes: (number, wire type, value start, value end, the tag's offset); a varint
    field's value is given as its start."""
    position = start
    inside = f" in {path}" if path else ""
    while position < end:
        offset = position
        tag, position = _varint(data, position, end, where, f"a field tag{inside}")
        number, wire = tag >> 3, tag & 7
        if number == 0:
            raise MalformedModel(f"{where}: byte {offset}: field number 0{inside}")
        if wire == VARINT:
            value, position = _varint(data, position, end, where, f"field {number}{inside}")
            yield number, wire, value, position, offset
            continue
        if wire == LENGTH_DELIMITED:
            length, position = _varint(data, position, end, where, f"the length of field {number}{inside}")
            size = length
        elif wire in (FIXED32, FIXED64):
            size = 4 if wire == FIXED32 else 8
        else:
            raise MalformedModel(
                f"{where}: byte {offset}: field {number}{inside} has wire type {wire} (groups and "
                f"unknown wire types are not SentencePiece's)"
            )
        if position + size > end:
            raise MalformedModel(
                f"{where}: byte {offset}: field {number}{inside} needs {size} bytes, {end - position} are left"
            )
        yield number, wire, position, position + size, offset
        position += size


def _varint(data: bytes, position: int, end: int, where: str, what: str) -> tuple[int, int]:
    """A base-128 varint at ``position`` and the position after it."""
    value = shift = 0
    start = position
    while position < end and shift < 70:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value & 0xFFFFFFFFFFFFFFFF, position
        shift += 7
    raise MalformedModel(f"{where}: byte {start}: {what}: a varint cut short or longer than 10 bytes")
