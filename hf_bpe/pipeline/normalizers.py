"""Text normalizers as ``tokenizers`` applies them, character for character.

This module owns how text is normalized before it is split (lowercase, NFC, NFKC), exactly as the reference does
it; splitting is :mod:`hf_bpe.pipeline.pre_tokenizers`'s job, counting :mod:`hf_bpe.counting.counting`'s.

``tokenizers``' ``Lowercase`` normalizer lowercases each character on its own with Rust's Unicode tables. Python's
``str.lower()`` differs in two ways: it lowers a word-final ``Σ`` to ``ς`` (the reference: always ``σ``), and it
follows an older Unicode, so some 55 recently encoded capitals (U+1C89, U+A7CB, U+10D50-U+10D65,
U+16EA0-U+16EB8, ...) stay as they are. ``hf_bpe/pipeline/_tables/lowercase.py``, generated from the reference by
``scripts/generate_lowercase_table.py``, lists those characters with the reference's lowercase.
(``İ``, U+0130, lowers to two code points, ``i`` and U+0307, in both.)
"""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, Literal

import regex

from hf_bpe.pipeline._tables.lowercase import LOWERCASE
from hf_bpe.pipeline._tables.nfkc import NO_CLASS, NOT_COMPOSED, UNCHANGED
from hf_bpe.pipeline.component import Span, Spanned, UnknownComponent, kind_of, pattern_from_json, string_field

# Each entry is already lowercase to Python, so str.lower() after the table leaves it alone.
_TABLE = {cp: lowered for cp, lowered in LOWERCASE.items()}


def lowercase(text: str) -> str:
    """Lowercase ``text`` as ``tokenizers.normalizers.Lowercase`` does.

    >>> lowercase("ΟΔΟΣ İstanbul")
    'οδοσ i̇stanbul'
    >>> "ΟΔΟΣ".lower()
    'οδος'
    """
    if text.isascii():
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


def normalize_aligned(form: Form, text: str, spans: list[Span]) -> tuple[str, list[Span]]:
    """NFC or NFKC (``form``) as ``tokenizers`` does it, with each output character's span, as
    ``NormalizedString::nfkc`` aligns them.

    Each character is decomposed (NFD or NFKD) with its pieces keeping its span, combining marks are put in
    canonical order, then composed: a composed character keeps its starter's span and the marks it absorbed are
    dropped (``unicode-normalization-alignments``). The reference's Unicode data is older than ``unicodedata``'s:
    the characters it does not know are left alone, marks it does not know have combining class 0, and one
    composition it lacks is not made, as ``hf_bpe/pipeline/_tables/nfkc.py`` (generated from the reference by
    ``scripts/generate_nfkc_table.py``) lists.

    >>> normalize_aligned("NFKC", "ﬁe\u0301", [(0, 1), (1, 2), (2, 3)])
    ('fié', [(0, 1), (0, 1), (1, 2)])
    """
    decompose: Literal["NFD", "NFKD"] = "NFKD" if form == "NFKC" else "NFD"
    if unicodedata.is_normalized(form, text) and _SPECIAL.isdisjoint(text):
        return text, spans
    chars: list[str] = []
    origin: list[Span] = []
    for char, span in zip(text, spans, strict=True):
        for piece in char if char in UNCHANGED or char in NOT_COMPOSED else unicodedata.normalize(decompose, char):
            chars.append(piece)
            origin.append(span)
    # Canonical ordering: a stable sort of each run of marks by combining class.
    index = 0
    while index < len(chars):
        if _combining(chars[index]):
            end = index
            while end < len(chars) and _combining(chars[end]):
                end += 1
            run = sorted(zip(chars[index:end], origin[index:end], strict=True), key=lambda item: _combining(item[0]))
            chars[index:end] = [c for c, _ in run]
            origin[index:end] = [o for _, o in run]
            index = end
        else:
            index += 1
    out: list[str] = []
    out_spans: list[Span] = []
    starter = -1  # where in out the last starter is
    last_class = 0
    for char, span in zip(chars, origin, strict=True):
        klass = _combining(char)
        if starter >= 0:
            blocked = (last_class != 0 and last_class >= klass) if klass else len(out) - 1 != starter
            if not blocked:
                composed = unicodedata.normalize("NFC", out[starter] + char)
                if len(composed) == 1 and composed not in NOT_COMPOSED and out[starter] not in UNCHANGED:
                    out[starter] = composed
                    continue
        if klass == 0:
            starter = len(out)
            last_class = 0
        else:
            last_class = klass
        out.append(char)
        out_spans.append(span)
    return "".join(out), out_spans


def unicode_normalize(form: Form, text: str) -> str:
    """NFC or NFKC (``form``) as ``tokenizers``' ``NFC`` / ``NFKC`` normalizers do it (:func:`normalize_aligned`).

    >>> unicode_normalize("NFC", "a\u0301\u08ca"), unicode_normalize("NFKC", "\u32ff")
    ('á\u08ca', '\u32ff')
    """
    if _SPECIAL.isdisjoint(text):
        # Where the two Unicode versions agree, the reference's algorithm is the standard one: decomposition,
        # canonical order, composition of unblocked pairs (Chinese text is seldom NFKC: full-width punctuation).
        return unicodedata.normalize(form, text)
    return normalize_aligned(form, text, [(0, 0)] * len(text))[0]


# -- the twins of tokenizers' normalizers, with spans ---------------------------------------------------------------


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

    >>> normalizer_from_json({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "_"}]})
    NormalizerSequence(normalizers=(Prepend(prepend='_'),))

    Raises:
        UnknownComponent: naming the JSON path of a normalizer or setting not implemented here.
    """
    kind = kind_of(data, path, "normalizer")
    if kind is None:
        return NormalizerSequence(())
    if kind == "Sequence":
        parts = data.get("normalizers") or []
        return NormalizerSequence(
            tuple(
                normalizer
                for index, part in enumerate(parts)
                for normalizer in normalizer_from_json(part, f"{path}.normalizers[{index}]").normalizers
            )
        )
    read = _READERS.get(kind)
    if read is None:
        raise UnknownComponent(f"{path}.type", kind, f"the normalizer {kind!r}")
    return NormalizerSequence((read(data, path),))


#: How each normalizer is read from its JSON object (``Sequence`` aside).
_READERS: dict[str, Callable[[Mapping[str, Any], str], Any]] = {
    "Replace": lambda data, path: Replace(
        pattern_from_json(data.get("pattern"), f"{path}.pattern"), string_field(data, "content", path, "a replacement")
    ),
    "Prepend": lambda data, path: Prepend(string_field(data, "prepend", path, "a prefix")),
    "NFC": lambda data, path: UnicodeForm("NFC"),
    "NFKC": lambda data, path: UnicodeForm("NFKC"),
    "Lowercase": lambda data, path: Lowercase(),
}
