"""Pre-token counting on datatrove, HuggingFace's data-processing engine: a laptop, a Slurm or a Ray cluster.

Counting is map-reduce shaped, and only the counts reach the merge loop, so this module runs the counting as
two datatrove stages and leaves a counts directory (:mod:`hf_bpe.counting.counts_dir`) that ``hf-bpe train
--from-counts`` trains on:

1. :class:`CountShards` — task ``r`` of ``T`` counts every ``T``-th ``\\n``-aligned byte range of the input
   files (read as bytes and cut on ``\\n`` by :func:`hf_bpe.counting.counting.count_byte_range`, so line semantics stay
   exactly those of ``tokenizers``; datatrove's own text readers would not keep them) and writes its counts
   split into buckets under ``partial/bucket-XXXXX/task-XXXXX.jsonl``.
2. :class:`SumBuckets` — task ``r`` sums the partial files of every ``T``-th bucket into ``bucket-XXXXX.jsonl``.

The driver, :func:`count_with_datatrove`, then checks that every task of both stages completed and only then
writes the manifest; a failed or interrupted run leaves no manifest, so nothing is trained from it. Every run
gets a fresh datatrove logging directory, so no task is skipped as "completed" by an earlier run.

The tasks log to files only (datatrove would also print each task's pipeline and statistics, some 90 lines for a
small run), in ``OUTPUT/datatrove-logs/`` where every task of a cluster can reach them. A successful run removes
them and the partial counts, leaving the manifest and its buckets; a failed one keeps the logs and names them.

Input paths are local files; the output directory must be reachable by every task (a shared file system on a
cluster). datatrove is an optional dependency (``pip install 'hf-bpe[datatrove]'``); ``import hf_bpe`` does not
import this module.
"""

from __future__ import annotations

import ast
import contextlib
import os
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from hf_bpe.atomic import write_files
from hf_bpe.counting.counting import _shard_ranges, count_byte_range, counting_settings, spelled_counts
from hf_bpe.counting.counts_dir import (
    DEFAULT_BUCKETS,
    bucket_file_name,
    format_bucket,
    read_bucket,
    split_into_buckets,
    sum_counts,
    write_counts_manifest,
)
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer

try:
    from datatrove.executor import LocalPipelineExecutor, RayPipelineExecutor, SlurmPipelineExecutor
    from datatrove.pipeline.base import PipelineStep
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "counting with datatrove needs it installed: pip install 'datatrove>=0.4' "
        "(or, in a clone of hf_bpe: pip install '.[datatrove]')"
    ) from e

EXECUTORS = ("local", "ray", "slurm")
#: The datatrove logging directory inside the output, kept only when a task failed.
LOGS = "datatrove-logs"
#: Example values for the Slurm options every run needs, for the error that asks for them.
_EXAMPLES = {"partition": "NAME", "time": "02:00:00"}


def _partial_dir(output: Path, bucket: int) -> Path:
    return output / "partial" / f"bucket-{bucket:05d}"


class CountShards(PipelineStep):
    """Count this task's share of the byte ranges; write bucketed partial counts."""

    name = "count pre-tokens"
    type = "hf_bpe"

    def __init__(
        self, shards: Sequence[tuple[str, int, int]], output: str, counting: PreTokenizer, buckets: int, errors: str
    ) -> None:
        super().__init__()
        self.shards = list(shards)
        self.output = output
        self.counting = counting
        self.buckets = buckets
        self.errors = errors

    def run(self, data: Any = None, rank: int = 0, world_size: int = 1) -> Iterator[Any]:
        raw: Counter[str] = Counter()
        for path, start, end in self.shards[rank::world_size]:
            counted, lines, _replaced = count_byte_range(
                path, start, end, pre_tokenizer=self.counting, errors=self.errors
            )
            raw.update(counted)
            self.stat_update("lines", value=lines)
            self.stat_update("bytes", value=end - start)
        counts = spelled_counts(raw, self.counting)
        for bucket, part in enumerate(split_into_buckets(counts, self.buckets)):
            write_files(_partial_dir(Path(self.output), bucket), {f"task-{rank:05d}.jsonl": format_bucket(part)})
        if data:
            yield from data


class SumBuckets(PipelineStep):
    """Sum the partial counts of this task's buckets into final bucket files."""

    name = "sum pre-token counts"
    type = "hf_bpe"

    def __init__(self, output: str, buckets: int, count_tasks: int) -> None:
        super().__init__()
        self.output = output
        self.buckets = buckets
        self.count_tasks = count_tasks

    def run(self, data: Any = None, rank: int = 0, world_size: int = 1) -> Iterator[Any]:
        output = Path(self.output)
        for bucket in range(rank, self.buckets, world_size):
            parts = [_partial_dir(output, bucket) / f"task-{task:05d}.jsonl" for task in range(self.count_tasks)]
            missing = [str(part) for part in parts if not part.is_file()]
            if missing:
                raise FileNotFoundError(f"partial counts missing (did the counting stage fail?): {missing[:3]}")
            total = sum_counts(read_bucket(part) for part in parts)
            write_files(output, {bucket_file_name(bucket): format_bucket(total)})
            self.stat_update("pre_tokens", value=len(total))
        if data:
            yield from data


def _first_error(logs: Path) -> str:
    """The first exception message in a stage's task logs, for the one-line error."""
    for log in sorted((logs / "logs").glob("task_*.log")):
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            name, _, message = line.partition(": ")
            if message and name.strip().endswith(("Error", "Exception")) and " " not in name.strip():
                return f"{name.strip()}: {message.strip()}"
    return "no error message in the task logs"


def plan_shards(paths: Sequence[str | os.PathLike[str]]) -> list[tuple[str, int, int]]:
    """``(path, start, end)`` byte ranges covering the files, each starting just after a ``\\n``.

    Raises:
        FileNotFoundError: naming a missing file.
        IsADirectoryError: naming a directory given as a file.
    """
    shards: list[tuple[str, int, int]] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            raise IsADirectoryError(f"{path}: is a directory, expected a text file")
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
        shards.extend((str(path.resolve()), start, end) for start, end in _shard_ranges(path, path.stat().st_size))
    return shards


# A Unix socket's path holds at most 107 bytes; the local executor's process manager opens one at
# TEMPORARY/pymp-XXXXXXXX/listener-XXXXXXXX, 32 bytes below the temporary directory.
_SOCKET_PATH_BYTES = 107
_SOCKET_BELOW_TEMPORARY = len("/pymp-12345678/listener-12345678")


def _refuse_a_long_temporary_directory() -> None:
    """Refuse a temporary directory whose path leaves no room for the worker manager's socket, which would
    otherwise fail deep inside multiprocessing with a bare ``EOFError``."""
    temporary = tempfile.gettempdir()
    length = len(os.fsencode(temporary))
    if length + _SOCKET_BELOW_TEMPORARY > _SOCKET_PATH_BYTES:
        raise RuntimeError(
            f"the temporary directory {temporary} has a {length}-byte path: datatrove's local executor opens a "
            f"socket {_SOCKET_BELOW_TEMPORARY} bytes below it, and a socket's path holds at most "
            f"{_SOCKET_PATH_BYTES} bytes; set TMPDIR to a directory with a path of at most "
            f"{_SOCKET_PATH_BYTES - _SOCKET_BELOW_TEMPORARY} bytes"
        )


def refuse_unguarded_main(function: str) -> None:
    """Refuse to start worker processes from a script's top level outside ``if __name__ == "__main__":``.

    datatrove's local executor starts its workers with ``forkserver``, and each re-imports the main script: a call
    at its top level runs again in every worker, which starts workers again, without end (tens of thousands of
    tracebacks and thousands of temporary directories in minutes). This fails fast instead, naming the line.

    Raises:
        RuntimeError: naming the script, the line and the fix, in the script's process or in a worker that is
            re-importing it.
    """
    main = sys.modules.get("__main__")
    guard = 'put the call under  if __name__ == "__main__":  (see the README\'s "Training on a cluster")'
    if getattr(main, "__name__", None) == "__mp_main__":
        raise RuntimeError(
            f"{function} was called while a worker process re-imported the main script "
            f"{getattr(main, '__file__', '?')}; {guard}"
        )
    script = getattr(main, "__file__", None)
    frame = sys._getframe(1)
    while frame is not None and not (
        frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") == "__main__"
    ):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None or not script or os.path.abspath(frame.f_code.co_filename) != os.path.abspath(script):
        return  # not called from a script's top level (an interactive session, a notebook, a function elsewhere)
    line = frame.f_lineno
    try:
        tree = ast.parse(Path(script).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return
    for statement in tree.body:
        if statement.lineno <= line <= (statement.end_lineno or statement.lineno):
            if not _is_main_guard(statement):
                raise RuntimeError(
                    f"{script}:{line}: {function} is called at the script's top level; its worker processes "
                    f"re-import {Path(script).name} and would run the call again, without end; {guard}"
                )
            return


def _is_main_guard(statement: ast.stmt) -> bool:
    """``if __name__ == "__main__":`` (either way round)."""
    if not isinstance(statement, ast.If) or not isinstance(statement.test, ast.Compare):
        return False
    test = statement.test
    sides = [test.left, *test.comparators]
    names = [side.id for side in sides if isinstance(side, ast.Name)]
    values = [side.value for side in sides if isinstance(side, ast.Constant)]
    return isinstance(test.ops[0], ast.Eq) and names == ["__name__"] and values == ["__main__"]


def _check_executor_options(kind: str, options: dict[str, Any]) -> None:
    """Ask for the options an executor cannot run without, before anything is started or written."""
    if kind == "slurm":
        missing = [name for name in ("partition", "time") if name not in options]
        if missing:
            raise ValueError(
                f"the Slurm executor needs {' and '.join(missing)}: "
                + " ".join(f"--executor-option {name}={_EXAMPLES[name]}" for name in missing)
                + " (in Python: executor_options={"
                + ", ".join(f"{name!r}: {_EXAMPLES[name]!r}" for name in missing)
                + "})"
            )


@contextlib.contextmanager
def _datatrove_quiet() -> Iterator[None]:
    """datatrove's console log off while the block runs (its task logs still go to their files)."""
    from datatrove.utils.logging import setup_default_logger

    with open(os.devnull, "w", encoding="utf-8") as devnull, contextlib.redirect_stderr(devnull):
        setup_default_logger()  # loguru keeps the stream it was given: hand it the redirected one
        try:
            yield
        finally:
            sys.stderr.flush()
    setup_default_logger()  # and the real stderr again afterwards


class _QuietTasks:
    """An executor whose tasks log to their files only (datatrove gives every task a console log too)."""

    def _run_for_rank(self, *args: Any, **kwargs: Any) -> Any:
        with _datatrove_quiet():
            return super()._run_for_rank(*args, **kwargs)  # type: ignore[misc]


# At the module's top level: the executors are pickled into their worker processes and cluster jobs.
class QuietLocalExecutor(_QuietTasks, LocalPipelineExecutor):
    def _launch_run_for_rank(self, *args: Any, **kwargs: Any) -> Any:
        with _datatrove_quiet():  # and its "N/T tasks completed" lines
            return super()._launch_run_for_rank(*args, **kwargs)


class QuietRayExecutor(_QuietTasks, RayPipelineExecutor):
    pass


class QuietSlurmExecutor(_QuietTasks, SlurmPipelineExecutor):
    pass


_EXECUTOR_CLASSES = {"local": QuietLocalExecutor, "ray": QuietRayExecutor, "slurm": QuietSlurmExecutor}


def _executor(kind: str, pipeline: list[Any], *, tasks: int, workers: int, logging_dir: str, **options: Any) -> Any:
    if kind not in _EXECUTOR_CLASSES:
        raise ValueError(f"executor {kind!r}: choose one of {', '.join(EXECUTORS)}")
    return _EXECUTOR_CLASSES[kind](
        pipeline=pipeline, tasks=tasks, workers=workers, logging_dir=logging_dir, skip_completed=False, **options
    )


def count_with_datatrove(
    paths: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    *,
    counting: PreTokenizer | None = None,
    tasks: int = 4,
    workers: int = 2,
    buckets: int = DEFAULT_BUCKETS,
    executor: str = "local",
    errors: str = "strict",
    executor_options: dict[str, Any] | None = None,
) -> Path:
    """Count the pre-tokens of text files with datatrove and write a counts directory.

    Args:
        paths: the input files (line semantics of ``tokenizers``: cut on ``\\n``, line endings kept).
        output: the counts directory to write (must not hold an earlier run's manifest).
        counting: how text is cut into pre-tokens (default: GPT-2's pattern, no prefix space).
        tasks: datatrove tasks for the counting stage (and at most that many for the summing stage).
        workers: tasks run at once (local and Ray executors).
        buckets: how many bucket files the counts are spread over.
        executor: ``"local"``, ``"ray"`` (needs a running or local Ray) or ``"slurm"`` (submits jobs).
        errors: ``"strict"`` or ``"replace"`` for invalid UTF-8, as in :func:`hf_bpe.counting.counting.count_files`.
        executor_options: passed on to the datatrove executor (e.g. Slurm's ``partition``, ``time``).

    Returns:
        The manifest's path.

    Raises:
        RuntimeError: naming the stage whose tasks did not all complete (no manifest is written then); or, for
            the local executor, a call at a script's top level outside ``if __name__ == "__main__":``, whose
            workers would re-import the script and call it again without end.
    """
    if executor == "local":
        refuse_unguarded_main("hf_bpe.counting.datatrove.count_with_datatrove")
        _refuse_a_long_temporary_directory()
    _check_executor_options(executor, executor_options or {})
    counting = counting or PreTokenizer()
    output = Path(output).resolve()
    shards = plan_shards(paths)
    count_tasks = max(1, min(tasks, len(shards)))
    sum_tasks = max(1, min(tasks, buckets))
    logs = output / LOGS
    for leftover in (output / "partial", logs):
        shutil.rmtree(leftover, ignore_errors=True)
    failed = False
    try:
        stages = [
            ("counting", [CountShards(shards, str(output), counting, buckets, errors)], count_tasks),
            ("summing", [SumBuckets(str(output), buckets, count_tasks)], sum_tasks),
        ]
        for name, pipeline, stage_tasks in stages:
            stage = _executor(
                executor,
                pipeline,
                tasks=stage_tasks,
                workers=min(workers, stage_tasks),
                logging_dir=str(logs / name),
                **(executor_options or {}),
            )
            with _datatrove_quiet() if executor == "local" else contextlib.nullcontext():
                stage.run()  # a cluster's executor keeps its console log: it names the jobs it submits
            incomplete = stage.get_incomplete_ranks(skip_completed=True)
            if incomplete:
                failed = True
                raise RuntimeError(
                    f"datatrove {name} stage: tasks {incomplete} did not complete ({_first_error(logs / name)}); "
                    f"logs in {logs / name}"
                )
        manifest = write_counts_manifest(
            output,
            buckets=buckets,
            settings=counting_settings(counting, errors),
            sources=[str(Path(p)) for p in paths],
        )
    finally:
        shutil.rmtree(output / "partial", ignore_errors=True)
        if not failed:
            shutil.rmtree(logs, ignore_errors=True)
    return manifest
