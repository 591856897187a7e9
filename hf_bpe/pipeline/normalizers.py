"""Text normalizers as ``tokenizers`` applies them, character for character.

This module owns how text is normalized before it is split, exactly as the reference does it, text and spans:
the fast functions (lowercase, NFC, NFKC) the trainers use, and the twins of ``tokenizers``' normalizers
(``Replace``, ``Prepend``, ``NFC``/``NFD``/``NFKC``/``NFKD``, ``Nmt``, ``Lowercase``, ``Strip``, ``StripAccents``,
``BertNormalizer``, SentencePiece's ``Precompiled``, ``ByteLevel``) that :func:`normalizer_from_json` reads from a
``tokenizer.json`` and each writes back as ``tokenizers`` does (``to_json``). Each twin aligns its output as
``NormalizedString::transform`` does (:func:`transform_aligned`). The writers every stage's twins share (a
Sequence's parts placed as read, :func:`sequence_json`; a pattern's source, :func:`pattern_json`) sit here, in the
lowest stage.
Splitting is :mod:`hf_bpe.pipeline.pre_tokenizers`'s job, counting :mod:`hf_bpe.counting.counting`'s.

``tokenizers``' ``Lowercase`` normalizer lowercases each character on its own with Rust's Unicode tables. Python's
``str.lower()`` differs in two ways: it lowers a word-final ``Σ`` to ``ς`` (the reference: always ``σ``), and it
follows an older Unicode, so some 55 recently encoded capitals (U+1C89, U+A7CB, U+10D50-U+10D65,
U+16EA0-U+16EB8, ...) stay as they are. ``hf_bpe/pipeline/_tables/lowercase.py``, generated from the reference by
``scripts/generate_lowercase_table.py``, lists those characters with the reference's lowercase.
(``İ``, U+0130, lowers to two code points, ``i`` and U+0307, in both.)
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import functools
import re
import struct
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypeAlias, cast

import regex

from hf_bpe.pipeline._tables import bert as bert_tables
from hf_bpe.pipeline._tables.lowercase import LOWERCASE
from hf_bpe.pipeline._tables.nfkc import NO_CLASS, NOT_COMPOSED, UNCHANGED
from hf_bpe.pipeline.component import (
    Span,
    Spanned,
    UnknownComponent,
    bool_field,
    components_from_json,
    pattern_from_json,
    string_field,
)

# Each entry is already lowercase to Python, so str.lower() after the table leaves it alone.
_TABLE = {cp: lowered for cp, lowered in LOWERCASE.items()}
# Text without them lowers as str.lower() lowers it (a set lookup per character costs less than str.translate's).
_LOWERED_OTHERWISE = frozenset(map(chr, _TABLE))


def lowercase(text: str) -> str:
    """Lowercase ``text`` as ``tokenizers.normalizers.Lowercase`` does.

    >>> lowercase("ΟΔΟΣ İstanbul")
    'οδοσ i̇stanbul'
    >>> "ΟΔΟΣ".lower()
    'οδος'
    """
    if text.isascii() or _LOWERED_OTHERWISE.isdisjoint(text):
        return text.lower()
    return text.translate(_TABLE).lower()


def lowercase_aligned(text: str, spans: list[tuple[int, int]]) -> tuple[str, list[tuple[int, int]]]:
    """:func:`lowercase` with each output character's span: a character that lowers to several gives each its
    span, as ``NormalizedString::lowercase`` aligns them.

    >>> lowercase_aligned("Aİ", [(0, 1), (1, 2)])
    ('ai̇', [(0, 1), (1, 2), (1, 2)])
    """
    lowered = [lowercase(char) for char in text]
    return "".join(lowered), [span for part, span in zip(lowered, spans, strict=True) for _ in part]


# -- NFC and NFKC ------------------------------------------------------------------------------------------------

Form = Literal["NFC", "NFKC"]
#: The characters where the reference's normalization may differ from ``unicodedata``'s: those it leaves alone,
#: marks it gives class 0, and the one composition it lacks, whole and as the characters it would be made of.
_SPECIAL = (
    UNCHANGED | NO_CLASS | NOT_COMPOSED | {part for c in NOT_COMPOSED for part in unicodedata.normalize("NFD", c)}
)


def _combining(char: str) -> int:
    return 0 if char in NO_CLASS else unicodedata.combining(char)


def unicode_normalize(form: Form, text: str) -> str:
    """NFC or NFKC (``form``) as ``tokenizers``' ``NFC`` / ``NFKC`` normalizers do it (:func:`unicode_aligned`).

    >>> unicode_normalize("NFC", "a\u0301\u08ca"), unicode_normalize("NFKC", "\u32ff")
    ('á\u08ca', '\u32ff')
    """
    if _SPECIAL.isdisjoint(text):
        # Where the two Unicode versions agree, the reference's algorithm is the standard one: decomposition,
        # canonical order, composition of unblocked pairs (Chinese text is seldom NFKC: full-width punctuation).
        return unicodedata.normalize(form, text)
    return unicode_aligned(form, text, [(0, 0)] * len(text))[0]


def unicode_str(form: AnyForm, text: str) -> str:
    """Any of the four forms as :func:`unicode_aligned` makes it, without spans: ``unicodedata``'s own where the
    two Unicode versions agree (as :func:`unicode_normalize`), ASCII text as it is.

    >>> unicode_str("NFD", "é"), unicode_str("NFKD", "㋿")
    ('é', '㋿')
    """
    if text.isascii():
        return text
    if _SPECIAL.isdisjoint(text):
        return unicodedata.normalize(form, text)
    return unicode_aligned(form, text, [(0, 0)] * len(text))[0]


# -- the reference's alignments: NormalizedString::transform, and the four Unicode forms through it ---------------

AnyForm = Literal["NFC", "NFKC", "NFD", "NFKD"]
#: A character of a normalized text and how it came to be, as ``NormalizedString::transform`` takes it: ``0``
#: replaces the next character of the input, ``-n`` replaces it and removes the ``n`` after it, ``1`` (any
#: positive number) is put in without taking any.
Change = tuple[str, int]


def transform_aligned(spans: list[Span], changes: Iterable[Change], removed: int = 0) -> Spanned:
    """The text ``changes`` spell and each character's span, as ``NormalizedString::transform`` aligns them.

    The reference reads the changes in order against the input, not per character: a character that replaces one
    takes the span of the next input character not yet taken (``removed`` are skipped first), one put in takes
    the span of the input character before it (``(0, 0)`` at the start), and input characters left over at the
    end are dropped. So a change list that does not account for each input character shifts the spans after it,
    as the reference does.

    >>> transform_aligned([(0, 1), (1, 2), (2, 3)], [("x", 0), ("y", 1), ("z", -1)])
    ('xyz', [(0, 1), (0, 1), (1, 2)])
    """
    out: list[str] = []
    out_spans: list[Span] = []
    index = removed
    for char, change in changes:
        if change > 0:
            out_spans.append(spans[index - 1] if index > 0 else (0, 0))
        else:
            out_spans.append(spans[index])
            index += 1 - change
        out.append(char)
    return "".join(out), out_spans


def _decomposed(form: AnyForm, text: str) -> list[Change]:
    """Each character's decomposition (NFD, or NFKD for the compatibility forms), its first piece replacing it
    and the others put in, then marks in canonical order carrying their changes (the reference's order is by
    its combining classes: :data:`NO_CLASS` marks are starters)."""
    decompose: Literal["NFD", "NFKD"] = "NFKD" if form in ("NFKC", "NFKD") else "NFD"
    changes: list[Change] = []
    seen: dict[str, str] = {}
    for char in text:
        if char < "\x80":
            changes.append((char, 0))
            continue
        pieces = seen.get(char)
        if pieces is None:
            special = char in UNCHANGED or char in NOT_COMPOSED
            pieces = seen[char] = char if special else unicodedata.normalize(decompose, char)
        changes.append((pieces[0], 0))
        if len(pieces) > 1:
            changes += [(piece, 1) for piece in pieces[1:]]
    index = 0
    while index < len(changes):
        end = index
        while end < len(changes) and _combining(changes[end][0]):
            end += 1
        if end - index > 1:
            changes[index:end] = sorted(changes[index:end], key=lambda change: _combining(change[0]))
        index = end + 1
    return changes


def _composed(changes: list[Change]) -> list[Change]:
    """Canonical composition of decomposed ``changes``: a starter and a mark (or a Hangul jamo) not blocked from
    it become one character, which takes both changes less one (one input character fewer is put out)."""
    out: list[Change] = []
    starter = -1  # where in out the last starter is
    last_class = 0
    for char, change in changes:
        klass = _combining(char)
        if starter >= 0:
            blocked = (last_class != 0 and last_class >= klass) if klass else len(out) - 1 != starter
            if not blocked:
                first, first_change = out[starter]
                composed = unicodedata.normalize("NFC", first + char)
                if len(composed) == 1 and composed not in NOT_COMPOSED and first not in UNCHANGED:
                    out[starter] = (composed, first_change + change - 1)
                    continue
        if klass == 0:
            starter = len(out)
            last_class = 0
        else:
            last_class = klass
        out.append((char, change))
    return out


def unicode_aligned(form: AnyForm, text: str, spans: list[Span]) -> Spanned:
    """NFC, NFKC, NFD or NFKD (``form``) as ``tokenizers``' normalizers do it, with each output character's span
    as ``NormalizedString::nfd`` (and ``nfkd``, ``nfc``, ``nfkc``) aligns it.

    ``unicode-normalization-alignments`` gives each character of the result a change (:data:`Change`): the first
    piece of a decomposition replaces its character, the others are put in; marks put in canonical order take
    their changes along; a composed pair takes both changes less one. ``NormalizedString::transform`` then aligns
    them in order (:func:`transform_aligned`), so where marks are reordered the spans stay in place and the
    characters move. The reference's Unicode data is older than ``unicodedata``'s: the characters it does not
    know are left alone, marks it does not know have combining class 0, and one composition it lacks is not made,
    as ``hf_bpe/pipeline/_tables/nfkc.py`` (generated from the reference by ``scripts/generate_nfkc_table.py``)
    lists.

    >>> unicode_aligned("NFD", "é\\u0316", [(0, 1), (1, 2)])
    ('e\\u0316\\u0301', [(0, 1), (1, 2), (1, 2)])
    """
    if unicodedata.is_normalized(form, text) and _SPECIAL.isdisjoint(text):
        return text, spans
    changes = _decomposed(form, text)
    if form in ("NFC", "NFKC"):
        changes = _composed(changes)
    return transform_aligned(spans, changes)


# -- writing a twin back: what tokenizers' serde writes --------------------------------------------------------------

#: Where a Sequence twin's parts sat in the JSON it was read from (the readers flatten it): ``0`` for a part, a tuple
#: for a ``Sequence`` of such (nested ones too), None for no component (a JSON null).
Shape: TypeAlias = "int | tuple[Shape, ...] | None"


def json_shape(data: Any, key: str) -> Shape:
    """Where the parts of a section already read (``data``, its ``Sequence``'s parts under ``key``) sit: what
    :func:`sequence_json` needs to write it back as it was, an empty or one-part ``Sequence`` and nested ones too.

    >>> json_shape({"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Sequence", "normalizers": []}]},
    ...     "normalizers")
    (0, ())
    """
    if data is None:
        return None
    if data.get("type") == "Sequence":
        return tuple(json_shape(part, key) for part in data.get(key) or ())
    return 0


def _parts_in(shape: Shape) -> int:
    if shape is None or isinstance(shape, int):
        return 0 if shape is None else 1
    return sum(_parts_in(node) for node in shape)


def sequence_json(parts: Sequence[Any], shape: Shape, key: str) -> dict[str, Any] | None:
    """The JSON of a Sequence twin's ``parts`` (each by its ``to_json``), placed as ``shape`` (:func:`json_shape`)
    says; where it does not fit them (parts made in code), as ``tokenizers`` writes what its Python API builds:
    null for no part, a part alone, else one ``Sequence`` (its ``Sequence`` constructors flatten nested ones).

    >>> sequence_json([UnicodeForm("NFC")], (0,), "normalizers")
    {'type': 'Sequence', 'normalizers': [{'type': 'NFC'}]}
    >>> sequence_json([UnicodeForm("NFC")], None, "normalizers")
    {'type': 'NFC'}
    """
    if _parts_in(shape) != len(parts):
        shape = None if not parts else 0 if len(parts) == 1 else (0,) * len(parts)
    if shape is None:
        return None
    remaining = iter(parts)

    def written(node: Shape) -> dict[str, Any]:
        if isinstance(node, tuple):
            return {"type": "Sequence", key: [written(part) for part in node]}
        return dict(next(remaining).to_json())

    return written(shape)


def pattern_source(data: Mapping[str, Any]) -> dict[str, str]:
    """The ``{"String": ...}`` or ``{"Regex": ...}`` that :func:`~hf_bpe.pipeline.component.pattern_from_json`
    compiled from ``data`` (the one it took), to write back (``SplitPattern``'s serde: one variant)."""
    if isinstance(data.get("String"), str):
        return {"String": data["String"]}
    return {"Regex": str(data["Regex"])}


def pattern_json(pattern: regex.Pattern[str], source: Mapping[str, str] | None) -> dict[str, str]:
    """A pattern as its JSON: as read (``source``), or, made in code, the text it matches where it is plain text
    (``{"String": ...}``), else its regex.

    >>> pattern_json(regex.compile(regex.escape(" ")), None), pattern_json(regex.compile(" {2,}"), None)
    ({'String': ' '}, {'Regex': ' {2,}'})
    """
    if source is not None:
        return dict(source)
    literal = _literal_text(pattern)
    return {"Regex": pattern.pattern} if literal is None else {"String": literal}


# -- the twins of tokenizers' normalizers, with spans ---------------------------------------------------------------


#: A pattern that is plain text: no character of regex syntax but escaped (``regex.escape`` of a ``String``).
_LITERAL = regex.compile(r"(?:[^\\.^$*+?{}\[\]|()]|\\[^0-9A-Za-z])+")
_DEFAULT_FLAGS = regex.compile("").flags


@functools.lru_cache(maxsize=256)
def _literal_text(pattern: regex.Pattern[str]) -> str | None:
    """The text ``pattern`` matches where it matches only that text (None: a real regex, or other flags)."""
    if pattern.flags != _DEFAULT_FLAGS or not _LITERAL.fullmatch(pattern.pattern):
        return None
    return regex.sub(r"\\(.)", r"\1", pattern.pattern, flags=regex.DOTALL)


@dataclasses.dataclass(frozen=True)
class Replace:
    """``normalizers.Replace``: every match of ``pattern`` (leftmost, not overlapping) becomes ``content``; each
    character put in takes the span of the match's last character, as ``NormalizedString::replace`` aligns it.

    >>> Replace(regex.compile(" "), "▁").normalize("a b", [(0, 1), (1, 2), (2, 3)])
    ('a▁b', [(0, 1), (1, 2), (2, 3)])
    """

    pattern: regex.Pattern[str]
    content: str
    #: The pattern's JSON as read (``{"String": ...}`` or ``{"Regex": ...}``): the compiled pattern is a
    #: translation of the Oniguruma one, not its text.
    source: Mapping[str, str] | None = dataclasses.field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """``Replace``'s JSON as ``tokenizers`` writes it."""
        return {"type": "Replace", "pattern": pattern_json(self.pattern, self.source), "content": self.content}

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

    def normalize_str(self, text: str) -> str:
        """:meth:`normalize`'s text alone (an empty match puts nothing in, as there); a pattern that is plain text
        (``{"String": " "}``: Llama-2's, Gemma's) by ``str.replace``, the same leftmost matches in C."""
        content = self.content
        literal = _literal_text(self.pattern)
        if literal:
            return text.replace(literal, content)
        return self.pattern.sub(lambda match: content if match.end() > match.start() else "", text)


@dataclasses.dataclass(frozen=True)
class Prepend:
    """``normalizers.Prepend``: ``prepend`` before non-empty text, with the first character's span.

    >>> Prepend("▁").normalize("ab", [(4, 5), (5, 6)])
    ('▁ab', [(4, 5), (4, 5), (5, 6)])
    """

    prepend: str

    def to_json(self) -> dict[str, Any]:
        """``Prepend``'s JSON as ``tokenizers`` writes it."""
        return {"type": "Prepend", "prepend": self.prepend}

    def normalize(self, text: str, spans: list[Span]) -> Spanned:
        if not text:
            return text, spans
        return self.prepend + text, [spans[0]] * len(self.prepend) + spans

    def normalize_str(self, text: str) -> str:
        """:meth:`normalize`'s text alone."""
        return self.prepend + text if text else text


# Nmt (tokenizers/src/normalizers/unicode.rs, ``do_nmt``): ASCII control characters removed, other white space
# (and U+2581 itself, and U+FFFD) made a plain space.
NMT_TABLE: dict[int, int | None] = {
    **{c: None for c in (*range(0x01, 0x09), 0x0B, *range(0x0E, 0x20), 0x7F, 0x8F, 0x9F)},
    **{c: 0x20 for c in (0x09, 0x0A, 0x0C, 0x0D, 0x1680, *range(0x200B, 0x2010), 0x2028, 0x2029, 0x2581, 0xFEFF)},
    0xFFFD: 0x20,
}


@dataclasses.dataclass(frozen=True)
class Nmt:
    """``normalizers.Nmt``: :data:`NMT_TABLE` on each character; the characters kept keep their spans (as
    ``NormalizedString::filter`` and ``map`` align them).

    >>> Nmt().normalize("a\\x01\\tb", [(0, 1), (1, 2), (2, 3), (3, 4)])
    ('a b', [(0, 1), (2, 3), (3, 4)])
    """

    def to_json(self) -> dict[str, Any]:
        """``Nmt``'s JSON as ``tokenizers`` writes it: the type alone."""
        return {"type": "Nmt"}

    def normalize(self, text: str, spans: list[Span]) -> Spanned:
        out = text.translate(NMT_TABLE)
        if len(out) == len(text):
            return out, spans
        return out, [span for char, span in zip(text, spans, strict=True) if NMT_TABLE.get(ord(char), 0) is not None]

    def normalize_str(self, text: str) -> str:
        """:meth:`normalize`'s text alone."""
        return text.translate(NMT_TABLE)


@dataclasses.dataclass(frozen=True)
class UnicodeForm:
    """``normalizers.NFC`` / ``NFKC`` / ``NFD`` / ``NFKD`` with the reference's Unicode tables and alignments
    (:func:`unicode_aligned`).

    >>> UnicodeForm("NFKD").normalize("ﬁé", [(0, 1), (1, 2)])
    ('fie\u0301', [(0, 1), (0, 1), (1, 2), (1, 2)])
    """

    form: AnyForm

    def to_json(self) -> dict[str, Any]:
        """The form's JSON as ``tokenizers`` writes it: the type alone (``"NFC"``, ...)."""
        return {"type": self.form}

    def normalize(self, text: str, spans: list[Span]) -> Spanned:
        return unicode_aligned(self.form, text, spans)

    def normalize_str(self, text: str) -> str:
        """:meth:`normalize`'s text alone: ASCII text is in every form already."""
        if text.isascii():
            return text
        return unicode_str(self.form, text)


@dataclasses.dataclass(frozen=True)
class Lowercase:
    """``normalizers.Lowercase``, character by character (:func:`lowercase_aligned`)."""

    def to_json(self) -> dict[str, Any]:
        """``Lowercase``'s JSON as ``tokenizers`` writes it: the type alone."""
        return {"type": "Lowercase"}

    def normalize(self, text: str, spans: list[Span]) -> Spanned:
        return lowercase_aligned(text, spans)

    def normalize_str(self, text: str) -> str:
        """:meth:`normalize`'s text alone (:func:`lowercase` lowers each character on its own too)."""
        return lowercase(text)


# Rust's char::is_white_space (Unicode's White_Space), what NormalizedString::lrstrip strips: str.isspace() less
# the four separators U+001C..U+001F.
_WHITE_SPACE = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | frozenset(
    map(chr, range(0x2000, 0x200B))
)


@dataclasses.dataclass(frozen=True)
class Strip:
    """``normalizers.Strip``: white space off the start (``left``) and the end (``right``); the characters kept
    keep their spans (``NormalizedString::lrstrip``).

    >>> Strip(left=True, right=False).normalize(" a ", [(0, 1), (1, 2), (2, 3)])
    ('a ', [(1, 2), (2, 3)])
    """

    left: bool = True
    right: bool = True

    def to_json(self) -> dict[str, Any]:
        """``Strip``'s JSON as ``tokenizers`` writes it."""
        return {"type": "Strip", "strip_left": self.left, "strip_right": self.right}

    def normalize(self, text: str, spans: list[Span]) -> Spanned:
        start, end = 0, len(text)
        while self.left and start < end and text[start] in _WHITE_SPACE:
            start += 1
        while self.right and end > start and text[end - 1] in _WHITE_SPACE:
            end -= 1
        return text[start:end], spans[start:end]

    def normalize_str(self, text: str) -> str:
        """:meth:`normalize`'s text alone."""
        return self.normalize(text, [(0, 0)] * len(text))[0]


class _Lazy(dict[int, Any]):
    """A ``str.translate`` table that works each character's entry out by ``rule`` when first seen."""

    def __init__(self, rule: Callable[[int], Any]) -> None:
        super().__init__()
        self._rule = rule

    def __missing__(self, cp: int) -> Any:
        value = self[cp] = self._rule(cp)
        return value


class _RangeSet:
    """A class of characters given as inclusive code-point ranges: ``(first, last)`` pairs, or text
    (``"300-36F 483"``: hexadecimal, a range or one code point each), matched by one compiled pattern.

    >>> marks = _RangeSet("300-36F 483")
    >>> "\u0301" in marks, marks.removed("e\u0301!", [(0, 1), (1, 2), (2, 3)])
    (True, ('e!', [(0, 1), (2, 3)]))
    """

    def __init__(self, ranges: str | Iterable[tuple[int, int]]) -> None:
        if isinstance(ranges, str):
            parts = (part.partition("-") for part in ranges.split())
            ranges = [(int(first, 16), int(last or first, 16)) for first, _, last in parts]
        body = "".join(f"{re.escape(chr(first))}-{re.escape(chr(last))}" for first, last in ranges)
        self.pattern = re.compile(f"[{body}]")
        self._without: dict[int, str | None] = _Lazy(lambda cp: None if chr(cp) in self else chr(cp))

    def __contains__(self, char: str) -> bool:
        return self.pattern.fullmatch(char) is not None

    def remove(self, text: str) -> str:
        """``text`` without the characters of the class (``str.translate`` with a table of the characters seen:
        a lookup per character, where the class's pattern would try its many ranges on each).

        >>> _RangeSet("300-36F").remove("é!")
        'e!'
        """
        return text.translate(self._without)

    def removed(self, text: str, spans: list[Span]) -> Spanned:
        """``text`` without the characters of the class, the others with their spans (``NormalizedString::filter``)."""
        cuts = [match.start() for match in self.pattern.finditer(text)]
        if not cuts:
            return text, spans
        starts = [0, *(cut + 1 for cut in cuts)]
        ends = [*cuts, len(text)]
        kept = "".join(text[start:end] for start, end in zip(starts, ends, strict=True))
        return kept, [span for start, end in zip(starts, ends, strict=True) for span in spans[start:end]]


#: The characters ``StripAccents`` removes: ``unicode_normalization_alignments::char::is_combining_mark``, the
#: marks (Mn, Mc, Me) of an older Unicode than Python's (9.0: U+1CF2 and U+1CF3 were still marks then, the marks
#: added since are kept). Written from the reference by asking it about every code point; the tests do so again.
_COMBINING_MARKS = _RangeSet(
    """
300-36F 483-489 591-5BD 5BF 5C1-5C2 5C4-5C5 5C7 610-61A 64B-65F 670 6D6-6DC 6DF-6E4 6E7-6E8 6EA-6ED 711
730-74A 7A6-7B0 7EB-7F3 816-819 81B-823 825-827 829-82D 859-85B 8D4-8E1 8E3-903 93A-93C 93E-94F 951-957
962-963 981-983 9BC 9BE-9C4 9C7-9C8 9CB-9CD 9D7 9E2-9E3 A01-A03 A3C A3E-A42 A47-A48 A4B-A4D A51 A70-A71 A75
A81-A83 ABC ABE-AC5 AC7-AC9 ACB-ACD AE2-AE3 B01-B03 B3C B3E-B44 B47-B48 B4B-B4D B56-B57 B62-B63 B82 BBE-BC2
BC6-BC8 BCA-BCD BD7 C00-C03 C3E-C44 C46-C48 C4A-C4D C55-C56 C62-C63 C81-C83 CBC CBE-CC4 CC6-CC8 CCA-CCD
CD5-CD6 CE2-CE3 D01-D03 D3E-D44 D46-D48 D4A-D4D D57 D62-D63 D82-D83 DCA DCF-DD4 DD6 DD8-DDF DF2-DF3 E31
E34-E3A E47-E4E EB1 EB4-EB9 EBB-EBC EC8-ECD F18-F19 F35 F37 F39 F3E-F3F F71-F84 F86-F87 F8D-F97 F99-FBC FC6
102B-103E 1056-1059 105E-1060 1062-1064 1067-106D 1071-1074 1082-108D 108F 109A-109D 135D-135F 1712-1714
1732-1734 1752-1753 1772-1773 17B4-17D3 17DD 180B-180D 1885-1886 18A9 1920-192B 1930-193B 1A17-1A1B 1A55-1A5E
1A60-1A7C 1A7F 1AB0-1ABE 1B00-1B04 1B34-1B44 1B6B-1B73 1B80-1B82 1BA1-1BAD 1BE6-1BF3 1C24-1C37 1CD0-1CD2
1CD4-1CE8 1CED 1CF2-1CF4 1CF8-1CF9 1DC0-1DF5 1DFB-1DFF 20D0-20F0 2CEF-2CF1 2D7F 2DE0-2DFF 302A-302F 3099-309A
A66F-A672 A674-A67D A69E-A69F A6F0-A6F1 A802 A806 A80B A823-A827 A880-A881 A8B4-A8C5 A8E0-A8F1 A926-A92D
A947-A953 A980-A983 A9B3-A9C0 A9E5 AA29-AA36 AA43 AA4C-AA4D AA7B-AA7D AAB0 AAB2-AAB4 AAB7-AAB8 AABE-AABF AAC1
AAEB-AAEF AAF5-AAF6 ABE3-ABEA ABEC-ABED FB1E FE00-FE0F FE20-FE2F 101FD 102E0 10376-1037A 10A01-10A03
10A05-10A06 10A0C-10A0F 10A38-10A3A 10A3F 10AE5-10AE6 11000-11002 11038-11046 1107F-11082 110B0-110BA
11100-11102 11127-11134 11173 11180-11182 111B3-111C0 111CA-111CC 1122C-11237 1123E 112DF-112EA 11300-11303
1133C 1133E-11344 11347-11348 1134B-1134D 11357 11362-11363 11366-1136C 11370-11374 11435-11446 114B0-114C3
115AF-115B5 115B8-115C0 115DC-115DD 11630-11640 116AB-116B7 1171D-1172B 11C2F-11C36 11C38-11C3F 11C92-11CA7
11CA9-11CB6 16AF0-16AF4 16B30-16B36 16F51-16F7E 16F8F-16F92 1BC9D-1BC9E 1D165-1D169 1D16D-1D172 1D17B-1D182
1D185-1D18B 1D1AA-1D1AD 1D242-1D244 1DA00-1DA36 1DA3B-1DA6C 1DA75 1DA84 1DA9B-1DA9F 1DAA1-1DAAF 1E000-1E006
1E008-1E018 1E01B-1E021 1E023-1E024 1E026-1E02A 1E8D0-1E8D6 1E944-1E94A E0100-E01EF
"""
)


@dataclasses.dataclass(frozen=True)
class StripAccents:
    """``normalizers.StripAccents``: every combining mark removed (the reference's marks, :data:`_COMBINING_MARKS`);
    the others keep their spans. Only marks already apart go: NFD first makes accents marks.

    >>> StripAccents().normalize("e\\u0301é", [(0, 1), (1, 2), (2, 3)])
    ('eé', [(0, 1), (2, 3)])
    """

    def to_json(self) -> dict[str, Any]:
        """``StripAccents``'s JSON as ``tokenizers`` writes it: the type alone."""
        return {"type": "StripAccents"}

    def normalize(self, text: str, spans: list[Span]) -> Spanned:
        return _COMBINING_MARKS.removed(text, spans)

    def normalize_str(self, text: str) -> str:
        """:meth:`normalize`'s text alone."""
        return _COMBINING_MARKS.remove(text)


# The CJK blocks BertNormalizer's is_chinese_char knows; hf_bpe.pipeline.bert's CHINESE_RANGES, which this layer
# may not import (bert sits above the normalizers).
_CHINESE = _RangeSet("4E00-9FFF 3400-4DBF 20000-2A6DF 2A700-2B73F 2B740-2B81F 2B920-2CEAF F900-FAFF 2F800-2FA1F")
_BERT_REMOVED = _RangeSet(bert_tables.REMOVED_RANGES)
_BERT_WHITESPACE = _RangeSet(bert_tables.WHITESPACE_RANGES)
_BERT_NONSPACING = _RangeSet(bert_tables.NONSPACING_RANGES)


@dataclasses.dataclass(frozen=True)
class BertNormalizer:
    """``normalizers.BertNormalizer`` with spans, its steps in the reference's order (``BertNormalizer::normalize``,
    with :mod:`hf_bpe.pipeline._tables.bert`'s classes):

    * ``clean_text``: control, format and private-use characters, NUL and U+FFFD removed, white space made ``" "``;
    * ``handle_chinese_chars``: a ``" "`` on either side of each CJK ideograph, both with its span;
    * ``strip_accents`` (``None``: as ``lowercase``): NFD (:func:`unicode_aligned`), then non-spacing marks removed;
    * ``lowercase``: :func:`lowercase_aligned`.

    >>> BertNormalizer().normalize("中É\\t", [(0, 1), (1, 2), (2, 3)])
    (' 中 e ', [(0, 1), (0, 1), (0, 1), (1, 2), (2, 3)])
    """

    clean_text: bool = True
    handle_chinese_chars: bool = True
    strip_accents: bool | None = None
    lowercase: bool = True

    def to_json(self) -> dict[str, Any]:
        """``BertNormalizer``'s JSON as ``tokenizers`` writes it (``strip_accents`` null: as ``lowercase``)."""
        return {
            "type": "BertNormalizer",
            "clean_text": self.clean_text,
            "handle_chinese_chars": self.handle_chinese_chars,
            "strip_accents": self.strip_accents,
            "lowercase": self.lowercase,
        }

    def normalize(self, text: str, spans: list[Span]) -> Spanned:
        if self.clean_text:
            # do_clean_text filters before it maps: a control character that is white space too (\v) is removed.
            text, spans = _BERT_REMOVED.removed(text, spans)
            text = _BERT_WHITESPACE.pattern.sub(" ", text)
        if self.handle_chinese_chars and _CHINESE.pattern.search(text):
            out = [f" {char} " if char in _CHINESE else char for char in text]
            spans = [span for part, span in zip(out, spans, strict=True) for _ in part]
            text = "".join(out)
        if self.lowercase if self.strip_accents is None else self.strip_accents:
            text, spans = unicode_aligned("NFD", text, spans)
            text, spans = _BERT_NONSPACING.removed(text, spans)
        if self.lowercase:
            text, spans = lowercase_aligned(text, spans)
        return text, spans

    def normalize_str(self, text: str) -> str:
        """:meth:`normalize`'s text alone, each step on the whole text in C and skipped where it has nothing to do:
        ASCII text is cleaned by one ``str.translate`` and has no ideographs or accents; other text is searched
        once for a character cleaning changes after its line breaks and tabs became spaces (the white space
        text is full of).

        >>> BertNormalizer().normalize_str("Ça\\tVA 中文")
        'ca va  中  文 '
        """
        ascii = text.isascii()
        if self.clean_text:
            if ascii:
                text = text.translate(_BERT_ASCII_CLEAN)
            else:
                text = text.replace("\n", " ").replace("\t", " ").replace("\r", " ")
                if _BERT_CLEANED.pattern.search(text) is not None:
                    text = _BERT_WHITESPACE.pattern.sub(" ", _BERT_REMOVED.remove(text))
        if self.handle_chinese_chars and not ascii and _CHINESE.pattern.search(text):
            text = _CHINESE.pattern.sub(lambda match: f" {match.group()} ", text)
        if (self.lowercase if self.strip_accents is None else self.strip_accents) and not text.isascii():
            text = _BERT_NONSPACING.remove(unicode_str("NFD", text))
        if self.lowercase:
            text = lowercase(text)
        return text


# What BertNormalizer's clean_text changes: in ASCII, as one str.translate table (a control character that is white
# space too, \v, is removed: do_clean_text filters before it maps); elsewhere, the characters left to search for
# once "\n", "\t" and "\r" are spaces.
_BERT_ASCII_CLEAN = {
    cp: None if chr(cp) in _BERT_REMOVED else " "
    for cp in range(128)
    if chr(cp) in _BERT_REMOVED or (chr(cp) in _BERT_WHITESPACE and cp != 32)
}
_BERT_CLEANED = _RangeSet(
    [*bert_tables.REMOVED_RANGES, *(span for span in bert_tables.WHITESPACE_RANGES if span != (32, 32))]
)


def _byte_chars() -> tuple[str, ...]:
    """GPT-2's byte alphabet (:data:`hf_bpe.pipeline.byte_level.BYTE_TO_UNICODE`, a sibling layer this one may not
    import): the printable Latin-1 bytes stand for themselves, the other 68 take U+0100 upward in byte order."""
    printable = {*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)}
    others = iter(range(0x100, 0x200))
    return tuple(chr(byte) if byte in printable else chr(next(others)) for byte in range(256))


_BYTE_CHARS = _byte_chars()


@dataclasses.dataclass(frozen=True)
class ByteLevel:
    """``normalizers.ByteLevel``: each character as its UTF-8 bytes in GPT-2's byte alphabet, every byte's
    character with the span of the character it comes from.

    >>> ByteLevel().normalize(" é", [(0, 1), (1, 2)])
    ('ĠÃ©', [(0, 1), (1, 2), (1, 2)])
    """

    def to_json(self) -> dict[str, Any]:
        """``ByteLevel``'s JSON as ``tokenizers`` writes it: the type alone."""
        return {"type": "ByteLevel"}

    def normalize(self, text: str, spans: list[Span]) -> Spanned:
        out: list[str] = []
        out_spans: list[Span] = []
        for char, span in zip(text, spans, strict=True):
            data = char.encode("utf-8", "surrogatepass")
            out += [_BYTE_CHARS[byte] for byte in data]
            out_spans += [span] * len(data)
        return "".join(out), out_spans


# -- Precompiled: SentencePiece's charsmap -------------------------------------------------------------------------

# Graphemes as the unicode-segmentation crate cuts them (extended grapheme clusters).
_GRAPHEME = regex.compile(r"\X")


def _first_prefix_value(units: tuple[int, ...], key: bytes) -> int | None:
    """The value of the shortest key of the double-array trie ``units`` that ``key`` starts with (None: no key
    is a prefix of it): the first result of ``DoubleArray::common_prefix_search``, darts-clone's layout. A NUL
    byte ends the search, as there."""
    node = (units[0] >> 10) << ((units[0] & (1 << 9)) >> 6)
    for byte in key:
        if byte == 0:
            return None
        node ^= byte
        unit = units[node]
        if unit & ((1 << 31) | 0xFF) != byte:  # the unit's label is not this byte: no key goes on this way
            return None
        node ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
        if (unit >> 8) & 1:  # a key ends here: its value is the leaf's
            return units[node] & ((1 << 31) - 1)
    return None


@dataclasses.dataclass(frozen=True)
class Precompiled:
    """``normalizers.Precompiled``: SentencePiece's normalization rules, from a model's ``precompiled_charsmap``.

    The charsmap (``spm_precompiled``) is a little-endian u32 byte count, that many bytes of a darts-clone double
    array (u32 units) whose keys are UTF-8 texts, then NUL-terminated UTF-8 replacements, a key's value being the
    byte offset of its replacement. ``Precompiled::normalize`` goes through the text's graphemes: a grapheme of
    fewer than 6 UTF-8 bytes that a key starts (the shortest such key: ``Precompiled::transform``) becomes that
    key's replacement whole (the rest of the grapheme goes too); any other grapheme is replaced character by
    character the same way. The spans are the reference's (:func:`_replace`, :func:`transform_aligned`).
    ``charsmap=b""`` (SentencePiece's ``identity`` rule) changes nothing; the reference cannot read it.

    >>> Precompiled.from_charsmap(b"").normalize("ﬁ", [(0, 1)])
    ('ﬁ', [(0, 1)])
    """

    units: tuple[int, ...] = dataclasses.field(repr=False)
    replacements: bytes = dataclasses.field(repr=False)
    _seen: dict[str, list[tuple[int, str]] | None] = dataclasses.field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )
    #: The charsmap as read, which ``to_json`` writes back (the reference keeps its bytes and writes them).
    charsmap: bytes = dataclasses.field(default=b"", repr=False, compare=False)

    @classmethod
    def from_charsmap(cls, charsmap: bytes) -> Precompiled:
        """The normalizer of a ``precompiled_charsmap`` (its bytes, not base64).

        Raises:
            ValueError: the charsmap is cut short, or its replacements are not UTF-8 (``PrecompiledError``).
        """
        if not charsmap:
            return cls((), b"", charsmap)
        if len(charsmap) < 4:
            raise ValueError("the charsmap is shorter than its 4-byte trie size")
        (size,) = struct.unpack_from("<I", charsmap)
        count = size // 4
        if len(charsmap) < 4 + 4 * count:
            raise ValueError(f"the charsmap has fewer than the {size} trie bytes it announces")
        units = struct.unpack_from(f"<{count}I", charsmap, 4)
        replacements = charsmap[4 + 4 * count :]
        try:
            replacements.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"the charsmap's replacements are not UTF-8 ({e})") from e
        if not units:
            raise ValueError("the charsmap's trie is empty")
        return cls(units, replacements, charsmap)

    def to_json(self) -> dict[str, Any]:
        """``Precompiled``'s JSON as ``tokenizers`` writes it: the charsmap in standard base64 (with padding)."""
        return {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(self.charsmap).decode("ascii")}

    def replacement(self, chunk: str) -> str | None:
        """What ``chunk`` becomes if a key starts it (``Precompiled::transform``), else None.

        >>> Precompiled.from_charsmap(b"").replacement("a") is None
        True
        """
        if not self.units:
            return None
        value = _first_prefix_value(self.units, chunk.encode("utf-8", "surrogatepass"))
        if value is None:
            return None
        end = self.replacements.find(b"\0", value)
        return self.replacements[value : len(self.replacements) if end < 0 else end].decode("utf-8")

    def _plan(self, grapheme: str) -> list[tuple[int, str]] | None:
        """What ``grapheme`` becomes (None: unchanged), worked out once: ``(count, text)`` pairs, each ``text``
        standing for ``count`` characters of the grapheme."""
        if grapheme in self._seen:
            return self._seen[grapheme]
        plan: list[tuple[int, str]] | None = None
        whole = self.replacement(grapheme) if len(grapheme.encode("utf-8", "surrogatepass")) < 6 else None
        if whole is not None:
            plan = [(len(grapheme), whole)]
        else:
            parts = [self.replacement(char) for char in grapheme]
            if any(part is not None for part in parts):
                plan = [(1, char if part is None else part) for char, part in zip(grapheme, parts, strict=True)]
        self._seen[grapheme] = plan
        return plan

    def normalize(self, text: str, spans: list[Span]) -> Spanned:
        if not self.units:
            return text, spans
        changes: list[Change] = []
        modified = False
        for grapheme in _GRAPHEME.findall(text):
            plan = self._plan(grapheme)
            if plan is None:
                changes += [(char, 0) for char in grapheme]
                continue
            modified = True
            for count, part in plan:
                _replace(changes, count, part)
        return transform_aligned(spans, changes) if modified else (text, spans)

    def normalize_str(self, text: str) -> str:
        """:meth:`normalize`'s text alone: each grapheme's text (its :meth:`_plan`'s parts, or itself), looked up
        in C for a grapheme met before (the spans' bookkeeping is what :meth:`normalize` spends its time on).

        >>> Precompiled.from_charsmap(b"").normalize_str("ﬁ")
        'ﬁ'
        """
        if not self.units:
            return text
        if text.isascii() and "\r\n" not in text:
            # Each ASCII character is a grapheme of its own but CR LF (UAX #29's GB3): one str.translate.
            return text.translate(self._ascii_table)
        return "".join(map(self._texts.__getitem__, _GRAPHEME.findall(text)))

    @property
    def _ascii_table(self) -> dict[int, str]:
        table = self.__dict__.get("_ascii_texts")
        if table is None:
            table = {code: self._texts[chr(code)] for code in range(128)}
            object.__setattr__(self, "_ascii_texts", table)  # derived from the charsmap: not a field
        return table

    @property
    def _texts(self) -> _GraphemeTexts:
        texts = self.__dict__.get("_grapheme_texts")
        if texts is None:
            texts = _GraphemeTexts(self._plan)
            object.__setattr__(self, "_grapheme_texts", texts)  # derived from the charsmap: not a field
        return texts

    def __getstate__(self) -> dict[str, object]:
        # What was normalized before is not part of the normalizer: a pickle (datasets' fingerprint) leaves it out.
        state = {**self.__dict__, "_seen": {}}
        state.pop("_grapheme_texts", None)
        state.pop("_ascii_texts", None)
        return state


class _GraphemeTexts(dict[str, str]):
    """What each grapheme becomes under a :class:`Precompiled` (its plan's texts joined), worked out on first use
    and kept (a bounded number: the cache starts again when full)."""

    def __init__(self, plan: Callable[[str], list[tuple[int, str]] | None]) -> None:
        super().__init__()
        self._plan = plan

    def __missing__(self, grapheme: str) -> str:
        plan = self._plan(grapheme)
        text = grapheme if plan is None else "".join(part for _, part in plan)
        if len(self) >= _GRAPHEMES_KEPT:
            self.clear()
        self[grapheme] = text
        return text


#: How many graphemes' texts a :class:`Precompiled` keeps for :meth:`Precompiled.normalize_str`.
_GRAPHEMES_KEPT = 100_000


def _replace(changes: list[Change], count: int, replacement: str) -> None:
    """Add the changes of ``replacement`` for ``count`` characters, as ``Precompiled::normalize``'s ``replace``
    does: each character replaces one, the last ones are put in where the replacement is longer, and where it is
    shorter the last change so far (the previous text's where the replacement is empty) removes the rest."""
    changes += [(char, 0) for char in replacement]
    diff = len(replacement) - count
    if diff > 0:
        changes[-diff:] = [(char, 1) for char, _ in changes[-diff:]]
    elif diff < 0 and changes:
        char, change = changes[-1]
        changes[-1] = (char, change + diff)


@dataclasses.dataclass(frozen=True)
class NormalizerSequence:
    """``normalizers.Sequence``: each in turn (none: text unchanged)."""

    normalizers: tuple[Any, ...]
    #: Where the parts sat in the JSON read (:func:`json_shape`); None: as ``tokenizers`` writes parts made in code.
    shape: Shape = dataclasses.field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any] | None:
        """The ``normalizer`` section as ``tokenizers`` writes it (:func:`sequence_json`).

        >>> normalizer_from_json({"type": "Sequence", "normalizers": [{"type": "Lowercase"}]}).to_json()
        {'type': 'Sequence', 'normalizers': [{'type': 'Lowercase'}]}
        """
        return sequence_json(self.normalizers, self.shape, "normalizers")

    def normalize(self, text: str, spans: list[Span]) -> Spanned:
        for normalizer in self.normalizers:
            text, spans = normalizer.normalize(text, spans)
        return text, spans

    def normalize_str(self, text: str) -> str:
        """:meth:`normalize`'s text alone, for a caller that wants no offsets (``tokenizers``' ``normalize_str``):
        each normalizer's own ``normalize_str`` where it has one, else its :meth:`normalize` on spans that stand
        for nothing (a normalizer carries spans along, it never reads them)."""
        for step in self.str_steps():
            text = step(text)
        return text

    def str_steps(self) -> list[Callable[[str], str]]:
        """:meth:`normalize_str`'s steps, one function per normalizer (for a caller that runs them on many short
        texts: Gemma-3's lines between its added ``\\n`` tokens)."""
        return [_str_step(normalizer) for normalizer in self.normalizers]


def _str_step(normalizer: Any) -> Callable[[str], str]:
    """A normalizer's ``normalize_str``, or its ``normalize`` on spans that stand for nothing."""
    fast = getattr(normalizer, "normalize_str", None)
    if fast is not None:
        return cast("Callable[[str], str]", fast)
    return lambda text: normalizer.normalize(text, [(0, 0)] * len(text))[0]


def normalizer_from_json(data: Any, path: str = "normalizer") -> NormalizerSequence:
    """The normalizer a ``tokenizer.json``'s ``normalizer`` section describes (None: one that changes nothing).

    >>> normalizer_from_json({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "_"}]})
    NormalizerSequence(normalizers=(Prepend(prepend='_'),))

    Raises:
        UnknownComponent: naming the JSON path of a normalizer or setting not implemented here.
    """
    parts = components_from_json(data, path, "normalizer", "normalizers", _READERS)
    return NormalizerSequence(parts, json_shape(data, "normalizers"))


def _bert_from_json(data: Mapping[str, Any], path: str) -> BertNormalizer:
    strip_accents = data.get("strip_accents")  # null or missing: follow lowercase
    return BertNormalizer(
        bool_field(data, "clean_text", path),
        bool_field(data, "handle_chinese_chars", path),
        None if strip_accents is None else bool_field(data, "strip_accents", path),
        bool_field(data, "lowercase", path),
    )


def _precompiled_from_json(data: Mapping[str, Any], path: str) -> Precompiled:
    encoded = string_field(data, "precompiled_charsmap", path, "a charsmap")
    try:
        return Precompiled.from_charsmap(base64.b64decode(encoded, validate=True))
    except (binascii.Error, ValueError) as e:
        raise UnknownComponent(
            f"{path}.precompiled_charsmap", encoded[:40], f"a charsmap that cannot be read ({e})"
        ) from e


#: How each normalizer is read from its JSON object (``Sequence`` aside).
_READERS: dict[str, Callable[[Mapping[str, Any], str], Any]] = {
    "Replace": lambda data, path: Replace(
        pattern_from_json(data.get("pattern"), f"{path}.pattern"),
        string_field(data, "content", path, "a replacement"),
        pattern_source(data["pattern"]),
    ),
    "Prepend": lambda data, path: Prepend(string_field(data, "prepend", path, "a prefix")),
    "NFC": lambda data, path: UnicodeForm("NFC"),
    "NFKC": lambda data, path: UnicodeForm("NFKC"),
    "NFD": lambda data, path: UnicodeForm("NFD"),
    "NFKD": lambda data, path: UnicodeForm("NFKD"),
    "Lowercase": lambda data, path: Lowercase(),
    "Nmt": lambda data, path: Nmt(),
    "Strip": lambda data, path: Strip(bool_field(data, "strip_left", path), bool_field(data, "strip_right", path)),
    "StripAccents": lambda data, path: StripAccents(),
    "BertNormalizer": _bert_from_json,
    "Precompiled": _precompiled_from_json,
    "ByteLevel": lambda data, path: ByteLevel(),
}
