"""BERT's text recipe: ``tokenizers``' ``BertNormalizer`` and ``BertPreTokenizer``, character for character.

This module owns how WordPiece text is normalized and cut into words, for counting, training and encoding alike:

* normalizing (``BertNormalizer::normalize``), in this order: ``clean_text`` drops control, format and
  private-use characters, NUL and U+FFFD, and turns every white space into ``" "``; ``handle_chinese_chars`` puts
  spaces around each CJK ideograph (the eight ``is_chinese_char`` blocks); ``strip_accents`` (default: as
  ``lowercase``) decomposes (NFD) and drops non-spacing marks; ``lowercase`` lowercases each character on its own
  (Rust's ``char::to_lowercase``: a final capital sigma is ``σ``, not Python's context-sensitive ``ς``).
* pre-tokenizing (``BertPreTokenizer``): split on white space (removed), then every punctuation character is a
  word of its own (ASCII punctuation, symbols like ``$+<=>^`|~`` included, and Unicode's ``P*`` categories).

The reference classifies characters with the ``unicode_categories`` crate and Rust's ``char`` methods, which follow
other Unicode versions than Python's ``unicodedata``; the classes are the reference's own, recorded for every
code point in :mod:`hf_bpe.pipeline._tables.bert` (``scripts/generate_bert_tables.py``). Decomposition
(NFD) is Python's.

The model (which word pieces a word becomes) is :mod:`hf_bpe.models.wordpiece.encoder`'s job.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
import unicodedata
from typing import Any

import regex

from hf_bpe.pipeline._tables import bert as tables

#: The CJK blocks whose characters ``handle_chinese_chars`` makes words of their own (``is_chinese_char``).
CHINESE_RANGES: tuple[tuple[int, int], ...] = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)

Piece = tuple[str, tuple[int, int]]
"""A pre-token and its ``(start, end)`` character span in the text it was cut from."""


def _char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    """A regex character class body for inclusive code-point ranges."""
    return "".join(f"\\U{a:08X}-\\U{b:08X}" if a != b else f"\\U{a:08X}" for a, b in ranges)


def _in_ranges(ranges: tuple[tuple[int, int], ...]) -> Any:
    starts = [a for a, _ in ranges]

    def contains(cp: int) -> bool:
        index = bisect.bisect_right(starts, cp) - 1
        return index >= 0 and cp <= ranges[index][1]

    return contains


_is_removed = _in_ranges(tables.REMOVED_RANGES)
_is_whitespace = _in_ranges(tables.WHITESPACE_RANGES)
_is_nonspacing = _in_ranges(tables.NONSPACING_RANGES)


class _Table(dict[int, Any]):
    """A ``str.translate`` table that works each character's entry out once, on first sight."""

    def __init__(self, rule: Any) -> None:
        super().__init__()
        self._rule = rule

    def __missing__(self, cp: int) -> Any:
        value = self[cp] = self._rule(cp)
        return value


def _clean(cp: int) -> str | None:
    # BertNormalizer::do_clean_text: the filter runs before the map, so a control character that is also white
    # space (\v, \f, U+0085) is dropped, not made a space.
    if _is_removed(cp):
        return None
    return " " if _is_whitespace(cp) else chr(cp)


def _lower(cp: int) -> str:
    return tables.LOWERCASE.get(cp) or chr(cp).lower()


_CLEAN = _Table(_clean)
# The ASCII part of _CLEAN, worked out once (str.translate is fastest with a plain dict).
_ASCII_CLEAN = {cp: _clean(cp) for cp in range(128)}
_STRIP = _Table(lambda cp: None if _is_nonspacing(cp) else chr(cp))
_LOWER = _Table(_lower)
# str.translate with a table runs a lookup per character. On other text than ASCII, line breaks and tabs (the
# white space text is full of) become spaces with str.replace, and the table runs only if a character cleaning
# changes is left; str.lower() runs unless the text holds a character whose reference lowercase differs from
# Python's, or a capital sigma (str.lower() makes it final where a word ends; the reference lowercases character
# by character). The standard library's re: the class is of explicit code points, and re scans it faster.
_OTHER_SPACES = tuple(span for span in tables.WHITESPACE_RANGES if span != (32, 32))
_CLEANED = re.compile(f"[{_char_class(tables.REMOVED_RANGES)}{_char_class(_OTHER_SPACES)}]")
_NOT_LOWERED_AS_PYTHON = frozenset(map(chr, {*tables.LOWERCASE, 0x3A3}))


def _clean_text(text: str) -> str:
    text = text.replace("\n", " ").replace("\t", " ").replace("\r", " ")
    return text if _CLEANED.search(text) is None else text.translate(_CLEAN)


# Characters Python's NFD decomposes and the reference's does not: cut out and stripped by the table.
_NO_DECOMPOSITION = regex.compile(f"([{''.join(map(chr, tables.STRIP_ACCENTS))}])")
_CHINESE = regex.compile(f"([{_char_class(CHINESE_RANGES)}])")
# Rust's is_ascii_punctuation: the ASCII part of the reference's punctuation.
_ASCII_WORDS = regex.compile(r"[!-/:-@\[-`{-~]|[^!-/:-@\[-`{-~]+")
_PUNCTUATION = regex.compile(f"([{_char_class(tables.PUNCTUATION_RANGES)}])")
_PYTHON_ONLY_SPACE = regex.compile("[\x1c-\x1f]")
_WORDS = regex.compile(
    f"[{_char_class(tables.PUNCTUATION_RANGES)}]"
    f"|[^{_char_class(tables.WHITESPACE_RANGES)}{_char_class(tables.PUNCTUATION_RANGES)}]+"
)


def _strip_accents(text: str) -> str:
    """``BertNormalizer::do_strip_accents``: NFD, then non-spacing marks dropped."""
    if _NO_DECOMPOSITION.search(text) is None:
        return unicodedata.normalize("NFD", text).translate(_STRIP)
    parts = _NO_DECOMPOSITION.split(text)  # odd indices: the characters cut out
    return "".join(
        tables.STRIP_ACCENTS[ord(part)] if index % 2 else unicodedata.normalize("NFD", part).translate(_STRIP)
        for index, part in enumerate(parts)
    )


#: Each recipe's normalization of each character seen, for :meth:`BertRecipe.normalize_with_origins`.
_PIECES: dict[BertRecipe, dict[str, str]] = {}


@dataclasses.dataclass(frozen=True)
class BertRecipe:
    """BERT's normalizer settings (``BertNormalizer``'s arguments); the pre-tokenizer has none.

    Args:
        clean_text: drop control characters, make every white space a ``" "``.
        handle_chinese_chars: make each CJK ideograph a word of its own.
        strip_accents: drop accents (after NFD); ``None`` follows ``lowercase``, as in BERT.
        lowercase: lowercase the text.

    >>> BertRecipe().words("Héllo,  WORLD!")
    ['hello', ',', 'world', '!']
    """

    clean_text: bool = True
    handle_chinese_chars: bool = True
    strip_accents: bool | None = None
    lowercase: bool = True

    @property
    def strips_accents(self) -> bool:
        """Whether accents are stripped (``strip_accents``, or ``lowercase`` where that is ``None``)."""
        return self.lowercase if self.strip_accents is None else self.strip_accents

    def normalize(self, text: str) -> str:
        """``BertNormalizer.normalize_str``.

        >>> BertRecipe().normalize("Ça\\tVA 中文")
        'ca va  中  文 '
        """
        ascii = text.isascii()
        if self.clean_text:
            text = text.translate(_ASCII_CLEAN) if ascii else _clean_text(text)
        if self.handle_chinese_chars and not ascii:
            text = _CHINESE.sub(r" \1 ", text)
        if self.strips_accents and not text.isascii():
            text = _strip_accents(text)
        if self.lowercase:
            as_python = text.isascii() or _NOT_LOWERED_AS_PYTHON.isdisjoint(text)
            text = text.lower() if as_python else text.translate(_LOWER)
        return text

    def normalize_with_origins(self, text: str) -> tuple[str, list[int]]:
        """:meth:`normalize`, and for each character of the result the index of the character of ``text`` it
        came from (how the reference maps offsets back to the original text).

        Each character is normalized on its own: where NFD would reorder combining marks across two characters of
        ``text``, the result can differ from :meth:`normalize` (not where the marks are stripped).

        >>> BertRecipe().normalize_with_origins("Éa")
        ('ea', [0, 1])
        """
        out: list[str] = []
        origins: list[int] = []
        pieces = _PIECES.setdefault(self, {})
        for index, char in enumerate(text):
            piece = pieces.get(char)
            if piece is None:
                piece = pieces[char] = self._normalize_char(char)
            if piece == char:
                out.append(char)
                origins.append(index)
            elif piece:
                out.append(piece)
                origins.extend([index] * len(piece))
        return "".join(out), origins

    def _normalize_char(self, char: str) -> str:
        """:meth:`normalize` of one character."""
        piece = char
        if self.clean_text:
            piece = piece.translate(_CLEAN)
        if self.handle_chinese_chars and piece:
            piece = _CHINESE.sub(r" \1 ", piece)
        if self.strips_accents and piece and not piece.isascii():
            piece = _strip_accents(piece)
        if self.lowercase and piece:
            piece = piece.translate(_LOWER)
        return piece

    def words(self, text: str) -> list[str]:
        """The words of ``text``: normalized, then pre-tokenized."""
        return split_words(self.normalize(text))

    def pieces(self, text: str) -> list[Piece]:
        """The words of ``text`` with their ``(start, end)`` character spans in ``text`` (not in the normalized
        text), as ``Tokenizer.encode`` reports offsets.

        >>> BertRecipe().pieces("A 中b")
        [('a', (0, 1)), ('中', (2, 3)), ('b', (3, 4))]
        """
        normalized, origins = self.normalize_with_origins(text)
        return [
            (match.group(), (origins[match.start()], origins[match.end() - 1] + 1))
            for match in _WORDS.finditer(normalized)
        ]

    def to_json(self) -> dict[str, Any]:
        """The ``BertNormalizer`` entry of ``tokenizer.json``."""
        return {
            "type": "BertNormalizer",
            "clean_text": self.clean_text,
            "handle_chinese_chars": self.handle_chinese_chars,
            "strip_accents": self.strip_accents,
            "lowercase": self.lowercase,
        }


def split_words(text: str) -> list[str]:
    """The pieces of :func:`pre_tokenize`, without offsets, faster: ``str.split`` (Python's white space is the
    reference's plus U+001C to U+001F, handled apart), then runs of letters and digits (``str.isalnum``: never
    punctuation) kept whole, ASCII runs cut by a small pattern, the rest by the full one.

    >>> split_words("Hey friend!  ok?!")
    ['Hey', 'friend', '!', 'ok', '?', '!']
    """
    if _PYTHON_ONLY_SPACE.search(text) is not None:
        return _WORDS.findall(text)
    out: list[str] = []
    for chunk in text.split():
        if chunk.isalnum():
            out.append(chunk)
        elif chunk.isascii():
            out += _ASCII_WORDS.findall(chunk)
        else:
            out += [part for part in _PUNCTUATION.split(chunk) if part]
    return out


def normalize(
    text: str,
    *,
    clean_text: bool = True,
    handle_chinese_chars: bool = True,
    strip_accents: bool | None = None,
    lowercase: bool = True,
) -> str:
    """``BertNormalizer(...).normalize_str(text)``.

    >>> normalize("Déjà VU")
    'deja vu'
    """
    return BertRecipe(clean_text, handle_chinese_chars, strip_accents, lowercase).normalize(text)


def pre_tokenize(text: str) -> list[Piece]:
    """``BertPreTokenizer().pre_tokenize_str(text)``, with character (not byte) offsets.

    >>> pre_tokenize("Hey friend!  ok?!")
    [('Hey', (0, 3)), ('friend', (4, 10)), ('!', (10, 11)), ('ok', (13, 15)), ('?', (15, 16)), ('!', (16, 17))]
    """
    return [(match.group(), match.span()) for match in _WORDS.finditer(text)]
