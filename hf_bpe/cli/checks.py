"""Checks the commands run before any work: an output path that cannot be written, another tokenizer's files in
it, options of another model, binary input, a special token that is a file name, a missing optional package.
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hf_bpe.cli.errors import UsageError

if TYPE_CHECKING:
    from hf_bpe.pipeline.pre_tokenizers import PreTokenizer


def require(module: str, feature: str, requirement: str, extra: str) -> None:
    """Refuse ``feature`` in one line, with the install command, when its optional ``module`` is missing."""
    try:
        __import__(module)
    except ImportError:
        raise UsageError(
            f"{feature} needs {module}, which is not installed: pip install '{requirement}' "
            f"(or, in a clone of hf_bpe: pip install '.[{extra}]')"
        ) from None


def check_output(
    path: str,
    *,
    force: bool = False,
    tokenizer: bool = True,
    source: str | None = None,
    source_option: str = "--continue-from",
) -> None:
    """Refuse, before any work is done, an output path that cannot become a writable directory, and (for a
    ``tokenizer`` directory, without ``force``) one that holds a tokenizer already: every command that writes a
    tokenizer directory asks here, so none leaves two tokenizers mixed in one directory, or replaces one unasked.

    Args:
        path: the output directory, as given.
        force: replace what the directory holds (the writers remove the other tokenizer's files in the same
            all-or-nothing write).
        tokenizer: whether a tokenizer is written there (``count`` writes a counts directory).
        source: the tokenizer the command reads (``--continue-from``), refused as the output without ``force``.
        source_option: how the command names ``source``, for the message.

    Raises:
        UsageError: naming what the directory holds, and ``--force``.
        NotADirectoryError, PermissionError: for a path that cannot be written.
    """
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
    if not tokenizer or not target.is_dir() or force:
        return
    if source is not None and same_directory(source, target):
        raise UsageError(
            f"{path}: is the tokenizer {source_option} reads; writing there replaces it: choose another output "
            "directory, or pass --force to replace it"
        )
    held = holds(target)
    if held:
        raise UsageError(
            f"{path}: holds {held}; writing there would replace it or leave two tokenizers mixed: choose another "
            "output directory, or pass --force to replace it"
        )


def check_output_file(path: str, *, force: bool = False) -> None:
    """Refuse, before any work, an output file that is a directory, or (without ``force``) one that exists: a
    command writing one file replaces nothing unasked either (``export tiktoken DIR -o DIR/tokenizer.json``).

    Raises:
        UsageError: naming the file, and ``--force``.
    """
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{path}: is a directory; give the file to write (e.g. {target / 'vocab.tiktoken'})")
    if target.exists() and not force:
        raise UsageError(f"{path}: exists already; choose another file name, or pass --force to replace it")


def holds(directory: Path) -> str:
    """What tokenizer ``directory`` holds, in words (``a byte-level BPE tokenizer (tokenizer.json,
    tokenizer_config.json with a chat template)``); ``""`` for none."""
    from hf_bpe.cli.directories import KINDS, kind_of
    from hf_bpe.models.directory import TOKENIZER_CONFIG_FILE, read_tokenizer_config, tokenizer_files

    files = tokenizer_files(directory)
    if not files:
        return ""
    config: dict[str, Any] = {}
    with contextlib.suppress(ValueError, OSError):
        config = read_tokenizer_config(directory)
    kind = None
    with contextlib.suppress(ValueError, OSError):
        kind = kind_of(directory)
    named = config.get("tokenizer_class")
    what = f"a {KINDS[kind][0]} tokenizer" if kind is not None else "another tokenizer's files"
    if isinstance(named, str) and named not in KINDS:
        what += f" ({named})"
    shown = [
        f"{path.name} with a chat template" if path.name == TOKENIZER_CONFIG_FILE and config.get("chat_template")
        else path.name
        for path in files
    ]  # fmt: skip
    return f"{what}: {', '.join(shown)}"


def same_directory(source: str, target: Path) -> bool:
    """Whether ``source`` (a tokenizer directory or a file in one) is the directory ``target``."""
    read = Path(source).expanduser()
    read = read.parent if read.is_file() else read
    with contextlib.suppress(OSError):
        return read.resolve() == target.resolve()
    return False


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


def check_continuing(settings: dict[str, Any], base: Any, cut: PreTokenizer | None) -> None:
    """Refuse, as a usage error and before any work, the options continuing training cannot take (a pattern, a
    normalizer, ``cut``: the ``--regex`` pre-tokenizer already built, a limit on the alphabet: the base's are kept)
    or a new special token that is an ordinary token of the base."""
    from hf_bpe.models.bpe.training import continuing_cut

    try:
        continuing_cut(
            base,
            pattern=settings["pattern"],
            pre_tokenizer=cut,
            normalizer=settings["normalizer"],
            add_prefix_space=settings["add_prefix_space"],
            limit_alphabet=settings["limit_alphabet"],
            special_tokens=settings["special_tokens"],
            exclude_special_tokens=settings["exclude_special_tokens"],
        )
    except ValueError as e:
        raise UsageError(f"--continue-from: {e}") from None


def check_counted_alike(
    directory: str, args: argparse.Namespace, asked: PreTokenizer | None, counted: PreTokenizer | None = None
) -> None:
    """Refuse cutting options that differ from how the counts ``directory`` (``--from-counts``, a ``--parity``
    language's) was counted: ``asked``, the pre-tokenizer the command built from them; ``counted``, the directory's
    as read from its manifest (read here when not given)."""
    from hf_bpe.counting.counts_dir import read_manifest
    from hf_bpe.pipeline.pre_tokenizers import PreTokenizer as Recorded

    if counted is None:
        counted = Recorded.from_settings(read_manifest(directory)["settings"])
    for name in ("add_prefix_space", "exclude_special_tokens"):
        if getattr(args, name) is not None and bool(getattr(args, name)) != getattr(counted, name):
            raise UsageError(
                f"--{name.replace('_', '-')} differs from how {directory} was counted "
                f"({name}={getattr(counted, name)}); recount, or leave the option out"
            )
    if asked is None or (args.pattern is None and args.regex is None and args.normalizer is None):
        return
    if (asked.splits, asked.normalizer, asked.engine) != (counted.splits, counted.normalizer, counted.engine):
        raise UsageError(
            f"--pattern/--regex/--normalizer differ from how {directory} was counted (pattern "
            f"{counted.preset or counted.splits}, normalizer {counted.normalizer}); recount, or leave them out"
        )
