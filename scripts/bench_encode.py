"""Benchmark encoding: hf_bpe's BPETokenizer vs transformers' Rust GPT2Tokenizer vs tiktoken, GPT-2's vocabulary;
with ``--model wordpiece``, hf_bpe's WordPieceTokenizer vs transformers' Rust BertTokenizer on the same vocab.txt.

Usage: ``python scripts/bench_encode.py [CORPUS...] [--megabytes 4] [--model wordpiece]``

``--model wordpiece`` first trains a WordPiece vocabulary (``--wordpiece-vocab-size``, default 8000, frequency
scoring, BERT's recipe) on the first megabyte of the documents, then times ``tok(docs)`` of both classes loaded
from it, and the recipe's own normalize-and-split (the ceiling), and checks the ids are the same.

Documents are the given files split on blank lines, shuffled together (e.g. ``cache/corpora/*.txt`` from
``scripts/build_corpora.py``), or by default this interpreter's standard-library sources plus generated
multilingual text, which needs no download; cut to about ``--megabytes``. Each tokenizer is loaded fresh and encodes all
documents once, the way users call it (``tok(docs)`` for the transformers classes, ``encode_ordinary_batch``
for tiktoken). The script prints MB/s, the ratios, and the ceiling: the split pattern's own ``findall``. It
checks that all three produced the same ids.
"""

from __future__ import annotations

import argparse
import random
import sys
import sysconfig
import time
from pathlib import Path


def default_documents() -> list[str]:
    sources = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    docs = [doc for path in sources for doc in path.read_text(encoding="utf-8").split("\n\n")]
    rng = random.Random(0)
    words = ["привет", "мир", "日本語のテキスト", "東京", "naïve", "café", "😀", "👍🏽", "١٢٣", "straße", "the", "of"]
    for _ in range(20000):
        docs.append(" ".join(rng.choice(words) for _ in range(rng.randint(3, 40))) + "\n")
    rng.shuffle(docs)
    return docs


def timed(function, docs):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = function(docs)
    return time.perf_counter() - start, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="*", type=Path)
    parser.add_argument("--megabytes", type=float, default=4.0)
    parser.add_argument("--model", choices=("bpe", "wordpiece"), default="bpe")
    parser.add_argument("--wordpiece-vocab-size", type=int, default=8000)
    args = parser.parse_args()

    import tiktoken  # noqa: F401  (fail early if missing)
    from transformers import GPT2Tokenizer

    from hf_bpe import BPETokenizer
    from hf_bpe.gpt2 import gpt2_files, tiktoken_gpt2
    from hf_bpe.pretokenizer import SplitPattern

    corpora = args.corpus
    if corpora:
        print("documents from", ", ".join(str(path) for path in corpora))
        docs = [d for path in corpora for d in path.read_text(encoding="utf-8").split("\n\n")]
        random.Random(0).shuffle(docs)
    else:
        docs = default_documents()
    budget, kept = int(args.megabytes * 1e6), []
    for doc in docs:
        budget -= len(doc.encode("utf-8"))
        if budget < 0:
            break
        kept.append(doc)
    docs = kept
    megabytes = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    print(f"{len(docs)} documents, {megabytes:.2f} MB (UTF-8)")

    if args.model == "wordpiece":
        return bench_wordpiece(docs, megabytes, args.wordpiece_vocab_size)

    directory = gpt2_files()
    split = SplitPattern()
    runs = {
        "split findall (ceiling)": lambda ds: [split.findall(d) for d in ds],
        "hf_bpe BPETokenizer": lambda ds: BPETokenizer.from_pretrained(directory)(ds)["input_ids"],
        "Rust GPT2Tokenizer": lambda ds: GPT2Tokenizer.from_pretrained(str(directory))(ds)["input_ids"],
        "tiktoken": lambda ds: tiktoken_gpt2(directory).encode_ordinary_batch(ds),
    }
    seconds, ids = {}, {}
    for name, run in runs.items():
        seconds[name], ids[name] = timed(run, docs)
    print(f"{'':<26} {'seconds':>8} {'MB/s':>8} {'hf_bpe / this':>14}")
    ours = seconds["hf_bpe BPETokenizer"]
    for name in runs:
        print(f"{name:<26} {seconds[name]:>8.2f} {megabytes / seconds[name]:>8.2f} {seconds[name] / ours:>14.2f}")
    same = ids["hf_bpe BPETokenizer"] == ids["Rust GPT2Tokenizer"] == ids["tiktoken"]
    print("hf_bpe/Rust speed ratio: %.2f" % (seconds["Rust GPT2Tokenizer"] / ours))
    print(f"identical ids from all three: {'yes' if same else 'NO'}")
    return 0 if same else 1


def bench_wordpiece(docs: list[str], megabytes: float, vocab_size: int) -> int:
    """WordPieceTokenizer vs the Rust BertTokenizer, both loading the same trained vocab.txt."""
    import shutil
    import tempfile

    from transformers import BertTokenizer

    from hf_bpe import WordPieceTokenizer
    from hf_bpe.models.wordpiece.recipe import BertRecipe
    from hf_bpe.models.wordpiece.training import train_wordpiece_from_iterator

    sample, size = [], 0
    for doc in docs:
        sample.append(doc)
        size += len(doc.encode("utf-8"))
        if size > 1e6:
            break
    with tempfile.TemporaryDirectory(prefix="bench-wordpiece-") as root:
        start = time.perf_counter()
        train_wordpiece_from_iterator(sample, vocab_size=vocab_size).save(Path(root) / "ours")
        print(f"trained a {vocab_size}-token WordPiece vocabulary in {time.perf_counter() - start:.1f} s")
        (Path(root) / "vocab").mkdir()
        shutil.copy(Path(root) / "ours" / "vocab.txt", Path(root) / "vocab" / "vocab.txt")
        recipe = BertRecipe()
        runs = {
            "recipe words (ceiling)": lambda ds: [recipe.words(d) for d in ds],
            "hf_bpe WordPieceTokenizer": lambda ds: WordPieceTokenizer.from_pretrained(Path(root) / "ours")(ds)[
                "input_ids"
            ],
            "Rust BertTokenizer": lambda ds: BertTokenizer.from_pretrained(str(Path(root) / "vocab"))(ds)["input_ids"],
        }
        seconds, ids = {}, {}
        for name, run in runs.items():
            seconds[name], ids[name] = timed(run, docs)
    print(f"{'':<28} {'seconds':>8} {'MB/s':>8} {'hf_bpe / this':>14}")
    ours = seconds["hf_bpe WordPieceTokenizer"]
    for name in runs:
        print(f"{name:<28} {seconds[name]:>8.2f} {megabytes / seconds[name]:>8.2f} {seconds[name] / ours:>14.2f}")
    same = ids["hf_bpe WordPieceTokenizer"] == ids["Rust BertTokenizer"]
    print("hf_bpe/Rust speed ratio: %.2f" % (seconds["Rust BertTokenizer"] / ours))
    print(f"identical ids: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
