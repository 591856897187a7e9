"""Benchmark ``hf-bpe train`` against ``tokenizers`` on the same files, as whole processes.

    python scripts/bench_train.py cache/corpora/english.txt --vocab-size 32000

Runs the reference (a small ``python -c`` program training ``tokenizers``' BpeTrainer with the ByteLevel
pre-tokenizer) and ``hf-bpe train`` one after the other, prints wall time and peak RSS of each and the ratios
hf_bpe / tokenizers, and checks that vocab.json and merges.txt are byte-identical.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REFERENCE = """
import os, sys
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
out, vocab_size, min_frequency, *files = sys.argv[1:]
tokenizer = Tokenizer(models.BPE())
tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
trainer = trainers.BpeTrainer(
    vocab_size=int(vocab_size), min_frequency=int(min_frequency), show_progress=False,
    initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
)
tokenizer.train(files, trainer)
os.makedirs(out, exist_ok=True)
tokenizer.model.save(out)
"""


def run(command: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one child process (its own workers not included)."""
    start = time.perf_counter()
    if shutil.which("time") or Path("/usr/bin/time").exists():
        with tempfile.NamedTemporaryFile("r") as report:
            subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name, *command], check=True,
                           stdout=subprocess.DEVNULL)  # fmt: skip
            elapsed = time.perf_counter() - start
            return elapsed, int(report.read().split()[-1])
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    return elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="+", type=Path)
    parser.add_argument("--vocab-size", type=int, default=32000)
    parser.add_argument("--min-frequency", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    files = [str(p) for p in args.corpus]
    size = sum(p.stat().st_size for p in args.corpus)
    with tempfile.TemporaryDirectory() as directory:
        ours_dir, reference_dir = Path(directory, "hf_bpe"), Path(directory, "tokenizers")
        ours_command = [sys.executable, "-m", "hf_bpe.cli", "train", *files, "--output", str(ours_dir),
                        "--vocab-size", str(args.vocab_size), "--min-frequency", str(args.min_frequency),
                        "--no-progress"]  # fmt: skip
        if args.workers:
            ours_command += ["--workers", str(args.workers)]
        reference_command = [sys.executable, "-c", REFERENCE, str(reference_dir), str(args.vocab_size),
                             str(args.min_frequency), *files]  # fmt: skip
        # The reference first: its peak RSS is then measured alone.
        reference_time, reference_rss = run(reference_command)
        ours_time, ours_rss = run(ours_command)
        identical = all(
            (ours_dir / name).read_bytes() == (reference_dir / name).read_bytes()
            for name in ("vocab.json", "merges.txt")
        )
    print(f"corpus: {', '.join(files)} ({size / 1e6:.1f} MB), vocab size {args.vocab_size}")
    print(f"tokenizers: {reference_time:7.2f} s  {reference_rss / 1024:7.0f} MiB peak RSS")
    print(f"hf_bpe:     {ours_time:7.2f} s  {ours_rss / 1024:7.0f} MiB peak RSS")
    print(f"ratio hf_bpe/tokenizers: time {ours_time / reference_time:.2f}x, RSS {ours_rss / reference_rss:.2f}x")
    print("outputs: IDENTICAL" if identical else "outputs: DIFFERENT")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
