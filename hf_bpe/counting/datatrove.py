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

On Slurm the driver submits three jobs, each depending on the one before (``afterok``, and cancelled rather
than left pending when that one failed): the two stages and :class:`WriteManifest`, so that a run the driver does
not wait for (``executor_options={"wait": False}``) still ends with its manifest. Waiting, the driver follows
them with ``squeue`` (Ctrl-C cancels them with ``scancel``) and then checks every task as above. Every file of a
Slurm run is under the output, for the nodes to reach: the job scripts, datatrove's and Slurm's logs and the
tasks' ``TMPDIR``, in ``OUTPUT/datatrove-logs/``.

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
import functools
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from hf_bpe.atomic import write_files
from hf_bpe.counting import counting as _counting
from hf_bpe.counting.counting import count_byte_range, counting_settings, shard_ranges, spelled_counts
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
from hf_bpe.processes import signals_blocked

try:
    import datatrove.executor.slurm as datatrove_slurm
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
#: What a terminal's Ctrl-C sends: blocked in the local executor's workers (:class:`QuietLocalExecutor`).
_CTRL_C = frozenset({signal.SIGINT})


def _partial_dir(output: Path, bucket: int) -> Path:
    return output / "partial" / f"bucket-{bucket:05d}"


def _progress_file(output: Path, rank: int) -> Path:
    """Where counting task ``rank`` keeps the number of bytes it has counted, for the driver's bar."""
    return output / "partial" / "progress" / f"task-{rank:05d}"


class _CountedBytes:
    """Reports the counting tasks' bytes (their progress files, summed twice a second) as ``progress("count", done,
    total)`` from a thread while the driver waits for the stage: the tasks run in other processes."""

    def __init__(self, output: Path, total: int, progress: Callable[[str, int, int], None]) -> None:
        self.output, self.total, self.progress = output, total, progress
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="hf_bpe-datatrove-progress", daemon=True)

    def __enter__(self) -> _CountedBytes:
        # The first report now, before datatrove's console is silenced: a bar drawn on it keeps the real stderr.
        self.progress("count", self.counted(), self.total)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.thread.join()

    def _watch(self) -> None:
        while not self.stopped.wait(0.5):
            self.progress("count", self.counted(), self.total)
        self.progress("count", self.counted(), self.total)

    def counted(self) -> int:
        done = 0
        for path in (self.output / "partial" / "progress").glob("task-*"):
            with contextlib.suppress(OSError, ValueError):  # a file being written: counted on the next look
                done += int(path.read_text(encoding="ascii"))
        return done


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
        done = 0
        progress = _progress_file(Path(self.output), rank)
        progress.parent.mkdir(parents=True, exist_ok=True)
        for path, start, end in self.shards[rank::world_size]:
            counted, lines, _replaced = count_byte_range(
                path, start, end, pre_tokenizer=self.counting, errors=self.errors
            )
            raw.update(counted)
            self.stat_update("lines", value=lines)
            self.stat_update("bytes", value=end - start)
            done += end - start
            progress.write_text(str(done), encoding="ascii")
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


class WriteManifest(PipelineStep):
    """The Slurm run's last job: check the bucket files, write the manifest, remove the partial counts."""

    name = "write the counts manifest"
    type = "hf_bpe"

    def __init__(self, output: str, buckets: int, settings: dict[str, Any], sources: list[str]) -> None:
        super().__init__()
        self.output = output
        self.buckets = buckets
        self.settings = settings
        self.sources = sources

    def run(self, data: Any = None, rank: int = 0, world_size: int = 1) -> Iterator[Any]:
        output = Path(self.output)
        write_counts_manifest(output, buckets=self.buckets, settings=self.settings, sources=self.sources)
        shutil.rmtree(output / "partial", ignore_errors=True)
        if data:
            yield from data


def _first_error(logs: Path) -> str:
    """The exception of the first task log that has one, for the one-line error (of a chain, the last, as a
    traceback ends with it: hf_bpe's error naming file and line, not the decoder's); else, for a Slurm stage, the
    first error its jobs' output names (a task that never started: a time limit, a missing command)."""
    for log in sorted((logs / "logs").glob("task_*.log")):
        raised = []
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            name, _, message = line.partition(": ")
            if message and name.strip().endswith(("Error", "Exception")) and " " not in name.strip():
                raised.append(f"{name.strip()}: {message.strip()}")
        if raised:
            return raised[-1]
    for out in sorted((logs / "slurm_logs").glob("*.out")):
        for line in out.read_text(encoding="utf-8", errors="replace").splitlines():
            if any(word in line.lower() for word in ("error", "cancelled", "not found", "killed")):
                return f"{out.name}: {line.strip()}"
    return "no error message in the task logs"


def plan_shards(paths: Sequence[str | os.PathLike[str]], tasks: int = 1) -> list[tuple[str, int, int]]:
    """``(path, start, end)`` byte ranges covering the files, each starting just after a ``\\n``: of about
    :data:`~hf_bpe.counting.counting.SHARD_BYTES`, or smaller (down to ``MIN_SHARD_BYTES``) so that each of
    ``tasks`` tasks has one to count.

    Raises:
        FileNotFoundError: naming a missing file.
        IsADirectoryError: naming a directory given as a file.
    """
    files: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            raise IsADirectoryError(f"{path}: is a directory, expected a text file")
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
        files.append(path)
    sizes = [path.stat().st_size for path in files]
    # Read at call time: the module's sizes, as count_files reads them.
    shard_bytes = min(_counting.SHARD_BYTES, max(_counting.MIN_SHARD_BYTES, -(-sum(sizes) // max(tasks, 1))))
    return [
        (str(path.resolve()), start, end)
        for path, size in zip(files, sizes, strict=True)
        for start, end in shard_ranges(path, size, shard_bytes)
    ]


class TasksWarning(UserWarning):
    """Fewer datatrove tasks run than asked for (the command line shows it as ``hf-bpe: warning: ...``)."""


def _say_capped_tasks(tasks: int, shards: int, buckets: int) -> None:
    """Warn where fewer tasks run than asked for: one byte range per counting task, one bucket per summing task."""
    if tasks <= min(shards, buckets):
        return
    warnings.warn(
        f"tasks={tasks}: {min(tasks, shards)} counting tasks run, one per byte range of the input "
        f"({shards} ranges of at least {_counting.MIN_SHARD_BYTES} bytes; a compressed file is one), "
        f"and {min(tasks, buckets)} summing tasks, one per bucket (buckets={buckets})",
        TasksWarning,
        stacklevel=3,
    )


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
    """datatrove's local executor, quiet, with a Ctrl-C left to the driver.

    A terminal's Ctrl-C signals the whole process group, and a pool worker interrupted in the middle of handing
    back its result could leave the pool's queue locked and the driver hanging in its clean-up (seen once in
    some twenty runs). So the workers ignore it: the fork server they are forked from is started here with
    SIGINT ignored (a Python started so keeps it ignored, and its children inherit that), unless something in
    this process started it before; then they block it from their first task on. The driver alone is
    interrupted, and terminates the pool (SIGTERM) as datatrove does.
    """

    def run(self) -> Any:
        self._driver = os.getpid()
        if self.workers > 1 and self.start_method == "forkserver":
            _start_deaf_fork_server()
        return super().run()

    def _launch_run_for_rank(self, *args: Any, **kwargs: Any) -> Any:
        if os.getpid() != getattr(self, "_driver", os.getpid()):  # a pool worker, not the driver
            signal.pthread_sigmask(signal.SIG_BLOCK, _CTRL_C)
        with _datatrove_quiet():  # and its "N/T tasks completed" lines
            return super()._launch_run_for_rank(*args, **kwargs)


def _start_deaf_fork_server() -> None:
    """Start ``multiprocess``' fork server (if it is not running) with SIGINT ignored, which its children inherit;
    a Ctrl-C that comes meanwhile is held and delivered to this process afterwards (main thread only)."""
    from multiprocess import forkserver

    if threading.current_thread() is not threading.main_thread():
        forkserver.ensure_running()
        return
    with signals_blocked(_CTRL_C):
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            forkserver.ensure_running()
        finally:
            signal.signal(signal.SIGINT, previous)


class QuietRayExecutor(_QuietTasks, RayPipelineExecutor):
    pass


class QuietSlurmExecutor(_QuietTasks, SlurmPipelineExecutor):
    """datatrove's Slurm executor with every file of a run on the output's file system, where each node reads it.

    Its job script runs the tasks with ``TMPDIR`` in ``OUTPUT/datatrove-logs/tmp`` (the submitting machine's
    ``TMPDIR``, which ``sbatch`` would export, may not exist on a node), and sbatch reads that script from the
    stage's logging directory, not from the submitting machine's temporary directory. No statistics-merging job is
    submitted: it would write into the logs a successful run removes.
    """

    def __init__(self, *args: Any, temporary: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.temporary = temporary

    def get_launch_file_contents(self, sbatch_args: dict[str, Any], run_script: str) -> str:
        # An assignment before the command: srun hands its environment on to the task it starts.
        return super().get_launch_file_contents(sbatch_args, f"TMPDIR={shlex.quote(self.temporary)} {run_script}")

    def launch_job(self) -> None:
        # datatrove submits through its module's launch_slurm_job, which writes the script to a local temporary
        # file and lets sbatch print its errors; _sbatch submits the copy in the logging directory and reports them.
        submit = datatrove_slurm.launch_slurm_job
        datatrove_slurm.launch_slurm_job = functools.partial(_sbatch, self)
        try:
            super().launch_job()
        finally:
            datatrove_slurm.launch_slurm_job = submit

    def launch_merge_stats(self) -> None:
        pass


def _sbatch(executor: QuietSlurmExecutor, contents: str, job_id_retriever: Any, *args: str) -> str:
    """Submit a job script from the stage's logging directory; an error names sbatch's message and the script."""
    script = Path(executor.logging_dir.resolve_paths("launch_script.slurm"))
    script.write_text(contents, encoding="utf-8")
    done = subprocess.run(["sbatch", *args, str(script)], capture_output=True, text=True)
    if done.returncode != 0:
        message = " ".join(line.strip() for line in done.stderr.splitlines() if line.strip()) or "no message"
        raise RuntimeError(f"sbatch refused job {executor.job_name!r} ({message}); its script: {script}")
    return str(job_id_retriever(done.stdout))


_EXECUTOR_CLASSES = {"local": QuietLocalExecutor, "ray": QuietRayExecutor, "slurm": QuietSlurmExecutor}


def _executor(kind: str, pipeline: list[Any], *, tasks: int, workers: int, logging_dir: str, **options: Any) -> Any:
    if kind not in _EXECUTOR_CLASSES:
        raise ValueError(f"executor {kind!r}: choose one of {', '.join(EXECUTORS)}")
    return _EXECUTOR_CLASSES[kind](
        pipeline=pipeline, tasks=tasks, workers=workers, logging_dir=logging_dir, skip_completed=False, **options
    )


#: Seconds between two looks at the Slurm queue while waiting: from the first to the last, growing by half each time.
_POLL_SECONDS = (1.0, 30.0)
#: squeue failing this many times in a row (some five minutes) ends the wait, and the jobs are cancelled.
_SQUEUE_TRIES = 15


def _run_slurm_command(command: list[str]) -> str:
    """A Slurm client command's output; an error names the command and its message (the controller is down, ...)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except FileNotFoundError as e:
        raise RuntimeError(
            f"the Slurm executor runs {command[0]}, which is not on PATH: run hf-bpe count on a machine of the "
            "Slurm cluster (a login node), with Slurm's commands on PATH"
        ) from e
    if done.returncode != 0:
        message = " ".join(line.strip() for line in done.stderr.splitlines() if line.strip()) or "no message"
        raise RuntimeError(f"{' '.join(command)} failed (exit status {done.returncode}): {message}")
    return done.stdout


def _check_slurm(options: dict[str, Any]) -> None:
    """Before anything is written: Slurm's commands are here, the controller answers, the partition exists."""
    for command in ("sbatch", "squeue", "scancel"):
        if shutil.which(command) is None:
            raise RuntimeError(
                f"the Slurm executor submits and follows jobs with sbatch, squeue and scancel; {command} is not on "
                "PATH: run hf-bpe count on a machine of the Slurm cluster (a login node), with Slurm's commands on "
                "PATH"
            )
    partitions = _run_slurm_command(["sinfo", "--noheader", "--format=%R"]).split()
    if str(options["partition"]) not in partitions:
        raise ValueError(
            f"partition={options['partition']!r}: the Slurm cluster has no such partition; sinfo lists "
            f"{', '.join(sorted(set(partitions))) or 'none'}: --executor-option partition=NAME"
        )


def _wait_for_jobs(job_ids: Sequence[str]) -> None:
    """Return when none of the jobs is in Slurm's queue any more (pending, running or completing)."""
    delay, longest = _POLL_SECONDS
    failures = 0
    while True:
        try:
            queued = _run_slurm_command(["squeue", "--noheader", "--format=%F %r", f"--jobs={','.join(job_ids)}"])
        except RuntimeError as e:
            if "Invalid job id" in str(e):  # every job finished long enough ago to be forgotten
                return
            failures += 1
            if failures == _SQUEUE_TRIES:
                raise RuntimeError(f"{e} ({_SQUEUE_TRIES} times in a row while waiting for the jobs)") from e
            time.sleep(delay)  # a controller restarting or busy for a while: the jobs go on
            delay = min(delay * 1.5, longest)
            continue
        failures = 0
        lines = [line.split() for line in queued.splitlines() if line.strip()]
        if not lines:
            return
        # A job after a failed one never starts; a cluster that keeps it pending (kill-on-invalid-dep ignored)
        # would keep this waiting for ever.
        stuck = sorted({line[0] for line in lines if line[1:] == ["DependencyNeverSatisfied"]})
        if stuck:
            _run_slurm_command(["scancel", *stuck])
        time.sleep(delay)
        delay = min(delay * 1.5, longest)


def _count_on_slurm(
    shards: list[tuple[str, int, int]],
    output: Path,
    *,
    counting: PreTokenizer,
    errors: str,
    buckets: int,
    count_tasks: int,
    sum_tasks: int,
    workers: int,
    sources: list[str],
    options: dict[str, Any],
    wait: bool,
) -> Path:
    """Submit the two stages and the manifest's job as three Slurm jobs, each after the one before; wait for them.

    Every file of the run is under ``OUTPUT``: the partial counts, and in ``OUTPUT/datatrove-logs`` the job
    scripts, datatrove's and Slurm's logs and the tasks' temporary directory.
    """
    logs = output / LOGS
    temporary = logs / "tmp"
    temporary.mkdir(parents=True)
    prefix = str(options.pop("job_name", "hf-bpe"))
    options["sbatch_args"] = {
        # A job whose stage before it failed could never start: Slurm cancels it instead of keeping it pending.
        "kill-on-invalid-dep": "yes",
        **dict(options.get("sbatch_args") or {}),
    }
    if not {"env_command", "condaenv", "venv_path"} & options.keys():
        # The jobs run datatrove's launch_pickled_pipeline of this interpreter (the same Python environment).
        bin_dir = os.path.dirname(sys.executable)
        options["env_command"] = f'export PATH={shlex.quote(bin_dir)}:"$PATH"'
    stages: list[tuple[str, str, list[Any], int]] = [
        ("counting", "count", [CountShards(shards, str(output), counting, buckets, errors)], count_tasks),
        ("summing", "sum", [SumBuckets(str(output), buckets, count_tasks)], sum_tasks),
        (
            "manifest",
            "manifest",
            [WriteManifest(str(output), buckets, counting_settings(counting, errors), sources)],
            1,
        ),
    ]
    submitted = _submit_slurm_stages(stages, logs, prefix, workers, str(temporary), options)
    job_ids = [str(stage.job_id) for _, stage in submitted]
    described = ", ".join(
        f"{job_id} ({name}, {stage.tasks} task{'s' if stage.tasks > 1 else ''})"
        for job_id, (name, stage) in zip(job_ids, submitted, strict=True)
    )
    if not wait:
        _say_what_to_run_next(described, job_ids, output, logs)
        return output / "manifest.json"
    print(f"waiting for Slurm jobs {described} (Ctrl-C cancels them)", file=sys.stderr)
    try:
        _wait_for_jobs(job_ids)
    except BaseException:
        subprocess.run(["scancel", *job_ids], capture_output=True)
        raise
    for name, stage in submitted:
        incomplete = stage.get_incomplete_ranks(skip_completed=True)
        if incomplete:
            raise RuntimeError(
                f"datatrove {name} stage (Slurm job {stage.job_id}): tasks {incomplete} did not complete "
                f"({_first_error(logs / name)}); logs in {logs / name}"
            )
    manifest = output / "manifest.json"
    if not manifest.is_file():  # pragma: no cover - every task completed, so the manifest's job wrote it
        raise RuntimeError(f"the Slurm jobs completed but wrote no {manifest}; logs in {logs}")
    shutil.rmtree(logs, ignore_errors=True)
    return manifest


def _submit_slurm_stages(
    stages: list[tuple[str, str, list[Any], int]],
    logs: Path,
    prefix: str,
    workers: int,
    temporary: str,
    options: dict[str, Any],
) -> list[tuple[str, Any]]:
    """Submit each stage as a Slurm job depending on the one before; ``(name, executor)`` of each. A stage sbatch
    refuses cancels the jobs submitted before it (they would run for nothing)."""
    submitted: list[tuple[str, Any]] = []
    for name, suffix, pipeline, stage_tasks in stages:
        submitted.append(
            (
                name,
                QuietSlurmExecutor(
                    pipeline=pipeline,
                    tasks=stage_tasks,
                    workers=min(workers, stage_tasks),
                    logging_dir=str(logs / name),
                    skip_completed=False,
                    job_name=f"{prefix}-{suffix}",
                    depends=submitted[-1][1] if submitted else None,
                    temporary=temporary,
                    **options,
                ),
            )
        )
    try:
        with _datatrove_quiet():
            submitted[-1][1].run()  # submits the stages before it first, each job depending on the one before
    except BaseException:
        earlier = [str(stage.job_id) for _, stage in submitted if stage.job_id]
        if earlier:
            subprocess.run(["scancel", *earlier], capture_output=True)
        raise
    return submitted


def _say_what_to_run_next(described: str, job_ids: list[str], output: Path, logs: Path) -> None:
    """With ``wait=False``: the jobs submitted, how to follow them and what to run once they are done."""
    print(
        f"submitted Slurm jobs {described}, each after the one before: the last writes {output / 'manifest.json'}"
        f" when every task completed.\n"
        f"follow them with:  squeue --jobs {','.join(job_ids)}\n"
        f"when they have left the queue:  hf-bpe train --from-counts {shlex.quote(str(output))} --output DIR "
        f"...\n"
        f"(a counts directory without manifest.json is refused: see {logs} for the failed task's logs)",
        file=sys.stderr,
    )


def _wait_option(executor: str, options: dict[str, Any]) -> bool:
    """The ``wait`` executor option, taken out of ``options`` (Slurm's only; true by default).

    Raises:
        ValueError: ``wait`` for another executor, or not true or false.
    """
    if executor != "slurm" and "wait" in options:
        raise ValueError(
            f"executor option wait: only the Slurm executor can return before its tasks finish, not {executor!r}"
        )
    wait = options.pop("wait", True)
    if not isinstance(wait, bool):
        raise ValueError(f"executor option wait={wait!r}: true (wait for the Slurm jobs) or false (submit and return)")
    return wait


def count_with_datatrove(
    paths: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    *,
    counting: PreTokenizer | None = None,
    tasks: int | None = None,
    workers: int = 2,
    buckets: int = DEFAULT_BUCKETS,
    executor: str = "local",
    errors: str = "strict",
    executor_options: dict[str, Any] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Path:
    """Count the pre-tokens of text files with datatrove and write a counts directory.

    Args:
        paths: the input files (line semantics of ``tokenizers``: cut on ``\\n``, line endings kept).
        output: the counts directory to write (must not hold an earlier run's manifest).
        counting: how text is cut into pre-tokens (default: GPT-2's pattern, no prefix space).
        tasks: datatrove tasks for the counting stage (and at most that many for the summing stage; default: 4 per
            worker); the input is cut into that many byte ranges where it is large enough, and where it is not, a
            warning says how many run (for tasks given, not for the default).
        workers: tasks run at once (local and Ray executors).
        buckets: how many bucket files the counts are spread over.
        executor: ``"local"``, ``"ray"`` (needs a running or local Ray) or ``"slurm"`` (submits jobs and waits
            for them: run it on a machine of the cluster, with ``output`` on a file system every node sees).
        errors: ``"strict"`` or ``"replace"`` for invalid UTF-8, as in :func:`hf_bpe.counting.counting.count_files`.
        executor_options: passed on to the datatrove executor (e.g. Slurm's ``partition``, ``time``), but for
            ``wait``: ``False`` submits the Slurm jobs, says on stderr what to run next, and returns at once.
        progress: called as ``progress("count", bytes counted, bytes in all)`` twice a second while the local or
            Ray executor counts (the tasks' progress files under ``OUTPUT/partial/progress``).

    Returns:
        The manifest's path (with ``wait=False``, where the last Slurm job writes it when every task completed).

    Raises:
        RuntimeError: naming the stage whose tasks did not all complete (no manifest is written then), or the Slurm
            command that is missing or failed (sbatch's own message included); or, for
            the local executor, a call at a script's top level outside ``if __name__ == "__main__":``, whose
            workers would re-import the script and call it again without end.
        ValueError: naming a Slurm partition the cluster does not have, or a bad ``wait`` option.
    """
    if executor == "local":
        refuse_unguarded_main("hf_bpe.counting.datatrove.count_with_datatrove")
        _refuse_a_long_temporary_directory()
    options = dict(executor_options or {})
    wait = _wait_option(executor, options)
    _check_executor_options(executor, options)
    counting = counting or PreTokenizer()
    output = Path(output).resolve()
    asked, tasks = tasks, tasks or 4 * workers
    shards = plan_shards(paths, tasks)
    if asked is not None:
        _say_capped_tasks(asked, len(shards), buckets)
    count_tasks = max(1, min(tasks, len(shards)))
    sum_tasks = max(1, min(tasks, buckets))
    sources = [str(Path(p)) for p in paths]
    if executor == "slurm":
        _check_slurm(options)
    logs = output / LOGS
    for leftover in (output / "partial", logs):
        shutil.rmtree(leftover, ignore_errors=True)
    run = dict(counting=counting, errors=errors, buckets=buckets, count_tasks=count_tasks, sum_tasks=sum_tasks)
    run.update(workers=workers, sources=sources, options=options)
    created = not output.exists()
    try:
        if executor == "slurm":
            return _count_on_slurm(shards, output, wait=wait, **run)  # type: ignore[arg-type]
        return _count_locally(executor, shards, output, progress=progress, **run)  # type: ignore[arg-type]
    except BaseException as error:
        # An interrupted run (Ctrl-C, SIGTERM: "nothing was written") leaves no directory it made, not even the
        # bucket files the summing stage had written when it came; a failed one keeps its logs (the error names
        # them), so a directory it made stays unless it is empty.
        if created and isinstance(error, Exception):
            with contextlib.suppress(OSError):
                output.rmdir()
        elif created:
            shutil.rmtree(output, ignore_errors=True)
        raise


def _count_locally(
    executor: str,
    shards: list[tuple[str, int, int]],
    output: Path,
    *,
    counting: PreTokenizer,
    errors: str,
    buckets: int,
    count_tasks: int,
    sum_tasks: int,
    workers: int,
    sources: list[str],
    options: dict[str, Any],
    progress: Callable[[str, int, int], None] | None = None,
) -> Path:
    """Run the two stages on the local or Ray executor, one after the other, and write the manifest."""
    logs = output / LOGS
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
                **options,
            )
            total = sum(end - start for _path, start, end in shards)
            watching = progress is not None and name == "counting"
            with contextlib.ExitStack() as running:
                if watching:
                    running.enter_context(_CountedBytes(output, total, progress))  # type: ignore[arg-type]
                if executor == "local":
                    running.enter_context(_datatrove_quiet())  # Ray's executor keeps its console log
                stage.run()
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
            sources=sources,
        )
    finally:
        shutil.rmtree(output / "partial", ignore_errors=True)
        if not failed:
            shutil.rmtree(logs, ignore_errors=True)
    return manifest
