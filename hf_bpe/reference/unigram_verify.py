"""``hf-bpe verify train --model unigram``: train with hf_bpe and with ``tokenizers``, name the first step that differs.

The reference shows only its result, so the steps are observed as it can show them: (1) the seed pieces and the
first EM round -- the reference trained with a vocabulary larger than its seed set stops before any pruning and
returns every piece after that round; (2) the full training, the final piece set. Where (2) differs, the report
names the pruning round of hf_bpe's own run that removed each piece the reference kept (or kept each piece it
removed), read off hf_bpe's trace of every step. Scores are compared within ``tolerance`` (the reference's own
run-to-run spread is about 1e-3 at most); characters the model lost get ``min_score + k * 1e-4`` in hash order,
so their scores are not compared one by one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from hf_bpe.models.unigram.trainer import Pieces, UnigramOptions, train_unigram
from hf_bpe.models.unigram.training import count_files
from hf_bpe.progress import ProgressOption, callback, with_progress


def reference_train(
    paths: Sequence[str | os.PathLike[str]], options: UnigramOptions, *, show_progress: bool = False
) -> tuple[Pieces, int | None]:
    """Train ``tokenizers``' UnigramTrainer behind SentencePieceUnigramTokenizer's recipe (``show_progress``: its
    own bars)."""
    from hf_bpe.reference.trainers import unigram_reference

    tokenizer, trainer = unigram_reference(options, show_progress=show_progress)
    tokenizer.train([str(path) for path in paths], trainer)
    model = json.loads(tokenizer.to_str())["model"]
    return [(piece, float(score)) for piece, score in model["vocab"]], model["unk_id"]


def _compare(ours: Pieces, theirs: Pieces, tolerance: float) -> dict[str, Any]:
    mine, reference = dict(ours), dict(theirs)
    floor = min(reference.values())
    only_ours = sorted(set(mine) - set(reference))
    only_reference = sorted(set(reference) - set(mine))
    worst = 0.0
    worst_piece = None
    for piece in set(mine) & set(reference):
        if len(piece) == 1 and reference[piece] < floor + 1e-4 * len(reference):
            continue  # a lost character: min_score + k * 1e-4 in hash order
        difference = abs(mine[piece] - reference[piece])
        if difference > worst:
            worst, worst_piece = difference, piece
    return {
        "same_pieces": not only_ours and not only_reference,
        "only_hf_bpe": only_ours[:20],
        "only_tokenizers": only_reference[:20],
        "max_score_difference": worst,
        "max_score_difference_piece": worst_piece,
        "scores_within_tolerance": worst <= tolerance,
    }


@with_progress
def verify_unigram_training(
    paths: Sequence[str | os.PathLike[str]],
    options: UnigramOptions,
    *,
    errors: str = "strict",
    tolerance: float = 1e-3,
    progress: ProgressOption = True,
) -> dict[str, Any]:
    """Compare hf_bpe's training with the reference's; ``report["first_difference"]`` names the step, or None.
    ``progress``: bars on stderr while each side trains (the reference's own), off with False."""
    counts = count_files(paths, errors, progress=progress)
    steps: list[tuple[str, Pieces]] = []
    trace: Any = lambda name, pieces: steps.append((name, list(pieces)))  # noqa: E731
    result = train_unigram(counts, options, trace=trace, progress=callback(progress))
    seeds = len(steps[0][1])
    early = UnigramOptions(**{**options.__dict__, "vocab_size": max(options.vocab_size, seeds + 1000)})
    first_round = train_unigram(counts, early)
    reference_first, _ = reference_train(paths, early, show_progress=bool(progress))
    report: dict[str, Any] = {"steps": [name for name, _ in steps], "first_difference": None}
    report["seed_and_first_em_round"] = _compare(first_round.pieces, reference_first, tolerance)
    reference_final, reference_unk = reference_train(paths, options, show_progress=bool(progress))
    report["final"] = _compare(result.pieces, reference_final, tolerance)
    report["final"]["same_unk_id"] = result.unk_id == reference_unk
    if not (
        report["seed_and_first_em_round"]["same_pieces"]
        and report["seed_and_first_em_round"]["scores_within_tolerance"]
    ):
        report["first_difference"] = "seed pieces or the first EM round"
    elif not (report["final"]["same_pieces"] and report["final"]["scores_within_tolerance"]):
        # Which of hf_bpe's steps decided each differing piece.
        decided = {}
        for piece in report["final"]["only_hf_bpe"] + report["final"]["only_tokenizers"]:
            present = [piece in dict(pieces) for _, pieces in steps]
            last = max((i for i, here in enumerate(present) if here), default=-1)
            decided[piece] = steps[last + 1][0] if 0 <= last < len(steps) - 1 else "final selection (finalize)"
        report["decided_at"] = decided
        rounds = sorted(
            {step for step in decided.values()},
            key=lambda s: [n for n, _ in steps].index(s) if s in [n for n, _ in steps] else len(steps),
        )
        report["first_difference"] = rounds[0] if rounds else "scores"
    return report
