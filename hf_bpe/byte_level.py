"""The byte-level alphabet and the split pattern, shared by the trainer and the tokenizer.

This module owns two things every byte-level BPE needs and nothing else:

* GPT-2's byte↔unicode table, which spells each of the 256 byte values as one printable character so that
  tokens can be stored as text in ``vocab.json`` and ``merges.txt``;
* the split pattern that cuts text into pre-tokens before any merge, compiled so that it classifies code
  points exactly as the references do (see :class:`SplitPattern`), and the cutting out of whole special
  tokens before that (:func:`whole_tokens_pattern`, :func:`split_around`).

Counting, merging, file formats and the transformers class live elsewhere.
"""

from __future__ import annotations

import array
import functools
import sys
from collections.abc import Iterable, Iterator

import regex

from hf_bpe import _unicode_tables

#: GPT-2's pre-tokenizer pattern, as ``tokenizers``' ByteLevel pre-tokenizer and tiktoken's ``gpt2`` use it:
#: case-sensitive English contractions, then runs of letters, of numbers, of anything else (each with one
#: optional leading space), then white space, keeping the last space of a run for the word after it.
GPT2_SPLIT_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

# The escapes the reference tables cover: (escape, table, negated).
_CLASS_ESCAPES = {
    r"\p{L}": ("LETTER", False),
    r"\P{L}": ("LETTER", True),
    r"\p{N}": ("NUMBER", False),
    r"\P{N}": ("NUMBER", True),
    r"\s": ("WHITESPACE", False),
    r"\S": ("WHITESPACE", True),
}
_REGEX_CLASS = {"LETTER": r"\p{L}", "NUMBER": r"\p{N}", "WHITESPACE": r"\s"}


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's table from byte values to the characters that spell them in vocab files.

    Bytes that are printable and not white space in Latin-1 stand for themselves; the other 68 are given the
    code points from U+0100 upward, in byte order.

    Returns:
        A dict from each of the 256 byte values to a one-character string.

    >>> table = bytes_to_unicode()
    >>> table[ord("a")], table[ord(" ")], table[ord("\\n")], table[0xFF]
    ('a', 'Ġ', 'Ċ', 'ÿ')
    """
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    table = {byte: chr(byte) for byte in printable}
    unprintable = (byte for byte in range(256) if byte not in table)
    for offset, byte in enumerate(unprintable):
        table[byte] = chr(0x100 + offset)
    return dict(sorted(table.items()))


BYTE_TO_UNICODE: dict[int, str] = bytes_to_unicode()
UNICODE_TO_BYTE: dict[str, int] = {char: byte for byte, char in BYTE_TO_UNICODE.items()}
#: The 256 characters of the byte-level alphabet, sorted by code point (``tokenizers``' ``ByteLevel.alphabet()``).
BYTE_ALPHABET: tuple[str, ...] = tuple(sorted(BYTE_TO_UNICODE.values()))

# str.translate tables: byte string (decoded as Latin-1) → byte-level spelling, and back.
_LATIN1_TO_BYTE_LEVEL = {byte: char for byte, char in BYTE_TO_UNICODE.items()}
_BYTE_LEVEL_TO_LATIN1 = {ord(char): byte for byte, char in BYTE_TO_UNICODE.items()}


def replace_surrogates(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD, as tiktoken does before encoding.

    A surrogate pair spelled as two code points becomes the character it encodes, again as in tiktoken
    (both go through UTF-16). Text without surrogates is returned as is.

    >>> replace_surrogates("a" + chr(0xD800) + "b"), replace_surrogates(chr(0xD83D) + chr(0xDE00))
    ('a�b', '😀')
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def to_byte_level(text: str) -> str:
    """Spell ``text``'s UTF-8 bytes with the byte-level alphabet.

    Lone surrogates are encoded as U+FFFD (see :func:`replace_surrogates`), so any Python string works.

    >>> to_byte_level(" héllo")
    'ĠhÃ©llo'
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = replace_surrogates(text).encode("utf-8")
    return data.decode("latin-1").translate(_LATIN1_TO_BYTE_LEVEL)


def from_byte_level(token: str) -> bytes:
    """The bytes a byte-level token stands for.

    Raises:
        ValueError: if ``token`` has a character outside the byte-level alphabet.

    >>> from_byte_level("ĠhÃ©llo").decode()
    ' héllo'
    """
    latin1 = token.translate(_BYTE_LEVEL_TO_LATIN1)
    try:
        return latin1.encode("latin-1")
    except UnicodeEncodeError as e:
        bad = token[e.start]
        raise ValueError(f"{token!r} has {bad!r} (U+{ord(bad):04X}), which is not a byte-level character") from e


def _code_points(ranges: Iterable[tuple[int, int]]) -> str:
    """All code points of ``ranges`` as one string (built through UTF-32: 20x faster than ``chr`` per point)."""
    points = array.array("I")
    for first, last in ranges:
        points += array.array("I", range(first, last + 1))
    return points.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")


@functools.cache
def _all_code_points() -> str:
    return _code_points([(0, 0xD7FF), (0xE000, 0x10FFFF)])


def _escape_ranges(code_points: Iterable[int]) -> str:
    """A character-class body listing ``code_points`` as ``\\U........`` escapes and ranges."""
    ranges: list[list[int]] = []
    for cp in sorted(code_points):
        if ranges and cp == ranges[-1][1] + 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return "".join(f"\\U{a:08X}" if a == b else f"\\U{a:08X}-\\U{b:08X}" for a, b in ranges)


@functools.cache
def _reference_class(table: str) -> str:
    """A ``regex`` set (VERSION1 syntax) matching exactly the code points of the reference table ``table``.

    The set is the ``regex`` module's own property, fast to match, corrected by the few code points on which
    its Unicode version and the reference's disagree (in practice: characters assigned after the reference's
    Unicode version). Computed once, in bulk, over all code points.
    """
    reference = _code_points(getattr(_unicode_tables, f"{table}_RANGES"))
    own = _REGEX_CLASS[table]
    current = set(regex.findall(own, _all_code_points()))
    wanted = set(reference)
    too_many = {ord(c) for c in current - wanted}
    too_few = {ord(c) for c in wanted - current}
    body = own
    if too_many:
        body = f"[{own}--[{_escape_ranges(too_many)}]]"
    if too_few:
        body = f"{body}[{_escape_ranges(too_few)}]"
    return body


def _with_reference_classes(pattern: str) -> str:
    """Rewrite ``\\p{L}``, ``\\p{N}``, ``\\s`` and their negations in ``pattern`` to the reference's classes."""
    out: list[str] = []
    depth = 0  # how deep inside [...] sets we are
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            escape = next((e for e in _CLASS_ESCAPES if pattern.startswith(e, i)), None)
            if escape is None:
                out.append(pattern[i : i + 2])
                i += 2
                continue
            table, negated = _CLASS_ESCAPES[escape]
            body = _reference_class(table)
            if negated:
                out.append(f"[^{body}]")
            elif depth:
                out.append(f"[{body}]")  # a nested set is a union member
            else:
                out.append(f"[{body}]")
            i += len(escape)
            continue
        if char == "[":
            depth += 1
        elif char == "]" and depth:
            depth -= 1
        out.append(char)
        i += 1
    return "".join(out)


def whole_tokens_pattern(tokens: Iterable[str]) -> regex.Pattern[str] | None:
    """A pattern matching any of ``tokens`` whole, the longest where several start at one place (None: no tokens).

    >>> whole_tokens_pattern(["<s>", "<s><s>"]).findall("a<s><s><s>")
    ['<s><s>', '<s>']
    """
    ordered = sorted(set(tokens), key=lambda token: (-len(token), token))
    return regex.compile("|".join(map(regex.escape, ordered))) if ordered else None


def split_around(text: str, pattern: regex.Pattern[str] | None) -> Iterator[tuple[int, int, str | None]]:
    """``(start, end, token)`` spans covering ``text``: a whole match of ``pattern`` (``token`` is its text) or
    the non-empty text between matches (``token`` is None).

    >>> list(split_around("a<s>b", whole_tokens_pattern(["<s>"])))
    [(0, 1, None), (1, 4, '<s>'), (4, 5, None)]
    """
    start = 0
    for match in pattern.finditer(text) if pattern is not None else ():
        if match.start() > start:
            yield start, match.start(), None
        yield match.start(), match.end(), match.group()
        start = match.end()
    if start < len(text):
        yield start, len(text), None


class SplitPattern:
    """A split pattern that classifies code points as the references do.

    ``regex`` knows a newer Unicode than the Oniguruma engine in ``tokenizers`` and the Rust engine in
    tiktoken, so ``\\p{L}``, ``\\p{N}`` and ``\\s`` are rewritten to the references' classes (recorded in
    ``_unicode_tables``). ASCII text, where the two agree, takes the unrewritten pattern, which is about twice
    as fast.

    Args:
        pattern: a ``regex`` pattern; ``\\p{L}``, ``\\p{N}``, ``\\s`` and their negations follow the references.

    Raises:
        ValueError: if the pattern does not compile or can match the empty string.

    >>> SplitPattern().findall("Hello world's  end\\n")
    ['Hello', ' world', "'s", ' ', ' end', '\\n']
    """

    def __init__(self, pattern: str = GPT2_SPLIT_PATTERN) -> None:
        self.pattern = pattern
        try:
            self._ascii = regex.compile(pattern)
            self._exact = regex.compile(_with_reference_classes(pattern), flags=regex.VERSION1)
        except regex.error as e:
            raise ValueError(f"split pattern {pattern!r} does not compile: {e}") from e
        for probe in ("", "a", " ", "1", "!", "a b\n"):
            if any(m.start() == m.end() for m in self._exact.finditer(probe)):
                raise ValueError(
                    f"split pattern {pattern!r} can match the empty string (it does on {probe!r}); "
                    "every alternative must consume at least one character"
                )

    def findall(self, text: str) -> list[str]:
        """Cut ``text`` into pre-tokens (their concatenation is ``text`` when the pattern covers everything)."""
        return (self._ascii if text.isascii() else self._exact).findall(text)

    def __reduce__(self) -> tuple[type[SplitPattern], tuple[str]]:
        return (SplitPattern, (self.pattern,))

    def __repr__(self) -> str:
        return f"SplitPattern({self.pattern!r})"
