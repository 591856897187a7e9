"""Benchmark encoding: hf_bpe's BPETokenizer vs transformers' Rust GPT2Tokenizer vs tiktoken, GPT-2's vocabulary.

Usage: ``python scripts/bench_encode.py [CORPUS...] [--megabytes 4] [--model unigram]``

With ``--model unigram``: a Unigram tokenizer is trained by hf_bpe on the first tenth of the documents (8000
pieces), and hf_bpe's UnigramTokenizer is timed against transformers' Rust backend on the same directory.

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
    parser.add_argument("--model", choices=("bpe", "unigram"), default="bpe")
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

    if args.model == "unigram":
        return bench_unigram(docs, megabytes)

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


def bench_unigram(docs: list[str], megabytes: float) -> int:
    """hf_bpe's UnigramTokenizer against the Rust backend, on a tokenizer hf_bpe trains on a tenth of the docs."""
    import tempfile

    from transformers import TokenizersBackend

    from hf_bpe.models.unigram.files import write_unigram_dir
    from hf_bpe.models.unigram.trainer import UnigramOptions
    from hf_bpe.models.unigram.training import train_unigram_from_iterator
    from hf_bpe.unigram_tokenizer import UnigramTokenizer

    start = time.perf_counter()
    result = train_unigram_from_iterator(
        docs[: max(1, len(docs) // 10)], UnigramOptions(vocab_size=8000, unk_token="<unk>")
    )
    print(f"trained {len(result.pieces)} pieces in {time.perf_counter() - start:.1f} s")
    directory = tempfile.mkdtemp()
    write_unigram_dir(directory, result.pieces, result.unk_id, result.special_tokens)
    runs = {
        "hf_bpe UnigramTokenizer": lambda ds: UnigramTokenizer.from_pretrained(directory)(ds)["input_ids"],
        "Rust TokenizersBackend": lambda ds: TokenizersBackend.from_pretrained(directory)(ds)["input_ids"],
    }
    seconds, ids = {}, {}
    for name, run in runs.items():
        seconds[name], ids[name] = timed(run, docs)
    ours = seconds["hf_bpe UnigramTokenizer"]
    print(f"{'':<26} {'seconds':>8} {'MB/s':>8} {'hf_bpe / this':>14}")
    for name in runs:
        print(f"{name:<26} {seconds[name]:>8.2f} {megabytes / seconds[name]:>8.2f} {seconds[name] / ours:>14.2f}")
    same = ids["hf_bpe UnigramTokenizer"] == ids["Rust TokenizersBackend"]
    print("hf_bpe/Rust speed ratio: %.2f" % (seconds["Rust TokenizersBackend"] / ours))
    print(f"identical ids: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
