"""What a WordPiece training run gives: the vocabulary, BERT's recipe, and what happened.

The trainer (:mod:`.trainer`) makes a :class:`WordPieceResult` and writes nothing; its
:meth:`~WordPieceResult.save` hands it to :mod:`.files`, which owns the formats.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from hf_bpe.models.wordpiece.files import write_wordpiece_dir
from hf_bpe.models.wordpiece.options import BERT_SPECIAL_TOKENS, CONTINUING_SUBWORD_PREFIX
from hf_bpe.pipeline.bert import BertRecipe

#: Longer words are encoded as the unknown token.
MAX_INPUT_CHARS_PER_WORD = 100


@dataclasses.dataclass(frozen=True)
class WordPieceResult:
    """A trained WordPiece vocabulary.

    Attributes:
        vocab: token to id (ids 0 to ``len(vocab) - 1``, special tokens first).
        stop_reason: ``"vocab_size"``, ``"min_frequency"`` or ``"no_pairs"``.
        special_tokens: the special tokens, first in the vocabulary.
        scoring: ``"frequency"`` or ``"likelihood"``.
        recipe: how the text was normalized (recorded in the tokenizer files).
        unk_token: the unknown token.
        continuing_subword_prefix: the prefix of pieces that continue a word.
        max_input_chars_per_word: longer words encode as ``unk_token``.
        replaced_lines: input lines whose invalid UTF-8 was replaced by U+FFFD.
    """

    vocab: dict[str, int]
    stop_reason: str
    special_tokens: tuple[str, ...] = BERT_SPECIAL_TOKENS
    scoring: str = "frequency"
    recipe: BertRecipe = dataclasses.field(default_factory=BertRecipe)
    unk_token: str = "[UNK]"
    continuing_subword_prefix: str = CONTINUING_SUBWORD_PREFIX
    max_input_chars_per_word: int = MAX_INPUT_CHARS_PER_WORD
    replaced_lines: int = 0

    def save(self, directory: str | os.PathLike[str], *, force: bool = False) -> list[Path]:
        """Write ``vocab.txt``, ``tokenizer_config.json`` and ``tokenizer.json``, all or none.

        Another tokenizer's files there are refused, or removed in the same write with ``force``.

        Returns:
            The paths written.
        """
        return write_wordpiece_dir(directory, self, force=force)
