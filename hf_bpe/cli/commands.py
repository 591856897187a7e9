"""The commands that read or write a tokenizer directory without training: ``encode``, ``download``, ``convert``,
``export`` and ``report``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from hf_bpe.cli.checks import check_output, check_output_file
from hf_bpe.cli.directories import BYTE_LEVEL, TokenizerDir, load_tokenizer, token_text, tokenizer_dir
from hf_bpe.cli.errors import UsageError


def encode_command(args: argparse.Namespace) -> int:
    from hf_bpe.tokenizer.serialization import parsing_once

    with parsing_once():  # the tokenizer.json that decides the class is the one it reads: parsed once
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

    check_output(args.output, force=args.force)
    written = write_gpt2_directory(args.output, force=args.force)
    print(f"GPT-2's tokenizer (50257 tokens) written to {args.output}: {', '.join(p.name for p in written)}")
    return 0


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
    check_output(args.output, force=args.force)
    start = time.perf_counter()
    written = convert_tiktoken(ranks_path, args.output, pattern=pattern, special_tokens=specials, force=args.force)
    print(
        f"converted {ranks_path.name} with pattern {pattern} and {len(specials)} special tokens, "
        f"{time.perf_counter() - start:.1f} s: {', '.join(path.name for path in written)} in {args.output}"
    )
    return 0


def export_command(args: argparse.Namespace) -> int:
    from hf_bpe.reference.tiktoken_files import export_tiktoken

    found = tokenizer_dir(args.directory, gpt2=False)
    found.require((BYTE_LEVEL,), "export tiktoken", "a .tiktoken file holds the ranks of byte-level BPE")
    check_output_file(args.output, force=args.force)
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

    from hf_bpe.report import format_comparison, format_report, plot_report, report
    from hf_bpe.tokenizer.serialization import parsing_once

    with parsing_once():  # each tokenizer.json that decides a directory's kind is the one its class reads
        kinds = {directory: tokenizer_dir(directory, gpt2=False) for directory in args.directories}
        languages, samples = zip(*map(_language_and_file, args.sample), strict=True)
        for sample in samples:
            if not Path(sample).is_file():
                raise FileNotFoundError(f"--sample {sample}: no such file")
        found = report(
            args.directories, samples, languages=languages, load=lambda directory: measurable(kinds[str(directory)])
        )
    if args.json:
        print(json.dumps([dataclasses.asdict(item) for item in found], ensure_ascii=False, indent=2))
    else:
        print(format_report(found))
        if len(found) == 2:
            print(format_comparison(*found))
    if args.plot:
        try:
            written = plot_report(found, args.plot)
        except ImportError as e:
            raise UsageError(str(e)) from e
        print(f"plot written to {written}")
    return 0


def _language_and_file(item: str) -> tuple[str, str]:
    """``LANG=FILE`` as (LANG, FILE); a plain ``FILE`` (or one whose name holds ``=``) is of the language its name's
    stem says (``ja.txt``: ``ja``)."""
    language, equals, path = item.partition("=")
    if equals and language and "/" not in language and not Path(item).exists():
        return language, path
    return Path(item).name.split(".")[0], item


def measurable(found: TokenizerDir) -> Any:
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
