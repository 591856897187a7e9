"""Twins of ``tokenizers``' pipeline components, read from a ``tokenizer.json``'s sections: normalizers that keep
each character's span in the original text, the ``Split`` pre-tokenizer, and decoders.

Each class has the name and the JSON fields of its ``tokenizers`` original and works on text with spans, as
``NormalizedString`` does: a normalizer maps ``(text, spans)`` to ``(text, spans)``, where ``spans[i]`` is the
``(start, end)`` of the original text character ``i`` comes from; the pre-tokenizer cuts such a text into pieces,
each with its spans. A decoder maps the tokens of ``decode`` to strings, as ``decode_chain`` does.
:func:`normalizer_from_json`, :func:`pre_tokenizer_from_json` and :func:`decoder_from_json` read a section, or raise
:class:`UnknownComponent` naming the JSON path of the first thing they do not implement.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import regex

from hf_bpe.pipeline.normalizers import Span, lowercase_aligned, normalize_aligned

Spanned = tuple[str, list[Span]]


class UnknownComponent(ValueError):
    """A component (or a setting of one) these twins do not implement: ``path`` is its JSON path, ``value`` what
    the file has there, ``what`` a few words on it."""

    def __init__(self, path: str, value: Any, what: str) -> None:
        super().__init__(f"{path}: {what}")
        self.path, self.value, self.what = path, value, what


def _pattern(data: Any, path: str) -> regex.Pattern[str]:
    """A ``{"String": s}`` or ``{"Regex": r}`` pattern, compiled (a string matched literally)."""
    if isinstance(data, Mapping) and isinstance(data.get("String"), str):
        return regex.compile(regex.escape(data["String"]))
    if isinstance(data, Mapping) and isinstance(data.get("Regex"), str):
        try:
            return regex.compile(data["Regex"])
        except regex.error as e:
            raise UnknownComponent(f"{path}.Regex", data["Regex"], f"a pattern that does not compile ({e})") from e
    raise UnknownComponent(path, data, 'a pattern that is neither {"String": ...} nor {"Regex": ...}')


# -- normalizers ---------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Replace:
    """``normalizers.Replace``: every match of ``pattern`` (leftmost, not overlapping) becomes ``content``; each
    character put in takes the span of the match's last character, as ``NormalizedString::replace`` aligns it.

    >>> Replace(regex.compile(" "), "▁").normalize("a b", [(0, 1), (1, 2), (2, 3)])
    ('a▁b', [(0, 1), (1, 2), (2, 3)])
    """

    pattern: regex.Pattern[str]
    content: str

    def normalize(self, text: str, spans: list[Span]) -> Spanned:
        out: list[str] = []
        out_spans: list[Span] = []
        last = 0
        for match in self.pattern.finditer(text):
            start, end = match.span()
            if start == end:
                continue
            out.append(text[last:start])
            out_spans += spans[last:start]
            out.append(self.content)
            out_spans += [spans[end - 1]] * len(self.content)
            last = end
        if last == 0:
            return text, spans
        out.append(text[last:])
        out_spans += spans[last:]
        return "".join(out), out_spans


@dataclasses.dataclass(frozen=True)
class Prepend:
    """``normalizers.Prepend``: ``prepend`` before non-empty text, with the first character's span.

    >>> Prepend("▁").normalize("ab", [(4, 5), (5, 6)])
    ('▁ab', [(4, 5), (4, 5), (5, 6)])
    """

    prepend: str

    def normalize(self, text: str, spans: list[Span]) -> Spanned:
        if not text:
            return text, spans
        return self.prepend + text, [spans[0]] * len(self.prepend) + spans


@dataclasses.dataclass(frozen=True)
class UnicodeForm:
    """``normalizers.NFC`` / ``NFKC`` with the reference's Unicode tables (:func:`normalize_aligned`)."""

    form: str

    def normalize(self, text: str, spans: list[Span]) -> Spanned:
        return normalize_aligned("NFKC" if self.form == "NFKC" else "NFC", text, spans)


@dataclasses.dataclass(frozen=True)
class Lowercase:
    """``normalizers.Lowercase``, character by character (:func:`lowercase_aligned`)."""

    def normalize(self, text: str, spans: list[Span]) -> Spanned:
        return lowercase_aligned(text, spans)


@dataclasses.dataclass(frozen=True)
class NormalizerSequence:
    """``normalizers.Sequence``: each in turn (none: text unchanged)."""

    normalizers: tuple[Any, ...]

    def normalize(self, text: str, spans: list[Span]) -> Spanned:
        for normalizer in self.normalizers:
            text, spans = normalizer.normalize(text, spans)
        return text, spans


def normalizer_from_json(data: Any, path: str = "normalizer") -> NormalizerSequence:
    """The normalizer a ``tokenizer.json``'s ``normalizer`` section describes (None: one that changes nothing).

    Raises:
        UnknownComponent: naming the JSON path of a normalizer or setting not implemented here.
    """
    if data is None:
        return NormalizerSequence(())
    if not isinstance(data, Mapping):
        raise UnknownComponent(path, data, "a normalizer that is not an object")
    kind = data.get("type")
    if kind == "Sequence":
        parts = data.get("normalizers") or []
        return NormalizerSequence(
            tuple(
                normalizer
                for index, part in enumerate(parts)
                for normalizer in normalizer_from_json(part, f"{path}.normalizers[{index}]").normalizers
            )
        )
    if kind == "Replace":
        content = data.get("content")
        if not isinstance(content, str):
            raise UnknownComponent(f"{path}.content", content, "a replacement that is not a string")
        return NormalizerSequence((Replace(_pattern(data.get("pattern"), f"{path}.pattern"), content),))
    if kind == "Prepend":
        prepend = data.get("prepend")
        if not isinstance(prepend, str):
            raise UnknownComponent(f"{path}.prepend", prepend, "a prefix that is not a string")
        return NormalizerSequence((Prepend(prepend),))
    if kind in ("NFC", "NFKC"):
        return NormalizerSequence((UnicodeForm(kind),))
    if kind == "Lowercase":
        return NormalizerSequence((Lowercase(),))
    raise UnknownComponent(f"{path}.type", kind, f"the normalizer {kind!r}")


# -- pre-tokenizers ------------------------------------------------------------------------------------------------

BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


@dataclasses.dataclass(frozen=True)
class Split:
    """``pre_tokenizers.Split``: cut text around the matches of ``pattern`` (``invert``: around what lies between
    them), the matches ``Removed``, ``Isolated``, ``MergedWithPrevious``, ``MergedWithNext`` or ``Contiguous``.

    >>> cut = Split(regex.compile("-"), "MergedWithPrevious", False)
    >>> [piece for piece, _ in cut.split("a-b--c", [(i, i + 1) for i in range(6)])]
    ['a-', 'b-', '-', 'c']
    """

    pattern: regex.Pattern[str]
    behavior: str
    invert: bool

    def split(self, text: str, spans: list[Span]) -> list[Spanned]:
        marked: list[tuple[int, int, bool]] = []  # (start, end, is a match) over the whole text
        last = 0
        for match in self.pattern.finditer(text):
            start, end = match.span()
            if start == end:
                continue
            if start > last:
                marked.append((last, start, self.invert))
            marked.append((start, end, not self.invert))
            last = end
        if last < len(text):
            marked.append((last, len(text), self.invert))
        kept = _behave(marked, self.behavior)
        return [(text[start:end], spans[start:end]) for start, end in kept if end > start]


def _behave(marked: list[tuple[int, int, bool]], behavior: str) -> list[tuple[int, int]]:
    """The pieces ``behavior`` makes of the text's stretches (``(start, end, is a match)``), as
    ``NormalizedString::split`` does."""
    if behavior == "Isolated":
        return [(start, end) for start, end, _ in marked]
    if behavior == "Removed":
        return [(start, end) for start, end, is_match in marked if not is_match]
    pieces: list[list[int]] = []
    previous = False
    if behavior == "MergedWithPrevious":
        for start, end, is_match in marked:
            if is_match and not previous and pieces:
                pieces[-1][1] = end
            else:
                pieces.append([start, end])
            previous = is_match
    elif behavior == "MergedWithNext":
        for start, end, is_match in reversed(marked):
            if is_match and not previous and pieces:
                pieces[-1][0] = start
            else:
                pieces.append([start, end])
            previous = is_match
        pieces.reverse()
    else:  # Contiguous
        for start, end, is_match in marked:
            if is_match == previous and pieces:
                pieces[-1][1] = end
            else:
                pieces.append([start, end])
            previous = is_match
    return [(start, end) for start, end in pieces]


@dataclasses.dataclass(frozen=True)
class PreTokenizerSequence:
    """``pre_tokenizers.Sequence``: each cuts every piece the previous ones made (none: the text is one piece)."""

    splits: tuple[Split, ...]

    def pre_tokenize(self, text: str, spans: list[Span]) -> list[Spanned]:
        pieces = [(text, spans)] if text else []
        for split in self.splits:
            pieces = [part for piece, piece_spans in pieces for part in split.split(piece, piece_spans)]
        return pieces


def pre_tokenizer_from_json(data: Any, path: str = "pre_tokenizer") -> PreTokenizerSequence:
    """The pre-tokenizer a ``tokenizer.json``'s ``pre_tokenizer`` section describes, of ``Split`` steps (None:
    the text is one piece).

    Raises:
        UnknownComponent: naming the JSON path of a pre-tokenizer or setting not implemented here.
    """
    if data is None:
        return PreTokenizerSequence(())
    if not isinstance(data, Mapping):
        raise UnknownComponent(path, data, "a pre-tokenizer that is not an object")
    kind = data.get("type")
    if kind == "Sequence":
        parts = data.get("pretokenizers") or []
        return PreTokenizerSequence(
            tuple(
                split
                for index, part in enumerate(parts)
                for split in pre_tokenizer_from_json(part, f"{path}.pretokenizers[{index}]").splits
            )
        )
    if kind == "Split":
        behavior = data.get("behavior")
        if behavior not in BEHAVIORS:
            raise UnknownComponent(f"{path}.behavior", behavior, f"a split behavior other than {', '.join(BEHAVIORS)}")
        pattern = _pattern(data.get("pattern"), f"{path}.pattern")
        return PreTokenizerSequence((Split(pattern, behavior, bool(data.get("invert"))),))
    raise UnknownComponent(f"{path}.type", kind, f"the pre-tokenizer {kind!r}")


# -- decoders ------------------------------------------------------------------------------------------------------


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

    Raises:
        UnknownComponent: naming the JSON path of a decoder or setting not implemented here.
    """
    if data is None:
        return DecoderSequence(())
    if not isinstance(data, Mapping):
        raise UnknownComponent(path, data, "a decoder that is not an object")
    kind = data.get("type")
    if kind == "Sequence":
        parts = data.get("decoders") or []
        return DecoderSequence(
            tuple(
                decoder
                for index, part in enumerate(parts)
                for decoder in decoder_from_json(part, f"{path}.decoders[{index}]").decoders
            )
        )
    if kind == "ByteFallback":
        return DecoderSequence((ByteFallback(),))
    if kind == "Fuse":
        return DecoderSequence((Fuse(),))
    if kind == "Strip":
        content, start, stop = data.get("content"), data.get("start"), data.get("stop")
        if not isinstance(content, str) or len(content) != 1:
            raise UnknownComponent(f"{path}.content", content, "a Strip content that is not one character")
        if type(start) is not int or type(stop) is not int or start < 0 or stop < 0:
            raise UnknownComponent(f"{path}.start", start, "Strip counts that are not non-negative integers")
        return DecoderSequence((Strip(content, start, stop),))
    if kind == "Replace":
        content = data.get("content")
        if not isinstance(content, str):
            raise UnknownComponent(f"{path}.content", content, "a replacement that is not a string")
        return DecoderSequence((DecoderReplace(_pattern(data.get("pattern"), f"{path}.pattern"), content),))
    raise UnknownComponent(f"{path}.type", kind, f"the decoder {kind!r}")
