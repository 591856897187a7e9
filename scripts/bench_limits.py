"""Measure the bounds that tests must not time: peak memory of encoding a big document, and how soon training
stops after Ctrl-C / SIGTERM.

Usage: ``python scripts/bench_limits.py [--megabytes 100] [--skip-memory] [--skip-signal]``

* Memory: one document of ``--megabytes`` (this interpreter's standard-library sources repeated) encoded by
  ``BPETokenizer`` with GPT-2's vocabulary in a fresh process; its peak RSS against the bound the suite used
  to assert, 4 bytes per byte of text plus 60 per token (the text, its UTF-8 copy and a list of ids dominate).
* Signal: ``hf-bpe train`` on about 8 MB of random words, interrupted after 3 s with SIGINT and with SIGTERM;
  the seconds from the signal to the exit against a bound of 20 s.

Prints each figure with its bound and exits 1 when one is over. Correctness (same ids as tiktoken, nothing
half-written after a signal) is tested in tests/test_reliability.py.
"""

from __future__ import annotations

import argparse
import random
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

SIGNAL_BOUND_SECONDS = 20.0


def memory(megabytes: float, scratch: Path) -> bool:
    from hf_bpe.reference.gpt2 import gpt2_files

    sources = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:40]
    block = "".join(path.read_text(encoding="utf-8") for path in sources)
    document = scratch / "big.txt"
    document.write_text(block * (int(megabytes * 1e6) // len(block.encode()) + 1), encoding="utf-8")
    code = f"""
import resource
from hf_bpe import BPETokenizer
text = open({str(document)!r}, encoding="utf-8").read()
ids = BPETokenizer.from_pretrained({str(gpt2_files())!r})(text)["input_ids"]
print(len(text.encode()), len(ids), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    size, tokens, peak = map(int, done.stdout.split())
    bound = 4 * size + 60 * tokens
    print(f"memory: {size / 1e6:.0f} MB, {tokens:,} tokens: peak RSS {peak / 1e9:.2f} GB, bound {bound / 1e9:.2f} GB")
    return peak < bound


def stop_after_signal(scratch: Path) -> bool:
    corpus = scratch / "words.txt"
    rng = random.Random(11)
    letters = "abcdefghijklmnopqrstuvwxyzéüßабвгд"
    lines = (" ".join("".join(rng.choices(letters, k=rng.randint(2, 12))) for _ in range(12)) for _ in range(100_000))
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    fine = True
    for sig in (signal.SIGINT, signal.SIGTERM):
        out = str(scratch / "out")
        command = [sys.executable, "-m", "hf_bpe.cli", "train", str(corpus), "-o", out, "--workers", "2"]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(3)
        if process.poll() is not None:
            print(f"signal: training ended before {sig.name}; nothing measured")
            fine = False
            continue
        sent = time.monotonic()
        process.send_signal(sig)
        process.wait(timeout=300)
        took = time.monotonic() - sent
        status = process.returncode
        print(f"signal: {sig.name} to exit {took:.1f} s (exit status {status}), bound {SIGNAL_BOUND_SECONDS} s")
        fine = fine and took < SIGNAL_BOUND_SECONDS
    return fine


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=100.0)
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--skip-signal", action="store_true")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="hf-bpe-limits-") as scratch:
        if not args.skip_memory:
            results.append(memory(args.megabytes, Path(scratch)))
        if not args.skip_signal:
            results.append(stop_after_signal(Path(scratch)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
