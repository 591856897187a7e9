"""What WordPiece training is asked for: the options with ``BertWordPieceTokenizer.train``'s defaults, checked in one
place, and BERT's constants."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from hf_bpe.models.bpe.options import BpeOptions, CharLevel
from hf_bpe.models.options import check_count, check_special_tokens, check_vocab_size, with_keywords

#: BERT's special tokens, in BERT's order (ids 0 to 4).
BERT_SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
#: BERT's prefix for a piece that continues a word.
CONTINUING_SUBWORD_PREFIX = "##"
#: How the two trainers score a pair.
SCORINGS = ("frequency", "likelihood")


@dataclasses.dataclass(frozen=True)
class WordPieceOptions:
    """What WordPiece training is asked for, with ``BertWordPieceTokenizer.train``'s defaults, checked when made.

    The front ends (:mod:`hf_bpe.models.wordpiece.training`) take one (``options=``) or its fields as keywords;
    ``hf-bpe train --model wordpiece`` builds one. BERT's text recipe (lowercasing, accents, ...) is the
    pre-tokenizer's (:class:`~hf_bpe.pipeline.bert.BertRecipe`), not here.

    Attributes:
        vocab_size: the vocabulary size to reach, special tokens and alphabet included.
        scoring: ``"frequency"`` (``tokenizers``' ``WordPieceTrainer``) or ``"likelihood"`` (the course's).
        min_frequency: stop when the best pair occurs fewer times than this.
        limit_alphabet: frequency scoring: keep at most this many characters, the most frequent.
        special_tokens: the first ids, in order.
        continuing_subword_prefix: the prefix of pieces that continue a word.
        unk_token: the unknown token (recorded; it should be one of ``special_tokens``).

    Raises:
        ValueError: naming the option and the value.

    >>> WordPieceOptions().min_frequency, WordPieceOptions().special_tokens[:2]
    (2, ('[PAD]', '[UNK]'))
    >>> WordPieceOptions(scoring="best")
    Traceback (most recent call last):
    ValueError: scoring='best': must be one of frequency, likelihood
    """

    vocab_size: int = 30000
    scoring: str = "frequency"
    min_frequency: int = 2
    limit_alphabet: int | None = 1000
    special_tokens: Sequence[str] = BERT_SPECIAL_TOKENS
    continuing_subword_prefix: str = CONTINUING_SUBWORD_PREFIX
    unk_token: str = "[UNK]"

    def __post_init__(self) -> None:
        object.__setattr__(self, "special_tokens", check_special_tokens(self.special_tokens))
        check_vocab_size(self.vocab_size)
        check_count("min_frequency", self.min_frequency, 0)
        check_count("limit_alphabet", self.limit_alphabet, 0, optional=True)
        if self.scoring not in SCORINGS:
            raise ValueError(f"scoring={self.scoring!r}: must be one of {', '.join(SCORINGS)}")
        if not self.continuing_subword_prefix:
            raise ValueError("continuing_subword_prefix='' : WordPiece needs a prefix (BERT's is '##')")

    def bpe_options(self) -> BpeOptions:
        """The ``BpeTrainer`` options frequency scoring runs (``WordPieceTrainer`` holds a ``BpeTrainer`` and
        trains with it): these sizes and tokens, char-level words with the continuing-subword prefix and no suffix.

        >>> WordPieceOptions(vocab_size=100).bpe_options().char_level
        CharLevel(end_of_word_suffix=None, continuing_subword_prefix='##', lowercase=False)
        """
        return BpeOptions(
            vocab_size=self.vocab_size,
            min_frequency=self.min_frequency,
            special_tokens=self.special_tokens,
            limit_alphabet=self.limit_alphabet,
            char_level=CharLevel(end_of_word_suffix=None, continuing_subword_prefix=self.continuing_subword_prefix),
        )

    @classmethod
    def of(cls, options: WordPieceOptions | None, keywords: Mapping[str, Any], caller: str) -> WordPieceOptions:
        """``options`` (default: the defaults) with the fields given as ``keywords`` replaced
        (:func:`hf_bpe.models.options.with_keywords`)."""
        # Keywords laid over the shared defaults: one object built, not the defaults and then a copy of them.
        return with_keywords(cls, options or DEFAULTS, keywords, caller)


#: ``BertWordPieceTokenizer.train``'s defaults, built once: what :meth:`WordPieceOptions.of` lays keywords over.
DEFAULTS = WordPieceOptions()
#: ``tokenizers``' ``WordPieceTrainer``'s own defaults (no ``min_frequency``, no ``limit_alphabet``; BERT's ``train``
#: sets 2 and 1000): what :func:`~hf_bpe.models.wordpiece.trainer.train_wordpiece` lays keywords over.
TRAINER_DEFAULTS = WordPieceOptions(min_frequency=0, limit_alphabet=None)
