"""Checks the commands run before any work: an output path that cannot be written, another tokenizer's files in
it, options of another model, binary input, a special token that is a file name, a missing optional package.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hf_bpe.cli.errors import UsageError
from hf_bpe.cli.settings import pre_tokenizer_of


def require(module: str, feature: str, requirement: str, extra: str) -> None:
    """Refuse ``feature`` in one line, with the install command, when its optional ``module`` is missing."""
    try:
        __import__(module)
    except ImportError:
        raise UsageError(
            f"{feature} needs {module}, which is not installed: pip install '{requirement}' "
            f"(or, in a clone of hf_bpe: pip install '.[{extra}]')"
        ) from None


def check_output(path: str, *, force: bool = False, tokenizer: str | None = "bpe") -> None:
    """Refuse, before any work is done, an output path that cannot become a writable directory, and (for a
    ``tokenizer`` directory of that kind, without ``force``) one holding another tokenizer's files that would be
    loaded with ours: the model writes them away with ``force``.
    """
    from hf_bpe.models.directory import MODEL_FILES, check_no_stale_files

    target = Path(path)
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(f"{path}: is a file, not a directory; choose another output path")
    existing = target
    while not existing.exists():
        existing = existing.parent
        if existing.exists() and not existing.is_dir():
            raise NotADirectoryError(f"{path}: {existing} is a file, not a directory; choose another output path")
    # Try it: permission bits do not tell for root, read-only file systems or ACLs.
    try:
        probe = tempfile.mkdtemp(prefix=".hf-bpe-probe-", dir=existing)
    except OSError as e:
        where = "" if existing == target else f" ({existing}, where it would be made)"
        raise PermissionError(f"{path}: cannot write there{where}: {e.strerror}; choose another output path") from None
    Path(probe).rmdir()
    if tokenizer and target.is_dir() and not force:
        check_no_stale_files(target, MODEL_FILES[tokenizer])


def refuse_bpe_options(args: argparse.Namespace, model: str, recipe: str) -> None:
    """Counting for WordPiece or Unigram: its own recipe cuts the text, so BPE's pre-tokenizer options are refused."""
    if args.add_prefix_space or args.special_tokens or args.exclude_special_tokens or args.pattern or args.regex:
        raise UsageError(
            f"--add-prefix-space, --pattern, --regex and the special-token options are BPE's; leave them out for "
            f"{model}"
        )
    if args.normalizer:
        raise UsageError(f"--normalizer is BPE's; {model} normalizes with {recipe}")


def refuse_binary(files: Sequence[str], errors: str) -> None:
    """Refuse, before any work, an input file that looks binary (a NUL byte in its first 8 KiB, as git tells
    binary files; compressed files aside): invalid UTF-8's own hint would suggest training on it with U+FFFD.

    Raises:
        ValueError: naming the file and where the NUL byte is.
    """
    from hf_bpe.counting.sources import COMPRESSED_SUFFIXES, compressed_look, is_stream

    if errors != "strict":
        return  # asked for: train on whatever decodes
    for name in files:
        if is_stream(name) or name.endswith(COMPRESSED_SUFFIXES) or not Path(name).is_file():
            continue  # standard input, compressed files and missing files are the reader's to name
        with open(name, "rb") as stream:
            head = stream.read(8192)
        nul = head.find(b"\0")
        if nul >= 0 and compressed_look(name) is None:
            raise ValueError(
                f"{name}: looks binary, not text (a NUL byte at byte offset {nul}); give text files "
                "(a compressed file is read when its name ends in .gz, .bz2, .xz or .zst)"
            )


def check_special_tokens(args: argparse.Namespace) -> None:
    """``--special-tokens`` takes every word after it: refuse a "special token" that is one of the input files."""
    for token in args.special_tokens or ():
        if Path(token).is_file():
            raise UsageError(
                f"--special-tokens took {token!r}, which is a file: put the input FILEs before --special-tokens, or "
                "end its list with --"
            )


def check_continuing(settings: dict[str, Any], base: Any) -> None:
    """Refuse, as a usage error and before any work, the options continuing training cannot take (a pattern, a
    normalizer, a limit on the alphabet: the base's are kept) or a new special token that is an ordinary token of
    the base."""
    from hf_bpe.models.bpe.training import continuing_cut

    try:
        continuing_cut(
            base,
            pattern=settings["pattern"],
            pre_tokenizer=pre_tokenizer_of(settings) if settings["regex"] else None,
            normalizer=settings["normalizer"],
            add_prefix_space=settings["add_prefix_space"],
            limit_alphabet=settings["limit_alphabet"],
            special_tokens=settings["special_tokens"],
            exclude_special_tokens=settings["exclude_special_tokens"],
        )
    except ValueError as e:
        raise UsageError(f"--continue-from: {e}") from None
