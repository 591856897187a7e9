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
import pickle
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn, TypeVar

T = TypeVar("T")

#: The signals a worker process leaves to its parent, blocked while it is started (see :func:`signals_blocked`).
PARENT_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})

#: The values of ``TOKENIZERS_PARALLELISM`` that turn parallelism off, in ``tokenizers`` as here
#: (``tokenizers::utils::parallelism::get_parallelism``, compared in lower case).
_OFF = frozenset({"", "off", "false", "f", "no", "n", "0"})


@contextlib.contextmanager
def signals_blocked(signals: frozenset[int] = PARENT_SIGNALS) -> Iterator[None]:
    """Block SIGINT and SIGTERM (or ``signals``) while processes and threads are started (main thread only;
    elsewhere a no-op).

    A forked child then cannot receive one before it has set its own handlers (it would run the parent's
    handler, with a traceback); it unblocks them itself (:func:`leave_signals_to_parent`). Threads started here
    keep them blocked, so the signals reach this thread and are handled at once. A signal that came meanwhile is
    delivered when the block ends.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
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
    if not hasattr(os, "fork"):
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
    Ctrl-C, so it is reported once, here. No child outlives the call.

    A child runs its job, writes its result and ends at once (``os._exit``): it flushes no stream, runs no exit
    handler and waits for no thread. So it touches no lock another thread of this process might have held when
    it was forked (a thread writing to ``sys.stdout`` holds that stream's lock; ``multiprocessing``'s processes
    flush the streams as they end, and would wait for ever): forking a process that has threads (a server's, the
    Rust tokenizers' pool) is safe here, whatever Python 3.12's warning says.

    >>> run_forked([lambda: sum(range(10)), lambda: "here"], "doctest")
    [45, 'here']
    """
    if not jobs:
        return []
    children: list[tuple[int, int]] = []  # (pid, the read end of its pipe)
    try:
        with signals_blocked(), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r"This process .* is multi-threaded", category=DeprecationWarning)
            for job in jobs[:-1]:
                reader, writer = os.pipe()
                pid = os.fork()
                if pid == 0:  # the child
                    os.close(reader)
                    _run_child(writer, job)  # never returns
                os.close(writer)
                children.append((pid, reader))
        here = jobs[-1]()
        results: list[T] = []
        for index, (pid, reader) in enumerate(children):
            with open(reader, "rb") as stream:
                children[index] = (pid, -1)  # its pipe is closed with the stream
                try:
                    done, value = pickle.load(stream)
                except (EOFError, pickle.UnpicklingError):  # it died without a word, or in the middle of one
                    done, value = False, None
            status = os.waitpid(pid, 0)[1]
            children[index] = (-1, -1)
            if not done:
                if value is None:
                    code = os.waitstatus_to_exitcode(status)
                    raise RuntimeError(f"{name}: a child process stopped (exit code {code})")
                raise value
            results.append(value)
        results.append(here)
        return results
    except BaseException:
        # Interrupted (Ctrl-C, SIGTERM) or failed: the other children's parts are not wanted any more.
        for pid, reader in children:
            if pid > 0:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGTERM)
            if reader >= 0:
                os.close(reader)
        for pid, _ in children:
            if pid > 0:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
        raise


def _run_child(writer: int, job: Callable[[], Any]) -> NoReturn:
    """A forked child of :func:`run_forked`: run the job, write ``(True, result)`` or ``(False, the exception)``
    to the pipe, and end at once."""
    code = 0
    try:
        leave_signals_to_parent()
        gc.disable()  # the jobs make no cycles; collections would only cost time
        try:
            message: tuple[bool, Any] = (True, job())
        except Exception as error:  # sent to the parent, which raises it
            message = (False, error)
        try:
            data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as error:  # the exception (or a result) that does not pickle
            data = pickle.dumps((False, RuntimeError(f"{type(error).__name__}: {error}")))
        with open(writer, "wb") as stream:
            stream.write(data)
    except BaseException:
        code = 1
    finally:
        os._exit(code)
