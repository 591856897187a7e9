"""Parity checks users run on their own data: hf_bpe against tiktoken, transformers' Rust tokenizer, tokenizers.

* :func:`verify_encoding` encodes every unit (line or whole file) with hf_bpe's :class:`~hf_bpe.BPETokenizer` and
  with a reference, and reports where they differ (file:line, first differing position, the tokens around it)
  and whether hf_bpe's ``decode`` gives the text back.
* :func:`compare_training` compares a vocabulary trained by hf_bpe with one trained by ``tokenizers``
  (:func:`reference_training`); at the first differing merge it recounts, from the corpus's pre-token counts, the
  two pairs that decided it, so a tie-break, a counting and a pre-tokenizing difference can be told apart.

Reports are plain dataclasses; :func:`asdict` gives the stable JSON shape ``hf-bpe verify --json`` prints.
Loading, training and encoding are the other modules' jobs; this one only compares.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from hf_bpe.models.bpe.encoder import merge_by_rank
from hf_bpe.models.bpe.files import read_merges, read_vocab
from hf_bpe.models.bpe.options import BpeOptions, Merges, Vocab
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
from hf_bpe.utf8 import decode_utf8

#: How many tokens of context the examples show on each side of the first difference.
CONTEXT = 4


@dataclasses.dataclass(frozen=True)
class EncodingDifference:
    """One unit whose ids differ, or whose decoding does not give the text back."""

    location: str
    position: int
    ours: list[int]
    reference: list[int]
    ours_tokens: list[str]
    reference_tokens: list[str]
    round_trip: bool


@dataclasses.dataclass(frozen=True)
class EncodingReport:
    """What :func:`verify_encoding` found (``examples`` holds the first few differences)."""

    reference: str
    units: int
    differing: int
    round_trip_failures: int
    examples: list[EncodingDifference]

    @property
    def ok(self) -> bool:
        return self.differing == 0 and self.round_trip_failures == 0


@dataclasses.dataclass(frozen=True)
class TrainingReport:
    """What :func:`verify_training` found; the ``first_*`` fields are set where the merges differ."""

    vocab_size: tuple[int, int]
    merges: tuple[int, int]
    same_vocab: bool
    same_merges: bool
    first_difference: int | None = None
    ours_merge: tuple[str, str] | None = None
    reference_merge: tuple[str, str] | None = None
    ours_pair_count: int | None = None
    reference_pair_count: int | None = None
    diagnosis: str = ""

    @property
    def ok(self) -> bool:
        return self.same_vocab and self.same_merges


def asdict(report: EncodingReport | TrainingReport) -> dict[str, Any]:
    """The report as JSON-ready data, with ``"ok"`` added."""
    data = dataclasses.asdict(report)
    data["ok"] = report.ok
    return data


def units(paths: Sequence[str | os.PathLike[str]], unit: str = "line") -> Iterator[tuple[str, str]]:
    """``(location, text)`` of every line (with its ending) or every whole file (``unit="document"``).

    Raises:
        ValueError: naming the file and line of invalid UTF-8.
    """
    if unit not in ("line", "document"):
        raise ValueError(f"unit {unit!r}: choose 'line' or 'document'")
    for path in paths:
        text = decode_utf8(Path(path).read_bytes(), path)
        if unit == "document":
            yield str(path), text
        else:
            for number, line_text in enumerate(text.splitlines(keepends=True), start=1):
                yield f"{path}:{number}", line_text


def verify_encoding(
    tokenizer: Any,
    reference: Callable[[str], list[int]],
    texts: Iterator[tuple[str, str]],
    *,
    reference_name: str,
    examples: int = 5,
    progress: Callable[[int], None] | None = None,
) -> EncodingReport:
    """Compare ``tokenizer``'s ids with ``reference``'s on every ``(location, text)``.

    Args:
        tokenizer: hf_bpe's :class:`~hf_bpe.BPETokenizer`.
        reference: text to ids.
        texts: ``(location, text)`` pairs, e.g. from :func:`units`.
        reference_name: how the report names the reference.
        examples: how many differences to keep in full.
        progress: called with 1 after each unit.
    """
    count = differing = broken = 0
    kept: list[EncodingDifference] = []
    for location, text in texts:
        count += 1
        ours = tokenizer.encode_text(text)
        theirs = reference(text)
        round_trip = tokenizer.decode(ours) == text
        if ours != theirs or not round_trip:
            differing += ours != theirs
            broken += not round_trip
            if len(kept) < examples:
                position = next(
                    (i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b),
                    min(len(ours), len(theirs)),
                )
                start, end = max(position - CONTEXT, 0), position + CONTEXT + 1
                kept.append(
                    EncodingDifference(
                        location=location,
                        position=position,
                        ours=ours[start:end],
                        reference=theirs[start:end],
                        ours_tokens=[tokenizer.decode([i]) for i in ours[start:end]],
                        reference_tokens=[tokenizer.decode([i]) for i in theirs[start:end]],
                        round_trip=round_trip,
                    )
                )
        if progress is not None:
            progress(1)
    return EncodingReport(reference_name, count, differing, broken, kept)


def _pair_counts_after(counts: Counter[str], merges: Merges, pairs: Sequence[tuple[str, str]]) -> list[int]:
    """How often each pair in ``pairs`` occurs once ``merges`` have been applied to every counted word."""
    ranks = {pair: rank for rank, pair in enumerate(merges)}
    found = [0] * len(pairs)
    for word, count in counts.items():
        parts = merge_by_rank(list(word), ranks)
        adjacent = Counter(itertools.pairwise(parts))
        for index, pair in enumerate(pairs):
            found[index] += adjacent[pair] * count
    return found


def compare_training(
    ours: tuple[Vocab, Merges], reference: tuple[Vocab, Merges], counts: Counter[str] | None = None
) -> TrainingReport:
    """Compare two trained vocabularies; with ``counts`` (byte-level pre-token counts), explain the first difference.

    >>> compare_training(({"a": 0}, [("a", "a")]), ({"a": 0}, [("a", "a")])).ok
    True
    """
    (our_vocab, our_merges), (ref_vocab, ref_merges) = ours, reference
    report = TrainingReport(
        vocab_size=(len(our_vocab), len(ref_vocab)),
        merges=(len(our_merges), len(ref_merges)),
        same_vocab=our_vocab == ref_vocab,
        same_merges=our_merges == ref_merges,
    )
    if report.same_merges:
        return report
    first = next(
        (i for i, (a, b) in enumerate(zip(our_merges, ref_merges, strict=False)) if a != b),
        min(len(our_merges), len(ref_merges)),
    )
    mine = our_merges[first] if first < len(our_merges) else None
    theirs = ref_merges[first] if first < len(ref_merges) else None
    our_count = ref_count = None
    diagnosis = "one side stopped earlier" if mine is None or theirs is None else ""
    if counts is not None and mine is not None and theirs is not None:
        our_count, ref_count = _pair_counts_after(counts, our_merges[:first], [mine, theirs])
        if our_count == ref_count:
            diagnosis = "tie-break: both pairs have the same count"
        elif our_count > ref_count:
            diagnosis = "the reference chose a rarer pair: its counts or pre-tokens differ from these"
        else:
            diagnosis = "hf_bpe chose a rarer pair: a counting difference in hf_bpe"
    return dataclasses.replace(
        report,
        first_difference=first,
        ours_merge=mine,
        reference_merge=theirs,
        ours_pair_count=our_count,
        reference_pair_count=ref_count,
        diagnosis=diagnosis,
    )


def reference_training(
    paths: Sequence[str | os.PathLike[str]],
    *,
    vocab_size: int = BpeOptions.vocab_size,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = (),
    add_prefix_space: bool = False,
    max_token_length: int | None = None,
    limit_alphabet: int | None = None,
    pre_tokenizer: PreTokenizer | None = None,
    show_progress: bool = False,
) -> tuple[Vocab, Merges]:
    """Train ``tokenizers``' BpeTrainer on ``paths`` with the normalizer and pre-tokenizer that ``tokenizer.json``
    holds for ``pre_tokenizer`` (default: GPT-2's ByteLevel with ``add_prefix_space``), as hf_bpe's training
    mirrors it (``show_progress``: the reference's own bars)."""
    from hf_bpe.reference.trainers import bpe_tokenizer, bpe_trainer, reference_cut

    pre_tokenizer = pre_tokenizer or PreTokenizer(add_prefix_space=add_prefix_space)
    normalizer, cut = reference_cut(pre_tokenizer)
    tokenizer = bpe_tokenizer(pre_tokenizer=cut, normalizer=normalizer)
    trainer = bpe_trainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=special_tokens,
        max_token_length=max_token_length,
        limit_alphabet=limit_alphabet,
        show_progress=show_progress,
    )
    tokenizer.train([str(path) for path in paths], trainer)
    with tempfile.TemporaryDirectory(prefix="hf-bpe-verify-") as directory:
        tokenizer.model.save(directory)
        vocab = read_vocab(Path(directory) / "vocab.json")
        return vocab, read_merges(Path(directory) / "merges.txt", vocab)


def format_encoding_report(report: EncodingReport) -> str:
    """The human-readable report ``hf-bpe verify encode`` prints."""
    lines = [
        f"checked {report.units} units against {report.reference}: {report.differing} differ, "
        f"{report.round_trip_failures} do not decode back"
    ]
    for example in report.examples:
        lines.append(f"{example.location}: first difference at token {example.position}")
        lines.append(f"  hf_bpe:    {example.ours} {json.dumps(example.ours_tokens, ensure_ascii=False)}")
        lines.append(f"  reference: {example.reference} {json.dumps(example.reference_tokens, ensure_ascii=False)}")
        if not example.round_trip:
            lines.append("  hf_bpe's decode does not give the text back")
    lines.append("OK: identical" if report.ok else "DIFFERENT")
    return "\n".join(lines)


def format_training_report(report: TrainingReport) -> str:
    """The human-readable report ``hf-bpe verify train`` prints."""
    lines = [
        f"vocabulary: {report.vocab_size[0]} tokens (hf_bpe), {report.vocab_size[1]} (tokenizers), "
        f"{'same ids' if report.same_vocab else 'DIFFERENT ids'}",
        f"merges: {report.merges[0]} (hf_bpe), {report.merges[1]} (tokenizers), "
        f"{'same order' if report.same_merges else 'DIFFERENT'}",
    ]
    if report.first_difference is not None:
        lines.append(f"first differing merge: #{report.first_difference + 1}")
        lines.append(f"  hf_bpe:     {report.ours_merge} seen {report.ours_pair_count} times at that point")
        lines.append(f"  tokenizers: {report.reference_merge} seen {report.reference_pair_count} times at that point")
        if report.diagnosis:
            lines.append(f"  {report.diagnosis}")
    lines.append("OK: identical" if report.ok else "DIFFERENT")
    return "\n".join(lines)
