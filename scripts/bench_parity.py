"""Benchmark ``hf_bpe.train_parity_aware`` against ``tokenizers``' ``ParityBpeTrainer`` on the same per-language texts.

    python scripts/bench_parity.py                                   # the Debian corpora, 900 KB each, dev sets
    python scripts/bench_parity.py --train-bytes 400000 --num-merges 8000 --balance ratio --variant window
    python scripts/bench_parity.py ~/corpora/en.txt ~/corpora/hi.txt --train-bytes 5000000

Each language is a text file (default: ``scripts/build_corpora.py``'s cache, ``~/.cache/hf_bpe/corpora/*.txt``);
its first ``--train-bytes`` are the training text and ``--dev-bytes`` from ``--dev-start`` the dev set (whole lines;
``--dev-start`` defaults to the end of the training text), streamed to both sides line by line as they take them (as
a user's files are; no list of every line in memory, which would weigh on both peaks alike). Each side runs in a
fresh Python process, one after the other, ``--repeat`` times (alternating); the script prints each side's best and
median wall time (the whole process: start, reading the files, training, writing the result), its peak RSS
(``os.wait4``'s ``ru_maxrss``) and the ratios hf_bpe / tokenizers, and exits with 1 if the vocabularies or merges
differ.

hf_bpe counts with ``--workers`` processes (default 1, so that one process's peak is all of its memory, as the
reference's threads are all in its one process).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from measured import print_sides, run_measured

# Both sides read the same slices of the same files (whole lines) and write {"vocab": ..., "merges": [[a, b]]}.
COMMON = """
import json, sys
spec = json.loads(sys.argv[1])
def lines(path, start, size):
    # The whole lines of bytes start..start+size (from start on, after the first line end), read as they are
    # taken: a user's files streamed, not a list of them all in memory.
    with open(path, "rb") as f:
        f.seek(start)
        if start:
            f.readline()
        for line in iter(f.readline, b""):
            if not line.endswith(b"\\n") or f.tell() > start + size:
                return
            yield line.decode("utf-8")
names = list(spec["files"])
train = {n: lines(spec["files"][n], 0, spec["train_bytes"]) for n in names}
dev = {n: lines(spec["files"][n], spec["dev_start"], spec["dev_bytes"]) for n in names} if spec["dev"] else None
ratio = spec["ratio"]
"""

REFERENCE = (
    COMMON
    + """
from tokenizers import Tokenizer, pre_tokenizers
from tokenizers.models import BPE
from tokenizers.trainers import ParityBpeTrainer
tokenizer = Tokenizer(BPE())
tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
trainer = ParityBpeTrainer(
    num_merges=spec["num_merges"], variant=spec["variant"], min_frequency=spec["min_frequency"], show_progress=False,
    initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
)
trainer.train_from_iterator(
    tokenizer,
    train_iterators=[iter(train[n]) for n in names],
    dev_iterators=None if dev is None else [iter(dev[n]) for n in names],
    ratio=None if ratio is None else [ratio[n] for n in names],
)
model = json.loads(tokenizer.to_str())["model"]
out = {"vocab": tokenizer.get_vocab(), "merges": [list(m) for m in model["merges"]]}
json.dump(out, open(spec["out"], "w", encoding="utf-8"))
"""
)

OURS = (
    COMMON
    + """
from hf_bpe import train_parity_aware
result = train_parity_aware(
    train, dev=dev, ratio=ratio, num_merges=spec["num_merges"], variant=spec["variant"],
    min_frequency=spec["min_frequency"], workers=spec["workers"], progress=False,
)
out = {"vocab": result.vocab, "merges": [list(m) for m in result.merges]}
json.dump(out, open(spec["out"], "w", encoding="utf-8"))
"""
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="one text file per language (default: the corpora cache)")
    parser.add_argument("--train-bytes", type=int, default=900_000, help="training bytes per language")
    parser.add_argument("--dev-bytes", type=int, default=100_000, help="dev bytes per language")
    parser.add_argument("--dev-start", type=int, help="where the dev set starts (default: after the training text)")
    parser.add_argument("--balance", choices=("dev", "ratio", "none"), default="dev")
    parser.add_argument("--variant", choices=("base", "window"), default="base")
    parser.add_argument("--num-merges", type=int, default=4000)
    parser.add_argument("--min-frequency", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="hf_bpe's counting processes")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    cache = Path(os.environ.get("HF_BPE_CACHE") or Path.home() / ".cache" / "hf_bpe") / "corpora"
    files = args.files or sorted(cache.glob("*.txt"))
    if not files:
        parser.error(f"no text files given and none in {cache} (scripts/build_corpora.py builds them)")
    names = {path.stem: str(path) for path in files}
    ratio = {name: 1.0 + index / 2 for index, name in enumerate(names)} if args.balance == "ratio" else None
    times: dict[str, list[float]] = {"tokenizers": [], "hf_bpe": []}
    peaks: dict[str, list[int]] = {"tokenizers": [], "hf_bpe": []}
    with tempfile.TemporaryDirectory() as tmp:
        spec = {
            "files": names, "train_bytes": args.train_bytes, "dev_bytes": args.dev_bytes,
            "dev_start": args.train_bytes if args.dev_start is None else args.dev_start,
            "dev": args.balance == "dev", "ratio": ratio, "num_merges": args.num_merges, "variant": args.variant,
            "min_frequency": args.min_frequency, "workers": args.workers,
        }  # fmt: skip
        outputs = {}
        for _ in range(args.repeat):
            for side, program in (("tokenizers", REFERENCE), ("hf_bpe", OURS)):
                out = Path(tmp) / f"{side}.json"
                seconds, peak = run_measured([sys.executable, "-c", program, json.dumps({**spec, "out": str(out)})])
                times[side].append(seconds)
                peaks[side].append(peak)
                outputs[side] = json.loads(out.read_text(encoding="utf-8"))
            if outputs["tokenizers"] != outputs["hf_bpe"]:
                print("DIFFERENT: hf_bpe's vocabulary or merges are not ParityBpeTrainer's", file=sys.stderr)
                return 1
    print(f"{len(names)} languages ({', '.join(names)}), {args.train_bytes:,} training bytes each, "
          f"balance {args.balance}, variant {args.variant}, {args.num_merges} merges: outputs identical")  # fmt: skip
    print_sides(times, peaks, "tokenizers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
