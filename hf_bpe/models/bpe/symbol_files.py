"""Reading and writing the ``tokenizer.json`` of a SentencePiece-style BPE (Gemma, Mistral-7B, Llama-2, Yi,
InternLM2, Baichuan2, ChatGLM3): a BPE model on characters with byte fallback, behind normalizers such as
``Replace(" ", "▁")`` and ``Prepend("▁")``, decoded by ``Replace``, ``ByteFallback``, ``Fuse`` and ``Strip``.

Every section is read into its twin (the stages of :mod:`hf_bpe.pipeline`,
:class:`hf_bpe.models.bpe.symbols.SymbolBPE`); what they do not implement is refused by its JSON path
(:class:`hf_bpe.pipeline.tokenizer_json.UnsupportedComponent`). Writing gives back the file's sections as read,
with the tokenizer's added tokens, without the ``tokenizers`` library.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hf_bpe.models.bpe.files import model_vocab_and_merges, read_bpe_json
from hf_bpe.models.bpe.symbols import SymbolBPE
from hf_bpe.pipeline.component import UnknownComponent
from hf_bpe.pipeline.decoders import DecoderSequence, decoder_from_json
from hf_bpe.pipeline.normalizers import NormalizerSequence, normalizer_from_json
from hf_bpe.pipeline.pre_tokenizers import PreTokenizerSequence, pre_tokenizer_from_json
from hf_bpe.pipeline.processors import TemplateProcessing, template_of
from hf_bpe.pipeline.tokenizer_json import refuse_unsupported, unsupported, value_at

OWNER = "SentencePieceBPETokenizer"
#: The model settings the twin implements, and the values it takes of those it does not.
MODEL_SETTINGS = ("unk_token", "fuse_unk", "byte_fallback", "ignore_merges")
NOT_IMPLEMENTED = {"continuing_subword_prefix": (None, ""), "end_of_word_suffix": (None, ""), "dropout": (None, 0)}


@dataclasses.dataclass(frozen=True)
class SymbolBpeJson:
    """A SentencePiece-style BPE ``tokenizer.json``, read.

    Attributes:
        model: the BPE model.
        merges: its merges in rank order (for writing).
        normalizer, pre_tokenizer, decoder: the twins of those sections.
        template: the post-processor's template, or None where it adds nothing.
        added_tokens: the ``added_tokens`` entries as written.
        sections: the file's ``normalizer``, ``pre_tokenizer``, ``post_processor`` and ``decoder`` as written.
    """

    model: SymbolBPE
    merges: list[tuple[str, str]]
    normalizer: NormalizerSequence
    pre_tokenizer: PreTokenizerSequence
    decoder: DecoderSequence
    template: TemplateProcessing | None
    added_tokens: list[dict[str, Any]]
    sections: dict[str, Any]


def is_symbol_bpe(data: Mapping[str, Any]) -> bool:
    """Whether a parsed ``tokenizer.json`` is BPE without the byte-level alphabet (no ``ByteLevel`` pre-tokenizer or
    decoder): the SentencePiece-style files :func:`read_symbol_bpe_json` reads."""
    model = data.get("model") or {}
    if not isinstance(model, Mapping) or model.get("type") != "BPE":
        return False
    byte_level = "ByteLevel" in {*_types(data.get("pre_tokenizer")), *_types(data.get("decoder"))}
    return not byte_level and not model.get("continuing_subword_prefix") and not model.get("end_of_word_suffix")


def _types(component: Any) -> Iterator[Any]:
    """The ``type`` of a pre-tokenizer or decoder section and of every part of its ``Sequence``."""
    if isinstance(component, Mapping):
        yield component.get("type")
        for part in component.get("pretokenizers") or component.get("decoders") or []:
            yield from _types(part)


def read_symbol_bpe_json(path: str | os.PathLike[str]) -> SymbolBpeJson:
    """Read a SentencePiece-style BPE ``tokenizer.json``.

    Raises:
        FileNotFoundError: if there is no such file.
        ValueError: naming the file, if it is not JSON or not such a BPE; an
            :class:`~hf_bpe.pipeline.tokenizer_json.UnsupportedComponent` naming the JSON path of what is not
            implemented.
    """
    path = Path(path)
    data, model = read_bpe_json(path, f"{OWNER} reads BPE")
    for name, allowed in NOT_IMPLEMENTED.items():
        if model.get(name) not in allowed:
            raise unsupported(path, f"model.{name}", model[name], name.replace("_", " "), OWNER)
    refuse_unsupported(data, path, OWNER, post_processor=lambda part: None, decoder=lambda part: None)
    try:
        normalizer = normalizer_from_json(data.get("normalizer"))
        pre_tokenizer = pre_tokenizer_from_json(data.get("pre_tokenizer"))
        decoder = decoder_from_json(data.get("decoder"))
        template = _template(data.get("post_processor"))
    except UnknownComponent as e:
        raise unsupported(path, e.path, e.value, e.what, OWNER) from None
    vocab, merges = model_vocab_and_merges(model, path)
    try:
        bpe = SymbolBPE(
            vocab,
            merges,
            unk_token=model.get("unk_token"),
            fuse_unk=bool(model.get("fuse_unk")),
            byte_fallback=bool(model.get("byte_fallback")),
            ignore_merges=bool(model.get("ignore_merges")),
        )
    except ValueError as e:
        raise ValueError(f"{path}: model: {e}") from None
    sections = {key: data.get(key) for key in ("normalizer", "pre_tokenizer", "post_processor", "decoder")}
    return SymbolBpeJson(
        bpe, merges, normalizer, pre_tokenizer, decoder, template, list(data.get("added_tokens") or []), sections
    )


def _template(post_processor: Any) -> TemplateProcessing | None:
    """The post-processor's template; anything else is refused (these files have no byte-level offsets to trim)."""
    if post_processor is None:
        return None
    if isinstance(post_processor, Mapping) and post_processor.get("type") == "Sequence":
        parts = [(f"post_processor.processors[{i}]", p) for i, p in enumerate(post_processor.get("processors") or [])]
    else:
        parts = [("post_processor", post_processor)]
    for where, part in parts:
        kind = part.get("type") if isinstance(part, Mapping) else part
        if kind != "TemplateProcessing":
            raise UnknownComponent(f"{where}.type", kind, "this post-processor")
    try:
        return template_of(post_processor)
    except ValueError as e:
        where, _, why = str(e).partition(": ")
        raise UnknownComponent(where, value_at(post_processor, where), f"a template with {why}") from None


def symbol_bpe_json(read: SymbolBpeJson, added_tokens: list[dict[str, Any]]) -> str:
    """The ``tokenizer.json`` text of ``read`` with ``added_tokens`` (entries as the file writes them)."""
    model = read.model
    data = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added_tokens,
        **{key: read.sections[key] for key in ("normalizer", "pre_tokenizer", "post_processor", "decoder")},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": model.unk_token,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": model.fuse_unk,
            "byte_fallback": model.byte_fallback,
            "ignore_merges": model.ignore_merges,
            "vocab": dict(sorted(model.vocab.items(), key=lambda item: item[1])),
            "merges": [[left, right] for left, right in read.merges],
        },
    }
    return json.dumps(data, ensure_ascii=False, indent=2)
