"""A SentencePiece ``tokenizer.model`` read by hf_bpe (:mod:`hf_bpe.models.sentencepiece`), judged in each test by
sentencepiece 0.2.3 itself (its protobuf module for the file, ``SentencePieceProcessor.encode`` for ids and pieces)
and by transformers v5, which converts a directory holding the file alone (``TokenizersBackend``) into the
``tokenizer.json`` the Rust backend runs.

Models: real ones (:data:`real_tokenizers.SENTENCEPIECE_MODELS`: Mistral's BPE files, sentencepiece's own BPE and
Unigram test models) and small ones trained here with ``SentencePieceTrainer`` (BPE and Unigram, byte fallback on and
off, user-defined and control symbols, other normalization rules).

Where sentencepiece and transformers' conversion disagree, hf_bpe runs the conversion (the Rust backend's document):
:func:`test_where_sentencepiece_and_the_conversion_disagree` pins the two cases known.
"""

from __future__ import annotations

import io
import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest
import sentencepiece
from conftest import multilingual_text
from real_tokenizers import SENTENCEPIECE_MODELS, sentencepiece_model
from sentencepiece import sentencepiece_model_pb2

import hf_bpe
from hf_bpe.models.sentencepiece.convert import UnsupportedModel, from_sentencepiece_model
from hf_bpe.models.sentencepiece.model_proto import MalformedModel, ModelType, read_model_proto

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from transformers import AutoTokenizer, TokenizersBackend

TEXT = multilingual_text(150, seed=7)
LINES = [*TEXT.splitlines(keepends=True), TEXT]

#: SentencePieceTrainer options of the models trained here, by a readable id.
TRAINED: dict[str, dict[str, Any]] = {
    "bpe": {"model_type": "bpe", "vocab_size": 600},
    "bpe_byte_fallback": {"model_type": "bpe", "vocab_size": 700, "byte_fallback": True},
    "unigram": {"model_type": "unigram", "vocab_size": 600},
    "unigram_byte_fallback": {"model_type": "unigram", "vocab_size": 700, "byte_fallback": True},
    "bpe_symbols": {
        "model_type": "bpe",
        "vocab_size": 600,
        "user_defined_symbols": ["<tab>", "foo", "<tab>x"],
        "control_symbols": ["<ctl>", "<sep>"],
        "pad_id": 3,
    },
    "unigram_symbols": {
        "model_type": "unigram",
        "vocab_size": 600,
        "user_defined_symbols": ["hello", "<u>"],
        "control_symbols": ["<ctl>"],
        "bos_id": -1,
    },
    "unigram_identity_digits": {
        "model_type": "unigram",
        "vocab_size": 600,
        "normalization_rule_name": "identity",
        "split_digits": True,
    },
    "unigram_nmt_nfkc_cf": {
        "model_type": "unigram",
        "vocab_size": 600,
        "normalization_rule_name": "nmt_nfkc_cf",
        "byte_fallback": True,
    },
    "bpe_no_dummy_prefix": {
        "model_type": "bpe",
        "vocab_size": 600,
        "add_dummy_prefix": False,
        "remove_extra_whitespaces": False,
    },
}


def train(directory: Path, **options: Any) -> Path:
    """A ``tokenizer.model`` trained by sentencepiece on multilingual text, alone in ``directory``."""
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(multilingual_text(400, seed=1).splitlines()),
        model_writer=model,
        **{"num_threads": 1, "character_coverage": 1.0, "hard_vocab_limit": False, "minloglevel": 2, **options},
    )
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "tokenizer.model"
    path.write_bytes(model.getvalue())
    return path


def alone(path: Path, directory: Path) -> Path:
    """A directory holding ``path`` as its ``tokenizer.model`` and nothing else."""
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, directory / "tokenizer.model")
    return directory


def rust_backend(directory: Path) -> Any:
    """transformers' own conversion of a directory holding a ``tokenizer.model`` alone: the Rust tokenizer."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return TokenizersBackend.from_pretrained(str(directory))._tokenizer


def check_against_references(directory: Path, lines: list[str]) -> None:
    """The converted document is transformers' (as the Rust backend writes it), and hf_bpe's tokenizer of it gives
    ``SentencePieceProcessor.encode``'s ids and pieces on every line."""
    model = directory / "tokenizer.model"
    rust = rust_backend(directory)
    ours = hf_bpe.Tokenizer.from_sentencepiece(model)
    assert ours.to_str() == rust.to_str()
    assert hf_bpe.Tokenizer.from_str(json.dumps(from_sentencepiece_model(model))).to_str() == rust.to_str()
    processor = sentencepiece.SentencePieceProcessor(model_file=str(model))
    bpe = read_model_proto(model).trainer_spec.model_type == ModelType.BPE
    for line in lines:
        encoding = ours.encode(line, add_special_tokens=False)
        assert encoding.ids == processor.encode(line), line
        assert encoding.tokens == pieces(processor, line, bpe), line


def pieces(processor: Any, text: str, bpe: bool) -> list[str]:
    """``encode(text, out_type=str)``; in a BPE model, an unknown piece named as its id's piece (``<unk>``), as
    tokenizers' BPE names it, where sentencepiece gives the text it covers (as tokenizers' Unigram does; the ids
    are the same)."""
    ids = processor.encode(text)
    named = processor.encode(text, out_type=str)
    unknown = [bpe and processor.is_unknown(i) for i in ids]
    return [processor.id_to_piece(i) if unk else piece for i, piece, unk in zip(ids, named, unknown, strict=True)]


# -- reading the file --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SENTENCEPIECE_MODELS))
def test_model_proto_reads_as_sentencepiece_does(name: str) -> None:
    path = sentencepiece_model(name)
    expected = sentencepiece_model_pb2.ModelProto()
    expected.ParseFromString(path.read_bytes())
    found = read_model_proto(path)
    assert [(p.piece, p.score, p.type) for p in found.pieces] == [(p.piece, p.score, p.type) for p in expected.pieces]
    for spec in ("trainer_spec", "normalizer_spec"):
        wanted = {
            key: tuple(value) if isinstance(value, list) else value
            for key, value in _descriptor_values(getattr(expected, spec)).items()
        }
        assert {key: getattr(getattr(found, spec), key) for key in wanted} == wanted
    assert (found.denormalizer_spec is not None) == expected.HasField("denormalizer_spec")


def _descriptor_values(message: Any) -> dict[str, Any]:
    return {field.name: _plain(getattr(message, field.name)) for field in message.DESCRIPTOR.fields}


def _plain(value: Any) -> Any:
    return value if isinstance(value, (str, bytes, int, float)) else list(value)


def test_every_trainer_field_is_read(tmp_path: Path) -> None:
    """Negative ids, repeated symbols, floats and every normalizer flag, off their defaults."""
    path = train(
        tmp_path,
        model_type="bpe",
        vocab_size=500,
        user_defined_symbols=["foo", "bar"],
        control_symbols=["<c>"],
        bos_id=-1,
        pad_id=3,
        eos_piece="<end>",
        add_dummy_prefix=False,
        remove_extra_whitespaces=False,
        character_coverage=0.9876,
        split_digits=True,
    )
    expected = sentencepiece_model_pb2.ModelProto()
    expected.ParseFromString(path.read_bytes())
    found = read_model_proto(path)
    for spec in ("trainer_spec", "normalizer_spec"):
        wanted = _descriptor_values(getattr(expected, spec))
        got = {key: _plain(getattr(getattr(found, spec), key)) for key in wanted}
        assert got == wanted
    assert found.trainer_spec.bos_id == -1 and found.trainer_spec.user_defined_symbols == ("foo", "bar")


def test_malformed_model_refused_by_offset_and_field(tmp_path: Path) -> None:
    data = sentencepiece_model("botchan_unigram").read_bytes()
    cut = tmp_path / "cut.model"
    cut.write_bytes(data[:1000])
    with pytest.raises(RuntimeError):
        sentencepiece.SentencePieceProcessor(model_file=str(cut))  # the reference refuses it too
    with pytest.raises(MalformedModel, match=r"cut\.model: byte 997: field 1 needs 13 bytes, 1 are left"):
        read_model_proto(cut)
    wrong = tmp_path / "wrong.model"
    wrong.write_bytes(b"\x0a\x03\x15\x00\x00")  # pieces[0].score as a varint-less 3-byte fixed32
    with pytest.raises(MalformedModel, match=r"wrong\.model: byte 2: field 2 in pieces needs 4 bytes, 2 are left"):
        read_model_proto(wrong)
    bad_type = tmp_path / "type.model"
    bad_type.write_bytes(b"\x0a\x05\x0a\x01a\x18\x09")
    with pytest.raises(MalformedModel, match=r"type\.model: byte 5: field pieces\.type is 9, not one of NORMAL=1"):
        read_model_proto(bad_type)


# -- encoding ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SENTENCEPIECE_MODELS))
def test_real_model_encodes_as_sentencepiece(name: str, tmp_path: Path) -> None:
    check_against_references(alone(sentencepiece_model(name), tmp_path), LINES)


@pytest.mark.parametrize("name", [name for name in TRAINED if name != "bpe_no_dummy_prefix"])
def test_trained_model_encodes_as_sentencepiece(name: str, tmp_path: Path) -> None:
    train(tmp_path, **TRAINED[name])
    check_against_references(tmp_path, LINES)


def test_no_dummy_prefix_nor_whitespace_removal(tmp_path: Path) -> None:
    """Everything but CRLF line ends, which sentencepiece and the conversion normalize apart (see below)."""
    train(tmp_path, **TRAINED["bpe_no_dummy_prefix"])
    check_against_references(tmp_path, [line.replace("\r\n", "\n") for line in LINES])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mistral_v3", "kyoto_ja_unigram"])
def test_real_model_on_debian_corpora(name: str, debian_corpora: dict[str, Path], tmp_path: Path) -> None:
    lines = []
    for corpus in sorted(debian_corpora):
        text = debian_corpora[corpus].read_text(encoding="utf-8")
        lines += text[:60_000].splitlines(keepends=True)
    check_against_references(alone(sentencepiece_model(name), tmp_path), lines)


def test_where_sentencepiece_and_the_conversion_disagree(tmp_path: Path) -> None:
    """hf_bpe gives the Rust backend's ids where transformers' conversion and sentencepiece part: a control piece's
    text in the input is that piece (an added token) for the conversion, ordinary text for sentencepiece; and with
    ``remove_extra_whitespaces`` off, tokenizers' ``Precompiled`` maps the CRLF grapheme to one space, sentencepiece
    to two."""
    cases = [(sentencepiece_model("botchan_unigram"), "say </s> hi"), (None, "a\r\nb")]
    for model, text in cases:
        directory = tmp_path / text.replace("\r\n", "crlf").replace(" ", "_").replace("/", "")
        if model is None:
            train(directory, **TRAINED["bpe_no_dummy_prefix"])
        else:
            alone(model, directory)
        processor = sentencepiece.SentencePieceProcessor(model_file=str(directory / "tokenizer.model"))
        rust = rust_backend(directory).encode(text, add_special_tokens=False)
        ours = hf_bpe.Tokenizer.from_str(json.dumps(from_sentencepiece_model(directory / "tokenizer.model")))
        assert ours.encode(text, add_special_tokens=False).tokens == rust.tokens
        assert rust.tokens != processor.encode(text, out_type=str)
    assert rust.tokens == ["a", "▁", "b"] and processor.encode(text, out_type=str) == ["a", "▁", "▁", "b"]


# -- loading a directory -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["mistral_v3", "botchan_unigram", "trained_bpe_symbols"])
def test_from_pretrained_directory_with_tokenizer_model_alone(name: str, tmp_path: Path) -> None:
    if name.startswith("trained_"):
        directory = tmp_path
        train(directory, **TRAINED[name.removeprefix("trained_")])
    else:
        directory = alone(sentencepiece_model(name), tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = AutoTokenizer.from_pretrained(str(directory))
    ours = hf_bpe.from_pretrained(directory)
    processor = sentencepiece.SentencePieceProcessor(model_file=str(directory / "tokenizer.model"))
    rows, expected = ours(LINES[:40])["input_ids"], reference(LINES[:40])["input_ids"]
    assert rows == expected == [processor.encode(line) for line in LINES[:40]]
    assert ours.special_tokens_map == reference.special_tokens_map
    assert ours.decode(rows[3]) == reference.decode(expected[3])
    saved = tmp_path / "saved"
    ours.save_pretrained(str(saved))
    assert json.loads((saved / "tokenizer.json").read_text()) == json.loads(rust_backend(directory).to_str())


# -- refusals ------------------------------------------------------------------------------------------------------


def test_what_the_conversion_cannot_express_is_refused(tmp_path: Path) -> None:
    suffix = train(tmp_path / "suffix", model_type="bpe", vocab_size=500, treat_whitespace_as_suffix=True)
    with pytest.raises(UnsupportedModel, match="treat_whitespace_as_suffix true: not implemented"):
        from_sentencepiece_model(suffix)
    char = train(tmp_path / "char", model_type="char", vocab_size=300)
    with pytest.raises(UnsupportedModel, match=r"trainer_spec\.model_type CHAR: only BPE and UNIGRAM"):
        from_sentencepiece_model(char)
    unused = tmp_path / "unused"
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(sentencepiece_model("botchan_unigram").read_bytes())
    proto.pieces[500].type = sentencepiece_model_pb2.ModelProto.SentencePiece.UNUSED
    unused.mkdir()
    (unused / "tokenizer.model").write_bytes(proto.SerializeToString())
    with pytest.raises(UnsupportedModel, match=r"pieces\[500\] .*: type UNUSED is not implemented"):
        from_sentencepiece_model(unused / "tokenizer.model")
    processor = sentencepiece.SentencePieceProcessor(model_file=str(unused / "tokenizer.model"))
    assert 500 not in processor.encode(TEXT)  # sentencepiece never emits it, the converted model would


def test_a_config_naming_another_class_is_refused(tmp_path: Path) -> None:
    directory = alone(sentencepiece_model("mistral_v1"), tmp_path)
    (directory / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "LlamaTokenizer"}))
    with pytest.raises(UnsupportedModel, match="tokenizer_class 'LlamaTokenizer'"):
        hf_bpe.from_pretrained(directory)
    (directory / "tokenizer_config.json").write_text(json.dumps({"add_bos_token": True}))
    with pytest.raises(UnsupportedModel, match="add_bos_token True: not applied"):
        hf_bpe.from_pretrained(directory)
