"""What a BPE training run gives: the model (vocabulary and merges), how the text was cut, and what happened.

The trainers (:mod:`.trainer`, :mod:`.continuing`) make a :class:`TrainResult` and write nothing; its
:meth:`~TrainResult.save` hands it to :mod:`.files`, which owns the formats.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Mapping
from pathlib import Path

from hf_bpe.models.bpe.files import write_tokenizer_dir
from hf_bpe.models.bpe.options import CharLevel, Merges, Vocab
from hf_bpe.models.directory import special_token_roles
from hf_bpe.models.shortfall import TrainingWarning, caller_stacklevel, unknown_characters_dropped
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer


@dataclasses.dataclass(frozen=True)
class TrainResult:
    """A trained vocabulary and its merges.

    Attributes:
        vocab: token (byte-level spelling) to id.
        merges: the merges in the order they apply, as ``merges.txt`` lists them.
        stop_reason: ``"vocab_size"`` (the vocabulary is full), ``"min_frequency"`` (the best pair was rarer than
            ``min_frequency``) or ``"no_pairs"`` (no pair was left to merge).
        merges_learned: how many merges were made (a merge made twice counts twice; ``len(merges)`` does not).
        special_tokens: the special tokens, first in the vocabulary.
        pre_tokenizer: how the text was cut (recorded in the tokenizer files).
        replaced_lines: input lines whose invalid UTF-8 was replaced by U+FFFD (``errors="replace"``).
        char_level: how a char-level vocabulary was made (None for byte-level).
        roles: which special token is ``bos_token``, ``eos_token``, ... (a continued base's), written by
            :meth:`save` unless it is given others.
    """

    vocab: Vocab
    merges: Merges
    stop_reason: str
    merges_learned: int
    special_tokens: tuple[str, ...] = ()
    pre_tokenizer: PreTokenizer = dataclasses.field(default_factory=PreTokenizer)
    replaced_lines: int = 0
    char_level: CharLevel | None = None
    roles: Mapping[str, str | None] | None = None

    @property
    def add_prefix_space(self) -> bool:
        """Whether a space was added before text that does not start with one."""
        return self.pre_tokenizer.add_prefix_space

    def save(
        self, directory: str | os.PathLike[str], *, roles: Mapping[str, str | None] | None = None, force: bool = False
    ) -> list[Path]:
        """Write ``vocab.json``, ``merges.txt``, ``tokenizer_config.json`` and ``tokenizer.json``, all or none.

        Args:
            directory: the output directory (made if missing).
            roles: which special token is ``bos_token``, ``eos_token``, ``unk_token``, ``pad_token``.
            force: remove files of another tokenizer that transformers would load along with this one
                (``special_tokens_map.json``, ``added_tokens.json``, chat templates) instead of refusing.

        Raises:
            FileExistsError: naming such files, without ``force``.

        Warns:
            TrainingWarning: a char-level tokenizer without an ``unk_token`` role drops the characters it has not
                seen when it encodes (as ``tokenizers`` does); saved as asked, with this warning.

        Returns:
            The paths written.
        """
        roles = roles if roles is not None else self.roles
        if self.char_level is not None and special_token_roles(self.special_tokens, roles)["unk_token"] is None:
            warnings.warn(unknown_characters_dropped(), TrainingWarning, stacklevel=caller_stacklevel())
        return write_tokenizer_dir(
            directory,
            self.vocab,
            self.merges,
            special_tokens=self.special_tokens,
            roles=roles,
            pre_tokenizer=self.pre_tokenizer,
            char_level=self.char_level,
            force=force,
        )
