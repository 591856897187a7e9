"""The ``hf-bpe`` command: argument parsing and presentation only; the work is done by the library.

``hf-bpe train FILE... --output DIR`` trains like :func:`hf_bpe.models.bpe.training.train_from_files` and writes the
tokenizer directory; ``count`` writes a counts directory (:mod:`hf_bpe.counting.counts_dir`); ``encode`` shows a
tokenizer's tokens and ids; ``download gpt2`` writes GPT-2's tokenizer (:mod:`hf_bpe.reference.gpt2`); ``verify`` checks
parity with the references (:mod:`hf_bpe.reference.verify`). ``--config NAME|PATH`` reads a JSON preset, by name from
``configs/`` or from a file (keys are the long option names with ``_``: ``vocab_size``,
``special_tokens``...); options given on the command line override it. User errors print one line on stderr and
exit with 2 (usage) or 1 (runtime), without a traceback; Ctrl-C exits 130, SIGTERM 143, with nothing written.

Options are declared in argument groups (:func:`_training_groups`), one ``add_argument`` per option, with its
default in its help.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from hf_bpe.cli.directories import (
    BYTE_LEVEL,
    KINDS,
    TokenizerDir,
    kind_of,
    load_tokenizer,
    token_text,
    tokenizer_dir,
)
from hf_bpe.cli.errors import EXIT_STATUSES, UsageError

if TYPE_CHECKING:
    from hf_bpe.pipeline.pre_tokenizers import PreTokenizer

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
    "regex": None,
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
#: Where ``--config NAME`` finds presets: the clone's ``configs/`` beside the package (a clone, an editable install)
#: and where a wheel installs them (its data files, ``share/hf-bpe/configs``).
CONFIG_DIRS = (Path(__file__).resolve().parents[2] / "configs", Path(sys.prefix) / "share" / "hf-bpe" / "configs")


class _Parser(argparse.ArgumentParser):
    """A parser whose usage errors are one line and a pointer to ``--help`` (exit 2), not the whole usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n(see '{self.prog} --help')\n")


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the examples' line breaks; wider option columns so the help reads as a table."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=36, width=min(120, shutil.get_terminal_size().columns))


def _default(name: str) -> str:
    """`` (default: X)`` for a ``train`` option, from :data:`TRAIN_DEFAULTS`."""
    value = TRAIN_DEFAULTS[name]
    return "" if value is None or value is False or value == [] else f" (default: {value})"


def _training_groups(parser: argparse.ArgumentParser) -> dict[str, Any]:
    """The option groups of ``train`` and ``verify train``, by name; an option is one line in one of them."""
    return {
        "input": parser.add_argument_group("input"),
        "output": parser.add_argument_group("output"),
        "vocabulary": parser.add_argument_group("vocabulary"),
        "special": parser.add_argument_group("special tokens"),
        "pretokenize": parser.add_argument_group("how the text is cut (must match how the tokenizer is used)"),
        "char": parser.add_argument_group("classic char-level BPE (GPT-1 / Sennrich)"),
        "model": parser.add_argument_group("the model (BPE by default)"),
        "run": parser.add_argument_group("running"),
    }


def _add_training_options(groups: dict[str, Any], *, verify: bool = False) -> None:
    """The options of ``train``, and of ``verify train`` (``verify``: only those it takes: byte-level BPE and
    Unigram). Defaults are None here, so that what the command line gives can override a ``--config`` preset; the
    real defaults are :data:`TRAIN_DEFAULTS`."""
    _add_input_and_vocabulary_options(groups, several_sizes=not verify)
    _add_special_token_options(groups["special"])
    groups["pretokenize"].add_argument(
        "--add-prefix-space",
        action="store_true",
        default=None,
        help="a space before each line that does not start with one",
    )
    _add_pattern_options(groups["pretokenize"])
    groups["run"].add_argument(
        "--workers",
        type=_positive,
        default=None,
        metavar="N",
        help="processes; the result is the same for any number (default: the CPU count)",
    )
    if verify:
        groups["model"].add_argument(
            "--model", choices=("bpe", "unigram"), default=None, help="bpe (default) or unigram"
        )
    else:
        _add_char_level_options(groups["char"])
        groups["model"].add_argument(
            "--model",
            choices=("bpe", "wordpiece", "unigram"),
            default=None,
            help="bpe (default), wordpiece (BERT's: vocab.txt, BertNormalizer, BertPreTokenizer) or unigram "
            "(SentencePiece's recipe)",
        )
        _add_wordpiece_options(groups["model"])
    _add_unigram_options(groups["model"])


def _add_input_and_vocabulary_options(g: dict[str, Any], *, several_sizes: bool = True) -> None:
    """``--config``, ``--encoding-errors`` and the vocabulary's size (or sizes) and limits."""
    g["input"].add_argument(
        "--config",
        metavar="NAME|PATH",
        help=f"a preset ({', '.join(preset_names())}) or a JSON file; options given win",
    )
    g["input"].add_argument(
        "--encoding-errors",
        choices=("strict", "replace"),
        default=None,
        help="invalid UTF-8: stop at its file:line (strict) or train on with U+FFFD" + _default("encoding_errors"),
    )
    g["vocabulary"].add_argument(
        "--vocab-size",
        type=_vocab_sizes if several_sizes else _one_vocab_size,
        default=None,
        metavar="N[,N...]" if several_sizes else "N",
        help="tokens wanted, special tokens and the 256 bytes included"
        + _default("vocab_size")
        + ("; several (8000,16000,32000) write DIR/8000/ ... from one run" if several_sizes else ""),
    )
    g["vocabulary"].add_argument(
        "--min-frequency",
        type=_non_negative,
        default=None,
        metavar="N",
        help="stop when the best pair occurs fewer times" + _default("min_frequency"),
    )
    g["vocabulary"].add_argument(
        "--max-token-length",
        type=_positive,
        default=None,
        metavar="N",
        help="no token longer than N characters (default: no limit)",
    )
    g["vocabulary"].add_argument(
        "--limit-alphabet",
        type=_non_negative,
        default=None,
        metavar="N",
        help="keep the N most frequent characters (default: all)",
    )


def _add_special_token_options(group: Any) -> None:
    """The special tokens, their roles and whether training text is cut around them."""
    group.add_argument(
        "--special-tokens",
        nargs="+",
        default=None,
        metavar="TOK",
        help="tokens with the first ids, in order; takes every word after it, so put FILEs "
        "first (or end the tokens with --)",
    )
    group.add_argument(
        "--exclude-special-tokens",
        action="store_true",
        default=None,
        help="cut special tokens out of the text before counting (tokenizers counts them)",
    )
    for role in _ROLES:
        group.add_argument(
            f"--{role.replace('_', '-')}",
            default=None,
            metavar="TOK",
            help=f"the {role.removesuffix('_token')} token (made a special token if need be)",
        )


def _add_char_level_options(group: Any) -> None:
    """Classic char-level BPE (``train`` only)."""
    group.add_argument(
        "--char-level",
        action="store_true",
        default=None,
        help="words split on white space, no byte mapping, an end-of-word suffix",
    )
    group.add_argument(
        "--end-of-word-suffix",
        default=None,
        metavar="S",
        help="glued to each word's last character (default: '</w>'; '' for none)",
    )
    group.add_argument(
        "--continuing-subword-prefix",
        default=None,
        metavar="P",
        help="glued to every other character, e.g. ## (default: none)",
    )
    group.add_argument("--lowercase", action="store_true", default=None, help="lowercase the text first")


def _add_wordpiece_options(group: Any) -> None:
    """BERT's recipe and WordPiece's scoring (``train --model wordpiece``)."""
    group.add_argument(
        "--scoring",
        choices=("frequency", "likelihood"),
        default=None,
        help="wordpiece: frequency (tokenizers' WordPieceTrainer, default) or likelihood (the HF course's)",
    )
    group.add_argument(
        "--no-lowercase", dest="lowercase", action="store_false", default=None, help="wordpiece: keep case"
    )
    group.add_argument(
        "--strip-accents", action="store_true", default=None, help="wordpiece: strip accents (default: if lowercasing)"
    )
    group.add_argument("--no-strip-accents", dest="strip_accents", action="store_false", default=None)
    group.add_argument(
        "--no-clean-text", dest="clean_text", action="store_false", default=None, help="wordpiece: keep controls"
    )
    group.add_argument(
        "--no-chinese-chars",
        dest="handle_chinese_chars",
        action="store_false",
        default=None,
        help="wordpiece: CJK ideographs are not words of their own",
    )
    group.add_argument(
        "--max-input-chars-per-word", type=_positive, default=None, metavar="N", help="wordpiece (default 100)"
    )


def _add_unigram_options(group: Any) -> None:
    """The Unigram trainer's own options."""
    group.add_argument("--shrinking-factor", type=float, default=None, metavar="F", help="unigram (default 0.75)")
    group.add_argument("--max-piece-length", type=_positive, default=None, metavar="N", help="unigram (default 16)")
    group.add_argument("--n-sub-iterations", type=_positive, default=None, metavar="N", help="unigram (default 2)")


def _sub(commands: Any, name: str, summary: str, description: str, example: str) -> argparse.ArgumentParser:
    return commands.add_parser(
        name,
        help=summary,
        description=description,
        epilog=f"example:\n{example}\n\n{EXIT_STATUSES}",
        formatter_class=_Formatter,
    )


def _add_pattern_options(group: Any) -> None:
    """``--pattern``, ``--regex`` and ``--normalizer``: how byte-level text is cut (train, count, verify train).

    ``--pattern`` takes a preset's name only, so a mistyped one is refused with the list instead of becoming a
    regex that matches nothing; a split of one's own is asked for by ``--regex``."""
    from hf_bpe.pipeline.pre_tokenizers import NORMALIZERS, PRESETS

    split = group.add_mutually_exclusive_group()
    split.add_argument(
        "--pattern",
        choices=PRESETS,
        default=None,
        metavar="NAME",
        help=f"the split of a model family: {', '.join(PRESETS)} (default: gpt2)",
    )
    split.add_argument(
        "--regex",
        default=None,
        metavar="REGEX",
        help="a split of your own, as tokenizers' Split(REGEX, 'isolated'), e.g. '\\p{L}+|\\p{N}|\\s+'",
    )
    group.add_argument(
        "--normalizer",
        choices=NORMALIZERS,
        default=None,
        help="default: the preset's (qwen2: nfc; the others and --regex: none)",
    )


def build_parser() -> argparse.ArgumentParser:
    from hf_bpe import __version__
    from hf_bpe.pipeline.pre_tokenizers import PRESETS

    parser = _Parser(
        prog="hf-bpe",
        description="Byte-level BPE training identical to HuggingFace tokenizers, in pure Python.",
        epilog="examples:\n"
        "  hf-bpe train corpus.txt -o my-tokenizer --vocab-size 32000 --special-tokens '<|endoftext|>'\n"
        "  hf-bpe encode my-tokenizer 'Hello world'\n"
        "  hf-bpe download gpt2 gpt2-tokenizer\n\n"
        "'hf-bpe COMMAND --help' shows a command's options.",
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"hf-bpe {__version__}")
    parser._positionals.title = "commands"
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    train = _sub(
        commands, "train", "train a tokenizer on text files",
        "Train on text files (each read line by line, line endings kept, as tokenizers reads them; .gz, .bz2, .xz,\n"
        ".zst are decompressed; - is standard input) and write vocab.json, merges.txt, tokenizer_config.json and\n"
        "tokenizer.json to DIR, all four or none.",
        "  hf-bpe train a.txt b.txt -o my-tokenizer --vocab-size 32000 --special-tokens '<|endoftext|>'\n"
        "  hf-bpe train corpus/*.txt -o my-tokenizer --config gpt2 --vocab-size 8000",
    )  # fmt: skip
    groups = _training_groups(train)
    groups["input"].add_argument("files", nargs="*", metavar="FILE", help="text files, read line by line")
    groups["input"].add_argument("--from-counts", metavar="DIR",
                                 help="train on a counts directory from 'hf-bpe count' instead of files")  # fmt: skip
    groups["input"].add_argument("--continue-from", metavar="DIR",
                                 help="continue training this byte-level BPE tokenizer: every id, merge, special token "
                                 "and its pre-tokenizer kept, new merges after its own")  # fmt: skip
    output = groups["output"]
    output.add_argument("--output", "-o", required=True, metavar="DIR", help="the tokenizer directory to write")
    output.add_argument("--force", action="store_true",
                        help="remove another tokenizer's special_tokens_map.json, added_tokens.json or chat "
                        "templates from DIR (they would load with the new one); else they are refused")  # fmt: skip
    output.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    output.add_argument("--no-progress", action="store_true", help="no progress bars")
    _add_training_options(groups)

    count = _sub(
        commands, "count", "count pre-tokens into a counts directory (for 'train --from-counts')",
        "Count the pre-tokens of text files, on this machine or with datatrove (locally, on Slurm or on Ray),\n"
        "into a counts directory that 'hf-bpe train --from-counts' trains on.",
        "  hf-bpe count corpus/*.txt -o counts/ && hf-bpe train --from-counts counts/ -o my-tokenizer\n"
        "  hf-bpe count corpus/*.txt -o /shared/counts --engine datatrove --executor slurm \\\n"
        "      --executor-option partition=cpu --executor-option time=01:00:00",
    )  # fmt: skip
    count_input = count.add_argument_group("input")
    count_input.add_argument("files", nargs="+", metavar="FILE", help="text files, read line by line")
    count_input.add_argument("--encoding-errors", choices=("strict", "replace"), default="strict",
                             help="invalid UTF-8: stop (strict) or count with U+FFFD (default: strict)")  # fmt: skip
    count_output = count.add_argument_group("output")
    count_output.add_argument("--output", "-o", required=True, metavar="DIR", help="the counts directory to write")
    count_output.add_argument("--buckets", type=_positive, default=16, metavar="N", help="bucket files (default: 16)")
    count_output.add_argument("--no-progress", action="store_true", help="no progress bars")
    cutting = count.add_argument_group("how the text is cut (training takes it from the counts directory)")
    cutting.add_argument("--add-prefix-space", action="store_true", help="a space before each line")
    cutting.add_argument("--special-tokens", nargs="+", default=[], metavar="TOK",
                         help="with --exclude-special-tokens: cut out of the text; put FILEs first")  # fmt: skip
    cutting.add_argument("--exclude-special-tokens", action="store_true", help="cut special tokens out of the text")
    _add_pattern_options(cutting)
    cutting.add_argument("--model", choices=("bpe", "wordpiece", "unigram"), default="bpe",
                         help="wordpiece: count words cut by BERT's recipe; unigram: by the SentencePiece recipe "
                         "(default: bpe)")  # fmt: skip
    cutting.add_argument("--no-lowercase", dest="lowercase", action="store_false", help="wordpiece: keep case")
    cutting.add_argument("--strip-accents", dest="strip_accents", action="store_true", default=None,
                         help="wordpiece: strip accents (default: if lowercasing)")  # fmt: skip
    cutting.add_argument("--no-strip-accents", dest="strip_accents", action="store_false", default=None)
    cutting.add_argument("--no-clean-text", dest="clean_text", action="store_false", help="wordpiece: keep controls")
    cutting.add_argument("--no-chinese-chars", dest="handle_chinese_chars", action="store_false",
                         help="wordpiece: CJK ideographs are not words of their own")  # fmt: skip
    engine = count.add_argument_group("where the counting runs")
    engine.add_argument("--workers", type=_positive, default=None, metavar="N",
                        help="processes, or datatrove tasks at once (default: the CPU count)")  # fmt: skip
    engine.add_argument("--engine", choices=("local", "datatrove"), default="local",
                        help="this machine's processes, or datatrove (default: local)")  # fmt: skip
    engine.add_argument("--executor", choices=("local", "ray", "slurm"), default="local",
                        help="datatrove's executor (default: local)")  # fmt: skip
    engine.add_argument("--tasks", type=_positive, default=None, metavar="N",
                        help="datatrove tasks (default: 4 per worker)")  # fmt: skip
    engine.add_argument("--executor-option", action="append", default=[], metavar="KEY=VALUE", type=_key_value,
                        help="passed to datatrove's executor, e.g. partition=gpu, time=02:00:00, cpus_per_task=4 "
                        "(VALUE is read as JSON if it parses, else as a string); repeat for more")  # fmt: skip

    encode_command = _sub(
        commands, "encode", "encode text with a tokenizer directory and show the tokens",
        "Encode TEXT with the tokenizer in DIR (or GPT-2's, with gpt2) and print its tokens and ids.",
        "  hf-bpe encode my-tokenizer 'Hello world'",
    )  # fmt: skip
    encode_command.add_argument("tokenizer", metavar="DIR|gpt2", help="a tokenizer directory, or gpt2")
    encode_command.add_argument("texts", nargs="+", metavar="TEXT", help="the text to encode")
    encode_command.add_argument("--json", action="store_true", help="one JSON object per TEXT")

    download = _sub(
        commands, "download", "write GPT-2's tokenizer into a directory",
        "Write GPT-2's tokenizer (vocab.json, merges.txt, tokenizer_config.json, tokenizer.json) into DIR, loadable\n"
        "with AutoTokenizer with or without hf_bpe. The vocabulary comes from the openai-whisper source archive on\n"
        "the package index (fetched once with pip, about 800 KB, checked by SHA-256, cached in ~/.cache/hf_bpe or\n"
        "$HF_BPE_CACHE), converted from its gpt2.tiktoken rank file.",
        "  hf-bpe download gpt2 gpt2-tokenizer",
    )  # fmt: skip
    download.add_argument("name", choices=("gpt2",), help="the tokenizer (gpt2)")
    download.add_argument("output", metavar="DIR", help="the directory to write")
    download.add_argument("--force", action="store_true", help="remove another tokenizer's extra files from DIR")

    convert = commands.add_parser(
        "convert",
        help="write a tokenizer directory for another format's vocabulary",
        description="Convert a vocabulary to a tokenizer directory that AutoTokenizer loads, with and without hf_bpe.",
        formatter_class=_Formatter,
    )
    formats = convert.add_subparsers(dest="format", metavar="FORMAT")
    formats.required = True
    tiktoken = _sub(
        formats, "tiktoken", "a tiktoken rank file (.tiktoken)",
        "Convert a tiktoken rank file, or OpenAI's cl100k_base / o200k_base fetched from the package index, to\n"
        "vocab.json, merges.txt, tokenizer_config.json and tokenizer.json.",
        "  hf-bpe convert tiktoken cl100k_base -o cl100k-tokenizer",
    )  # fmt: skip
    tiktoken.add_argument("ranks", metavar="RANKS_FILE|cl100k_base|o200k_base", help="a .tiktoken file, or a name")
    tiktoken.add_argument("--output", "-o", required=True, metavar="DIR", help="directory to write")
    split = tiktoken.add_mutually_exclusive_group()
    split.add_argument(
        "--pattern",
        choices=PRESETS,
        default=None,
        metavar="NAME",
        help=f"the split: a preset ({', '.join(PRESETS)}; default for the named encodings: theirs)",
    )
    split.add_argument("--regex", default=None, metavar="REGEX", help="a split of your own, as tiktoken reads it")
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
        formatter_class=_Formatter,
    )
    targets = export.add_subparsers(dest="format", metavar="FORMAT")
    targets.required = True
    to_tiktoken = _sub(
        targets, "tiktoken", "a tiktoken rank file",
        "Write the vocabulary as a .tiktoken rank file (rank = id) and check that tiktoken's merge rule gives the\n"
        "directory's merges.",
        "  hf-bpe export tiktoken my-tokenizer -o my-tokenizer.tiktoken",
    )  # fmt: skip
    to_tiktoken.add_argument("directory", metavar="DIR", help="a tokenizer directory (vocab.json + merges.txt)")
    to_tiktoken.add_argument("--output", "-o", required=True, metavar="FILE", help="the .tiktoken file to write")

    report = _sub(
        commands, "report", "what tokenizers buy on sample text: compression, vocabulary use",
        "Encode sample files with each tokenizer directory; print bytes per token, tokens per word, the share of\n"
        "the vocabulary used, the longest tokens; --plot draws compression against vocabulary size.",
        "  hf-bpe report tok-8k tok-32k --sample docs.txt --plot report.png",
    )  # fmt: skip
    report.add_argument("directories", nargs="+", metavar="DIR", help="byte-level tokenizer directories")
    report.add_argument("--sample", nargs="+", required=True, metavar="FILE", help="UTF-8 text files to encode")
    report.add_argument("--plot", metavar="OUT.png", help="also draw the figures (needs matplotlib)")
    report.add_argument("--json", action="store_true", help="print the figures as JSON")

    verify = commands.add_parser(
        "verify",
        help="check parity with the references on your own data",
        description="Check hf_bpe against the references (tokenizers, tiktoken, transformers) on your own data.",
        epilog=f"examples:\n  hf-bpe verify train docs.txt --vocab-size 8000\n"
        f"  hf-bpe verify encode --tokenizer gpt2 --against tiktoken docs.txt\n\n{EXIT_STATUSES}",
        formatter_class=_Formatter,
    )
    checks = verify.add_subparsers(dest="check", metavar="CHECK")
    checks.required = True
    encode = _sub(
        checks, "encode", "encode with hf_bpe and a reference, report differences",
        "Encode every line (or document) with hf_bpe and with a reference; exit 0 only if all match.",
        "  hf-bpe verify encode --tokenizer gpt2 --against tiktoken docs.txt",
    )  # fmt: skip
    encode.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files")
    encode.add_argument("--tokenizer", required=True, metavar="DIR|gpt2", help="a tokenizer directory, or gpt2")
    encode.add_argument("--against", choices=("tiktoken", "transformers"), default="transformers",
                        help="the reference (default: transformers)")  # fmt: skip
    encode.add_argument("--ranks", metavar="PATH", help="tiktoken rank file for --against tiktoken (default: GPT-2's)")
    encode.add_argument("--unit", choices=("line", "document"), default="line", help="default: line")
    encode.add_argument("--examples", type=_positive, default=5, metavar="N",
                        help="differences shown in full (default: 5)")  # fmt: skip
    encode.add_argument("--json", action="store_true", help="print the report as JSON")
    encode.add_argument("--no-progress", action="store_true", help="no progress bar")
    training = _sub(
        checks, "train", "train with hf_bpe and tokenizers, compare",
        "Train with hf_bpe and with tokenizers the same way; compare ids and merges.",
        "  hf-bpe verify train docs.txt --vocab-size 8000",
    )  # fmt: skip
    verify_groups = _training_groups(training)
    verify_groups["input"].add_argument("files", nargs="+", metavar="FILE", help="text files, read line by line")
    _add_training_options(verify_groups, verify=True)
    report = verify_groups["output"]
    report.add_argument("--json", action="store_true", help="print the report as JSON")
    report.add_argument("--no-progress", action="store_true", help="no progress bars")
    return parser


def _vocab_sizes(text: str) -> list[int]:
    """``N`` or ``N,N,...``: the sizes, sorted, each positive."""
    try:
        sizes = sorted({_positive(part) for part in text.split(",")})
    except argparse.ArgumentTypeError as e:
        raise argparse.ArgumentTypeError(f"{text!r}: give a vocabulary size or sizes separated by commas ({e})") from e
    return sizes


def _one_vocab_size(text: str) -> list[int]:
    """``N``: one vocabulary size (``verify train`` compares one run)."""
    return [_positive(text)]


def _key_value(text: str) -> tuple[str, Any]:
    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    try:
        parsed: Any = json.loads(value)
    except json.JSONDecodeError:
        parsed = value
    return key.strip(), parsed


def _subparser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub)command ``args`` ran, so its errors show its own usage."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            name = getattr(args, action.dest, None)
            if name in action.choices:
                return _subparser(action.choices[name], args)
    return parser


def preset_names() -> list[str]:
    """The presets ``--config`` knows by name (``configs/*.json``).

    >>> preset_names()
    ['code', 'demo', 'gpt2', 'llama3', 'o200k', 'qwen2']
    """
    return sorted({path.stem for directory in CONFIG_DIRS for path in directory.glob("*.json")})


def _config_file(name: str) -> Path | None:
    """The preset file called ``name``, if one of :data:`CONFIG_DIRS` has it."""
    return next((d / f"{name}.json" for d in CONFIG_DIRS if (d / f"{name}.json").is_file()), None)


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
    file = Path(path)
    if not file.exists():
        file = _config_file(path) or file
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(
            f"--config {path}: no such file, and not a preset name ({', '.join(preset_names())})"
        ) from None
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
        if name == "pattern" and value not in (None, *_preset_patterns()):
            raise UsageError(
                f"--config {path}: pattern {value!r} is no preset ({', '.join(_preset_patterns())}); "
                "a split of your own is the key 'regex'"
            )
        if not _valid(name, value):
            raise UsageError(f"--config {path}: bad value {value!r} for {key!r}")
        config[name] = value
    if config.get("pattern") and config.get("regex"):
        raise UsageError(f"--config {path}: give 'pattern' (a preset) or 'regex' (your own split), not both")
    return config


def _preset_patterns() -> list[str]:
    """The names ``--pattern`` and a config's ``pattern`` take."""
    from hf_bpe.pipeline.pre_tokenizers import PRESETS

    return list(PRESETS)


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
    if name in ("end_of_word_suffix", "continuing_subword_prefix", "regex"):
        return value is None or isinstance(value, str)
    if name == "pattern":
        from hf_bpe.pipeline.pre_tokenizers import PRESETS

        return value is None or value in PRESETS
    if name == "normalizer":
        from hf_bpe.pipeline.pre_tokenizers import NORMALIZERS

        return value is None or value in NORMALIZERS
    if name == "model":
        return value in ("bpe", "wordpiece", "unigram")
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
    if getattr(args, "pattern", None) or getattr(args, "regex", None):
        # The command line's split replaces the config's, whichever way either gives it.
        given.pop("pattern", None)
        given.pop("regex", None)
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
    for token in tokens:
        if not token or tokens.count(token) > 1:
            problem = "is empty" if not token else "is given twice; list each special token once"
            raise UsageError(f"special token {token!r} {problem}")
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
    from hf_bpe.models.bpe.options import CharLevel

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
    """The BPE pre-tokenizer the settings describe, built before any work: a regex that does not compile or an
    option the kind of BPE does not take is a usage error.

    Raises:
        UsageError: with the library's reason.
    """
    return _cut(
        "--regex" if settings["regex"] else "--char-level" if settings["char_level"] else "--pattern",
        pattern=settings["pattern"],
        regex=settings["regex"],
        normalizer=settings["normalizer"],
        add_prefix_space=settings["add_prefix_space"],
        special_tokens=settings["special_tokens"],
        exclude_special_tokens=settings["exclude_special_tokens"],
        char_level=_char_level(settings),
    )


def _cut(option: str, **keywords: Any) -> PreTokenizer:
    """:func:`~hf_bpe.models.bpe.training.pre_tokenizer_for`, its ValueError a usage error naming ``option``."""
    from hf_bpe.models.bpe.training import pre_tokenizer_for

    try:
        return pre_tokenizer_for(**keywords)
    except ValueError as e:
        raise UsageError(f"{option}: {e}") from None


def _merging_options(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings the merge loop takes (the rest are about reading and cutting the text)."""
    names = ("vocab_size", "min_frequency", "special_tokens", "max_token_length", "limit_alphabet")
    return {name: settings[name] for name in names}


def _check_output(path: str, *, force: bool = False, tokenizer: bool = True) -> None:
    """Refuse, before any work is done, an output path that cannot become a writable directory, and (for a
    tokenizer directory, without ``force``) one holding another tokenizer's files that would be loaded with ours.
    """
    from hf_bpe.models.directory import check_no_stale_files

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
        check_no_stale_files(target)


def _remove_foreign_files(output: str, *, force: bool) -> None:
    """With ``--force``, remove another tokenizer's files (special_tokens_map.json, ...) from a WordPiece or Unigram
    directory just written: its writers keep them, and :func:`_check_output` let them through because of ``force``.
    Removed with signals held, after the new files are in place, so an interruption loses nothing."""
    from hf_bpe.atomic import write_files
    from hf_bpe.models.directory import stale_tokenizer_files

    stale = stale_tokenizer_files(output) if force else []
    if stale:
        write_files(output, {}, remove=[path.name for path in stale])


def _refuse_bpe_options(args: argparse.Namespace, model: str, recipe: str) -> None:
    """Counting for WordPiece or Unigram: its own recipe cuts the text, so BPE's pre-tokenizer options are refused."""
    if args.add_prefix_space or args.special_tokens or args.exclude_special_tokens or args.pattern or args.regex:
        raise UsageError(
            f"--add-prefix-space, --pattern, --regex and the special-token options are BPE's; leave them out for "
            f"{model}"
        )
    if args.normalizer:
        raise UsageError(f"--normalizer is BPE's; {model} normalizes with {recipe}")


def _refuse_binary(files: Sequence[str], errors: str) -> None:
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


def _check_special_tokens(args: argparse.Namespace) -> None:
    """``--special-tokens`` takes every word after it: refuse a "special token" that is one of the input files."""
    for token in args.special_tokens or ():
        if Path(token).is_file():
            raise UsageError(
                f"--special-tokens took {token!r}, which is a file: put the input FILEs before --special-tokens, or "
                "end its list with --"
            )


def _stop_explained(reason: str) -> str:
    """The stop reason, with what it means."""
    return {
        "vocab_size": "vocab_size (the vocabulary is full)",
        "min_frequency": "min_frequency (the most frequent pair left is rarer than --min-frequency)",
        "no_pairs": "no_pairs (no pair of tokens is left to merge)",
    }.get(reason, reason)


def _unigram_options(args: argparse.Namespace, settings: dict[str, Any]) -> Any:
    """The Unigram trainer's options from the command line (BPE-only options refused by name)."""
    from hf_bpe.models.unigram.trainer import UnigramOptions

    for name in (
        "min_frequency",
        "max_token_length",
        "limit_alphabet",
        "char_level",
        "add_prefix_space",
        "pattern",
        "regex",
        "normalizer",
    ):
        if getattr(args, name, None):
            raise UsageError(f"--{name.replace('_', '-')} is a BPE option; --model unigram does not take it")
    if args.shrinking_factor is not None and not 0.0 < args.shrinking_factor < 1.0:
        raise UsageError(f"--shrinking-factor must be between 0 and 1 (exclusive), not {args.shrinking_factor}")
    defaults = UnigramOptions()
    if len(settings["vocab_sizes"]) > 1:
        raise UsageError("--model unigram trains one --vocab-size at a time (its pruning depends on the size)")
    given = args.vocab_size is not None or (args.config and "vocab_size" in read_config(args.config))
    return UnigramOptions(
        vocab_size=settings["vocab_size"] if given else defaults.vocab_size,
        special_tokens=tuple(token for token in settings["special_tokens"] if token != settings["unk_token"])
        if settings["unk_token"] and settings["unk_token"] not in (args.special_tokens or [])
        else tuple(settings["special_tokens"]),
        unk_token=settings["unk_token"],
        shrinking_factor=args.shrinking_factor or defaults.shrinking_factor,
        max_piece_length=args.max_piece_length or defaults.max_piece_length,
        n_sub_iterations=args.n_sub_iterations or defaults.n_sub_iterations,
    )


def _train_unigram_command(args: argparse.Namespace, settings: dict[str, Any]) -> int:
    from hf_bpe.models.unigram.files import write_unigram_dir
    from hf_bpe.models.unigram.training import train_unigram_from_count_directory, train_unigram_from_files

    if bool(args.files) == bool(args.from_counts):
        raise UsageError("--model unigram trains on text FILEs or on --from-counts DIR (hf-bpe count --model unigram)")
    options = _unigram_options(args, settings)
    _check_output(args.output, force=args.force)
    start = time.perf_counter()
    if args.from_counts:
        result = train_unigram_from_count_directory(args.from_counts, options)
    else:
        result = train_unigram_from_files(
            args.files, options, errors=settings["encoding_errors"], workers=settings["workers"]
        )
    roles = {role: settings[role] for role in _ROLES if role != "unk_token"}
    write_unigram_dir(args.output, result.pieces, result.unk_id, result.special_tokens, roles=roles)
    _remove_foreign_files(args.output, force=args.force)
    print(
        f"vocab size {len(result.pieces)} (unigram), unk id {result.unk_id}, "
        f"{time.perf_counter() - start:.1f} s, written to {args.output}"
    )
    return 0


def _train_wordpiece(args: argparse.Namespace, settings: dict[str, Any]) -> int:
    """``train --model wordpiece``: BERT's recipe, the chosen scoring, vocab.txt and the tokenizer files."""
    import dataclasses

    from hf_bpe.models.wordpiece.training import train_wordpiece_from_count_directory, train_wordpiece_from_files
    from hf_bpe.pipeline.bert import BertRecipe

    if bool(args.files) == bool(args.from_counts):
        raise UsageError("give the text FILEs to train on, or --from-counts DIR, but not both")
    recipe_flags = ("lowercase", "strip_accents", "clean_text", "handle_chinese_chars")
    if args.from_counts and any(getattr(args, name) is not None for name in recipe_flags):
        raise UsageError(f"{args.from_counts} records how its text was normalized; leave out the recipe options")
    bpe_only = ("char_level", "add_prefix_space", "max_token_length", "end_of_word_suffix", "pattern", "regex")
    for name in (*bpe_only, "normalizer"):
        if settings[name]:
            raise UsageError(f"--{name.replace('_', '-')} is a BPE option; leave it out with --model wordpiece")
    for role in ("bos_token", "eos_token"):
        if settings[role] is not None:
            raise UsageError(f"--{role.replace('_', '-')}: WordPiece has no {role}; BERT's roles are fixed")
    unk = settings["unk_token"]
    if unk not in settings["special_tokens"]:
        raise UsageError(f"--unk-token {unk!r} is not among the special tokens {settings['special_tokens']}")
    _check_output(args.output, force=args.force)
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
    _remove_foreign_files(args.output, force=args.force)
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
    from hf_bpe.counting.counts_dir import read_manifest
    from hf_bpe.models.bpe.training import shortfall, smaller_vocabulary, train_from_count_directory, train_from_files

    settings = _settings(args)
    _refuse_binary(args.files, settings["encoding_errors"])
    if args.continue_from and (settings["model"] != "bpe" or settings["char_level"]):
        raise UsageError("--continue-from continues byte-level BPE: leave out --model and --char-level")
    if settings["model"] == "wordpiece":
        return _train_wordpiece(args, settings)
    if settings["model"] == "unigram":
        return _train_unigram_command(args, settings)
    wordpiece_only = ("scoring", "strip_accents", "max_input_chars_per_word")
    given = [name for name in wordpiece_only if settings[name] is not None]
    given += [name for name in ("clean_text", "handle_chinese_chars") if not settings[name]]
    if given:
        raise UsageError(f"--{given[0].replace('_', '-')} is a WordPiece option; add --model wordpiece")
    roles = {role: settings[role] for role in _ROLES}
    _check_special_tokens(args)
    if args.files and args.from_counts:
        raise UsageError("give the text FILEs to train on, or --from-counts DIR, but not both")
    if not args.files and not args.from_counts:
        hint = ""
        if args.special_tokens:
            hint = f" (--special-tokens took every word after it: {args.special_tokens}; put the FILEs first)"
        raise UsageError(f"no FILE to train on: give text FILEs or --from-counts DIR{hint}")
    if args.from_counts and settings["char_level"]:
        raise UsageError("counts directories hold byte-level pre-tokens; train --char-level from the text files")
    if not args.continue_from:
        _pre_tokenizer(settings)  # a bad --regex or a refused combination, before any work
    _check_output(args.output, force=args.force)
    base = None
    if args.continue_from:
        from hf_bpe.models.bpe.continuing import read_base

        kind = kind_of(Path(args.continue_from))
        if kind not in (None, BYTE_LEVEL):
            raise UsageError(
                f"--continue-from {args.continue_from}: a {KINDS[kind][0]} tokenizer; training continues byte-level "
                "BPE only (train it anew with --model, or continue a byte-level BPE directory)"
            )
        base = read_base(args.continue_from)
        if settings["vocab_sizes"][0] < len(base.vocab):
            raise UsageError(
                f"--vocab-size {settings['vocab_sizes'][0]} is below the {len(base.vocab):,} tokens of "
                f"{args.continue_from}; continuing keeps all of them, so ask for more"
            )
        _check_continuing(settings, base)
        roles = {**base.roles, **{role: token for role, token in roles.items() if token is not None}}
    progress = _Progress(not args.no_progress and not args.json)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            # The library's TrainingWarning: the command says the same thing in its own words below.
            warnings.simplefilter("ignore")
            if args.from_counts:
                recorded = read_manifest(args.from_counts)["settings"]
                for name in ("add_prefix_space", "exclude_special_tokens"):
                    if getattr(args, name) is not None and bool(getattr(args, name)) != bool(recorded.get(name)):
                        raise UsageError(
                            f"--{name.replace('_', '-')} differs from how {args.from_counts} was counted "
                            f"({name}={recorded.get(name)}); recount, or leave the option out"
                        )
                if args.pattern is not None or args.regex is not None or args.normalizer is not None:
                    from hf_bpe.pipeline.pre_tokenizers import PreTokenizer

                    asked = _pre_tokenizer(settings)
                    counted = PreTokenizer.from_settings(recorded)
                    if (asked.splits, asked.normalizer, asked.engine) != (
                        counted.splits,
                        counted.normalizer,
                        counted.engine,
                    ):
                        raise UsageError(
                            f"--pattern/--regex/--normalizer differ from how {args.from_counts} was counted (pattern "
                            f"{counted.preset or counted.splits}, normalizer {counted.normalizer}); recount, or "
                            "leave them out"
                        )

            def train(vocab_size: int) -> Any:
                options = {**_merging_options(settings), "vocab_size": vocab_size}
                if args.from_counts:
                    return train_from_count_directory(
                        args.from_counts, workers=settings["workers"], progress=progress, continue_from=base, **options
                    )
                own_split = _pre_tokenizer(settings) if settings["regex"] else None
                return train_from_files(
                    args.files,
                    char_level=_char_level(settings),
                    pattern=settings["pattern"],
                    normalizer=None if own_split else settings["normalizer"],
                    pre_tokenizer=own_split,
                    add_prefix_space=settings["add_prefix_space"],
                    workers=settings["workers"],
                    exclude_special_tokens=settings["exclude_special_tokens"],
                    errors=settings["encoding_errors"],
                    progress=progress,
                    continue_from=base,
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
            sub.save(Path(args.output) / str(size), roles=roles, force=args.force)
            if not args.json:
                print(
                    f"vocab size {len(sub.vocab)}, {len(sub.merges)} merges, written to {Path(args.output) / str(size)}"
                )
    else:
        result.save(args.output, roles=roles, force=args.force)
    elapsed = time.perf_counter() - start
    notes = []
    message = shortfall(
        result,
        settings["vocab_size"],
        settings["min_frequency"],
        names={"vocab_size": "--vocab-size", "min_frequency": "--min-frequency"},
    )
    if message is not None:
        notes.append(message)
    if result.replaced_lines:
        notes.append(f"replaced invalid UTF-8 with U+FFFD on {result.replaced_lines} line(s)")
    before_after = None if base is None or not args.files else _compression_before_after(base, result, args.files)
    if args.json:
        summary = {
            "output": str(args.output),
            "vocab_size": len(result.vocab),
            "vocab_size_asked": settings["vocab_size"],
            "merges": result.merges_learned,
            "stop_reason": result.stop_reason,
            "replaced_lines": result.replaced_lines,
            "seconds": round(elapsed, 3),
            "warnings": notes,
        }
        if len(sizes) > 1:
            summary["outputs"] = {str(size): str(Path(args.output) / str(size)) for size in sizes}
        if before_after is not None:
            summary["bytes_per_token"] = {"before": before_after[1], "after": before_after[2]}
        print(json.dumps(summary, ensure_ascii=False))
        return 0
    for note in notes:
        print(f"hf-bpe: warning: {note}", file=sys.stderr)
    print(
        f"vocab size {len(result.vocab)}, {result.merges_learned} merges learned, "
        f"stopped: {result.stop_reason}, {elapsed:.1f} s, written to {args.output}"
    )
    if before_after is not None:
        sample, before, after = before_after
        print(
            f"compression on {sample:,} bytes of the corpus: {before:.3f} bytes per token before "
            f"({args.continue_from}), {after:.3f} after ({(after / before - 1) * 100 if before else 0:+.1f} %)"
        )
    return 0


def _check_continuing(settings: dict[str, Any], base: Any) -> None:
    """Refuse, as a usage error and before any work, the options continuing training cannot take (a pattern, a
    normalizer, a limit on the alphabet: the base's are kept) or a new special token that is an ordinary token of
    the base."""
    from hf_bpe.models.bpe.training import continuing_cut

    try:
        continuing_cut(
            base,
            pattern=settings["pattern"],
            pre_tokenizer=_pre_tokenizer(settings) if settings["regex"] else None,
            normalizer=settings["normalizer"],
            add_prefix_space=settings["add_prefix_space"],
            limit_alphabet=settings["limit_alphabet"],
            special_tokens=settings["special_tokens"],
            exclude_special_tokens=settings["exclude_special_tokens"],
        )
    except ValueError as e:
        raise UsageError(f"--continue-from: {e}") from None


def _compression_before_after(base: Any, result: Any, files: list[str]) -> tuple[int, float, float]:
    """Bytes per token of the base and of the continued tokenizer on a sample of the training files (the first
    megabyte, shared among the files): the sample's size, before, after."""
    from hf_bpe.models.bpe.encoder import BytePairEncoder
    from hf_bpe.report import compression_sample, measure

    text = compression_sample(files)
    figures = [
        measure(BytePairEncoder(vocab, merges, special_tokens=specials, pre_tokenizer=base.pre_tokenizer), text)
        for vocab, merges, specials in (
            (base.vocab, base.merges, base.special_tokens),
            (result.vocab, result.merges, result.special_tokens),
        )
    ]
    return figures[0].bytes, round(figures[0].bytes_per_token, 4), round(figures[1].bytes_per_token, 4)


def count_command(args: argparse.Namespace) -> int:
    from hf_bpe.counting.counts_dir import read_manifest
    from hf_bpe.models.bpe.training import count_to_directory

    _check_special_tokens(args)
    _refuse_binary(args.files, args.encoding_errors)
    _check_output(args.output, tokenizer=False)
    counting = None
    if args.model == "wordpiece":
        from hf_bpe.models.wordpiece.training import wordpiece_counting
        from hf_bpe.pipeline.bert import BertRecipe

        _refuse_bpe_options(args, "wordpiece", "BERT's recipe (--no-lowercase, ...)")
        counting = wordpiece_counting(
            BertRecipe(args.clean_text, args.handle_chinese_chars, args.strip_accents, args.lowercase)
        )
    elif args.model == "unigram":
        from hf_bpe.models.unigram.training import unigram_counting

        _refuse_bpe_options(args, "unigram", "the SentencePiece recipe (Nmt, NFKC)")
        counting = unigram_counting()
    else:
        counting = _cut(
            "--regex" if args.regex else "--pattern",
            pattern=args.pattern,
            regex=args.regex,
            normalizer=args.normalizer,
            add_prefix_space=args.add_prefix_space,
            special_tokens=args.special_tokens,
            exclude_special_tokens=args.exclude_special_tokens,
        )
    if args.model != "wordpiece" and (
        not (args.lowercase and args.clean_text and args.handle_chinese_chars) or args.strip_accents is not None
    ):
        raise UsageError("BERT's recipe options (--no-lowercase, --strip-accents, ...) need --model wordpiece")
    if args.engine == "datatrove":
        _require("datatrove", "--engine datatrove", "datatrove>=0.4", "datatrove")
        if args.executor == "ray":
            _require("ray", "--executor ray", "ray>=2.40", "ray")
    elif args.executor != "local" or args.executor_option or args.tasks:
        raise UsageError("--executor, --executor-option and --tasks are datatrove's: add --engine datatrove")
    for name in args.files:
        if args.engine == "datatrove" and name == "-":
            raise UsageError("- (standard input): datatrove's tasks read files; save it to a file first")
    progress = _Progress(not args.no_progress and args.engine == "local")
    start = time.perf_counter()
    try:
        manifest = count_to_directory(
            args.files,
            args.output,
            add_prefix_space=args.add_prefix_space,
            special_tokens=args.special_tokens,
            exclude_special_tokens=args.exclude_special_tokens,
            errors=args.encoding_errors,
            engine=args.engine,
            workers=args.workers,
            buckets=args.buckets,
            executor=args.executor,
            tasks=args.tasks,
            executor_options=dict(args.executor_option),
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


def _require(module: str, feature: str, requirement: str, extra: str) -> None:
    """Refuse ``feature`` in one line, with the install command, when its optional ``module`` is missing."""
    try:
        __import__(module)
    except ImportError:
        raise UsageError(
            f"{feature} needs {module}, which is not installed: pip install '{requirement}' "
            f"(or, in a clone of hf_bpe: pip install '.[{extra}]')"
        ) from None


def encode_command(args: argparse.Namespace) -> int:
    tokenizer = load_tokenizer(tokenizer_dir(args.tokenizer))
    for text in args.texts:
        ids = tokenizer(text)["input_ids"]
        tokens = tokenizer.convert_ids_to_tokens(ids)
        if args.json:
            print(json.dumps({"text": text, "tokens": tokens, "ids": ids}, ensure_ascii=False))
        else:
            print(f"text:   {text!r}\ntokens: {tokens}\nids:    {ids}")
    return 0


def download_command(args: argparse.Namespace) -> int:
    from hf_bpe.reference.gpt2 import write_gpt2_directory

    _check_output(args.output, force=args.force)
    written = write_gpt2_directory(args.output, force=args.force)
    print(f"GPT-2's tokenizer (50257 tokens) written to {args.output}: {', '.join(p.name for p in written)}")
    return 0


def _reference_encoder(args: argparse.Namespace, directory: Path, tokenizer: Any) -> tuple[Any, str]:
    """The reference's text-to-ids function for ``verify encode``, and its name in the report."""
    if args.against == "tiktoken":
        return _tiktoken_reference(args, directory, tokenizer)
    if (directory / "tokenizer.json").is_file():
        # The directory's own tokenizer.json (its pre-tokenizer included), as AutoTokenizer loads it without hf_bpe;
        # GPT2Tokenizer would put GPT-2's split in place of the directory's.
        backend = _rust_backend(directory)
        return (lambda text: backend(text)["input_ids"]), "transformers' Rust backend (tokenizer.json)"
    from transformers import GPT2Tokenizer

    rust = GPT2Tokenizer.from_pretrained(str(directory))
    return (lambda text: rust(text)["input_ids"]), "transformers' Rust GPT2Tokenizer"


def _rust_backend(directory: Path) -> Any:
    """transformers' Rust backend on the directory's ``tokenizer.json``, without hf_bpe's classes."""
    from hf_bpe.transformers._import import quiet_transformers_import

    with quiet_transformers_import():
        from transformers import TokenizersBackend

    return TokenizersBackend.from_pretrained(str(directory))


def _tiktoken_reference(args: argparse.Namespace, directory: Path, tokenizer: Any) -> tuple[Any, str]:
    """tiktoken with the rank file of ``--ranks`` (GPT-2's only for GPT-2's vocabulary), as ``verify encode``'s
    reference; an id outside the directory's vocabulary is refused (the rank file is another tokenizer's)."""
    _require("tiktoken", "--against tiktoken", "tiktoken>=0.9", "test")
    from hf_bpe.reference.gpt2 import RANKS_FILE, TIKTOKEN_PATTERN, gpt2_files, tiktoken_encoding

    if args.ranks:
        ranks_path = Path(args.ranks)
    elif _is_gpt2(args.tokenizer, directory):
        ranks_path = gpt2_files() / RANKS_FILE
    else:
        raise UsageError(
            f"--against tiktoken needs --ranks FILE, the .tiktoken rank file of {directory}'s vocabulary "
            f"(hf-bpe export tiktoken {directory} -o FILE writes it); only GPT-2's vocabulary defaults to GPT-2's"
        )
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
    size = len(tokenizer)

    def reference(text: str) -> list[int]:
        ids = encoding.encode(text, allowed_special="all")
        outside = next((token_id for token_id in ids if not 0 <= token_id < size), None)
        if outside is not None:
            raise UsageError(
                f"--ranks {ranks_path}: tiktoken gives id {outside}, outside {directory}'s vocabulary of {size}; "
                "give the rank file of this tokenizer (hf-bpe export tiktoken DIR -o FILE)"
            )
        return ids

    return reference, f"tiktoken ({ranks_path.name})"


def _is_gpt2(name: str, directory: Path) -> bool:
    """Whether ``directory`` holds GPT-2's vocabulary (``--tokenizer gpt2``, or GPT-2's own ``vocab.json``)."""
    from hf_bpe.models.bpe.files import read_vocab
    from hf_bpe.reference.gpt2 import GPT2_VOCAB_SIZE, gpt2_files

    if name == "gpt2":
        return True
    vocab = read_vocab(directory / "vocab.json")
    return len(vocab) == GPT2_VOCAB_SIZE and vocab == read_vocab(gpt2_files() / "vocab.json")


class _AsCalled:
    """A WordPiece, Unigram or char-level tokenizer as ``verify_encoding`` compares it with the Rust backend: ids
    as ``tokenizer(text)`` gives them (template tokens included, as the backend's), and a round trip that holds
    when hf_bpe decodes the ids as the backend does (these kinds lowercase, normalize or drop white space by
    design, so decoding does not give the text back)."""

    def __init__(self, tokenizer: Any, directory: Path) -> None:
        self.tokenizer = tokenizer
        self.backend = _rust_backend(directory)
        self.last: tuple[list[int], str] | None = None

    def encode_text(self, text: str) -> list[int]:
        ids = list(self.tokenizer(text)["input_ids"])
        same = self.tokenizer.decode(ids) == self.backend.decode(ids)
        self.last = (ids, text) if same else None
        return ids

    def decode(self, ids: list[int]) -> str:
        if self.last is not None and list(ids) == self.last[0]:
            return self.last[1]
        return str(self.tokenizer.decode(ids))


def _measurable(found: TokenizerDir) -> Any:
    """A tokenizer directory of any kind as ``report`` measures it."""
    from hf_bpe.report import Measurable, byte_level_measurable

    if found.kind == BYTE_LEVEL:
        return byte_level_measurable(found.path)
    tokenizer = load_tokenizer(found)
    spelled = token_text(found, tokenizer)
    vocab = tokenizer.get_vocab()
    return Measurable(
        lambda text: list(tokenizer(text, add_special_tokens=False)["input_ids"]),
        {token_id: spelled(token) for token, token_id in vocab.items()},
        frozenset(tokenizer.all_special_ids),
    )


def convert_command(args: argparse.Namespace) -> int:
    from hf_bpe.reference import openai_ranks
    from hf_bpe.reference.tiktoken_files import convert_tiktoken

    named = args.ranks in openai_ranks.RANK_FILES and not Path(args.ranks).exists()
    pattern = args.pattern or args.regex or (openai_ranks.PRESET[args.ranks] if named else None)
    if pattern is None:
        raise UsageError("give --pattern NAME (a preset such as cl100k or o200k) or --regex REGEX for a rank file")
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
    from hf_bpe.reference.tiktoken_files import export_tiktoken

    found = tokenizer_dir(args.directory, gpt2=False)
    found.require((BYTE_LEVEL,), "export tiktoken", "a .tiktoken file holds the ranks of byte-level BPE")
    exported = export_tiktoken(found.path, args.output)
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

    kinds = {directory: tokenizer_dir(directory, gpt2=False) for directory in args.directories}
    found = report(args.directories, args.sample, load=lambda directory: _measurable(kinds[str(directory)]))
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
    from hf_bpe.reference.verify import asdict, format_encoding_report, units, verify_encoding

    found = tokenizer_dir(args.tokenizer, "--tokenizer")
    if args.against == "tiktoken":
        found.require((BYTE_LEVEL,), "--against tiktoken", "verify it --against transformers")
    tokenizer = load_tokenizer(found)
    reference, name = _reference_encoder(args, found.path, tokenizer)
    if found.kind != BYTE_LEVEL:
        tokenizer = _AsCalled(tokenizer, found.path)
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
    from hf_bpe.counting.counting import count_files
    from hf_bpe.models.bpe.trainer import train_bpe
    from hf_bpe.reference.verify import asdict, compare_training, format_training_report, reference_training

    settings = _settings(args)
    _check_special_tokens(args)
    _refuse_binary(args.files, settings["encoding_errors"])
    if settings["model"] == "unigram":
        from hf_bpe.reference.unigram_verify import verify_unigram_training

        unigram = verify_unigram_training(
            args.files, _unigram_options(args, settings), errors=settings["encoding_errors"]
        )
        if args.json:
            print(json.dumps(unigram, ensure_ascii=False, indent=2))
        else:
            first = unigram["first_difference"]
            for step in ("seed_and_first_em_round", "final"):
                print(f"{step}: {unigram[step]}")
            print("same as tokenizers" if first is None else f"first difference: {first}")
        return 0 if unigram["first_difference"] is None else 1
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


def _interrupt_once(signum: int, frame: object) -> None:
    """Ctrl-C interrupts once: a terminal signals the whole process group and ``timeout -s INT`` may signal
    twice, and a second KeyboardInterrupt in the middle of cleaning up would hang or leave processes behind."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``hf-bpe``; returns the exit status (0 ok, 1 runtime error, 2 usage error, 130/143 interrupted)."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        # argparse reports a subcommand's unknown option with the top-level usage; show the subcommand's.
        _subparser(parser, args).error(f"unrecognized arguments: {' '.join(unknown)}")
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
    except (OSError, ValueError, TypeError, KeyError, RuntimeError) as e:
        print(f"hf-bpe: error: {e}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            # Not interrupted: the caller's handler back. Interrupted: further Ctrl-Cs stay ignored while the
            # process exits (restoring Python's handler here let a late one kill it with status -2).
            signal.signal(signal.SIGINT, previous_interrupt)
    parser.error(f"unknown command {args.command!r}")
    return 2  # pragma: no cover


if __name__ == "__main__":
    sys.exit(main())
