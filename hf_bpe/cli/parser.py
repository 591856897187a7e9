"""The ``hf-bpe`` argument parser: one sub-parser per command, options in argument groups with their defaults in
their help, and usage errors in one line (exit 2). No option is checked here beyond its type; what the options mean
together is :mod:`hf_bpe.cli.settings`' and the commands' to check.
"""

from __future__ import annotations

import argparse
import json
import shutil
from typing import Any, NoReturn

from hf_bpe.cli.errors import EXIT_STATUSES
from hf_bpe.cli.parity import add_parity_options
from hf_bpe.cli.sentencepiece import spm_option
from hf_bpe.cli.settings import ROLES, TRAIN_DEFAULTS, field_defaults, preset_names


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
        type=positive,
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
            choices=("bpe", "wordpiece", "unigram", "sentencepiece-bpe", "sentencepiece-unigram"),
            default=None,
            help="bpe (default), wordpiece (BERT's: vocab.txt, BertNormalizer, BertPreTokenizer), unigram "
            "(SentencePiece's recipe, as tokenizers trains it), sentencepiece-bpe or sentencepiece-unigram (the "
            "tokenizer.model spm_train --model_type=bpe|unigram writes, with --spm options)",
        )
        groups["model"].add_argument(
            "--spm",
            action="append",
            type=spm_option,
            metavar="NAME=VALUE",
            help="with --model sentencepiece-bpe|unigram: one of sentencepiece's training options by its own name and "
            "spelling (character_coverage=0.9995, byte_fallback=true, user_defined_symbols=A,B, "
            "normalization_rule_name=identity, ...); repeat for several; sentencepiece's defaults otherwise",
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
        type=non_negative,
        default=None,
        metavar="N",
        help="stop when the best pair occurs fewer times" + _default("min_frequency"),
    )
    g["vocabulary"].add_argument(
        "--max-token-length",
        type=positive,
        default=None,
        metavar="N",
        help="no token longer than N characters (default: no limit)",
    )
    g["vocabulary"].add_argument(
        "--limit-alphabet",
        type=non_negative,
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
    for role in ROLES:
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
        "--max-input-chars-per-word", type=positive, default=None, metavar="N", help="wordpiece (default 100)"
    )


def _add_unigram_options(group: Any) -> None:
    """The Unigram trainer's own options, their defaults shown from ``UnigramOptions``."""
    from hf_bpe.models.unigram.options import UnigramOptions

    default = field_defaults(UnigramOptions)
    for name, kind, metavar in (("shrinking_factor", float, "F"), ("max_piece_length", positive, "N"),
                                ("n_sub_iterations", positive, "N")):  # fmt: skip
        option = f"--{name.replace('_', '-')}"
        group.add_argument(option, type=kind, default=None, metavar=metavar, help=f"unigram (default {default[name]})")


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
    """The ``hf-bpe`` parser and its commands' sub-parsers."""
    from hf_bpe import __version__

    parser = _Parser(
        prog="hf-bpe",
        description="Tokenizer training identical to HuggingFace tokenizers, in pure Python: byte-level BPE (GPT-2, "
        "Llama 3, GPT-4o, Qwen2, ...), char-level BPE, WordPiece and Unigram.",
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

    _add_train(commands)
    _add_count(commands)
    _add_encode(commands)
    _add_download(commands)
    _add_convert(commands)
    _add_export(commands)
    _add_report(commands)
    _add_trim(commands)
    _add_verify(commands)
    return parser


def _add_train(commands: Any) -> None:
    """``train``: its input, output and training options."""
    train = _sub(
        commands, "train", "train a tokenizer on text files",
        "Train on text files (each read line by line, line endings kept, as tokenizers reads them; .gz, .bz2, .xz,\n"
        ".zst are decompressed; - is standard input) and write vocab.json, merges.txt, tokenizer_config.json and\n"
        "tokenizer.json to DIR, all four or none.",
        "  hf-bpe train a.txt b.txt -o my-tokenizer --vocab-size 32000 --special-tokens '<|endoftext|>'\n"
        "  hf-bpe train corpus/*.txt -o my-tokenizer --config gpt2 --vocab-size 8000\n"
        "  hf-bpe train --parity en=en.txt hi=hi-1.txt hi=hi-2.txt --dev en=en.dev hi=hi.dev -o tok\n"
        "  hf-bpe train corpus.txt -o spm-tok --model sentencepiece-bpe --vocab-size 8000 --spm byte_fallback=true",
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
                        help="replace the tokenizer DIR holds (its files, chat templates included, are removed "
                        "or overwritten); else a DIR holding one is refused")  # fmt: skip
    output.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    output.add_argument("--no-progress", action="store_true", help="no progress bars")
    _add_training_options(groups)
    add_parity_options(train.add_argument_group("parity-aware BPE (every language served alike: Foroutan et al. 2025)"))


def _add_count(commands: Any) -> None:
    """``count``: its input, output, how the text is cut and where the counting runs."""
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
    count_output.add_argument("--buckets", type=positive, default=16, metavar="N", help="bucket files (default: 16)")
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
    engine.add_argument("--workers", type=positive, default=None, metavar="N",
                        help="processes, or datatrove tasks at once (default: the CPU count)")  # fmt: skip
    engine.add_argument("--engine", choices=("local", "datatrove"), default="local",
                        help="this machine's processes, or datatrove (default: local)")  # fmt: skip
    engine.add_argument("--executor", choices=("local", "ray", "slurm"), default="local",
                        help="datatrove's executor (default: local)")  # fmt: skip
    engine.add_argument("--tasks", type=positive, default=None, metavar="N",
                        help="datatrove tasks (default: 4 per worker)")  # fmt: skip
    engine.add_argument("--executor-option", action="append", default=[], metavar="KEY=VALUE", type=_key_value,
                        help="passed to datatrove's executor, e.g. partition=gpu, time=02:00:00, cpus_per_task=4 "
                        "(VALUE is read as JSON if it parses, else as a string); repeat for more")  # fmt: skip


def _add_encode(commands: Any) -> None:
    """``encode``."""
    encode_command = _sub(
        commands, "encode", "encode text with a tokenizer directory and show the tokens",
        "Encode TEXT with the tokenizer in DIR (or GPT-2's, with gpt2) and print its tokens and ids.",
        "  hf-bpe encode my-tokenizer 'Hello world'",
    )  # fmt: skip
    encode_command.add_argument("tokenizer", metavar="DIR|gpt2", help="a tokenizer directory, or gpt2")
    encode_command.add_argument("texts", nargs="+", metavar="TEXT", help="the text to encode")
    encode_command.add_argument("--json", action="store_true", help="one JSON object per TEXT")


def _add_download(commands: Any) -> None:
    """``download``."""
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
    download.add_argument("--force", action="store_true", help="replace the tokenizer DIR holds")


def _add_convert(commands: Any) -> None:
    """``convert tiktoken``."""
    from hf_bpe.pipeline.pre_tokenizers import PRESETS

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
    tiktoken.add_argument("--force", action="store_true", help="replace the tokenizer DIR holds")
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


def _add_export(commands: Any) -> None:
    """``export tiktoken``."""
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
    to_tiktoken.add_argument("--force", action="store_true", help="replace FILE if it exists")


def _add_report(commands: Any) -> None:
    """``report``."""
    report = _sub(
        commands, "report", "what tokenizers buy on sample text: compression, vocabulary use; compare two",
        "Encode sample files with each tokenizer directory; print per file, per language and overall the bytes per\n"
        "token, tokens per word, share of the vocabulary used, tokens per byte and per line, the gap between the\n"
        "worst- and best-served language, and the longest tokens. With two directories (BASE NEW), also NEW\n"
        "against BASE. --plot draws compression against vocabulary size, token lengths, and\n"
        "bytes per token and vocabulary used per language.",
        "  hf-bpe report tok-8k tok-32k --sample docs.txt --plot report.png\n"
        "  hf-bpe report llama-3.1 llama-3.1-ja --sample ja=ja-1.txt ja=ja-2.txt en=en.txt",
    )  # fmt: skip
    report.add_argument("directories", nargs="+", metavar="DIR", help="tokenizer directories (BASE NEW: compared)")
    report.add_argument("--sample", nargs="+", required=True, metavar="[LANG=]FILE",
                        help="UTF-8 text files to encode, of language LANG (default: the name's stem)")  # fmt: skip
    report.add_argument("--plot", metavar="OUT.png", help="also draw the figures (needs matplotlib)")
    report.add_argument("--json", action="store_true", help="print the figures as JSON")


def _add_trim(commands: Any) -> None:
    """``trim``."""
    trim = _sub(
        commands, "trim", "trim a byte-level BPE tokenizer to the tokens a sample of text uses",
        "Keep the added tokens, the 256 byte tokens and the tokens the sample uses most, each with the tokens its\n"
        "merges build it from; renumber them densely in their original order; write DIR/tokenizer.json (the\n"
        "original's pipeline, with only the kept tokens and merges) and DIR/id_map.json (old id -> new id), and\n"
        "print how to slice the model's embedding matrix.",
        "  hf-bpe trim llama-3.1 --sample ja.txt --vocab-size 32000 --output llama-3.1-ja",
    )  # fmt: skip
    trim.add_argument("source", metavar="DIR|tokenizer.json", help="a byte-level BPE tokenizer.json, or its directory")
    trim.add_argument("--sample", nargs="+", required=True, metavar="FILE",
                      help="UTF-8 text in the language to keep (.gz, .bz2, .xz, .zst read decompressed)")  # fmt: skip
    trim.add_argument("--vocab-size", type=positive, required=True, metavar="N",
                      help="the most tokens to keep, added tokens and the 256 bytes included")  # fmt: skip
    trim.add_argument("--output", "-o", required=True, metavar="DIR", help="the directory to write")
    trim.add_argument("--force", action="store_true", help="replace the tokenizer DIR holds")
    trim.add_argument("--no-progress", action="store_true", help="no progress bar")


def _add_verify(commands: Any) -> None:
    """``verify encode`` and ``verify train``."""
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
    encode.add_argument("--examples", type=positive, default=5, metavar="N",
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


def _vocab_sizes(text: str) -> list[int]:
    """``N`` or ``N,N,...``: the sizes, sorted, each positive."""
    try:
        sizes = sorted({positive(part) for part in text.split(",")})
    except argparse.ArgumentTypeError as e:
        raise argparse.ArgumentTypeError(f"{text!r}: give a vocabulary size or sizes separated by commas ({e})") from e
    return sizes


def _one_vocab_size(text: str) -> list[int]:
    """``N``: one vocabulary size (``verify train`` compares one run)."""
    return [positive(text)]


def _key_value(text: str) -> tuple[str, Any]:
    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    try:
        parsed: Any = json.loads(value)
    except json.JSONDecodeError:
        parsed = value
    return key.strip(), parsed


def subparser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub)command ``args`` ran, so its errors show its own usage."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            name = getattr(args, action.dest, None)
            if name in action.choices:
                return subparser(action.choices[name], args)
    return parser


def positive(text: str) -> int:
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return value


def non_negative(text: str) -> int:
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative integer")
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
