"""What Unigram training is asked for: the options with ``UnigramTrainer``'s defaults, checked in one place."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from hf_bpe.models.options import check_count, check_special_tokens, with_keywords


@dataclasses.dataclass(frozen=True)
class UnigramOptions:
    """``UnigramTrainer``'s options, with its defaults.

    Args:
        vocab_size: the size of the final vocabulary, special tokens included.
        special_tokens: tokens put first, in this order, with score 0.
        unk_token: the unknown token; put first unless it is one of ``special_tokens``.
        shrinking_factor: the share of pieces a pruning round keeps.
        max_piece_length: the longest seed piece, in characters.
        n_sub_iterations: EM iterations between pruning rounds.
        seed_size: the most seed pieces (characters included).
        initial_alphabet: characters kept even if the corpus lacks them.
    """

    vocab_size: int = 8000
    special_tokens: tuple[str, ...] = ()
    unk_token: str | None = None
    shrinking_factor: float = 0.75
    max_piece_length: int = 16
    n_sub_iterations: int = 2
    seed_size: int = 1_000_000
    initial_alphabet: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "special_tokens", check_special_tokens(self.special_tokens))
        for name in ("vocab_size", "max_piece_length", "n_sub_iterations", "seed_size"):
            check_count(name, getattr(self, name), 1)
        if not isinstance(self.shrinking_factor, (int, float)) or not 0.0 < self.shrinking_factor < 1.0:
            raise ValueError(f"shrinking_factor={self.shrinking_factor!r}: must be between 0 and 1 (exclusive)")

    @classmethod
    def of(cls, options: UnigramOptions | None, keywords: Mapping[str, Any], caller: str) -> UnigramOptions:
        """``options`` (default: the defaults) with the fields given as ``keywords`` replaced
        (:func:`hf_bpe.models.options.with_keywords`)."""
        return with_keywords(cls, options, keywords, caller)
