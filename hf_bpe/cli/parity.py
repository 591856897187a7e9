"""``hf-bpe train --parity LANG=FILE ...``: parity-aware BPE (:func:`hf_bpe.models.bpe.parity.train_parity_aware`)
from the command line: its options, their checks (each refusal a :class:`UsageError` naming the option and the
value), the files read line by line and the summary printed. The training is the library's.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hf_bpe.cli.checks import check_counted_alike, check_output, check_special_tokens
from hf_bpe.cli.errors import UsageError
from hf_bpe.cli.presentation import Progress
from hf_bpe.cli.settings import ROLES, pre_tokenizer_of
from hf_bpe.counting.counts_dir import MANIFEST

if TYPE_CHECKING:
    from hf_bpe.pipeline.pre_tokenizers import PreTokenizer

#: ``train``'s reading of ``--continue-from`` (:func:`hf_bpe.cli.train.continued_base`).
ReadBase = Callable[[argparse.Namespace, dict[str, Any], Any], Any]
#: The options only parity-aware training takes (``args`` names), refused without ``--parity``.
PARITY_ONLY = ("dev", "ratio", "variant", "global_merges", "window_size", "alpha", "total_symbols", "num_merges")
#: ``train`` options parity-aware training does not take, each with why (refused by name).
NOT_PARITY = {
    "from_counts": "give each language's counts directory as --parity LANG=DIR",
    "char_level": "it trains byte-level BPE",
    "end_of_word_suffix": "it trains byte-level BPE",
    "continuing_subword_prefix": "it trains byte-level BPE",
    "max_token_length": "ParityBpeTrainer's max_token_length is not implemented by hf_bpe's parity trainer",
    "limit_alphabet": "ParityBpeTrainer's limit_alphabet is not implemented by hf_bpe's parity trainer",
    "scoring": "it is a WordPiece option",
    "strip_accents": "it is a WordPiece option",
    "max_input_chars_per_word": "it is a WordPiece option",
    "shrinking_factor": "it is a Unigram option",
    "max_piece_length": "it is a Unigram option",
    "n_sub_iterations": "it is a Unigram option",
}


def language_file(text: str) -> tuple[str, str]:
    """``LANG=FILE`` (argparse type of ``--parity`` and ``--dev``).

    >>> language_file("hi=corpus/hi.txt")
    ('hi', 'corpus/hi.txt')
    """
    language, equals, path = text.partition("=")
    if not equals or not language.strip() or not path:
        raise argparse.ArgumentTypeError(f"{text!r} is not LANG=FILE (e.g. en=english.txt)")
    return language.strip(), path


def language_ratio(text: str) -> tuple[str, float]:
    """``LANG=R``, R a positive number (argparse type of ``--ratio``).

    >>> language_ratio("ja=2.6")
    ('ja', 2.6)
    """
    language, equals, value = text.partition("=")
    try:
        ratio = float(value)
    except ValueError:
        ratio = math.nan
    if not equals or not language.strip() or not math.isfinite(ratio) or ratio <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not LANG=R with R a positive number (e.g. ja=2.6)")
    return language.strip(), ratio


def add_parity_options(group: Any) -> None:
    """The options of ``train --parity`` (``train`` only)."""
    group.add_argument("--parity", nargs="+", action="extend", type=language_file, metavar="LANG=FILE",
                       help="train parity-aware BPE on each language's files (repeat LANG=FILE for several files "
                       "of a language), or on its counts directory (LANG=DIR, as hf-bpe count writes it, on this "
                       "machine or with datatrove); each merge goes to the language served worst")  # fmt: skip
    group.add_argument("--dev", nargs="+", action="extend", type=language_file, metavar="LANG=FILE",
                       help="held-out (ideally parallel) text per language (or its counts directory, beside "
                       "counts directories): the language whose text is longest in tokens takes the next merge "
                       "(default: the training text's length)")  # fmt: skip
    group.add_argument(
        "--ratio",
        nargs="+",
        action="extend",
        type=language_ratio,
        metavar="LANG=R",
        help="instead of --dev: each language's target compression (only proportions matter)",
    )
    group.add_argument("--variant", choices=("base", "window"), default=None,
                       help="window: pass over a language holding more than alpha/languages of the last "
                       "--window-size choices (default: base)")  # fmt: skip
    group.add_argument(
        "--global-merges",
        type=_count(0),
        default=None,
        metavar="N",
        help="the first N merges from the counts summed over the languages (default: 0)",
    )
    group.add_argument("--window-size", type=_count(1), default=None, metavar="N", help="window variant (default 100)")
    group.add_argument("--alpha", type=_alpha, default=None, metavar="A", help="window variant (default 2.0)")
    group.add_argument("--num-merges", type=_count(0), default=None, metavar="N",
                       help="make N merges instead of aiming at --vocab-size")  # fmt: skip
    group.add_argument("--total-symbols", action="store_true", default=None,
                       help="with --num-merges: the vocabulary before any merge counts in N, which is then the "
                       "most tokens (what --vocab-size asks)")  # fmt: skip


def _count(least: int) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = least - 1
        if value < least:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer of at least {least}")
        return value

    return parse


def _alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


def refuse_parity_only(args: argparse.Namespace) -> None:
    """Without ``--parity``: refuse its own options by name."""
    given = [name for name in PARITY_ONLY if getattr(args, name, None) is not None]
    if given:
        option = given[0].replace("_", "-")
        raise UsageError(f"--{option} is an option of parity-aware training; add --parity LANG=FILE")


def _by_language(option: str, pairs: list[tuple[str, str]], languages: list[str] | None) -> dict[str, list[str]]:
    """``LANG=FILE`` pairs grouped by language in the order first given; each file must exist, and (``languages``
    given) each language be one of them."""
    grouped: dict[str, list[str]] = {}
    for language, path in pairs:
        if languages is not None and language not in languages:
            raise UsageError(
                f"--{option} {language}={path}: {language!r} is not a --parity language ({', '.join(languages)})"
            )
        if path == "-":
            raise UsageError(f"--{option} {language}=-: standard input is not read here; save it to a file first")
        if Path(path).is_dir() and not (Path(path) / MANIFEST).is_file():
            raise UsageError(
                f"--{option} {language}={path}: a directory without {MANIFEST}: give text files, or a counts "
                "directory `hf-bpe count` wrote (was its counting interrupted?)"
            )
        if not Path(path).exists():
            raise UsageError(f"--{option} {language}={path}: no such file")
        grouped.setdefault(language, []).append(path)
    for language, paths in grouped.items():
        if len(paths) > 1 and any(Path(path).is_dir() for path in paths):
            raise UsageError(
                f"--{option} {language}: a counts directory is the whole of a language's text; give {language} "
                f"one counts directory or text files ({', '.join(paths)})"
            )
    return grouped


def counted(grouped: dict[str, list[str]]) -> bool:
    """Whether the languages are given as counts directories (:func:`_by_language` keeps one per language)."""
    return any(Path(paths[0]).is_dir() for paths in grouped.values())


def parity_inputs(args: argparse.Namespace) -> tuple[dict[str, list[str]], dict[str, list[str]] | None, Any]:
    """The training files per language, the dev files per language (None without ``--dev``) and the ratios (None
    without ``--ratio``), checked."""
    train = _by_language("parity", args.parity, None)
    names = list(train)
    dev = None if args.dev is None else _by_language("dev", args.dev, names)
    if args.dev is not None and args.ratio is not None:
        raise UsageError("give --dev (held-out text per language) or --ratio (a target per language), not both")
    ratio = None
    if args.ratio is not None:
        ratio = {}
        for language, value in args.ratio:
            if language not in names:
                raise UsageError(f"--ratio {language}={value}: {language!r} is not a --parity language")
            if language in ratio:
                raise UsageError(f"--ratio {language} is given twice")
            ratio[language] = value
    for option, given in (("dev", dev), ("ratio", ratio)):
        missing = [name for name in names if given is not None and name not in given]
        if missing:
            raise UsageError(f"--{option} has nothing for {missing[0]!r}: give one for every --parity language")
    return train, dev, ratio


def _refuse_others(args: argparse.Namespace, settings: dict[str, Any]) -> None:
    """Refuse, by name, what ``train`` takes and parity-aware training does not."""
    if args.files:
        raise UsageError(
            f"FILE {args.files[0]}: with --parity every file is a language's: give it as LANG={args.files[0]}"
        )
    if settings["model"] != "bpe":
        raise UsageError(f"--model {settings['model']}: parity-aware training trains byte-level BPE")
    for name, why in NOT_PARITY.items():
        if getattr(args, name, None) not in (None, False) or (name in settings and settings[name] not in (None, False)):
            raise UsageError(f"--{name.replace('_', '-')} does not go with --parity: {why}")
    for name in ("clean_text", "handle_chinese_chars"):
        if not settings[name]:
            raise UsageError(f"--no-{name.replace('_', '-')} does not go with --parity: it is a WordPiece option")
    if len(settings["vocab_sizes"]) > 1:
        raise UsageError("--parity trains one --vocab-size at a time")
    if args.num_merges is not None and args.vocab_size is not None:
        raise UsageError("give --vocab-size (the most tokens) or --num-merges (how many merges), not both")
    if args.total_symbols and args.num_merges is None:
        raise UsageError("--total-symbols goes with --num-merges (--vocab-size counts every token already)")


def read_lines(paths: list[str], errors: str) -> Iterator[str]:
    """The files' lines, line endings kept, as ``tokenizers`` reads a file for training (compressed ones
    decompressed).

    Raises:
        ValueError: naming the file and line of invalid UTF-8 (``errors="strict"``).
    """
    from hf_bpe.counting.sources import open_binary
    from hf_bpe.utf8 import invalid_utf8

    for path in paths:
        with open_binary(path) as stream:
            offset = 0
            for number, line in enumerate(stream):
                try:
                    yield line.decode("utf-8", errors)
                except UnicodeDecodeError as e:
                    located = invalid_utf8(path, e, line, base=offset, lines_before=number)
                    raise ValueError(f"{located}; fix the file, or give --encoding-errors replace") from e
                offset += len(line)


def train_parity(args: argparse.Namespace, settings: dict[str, Any], read_base: ReadBase) -> int:
    """``hf-bpe train --parity``: check, train with :func:`~hf_bpe.models.bpe.parity.train_parity_aware`, write
    the tokenizer directory, print the summary. ``read_base``: ``train``'s reading of ``--continue-from`` (passed
    in: this module is below ``train``'s)."""
    from hf_bpe.models.bpe.parity import check_parity_options

    _refuse_others(args, settings)
    check_special_tokens(args)
    train, dev, ratio = parity_inputs(args)
    # A bad --regex or pattern refused before any work, the pre-tokenizer built once and handed on; a base keeps its
    # own cut (only --regex is built, for the base to refuse it by name).
    cut = pre_tokenizer_of(settings) if not args.continue_from or settings["regex"] else None
    base = _base(args, settings, read_base, cut)
    if counted(train):
        if not all(Path(paths[0]).is_dir() for paths in train.values()):
            raise UsageError(
                "--parity: give every language as a counts directory (hf-bpe count FILE -o DIR) or every one as "
                "text files, not some of each"
            )
        for paths in [*train.values(), *(dev or {}).values()]:
            if Path(paths[0]).is_dir():
                check_counted_alike(paths[0], args, cut)
    elif dev is not None and counted(dev):
        name = next(name for name, paths in dev.items() if Path(paths[0]).is_dir())
        raise UsageError(
            f"--dev {name}={dev[name][0]} is a counts directory: it goes with --parity counts directories; give the "
            "dev text files"
        )
    num_merges = settings["vocab_size"] if args.num_merges is None else args.num_merges
    options: dict[str, Any] = {
        "variant": args.variant or "base",
        "num_merges": num_merges,
        "min_frequency": settings["min_frequency"],
        "global_merges": args.global_merges or 0,
        "window_size": args.window_size or 100,
        "alpha": 2.0 if args.alpha is None else args.alpha,
        "total_symbols": args.num_merges is None or bool(args.total_symbols),
    }
    try:
        check_parity_options(list(train), dev, ratio, **{k: v for k, v in options.items() if k != "total_symbols"})
    except ValueError as e:
        raise UsageError(str(e)) from None
    check_output(args.output, force=args.force, source=args.continue_from)
    start = time.perf_counter()
    progress = Progress(not args.no_progress and not args.json)
    try:
        result = _train(train, dev, ratio, {**options, "progress": progress}, settings, (base, cut))
    finally:
        progress.close()
    roles = {role: settings[role] for role in ROLES}
    if base is not None:
        roles = {**base.roles, **{role: token for role, token in roles.items() if token is not None}}
    result.save(args.output, roles=roles, force=args.force)
    _print_summary(args, list(train), result, time.perf_counter() - start)
    return 0


def _train(
    train: dict[str, list[str]],
    dev: dict[str, list[str]] | None,
    ratio: dict[str, float] | None,
    options: dict[str, Any],
    settings: dict[str, Any],
    start: tuple[Any, PreTokenizer | None],
) -> Any:
    """Train on the languages' text files, or on their counts directories (each as ``hf-bpe count`` wrote it, on
    this machine or with datatrove; ``--dev`` may be either), with the library's front end for each. ``start``:
    the base (or None) and the pre-tokenizer :func:`train_parity` built."""
    from hf_bpe.models.bpe.parity import train_parity_aware, train_parity_from_count_directories

    errors = settings["encoding_errors"]
    base, cut = start

    def texts(paths: list[str]) -> Any:
        return paths[0] if Path(paths[0]).is_dir() else read_lines(paths, errors)

    common = {"ratio": ratio, "special_tokens": settings["special_tokens"], "workers": settings["workers"]}
    development = None if dev is None else {name: texts(paths) for name, paths in dev.items()}
    if counted(train):
        return train_parity_from_count_directories(
            {name: paths[0] for name, paths in train.items()},
            dev=development, continue_from=base, **common, **options,
        )  # fmt: skip
    return train_parity_aware(
        {name: read_lines(paths, errors) for name, paths in train.items()},
        dev=development,
        pre_tokenizer=cut if base is None else None,
        add_prefix_space=False if base is None else settings["add_prefix_space"],
        exclude_special_tokens=settings["exclude_special_tokens"],
        continue_from=base,
        **common,
        **options,
    )


def _base(args: argparse.Namespace, settings: dict[str, Any], read_base: ReadBase, cut: PreTokenizer | None) -> Any:
    """The tokenizer ``--continue-from`` names (None without it), checked by ``read_base`` as ``train
    --continue-from`` checks it (a byte-level BPE base, no cutting option of its own, --vocab-size at least its
    size)."""
    if not args.continue_from:
        return None
    # --num-merges counts new merges: no size to check against the base's (with --total-symbols the library does).
    return read_base(args, settings if args.num_merges is None else {**settings, "vocab_sizes": [sys.maxsize]}, cut)


def _print_summary(args: argparse.Namespace, languages: list[str], result: Any, elapsed: float) -> None:
    """What training gave: a line, or one JSON object with ``--json``."""
    if args.json:
        summary = {
            "output": str(args.output),
            "languages": languages,
            "vocab_size": len(result.vocab),
            "merges": result.merges_learned,
            "stop_reason": result.stop_reason,
            "seconds": round(elapsed, 3),
        }
        print(json.dumps(summary, ensure_ascii=False))
        return
    print(
        f"parity-aware BPE over {len(languages)} languages ({', '.join(languages)}): vocab size {len(result.vocab)}, "
        f"{result.merges_learned} merges learned, stopped: {result.stop_reason}, {elapsed:.1f} s, "
        f"written to {args.output}",
        file=sys.stdout,
    )
