"""The ``hf-bpe`` command: argument parsing and presentation only; the work is done by the library.

``hf-bpe train FILE... --output DIR`` trains like :func:`hf_bpe.training.train_from_files` and writes the
tokenizer directory. ``--config PATH`` reads a JSON preset (keys are the long option names with ``_``:
``vocab_size``, ``special_tokens``...); options given on the command line override it. User errors print one
line on stderr and exit with 2 (usage) or 1 (runtime), without a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: Options of ``train`` a config file may set, with their types, and their defaults (BpeTrainer's).
TRAIN_DEFAULTS: dict[str, Any] = {
    "vocab_size": 30000,
    "min_frequency": 0,
    "special_tokens": [],
    "add_prefix_space": False,
    "max_token_length": None,
    "limit_alphabet": None,
    "workers": None,
    "exclude_special_tokens": False,
    "bos_token": None,
    "eos_token": None,
    "unk_token": None,
    "pad_token": None,
}
_ROLES = ("bos_token", "eos_token", "unk_token", "pad_token")


class UsageError(Exception):
    """A mistake in the command line or the config file (exit status 2)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hf-bpe", description="Byte-level BPE training identical to HuggingFace tokenizers."
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    train = commands.add_parser("train", help="train a tokenizer on text files", description="Train on text files.")
    train.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files, read line by line")
    train.add_argument("--output", "-o", required=True, metavar="DIR", help="directory to write the tokenizer to")
    train.add_argument("--config", metavar="PATH", help="JSON preset; command-line options override it")
    # Defaults are None (SUPPRESS-like) so that we know what was given on the command line.
    train.add_argument("--vocab-size", type=_positive, default=None, metavar="N", help="default 30000")
    train.add_argument("--min-frequency", type=_non_negative, default=None, metavar="N", help="default 0")
    train.add_argument("--special-tokens", nargs="+", default=None, metavar="TOK", help="first ids, in order")
    train.add_argument("--add-prefix-space", action="store_true", default=None, help="space before each line")
    train.add_argument("--max-token-length", type=_positive, default=None, metavar="N")
    train.add_argument("--limit-alphabet", type=_non_negative, default=None, metavar="N")
    train.add_argument("--workers", type=_positive, default=None, metavar="N", help="counting processes")
    train.add_argument(
        "--exclude-special-tokens",
        action="store_true",
        default=None,
        help="cut special tokens out of the text before counting (tokenizers counts them as text)",
    )
    for role in _ROLES:
        train.add_argument(f"--{role.replace('_', '-')}", default=None, metavar="T", help=f"the {role}")
    train.add_argument("--no-progress", action="store_true", help="no progress bars")
    return parser


def _positive(text: str) -> int:
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return value


def _non_negative(text: str) -> int:
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative integer")
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def read_config(path: str) -> dict[str, Any]:
    """Read and check a JSON preset for ``train``.

    Raises:
        UsageError: naming the file and the bad key or value.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"--config {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"--config {path}: cannot read it ({e})") from None
    except json.JSONDecodeError as e:
        raise UsageError(f"--config {path}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    if not isinstance(data, dict):
        raise UsageError(f"--config {path}: expected a JSON object of options")
    config: dict[str, Any] = {}
    for key, value in data.items():
        if key.startswith("_") or key == "description":
            continue  # comments
        name = key.replace("-", "_")
        if name not in TRAIN_DEFAULTS:
            raise UsageError(f"--config {path}: unknown option {key!r}; known: {', '.join(TRAIN_DEFAULTS)}")
        if not _valid(name, value):
            raise UsageError(f"--config {path}: bad value {value!r} for {key!r}")
        config[name] = value
    return config


def _valid(name: str, value: Any) -> bool:
    default = TRAIN_DEFAULTS[name]
    if name == "special_tokens":
        return isinstance(value, list) and all(isinstance(t, str) and t for t in value)
    if isinstance(default, bool):
        return isinstance(value, bool)
    if name in _ROLES:
        return value is None or isinstance(value, str)
    if value is None:
        return default is None
    least = 0 if name in ("min_frequency", "limit_alphabet") else 1
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    settings = dict(TRAIN_DEFAULTS)
    if args.config:
        settings.update(read_config(args.config))
    for name in TRAIN_DEFAULTS:
        value = getattr(args, name, None)
        if value is not None:
            settings[name] = value
    # A role token that is not yet a special token becomes one (appended), so that --eos-token alone works.
    tokens = list(settings["special_tokens"])
    for role in _ROLES:
        token = settings[role]
        if token is not None and token not in tokens:
            tokens.append(token)
    settings["special_tokens"] = tokens
    return settings


def train_command(args: argparse.Namespace) -> int:
    from hf_bpe.training import train_from_files

    settings = _settings(args)
    roles = {role: settings[role] for role in _ROLES}
    bars: dict[str, Any] = {}

    def progress(stage: str, done: int, total: int) -> None:
        if args.no_progress:
            return
        from tqdm import tqdm

        if stage not in bars:
            for bar in bars.values():
                bar.close()
            if stage == "count":
                bars[stage] = tqdm(total=total, unit="B", unit_scale=True, desc="counting", file=sys.stderr)
            else:
                bars[stage] = tqdm(total=total, unit="merge", desc="merging", file=sys.stderr)
        bar = bars[stage]
        bar.update(done - bar.n)

    start = time.perf_counter()
    try:
        result = train_from_files(
            args.files,
            vocab_size=settings["vocab_size"],
            min_frequency=settings["min_frequency"],
            special_tokens=settings["special_tokens"],
            add_prefix_space=settings["add_prefix_space"],
            max_token_length=settings["max_token_length"],
            limit_alphabet=settings["limit_alphabet"],
            workers=settings["workers"],
            exclude_special_tokens=settings["exclude_special_tokens"],
            progress=progress,
        )
    finally:
        for bar in bars.values():
            bar.close()
    result.save(args.output, roles=roles)
    elapsed = time.perf_counter() - start
    print(
        f"vocab size {len(result.vocab)}, {result.merges_learned} merges learned, "
        f"stopped: {result.stop_reason}, {elapsed:.1f} s, written to {args.output}"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``hf-bpe``; returns the exit status (0 ok, 1 runtime error, 2 usage error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "train":
            return train_command(args)
    except UsageError as e:
        print(f"hf-bpe: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("hf-bpe: interrupted", file=sys.stderr)
        return 130
    except (OSError, ValueError, TypeError, KeyError) as e:
        print(f"hf-bpe: error: {e}", file=sys.stderr)
        return 1
    parser.error(f"unknown command {args.command!r}")
    return 2  # pragma: no cover


if __name__ == "__main__":
    sys.exit(main())
