"""hf_bpe's SentencePiece BPE trainer (:mod:`hf_bpe.models.sentencepiece.train_bpe`) judged in each test by
sentencepiece 0.2.3's own ``SentencePieceTrainer`` (``model_type=bpe``) on the same text: both ``.model`` files are
parsed with sentencepiece's own ``sentencepiece_model_pb2`` and compared field by field (every piece, score and type;
the trainer spec but its input and model prefix; the normalizer spec), and both encode held-out text with
``SentencePieceProcessor`` to the same ids.

Corpora: slices of the Debian English, Japanese, Chinese and Russian corpora (``debian_corpora``) and Python's own
standard library sources (code: long lines, digits, indentation runs).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import sentencepiece
from sentencepiece import sentencepiece_model_pb2

from hf_bpe.models.sentencepiece.train_bpe import SentencePieceOptions, count_words, train_bpe, train_bpe_from_text

#: Training slice (bytes) and held-out slice of each corpus.
TRAIN = slice(0, 200_000)
HELD_OUT = slice(700_000, 800_000)


def _lines(data: bytes) -> list[bytes]:
    """Whole lines of a byte slice (its cut first and last lines dropped)."""
    return data[data.index(b"\n") + 1 : data.rindex(b"\n")].split(b"\n")


def _code() -> bytes:
    """Python's standard library sources, the code corpus."""
    stdlib = Path(os.__file__).parent
    return b"".join(path.read_bytes() for path in sorted(stdlib.glob("[a-q]*.py")))


def _spm_train(tmp_path: Path, lines: list[bytes], **kwargs: Any) -> bytes:
    """The reference: ``SentencePieceTrainer.train`` on ``lines`` written to a file, as ``spm_train`` reads it."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(b"\n".join(lines) + b"\n")
    prefix = tmp_path / "reference"
    sentencepiece.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(prefix), model_type="bpe", minloglevel=2, **kwargs
    )
    return prefix.with_suffix(".model").read_bytes()


def _fields(message: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """A protobuf message's fields by name, with their values (defaults included)."""
    return {
        field.name: value if isinstance(value, (str, bytes, int, float)) else list(value)
        for field in message.DESCRIPTOR.fields
        if field.name not in skip and (value := getattr(message, field.name)) is not None
    }


def _assert_same_model(ours: bytes, reference: bytes, held_out: list[str]) -> None:
    """Equal field by field, and both encode ``held_out`` to the same ids."""
    mine, theirs = sentencepiece_model_pb2.ModelProto(), sentencepiece_model_pb2.ModelProto()
    mine.ParseFromString(ours)
    theirs.ParseFromString(reference)
    pieces = [(p.piece, p.score, p.type) for p in mine.pieces]
    expected = [(p.piece, p.score, p.type) for p in theirs.pieces]
    assert len(pieces) == len(expected)
    for index, (got, want) in enumerate(zip(pieces, expected, strict=True)):
        assert got == want, f"piece {index}"
    skip = ("input", "model_prefix")
    assert _fields(mine.trainer_spec, skip) == _fields(theirs.trainer_spec, skip)
    assert _fields(mine.normalizer_spec) == _fields(theirs.normalizer_spec)
    assert mine.HasField("denormalizer_spec") == theirs.HasField("denormalizer_spec")
    our_processor = sentencepiece.SentencePieceProcessor(model_proto=ours)
    reference_processor = sentencepiece.SentencePieceProcessor(model_proto=reference)
    assert our_processor.encode(held_out) == reference_processor.encode(held_out)


#: (corpus, options) by a readable id; every case uses the identity normalization rule.
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "english_2000": ("english", {"vocab_size": 2000}),
    "english_8000_byte_fallback": ("english", {"vocab_size": 8000, "byte_fallback": True}),
    "japanese_4000": ("japanese", {"vocab_size": 4000}),
    "japanese_coverage_1": ("japanese", {"vocab_size": 3000, "character_coverage": 1.0}),
    "chinese_6000_byte_fallback": ("chinese", {"vocab_size": 6000, "byte_fallback": True}),
    "chinese_symbols": (
        "chinese",
        {
            "vocab_size": 3000,
            "character_coverage": 0.9995,
            "user_defined_symbols": ["的", "ab"],
            "control_symbols": ["<sep>", "<cls>"],
        },
    ),
    "russian_3000": ("russian", {"vocab_size": 3000, "num_threads": 1}),
    "code_3000": ("code", {"vocab_size": 3000}),
    "code_digits_spaces": (
        "code",
        {"vocab_size": 2000, "byte_fallback": True, "split_digits": True, "remove_extra_whitespaces": False},
    ),
    "code_suffix": (
        "code",
        {
            "vocab_size": 2000,
            "treat_whitespace_as_suffix": True,
            "split_by_number": False,
            "max_sentencepiece_length": 8,
        },
    ),
    "code_long_lines_ids": (
        "code",
        {
            "vocab_size": 2000,
            "split_by_unicode_script": False,
            "add_dummy_prefix": False,
            "max_sentence_length": 200,
            "pad_id": 3,
            "bos_id": -1,
            "hard_vocab_limit": False,
        },
    ),
    "code_sentences": ("code", {"vocab_size": 2000, "split_by_whitespace": False}),
    "code_required_chars": ("code", {"vocab_size": 2500, "required_chars": "XYZ€", "unk_piece": "<UNK>"}),
}


@pytest.mark.parametrize("case", CASES)
def test_equals_spm_train(case: str, debian_corpora: dict[str, Path], tmp_path: Path) -> None:
    corpus, options = CASES[case]
    data = _code() if corpus == "code" else debian_corpora[corpus].read_bytes()
    lines, held_out = _lines(data[TRAIN]), _lines(data[HELD_OUT])[:400]
    options = {"normalization_rule_name": "identity", **options}
    reference = _spm_train(tmp_path, lines, **options)
    ours = train_bpe_from_text(lines, **options)
    _assert_same_model(ours, reference, [line.decode("utf-8", "replace") for line in held_out])


def test_counts_from_several_sources_add_up(debian_corpora: dict[str, Path], tmp_path: Path) -> None:
    """Words counted per source and summed train the model ``spm_train`` trains on the whole text."""
    lines = _lines(debian_corpora["russian"].read_bytes()[TRAIN])
    options = SentencePieceOptions.from_kwargs(vocab_size=1500, normalization_rule_name="identity")
    counts = count_words(lines[: len(lines) // 2], options)
    counts.update(count_words(lines[len(lines) // 2 :], options))
    from hf_bpe.models.sentencepiece.model_writer import write_model_proto

    reference = _spm_train(tmp_path, lines, vocab_size=1500, normalization_rule_name="identity")
    _assert_same_model(write_model_proto(train_bpe(counts, options)), reference, ["Привет, мир! 12345"])


def test_a_vocabulary_larger_than_the_corpus_yields_fails_as_spm_train_does(tmp_path: Path) -> None:
    lines = [b"abc abd", b"abc"]
    with pytest.raises(RuntimeError, match="Vocabulary size too high"):
        _spm_train(tmp_path, lines, vocab_size=40, normalization_rule_name="identity")
    with pytest.raises(ValueError, match="vocab_size=40 is too high"):
        train_bpe_from_text(lines, vocab_size=40, normalization_rule_name="identity")


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({}, "normalization_rule_name='nmt_nfkc'"),
        ({"normalization_rule_name": "nfkc"}, "normalization_rule_name='nfkc'"),
        ({"normalization_rule_name": "identity", "seed_sentencepiece_size": 10}, "seed_sentencepiece_size"),
        ({"normalization_rule_name": "identity", "model_type": "unigram"}, "model_type='unigram'"),
        ({"normalization_rule_name": "identity", "allow_whitespace_only_pieces": True}, "allow_whitespace_only"),
        ({"normalization_rule_name": "identity", "input_sentence_size": 1000}, "input_sentence_size"),
        ({"normalization_rule_name": "identity", "character_coverage": 0.5}, "character_coverage=0.5"),
    ],
)
def test_options_not_implemented_or_out_of_range_are_refused_by_name(kwargs: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError, match=named.replace("(", r"\(")):
        SentencePieceOptions.from_kwargs(**kwargs)
