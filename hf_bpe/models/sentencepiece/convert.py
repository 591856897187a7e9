"""A SentencePiece ``tokenizer.model`` as the ``tokenizer.json`` document transformers makes of it, so that hf_bpe's
pipeline twins run it and give ``SentencePieceProcessor.encode``'s ids.

The reference is what transformers v5 builds for a directory holding a ``tokenizer.model`` alone
(``TokenizersBackend._convert_from_sentencepiece``, whose model-agnostic ``SpmConverter.build_tokenizer_from_spm_proto``
follows the model's own normalizer spec, ranks BPE merges by piece score and isolates user-defined pieces, so that it
encodes as sentencepiece does), as ``TokenizersBackend.backend_tokenizer.to_str()`` writes it: the added tokens its
special-token roles and control pieces give, and the empty template its ``update_post_processor`` sets. This module
owns that document and the refusals of what the document cannot say; reading the file is :mod:`.model_proto`'s, and
running the document is the pipeline's (:func:`hf_bpe.tokenizer.serialization.pipeline_from_data`).

Where sentencepiece and the document disagree, hf_bpe follows the document (transformers and the Rust backend run
the same one): a control piece's text in the input (``"</s>"``) is that piece here, as an added token, while
``SentencePieceProcessor`` encodes such text as ordinary pieces.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hf_bpe.models.directory import TOKENIZER_CONFIG_FILE, read_tokenizer_config
from hf_bpe.models.sentencepiece.model_proto import ModelProto, ModelType, PieceType, read_model_proto

#: The file a SentencePiece model directory holds (transformers' ``vocab_files_names["vocab_file"]``).
SENTENCEPIECE_FILE = "tokenizer.model"
#: sentencepiece's meta symbol for white space (U+2581), the one transformers' conversion writes.
METASPACE = "\u2581"
#: ``tokenizer_config.json`` keys that change the document transformers builds; hf_bpe applies none of them, so a
#: directory setting one is refused rather than loaded as if it did not (``legacy`` true is the default).
_CONFIG_REFUSED = ("add_bos_token", "add_eos_token", "added_tokens_decoder", "extra_special_tokens")


class UnsupportedModel(ValueError):
    """A ``tokenizer.model`` asking for what the ``tokenizer.json`` document (or hf_bpe) cannot express; the message
    names the file, the field and its value."""


def from_sentencepiece_model(path: str | os.PathLike[str], config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``tokenizer.json`` document (a dict, as ``json.loads`` gives it) transformers makes of a
    ``tokenizer.model``.

    Args:
        path: the ``tokenizer.model`` file.
        config: the directory's ``tokenizer_config.json``, where it has one (see :func:`config_refusal`).

    Raises:
        FileNotFoundError: naming ``path`` where there is no such file.
        ~hf_bpe.models.sentencepiece.model_proto.MalformedModel: naming the byte offset and field of a broken file.
        UnsupportedModel: naming the field and value hf_bpe does not implement.
    """
    if config is not None and (refusal := config_refusal(config)) is not None:
        raise UnsupportedModel(f"{Path(path).parent / TOKENIZER_CONFIG_FILE}: {refusal}")
    return tokenizer_json(read_model_proto(path), str(path))


def sentencepiece_directory(directory: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, str]]:
    """A directory holding a ``tokenizer.model`` (and maybe a ``tokenizer_config.json``) as transformers loads it:
    the document, and the special-token roles (``bos_token``, ``eos_token``, ``unk_token``) it takes from the
    trainer spec where the model has those pieces (``_convert_from_sentencepiece``).

    Raises:
        As :func:`from_sentencepiece_model`.
    """
    path = Path(directory) / SENTENCEPIECE_FILE
    config = read_tokenizer_config(directory)
    if (refusal := config_refusal(config)) is not None:
        raise UnsupportedModel(f"{Path(directory) / TOKENIZER_CONFIG_FILE}: {refusal}")
    model = read_model_proto(path)
    document = tokenizer_json(model, str(path))
    spec = model.trainer_spec
    roles = {"bos_token": (spec.bos_id, spec.bos_piece), "eos_token": (spec.eos_id, spec.eos_piece)}
    roles["unk_token"] = (spec.unk_id, spec.unk_piece)
    return document, {role: piece for role, (piece_id, piece) in roles.items() if piece_id >= 0}


def config_refusal(config: Mapping[str, Any]) -> str | None:
    """Why a ``tokenizer_config.json`` beside a ``tokenizer.model`` alone cannot be honoured, or None.

    transformers builds the model-agnostic document only for ``TokenizersBackend`` (no ``tokenizer_class``, or that
    one); a named class (``LlamaTokenizer``, ``T5Tokenizer``) runs its own converter, which hf_bpe does not
    reproduce. ``legacy: false`` and the keys of :data:`_CONFIG_REFUSED` change the document too.
    """
    named = config.get("tokenizer_class")
    if named not in (None, "TokenizersBackend", "PreTrainedTokenizerFast"):
        return (
            f"tokenizer_class {named!r}: hf_bpe converts a tokenizer.model as transformers' TokenizersBackend does, "
            "not through that class's own converter; remove the key or add the tokenizer.json that class writes"
        )
    if config.get("legacy", True) is not True:
        return f"legacy {config['legacy']!r}: only the legacy dummy prefix (legacy: true, the default) is implemented"
    for key in _CONFIG_REFUSED:
        if config.get(key):
            return f"{key} {config[key]!r}: not applied when converting a tokenizer.model; remove it"
    return None


def tokenizer_json(model: ModelProto, where: str) -> dict[str, Any]:
    """The document of a read ``ModelProto`` (``where`` names its file in errors).

    Raises:
        UnsupportedModel: as :func:`from_sentencepiece_model`.

    >>> from hf_bpe.models.sentencepiece.model_proto import Piece, TrainerSpec, NormalizerSpec
    >>> pieces = (Piece("<unk>", 0.0, PieceType.UNKNOWN), Piece("▁a", -1.0), Piece("▁", -2.0), Piece("a", -3.0))
    >>> spec = TrainerSpec(model_type=ModelType.BPE, bos_id=-1, eos_id=-1)
    >>> document = tokenizer_json(ModelProto(pieces, spec, NormalizerSpec()), "m.model")
    >>> document["model"]["merges"], [token["content"] for token in document["added_tokens"]]
    ([['▁', 'a']], ['<unk>'])
    """
    _refuse_unsupported(model, where)
    spec, normalizer_spec = model.trainer_spec, model.normalizer_spec
    user_defined = [piece.piece for piece in model.pieces if piece.type == PieceType.USER_DEFINED]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": _added_tokens(model),
        "normalizer": _normalizer(model),
        "pre_tokenizer": _pre_tokenizer(normalizer_spec.add_dummy_prefix, user_defined),
        # TokenizersBackend.update_post_processor: no BOS or EOS added (add_bos_token and add_eos_token are off).
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {},
        },
        "decoder": _decoder(spec.byte_fallback, normalizer_spec.add_dummy_prefix),
        "model": _bpe(model, bool(user_defined)) if spec.model_type == ModelType.BPE else _unigram(model),
    }


def _refuse_unsupported(model: ModelProto, where: str) -> None:
    """Refuse, by field and value, what the document would silently drop or sentencepiece would do otherwise."""
    spec = model.trainer_spec
    if spec.model_type not in (ModelType.BPE, ModelType.UNIGRAM):
        raise UnsupportedModel(
            f"{where}: trainer_spec.model_type {spec.model_type.name}: only BPE and UNIGRAM models are implemented"
        )
    if spec.treat_whitespace_as_suffix:
        # transformers' conversion puts "▁" before words whatever this says; sentencepiece puts it after them.
        raise UnsupportedModel(f"{where}: trainer_spec.treat_whitespace_as_suffix true: not implemented")
    if model.denormalizer_spec is not None and model.denormalizer_spec.precompiled_charsmap:
        raise UnsupportedModel(
            f"{where}: denormalizer_spec.precompiled_charsmap ({model.denormalizer_spec.name!r}): decoding through a "
            "denormalizer is not implemented"
        )
    if not model.pieces:
        raise UnsupportedModel(f"{where}: pieces: the model has no pieces")
    if not 0 <= spec.unk_id < len(model.pieces) or model.pieces[spec.unk_id].type != PieceType.UNKNOWN:
        raise UnsupportedModel(f"{where}: trainer_spec.unk_id {spec.unk_id}: not the id of the model's UNKNOWN piece")
    for index, piece in enumerate(model.pieces):
        if piece.type == PieceType.UNUSED:
            # sentencepiece never emits an unused piece; the document's model would.
            raise UnsupportedModel(f"{where}: pieces[{index}] {piece.piece!r}: type UNUSED is not implemented")
        if not piece.piece:
            raise UnsupportedModel(f"{where}: pieces[{index}]: an empty piece")


def _added_tokens(model: ModelProto) -> list[dict[str, Any]]:
    """The control pieces (``SentencePieceExtractor.extract``'s special added tokens) and the unknown, BOS and EOS
    pieces (the special-token roles ``_convert_from_sentencepiece`` takes from the trainer spec), by id."""
    spec = model.trainer_spec
    roles = {spec.unk_id, spec.bos_id, spec.eos_id} - {-1}
    ids = [i for i, piece in enumerate(model.pieces) if piece.type == PieceType.CONTROL or i in roles]
    return [
        {
            "id": i,
            "content": model.pieces[i].piece,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for i in ids
    ]


def _normalizer(model: ModelProto) -> dict[str, Any]:
    """``build_tokenizer_from_spm_proto``'s normalizers, in sentencepiece's order: the charsmap, the extra spaces
    removed (spaces only, as sentencepiece), spaces escaped, and the dummy prefix doubled where the text already
    starts with ``▁`` (``Metaspace`` would skip it; sentencepiece does not)."""
    spec = model.normalizer_spec
    parts: list[dict[str, Any]] = []
    if spec.precompiled_charsmap:
        charsmap = base64.b64encode(spec.precompiled_charsmap).decode("ascii")
        parts.append({"type": "Precompiled", "precompiled_charsmap": charsmap})
    if spec.remove_extra_whitespaces:
        parts.append({"type": "Replace", "pattern": {"Regex": r"\A +| +\z"}, "content": ""})
        parts.append({"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "})
    if spec.escape_whitespaces:
        parts.append({"type": "Replace", "pattern": {"String": " "}, "content": METASPACE})
    if spec.add_dummy_prefix:
        parts.append({"type": "Replace", "pattern": {"Regex": rf"\A{METASPACE}"}, "content": METASPACE * 2})
    return {"type": "Sequence", "normalizers": parts}


def _pre_tokenizer(add_dummy_prefix: bool, user_defined: list[str]) -> dict[str, Any] | None:
    """``Metaspace`` for the dummy prefix (no split), then user-defined pieces isolated, longest first (sentencepiece
    emits them whole); None where neither applies."""
    parts: list[dict[str, Any]] = []
    if add_dummy_prefix:
        parts.append({"type": "Metaspace", "replacement": METASPACE, "prepend_scheme": "always", "split": False})
    if user_defined:
        # Python's re.escape and a stable longest-first sort, as the reference builds the pattern.
        pattern = "|".join(re.escape(piece) for piece in sorted(user_defined, key=len, reverse=True))
        parts.append({"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False})
    return {"type": "Sequence", "pretokenizers": parts} if parts else None


def _decoder(byte_fallback: bool, add_dummy_prefix: bool) -> dict[str, Any]:
    """``▁`` back to spaces, bytes fused back to text, and the dummy prefix's space stripped."""
    parts: list[dict[str, Any]] = [{"type": "Replace", "pattern": {"String": METASPACE}, "content": " "}]
    if byte_fallback:
        parts.append({"type": "ByteFallback"})
    if add_dummy_prefix:
        parts += [{"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]
    elif byte_fallback:
        parts.append({"type": "Fuse"})
    return {"type": "Sequence", "decoders": parts}


def _bpe(model: ModelProto, ignore_merges: bool) -> dict[str, Any]:
    """The BPE model: every piece by id, and merges of NORMAL pieces into NORMAL pieces ranked by the merged piece's
    score (higher first), then its id, then the split's text (sentencepiece merges the best-scored pair first)."""
    vocab = {piece.piece: i for i, piece in enumerate(model.pieces)}
    normal = {piece.piece: (piece.score, i) for i, piece in enumerate(model.pieces) if piece.type == PieceType.NORMAL}
    ranked = []
    for token, (score, token_id) in normal.items():
        for split in range(1, len(token)):
            left, right = token[:split], token[split:]
            if left in normal and right in normal:
                ranked.append((-score, token_id, left, right))
    ranked.sort()
    spec = model.trainer_spec
    return {
        "type": "BPE",
        "dropout": None,
        "unk_token": spec.unk_piece,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": True,
        "byte_fallback": spec.byte_fallback,
        "ignore_merges": ignore_merges,
        "vocab": vocab,
        "merges": [[left, right] for _, _, left, right in ranked],
    }


def _unigram(model: ModelProto) -> dict[str, Any]:
    """The Unigram model: every piece with its score, by id."""
    spec = model.trainer_spec
    return {
        "type": "Unigram",
        "unk_id": spec.unk_id,
        "vocab": [[piece.piece, piece.score] for piece in model.pieces],
        "byte_fallback": spec.byte_fallback,
    }
