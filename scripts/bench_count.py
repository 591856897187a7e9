"""Benchmark pre-token counting: one process vs the process pool vs datatrove's local executor.

Usage: ``python scripts/bench_count.py CORPUS... [--repeat N] [--workers 2]``

The corpus files are concatenated ``--repeat`` times into one temporary file (to reach a few hundred MB from a
Debian-package corpus, see ``scripts/build_corpora.py``). Each variant runs in a fresh process; the script
prints wall time, throughput, peak resident memory (the process itself and its largest child), the speed-up
over one process and the speed-up per worker, and checks that all variants counted the same pre-tokens.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VARIANT = r"""
import json, resource, sys, time
from hf_bpe.counting.counts_dir import iter_counts
from hf_bpe.counting.counting import count_files
kind, path, workers, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
start = time.perf_counter()
if kind == "datatrove":
    from loguru import logger
    logger.remove()
    from hf_bpe.counting.datatrove import count_with_datatrove
    count_with_datatrove([path], out, tasks=max(workers * 4, 1), workers=workers)
    counts = dict(iter_counts(out))
else:
    counts = count_files([path], workers=workers).counts
seconds = time.perf_counter() - start
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"seconds": seconds, "own_kb": own, "child_kb": child,
                  "distinct": len(counts), "total": sum(counts.values())}))
"""


def run_variant(kind: str, corpus: Path, workers: int, scratch: Path) -> dict[str, float]:
    out = scratch / f"counts-{kind}-{workers}"
    shutil.rmtree(out, ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-c", VARIANT, kind, str(corpus), str(workers), str(out)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=1, help="concatenate the corpus this many times")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="hf-bpe-bench-count-") as name:
        scratch = Path(name)
        corpus = scratch / "corpus.txt"
        with corpus.open("wb") as out:
            for _ in range(args.repeat):
                for path in args.corpus:
                    data = path.read_bytes()
                    out.write(data if data.endswith(b"\n") else data + b"\n")
        megabytes = corpus.stat().st_size / 1e6
        print(f"corpus: {megabytes:.1f} MB ({len(args.corpus)} file(s) x{args.repeat})")
        variants = [("single", 1), ("pool", args.workers), ("datatrove", args.workers)]
        results = {}
        for kind, workers in variants:
            started = time.perf_counter()
            results[kind] = run_variant(kind, corpus, workers, scratch)
            results[kind]["wall"] = time.perf_counter() - started
        base = results["single"]["seconds"]
        print(
            f"{'variant':<10} {'workers':>7} {'seconds':>8} {'MB/s':>7} {'peak MB':>8} {'child MB':>8} "
            f"{'speed-up':>8} {'per worker':>10}"
        )
        for kind, workers in variants:
            r = results[kind]
            print(
                f"{kind:<10} {workers:>7} {r['seconds']:>8.2f} {megabytes / r['seconds']:>7.2f} "
                f"{r['own_kb'] / 1024:>8.0f} {r['child_kb'] / 1024:>8.0f} {base / r['seconds']:>8.2f} "
                f"{base / r['seconds'] / workers:>10.2f}"
            )
        same = len({(r["distinct"], r["total"]) for r in results.values()}) == 1
        print(f"all variants counted the same pre-tokens: {'yes' if same else 'NO'}")
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
