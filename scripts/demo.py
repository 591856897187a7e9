"""Train a tokenizer on this Python's standard library, load it with AutoTokenizer, show what it does.

Run through ``bash scripts/demo.sh`` (which installs the package first), or directly once installed:
``python scripts/demo.py [--output DIR] [--config PATH]``. Nothing is downloaded: the corpus is the ``.py``
files at the top of the running interpreter's standard library (about 5 MB).
"""

from __future__ import annotations

import argparse
import os
import sys
import sysconfig
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = "def greet(name):\n    return f'Hello, {name}!'  # naïve café ☕\n"


def standard_library_sources() -> list[Path]:
    return sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=REPO / "out" / "demo", help="where to write the tokenizer")
    parser.add_argument("--config", default="demo", help="training preset: a name (demo, gpt2, code) or a JSON file")
    args = parser.parse_args()

    from hf_bpe import cli

    files = standard_library_sources()
    corpus_mb = sum(path.stat().st_size for path in files) / 1e6
    print(f"Training on {len(files)} files of the standard library ({corpus_mb:.1f} MB) with the {args.config} preset")
    started = time.perf_counter()
    status = cli.main(["train", *map(str, files), "--output", str(args.output), "--config", str(args.config)])
    if status != 0:
        return status
    trained = time.perf_counter() - started

    # The demo loads no model: transformers' advice that PyTorch is missing would only be noise here.
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    from transformers import AutoTokenizer

    import hf_bpe  # noqa: F401  (registers the tokenizer class with AutoTokenizer)

    tokenizer = AutoTokenizer.from_pretrained(args.output)
    merges = len((args.output / "merges.txt").read_text(encoding="utf-8").splitlines()) - 1
    ids = tokenizer(EXAMPLE)["input_ids"]
    decoded = tokenizer.decode(ids)
    print()
    print(f"Loaded {args.output} with AutoTokenizer: {type(tokenizer).__module__}.{type(tokenizer).__name__}")
    print(f"  vocabulary size  {len(tokenizer)}")
    print(f"  merges learned   {merges}")
    print(f"  training time    {trained:.1f} s")
    print(f"  example          {EXAMPLE!r}")
    print(f"  tokens           {tokenizer.convert_ids_to_tokens(ids)}")
    print(f"  ids              {ids}")
    print(f"  round trip       {'exact' if decoded == EXAMPLE else 'DIFFERENT: ' + repr(decoded)}")
    if decoded != EXAMPLE:
        return 1
    return report_sizes(files, args.output.parent / f"{args.output.name}-sizes", args.config)


def report_sizes(files: list[Path], output: Path, config: str) -> int:
    """Train three sizes in one run and report what each buys on held-out text (three files of the ``email``
    package, which training did not see), with the plot when matplotlib is installed (``pip install
    'hf-bpe[plot]'``)."""
    from hf_bpe import cli

    sizes = ["1000", "2000", "4000"]
    print()
    print(f"Three sizes from one run ({', '.join(sizes)} tokens), measured on three files of the email package:")
    train = ["train", *map(str, files), "--output", str(output), "--config", config, "--vocab-size", ",".join(sizes)]
    status = cli.main([*train, "--no-progress"])
    if status != 0:
        return status
    email = Path(sysconfig.get_paths()["stdlib"]) / "email"
    sample = [email / "message.py", email / "feedparser.py", email / "utils.py"]
    command = ["report", *(str(output / size) for size in sizes), "--sample", *map(str, sample)]
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("(pip install 'hf-bpe[plot]' to have the plot drawn too)")
    else:
        command += ["--plot", str(output / "report.png")]
    return cli.main(command)


if __name__ == "__main__":
    sys.exit(main())
