"""Benchmark BPE training at scale against ``tokenizers``, both in the same run: real text, synthetic text, and
synthetic counts directories for the merge phase alone.

    python scripts/bench_scale.py                                   # small: kernel 0.1 GB, synthetic D = 1M
    python scripts/bench_scale.py --kernel-gb 0.1 0.3 1.2 --patterns gpt2 o200k
    python scripts/bench_scale.py --kernel-gb --corpora english japanese --corpus-mb 100
    python scripts/bench_scale.py --kernel-gb --synthetic 1M 5M 20M --synthetic-counts 50M 100M

Inputs (built once into ``--cache``, default ``cache/scale/``):

* ``kernel``: Debian's ``linux-source-6.1`` (``apt-get install linux-source-6.1`` puts the tarball under
  ``/usr/src``), extracted once; its ``.c``/``.h``/``.rst``/``.txt`` files in sorted path order, concatenated and
  cut at the last line end before each size asked for (1 GB = 10**9 bytes).
* ``--corpora``: the multilingual corpora ``scripts/build_corpora.py`` builds (Debian's documentation and manual
  pages), at ``--corpus-mb`` each.
* ``--synthetic D``: a Zipf distribution of D distinct pre-tokens (word of rank r seen ``D // (4 r) + 1`` times,
  so about half are seen once) in Latin, Cyrillic, Greek, Arabic and CJK, 1 to 5 syllables, most after a space,
  written as text both trainers cut alike; the bytes of text a distinct pre-token are printed.
* ``--synthetic-counts D``: the same pre-tokens as an hf_bpe counts directory (``hf-bpe train --from-counts``),
  written bucket by bucket in bounded memory, for the merge phase alone where text would be too large.

Each training runs in its own process (``os.wait4`` gives its CPU time and peak RSS, its workers included):
``tokenizers``' BpeTrainer with the pattern's ``tokenizer.json`` pre-tokenizer, and ``hf-bpe train``; vocab.json
and merges.txt are compared. The ratios hf_bpe / tokenizers are printed. Bytes a distinct pre-token are the peak
RSS less that of the same process training on a tiny text, over D. For counts directories, besides the whole
``hf-bpe train --from-counts`` process, a process that loads the counts, then trains, gives the merge phase's own
figure (its peak less its RSS once the counts are loaded).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNEL_TARBALL = Path("/usr/src/linux-source-6.1.tar.xz")
KERNEL_SUFFIXES = (".c", ".h", ".rst", ".txt")

REFERENCE = """
import os, sys
from tokenizers import Tokenizer, pre_tokenizers, trainers
out, vocab_size, config, *files = sys.argv[1:]
tokenizer = Tokenizer.from_str(config)
trainer = trainers.BpeTrainer(vocab_size=int(vocab_size), show_progress=False,
                              initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
tokenizer.train(files, trainer)
os.makedirs(out, exist_ok=True)
tokenizer.model.save(out)
"""

#: Above this many distinct pre-tokens the merge phase is not measured alone (only the whole --from-counts run).
MERGE_PHASE_MAX = 20_000_000

# The merge phase alone: the counts loaded first (their RSS measured), then train_bpe.
MERGE_PHASE = """
import json, os, resource, sys, time
from hf_bpe.counting.counts_dir import iter_counts
from hf_bpe.models.bpe.trainer import train_bpe
directory, vocab_size = sys.argv[1], int(sys.argv[2])
counts = dict(iter_counts(directory))
loaded = int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
start, cpu = time.perf_counter(), time.process_time()
result = train_bpe(counts, vocab_size=vocab_size, workers=1)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"loaded": loaded, "peak": peak, "wall": time.perf_counter() - start,
                  "cpu": time.process_time() - cpu, "merges": len(result.merges)}))
"""


# ---------------------------------------------------------------------------------------------------------------
# Synthetic pre-tokens


def _syllables() -> dict[str, list[str]]:
    """Each script's syllables. Every Latin syllable starts with a consonant other than "n", which only ends one,
    and the others are all of one length: a word splits into its syllables one way, so different syllable strings
    are different words."""
    latin_onsets, latin_vowels = "tsrhldcmfpgwybvkxjqz", "eaoiu"
    cyrillic_onsets, cyrillic_vowels = "нтсрвлкмдпгзбчйхжшцщф", "оеаиуыяю"
    greek_onsets, greek_vowels = "τνσρλκμπδγχθ", "αεοιυηω"
    arabic = [chr(c) for c in range(0x0627, 0x064B) if chr(c).isalpha()]
    return {
        "latin": [c + v for c in latin_onsets for v in latin_vowels]
        + [c + v + "n" for c in latin_onsets[:10] for v in latin_vowels],
        "cyrillic": [c + v for c in cyrillic_onsets for v in cyrillic_vowels],
        "greek": [c + v for c in greek_onsets for v in greek_vowels],
        "arabic": [a + b for a in arabic[:20] for b in arabic[:12]],
        "cjk": [chr(0x4E00 + (i * 7919) % 20000) for i in range(3000)],  # one Han character a syllable
    }


#: (script, share of the distinct pre-tokens, syllables a word, their weights).
SCRIPTS = (
    ("latin", 0.45, (1, 2, 3, 4, 5), (0.05, 0.25, 0.35, 0.25, 0.10)),
    ("cyrillic", 0.2, (1, 2, 3, 4, 5), (0.05, 0.25, 0.35, 0.25, 0.10)),
    ("arabic", 0.1, (1, 2, 3), (0.2, 0.5, 0.3)),
    ("cjk", 0.15, (1, 2, 3, 4), (0.3, 0.4, 0.2, 0.1)),
    ("greek", 0.1, (1, 2, 3, 4), (0.1, 0.3, 0.4, 0.2)),
)


def pre_tokens(distinct: int, seed: int = 0) -> Iterator[str]:
    """``distinct`` different pre-tokens (text), in rank order: each a word of one script, 80 % after a space.

    A class (script, syllables, space or not) numbers its words 0, 1, 2...; word n is n scrambled by an odd
    multiplier modulo the class's size, spelled in base (its syllables): different numbers, different words.
    """
    table = _syllables()
    classes = [(table[s], n, space) for s, _, lengths, _ in SCRIPTS for n in lengths for space in (True, False)]
    weights = [
        share * weight * (0.8 if space else 0.2)
        for _, share, _, weights_ in SCRIPTS
        for weight in weights_
        for space in (True, False)
    ]
    capacity = [len(syllables) ** length for syllables, length, _ in classes]
    used = [0] * len(classes)
    rng = random.Random(seed)
    produced = 0
    live = list(range(len(classes)))
    while produced < distinct:
        for index in rng.choices(live, [weights[i] for i in live], k=min(4096, distinct - produced)):
            if used[index] >= capacity[index]:
                continue
            syllables, length, space = classes[index]
            number = (used[index] * 2654435761 + index * 40503) % capacity[index]
            used[index] += 1
            parts = []
            for _ in range(length):
                number, digit = divmod(number, len(syllables))
                parts.append(syllables[digit])
            produced += 1
            yield (" " if space else "") + "".join(parts)
        live = [i for i in live if used[i] < capacity[i]]
        if not live:
            raise ValueError(f"the synthetic scripts hold fewer than {distinct} distinct pre-tokens")


def zipf_count(rank: int, distinct: int) -> int:
    """The count of the pre-token of ``rank`` (from 1)."""
    return distinct // (4 * rank) + 1


def write_synthetic_text(path: Path, distinct: int) -> None:
    """The pre-tokens as text, each as often as its count: lines of a word without a space (if any) then words
    after spaces, so that GPT-2's and o200k's patterns cut exactly these words (and the line ends)."""
    with path.open("w", encoding="utf-8", newline="\n") as out:
        line: list[str] = []
        for rank, token in enumerate(pre_tokens(distinct), start=1):
            if not token.startswith(" "):
                out.write((token + "\n") * zipf_count(rank, distinct))  # each at a line start
                continue
            line += [token] * zipf_count(rank, distinct)
            if len(line) >= 16:
                out.write("".join(line) + "\n")
                line = []
        out.write("".join(line) + "\n")


def write_synthetic_counts(directory: Path, distinct: int, buckets: int = 64) -> None:
    """The pre-tokens (byte-level) and their counts as a counts directory, in memory of one bucket: lines go to
    per-bucket files unsorted, then each bucket is sorted and written as the format wants."""
    from hf_bpe.counting.counting import counting_settings
    from hf_bpe.counting.counts_dir import bucket_file_name, bucket_of, format_bucket, write_counts_manifest
    from hf_bpe.pipeline.byte_level import to_byte_level
    from hf_bpe.pipeline.pre_tokenizers import PreTokenizer

    directory.mkdir(parents=True, exist_ok=True)
    raw = [(directory / f"raw-{b:05d}.jsonl").open("w", encoding="utf-8") for b in range(buckets)]
    for rank, token in enumerate(pre_tokens(distinct), start=1):
        key = to_byte_level(token)
        raw[bucket_of(key, buckets)].write(json.dumps([key, zipf_count(rank, distinct)], ensure_ascii=False) + "\n")
    for number, stream in enumerate(raw):
        stream.close()
        path = directory / f"raw-{number:05d}.jsonl"
        with path.open(encoding="utf-8") as lines:
            part = dict(json.loads(line) for line in lines)
        (directory / bucket_file_name(number)).write_text(format_bucket(part), encoding="utf-8")
        path.unlink()
    settings = counting_settings(PreTokenizer.from_pattern("gpt2"))
    write_counts_manifest(directory, buckets=buckets, settings=settings, sources=[f"synthetic Zipf D={distinct}"])


# ---------------------------------------------------------------------------------------------------------------
# Real text


def kernel_files(cache: Path) -> list[Path]:
    """The kernel source's text files, extracted once into ``cache``, in sorted path order."""
    tree = cache / "linux-source-6.1"
    if not (tree / "MAINTAINERS").is_file():
        if not KERNEL_TARBALL.is_file():
            raise SystemExit(f"{KERNEL_TARBALL}: missing; run `apt-get install linux-source-6.1` first")
        print(f"extracting {KERNEL_TARBALL} into {cache} (once)", file=sys.stderr)
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(["tar", "xJf", str(KERNEL_TARBALL), "-C", str(cache)], check=True)
    return sorted(
        (p for p in tree.rglob("*") if p.suffix in KERNEL_SUFFIXES and p.is_file() and not p.is_symlink()),
        key=lambda p: p.relative_to(tree).parts,
    )


def kernel_corpus(cache: Path, gigabytes: float) -> Path:
    """The first ``gigabytes`` of the kernel's text files, cut at a line end (made once)."""
    size = int(gigabytes * 1e9)
    path = cache / f"kernel-{gigabytes:g}GB.txt"
    if path.is_file():  # made by an earlier run (written under a temporary name, renamed when complete)
        return path
    written = 0
    with tempfile.NamedTemporaryFile("wb", dir=cache, delete=False) as out:
        for source in kernel_files(cache):
            data = source.read_bytes()
            if data and not data.endswith(b"\n"):
                data += b"\n"
            if written + len(data) > size:
                data = data[: data.rfind(b"\n", 0, size - written) + 1]
                out.write(data)
                written += len(data)
                break
            out.write(data)
            written += len(data)
    if written < size * 0.99:
        print(f"note: the kernel's text files hold {written / 1e9:.2f} GB, less than {gigabytes} GB", file=sys.stderr)
    os.replace(out.name, path)
    return path


def multilingual_corpus(cache: Path, name: str, megabytes: int) -> Path:
    """``scripts/build_corpora.py``'s corpus ``name`` at ``megabytes``."""
    output = cache / "corpora"
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_corpora.py"), name, "--size-mb", f"{name}={megabytes}",
         "--output", str(output)],
        check=True,
    )  # fmt: skip
    return output / f"{name}.txt"


# ---------------------------------------------------------------------------------------------------------------
# Running and measuring


def measured(command: list[str], *, quiet: bool = False) -> dict[str, float]:
    """Run ``command``; its wall and CPU seconds (its waited-for children included) and peak RSS in bytes.

    A forked child's peak RSS counts the parent's pages it had before its ``exec``: GNU time, a small process,
    starts the command where there is one.
    """
    start = time.perf_counter()
    with tempfile.NamedTemporaryFile("r") as report:
        if Path("/usr/bin/time").exists():
            timed = ["/usr/bin/time", "-f", "%U %S %M", "-o", report.name, *command]
            result = subprocess.run(timed, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL if quiet else None)
            if result.returncode:
                raise SystemExit(f"failed ({result.returncode}): {' '.join(command[:6])} ...")
            user, system, peak = report.read().split()[-3:]
            return {"wall": time.perf_counter() - start, "cpu": float(user) + float(system),
                    "rss": int(peak) * 1024, "output": result.stdout.decode()}  # type: ignore[dict-item]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL if quiet else None)
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise SystemExit(f"failed ({process.returncode}): {' '.join(command[:6])} ...")
    return {
        "wall": time.perf_counter() - start,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss": usage.ru_maxrss * 1024,
        "output": output.decode(),  # type: ignore[dict-item]
    }


def commands(files: list[Path], out: Path, pattern: str, vocab_size: int) -> dict[str, list[str]]:
    from tokenizers import Tokenizer, models

    from hf_bpe.pipeline.pre_tokenizers import PRESETS, PreTokenizer
    from hf_bpe.reference.trainers import reference_cut

    pre_tokenizer = PreTokenizer.from_pattern(pattern)
    empty = Tokenizer(models.BPE())
    normalizer, empty.pre_tokenizer = reference_cut(pre_tokenizer)
    if normalizer is not None:
        empty.normalizer = normalizer
    names = [str(p) for p in files]
    return {
        "tokenizers": [sys.executable, "-c", REFERENCE, str(out / "tokenizers"), str(vocab_size), empty.to_str(),
                       *names],
        "hf_bpe": [sys.executable, "-m", "hf_bpe.cli", "train", *names, "--output", str(out / "hf_bpe"),
                   "--vocab-size", str(vocab_size), "--pattern" if pattern in PRESETS else "--regex", pattern,
                   "--no-progress", "--force"],
    }  # fmt: skip


def identical(out: Path) -> bool:
    return all((out / "hf_bpe" / n).read_bytes() == (out / "tokenizers" / n).read_bytes() for n in MODEL_FILES)


MODEL_FILES = ("vocab.json", "merges.txt")
COMPACT_CHOICES: dict[str, list[bool | None]] = {"auto": [None], "on": [True], "off": [False], "both": [False, True]}


def baselines(pattern: str, vocab_size: int) -> dict[str, float]:
    """Each side's peak RSS training on a tiny text: the interpreter, imports and runtime, taken off the figures
    a distinct pre-token."""
    with tempfile.TemporaryDirectory() as directory:
        tiny = Path(directory, "tiny.txt")
        tiny.write_text("hug pug pun bun hugs\n" * 10, encoding="utf-8")
        runs = commands([tiny], Path(directory), pattern, vocab_size)
        return {name: measured(command, quiet=True)["rss"] for name, command in runs.items()}


def compare(label: str, files: list[Path], pattern: str, vocab_size: int, distinct: int | None) -> None:
    """Train both sides on ``files``, print the figures and ratios; ``distinct``: pre-tokens, for bytes each."""
    size = sum(p.stat().st_size for p in files)
    with tempfile.TemporaryDirectory() as directory:
        runs = {
            name: measured(command) for name, command in commands(files, Path(directory), pattern, vocab_size).items()
        }
        same = identical(Path(directory))
    print(f"\n{label}: {size / 1e9:.3f} GB, pattern {pattern}, vocab {vocab_size}")
    for name, run in runs.items():
        print(
            f"  {name + ':':12} wall {run['wall']:7.1f} s  CPU {run['cpu']:7.1f} s  "
            f"peak RSS {run['rss'] / 2**20:7.0f} MiB"
        )
    ours, reference = runs["hf_bpe"], runs["tokenizers"]
    print(
        f"  ratio hf_bpe/tokenizers: wall {ours['wall'] / reference['wall']:.2f}x  CPU "
        f"{ours['cpu'] / reference['cpu']:.2f}x  peak RSS {ours['rss'] / reference['rss']:.2f}x"
    )
    if distinct:
        base = baselines(pattern, vocab_size)
        per = {name: (run["rss"] - base[name]) / distinct for name, run in runs.items()}
        print(
            f"  {distinct:,} distinct pre-tokens, {size / distinct:.1f} bytes of text each; bytes of peak RSS "
            f"each (less a tiny run's): hf_bpe {per['hf_bpe']:.0f}, tokenizers {per['tokenizers']:.0f}"
        )
    print(f"  files: {'IDENTICAL' if same else 'DIFFERENT'}")
    if not same:
        raise SystemExit(1)


def merge_phase(directory: Path, vocab_size: int, choices: list[bool | None]) -> None:
    """hf_bpe on a counts directory: the whole ``hf-bpe train --from-counts`` process, and the merge phase alone
    for each of ``choices`` (True/False: the flat words forced on or off; None: the trainer's own choice)."""
    distinct = json.loads((directory / "manifest.json").read_text("utf-8"))["pre_tokens"]
    print(f"\ncounts {directory.name}: {distinct:,} distinct pre-tokens, vocab {vocab_size} (hf_bpe alone)")
    with tempfile.TemporaryDirectory() as out:
        whole = measured([sys.executable, "-m", "hf_bpe.cli", "train", "--from-counts", str(directory), "--output",
                          out, "--vocab-size", str(vocab_size), "--no-progress"])  # fmt: skip
    print(f"  hf-bpe train --from-counts: wall {whole['wall']:.1f} s  CPU {whole['cpu']:.1f} s  peak RSS "
          f"{whole['rss'] / 2**20:.0f} MiB ({whole['rss'] / distinct:.0f} bytes a distinct pre-token)")  # fmt: skip
    if distinct > MERGE_PHASE_MAX:
        print(f"  merge phase alone: not run above {MERGE_PHASE_MAX:,} pre-tokens (the counts loaded as one dict, some "
              "150 bytes each, and then trained on, would not fit)")  # fmt: skip
        return
    for choice in choices:
        script = MERGE_PHASE
        if choice is not None:
            script = script.replace(
                "from hf_bpe.models.bpe.trainer import train_bpe",
                "from hf_bpe.models.bpe import trainer\nfrom hf_bpe.models.bpe.trainer import train_bpe\n"
                f"trainer.COMPACT_MIN_WORDS = {0 if choice else 2**62}",
            )
        run = measured([sys.executable, "-c", script, str(directory), str(vocab_size)])
        found = json.loads(run["output"])  # type: ignore[arg-type]
        words = {None: "trainer's choice", True: "compact words", False: "word strings"}[choice]
        print(f"  merge phase ({words}, one process): wall {found['wall']:.1f} s  CPU {found['cpu']:.1f} s  "
              f"{(found['peak'] - found['loaded']) / distinct:.0f} bytes a distinct pre-token over the loaded counts "
              f"({found['loaded'] / distinct:.0f} bytes each)")  # fmt: skip


def parse_count(text: str) -> int:
    """``1M``, ``50M``, ``200k`` or a plain number."""
    scale = {"k": 10**3, "m": 10**6, "g": 10**9}.get(text[-1].lower(), 1)
    return int(float(text[:-1] if scale > 1 else text) * scale)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel-gb", type=float, nargs="*", default=[0.1], help="kernel text sizes (0.1 0.3 1.2)")
    parser.add_argument("--corpora", nargs="*", default=[], help="build_corpora.py names (english japanese ...)")
    parser.add_argument("--corpus-mb", type=int, default=100, help="size of each --corpora corpus (default 100)")
    parser.add_argument("--synthetic", type=parse_count, nargs="*", default=[10**6], help="D for text (1M 5M 20M)")
    parser.add_argument("--synthetic-counts", type=parse_count, nargs="*", default=[10**6],
                        help="D for counts directories, merge phase alone (50M 100M)")  # fmt: skip
    parser.add_argument("--compact", choices=("auto", "on", "off", "both"), default="both",
                        help="merge phase words: the trainer's choice, flat buffer, strings, or both")  # fmt: skip
    parser.add_argument("--patterns", nargs="+", default=["gpt2"], help="presets (gpt2 o200k ...)")
    parser.add_argument("--vocab-size", type=int, default=32000)
    parser.add_argument("--cache", type=Path, default=ROOT / "cache" / "scale")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    print(f"{os.cpu_count()} CPUs; tokenizers and hf_bpe each in its own process, one after the other")
    for gigabytes in args.kernel_gb:
        corpus = kernel_corpus(args.cache, gigabytes)
        for pattern in args.patterns:
            compare(f"kernel {gigabytes:g} GB", [corpus], pattern, args.vocab_size, None)
    for name in args.corpora:
        corpus = multilingual_corpus(args.cache, name, args.corpus_mb)
        for pattern in args.patterns:
            compare(f"{name} {args.corpus_mb} MB", [corpus], pattern, args.vocab_size, None)
    for distinct in args.synthetic:
        path = args.cache / f"synthetic-{distinct}.txt"
        if not path.is_file():
            write_synthetic_text(path.with_suffix(".part"), distinct)
            path.with_suffix(".part").rename(path)
        for pattern in args.patterns:
            compare(f"synthetic D={distinct:,}", [path], pattern, args.vocab_size, distinct)
    for distinct in args.synthetic_counts:
        directory = args.cache / f"synthetic-counts-{distinct}"
        if not (directory / "manifest.json").is_file():
            write_synthetic_counts(directory, distinct)
        choices = COMPACT_CHOICES[args.compact]
        merge_phase(directory, args.vocab_size, choices)
    return 0


if __name__ == "__main__":
    sys.exit(main())
