"""Text to words as ``tokenizers``' ``SentencePieceUnigramTokenizer`` cuts it, for training and encoding.

The recipe (``tokenizers/implementations/sentencepiece_unigram.py``) is a normalizer sequence ``Nmt``, ``NFKC``,
``Replace(" {2,}", " ")`` and the ``Metaspace`` pre-tokenizer with ``▁`` and ``prepend_scheme="always"``:
spaces become ``▁``, a ``▁`` is put before a text that does not start with one, and the text is cut before
every ``▁``. This module owns those functions, :class:`SentencePieceRecipe` (the recipe as the kind of
:class:`~hf_bpe.pipeline.pre_tokenizers.PreTokenizer` that counting, training, counts manifests and ``tokenizer.json``
take: ``PreTokenizer.sentencepiece_recipe()``) and the JSON that names them in ``tokenizer.json``; the model (pieces
and scores) is :mod:`hf_bpe.models.unigram.trainer`'s.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from typing import Any

import regex

from hf_bpe.pipeline.normalizers import NMT_TABLE, Nmt, NormalizerSequence, Replace, UnicodeForm, unicode_normalize

#: The Metaspace replacement character (U+2581), the reference's default.
METASPACE = "\u2581"

_SPACES = regex.compile(" {2,}")
_LINE = regex.compile(r"[^\n]*\n|[^\n]+")
_OTHER_BREAKS = regex.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_BEFORE_METASPACE = regex.compile(f"(?={METASPACE})")


@dataclasses.dataclass(frozen=True)
class SentencePieceRecipe:
    """``SentencePieceUnigramTokenizer``'s normalizer and pre-tokenizer, as one value a
    :class:`~hf_bpe.pipeline.pre_tokenizers.PreTokenizer` holds (its ``sentencepiece`` field).

    Args:
        replacement: the Metaspace character; only the reference's ``▁`` (U+2581), which ``Nmt`` also maps to a
            space, is supported.
        prepend_scheme: only ``"always"`` (the recipe's).

    Raises:
        ValueError: another replacement or prepend scheme.

    >>> SentencePieceRecipe().pre_tokenize(SentencePieceRecipe().normalize("The  cat\\n"))
    ['▁The', '▁cat', '▁']
    """

    replacement: str = METASPACE
    prepend_scheme: str = "always"

    def __post_init__(self) -> None:
        if self.replacement != METASPACE:
            raise ValueError(f"replacement {self.replacement!r}: the SentencePiece recipe uses {METASPACE!r} only")
        if self.prepend_scheme != "always":
            raise ValueError(f"prepend_scheme {self.prepend_scheme!r}: the SentencePiece recipe uses 'always' only")

    def normalize(self, text: str) -> str:
        """:func:`normalize`."""
        return normalize(text)

    def pre_tokenize(self, normalized: str) -> list[str]:
        """:func:`pre_tokenize`."""
        return pre_tokenize(normalized)

    def normalizer_twin(self) -> NormalizerSequence:
        """The recipe's normalizer as the twin a ``tokenizer.json`` reads into: ``Sequence([Nmt, NFKC,
        Replace(" {2,}", " ")])`` (:func:`normalize` runs the same steps in one line)."""
        return NormalizerSequence((Nmt(), UnicodeForm("NFKC"), Replace(_SPACES, " ", {"Regex": _SPACES.pattern})))

    def normalizer_json(self) -> dict[str, Any] | None:
        """The ``normalizer`` section of ``tokenizer.json``: its twin's (:meth:`normalizer_twin`)."""
        return self.normalizer_twin().to_json()


def metaspace_json(replacement: str, prepend_scheme: str, split: bool) -> dict[str, Any]:
    """``Metaspace`` as ``tokenizer.json`` holds it: one object for the pre-tokenizer and the decoder (``tokenizers``
    writes the two alike, from one struct).

    >>> metaspace_json(METASPACE, "always", True)["prepend_scheme"]
    'always'
    """
    return {"type": "Metaspace", "replacement": replacement, "prepend_scheme": prepend_scheme, "split": split}


def nfkc(text: str) -> str:
    """NFKC as ``tokenizers``' ``NFKC`` normalizer does it (see :func:`hf_bpe.pipeline.normalizers.unicode_aligned`).

    >>> nfkc("\u32ff ㍻")  # the reference's Unicode has no 令和 square yet
    '㋿ 平成'
    """
    return unicode_normalize("NFKC", text)


def normalize(text: str) -> str:
    """The recipe's normalizer: ``Nmt``, then ``NFKC``, then runs of spaces made one.

    >>> normalize("ﬁne\\t\\tday\\n")
    'fine day '
    """
    return _SPACES.sub(" ", nfkc(text.translate(NMT_TABLE)))


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
