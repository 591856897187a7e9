"""Benchmark encoding on real multilingual text: hf_bpe's BPETokenizer against the Rust tokenizer and tiktoken.

Usage::

    python scripts/bench_encode.py                          # GPT-2's vocabulary, every language and the mix
    python scripts/bench_encode.py --encoding o200k_base    # GPT-4o's (also cl100k_base), converted by hf-bpe
    python scripts/bench_encode.py --repeat 5 --only mix japanese
    python scripts/bench_encode.py --tokenizer-json llama3/tokenizer.json gemma3/tokenizer.json   # real models

Text is real: the English, Japanese, Chinese and Russian corpora of ``scripts/build_corpora.py`` (built into
``cache/corpora/`` on first use: English 2 MB, the others 1 MB each; ``--corpora DIR`` to read them elsewhere),
cut into 40-line documents. Each language is timed alone, then all documents shuffled together (``mix``).
With ``--model unigram``: a Unigram tokenizer is trained by hf_bpe on the first tenth of each set's documents
(8000 pieces), and hf_bpe's UnigramTokenizer is timed against transformers' Rust backend on the same directory.
With ``--model wordpiece``: an 8000-token ``vocab.txt`` trained by hf_bpe on each set's first megabyte, loaded by
hf_bpe's WordPieceTokenizer and by transformers' Rust ``BertTokenizer``; ``words, 1 process (ceiling)`` is the
BERT recipe's normalizer and pre-tokenizer alone. Both are timed as below.
With ``--tokenizer-json FILE ...``: each model's ``tokenizer.json`` (Llama-3, Qwen3, DeepSeek-V3, Gemma-3,
Mistral-Nemo, ...) loaded by ``hf_bpe.from_pretrained`` and by transformers' Rust backend
(``PreTrainedTokenizerFast(tokenizer_file=...)``), each run cold (hf_bpe's shared caches cleared).

Each run loads every tokenizer fresh (loading is not timed; no warm cache) and times one call the way users
make it: ``tok(docs)`` for hf_bpe's ``BPETokenizer`` and for transformers' Rust tokenizer (``GPT2Tokenizer`` on
GPT-2's files; ``TokenizersBackend`` on the directory ``hf-bpe convert tiktoken`` writes for cl100k/o200k),
``encode_ordinary_batch`` for tiktoken's own encoding. ``split, 1 process (ceiling)`` is hf_bpe's bare
pre-tokenizer on the same documents in this process: the most an encoder on it could reach in one process (hf_bpe
shares a big batch out to a forked process per CPU). Runs alternate between the tokenizers; MB/s is
reported as the best and the median of ``--repeat`` runs, with hf_bpe's speed over each reference's (best
over best); then the same per second of CPU time used (all threads and child processes: the Rust batch call and
tiktoken's run on several threads, hf_bpe's on a forked process per CPU for a big batch; wall-clock time on a
busy machine rewards that). The script checks that all three produced the same ids and exits 1 if not.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
SIZES = {"english": 2.0, "japanese": 1.0, "chinese": 1.0, "russian": 1.0}
LINES_PER_DOCUMENT = 40


def corpora(directory: Path) -> dict[str, str]:
    """Each language's text, built with ``build_corpora.py`` where missing."""
    import build_corpora

    texts = {}
    for name, size in SIZES.items():
        built = build_corpora.build_corpus(build_corpora.CORPORA[name], directory, size_mb=size)
        texts[name] = built.path.read_text(encoding="utf-8")
    return texts


def documents(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    return ["".join(lines[i : i + LINES_PER_DOCUMENT]) for i in range(0, len(lines), LINES_PER_DOCUMENT)]


def loaders(encoding: str) -> dict[str, Callable[[], Callable[[list[str]], list[list[int]]]]]:
    """For each contender, a function loading it fresh and returning the timed call ``docs -> ids``."""
    from transformers import GPT2Tokenizer, TokenizersBackend

    from hf_bpe import BPETokenizer

    if encoding == "gpt2":
        from hf_bpe.reference.gpt2 import gpt2_files, tiktoken_gpt2

        directory = gpt2_files()

        def reference_tiktoken():  # type: ignore[no-untyped-def]
            return tiktoken_gpt2(directory)

        def rust():  # type: ignore[no-untyped-def]
            return GPT2Tokenizer.from_pretrained(str(directory))

        rust_name = "Rust GPT2Tokenizer"
    else:
        from hf_bpe.reference.openai_ranks import tiktoken_cache

        os.environ["TIKTOKEN_CACHE_DIR"] = str(tiktoken_cache())
        import tiktoken

        directory = Path(tempfile.mkdtemp(prefix=f"bench-{encoding}-")) / "tok"
        from hf_bpe.cli import main as cli

        if cli(["convert", "tiktoken", encoding, "-o", str(directory)]) != 0:
            raise SystemExit(f"hf-bpe convert tiktoken {encoding} failed")

        def reference_tiktoken():  # type: ignore[no-untyped-def]
            return tiktoken.get_encoding(encoding)

        def rust():  # type: ignore[no-untyped-def]
            return TokenizersBackend.from_pretrained(str(directory))

        rust_name = "Rust TokenizersBackend"

    def ours():  # type: ignore[no-untyped-def]
        tok = BPETokenizer.from_pretrained(str(directory))
        # Instances loaded from the same files share one encoder and its pre-token cache: start every run cold,
        # as the Rust tokenizer (a cache per instance) and tiktoken (none) do.
        tok.bpe.clear_cache()
        return lambda docs: tok(docs)["input_ids"]

    def split():  # type: ignore[no-untyped-def]
        tok = BPETokenizer.from_pretrained(str(directory))
        normalizer, pre = tok.pipeline.normalizer, tok.pipeline.pre_tokenizer
        return lambda docs: [pre.pieces_str(normalizer.normalize_str(d)) for d in docs]

    def theirs():  # type: ignore[no-untyped-def]
        tok = rust()
        return lambda docs: tok(docs)["input_ids"]

    def tik():  # type: ignore[no-untyped-def]
        enc = reference_tiktoken()
        return lambda docs: enc.encode_ordinary_batch(docs)

    return {"hf_bpe BPETokenizer": ours, rust_name: theirs, "tiktoken": tik, "split, 1 process (ceiling)": split}


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended (hf_bpe's forked encoding processes)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def bench(name: str, docs: list[str], contenders: dict, repeat: int) -> bool:  # type: ignore[type-arg]
    """Time each contender (the first is hf_bpe's) on ``docs``, ``repeat`` times alternating; print MB/s and the
    ratios; True if all but the ceilings gave the same ids."""
    megabytes = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    speeds: dict[str, list[float]] = {key: [] for key in contenders}
    cpu: dict[str, list[float]] = {key: [] for key in contenders}
    ids: dict[str, list[list[int]]] = {}
    for run in range(repeat):
        order = list(contenders) if run % 2 == 0 else list(reversed(contenders))
        for key in order:
            call = contenders[key]()
            start, start_cpu = time.perf_counter(), cpu_seconds()
            result = call(docs)
            speeds[key].append(megabytes / (time.perf_counter() - start))
            cpu[key].append(megabytes / max(cpu_seconds() - start_cpu, 1e-9))
            if "(ceiling)" not in key:
                ids[key] = result
    first, *others = (ids[key] for key in ids)
    same = all(other == first for other in others)
    hf_bpe = next(iter(contenders))
    ours, ours_cpu = max(speeds[hf_bpe]), max(cpu[hf_bpe])
    print(f"\n{name}: {len(docs)} documents, {megabytes:.2f} MB (UTF-8), {repeat} run(s)")
    print(f"  {'':<28} {'best MB/s':>10} {'median':>8} {'hf_bpe / this':>14} {'CPU MB/s':>9} {'hf_bpe / this':>14}")
    for key, values in speeds.items():
        best, best_cpu = max(values), max(cpu[key])
        print(
            f"  {key:<28} {best:>10.2f} {statistics.median(values):>8.2f} {ours / best:>14.2f}"
            f" {best_cpu:>9.2f} {ours_cpu / best_cpu:>14.2f}"
        )
    print(f"  identical ids: {'yes' if same else 'NO'}")
    return same


def main() -> int:
    sys.path.insert(0, str(SCRIPTS))
    from build_corpora import DEFAULT_OUTPUT

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoding", choices=["gpt2", "cl100k_base", "o200k_base"], default="gpt2")
    parser.add_argument("--corpora", type=Path, default=DEFAULT_OUTPUT, help="where the corpora are (built if not)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per tokenizer (alternating); default 3")
    parser.add_argument("--only", nargs="*", choices=[*SIZES, "mix"], help="only these sets")
    parser.add_argument("--model", choices=("bpe", "unigram", "wordpiece"), default="bpe")
    parser.add_argument("--wordpiece-vocab-size", type=int, default=8000)
    parser.add_argument("--tokenizer-json", type=Path, nargs="+", help="real models' tokenizer.json files to time")
    args = parser.parse_args()

    texts = corpora(args.corpora)
    sets = {name: documents(text) for name, text in texts.items()}
    mix = [doc for docs in sets.values() for doc in docs]
    random.Random(0).shuffle(mix)
    sets["mix"] = mix
    if args.model in ("unigram", "wordpiece"):
        print(f"model {args.model}; corpora in {args.corpora}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
        same = True
        for name, docs in sets.items():
            if not args.only or name in args.only:
                with tempfile.TemporaryDirectory(prefix=f"bench-{args.model}-") as root:
                    if args.model == "unigram":
                        contenders = unigram_contenders(docs, Path(root))
                    else:
                        contenders = wordpiece_contenders(docs, Path(root), args.wordpiece_vocab_size)
                    same &= bench(name, docs, contenders, args.repeat)
        return 0 if same else 1
    if args.tokenizer_json:
        print(f"tokenizer.json files; corpora in {args.corpora}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
        same = True
        for path in args.tokenizer_json:
            load_times(path, args.repeat)
            contenders = tokenizer_json_contenders(path)
            for name, docs in sets.items():
                if not args.only or name in args.only:
                    same &= bench(f"{path.parent.name or path.name} {name}", docs, contenders, args.repeat)
        return 0 if same else 1
    contenders = loaders(args.encoding)
    print(f"encoding {args.encoding}; corpora in {args.corpora}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    same = True
    for name, docs in sets.items():
        if args.only and name not in args.only:
            continue
        same &= bench(name, docs, contenders, args.repeat)
    return 0 if same else 1


def load_times(path: Path, repeat: int) -> None:
    """Print the best of ``repeat`` loads of ``path`` by ``hf_bpe.from_pretrained`` (each from the file: the
    classes' shared cache of read files emptied first) against the Rust backend (``PreTrainedTokenizerFast``), and
    by ``hf_bpe.Tokenizer.from_file`` against ``tokenizers.Tokenizer.from_file``; alternating, imports done before."""
    from tokenizers import Tokenizer as RustTokenizer
    from transformers import PreTrainedTokenizerFast

    import hf_bpe
    from hf_bpe.transformers import bpe, pipeline

    def ours() -> None:
        pipeline.loaded_file.cache_clear()
        bpe._loaded.cache_clear()
        hf_bpe.from_pretrained(path)

    pairs = {
        "hf_bpe.from_pretrained": (ours, lambda: PreTrainedTokenizerFast(tokenizer_file=str(path))),
        "hf_bpe.Tokenizer.from_file": (
            lambda: hf_bpe.Tokenizer.from_file(path),
            lambda: RustTokenizer.from_file(str(path)),
        ),
    }
    name = path.parent.name or path.name
    for label, (load_ours, load_theirs) in pairs.items():
        load_ours()  # the first load imports the classes' modules (transformers, ...): not timed
        times: dict[str, list[float]] = {"hf_bpe": [], "Rust": []}
        for _ in range(max(1, repeat)):
            for side, load in (("hf_bpe", load_ours), ("Rust", load_theirs)):
                gc.collect()  # no collection of an earlier run's garbage inside a timed load
                start = time.perf_counter()
                load()
                times[side].append(time.perf_counter() - start)
        ours_s, theirs_s = min(times["hf_bpe"]), min(times["Rust"])
        print(
            f"\n{name} load: {label} {ours_s:.2f} s, Rust {theirs_s:.2f} s, hf_bpe / Rust {ours_s / theirs_s:.2f}x"
            " (time: lower is better)",
            end="",
        )
    print()


def tokenizer_json_contenders(path: Path) -> dict:  # type: ignore[type-arg]
    """hf_bpe's class for a real model's ``tokenizer.json`` and the Rust backend loading the same file."""
    from transformers import PreTrainedTokenizerFast

    import hf_bpe

    def ours():  # type: ignore[no-untyped-def]
        tok = hf_bpe.from_pretrained(path)
        # Instances loaded from one file share its model and pre-token cache: start every run cold.
        model = tok.bpe if isinstance(tok, hf_bpe.BPETokenizer) else tok.pipeline.model
        model.clear_cache()
        return lambda docs: tok(docs)["input_ids"]

    def theirs():  # type: ignore[no-untyped-def]
        tok = PreTrainedTokenizerFast(tokenizer_file=str(path))
        return lambda docs: tok(docs)["input_ids"]

    return {"hf_bpe.from_pretrained": ours, "Rust PreTrainedTokenizerFast": theirs}


def unigram_contenders(docs: list[str], root: Path) -> dict:  # type: ignore[type-arg]
    """hf_bpe's UnigramTokenizer and the Rust backend, loading a tokenizer hf_bpe trains on a tenth of the docs."""
    from transformers import TokenizersBackend

    from hf_bpe.models.unigram.files import write_unigram_dir
    from hf_bpe.models.unigram.trainer import UnigramOptions
    from hf_bpe.models.unigram.training import train_unigram_from_iterator
    from hf_bpe.transformers.unigram import UnigramTokenizer

    start = time.perf_counter()
    result = train_unigram_from_iterator(
        docs[: max(1, len(docs) // 10)], UnigramOptions(vocab_size=8000, unk_token="<unk>")
    )
    print(f"\ntrained {len(result.pieces)} Unigram pieces in {time.perf_counter() - start:.1f} s")
    write_unigram_dir(root, result.pieces, result.unk_id, result.special_tokens)

    def ours():  # type: ignore[no-untyped-def]
        tok = UnigramTokenizer.from_pretrained(root)
        return lambda docs: tok(docs)["input_ids"]

    def theirs():  # type: ignore[no-untyped-def]
        tok = TokenizersBackend.from_pretrained(str(root))
        return lambda docs: tok(docs)["input_ids"]

    return {"hf_bpe UnigramTokenizer": ours, "Rust TokenizersBackend": theirs}


def wordpiece_contenders(docs: list[str], root: Path, vocab_size: int) -> dict:  # type: ignore[type-arg]
    """hf_bpe's WordPieceTokenizer and the Rust BertTokenizer, loading the same vocab.txt, trained by hf_bpe on
    the first megabyte of the docs; and the BERT recipe's words alone (the ceiling)."""
    import shutil

    from transformers import BertTokenizer

    from hf_bpe import WordPieceTokenizer
    from hf_bpe.models.wordpiece.training import train_wordpiece_from_iterator
    from hf_bpe.pipeline.bert import BertRecipe

    sample, size = [], 0
    for doc in docs:
        sample.append(doc)
        size += len(doc.encode("utf-8"))
        if size > 1e6:
            break
    start = time.perf_counter()
    train_wordpiece_from_iterator(sample, vocab_size=vocab_size).save(root / "ours")
    print(f"\ntrained a {vocab_size}-token WordPiece vocabulary in {time.perf_counter() - start:.1f} s")
    (root / "vocab").mkdir()
    shutil.copy(root / "ours" / "vocab.txt", root / "vocab" / "vocab.txt")

    def ours():  # type: ignore[no-untyped-def]
        tok = WordPieceTokenizer.from_pretrained(root / "ours")
        return lambda docs: tok(docs)["input_ids"]

    def theirs():  # type: ignore[no-untyped-def]
        tok = BertTokenizer.from_pretrained(str(root / "vocab"))
        return lambda docs: tok(docs)["input_ids"]

    def words():  # type: ignore[no-untyped-def]
        recipe = BertRecipe()
        return lambda docs: [recipe.words(d) for d in docs]

    return {"hf_bpe WordPieceTokenizer": ours, "Rust BertTokenizer": theirs, "words, 1 process (ceiling)": words}


if __name__ == "__main__":
    sys.exit(main())
