"""Progress bars for long runs, on by default: the library's ``progress(stage, done, total)`` callbacks drawn as
tqdm bars on standard error, each with its rate and time left (bytes or sequences while counting, languages
while parity-aware training counts them, words while counting the initial pairs, merges while merging, rounds
while Unigram's EM runs, lines while trim encodes its sample, words while continuing encodes them with the base).

A leaf: the training front ends take ``progress=True`` (bars), ``False``/``None`` (silence) or a callable of their
own, through :func:`with_progress`; the command line draws the same bars (``--no-progress`` turns them off).
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from typing import Any, TypeVar

Progress = Callable[[str, int, int], None]
"""Called as ``progress(stage, done, total)``; ``total`` is 0 when unknown."""

ProgressOption = Progress | bool | None
"""What a front end's ``progress`` takes: True (bars), False or None (nothing), or a callable."""


def callback(progress: ProgressOption) -> Progress | None:
    """The callable to report to (None for nothing); ``True`` is turned into bars by :func:`with_progress`."""
    return progress if callable(progress) else None


#: What each stage counts, and the bar's label.
_STAGES = {
    "count": ("counting", "B"),
    "sequences": ("counting", "seq"),
    "languages": ("counting languages", "lang"),
    "pairs": ("counting pairs", "word"),
    "merge": ("merging", "merge"),
    "em": ("EM rounds", "round"),
    "verify": ("verifying", "text"),
    "sample": ("encoding the sample", "line"),
    "base": ("encoding with the base", "word"),
}


class Bars:
    """tqdm bars for ``progress(stage, done, total)`` calls: one bar per stage, the last one closed when the next
    begins or on :meth:`close`.

    >>> import io, contextlib
    >>> with contextlib.redirect_stderr(io.StringIO()) as shown:
    ...     bars = Bars()
    ...     bars("merge", 3, 3)
    ...     bars.close()
    >>> "merging" in shown.getvalue() and "3/3" in shown.getvalue()
    True
    """

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.bars: dict[str, Any] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        from tqdm import tqdm

        if stage not in self.bars:
            self.close()
            label, unit = _STAGES.get(stage, (stage, "it"))
            self.bars[stage] = tqdm(
                total=total or None, unit=unit, unit_scale=unit == "B", desc=label, file=sys.stderr, dynamic_ncols=True
            )
        bar = self.bars[stage]
        if total and bar.total != total:  # an estimate (Unigram's rounds) corrected at the end
            bar.total = total
        bar.update(done - bar.n)

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()
        self.bars.clear()


class StageCallback:
    """A trainer's ``progress(done, total)`` for one stage of ``report``'s, which also passes on the trainer's
    earlier stages (the initial pair count) through :meth:`stage`.

    >>> calls = []
    >>> merges = StageCallback(lambda *call: calls.append(call), "merge")
    >>> merges.stage("pairs", 5, 10); merges(1, 3)
    >>> calls
    [('pairs', 5, 10), ('merge', 1, 3)]
    """

    def __init__(self, report: Progress, stage: str) -> None:
        self.report = report
        self.name = stage

    def __call__(self, done: int, total: int) -> None:
        self.report(self.name, done, total)

    def stage(self, name: str, done: int, total: int) -> None:
        self.report(name, done, total)


Function = TypeVar("Function", bound=Callable[..., Any])


def with_progress(function: Function) -> Function:
    """Let ``function``'s ``progress`` argument be ``True`` (tqdm bars, closed when it returns), ``False`` or
    ``None`` (nothing shown) or a callable (called as it is). Bars made by an outer call are passed on as they are,
    so nested front ends draw one set.

    >>> @with_progress
    ... def work(*, progress=True):
    ...     return progress
    >>> isinstance(work(), Bars), work(progress=False), work(progress=print) is print
    (True, None, True)
    """
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        chosen = bound.arguments["progress"]
        if chosen is True:
            bars = Bars()
            bound.arguments["progress"] = bars
            try:
                return function(*bound.args, **bound.kwargs)
            finally:
                bars.close()
        if chosen is False:
            bound.arguments["progress"] = None
        return function(*bound.args, **bound.kwargs)

    return wrapper  # type: ignore[return-value]
