"""The ``hf-bpe`` command: argument parsing and presentation only; the work is done by the library.

``hf-bpe train FILE... --output DIR`` trains like :func:`hf_bpe.models.bpe.training.train_from_files` and writes the
tokenizer directory; ``count`` writes a counts directory (:mod:`hf_bpe.counting.counts_dir`); ``encode`` shows a
tokenizer's tokens and ids; ``download gpt2`` writes GPT-2's tokenizer (:mod:`hf_bpe.reference.gpt2`); ``verify`` checks
parity with the references (:mod:`hf_bpe.reference.verify`). ``--config NAME|PATH`` reads a JSON preset, by name from
``configs/`` or from a file (keys are the long option names with ``_``: ``vocab_size``,
``special_tokens``...); options given on the command line override it. User errors print one line on stderr and
exit with 2 (usage) or 1 (runtime), without a traceback; Ctrl-C exits 130, SIGTERM 143, with nothing written.

Parsing is :mod:`hf_bpe.cli.parser`'s, the settings :mod:`hf_bpe.cli.settings`', each command its module's
(:mod:`~hf_bpe.cli.train`, :mod:`~hf_bpe.cli.commands`, :mod:`~hf_bpe.cli.verify`); this module runs one, turning
errors into one line and an exit status, and signals into 130 and 143.
"""

from __future__ import annotations

import signal
import sys
import traceback
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from hf_bpe.cli.commands import (
    convert_command,
    download_command,
    encode_command,
    export_command,
    report_command,
)
from hf_bpe.cli.errors import EXIT_STATUSES, UsageError
from hf_bpe.cli.parser import build_parser, subparser
from hf_bpe.cli.settings import TRAIN_DEFAULTS, WORDPIECE_DEFAULTS, read_config
from hf_bpe.cli.train import count_command, train_command
from hf_bpe.cli.verify import verify_encode_command, verify_train_command

__all__ = ["EXIT_STATUSES", "TRAIN_DEFAULTS", "WORDPIECE_DEFAULTS", "UsageError", "build_parser", "main", "read_config"]


class Terminated(BaseException):
    """SIGTERM arrived (exit status 143)."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated()


def _interrupt_once(signum: int, frame: object) -> None:
    """Ctrl-C interrupts once: a terminal signals the whole process group and ``timeout -s INT`` may signal
    twice, and a second KeyboardInterrupt in the middle of cleaning up would hang or leave processes behind."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """hf_bpe's own warnings as the command's other messages are shown (``hf-bpe: warning: ...``); others as
    Python shows them."""
    if category.__module__.startswith("hf_bpe."):
        print(f"hf-bpe: warning: {message}", file=file or sys.stderr)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def _bug_report(error: BaseException) -> str:
    """An unexpected exception as one line for a bug report: its type, message, and the file, line and function
    that raised it.

    >>> try:
    ...     {}["x"]
    ... except KeyError as e:
    ...     print(_bug_report(e).split(" (raised in ")[0])
    KeyError: 'x'; this is a bug in hf_bpe, please report it with the command that gave it
    """
    frames = traceback.extract_tb(error.__traceback__)
    where = f" (raised in {Path(frames[-1].filename).name}:{frames[-1].lineno}, {frames[-1].name})" if frames else ""
    plea = "this is a bug in hf_bpe, please report it with the command that gave it"
    return f"{type(error).__name__}: {error}; {plea}{where}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``hf-bpe``; returns the exit status (0 ok, 1 runtime error, 2 usage error, 130/143 interrupted)."""
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return _main(argv)


def _main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        # argparse reports a subcommand's unknown option with the top-level usage; show the subcommand's.
        subparser(parser, args).error(f"unrecognized arguments: {' '.join(unknown)}")
    # SIGTERM unwinds like Ctrl-C, so temporary files are removed and earlier output stays as it was.
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    previous_interrupt = signal.signal(signal.SIGINT, _interrupt_once)
    try:
        if args.command == "train":
            return train_command(args)
        if args.command == "count":
            return count_command(args)
        if args.command == "convert":
            return convert_command(args)
        if args.command == "export":
            return export_command(args)
        if args.command == "report":
            return report_command(args)
        if args.command == "trim":
            from hf_bpe.cli.trim import trim_command

            return trim_command(args)
        if args.command == "encode":
            return encode_command(args)
        if args.command == "download":
            return download_command(args)
        if args.command == "verify":
            return verify_encode_command(args) if args.check == "encode" else verify_train_command(args)
    except UsageError as e:
        print(f"hf-bpe: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the group's further Ctrl-Cs may still be on their way
        print("hf-bpe: interrupted; nothing was written", file=sys.stderr)
        return 130
    except Terminated:
        print("hf-bpe: terminated; nothing was written", file=sys.stderr)
        return 143
    except (OSError, ValueError, RuntimeError) as e:
        print(f"hf-bpe: error: {e}", file=sys.stderr)
        return 1
    except (TypeError, KeyError, AttributeError, IndexError) as e:
        # Every user mistake hf_bpe knows of is a UsageError, an OSError or a ValueError naming the culprit: these
        # are hf_bpe's own bugs. Said so, with where they were raised, and still no traceback.
        print(f"hf-bpe: internal error: {_bug_report(e)}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            # Not interrupted: the caller's handler back. Interrupted: further Ctrl-Cs stay ignored while the
            # process exits (restoring Python's handler here let a late one kill it with status -2).
            signal.signal(signal.SIGINT, previous_interrupt)
    parser.error(f"unknown command {args.command!r}")
    return 2  # pragma: no cover
