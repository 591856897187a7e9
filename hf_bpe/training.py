"""The public training API: text sources in, a :class:`~hf_bpe.trainer.TrainResult` out.

This module only joins the two steps: :mod:`hf_bpe.counting` turns files, iterables or ``datasets`` columns into
pre-token counts, :func:`hf_bpe.trainer.train_bpe` turns counts into merges. Defaults are ``BpeTrainer``'s
(``vocab_size=30000``, ``min_frequency=0``) with the ByteLevel pre-tokenizer (``add_prefix_space=False``) and
the full byte alphabet as initial alphabet, so ``train_from_files(paths)`` gives what ``tokenizers`` gives for
``Tokenizer(BPE())`` trained on ``paths`` with those settings.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from hf_bpe.counting import count_dataset, count_files, count_sequences
from hf_bpe.trainer import TrainResult, train_bpe

Progress = Callable[[str, int, int], None]
"""Called as ``progress(stage, done, total)``: stage ``"count"`` (bytes for files, sequences for iterators, where
``total`` is 0 when unknown), then stage ``"merge"`` (merges made, merges wanted)."""


def train_from_counts(
    counts: Mapping[str, int],
    *,
    vocab_size: int = 30000,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = (),
    add_prefix_space: bool = False,
    max_token_length: int | None = None,
    limit_alphabet: int | None = None,
    progress: Progress | None = None,
) -> TrainResult:
    """Train on pre-token counts (byte-level spelling), e.g. from :mod:`hf_bpe.count_files`.

    ``add_prefix_space`` only records how the counts were made, for the tokenizer files.

    >>> train_from_counts({"Ġhug": 3, "Ġpug": 2}, vocab_size=258).merges
    [('u', 'g'), ('h', 'ug')]
    """
    merge_progress = None if progress is None else (lambda done, total: progress("merge", done, total))
    result = train_bpe(
        counts,
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=special_tokens,
        limit_alphabet=limit_alphabet,
        max_token_length=max_token_length,
        progress=merge_progress,
    )
    return dataclasses.replace(result, add_prefix_space=bool(add_prefix_space))


def train_from_files(
    paths: Iterable[str | os.PathLike[str]],
    *,
    vocab_size: int = 30000,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = (),
    add_prefix_space: bool = False,
    max_token_length: int | None = None,
    limit_alphabet: int | None = None,
    workers: int | None = None,
    exclude_special_tokens: bool = False,
    errors: str = "strict",
    progress: Progress | None = None,
) -> TrainResult:
    """Train on text files, read line by line as ``Tokenizer.train(files, trainer)`` reads them.

    Args:
        paths: UTF-8 text files.
        vocab_size: the vocabulary size, special tokens and the 256 byte characters included.
        min_frequency: stop when the best pair occurs fewer times than this.
        special_tokens: tokens given ids 0, 1, ... in order.
        add_prefix_space: add a space before every line that does not start with one.
        max_token_length: see :func:`hf_bpe.trainer.train_bpe`.
        limit_alphabet: see :func:`hf_bpe.trainer.train_bpe`.
        workers: counting processes (default: the CPU count).
        exclude_special_tokens: cut special tokens out of the text before counting (the reference counts them as
            ordinary text, tokenizers#1616).
        errors: ``"strict"`` or ``"replace"`` for invalid UTF-8, see :func:`hf_bpe.counting.count_files`.
        progress: see :data:`Progress`.

    Raises:
        FileNotFoundError: naming a missing file.
        ValueError: naming the file, line and byte offset of invalid UTF-8, or a bad option.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = path.write_text("hug pug hug\\n", encoding="utf-8")
    >>> train_from_files([path], vocab_size=258, workers=1).merges
    [('u', 'g'), ('h', 'ug')]
    """
    paths = list(paths)
    total = sum(os.path.getsize(p) for p in paths if os.path.isfile(p))
    done = 0

    def count_progress(step: int) -> None:
        nonlocal done
        done += step
        if progress is not None:
            progress("count", done, total)

    counted = count_files(
        paths,
        add_prefix_space=add_prefix_space,
        special_tokens=special_tokens,
        exclude_special_tokens=exclude_special_tokens,
        workers=workers,
        errors=errors,
        progress=count_progress,
    )
    return train_from_counts(
        counted.counts,
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=special_tokens,
        add_prefix_space=add_prefix_space,
        max_token_length=max_token_length,
        limit_alphabet=limit_alphabet,
        progress=progress,
    )


def train_from_iterator(
    sequences: Iterable[str | Sequence[str]],
    *,
    vocab_size: int = 30000,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = (),
    add_prefix_space: bool = False,
    max_token_length: int | None = None,
    limit_alphabet: int | None = None,
    exclude_special_tokens: bool = False,
    progress: Progress | None = None,
) -> TrainResult:
    """Train on an iterable of strings or of batches (lists) of strings, as ``train_from_iterator`` does.

    Each string is one sequence, pre-tokenized whole: it is not cut into lines. Options as in
    :func:`train_from_files`.

    >>> train_from_iterator(["hug pug", ["hug"]], vocab_size=258).merges
    [('u', 'g'), ('h', 'ug')]
    """
    done = 0

    def count_progress(step: int) -> None:
        nonlocal done
        done += step
        if progress is not None:
            progress("count", done, 0)

    counts = count_sequences(
        sequences,
        add_prefix_space=add_prefix_space,
        special_tokens=special_tokens,
        exclude_special_tokens=exclude_special_tokens,
        progress=count_progress,
    )
    return train_from_counts(
        counts,
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=special_tokens,
        add_prefix_space=add_prefix_space,
        max_token_length=max_token_length,
        limit_alphabet=limit_alphabet,
        progress=progress,
    )


def train_from_dataset(
    dataset: Any,
    column: str = "text",
    *,
    vocab_size: int = 30000,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = (),
    add_prefix_space: bool = False,
    max_token_length: int | None = None,
    limit_alphabet: int | None = None,
    exclude_special_tokens: bool = False,
    progress: Progress | None = None,
) -> TrainResult:
    """Train on a ``datasets.Dataset`` column, each row one sequence (as ``train_from_iterator`` over the rows).

    Raises:
        KeyError: if the dataset has no such column.

    >>> import datasets
    >>> train_from_dataset(datasets.Dataset.from_dict({"text": ["hug pug", "hug"]}), "text", vocab_size=258).merges
    [('u', 'g'), ('h', 'ug')]
    """
    total = len(dataset)
    done = 0

    def count_progress(step: int) -> None:
        nonlocal done
        done += step
        if progress is not None:
            progress("count", done, total)

    counts = count_dataset(
        dataset,
        column,
        add_prefix_space=add_prefix_space,
        special_tokens=special_tokens,
        exclude_special_tokens=exclude_special_tokens,
        progress=count_progress,
    )
    return train_from_counts(
        counts,
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=special_tokens,
        add_prefix_space=add_prefix_space,
        max_token_length=max_token_length,
        limit_alphabet=limit_alphabet,
        progress=progress,
    )
