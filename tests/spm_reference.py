"""sentencepiece 0.2.3 as the reference for hf_bpe's SentencePiece trainers: ``spm_train`` on the same lines, and a
comparison of two ``.model`` files field by field (parsed by sentencepiece's own ``sentencepiece_model_pb2``) and by
the ids ``SentencePieceProcessor`` gives held-out text. Shared by tests/models/sentencepiece/ and tests/cli/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sentencepiece
from sentencepiece import sentencepiece_model_pb2

#: The trainer spec's fields that name where a run read and wrote (its files, not its result).
RUN_FIELDS = ("input", "model_prefix")


def lines_of(data: bytes) -> list[bytes]:
    """Whole lines of a byte slice (its cut first and last lines dropped)."""
    return data[data.index(b"\n") + 1 : data.rindex(b"\n")].split(b"\n")


def spm_train(tmp_path: Path, lines: list[bytes], model_type: str, **kwargs: Any) -> bytes:
    """The reference: ``SentencePieceTrainer.train`` on ``lines`` written to a file, as ``spm_train`` reads it."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(b"\n".join(lines) + b"\n")
    prefix = tmp_path / "reference"
    sentencepiece.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(prefix), model_type=model_type, minloglevel=2, **kwargs
    )
    return prefix.with_suffix(".model").read_bytes()


def fields(message: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """A protobuf message's fields by name, with their values (defaults included)."""
    return {
        field.name: value if isinstance(value, (str, bytes, int, float)) else list(value)
        for field in message.DESCRIPTOR.fields
        if field.name not in skip and (value := getattr(message, field.name)) is not None
    }


def assert_same_model(ours: bytes, reference: bytes, held_out: list[str] | None = None) -> None:
    """Equal field by field (every piece, score exactly, and type; the trainer spec but :data:`RUN_FIELDS`; the
    normalizer spec), and, given ``held_out``, both encode it to the same ids."""
    mine, theirs = sentencepiece_model_pb2.ModelProto(), sentencepiece_model_pb2.ModelProto()
    mine.ParseFromString(ours)
    theirs.ParseFromString(reference)
    pieces = [(p.piece, p.score, p.type) for p in mine.pieces]
    expected = [(p.piece, p.score, p.type) for p in theirs.pieces]
    assert len(pieces) == len(expected)
    for index, (got, want) in enumerate(zip(pieces, expected, strict=True)):
        assert got == want, f"piece {index}"
    assert fields(mine.trainer_spec, RUN_FIELDS) == fields(theirs.trainer_spec, RUN_FIELDS)
    assert fields(mine.normalizer_spec) == fields(theirs.normalizer_spec)
    assert mine.HasField("denormalizer_spec") == theirs.HasField("denormalizer_spec")
    if held_out is not None:
        our_processor = sentencepiece.SentencePieceProcessor(model_proto=ours)
        reference_processor = sentencepiece.SentencePieceProcessor(model_proto=reference)
        assert our_processor.encode(held_out) == reference_processor.encode(held_out)
