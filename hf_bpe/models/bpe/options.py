"""What a BPE model is made of (its vocabulary and merges, as types) and what training one is asked for: the
options with ``BpeTrainer``'s defaults, checked in one place, and how a char-level one is made."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from hf_bpe.models.options import check_count, check_special_tokens, check_vocab_size, with_keywords

#: Token (spelled with the byte-level alphabet, or plain characters for char-level BPE) to id.
Vocab = dict[str, int]
#: The merges in the order they apply, as ``merges.txt`` lists them.
Merges = list[tuple[str, str]]


class MergePairs(Sequence[tuple[str, str]]):
    """Merges in rank order, held as two lists (left parts, right parts) instead of a tuple per merge: what a
    ``tokenizer.json``'s merges are read into for the classes that load it. A tuple is made for each merge only when
    the merges are asked for one by one (Llama-3's 280,000 tuples, and the garbage collector's pass over them once
    the load was done, were a fifth of its load); the encoders' tables read the two lists alone. Read-only.

    >>> pairs = MergePairs(["a", "ab"], ["b", "c"])
    >>> len(pairs), pairs[1], list(pairs), pairs == [("a", "b"), ("ab", "c")]
    (2, ('ab', 'c'), [('a', 'b'), ('ab', 'c')], True)
    """

    __slots__ = ("lefts", "rights")

    def __init__(self, lefts: list[str], rights: list[str]) -> None:
        if len(lefts) != len(rights):
            raise ValueError(f"{len(lefts)} left parts but {len(rights)} right parts")
        self.lefts = lefts
        self.rights = rights

    def __len__(self) -> int:
        return len(self.lefts)

    @overload
    def __getitem__(self, index: int) -> tuple[str, str]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[str, str]]: ...

    def __getitem__(self, index: int | slice) -> tuple[str, str] | list[tuple[str, str]]:
        if isinstance(index, slice):
            return list(zip(self.lefts[index], self.rights[index], strict=True))
        return (self.lefts[index], self.rights[index])

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return zip(self.lefts, self.rights, strict=True)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MergePairs):
            return self.lefts == other.lefts and self.rights == other.rights
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # equal to lists, which are unhashable

    def __repr__(self) -> str:
        return f"MergePairs({list(self)!r})"


#: Why training stopped.
STOP_VOCAB_SIZE = "vocab_size"
STOP_MIN_FREQUENCY = "min_frequency"
STOP_NO_PAIRS = "no_pairs"


@dataclasses.dataclass(frozen=True)
class CharLevel:
    """Char-level BPE (GPT-1 / Sennrich style) instead of byte-level: words split on white space, tokens spelled
    with the text's own characters, the last character of a word marked with a suffix.

    Attributes:
        end_of_word_suffix: glued to the last character of every word (``"</w>"``), or None.
        continuing_subword_prefix: glued to every character but a word's first (``"##"``), or None.
        lowercase: lowercase the text first.
    """

    end_of_word_suffix: str | None = "</w>"
    continuing_subword_prefix: str | None = None
    lowercase: bool = False

    @property
    def affixes(self) -> tuple[str, str]:
        """The end-of-word suffix and the continuing-subword prefix, each ``""`` when there is none.

        >>> CharLevel().affixes
        ('</w>', '')
        """
        return (self.end_of_word_suffix or "", self.continuing_subword_prefix or "")


@dataclasses.dataclass(frozen=True)
class BpeOptions:
    """What BPE training is asked for, with ``BpeTrainer``'s defaults, checked when made.

    The Python API's front ends take one (``options=``) or its fields as keywords; the command line, its
    ``--config`` presets and a continued tokenizer map onto it. How the text is cut (pattern, normalizer, prefix
    space) is the pre-tokenizer's, not the model's, and is not here.

    Attributes:
        vocab_size: the vocabulary size to reach, special tokens and the alphabet included.
        min_frequency: stop when the most frequent pair occurs fewer times than this.
        special_tokens: tokens given the first ids, in order (a list is kept as a tuple).
        limit_alphabet: keep at most this many alphabet characters, the most frequent ones.
        max_token_length: make merged tokens only below this many characters.
        char_level: train char-level BPE (:class:`CharLevel`) instead of byte-level.

    Raises:
        ValueError: naming the option and the value: a count below its least value or not an integer, a
            ``vocab_size`` above :data:`MAX_VOCAB_SIZE`, an empty or repeated special token.
        TypeError: ``special_tokens`` given as one string.

    >>> BpeOptions(vocab_size=1000, special_tokens=["<s>"])
    BpeOptions(vocab_size=1000, min_frequency=0, special_tokens=('<s>',), limit_alphabet=None, \
max_token_length=None, char_level=None)
    >>> BpeOptions(vocab_size=0)
    Traceback (most recent call last):
    ValueError: vocab_size=0: must be an integer of at least 1
    """

    vocab_size: int = 30000
    min_frequency: int = 0
    special_tokens: Sequence[str] = ()
    limit_alphabet: int | None = None
    max_token_length: int | None = None
    char_level: CharLevel | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "special_tokens", check_special_tokens(self.special_tokens))
        check_vocab_size(self.vocab_size)
        check_count("min_frequency", self.min_frequency, 0)
        check_count("limit_alphabet", self.limit_alphabet, 0, optional=True)
        check_count("max_token_length", self.max_token_length, 1, optional=True)
        if self.char_level is not None and not isinstance(self.char_level, CharLevel):
            raise TypeError(f"char_level={self.char_level!r}: give a CharLevel (or None for byte-level BPE)")

    @classmethod
    def of(cls, options: BpeOptions | None, keywords: Mapping[str, Any], caller: str) -> BpeOptions:
        """``options`` (default: the defaults) with the fields given as ``keywords`` replaced: what each front end
        takes (:func:`hf_bpe.models.options.with_keywords`).

        >>> BpeOptions.of(BpeOptions(vocab_size=500), {"min_frequency": 2}, "f").min_frequency
        2
        >>> given = BpeOptions(vocab_size=500)
        >>> BpeOptions.of(given, {}, "f") is given  # handed on, not rebuilt
        True
        >>> BpeOptions.of(None, {"vocab_sise": 5}, "train_from_files")
        Traceback (most recent call last):
        TypeError: train_from_files() got an unexpected keyword argument 'vocab_sise' (BpeOptions: vocab_size, \
min_frequency, special_tokens, limit_alphabet, max_token_length, char_level)
        """
        # Keywords laid over the shared defaults: one object built, not the defaults and then a copy of them.
        return with_keywords(cls, options or DEFAULTS, keywords, caller)


#: ``BpeTrainer``'s defaults, built once: what :meth:`BpeOptions.of` lays a keyword caller's options over.
DEFAULTS = BpeOptions()
