"""Work shared with forked child processes: how many to use, starting them with the parent's signals held, and
running jobs in them beside this process.

A leaf module: the trainer (initial pair counts), counting (its pool's workers) and the transformers classes
(a big batch's texts) all use it, and none of them imports another for it. What each job does is theirs.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection
from typing import Any, TypeVar

T = TypeVar("T")

#: The signals a worker process leaves to its parent, blocked while it is started (see :func:`signals_blocked`).
PARENT_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})

#: The values of ``TOKENIZERS_PARALLELISM`` that turn parallelism off, in ``tokenizers`` as here
#: (``tokenizers::utils::parallelism::get_parallelism``, compared in lower case).
_OFF = frozenset({"", "off", "false", "f", "no", "n", "0"})


@contextlib.contextmanager
def signals_blocked() -> Iterator[None]:
    """Block SIGINT and SIGTERM while processes and threads are started (main thread only; elsewhere a no-op).

    A forked child then cannot receive one before it has set its own handlers (it would run the parent's
    handler, with a traceback); it unblocks them itself (:func:`leave_signals_to_parent`). Threads started here
    keep them blocked, so the signals reach this thread and are handled at once. A signal that came meanwhile is
    delivered when the block ends.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, PARENT_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def leave_signals_to_parent() -> None:
    """In a child process: ignore Ctrl-C (the parent stops the children and reports once, with no traceback
    from each), let SIGTERM (how the parent stops it) end it quietly whatever handler it inherited, then unblock
    both (:func:`signals_blocked`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, PARENT_SIGNALS)


def fork_processes() -> int:
    """How many processes (this one included) a big batch may be encoded in: the CPUs this process may run on,
    or 1 where ``TOKENIZERS_PARALLELISM`` turns parallelism off (as it does for the Rust tokenizers), where
    processes cannot be forked, or in a daemonic worker (``datasets.map(num_proc=…)``'s: it cannot have children,
    and its siblings already use the other CPUs).

    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"TOKENIZERS_PARALLELISM": "false"}):
    ...     fork_processes()
    1
    """
    setting = os.environ.get("TOKENIZERS_PARALLELISM")
    if setting is not None and setting.lower() in _OFF:
        return 1
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    # ``multiprocess`` (datasets' fork of multiprocessing, with dill) keeps its own record of the current process.
    for module in (multiprocessing, sys.modules.get("multiprocess")):
        if module is not None and module.current_process().daemon:
            return 1
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def resident_gib() -> float:
    """This process's resident memory in GiB (0 where ``/proc`` does not say): what a fork copies the page tables
    of, some 17 ms per GiB (measured on a 2-core machine, child start and exit included).

    >>> 0 < resident_gib() < 1024
    True
    """
    try:
        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**30


def run_forked(jobs: Sequence[Callable[[], T]], name: str) -> list[T]:
    """Each job's result, in order: the last job runs in this process, each other one at the same time in a child
    forked for it, which inherits everything it needs (nothing is pickled but its result, sent back through a
    pipe).

    An exception in a child is raised here (a ``RuntimeError`` naming ``name`` and the exit code if the child
    died without a word). When this process is interrupted or fails, the children are terminated; they ignore
    Ctrl-C, so it is reported once, here.

    >>> run_forked([lambda: sum(range(10)), lambda: "here"], "doctest")
    [45, 'here']
    """
    if not jobs:
        return []
    context = multiprocessing.get_context("fork")
    children: list[tuple[Any, Connection]] = []
    try:
        # The children run only the jobs (pure Python, no lock another thread could hold), so forking a process
        # that has threads (the Rust tokenizers' pool, say) is safe here whatever Python 3.12's warning says.
        with signals_blocked(), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r"This process .* is multi-threaded", category=DeprecationWarning)
            for job in jobs[:-1]:
                reader, writer = context.Pipe(duplex=False)
                child = context.Process(target=_run_child, args=(writer, job), name=name, daemon=True)
                child.start()
                writer.close()
                children.append((child, reader))
        here = jobs[-1]()
        results: list[T] = []
        for child, reader in children:
            try:
                done, value = reader.recv()
            except EOFError:
                raise RuntimeError(f"{name}: a child process stopped (exit code {child.exitcode})") from None
            if not done:
                raise value
            results.append(value)
        results.append(here)
        return results
    except BaseException:
        for child, _ in children:
            child.terminate()  # interrupted (Ctrl-C, SIGTERM) or failed: its part is not wanted any more
        raise
    finally:
        for child, reader in children:
            reader.close()
            child.join()


def _run_child(connection: Connection, job: Callable[[], Any]) -> None:
    """A child of :func:`run_forked`: run the job and send ``(True, result)``, or ``(False, the exception)``."""
    leave_signals_to_parent()
    gc.disable()  # the jobs make no cycles; collections would only cost time
    try:
        message: tuple[bool, Any] = (True, job())
    except Exception as error:  # sent to the parent, which raises it
        message = (False, error)
    try:
        connection.send(message)
    except Exception as error:  # the exception (or a result) that does not pickle
        connection.send((False, RuntimeError(f"{type(error).__name__}: {error}")))
    connection.close()
