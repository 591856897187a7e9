"""Benchmark ``hf-bpe train --model sentencepiece-bpe|sentencepiece-unigram`` against ``spm_train`` on the same text.

    python scripts/bench_sentencepiece.py --size-mb 20                       # the Debian corpora, BPE
    python scripts/bench_sentencepiece.py --size-mb 50 --model-type unigram --vocab-size 16000
    python scripts/bench_sentencepiece.py big1.txt big2.txt --size-mb 0 --spm character_coverage=0.9995
    python scripts/bench_sentencepiece.py ~/.cache/hf_bpe/corpora/*.txt .venv/lib --pattern '*.py' --size-mb 100

The corpus is the given text files (a directory: its files matching ``--pattern``, recursively, in path order;
default: ``scripts/build_corpora.py``'s cache, ``~/.cache/hf_bpe/corpora/*.txt``)
concatenated in order, repeated where they hold less than ``--size-mb`` MB (10^6 bytes; 0: the files once) and cut
at the last line end. A repeated corpus flatters hf_bpe, which keeps each distinct word once, while ``spm_train``
keeps every sentence: the script says how much of the corpus is distinct text, and real distinct text
(``scripts/build_corpora.py --size-mb``, or any big text files) is the fair test.

Each side runs in a fresh Python process, one after the other, ``--repeat`` times (alternating): the reference is
``sentencepiece.SentencePieceTrainer.train`` (``spm_train``), hf_bpe is its command line ``hf-bpe train FILE -o DIR
--model sentencepiece-...``. The script prints each side's best and median wall time (the whole process: start,
reading, training, writing), its peak RSS (``os.wait4``'s ``ru_maxrss``) and the ratios hf_bpe / spm_train, and
exits with 1 if the two ``.model`` files differ in any piece, score or type, or in the normalizer spec.

Unigram's result depends on the number of threads (its E-step sums in another order); unless ``--spm
num_threads=N`` is given, both sides get ``num_threads=1`` for a Unigram run so that the models can be compared.
BPE runs keep sentencepiece's default (16 threads, which its BPE trainer does not use for its merges).

hf_bpe counts a BPE corpus in ``--workers`` processes (default 1). ``os.wait4`` reports the peak of the largest one
process, not the sum of processes running at once, so only with one worker is hf_bpe's figure all of its memory (as
the reference's threads are all in its one process); with more, the script says so beside the figure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from measured import print_sides, run_measured

MB = 1_000_000

REFERENCE = """
import json, sys
import sentencepiece
spec = json.loads(sys.argv[1])
sentencepiece.SentencePieceTrainer.train(
    input=spec["corpus"], model_prefix=spec["prefix"], model_type=spec["model_type"], vocab_size=spec["vocab_size"],
    minloglevel=2, **spec["options"]
)
"""


def build_corpus(files: list[Path], size: int, target: Path) -> tuple[int, int]:
    """Write ``files`` concatenated (repeated up to ``size`` bytes, cut at a line end) to ``target``.

    Returns:
        The corpus's size and how many of its bytes are distinct text (the files' bytes written once).
    """
    distinct = sum(path.stat().st_size for path in files)
    if distinct == 0:
        raise SystemExit("the corpus files are empty")
    size = size or distinct
    written = 0
    with target.open("wb") as out:
        while written < size:
            for path in files:
                data = path.read_bytes()
                if data and not data.endswith(b"\n"):
                    data += b"\n"
                if written + len(data) > size:
                    cut = data.rfind(b"\n", 0, size - written) + 1
                    data = data[:cut]
                    out.write(data)
                    written += len(data)
                    return written, min(distinct, written)
                out.write(data)
                written += len(data)
    return written, min(distinct, written)


def model_fields(path: Path) -> tuple[list[tuple[str, float, int]], dict[str, object]]:
    """A ``.model``'s pieces (piece, score, type) and its normalizer spec's fields (defaults included: which ones
    a writer sets explicitly is no difference)."""
    from sentencepiece import sentencepiece_model_pb2

    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(path.read_bytes())
    normalizer = {
        field.name: getattr(proto.normalizer_spec, field.name) for field in proto.normalizer_spec.DESCRIPTOR.fields
    }
    return [(p.piece, p.score, p.type) for p in proto.pieces], normalizer


def _compare(ours: Path, reference: Path) -> str | None:
    """Where the two models differ first, or None where they are equal."""
    mine, theirs = model_fields(ours), model_fields(reference)
    if mine[1] != theirs[1]:
        return "the normalizer specs differ"
    if len(mine[0]) != len(theirs[0]):
        return f"{len(mine[0])} pieces against spm_train's {len(theirs[0])}"
    for index, (got, want) in enumerate(zip(mine[0], theirs[0], strict=True)):
        if got != want:
            return f"piece {index}: {got} against spm_train's {want}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="text files or directories (default: the corpora cache)")
    parser.add_argument("--pattern", default="*.py", help="the files taken from a directory, recursively (*.py)")
    parser.add_argument("--size-mb", type=float, default=20.0, help="corpus size in MB (0: the files once)")
    parser.add_argument("--model-type", choices=("bpe", "unigram"), default="bpe")
    parser.add_argument("--vocab-size", type=int, default=8000)
    parser.add_argument("--spm", action="append", default=[], metavar="NAME=VALUE", help="an option for both sides")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--workers", type=int, default=1, help="hf_bpe's BPE counting processes (default 1: see the module's doc)"
    )
    args = parser.parse_args(argv)
    cache = Path(os.environ.get("HF_BPE_CACHE") or Path.home() / ".cache" / "hf_bpe") / "corpora"
    files = [
        file
        for path in args.files or []
        for file in (sorted(p for p in path.rglob(args.pattern) if p.is_file()) if path.is_dir() else [path])
    ] or sorted(cache.glob("*.txt"))
    if not files:
        parser.error(f"no text files given and none in {cache} (scripts/build_corpora.py builds them)")
    options = dict(item.split("=", 1) for item in args.spm)
    if args.model_type == "unigram":
        options.setdefault("num_threads", "1")
    hf_bpe = [str(Path(sys.executable).with_name("hf-bpe"))]
    if not Path(hf_bpe[0]).exists():
        hf_bpe = [sys.executable, "-m", "hf_bpe.cli"]
    times: dict[str, list[float]] = {"spm_train": [], "hf_bpe": []}
    peaks: dict[str, list[int]] = {"spm_train": [], "hf_bpe": []}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        corpus = tmp / "corpus.txt"
        size, distinct = build_corpus(files, int(args.size_mb * MB), corpus)
        spec = {
            "corpus": str(corpus), "prefix": str(tmp / "reference"), "model_type": args.model_type,
            "vocab_size": args.vocab_size, "options": options,
        }  # fmt: skip
        ours = [*hf_bpe, "train", str(corpus), "-o", str(tmp / "ours"), "--force"]
        ours += ["--model", f"sentencepiece-{args.model_type}", "--vocab-size", str(args.vocab_size)]
        ours += ["--workers", str(args.workers)]
        ours += [f"--spm={name}={value}" for name, value in options.items()]
        for _ in range(args.repeat):
            for side, command in (("spm_train", [sys.executable, "-c", REFERENCE, json.dumps(spec)]), ("hf_bpe", ours)):
                seconds, peak = run_measured(command)
                times[side].append(seconds)
                peaks[side].append(peak)
            difference = _compare(tmp / "ours" / "tokenizer.model", tmp / "reference.model")
            if difference is not None:
                print(f"DIFFERENT: hf_bpe's .model is not spm_train's: {difference}", file=sys.stderr)
                return 1
    shown = ", ".join(f"{k}={v}" for k, v in options.items()) or "defaults"
    print(
        f"{args.model_type}, vocab_size {args.vocab_size} ({shown}); corpus {size / MB:.1f} MB from "
        f"{len(files)} file(s), {distinct / MB:.1f} MB of it distinct text"
        + ("" if distinct >= size else " (REPEATED: flatters hf_bpe, which keeps each distinct word once)")
        + f"; {os.cpu_count()} CPUs; hf_bpe counts in {args.workers} process(es)"
        + ("" if args.workers == 1 else " (its peak RSS is the largest one's, not their sum)")
        + "; .model files identical"
    )
    print_sides(times, peaks, "spm_train")
    return 0


if __name__ == "__main__":
    sys.exit(main())
