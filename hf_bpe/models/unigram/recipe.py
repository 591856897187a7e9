"""Text to words as ``tokenizers``' ``SentencePieceUnigramTokenizer`` cuts it, for training and encoding.

The recipe (``tokenizers/implementations/sentencepiece_unigram.py``) is a normalizer sequence ``Nmt``, ``NFKC``,
``Replace(" {2,}", " ")`` and the ``Metaspace`` pre-tokenizer with ``▁`` and ``prepend_scheme="always"``:
spaces become ``▁``, a ``▁`` is put before a text that does not start with one, and the text is cut before
every ``▁``. This module owns those functions and the JSON that names them in ``tokenizer.json``; the model
(pieces and scores) is :mod:`hf_bpe.models.unigram.trainer`'s.

Kept here, in the package, until the shared :mod:`hf_bpe.pretokenizer` can name this recipe.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable
from typing import Any

import regex

from hf_bpe.models.unigram._nfkc_table import NO_CLASS, NOT_COMPOSED, UNCHANGED

#: The Metaspace replacement character (U+2581), the reference's default.
METASPACE = "\u2581"

# Nmt (tokenizers/src/normalizers/unicode.rs, ``do_nmt``): ASCII control characters removed, other white space
# (and U+2581 itself, and U+FFFD) made a plain space.
_NMT_TABLE: dict[int, int | None] = {
    **{c: None for c in (*range(0x01, 0x09), 0x0B, *range(0x0E, 0x20), 0x7F, 0x8F, 0x9F)},
    **{c: 0x20 for c in (0x09, 0x0A, 0x0C, 0x0D, 0x1680, *range(0x200B, 0x2010), 0x2028, 0x2029, 0x2581, 0xFEFF)},
    0xFFFD: 0x20,
}
_SPACES = regex.compile(" {2,}")
_LINE = regex.compile(r"[^\n]*\n|[^\n]+")
_OTHER_BREAKS = regex.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_BEFORE_METASPACE = regex.compile(f"(?={METASPACE})")


Span = tuple[int, int]
_SPECIAL = UNCHANGED | NO_CLASS | NOT_COMPOSED | {unicodedata.normalize("NFD", c) for c in NOT_COMPOSED}


def _combining(char: str) -> int:
    return 0 if char in NO_CLASS else unicodedata.combining(char)


def nfkc_aligned(text: str, spans: list[Span]) -> tuple[str, list[Span]]:
    """NFKC as ``tokenizers`` does it, with each output character's span, as ``NormalizedString::nfkc`` aligns them.

    Each character is decomposed (NFKD) with its pieces keeping its span, combining marks are put in canonical
    order, then composed: a composed character keeps its starter's span and the marks it absorbed are dropped
    (``unicode-normalization-alignments``). The reference's Unicode data is older than ``unicodedata``'s: the
    characters it does not know are left alone, as :mod:`._nfkc_table` lists.

    >>> nfkc_aligned("ﬁe\u0301", [(0, 1), (1, 2), (2, 3)])
    ('fié', [(0, 1), (0, 1), (1, 2)])
    """
    if unicodedata.is_normalized("NFKC", text) and not any(char in _SPECIAL for char in text):
        return text, spans
    chars: list[str] = []
    origin: list[Span] = []
    for char, span in zip(text, spans, strict=True):
        for piece in char if char in UNCHANGED or char in NOT_COMPOSED else unicodedata.normalize("NFKD", char):
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


def nfkc(text: str) -> str:
    """NFKC as ``tokenizers``' ``NFKC`` normalizer does it (see :func:`nfkc_aligned`).

    >>> nfkc("\u32ff ㍻")  # the reference's Unicode has no 令和 square yet
    '㋿ 平成'
    """
    if unicodedata.is_normalized("NFKC", text) and not any(char in _SPECIAL for char in text):
        return text
    return nfkc_aligned(text, [(0, 0)] * len(text))[0]


def normalize(text: str) -> str:
    """The recipe's normalizer: ``Nmt``, then ``NFKC``, then runs of spaces made one.

    >>> normalize("ﬁne\\t\\tday\\n")
    'fine day '
    """
    return _SPACES.sub(" ", nfkc(text.translate(_NMT_TABLE)))


def pre_tokenize(normalized: str) -> list[str]:
    """``Metaspace(replacement="▁", prepend_scheme="always", split=True)`` on normalized text.

    >>> pre_tokenize("Hello world ")
    ['▁Hello', '▁world', '▁']
    >>> pre_tokenize("")
    []
    """
    if not normalized:
        return []
    text = normalized.replace(" ", METASPACE)
    if not text.startswith(METASPACE):
        text = METASPACE + text
    return [word for word in _BEFORE_METASPACE.split(text) if word]


def words(text: str) -> list[str]:
    """The words that ``Tokenizer.train`` feeds the trainer for one sequence (a line with its ending).

    >>> words("The  cat\\n")
    ['▁The', '▁cat', '▁']
    """
    return pre_tokenize(normalize(text))


def count_words(sequences: Iterable[str]) -> Counter[str]:
    """How often each word occurs in the sequences: the trainer's input (``UnigramTrainer::feed``).

    >>> sorted(count_words(["a b", "b"]).items())
    [('▁a', 1), ('▁b', 2)]
    """
    counts: Counter[str] = Counter()
    for sequence in sequences:
        counts.update(words(sequence))
    return counts


def lines(text: str) -> list[str]:
    """Text cut as ``Tokenizer::train_from_files`` reads a file: at ``\\n`` only, each line with its ending.

    >>> lines("a\\r\\nb\\rc\\n")
    ['a\\r\\n', 'b\\rc\\n']
    """
    return (
        text.splitlines(keepends=True) if "\r" not in text and not _OTHER_BREAKS.search(text) else _LINE.findall(text)
    )


def normalizer_json() -> dict[str, Any]:
    """The recipe's normalizer as ``tokenizer.json`` spells it."""
    return {
        "type": "Sequence",
        "normalizers": [
            {"type": "Nmt"},
            {"type": "NFKC"},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
        ],
    }


def pre_tokenizer_json() -> dict[str, Any]:
    """The recipe's ``Metaspace`` pre-tokenizer as ``tokenizer.json`` spells it."""
    return {"type": "Metaspace", "replacement": METASPACE, "prepend_scheme": "always", "split": True}


def decoder_json() -> dict[str, Any]:
    """The recipe's ``Metaspace`` decoder as ``tokenizer.json`` spells it."""
    return {"type": "Metaspace", "replacement": METASPACE, "prepend_scheme": "always", "split": True}
