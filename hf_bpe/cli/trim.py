"""``hf-bpe trim``: parsing's results onto :func:`hf_bpe.tokenizer.trim.trim`, and what it prints."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from hf_bpe.cli.checks import check_output, same_directory
from hf_bpe.cli.errors import UsageError
from hf_bpe.cli.presentation import Progress


def trim_command(args: argparse.Namespace) -> int:
    from hf_bpe.tokenizer.trim import ID_MAP_FILE, embedding_hint, trim

    source = Path(args.source).expanduser()
    if not source.exists():
        raise FileNotFoundError(
            f"{args.source}: no such file or directory; give a byte-level BPE tokenizer.json or its directory"
        )
    if same_directory(args.source, Path(args.output)):
        raise UsageError(f"{args.output}: is the tokenizer being trimmed; write the trimmed one elsewhere")
    check_output(args.output, force=args.force)
    start = time.perf_counter()
    progress = Progress(not getattr(args, "no_progress", False))
    try:
        found = trim(
            source, args.sample, vocab_size=args.vocab_size, output=args.output, force=args.force, progress=progress
        )
    finally:
        progress.close()
    passed = f", {found.passed_over} passed over for room" if found.passed_over else ""
    whole = f"; {found.whole_only} given whole only (ignore_merges)" if found.whole_only else ""
    print(
        f"trimmed {source} to {found.vocab_size} tokens in {time.perf_counter() - start:.1f} s: {found.must_keep} kept "
        f"whatever the sample (added tokens and the 256 bytes), {found.from_sample} of the {found.sample_tokens} "
        f"tokens the sample uses{passed}{whole}, with the tokens that build them"
    )
    print(f"wrote tokenizer.json and {ID_MAP_FILE} (old id -> new id) to {args.output}")
    print(embedding_hint(found))
    return 0
