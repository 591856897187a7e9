"""Word counts in, a WordPiece vocabulary out: the two things called WordPiece training.

This module owns the training rules (no files, no text cutting):

* ``scoring="frequency"``: ``tokenizers``' ``WordPieceTrainer`` (``tokenizers/src/models/wordpiece/trainer.rs``)
  runs its ``BpeTrainer`` with the ``##`` continuing-subword prefix and keeps the BPE vocabulary, ids and all
  (``WordPiece::from_bpe``); the merges are dropped. Here :func:`hf_bpe.models.bpe.trainer.train_bpe` does the BPE part,
  so the token set is the reference's. The reference numbers the ``##`` symbols (``##a``) in the hash order of its
  words, which changes from run to run; here they are numbered in order of first appearance in ``counts`` (one of
  the orders the reference can take; see :mod:`hf_bpe.models.bpe.trainer`).
* ``scoring="likelihood"``: the algorithm the HuggingFace course teaches (Google never published its own). Words
  start as characters, all but the first with the prefix; each round merges the adjacent pair with the highest
  ``count(ab) / (count(a) * count(b))`` (counts weighted by word frequency, a token's count taken over every
  place it stands, a one-token word included), compared exactly (as fractions, not floats). Ties go to the pair
  seen first, as the course's code has it: words in the order of ``counts`` (the order they first occur in the
  text), pairs left to right within a word. The vocabulary is the special tokens, the alphabet sorted, then one
  token per round (a merge that makes a token already there adds nothing).

Counting words is :mod:`hf_bpe.counting.counting`'s job (with BERT's recipe); writing ``vocab.txt`` is
:mod:`hf_bpe.models.wordpiece.files`'.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from hf_bpe.models.bpe.trainer import STOP_MIN_FREQUENCY, STOP_NO_PAIRS, STOP_VOCAB_SIZE, ProgressCallback, train_bpe
from hf_bpe.models.shortfall import TrainingWarning, caller_stacklevel, shortfall
from hf_bpe.models.wordpiece.options import TRAINER_DEFAULTS, WordPieceOptions
from hf_bpe.models.wordpiece.result import WordPieceResult
from hf_bpe.pipeline.bert import BertRecipe


def train_wordpiece(
    counts: Mapping[str, int],
    *,
    options: WordPieceOptions | None = None,
    recipe: BertRecipe | None = None,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    alphabet_tie_preference: Collection[str] = (),
    **keywords: Any,
) -> WordPieceResult:
    """Learn a WordPiece vocabulary from word counts.

    Args:
        counts: word (as BERT's recipe cut it) to count.
        options: what to train (:class:`~hf_bpe.models.wordpiece.options.WordPieceOptions`: ``vocab_size``,
            ``scoring``, ``min_frequency``, ``limit_alphabet`` (frequency scoring), ``special_tokens``,
            ``continuing_subword_prefix``, ``unk_token``), taken as handed over.
        recipe: how the counts were made (recorded in the result).
        workers: frequency scoring: processes for the initial pair count.
        progress: called as ``progress(merges_done, merges_wanted)``.
        alphabet_tie_preference: frequency scoring: characters kept first among those tied at the
            ``limit_alphabet`` cut (see :func:`hf_bpe.models.bpe.trainer.train_bpe`).
        keywords: ``options``' fields, laid over them; without ``options``, over ``WordPieceTrainer``'s defaults
            (:data:`~hf_bpe.models.wordpiece.options.TRAINER_DEFAULTS`: no ``min_frequency`` or ``limit_alphabet``).

    Returns:
        The vocabulary and why training stopped.

    Raises:
        ValueError: on a bad option (as :class:`~hf_bpe.models.wordpiece.options.WordPieceOptions`).
        TypeError: naming a keyword that is no option.

    >>> counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    >>> result = train_wordpiece(counts, vocab_size=10, scoring="likelihood", special_tokens=())
    >>> list(result.vocab)
    ['##g', '##n', '##s', '##u', 'b', 'h', 'p', '##gs', 'hu', 'hugs']
    """
    options = WordPieceOptions.of(options or TRAINER_DEFAULTS, keywords, "train_wordpiece")
    prefix = options.continuing_subword_prefix
    common = {
        "special_tokens": tuple(options.special_tokens),
        "scoring": options.scoring,
        "recipe": recipe or BertRecipe(),
        "unk_token": options.unk_token,
        "continuing_subword_prefix": prefix,
    }
    if options.scoring == "frequency":
        bpe = train_bpe(
            counts,
            options=options.bpe_options(),  # WordPieceTrainer's own BpeTrainer
            initial_alphabet=(),
            workers=workers,
            progress=progress,
            alphabet_tie_preference=alphabet_tie_preference,
        )
        result = WordPieceResult(dict(bpe.vocab), bpe.stop_reason, **common)  # type: ignore[arg-type]
        return _warn_if_short(result, options.vocab_size, options.min_frequency)
    vocab, stop = _train_likelihood(counts, options.vocab_size, options.min_frequency, options.special_tokens, prefix)
    result = WordPieceResult(vocab, stop, **common)  # type: ignore[arg-type]
    return _warn_if_short(result, options.vocab_size, options.min_frequency)


def _warn_if_short(result: WordPieceResult, vocab_size: int, min_frequency: int) -> WordPieceResult:
    """``result``, after a :class:`~hf_bpe.models.shortfall.TrainingWarning` if it is not ``vocab_size`` tokens."""
    message = shortfall(len(result.vocab), vocab_size, result.stop_reason, min_frequency=min_frequency)
    if message is not None:
        warnings.warn(message, TrainingWarning, stacklevel=caller_stacklevel())
    return result


def _train_likelihood(
    counts: Mapping[str, int], vocab_size: int, min_frequency: int, special_tokens: Sequence[str], prefix: str
) -> tuple[dict[str, int], str]:
    """The course's loop, kept incremental: pair and token counts are updated only in the words a merge touches,
    then every pair is scored (a scan per round, so training time grows with vocabulary size times distinct
    pairs: meant for small and medium corpora)."""
    words: list[list[str]] = []
    frequencies: list[int] = []
    alphabet: set[str] = set()
    for word, count in counts.items():
        if count < 0:
            raise ValueError(f"word {word!r} has count {count}; counts must be non-negative")
        if not word:
            continue
        split = [word[0], *(prefix + char for char in word[1:])]
        alphabet.update(split)
        words.append(split)
        frequencies.append(count)
    vocab: dict[str, int] = {}
    for token in [*special_tokens, *sorted(alphabet)]:
        vocab.setdefault(token, len(vocab))

    while len(vocab) < vocab_size:
        # compute_pair_scores: token counts over every place a token stands, pair counts over adjacent places;
        # a dict keeps pairs in the order first seen.
        token_counts: dict[str, int] = {}
        pair_counts: dict[tuple[str, str], int] = {}
        for split, count in zip(words, frequencies, strict=True):
            for token in split:
                token_counts[token] = token_counts.get(token, 0) + count
            for pair in itertools.pairwise(split):
                pair_counts[pair] = pair_counts.get(pair, 0) + count
        best: tuple[str, str] | None = None
        best_count = best_denominator = 0
        for pair, count in pair_counts.items():
            denominator = token_counts[pair[0]] * token_counts[pair[1]]
            # count / denominator > best_count / best_denominator, exactly; the first seen wins a tie.
            if best is None or count * best_denominator > best_count * denominator:
                best, best_count, best_denominator = pair, count, denominator
        if best is None:
            return vocab, STOP_NO_PAIRS
        if best_count < min_frequency:
            return vocab, STOP_MIN_FREQUENCY
        left, right = best
        merged = left + (right[len(prefix) :] if right.startswith(prefix) else right)
        for index, split in enumerate(words):
            if len(split) < 2 or left not in split:
                continue
            out: list[str] = []
            i = 0
            while i < len(split):
                if i + 1 < len(split) and split[i] == left and split[i + 1] == right:
                    out.append(merged)
                    i += 2
                else:
                    out.append(split[i])
                    i += 1
            words[index] = out
        vocab.setdefault(merged, len(vocab))
    return vocab, STOP_VOCAB_SIZE
