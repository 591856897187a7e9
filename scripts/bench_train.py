"""Benchmark ``hf-bpe train`` against ``tokenizers`` on the same files, as whole processes.

    python scripts/bench_train.py cache/corpora/english.txt --vocab-size 32000
    python scripts/bench_train.py cache/corpora/japanese.txt --pattern o200k
    python scripts/bench_train.py cache/corpora/japanese.txt --model unigram --vocab-size 8000
    python scripts/build_corpora.py japanese   # 3 MB of Japanese, from Debian packages
    python scripts/bench_train.py cache/corpora/japanese.txt --continue-from llama3_1 --new-tokens 4000

Runs the reference (a small ``python -c`` program training ``tokenizers``' BpeTrainer with the pre-tokenizer and
normalizer ``tokenizer.json`` holds for ``--pattern``: GPT-2's ByteLevel by default) and ``hf-bpe train`` one
after the other, ``--repeat`` times (alternating, so that a slow spell of the machine hits both), prints the best
and the median wall time and the peak RSS of each and the ratios hf_bpe / tokenizers, and checks that vocab.json
and merges.txt are byte-identical every time. With ``--model unigram`` the reference is ``UnigramTrainer`` behind
``SentencePieceUnigramTokenizer``'s recipe, and the check is that both have the same set of pieces (the
reference's scores and piece order move a little between its own runs).

With ``--continue-from`` (a tokenizer directory or ``tokenizer.json``, or the name of a real model's file as
``tests/real_tokenizers.py`` fetches it: ``llama3_1``, ``qwen3``, ``deepseek_v3``, ``gptoss``, ``mistral_nemo``) it
times ``hf-bpe train --continue-from`` alone, ``--new-tokens`` past the base's vocabulary: no other tool continues
a tokenizer, so there is no reference to run or compare with; it prints hf_bpe's times and peak RSS, and checks
that the output keeps the base's merges.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REFERENCE = """
import os, sys
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
out, vocab_size, min_frequency, config, *files = sys.argv[1:]
tokenizer = Tokenizer.from_str(config)
trainer = trainers.BpeTrainer(
    vocab_size=int(vocab_size), min_frequency=int(min_frequency), show_progress=False,
    initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
)
tokenizer.train(files, trainer)
os.makedirs(out, exist_ok=True)
tokenizer.model.save(out)
"""

REFERENCE_UNIGRAM = """
import os, sys
from tokenizers import Regex, Tokenizer, normalizers, pre_tokenizers, trainers
from tokenizers.models import Unigram
out, vocab_size, *files = sys.argv[1:]
tokenizer = Tokenizer(Unigram())
tokenizer.normalizer = normalizers.Sequence(
    [normalizers.Nmt(), normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")]
)
tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\\u2581", prepend_scheme="always")
trainer = trainers.UnigramTrainer(vocab_size=int(vocab_size), unk_token="<unk>", show_progress=False)
tokenizer.train(files, trainer)
os.makedirs(out, exist_ok=True)
tokenizer.save(os.path.join(out, "tokenizer.json"))
"""


def same_unigram_pieces(ours: Path, reference: Path) -> bool:
    """Both tokenizer.json files hold the same set of Unigram pieces."""
    import json

    def pieces(directory: Path) -> set[str]:
        return {piece for piece, _ in json.loads((directory / "tokenizer.json").read_text("utf-8"))["model"]["vocab"]}

    return pieces(ours) == pieces(reference)


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


def continued_base(name: str) -> Path:
    """A directory or tokenizer.json as given, else the real model file ``name`` (fetched and cached by the tests'
    helper, ``tests/real_tokenizers.py``)."""
    if Path(name).exists():
        return Path(name)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from real_tokenizers import PACKAGES, model_tokenizer_json

    if name not in PACKAGES:
        raise SystemExit(f"--continue-from {name}: no such path, and not one of {', '.join(PACKAGES)}")
    return model_tokenizer_json(name)


def bench_continuing(args: argparse.Namespace, files: list[str], size: int) -> int:
    """Time ``hf-bpe train --continue-from`` (no reference: nothing else continues a tokenizer)."""
    import json

    base = continued_base(args.continue_from)
    data = json.loads((base if base.is_file() else base / "tokenizer.json").read_text("utf-8"))
    used = {*data["model"]["vocab"].values(), *(entry["id"] for entry in data.get("added_tokens") or [])}
    vocab_size = max(used) + 1 + args.new_tokens
    times, peaks, kept = [], [], True
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory, "continued")
        command = [sys.executable, "-m", "hf_bpe.cli", "train", *files, "--continue-from", str(base),
                   "--vocab-size", str(vocab_size), "--output", str(out), "--no-progress", "--force"]  # fmt: skip
        if args.workers:
            command += ["--workers", str(args.workers)]
        for _ in range(args.repeat):
            elapsed, peak = run(command)
            times.append(elapsed)
            peaks.append(peak)
            merges = json.loads((out / "tokenizer.json").read_text("utf-8"))["model"]["merges"]
            kept = kept and merges[: len(data["model"]["merges"])] == data["model"]["merges"]
    print(f"corpus: {', '.join(files)} ({size / 1e6:.1f} MB); continuing {args.continue_from} "
          f"({max(used) + 1} ids) to {vocab_size} ({args.new_tokens} new), {args.repeat} runs")  # fmt: skip
    print(f"{'hf_bpe:':11} best {min(times):6.2f} s  median {statistics.median(times):6.2f} s  "
          f"{max(peaks) / 1024:5.0f} MiB peak RSS (no reference continues a tokenizer)")  # fmt: skip
    print("base merges: KEPT" if kept else "base merges: CHANGED")
    return 0 if kept else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="+", type=Path)
    parser.add_argument("--vocab-size", type=int, default=32000)
    parser.add_argument("--min-frequency", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side (default 3)")
    parser.add_argument("--pattern", default="gpt2", help="a preset or a regex (default gpt2)")
    parser.add_argument("--model", choices=("bpe", "unigram"), default="bpe")
    parser.add_argument("--continue-from", help="time continuing this tokenizer (a path, or a real model's name)")
    parser.add_argument("--new-tokens", type=int, default=4000, help="with --continue-from (default 4000)")
    args = parser.parse_args()
    if args.continue_from:
        return bench_continuing(args, [str(p) for p in args.corpus], sum(p.stat().st_size for p in args.corpus))
    from tokenizers import Tokenizer, models

    from hf_bpe.pipeline.pre_tokenizers import PRESETS, PreTokenizer
    from hf_bpe.reference.trainers import reference_cut

    pre_tokenizer = PreTokenizer.from_pattern(args.pattern)
    empty = Tokenizer(models.BPE())
    normalizer, empty.pre_tokenizer = reference_cut(pre_tokenizer)
    if normalizer is not None:
        empty.normalizer = normalizer
    files = [str(p) for p in args.corpus]
    size = sum(p.stat().st_size for p in args.corpus)
    times: dict[str, list[float]] = {"tokenizers": [], "hf_bpe": []}
    peaks: dict[str, list[int]] = {"tokenizers": [], "hf_bpe": []}
    identical = True
    with tempfile.TemporaryDirectory() as directory:
        ours_dir, reference_dir = Path(directory, "hf_bpe"), Path(directory, "tokenizers")
        # --force: each repeat writes over the last run's output.
        ours_command = [sys.executable, "-m", "hf_bpe.cli", "train", *files, "--output", str(ours_dir),
                        "--vocab-size", str(args.vocab_size), "--min-frequency", str(args.min_frequency),
                        "--pattern" if args.pattern in PRESETS else "--regex", args.pattern,
                        "--no-progress", "--force"]  # fmt: skip
        if args.workers:
            ours_command += ["--workers", str(args.workers)]
        reference_command = [sys.executable, "-c", REFERENCE, str(reference_dir), str(args.vocab_size),
                             str(args.min_frequency), empty.to_str(), *files]  # fmt: skip
        if args.model == "unigram":
            ours_command = [sys.executable, "-m", "hf_bpe.cli", "train", *files, "--output", str(ours_dir),
                            "--model", "unigram", "--unk-token", "<unk>", "--vocab-size", str(args.vocab_size),
                            "--no-progress", "--force"]  # fmt: skip
            reference_command = [sys.executable, "-c", REFERENCE_UNIGRAM, str(reference_dir), str(args.vocab_size),
                                 *files]  # fmt: skip
        for _ in range(args.repeat):
            # The reference first: its peak RSS is then measured alone.
            for name, command in (("tokenizers", reference_command), ("hf_bpe", ours_command)):
                elapsed, peak = run(command)
                times[name].append(elapsed)
                peaks[name].append(peak)
            if args.model == "unigram":
                identical = identical and same_unigram_pieces(ours_dir, reference_dir)
            else:
                identical = identical and all(
                    (ours_dir / name).read_bytes() == (reference_dir / name).read_bytes()
                    for name in ("vocab.json", "merges.txt")
                )
    print(f"corpus: {', '.join(files)} ({size / 1e6:.1f} MB), vocab size {args.vocab_size}, pattern {args.pattern}, "
          f"{args.repeat} runs each")  # fmt: skip
    for name in times:
        print(f"{name + ':':11} best {min(times[name]):6.2f} s  median {statistics.median(times[name]):6.2f} s  "
              f"{max(peaks[name]) / 1024:5.0f} MiB peak RSS")  # fmt: skip
    best = min(times["hf_bpe"]) / min(times["tokenizers"])
    median = statistics.median(times["hf_bpe"]) / statistics.median(times["tokenizers"])
    rss = max(peaks["hf_bpe"]) / max(peaks["tokenizers"])
    print(f"ratio hf_bpe/tokenizers: time {best:.2f}x (best), {median:.2f}x (median); RSS {rss:.2f}x")
    same = "IDENTICAL" if args.model == "bpe" else "SAME PIECE SET"
    print(f"outputs: {same}" if identical else "outputs: DIFFERENT")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
