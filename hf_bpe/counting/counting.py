"""Text sources to pre-token counts: the step before any merge.

This module owns turning text (files, iterables of strings or of batches of strings, ``datasets`` columns) into a
:class:`collections.Counter` from pre-token to how often it occurs. Pre-tokens are spelled with the byte-level
alphabet (``"Ġthe"``, not ``" the"``), the spelling the trainer and ``vocab.json`` use, so counts can be stored
with :mod:`hf_bpe.counting.counts_dir` and fed to :func:`hf_bpe.models.bpe.trainer.train_bpe` as they are. Counts of
parts of a corpus add up (``Counter.update``) to the counts of the whole, in any order.

It cuts text exactly as ``tokenizers``' ``Tokenizer.train`` does with the ByteLevel pre-tokenizer: every
*sequence* is pre-tokenized on its own, a prefix space is added to a sequence that does not start with ``' '``
when ``add_prefix_space`` is set, and files are fed line by line with their line endings (``\\n`` or ``\\r\\n``)
kept (``Tokenizer::train_from_files`` reads them with ``lines_with_ending``), so a run of white space never
crosses a line end. An item of an iterator is one sequence, newlines and all (``train_from_iterator``).

Merging is :mod:`hf_bpe.models.bpe.trainer`'s job; the split pattern and byte alphabet are
:mod:`hf_bpe.pipeline.byte_level`'s.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import dataclasses
import itertools
import multiprocessing
import os
import re
import signal
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import IO, Any

from hf_bpe.counting.sources import COMPRESSED_SUFFIXES, STDIN, compressed_look, display_name, is_stream, open_binary
from hf_bpe.pipeline.byte_level import to_byte_level
from hf_bpe.pipeline.pre_tokenizers import PRESETS, PreTokenizer
from hf_bpe.processes import leave_signals_to_parent, signals_blocked
from hf_bpe.utf8 import invalid_utf8

#: Files bigger than this are cut into ``\\n``-aligned byte ranges of about this size, counted in parallel.
SHARD_BYTES = 4 << 20
#: A smaller corpus is cut into SHARDS_PER_WORKER ranges per worker (text varies along a file; several ranges each
#: let the pool even out the load), but no range is made smaller than MIN_SHARD_BYTES.
SHARDS_PER_WORKER = 4
MIN_SHARD_BYTES = 256 << 10
#: How much of a file a worker reads at a time (memory per worker follows this, not the file size).
BLOCK_BYTES = 1 << 20
#: Jobs submitted to the pool ahead of the one whose result is awaited, per worker (:func:`_pool_map`).
JOBS_AHEAD = 4

ProgressCallback = Callable[[int], None]
"""Called with a number of bytes (files) or sequences (iterators) just counted."""


#: How text is cut into pre-tokens for counting: the pre-tokenizer (the name of this module's earlier settings
#: class, kept for code written against it).
Counting = PreTokenizer


def char_level_counting(
    *, lowercase: bool = False, special_tokens: Sequence[str] = (), exclude_special_tokens: bool = False
) -> PreTokenizer:
    """How char-level BPE (GPT-1 / Sennrich style) cuts text: words split on white space, no byte mapping.

    >>> count_sequences(["Low lower  low"], pre_tokenizer=char_level_counting(lowercase=True))
    Counter({'low': 2, 'lower': 1})
    """
    return PreTokenizer.char_level(
        lowercase=lowercase, special_tokens=special_tokens, exclude_special_tokens=exclude_special_tokens
    )


def counting_settings(pre_tokenizer: PreTokenizer, errors: str = "strict") -> dict[str, Any]:
    """The settings a counts directory records: how the text was cut, and how invalid UTF-8 was handled.

    >>> counting_settings(PreTokenizer(add_prefix_space=True))["add_prefix_space"]
    True
    """
    return {**pre_tokenizer.to_settings(), "errors": errors}


@dataclasses.dataclass(frozen=True)
class FileCounts:
    """What :func:`count_files` found.

    Attributes:
        counts: pre-token (byte-level spelling) to count.
        bytes_read: the files' total size.
        lines: how many lines (sequences) were counted.
        replaced_lines: with ``errors="replace"``, how many lines had invalid UTF-8 replaced by U+FFFD.
    """

    counts: Counter[str]
    bytes_read: int
    lines: int
    replaced_lines: int


class _Cutter:
    """Pre-tokenizes sequences into a raw-text counter (respelled byte-level once per distinct key, later).

    A sequence longer than :data:`LONG_SEQUENCE` characters (a file of one 200 MB line) is cut in stretches of
    about that size at safe boundaries (:func:`long_sequence_stretches`), each reported to ``progress`` (characters
    cut): whole, it was one silent call of 45 s.
    """

    def __init__(self, pre_tokenizer: PreTokenizer, progress: Callable[[int], None] | None = None) -> None:
        self.pre_tokenizer = pre_tokenizer
        self.progress = progress
        self.chunked = chunkable(pre_tokenizer)
        self.tail = dataclasses.replace(pre_tokenizer, add_prefix_space=False) if pre_tokenizer.gpt2_form else None

    def pieces(self, sequences: Iterable[str]) -> list[str]:
        """All pre-tokens of ``sequences``, each sequence cut on its own."""
        cut = self.pre_tokenizer.sequence_pieces
        out: list[str] = []
        extend = out.extend
        for sequence in sequences:
            extend(cut(sequence))
        return out

    def count(self, counts: Counter[str], sequences: Sequence[str]) -> None:
        """Add the pre-tokens of ``sequences`` to ``counts``. A sequence that repeats (a blank line, a markup
        line) is cut once and counted as often as it occurs; a long one is counted stretch by stretch."""
        if self.chunked and any(len(sequence) > LONG_SEQUENCE for sequence in sequences):
            self.count(counts, [sequence for sequence in sequences if len(sequence) <= LONG_SEQUENCE])
            for sequence in sequences:
                if len(sequence) > LONG_SEQUENCE:
                    self.count_long(counts, sequence)
            return
        repeats = Counter(sequences)
        if len(repeats) == len(sequences):
            counts.update(self.pieces(sequences))
            return
        counts.update(self.pieces([sequence for sequence, times in repeats.items() if times == 1]))
        for sequence, times in repeats.items():
            if times > 1:
                for piece in self.pieces((sequence,)):
                    counts[piece] += times

    def count_long(self, counts: Counter[str], sequence: str) -> None:
        """Add the pre-tokens of one long sequence to ``counts``, stretch by stretch, reporting each."""
        stretches = long_sequence_stretches(self.pre_tokenizer, sequence, tail=self.tail)
        for length, pieces in stretches:
            counts.update(pieces)
            if self.progress is not None:
                self.progress(length)


#: Char-level BPE's split (words between white space).
CHAR_LEVEL_SPLITS = (r"\S+",)
#: A sequence longer than this (characters) is pre-tokenized in stretches of about this size (:class:`_Cutter`).
LONG_SEQUENCE = 1 << 20
#: Where a long sequence may be cut: a single space between two ASCII letters. Every preset's pattern ends a piece
#: at the letter before it and starts the next with the space (`` ?\\p{L}+``, ``[^\\r\\n\\p{L}\\p{N}]?\\p{L}+``), and
#: every normalizer leaves the three characters alone (none composes across an ASCII space), so the pieces of the
#: two sides are the pieces of the whole.
SAFE_CUT = re.compile(r"(?<=[A-Za-z]) (?=[A-Za-z])")


def chunkable(pre_tokenizer: PreTokenizer) -> bool:
    """Whether a long sequence may be cut at :data:`SAFE_CUT`: the splits are a preset's or char-level's white
    space split (a pattern of the user's may match across a space), and no recipe of its own (BERT's,
    SentencePiece's Metaspace) does the cutting."""
    known = {preset.splits for preset in PRESETS.values()} | {CHAR_LEVEL_SPLITS}
    # A special token cut out first must not be cut in two: one holding a space keeps the sequence whole.
    spaced = pre_tokenizer.exclude_special_tokens and any(" " in token for token in pre_tokenizer.special_tokens)
    return (
        pre_tokenizer.bert is None
        and pre_tokenizer.sentencepiece is None
        and pre_tokenizer.splits in known
        and not spaced
    )


def long_sequence_stretches(
    pre_tokenizer: PreTokenizer, sequence: str, *, tail: PreTokenizer | None = None, stretch: int = 0
) -> Iterator[tuple[int, list[str]]]:
    """``pre_tokenizer.sequence_pieces(sequence)`` in stretches of about ``stretch`` characters (default
    :data:`LONG_SEQUENCE`) cut at :data:`SAFE_CUT` boundaries: each stretch's length and pieces. ``tail``: the
    pre-tokenizer for the stretches after the first (GPT-2's form adds its prefix space once per sequence).

    >>> list(long_sequence_stretches(PreTokenizer(add_prefix_space=True), "ab cd  ef gh", stretch=2))
    [(2, [' ab']), (7, [' cd', ' ', ' ef']), (3, [' gh'])]
    """
    stretch = stretch or LONG_SEQUENCE
    start = 0
    while start < len(sequence):
        cut = SAFE_CUT.search(sequence, start + stretch) if start + stretch < len(sequence) else None
        end = cut.start() if cut else len(sequence)
        chosen = pre_tokenizer if start == 0 or tail is None else tail
        yield end - start, chosen.sequence_pieces(sequence[start:end])
        start = end


def spelled_counts(raw: Counter[str], pre_tokenizer: PreTokenizer) -> Counter[str]:
    """Counts of raw-text pre-tokens in the spelling of the tokens: byte-level, or as they are (char-level)."""
    return to_byte_level_counts(raw) if pre_tokenizer.byte_level else raw


def to_byte_level_counts(raw: Counter[str]) -> Counter[str]:
    """Respell a counter of raw-text pre-tokens with the byte-level alphabet (keys that collide add up).

    >>> to_byte_level_counts(Counter({" the": 2, "é": 1}))
    Counter({'Ġthe': 2, 'Ã©': 1})
    """
    out: Counter[str] = Counter()
    for key, count in raw.items():
        out[to_byte_level(key)] += count
    return out


def count_sequences(
    sequences: Iterable[str | Sequence[str]],
    *,
    add_prefix_space: bool = False,
    special_tokens: Sequence[str] = (),
    exclude_special_tokens: bool = False,
    pre_tokenizer: PreTokenizer | None = None,
    progress: ProgressCallback | None = None,
) -> Counter[str]:
    """Count the pre-tokens of an iterable of sequences, as ``Tokenizer.train_from_iterator`` sees it.

    Each string is one sequence, pre-tokenized whole (a string with newlines is not cut into lines). An item
    may also be a batch: a list or tuple of strings, each one sequence.

    Args:
        sequences: strings, or batches (lists/tuples) of strings.
        add_prefix_space: see :class:`~hf_bpe.pipeline.pre_tokenizers.PreTokenizer`.
        special_tokens: see :class:`~hf_bpe.pipeline.pre_tokenizers.PreTokenizer`.
        exclude_special_tokens: see :class:`~hf_bpe.pipeline.pre_tokenizers.PreTokenizer`.
        pre_tokenizer: all of the cutting settings at once (overrides the three above).
        progress: called with the number of sequences counted, now and then.

    Returns:
        Pre-token (byte-level spelling) to count.

    Raises:
        TypeError: naming the item that is neither a string nor a batch of strings.

    >>> count_sequences(["the cat", ["the dog"]])
    Counter({'the': 2, 'Ġcat': 1, 'Ġdog': 1})
    """
    pre_tokenizer = pre_tokenizer or _pre_tokenizer(add_prefix_space, special_tokens, exclude_special_tokens)
    cutter = _Cutter(pre_tokenizer)
    raw: Counter[str] = Counter()
    batch: list[str] = []
    for index, item in enumerate(sequences):
        if isinstance(item, str):
            batch.append(item)
        elif isinstance(item, (list, tuple)) and all(isinstance(s, str) for s in item):
            batch.extend(item)
        else:
            raise TypeError(
                f"item {index} of the training iterator is a {type(item).__name__} ({item!r:.60}); "
                "expected a string or a list of strings"
            )
        if len(batch) >= 2048:
            cutter.count(raw, batch)
            if progress is not None:
                progress(len(batch))
            batch = []
    if batch:
        cutter.count(raw, batch)
        if progress is not None:
            progress(len(batch))
    return spelled_counts(raw, pre_tokenizer)


def dataset_rows(dataset: Any, column: str, *, batch_size: int = 1000) -> Iterator[str]:
    """The values of a ``datasets.Dataset`` column, read a batch at a time.

    Raises:
        KeyError: if the dataset has no column ``column`` (the message lists the columns it has).
    """
    names = list(getattr(dataset, "column_names", None) or [])
    if column not in names:
        raise KeyError(f"the dataset has no column {column!r}; its columns are {names}")
    return (row for start in range(0, len(dataset), batch_size) for row in dataset[start : start + batch_size][column])


def count_dataset(
    dataset: Any,
    column: str,
    *,
    add_prefix_space: bool = False,
    special_tokens: Sequence[str] = (),
    exclude_special_tokens: bool = False,
    batch_size: int = 1000,
    progress: ProgressCallback | None = None,
) -> Counter[str]:
    """Count the pre-tokens of a ``datasets.Dataset`` column; each row is one sequence.

    Raises:
        KeyError: if the dataset has no column ``column`` (the message lists the columns it has).

    >>> import datasets
    >>> count_dataset(datasets.Dataset.from_dict({"text": ["a b", "a"]}), "text")
    Counter({'a': 2, 'Ġb': 1})
    """
    return count_sequences(
        dataset_rows(dataset, column, batch_size=batch_size),
        add_prefix_space=add_prefix_space,
        special_tokens=special_tokens,
        exclude_special_tokens=exclude_special_tokens,
        progress=progress,
    )


def _file_sizes(files: Sequence[Path]) -> list[int]:
    """Each file's size in bytes (0 for standard input, ``-``), checking that every file can be read.

    Raises:
        FileNotFoundError, IsADirectoryError: naming the file.
        ValueError: standard input given more than once.
    """
    sizes = []
    for path in files:
        if str(path) == STDIN:
            sizes.append(0)
            continue
        if path.is_dir():
            raise IsADirectoryError(f"{path}: is a directory, expected a text file")
        try:
            sizes.append(path.stat().st_size)
        except FileNotFoundError as e:
            raise FileNotFoundError(f"{path}: no such file") from e
    if sum(str(path) == STDIN for path in files) > 1:
        raise ValueError("standard input (-) is given more than once; it can be read only once")
    return sizes


def count_files(
    paths: Iterable[str | os.PathLike[str]],
    *,
    add_prefix_space: bool = False,
    special_tokens: Sequence[str] = (),
    exclude_special_tokens: bool = False,
    workers: int | None = None,
    errors: str = "strict",
    pre_tokenizer: PreTokenizer | None = None,
    progress: ProgressCallback | None = None,
) -> FileCounts:
    """Count the pre-tokens of text files, line by line as ``Tokenizer.train(files)`` does.

    Files are read in binary and cut on ``\\n`` only (a ``\\r\\n`` ending stays on its line, a lone ``\\r`` is
    ordinary white space). Big files are cut into ``\\n``-aligned byte ranges counted in worker processes;
    the counts are the same for any number of workers. Memory follows the number of distinct pre-tokens.

    Args:
        paths: the files.
        add_prefix_space: see :class:`~hf_bpe.pipeline.pre_tokenizers.PreTokenizer`; applies to every line.
        special_tokens: see :class:`~hf_bpe.pipeline.pre_tokenizers.PreTokenizer`.
        exclude_special_tokens: see :class:`~hf_bpe.pipeline.pre_tokenizers.PreTokenizer`.
        workers: worker processes (default: the CPU count; ``1`` counts in this process).
        errors: ``"strict"`` raises on invalid UTF-8; ``"replace"`` replaces it with U+FFFD and counts the
            lines where it did.
        pre_tokenizer: all of the cutting settings at once (overrides the three above).
        progress: called with the number of bytes just counted.

    Raises:
        FileNotFoundError: naming a missing file.
        ValueError: naming the file, 1-based line and byte offset of invalid UTF-8 (``errors="strict"``), or a
            bad ``errors``/``workers`` value.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = path.write_bytes(b"the cat\\r\\nthe  dog\\n")
    >>> count_files([path], workers=1).counts
    Counter({'the': 2, 'Ġcat': 1, 'čĊ': 1, 'Ġ': 1, 'Ġdog': 1, 'Ċ': 1})
    """
    if errors not in ("strict", "replace"):
        raise ValueError(f"errors={errors!r}: choose 'strict' or 'replace'")
    if workers is not None and workers < 1:
        raise ValueError(f"workers={workers}: must be at least 1")
    pre_tokenizer = pre_tokenizer or _pre_tokenizer(add_prefix_space, special_tokens, exclude_special_tokens)
    files = [Path(p) for p in paths]
    sizes = _file_sizes(files)
    total = sum(sizes)
    workers = workers or os.cpu_count() or 1
    shard_bytes = min(SHARD_BYTES, max(MIN_SHARD_BYTES, -(-total // (workers * SHARDS_PER_WORKER))))
    shards = [
        (str(path), start, end)
        for path, size in zip(files, sizes, strict=True)
        for start, end in shard_ranges(path, size, shard_bytes)
    ]
    workers = min(workers, max(len(shards), 1))
    jobs = [(pre_tokenizer, path, start, end, errors) for path, start, end in shards]
    # Ranges report the bytes they count as they go (a 200 MB line was one range, silent to its end): here
    # through ``inside``, in the workers through a shared counter this process reads while it waits.
    told = _Told(progress)
    results: Iterable[tuple[Counter[str], int, int, int]]
    local = [False] * len(jobs)
    if workers == 1:
        results = (_count_range_job(job, told.inside) for job in jobs)
    else:
        # map keeps shard order, so the counter's key order (first occurrence) is the same for any worker count.
        # Standard input and pipes are read in this process (a worker must not share them).
        local = [
            path == STDIN or (is_stream(path) and not path.endswith(COMPRESSED_SUFFIXES))
            for _pre_tokenizer, path, _start, _end, _errors in jobs
        ]
        results = _pool_map(_count_range_job, jobs, workers, local, shared=told.shared, waiting=told.poll)
    counts: Counter[str] = Counter()
    lines = replaced = 0
    for (part, part_lines, part_replaced, part_bytes), in_pool in zip(results, local, strict=True):
        counts.update(part)
        lines += part_lines
        replaced += part_replaced
        told.range_done(part_bytes, in_pool and workers > 1)
    return FileCounts(counts, total, lines, replaced)


class _Told:
    """What :func:`count_files` has told ``progress``: bytes counted in this process (``inside``, then what is left
    of each range when it is done) and in the workers (a shared counter, read by :meth:`poll`)."""

    def __init__(self, progress: ProgressCallback | None) -> None:
        self.progress = progress
        self.reported = 0  # of the current range, from inside it
        self.seen = 0  # of the shared counter
        self.shared = None if progress is None else multiprocessing.get_context().Value("q", 0, lock=True)

    def inside(self, amount: int) -> None:
        self.reported += amount
        if self.progress is not None:
            self.progress(amount)

    def poll(self) -> None:
        if self.progress is not None and self.shared is not None:
            now = self.shared.value
            if now > self.seen:
                self.progress(now - self.seen)
                self.seen = now

    def range_done(self, size: int, in_pool: bool) -> None:
        """A range of ``size`` bytes is counted: a worker's has told the shared counter all of it."""
        if in_pool:
            self.poll()
        elif self.progress is not None and size > self.reported:
            self.progress(size - self.reported)
        self.reported = 0


#: In a worker of :func:`_pool_map`: the counter of bytes counted that the parent reads (None: not reported).
_WORKER_COUNTER: Any = None


def _start_worker(shared: Any) -> None:
    """A counting worker's start: signals left to the parent, the shared counter kept for :func:`_tell_parent`."""
    global _WORKER_COUNTER
    leave_signals_to_parent()
    _WORKER_COUNTER = shared


def _tell_parent(amount: int) -> None:
    with _WORKER_COUNTER.get_lock():
        _WORKER_COUNTER.value += amount


def _pool_map(
    function: Callable[[Any], Any],
    jobs: Sequence[Any],
    workers: int,
    local: Sequence[bool] = (),
    *,
    shared: Any = None,
    waiting: Callable[[], None] | None = None,
) -> Iterator[Any]:
    """``map(function, jobs)`` in ``workers`` processes, in order; stopped at once, workers and all, when
    interrupted. Jobs flagged in ``local`` run in this process, in their turn. ``shared``: a counter the workers'
    ``function`` adds the bytes it counts to (:func:`_tell_parent`); ``waiting`` is called every
    :data:`POLL_SECONDS` while a result is awaited.

    ``ProcessPoolExecutor``'s own shutdown waits for the running jobs, and a second Ctrl-C during that wait (a
    terminal signals the whole process group; ``timeout -s INT`` too) left it hanging in its exit, and a third
    left the workers running without a parent. So: after the first SIGINT this process ignores further ones
    while it terminates the workers itself and waits for them (then Python's default handler is back, or a
    caller's own as the interrupt left it: a once-handler that fired stays disarmed); the workers
    ignore SIGINT from the start.

    At most :data:`JOBS_AHEAD` jobs a worker are submitted ahead of the one whose result is yielded, and a result
    is let go once yielded: the results waiting in this process stay a few shards' worth, whatever the input's size
    (all submitted at once and kept, 1.2 GB of text held every shard's counts, 300 of them, to the end).
    """
    main_thread = threading.current_thread() is threading.main_thread()
    # Python's default handler is replaced by one that interrupts once, and put back at the end; a caller's own
    # handler (the CLI's, which disarms itself when it fires) is left as the interrupt left it.
    installed = main_thread and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if installed:
        signal.signal(signal.SIGINT, _interrupt_once)
    held: Any = None  # the caller's handler as it was when an exception came, while this ignores SIGINT
    pool = None
    try:
        # Not pool.map: closing its iterator cancels the pending futures, and the pool's manager thread then fails
        # on them (InvalidStateError) when it finds the terminated workers.
        here = iter(zip(jobs, list(local) + [False] * (len(jobs) - len(local)), strict=True))
        pending: collections.deque[tuple[Any, Future[Any] | None]] = collections.deque()
        with signals_blocked():
            pool = executor = ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=(shared,))

        def submit(count: int) -> None:
            # The workers and the pool's threads start with signals blocked (they may start at any submit).
            with signals_blocked():
                for job, in_here in itertools.islice(here, count):
                    pending.append((job, None if in_here else executor.submit(function, job)))

        submit(workers * JOBS_AHEAD)
        while pending:
            job, future = pending.popleft()
            result = function(job) if future is None else _result(future, waiting)
            del future
            submit(1)
            yield result
            del result
    except BaseException:
        if main_thread:
            held = signal.signal(signal.SIGINT, signal.SIG_IGN)
        if pool is not None:
            _stop_pool(pool)
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        if installed:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        elif held is not None:
            # Not the handler from before the call: a once-handler that fired has set SIG_IGN, and re-arming it
            # here let a Ctrl-C still on its way interrupt the CLI's own clean-up (a traceback, exit -2).
            signal.signal(signal.SIGINT, held)


#: How often a wait for a worker's result tells ``waiting`` (:func:`_pool_map`).
POLL_SECONDS = 0.25


def _result(future: Future[Any], waiting: Callable[[], None] | None) -> Any:
    """``future.result()``, calling ``waiting`` every :data:`POLL_SECONDS` until it comes."""
    if waiting is None:
        return future.result()
    while True:
        try:
            return future.result(timeout=POLL_SECONDS)
        except concurrent.futures.TimeoutError:
            waiting()


def _interrupt_once(signum: int, frame: object) -> None:
    """The first SIGINT interrupts; the ones right after it (the same Ctrl-C, seen twice) are ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Terminate the pool's workers, wait for them (killing any that linger), then let the pool go."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        with contextlib.suppress(OSError, ValueError):
            process.terminate()
    for process in processes:
        with contextlib.suppress(OSError, ValueError):
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join(5)
    # A worker stopped while it wrote its result leaves half a message in the result pipe, and the pool's manager
    # thread waits for the rest for ever (its shutdown with it). With the workers gone, closing this process's
    # end of the pipe ends that wait: the thread reads the end of the pipe and finds the pool broken.
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        with contextlib.suppress(OSError):
            writer.close()
    pool.shutdown(wait=True)


def _pre_tokenizer(add_prefix_space: bool, special_tokens: Sequence[str], exclude_special_tokens: bool) -> PreTokenizer:
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens={special_tokens!r} is a string; pass a list of strings")
    return PreTokenizer(
        add_prefix_space=bool(add_prefix_space),
        special_tokens=tuple(special_tokens),
        exclude_special_tokens=bool(exclude_special_tokens),
    )


def shard_ranges(path: Path, size: int, shard_bytes: int | None = None) -> list[tuple[int, int]]:
    """Byte ranges of about ``shard_bytes`` (default :data:`SHARD_BYTES`) covering the file, each starting at the
    file's start or just after a ``\\n``."""
    shard_bytes = shard_bytes or SHARD_BYTES
    if size <= shard_bytes or is_stream(path):
        return [(0, size)]  # a compressed file or a pipe is read front to back, by one worker
    starts = [0]
    with path.open("rb") as stream:
        position = shard_bytes
        while position < size:
            stream.seek(position)
            chunk = stream.readline()  # up to and including the next b"\n"
            position += len(chunk)
            if position >= size:
                break
            starts.append(position)
            position += shard_bytes
    return list(zip(starts, [*starts[1:], size], strict=True))


def _count_range_job(
    job: tuple[PreTokenizer, str, int, int, str], progress: ProgressCallback | None = None
) -> tuple[Counter[str], int, int, int]:
    """Count one range, spelled as the tokens are (in the worker: respelling costs as much as a tenth of
    counting); returns the counts, lines, lines with replacements and bytes counted. ``progress``: told of bytes
    counted as the range goes (counted in this process only)."""
    pre_tokenizer, path, start, end, errors = job
    if progress is None and _WORKER_COUNTER is not None:
        progress = _tell_parent
    raw, lines, replaced = count_byte_range(
        path, start, end, pre_tokenizer=pre_tokenizer, errors=errors, progress=progress
    )
    return spelled_counts(raw, pre_tokenizer), lines, replaced, end - start


def count_byte_range(
    path: str | os.PathLike[str],
    start: int,
    end: int,
    *,
    pre_tokenizer: PreTokenizer,
    errors: str = "strict",
    progress: ProgressCallback | None = None,
) -> tuple[Counter[str], int, int]:
    """Count the lines in ``[start, end)`` of a file (``start`` must be 0 or just after a ``\\n``).

    A source that is read whole (compressed, standard input: :func:`hf_bpe.counting.sources.is_stream`) is counted
    whole, decompressed; its range must start at 0.

    ``progress``: told of the bytes counted, block by block (a long line stretch by stretch).

    Returns:
        Raw-text (not byte-level) pre-token counts, the number of lines, the number of lines with replacements.
    """
    if is_stream(path):
        if start != 0:
            raise ValueError(f"{display_name(path)}: is read whole, not from byte {start}")
        with open_binary(path) as stream:
            return _count_stream(stream, None, 0, pre_tokenizer, errors, path, progress)
    with open(path, "rb") as stream:
        stream.seek(start)
        return _count_stream(stream, end - start, start, pre_tokenizer, errors, path, progress)


def _count_stream(
    stream: IO[bytes],
    limit: int | None,
    base: int,
    pre_tokenizer: PreTokenizer,
    errors: str,
    path: str | os.PathLike[str],
    progress: ProgressCallback | None = None,
) -> tuple[Counter[str], int, int]:
    """Count ``limit`` bytes (None: all) of ``stream``, whose first byte is byte ``base`` of ``path``, in blocks
    cut after a ``\\n``; ``progress`` is told of each block's bytes (a long line's, stretch by stretch)."""
    scale = _BlockProgress(progress)
    cutter = _Cutter(pre_tokenizer, None if progress is None else scale.characters)
    raw: Counter[str] = Counter()
    lines = replaced = 0
    remaining = limit
    carry: list[bytes] = []  # a line's start, block by block (joined once: += of each block was quadratic)
    offset = base  # where carry (then data) starts in the source
    while True:
        size = BLOCK_BYTES if remaining is None else min(BLOCK_BYTES, remaining)
        block = stream.read(size) if size else b""
        if remaining is not None:
            remaining -= len(block)
        final = not block or remaining == 0
        if final:
            data, carry = b"".join([*carry, block]), []
        else:
            cut = block.rfind(b"\n") + 1
            if cut == 0:
                carry.append(block)
                continue
            data, carry = b"".join([*carry, block[:cut]]), [block[cut:]]
        if data:
            text, bad_lines = _decode(data, errors, path, offset, lines if limit is None else None)
            scale.start(len(data), len(text))
            offset += len(data)
            parts = text.split("\n")
            if parts[-1] == "":
                parts.pop()
                parts = [p + "\n" for p in parts]
            else:
                last = parts.pop()
                parts = [p + "\n" for p in parts]
                parts.append(last)
            lines += len(parts)
            replaced += bad_lines
            cutter.count(raw, parts)
            scale.finish()
        if final:
            return raw, lines, replaced


class _BlockProgress:
    """A block's progress in bytes from its long lines' progress in characters (scaled by the block's bytes per
    character); what is left of the block is reported when it is done, so the bytes add up to the block's."""

    def __init__(self, progress: ProgressCallback | None) -> None:
        self.progress = progress
        self.size = self.reported = 0
        self.ratio = 1.0

    def start(self, size: int, characters: int) -> None:
        self.size, self.reported, self.ratio = size, 0, size / max(characters, 1)

    def characters(self, count: int) -> None:
        amount = min(int(count * self.ratio), self.size - self.reported)
        if self.progress is not None and amount > 0:
            self.reported += amount
            self.progress(amount)

    def finish(self) -> None:
        if self.progress is not None and self.size > self.reported:
            self.progress(self.size - self.reported)
        self.reported = self.size


def _decode(
    data: bytes, errors: str, path: str | os.PathLike[str], base: int, lines_before: int | None
) -> tuple[str, int]:
    """Decode whole lines that start at byte ``base`` of the source, after ``lines_before`` lines (None: count
    them in the file); return the text and how many lines had replacements."""
    try:
        return data.decode("utf-8"), 0
    except UnicodeDecodeError as e:
        if errors == "strict":
            if lines_before is None:
                with open(path, "rb") as stream:
                    lines_before = stream.read(base).count(b"\n")
            where = " of the decompressed text" if str(path).endswith(COMPRESSED_SUFFIXES) else ""
            hint = "fix the file, or replace it with U+FFFD: errors='replace' (--encoding-errors replace)"
            looks = compressed_look(path) if not is_stream(path) else None
            if looks:
                hint = f"it looks compressed: name it with its {looks} ending and hf_bpe decompresses it"
            located = invalid_utf8(display_name(path), e, data, base=base, lines_before=lines_before, note=where)
            raise ValueError(f"{located}; {hint}") from e
    bad = 0
    pieces = []
    for raw_line in data.split(b"\n"):
        try:
            pieces.append(raw_line.decode("utf-8"))
        except UnicodeDecodeError:
            pieces.append(raw_line.decode("utf-8", "replace"))
            bad += 1
    return "\n".join(pieces), bad
