"""What the side-by-side training benchmarks share (``bench_parity.py``, ``bench_sentencepiece.py``): one side run
in a fresh process, its wall time and peak RSS taken by ``os.wait4``, and the lines that print each side's figures
and hf_bpe's ratios to the reference. Imported by those scripts from this folder; not a benchmark of its own."""

from __future__ import annotations

import os
import statistics
import subprocess
import time


def run_measured(command: list[str]) -> tuple[float, int]:
    """Run ``command`` in a fresh process (its output discarded); its wall time (s) and peak RSS (bytes).

    Raises:
        SystemExit: naming the command, if it fails.
    """
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code:
        raise SystemExit(f"a benchmark process failed (exit {code}): {' '.join(command)[:300]}")
    return seconds, usage.ru_maxrss * 1024  # Linux: kilobytes


def print_sides(times: dict[str, list[float]], peaks: dict[str, list[int]], reference: str) -> None:
    """Each side's best and median wall time and its peak RSS, then hf_bpe's over ``reference``'s (best time
    over best time, the highest peak over the highest)."""
    for side in times:
        print(
            f"  {side:10s} best {min(times[side]):8.2f} s  median {statistics.median(times[side]):8.2f} s  "
            f"peak RSS {max(peaks[side]) / 2**20:8.1f} MiB"
        )
    time_ratio = min(times["hf_bpe"]) / min(times[reference])
    memory_ratio = max(peaks["hf_bpe"]) / max(peaks[reference])
    print(f"  hf_bpe / {reference}: time {time_ratio:.2f}x (best), peak RSS {memory_ratio:.2f}x")
