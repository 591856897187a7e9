"""Decoders as ``tokenizers`` applies them: the tokens of ``decode`` back to text.

Each class has the name and JSON fields of its ``tokenizers`` original and maps a list of token strings to a list
of strings (``decode_chain``); :class:`DecoderSequence` runs them in turn and joins the result, as
``Tokenizer::decode`` does. :func:`decoder_from_json` reads a ``tokenizer.json``'s ``decoder`` section, or raises
:class:`~hf_bpe.pipeline.component.UnknownComponent` at the JSON path of what it does not implement; each twin
writes its JSON back as ``tokenizers`` writes it (``to_json``), the Sequence the section as it was.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import regex

from hf_bpe.pipeline.byte_level import UNICODE_TO_BYTE, byte_level_json
from hf_bpe.pipeline.component import (
    UnknownComponent,
    bool_field,
    components_from_json,
    pattern_from_json,
    string_field,
)
from hf_bpe.pipeline.normalizers import Shape, json_shape, pattern_json, pattern_source, sequence_json
from hf_bpe.pipeline.sentencepiece import metaspace_json


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

    def to_json(self) -> dict[str, Any]:
        """``ByteFallback``'s JSON as ``tokenizers`` writes it: the type alone."""
        return {"type": "ByteFallback"}

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

    def to_json(self) -> dict[str, Any]:
        """``Fuse``'s JSON as ``tokenizers`` writes it: the type alone."""
        return {"type": "Fuse"}

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return ["".join(tokens)]


@dataclasses.dataclass(frozen=True)
class Strip:
    """``decoders.Strip``: up to ``start`` leading and ``stop`` trailing ``content`` characters off each token."""

    content: str
    start: int
    stop: int

    def to_json(self) -> dict[str, Any]:
        """``Strip``'s JSON as ``tokenizers`` writes it."""
        return {"type": "Strip", "content": self.content, "start": self.start, "stop": self.stop}

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
    #: The pattern's JSON as read (``{"String": ...}`` or ``{"Regex": ...}``): the compiled pattern is a
    #: translation of the Oniguruma one, not its text.
    source: Mapping[str, str] | None = dataclasses.field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """``Replace``'s JSON as ``tokenizers`` writes it."""
        return {"type": "Replace", "pattern": pattern_json(self.pattern, self.source), "content": self.content}

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self.pattern.sub(lambda _: self.content, token) for token in tokens]


@dataclasses.dataclass(frozen=True)
class ByteLevel:
    """``decoders.ByteLevel``: GPT-2's byte characters back to bytes, all tokens as one text.

    A token with a character outside the byte alphabet stands for its own UTF-8 bytes; the bytes of all tokens are
    then read as UTF-8 at once, each invalid sequence one U+FFFD (``String::from_utf8_lossy``, which Python's
    ``"replace"`` matches). The chain gives one string, as ``ByteLevel::decode_chain`` does.

    >>> ByteLevel().decode_chain(["Ġh", "Ã©", "â", "!"])
    [' hé\ufffd!']
    """

    #: The pre-tokenizer's settings, which decoding ignores: kept only to be written back (the reference writes
    #: the three).
    add_prefix_space: bool = dataclasses.field(default=True, compare=False)
    trim_offsets: bool = dataclasses.field(default=True, compare=False)
    use_regex: bool = dataclasses.field(default=True, compare=False)

    def to_json(self) -> dict[str, Any]:
        """``ByteLevel``'s JSON as ``tokenizers`` writes it."""
        return byte_level_json(
            add_prefix_space=self.add_prefix_space, trim_offsets=self.trim_offsets, use_regex=self.use_regex
        )

    def decode_chain(self, tokens: list[str]) -> list[str]:
        data = bytearray()
        for token in tokens:
            data += byte_level_bytes(token)
        return [data.decode("utf-8", "replace")]


def byte_level_bytes(token: str) -> bytes:
    r"""The bytes one token stands for in ``ByteLevel::decode_chain``: a byte per character of the byte alphabet, or,
    where any character is outside it (a 200k code vocabulary's ``'\U000f54ff'``), the token's own UTF-8.

    >>> byte_level_bytes("Ġh"), byte_level_bytes("Ã©"), byte_level_bytes("a\U000f54ff")
    (b' h', b'\xc3\xa9', b'a\xf3\xb5\x93\xbf')
    """
    try:
        return bytes(UNICODE_TO_BYTE[char] for char in token)
    except KeyError:
        return token.encode("utf-8", "surrogatepass")


@dataclasses.dataclass(frozen=True)
class Metaspace:
    """``decoders.Metaspace``: each ``replacement`` becomes a space, except in the first token, where every one is
    dropped unless ``prepend_scheme`` is ``"never"`` (``Metaspace::decode_chain``, which drops each, not just a
    leading one). ``split`` is the pre-tokenizer's business.

    >>> Metaspace().decode_chain(["▁Hey", "▁you▁", "!"])
    ['Hey', ' you ', '!']
    """

    replacement: str = "\u2581"
    prepend_scheme: str = "always"
    split: bool = True

    def to_json(self) -> dict[str, Any]:
        """``Metaspace``'s JSON as ``tokenizers`` writes it."""
        return metaspace_json(self.replacement, self.prepend_scheme, self.split)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [
            token.replace(self.replacement, "" if index == 0 and self.prepend_scheme != "never" else " ")
            for index, token in enumerate(tokens)
        ]


def cleanup(text: str) -> str:
    """transformers' clean-up of tokenization spaces (``wordpiece::cleanup``): no space before ``.?!,``, around
    ``'`` alone, nor before ``n't 'm 's 've 're``; ``" do not"`` becomes ``" don't"``.

    >>> cleanup("I do not think , that 's it .")
    "I don't think, that's it."
    """
    for dirty, clean in _CLEANUP:
        text = text.replace(dirty, clean)
    return text


_CLEANUP = (
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" do not", " don't"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
)


@dataclasses.dataclass(frozen=True)
class WordPiece:
    """``decoders.WordPiece``: a token after the first loses its ``prefix`` (once), or else gets a space before it;
    then each token is cleaned up on its own (:func:`cleanup`, if ``cleanup``).

    >>> WordPiece().decode_chain(["un", "##aff", "##able", ",", "yes"])
    ['un', 'aff', 'able', ',', ' yes']
    """

    prefix: str = "##"
    cleanup: bool = True

    def to_json(self) -> dict[str, Any]:
        """``WordPiece``'s JSON as ``tokenizers`` writes it."""
        return {"type": "WordPiece", "prefix": self.prefix, "cleanup": self.cleanup}

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for index, token in enumerate(tokens):
            if index:
                token = token.replace(self.prefix, "", 1) if token.startswith(self.prefix) else f" {token}"
            out.append(cleanup(token) if self.cleanup else token)
        return out


@dataclasses.dataclass(frozen=True)
class BPEDecoder:
    """``decoders.BPEDecoder``: each ``suffix`` becomes a space, or nothing in the last token.

    >>> BPEDecoder().decode_chain(["hel", "lo</w>", "you</w>"])
    ['hel', 'lo ', 'you']
    """

    suffix: str = "</w>"

    def to_json(self) -> dict[str, Any]:
        """``BPEDecoder``'s JSON as ``tokenizers`` writes it."""
        return {"type": "BPEDecoder", "suffix": self.suffix}

    def decode_chain(self, tokens: list[str]) -> list[str]:
        last = len(tokens) - 1
        return [token.replace(self.suffix, "" if index == last else " ") for index, token in enumerate(tokens)]


@dataclasses.dataclass(frozen=True)
class CTC:
    """``decoders.CTC``: runs of the same token made one, ``pad_token`` removed from each, then (if ``cleanup``)
    each cleaned up (:func:`cleanup`) and ``word_delimiter_token`` made a space; tokens left empty are dropped.

    >>> CTC().decode_chain(["<pad>", "h", "h", "i", "<pad>", "i", "|", "|", "y"])
    ['h', 'i', 'i', ' ', 'y']
    """

    pad_token: str = "<pad>"
    word_delimiter_token: str = "|"
    cleanup: bool = True

    def to_json(self) -> dict[str, Any]:
        """``CTC``'s JSON as ``tokenizers`` writes it."""
        return {
            "type": "CTC",
            "pad_token": self.pad_token,
            "word_delimiter_token": self.word_delimiter_token,
            "cleanup": self.cleanup,
        }

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for token, _ in itertools.groupby(tokens):
            token = token.replace(self.pad_token, "")
            if self.cleanup:
                token = cleanup(token).replace(self.word_delimiter_token, " ")
            if token:
                out.append(token)
        return out


@dataclasses.dataclass(frozen=True)
class DecoderSequence:
    """``decoders.Sequence``: each in turn; ``decode`` joins what the last gives (no decoder: tokens joined by a
    space, as ``Tokenizer::decode`` does)."""

    decoders: tuple[Any, ...]
    #: Where the decoders sat in the JSON read (:func:`~hf_bpe.pipeline.normalizers.json_shape`); None: as
    #: ``tokenizers`` writes decoders made in code.
    shape: Shape = dataclasses.field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any] | None:
        """The ``decoder`` section as ``tokenizers`` writes it (:func:`.normalizers.sequence_json`).

        >>> DecoderSequence((Strip(" ", 1, 0),)).to_json()
        {'type': 'Strip', 'content': ' ', 'start': 1, 'stop': 0}
        """
        return sequence_json(self.decoders, self.shape, "decoders")

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
    decoders = components_from_json(data, path, "decoder", "decoders", _READERS)
    return DecoderSequence(decoders, json_shape(data, "decoders"))


def _strip_from_json(data: Mapping[str, Any], path: str) -> Strip:
    content, start, stop = data.get("content"), data.get("start"), data.get("stop")
    if not isinstance(content, str) or len(content) != 1:
        raise UnknownComponent(f"{path}.content", content, "a Strip content that is not one character")
    if type(start) is not int or type(stop) is not int or start < 0 or stop < 0:
        raise UnknownComponent(f"{path}.start", start, "Strip counts that are not non-negative integers")
    return Strip(content, start, stop)


def _byte_level_from_json(data: Mapping[str, Any], path: str) -> ByteLevel:
    # The pre-tokenizer's settings, which decoding ignores; the reference requires the first two all the same.
    return ByteLevel(
        bool_field(data, "add_prefix_space", path),
        bool_field(data, "trim_offsets", path),
        bool_field(data, "use_regex", path, True),
    )


#: ``Metaspace``'s ``prepend_scheme`` values, as written in JSON.
PREPEND_SCHEMES = ("always", "first", "never")


def _metaspace_from_json(data: Mapping[str, Any], path: str) -> Metaspace:
    replacement = data.get("replacement")
    if not isinstance(replacement, str) or len(replacement) != 1:
        raise UnknownComponent(f"{path}.replacement", replacement, "a replacement that is not one character")
    scheme = data.get("prepend_scheme", "always")
    if scheme not in PREPEND_SCHEMES:
        raise UnknownComponent(f"{path}.prepend_scheme", scheme, f"a prepend scheme other than {PREPEND_SCHEMES}")
    # Files of tokenizers < 0.19 have add_prefix_space instead; false is refused unless the scheme is "never", as
    # the reference's Metaspace deserializer does.
    if "add_prefix_space" in data and not bool_field(data, "add_prefix_space", path) and scheme != "never":
        raise UnknownComponent(f"{path}.add_prefix_space", False, "add_prefix_space false with a prepend_scheme")
    return Metaspace(replacement, str(scheme), bool_field(data, "split", path, True))


#: How each decoder is read from its JSON object (``Sequence`` aside).
_READERS: dict[str, Callable[[Mapping[str, Any], str], Any]] = {
    "ByteFallback": lambda data, path: ByteFallback(),
    "Fuse": lambda data, path: Fuse(),
    "Strip": _strip_from_json,
    "Replace": lambda data, path: DecoderReplace(
        pattern_from_json(data.get("pattern"), f"{path}.pattern"),
        string_field(data, "content", path, "a replacement"),
        pattern_source(data["pattern"]),
    ),
    "ByteLevel": _byte_level_from_json,
    "Metaspace": _metaspace_from_json,
    "WordPiece": lambda data, path: WordPiece(
        string_field(data, "prefix", path, "a prefix"), bool_field(data, "cleanup", path)
    ),
    "BPEDecoder": lambda data, path: BPEDecoder(string_field(data, "suffix", path, "a suffix")),
    "CTC": lambda data, path: CTC(
        string_field(data, "pad_token", path, "a pad token"),
        string_field(data, "word_delimiter_token", path, "a word delimiter"),
        bool_field(data, "cleanup", path),
    ),
}
