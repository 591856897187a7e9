"""Decoders as ``tokenizers`` applies them: the tokens of ``decode`` back to text.

Each class has the name and JSON fields of its ``tokenizers`` original and maps a list of token strings to a list
of strings (``decode_chain``); :class:`DecoderSequence` runs them in turn and joins the result, as
``Tokenizer::decode`` does. :func:`decoder_from_json` reads a ``tokenizer.json``'s ``decoder`` section, or raises
:class:`~hf_bpe.pipeline.component.UnknownComponent` at the JSON path of what it does not implement.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import regex

from hf_bpe.pipeline.component import UnknownComponent, kind_of, pattern_from_json, string_field


def _byte_of(token: str) -> int | None:
    """The byte a ``<0xXX>`` token stands for (None for any other token)."""
    if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
        try:
            return int(token[3:5], 16)
        except ValueError:
            return None
    return None


@dataclasses.dataclass(frozen=True)
class ByteFallback:
    """``decoders.ByteFallback``: each run of ``<0xXX>`` tokens becomes its UTF-8 text, or one U+FFFD per token
    where the bytes are not valid UTF-8.

    >>> ByteFallback().decode_chain(["a", "<0xE2>", "<0x82>", "<0xAC>", "b", "<0xE2>", "<0x82>"])
    ['a', '€', 'b', '\\ufffd', '\\ufffd']
    """

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        pending = bytearray()
        for token in [*tokens, None]:
            byte = None if token is None else _byte_of(token)
            if byte is not None:
                pending.append(byte)
                continue
            if pending:
                try:
                    out.append(pending.decode("utf-8"))
                except UnicodeDecodeError:
                    out += ["\ufffd"] * len(pending)
                pending.clear()
            if token is not None:
                out.append(token)
        return out


@dataclasses.dataclass(frozen=True)
class Fuse:
    """``decoders.Fuse``: all tokens as one string."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return ["".join(tokens)]


@dataclasses.dataclass(frozen=True)
class Strip:
    """``decoders.Strip``: up to ``start`` leading and ``stop`` trailing ``content`` characters off each token."""

    content: str
    start: int
    stop: int

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for token in tokens:
            begin = 0
            while begin < min(self.start, len(token)) and token[begin] == self.content:
                begin += 1
            end = len(token)
            while len(token) - end < self.stop and end > begin and token[end - 1] == self.content:
                end -= 1
            out.append(token[begin:end])
        return out


@dataclasses.dataclass(frozen=True)
class DecoderReplace:
    """``decoders.Replace``: in each token, every match of ``pattern`` becomes ``content``."""

    pattern: regex.Pattern[str]
    content: str

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self.pattern.sub(lambda _: self.content, token) for token in tokens]


@dataclasses.dataclass(frozen=True)
class DecoderSequence:
    """``decoders.Sequence``: each in turn; ``decode`` joins what the last gives (no decoder: tokens joined by a
    space, as ``Tokenizer::decode`` does)."""

    decoders: tuple[Any, ...]

    def decode(self, tokens: Sequence[str]) -> str:
        if not self.decoders:
            return " ".join(tokens)
        chain = list(tokens)
        for decoder in self.decoders:
            chain = decoder.decode_chain(chain)
        return "".join(chain)


def decoder_from_json(data: Any, path: str = "decoder") -> DecoderSequence:
    """The decoder a ``tokenizer.json``'s ``decoder`` section describes.

    >>> decoder_from_json({"type": "Sequence", "decoders": [{"type": "ByteFallback"}, {"type": "Fuse"}]}).decode(
    ...     ["a", "<0x21>"])
    'a!'

    Raises:
        UnknownComponent: naming the JSON path of a decoder or setting not implemented here.
    """
    kind = kind_of(data, path, "decoder")
    if kind is None:
        return DecoderSequence(())
    if kind == "Sequence":
        parts = data.get("decoders") or []
        return DecoderSequence(
            tuple(
                decoder
                for index, part in enumerate(parts)
                for decoder in decoder_from_json(part, f"{path}.decoders[{index}]").decoders
            )
        )
    read = _READERS.get(kind)
    if read is None:
        raise UnknownComponent(f"{path}.type", kind, f"the decoder {kind!r}")
    return DecoderSequence((read(data, path),))


def _strip_from_json(data: Mapping[str, Any], path: str) -> Strip:
    content, start, stop = data.get("content"), data.get("start"), data.get("stop")
    if not isinstance(content, str) or len(content) != 1:
        raise UnknownComponent(f"{path}.content", content, "a Strip content that is not one character")
    if type(start) is not int or type(stop) is not int or start < 0 or stop < 0:
        raise UnknownComponent(f"{path}.start", start, "Strip counts that are not non-negative integers")
    return Strip(content, start, stop)


#: How each decoder is read from its JSON object (``Sequence`` aside).
_READERS: dict[str, Callable[[Mapping[str, Any], str], Any]] = {
    "ByteFallback": lambda data, path: ByteFallback(),
    "Fuse": lambda data, path: Fuse(),
    "Strip": _strip_from_json,
    "Replace": lambda data, path: DecoderReplace(
        pattern_from_json(data.get("pattern"), f"{path}.pattern"), string_field(data, "content", path, "a replacement")
    ),
}
