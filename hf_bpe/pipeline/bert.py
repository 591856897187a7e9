"""BERT's text recipe: ``tokenizers``' ``BertNormalizer`` and ``BertPreTokenizer`` as counting and training take them.

:class:`BertRecipe` holds ``BertNormalizer``'s settings and normalizes through its twin
(:class:`hf_bpe.pipeline.normalizers.BertNormalizer`, the one implementation: ``clean_text``, ``handle_chinese_chars``,
``strip_accents``, ``lowercase``, in the reference's order). This module owns the pre-tokenizer's cut
(``BertPreTokenizer``, which the twin :class:`hf_bpe.pipeline.pre_tokenizers.BertPreTokenizer` calls): split on white
space (removed), then every punctuation character is a word of its own (ASCII punctuation, symbols like
``$+<=>^`|~`` included, and Unicode's ``P*`` categories), with the reference's character classes recorded in
:mod:`hf_bpe.pipeline._tables.bert` (``scripts/generate_bert_tables.py``).

The model (which word pieces a word becomes) is :mod:`hf_bpe.models.wordpiece.encoder`'s job.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import regex

from hf_bpe.pipeline._tables import bert as tables
from hf_bpe.pipeline.normalizers import BertNormalizer

Piece = tuple[str, tuple[int, int]]
"""A pre-token and its ``(start, end)`` character span in the text it was cut from."""


def _char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    """A regex character class body for inclusive code-point ranges."""
    return "".join(f"\\U{a:08X}-\\U{b:08X}" if a != b else f"\\U{a:08X}" for a, b in ranges)


# Rust's is_ascii_punctuation: the ASCII part of the reference's punctuation.
_ASCII_WORDS = regex.compile(r"[!-/:-@\[-`{-~]|[^!-/:-@\[-`{-~]+")
_PUNCTUATION = regex.compile(f"([{_char_class(tables.PUNCTUATION_RANGES)}])")
_PYTHON_ONLY_SPACE = regex.compile("[\x1c-\x1f]")
_WORDS = regex.compile(
    f"[{_char_class(tables.PUNCTUATION_RANGES)}]"
    f"|[^{_char_class(tables.WHITESPACE_RANGES)}{_char_class(tables.PUNCTUATION_RANGES)}]+"
)


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

    def __post_init__(self) -> None:
        # The BertNormalizer twin with these settings (:attr:`normalizer`), kept beside the fields: the one
        # implementation of BERT's normalizing.
        twin = BertNormalizer(self.clean_text, self.handle_chinese_chars, self.strip_accents, self.lowercase)
        object.__setattr__(self, "_normalizer", twin)

    @property
    def normalizer(self) -> BertNormalizer:
        """The ``BertNormalizer`` twin with these settings."""
        return self._normalizer  # type: ignore[attr-defined]

    @property
    def strips_accents(self) -> bool:
        """Whether accents are stripped (``strip_accents``, or ``lowercase`` where that is ``None``)."""
        return self.lowercase if self.strip_accents is None else self.strip_accents

    def normalize(self, text: str) -> str:
        """``BertNormalizer.normalize_str``.

        >>> BertRecipe().normalize("Ça\\tVA 中文")
        'ca va  中  文 '
        """
        return self.normalizer.normalize_str(text)

    def words(self, text: str) -> list[str]:
        """The words of ``text``: normalized, then pre-tokenized."""
        return split_words(self.normalize(text))

    def to_json(self) -> dict[str, Any]:
        """The ``BertNormalizer`` entry of ``tokenizer.json``: its twin's."""
        return self.normalizer.to_json()


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
    return BertNormalizer(clean_text, handle_chinese_chars, strip_accents, lowercase).normalize_str(text)


def pre_tokenize(text: str) -> list[Piece]:
    """``BertPreTokenizer().pre_tokenize_str(text)``, with character (not byte) offsets.

    >>> pre_tokenize("Hey friend!  ok?!")
    [('Hey', (0, 3)), ('friend', (4, 10)), ('!', (10, 11)), ('ok', (13, 15)), ('?', (15, 16)), ('!', (16, 17))]
    """
    return [(match.group(), match.span()) for match in _WORDS.finditer(text)]
