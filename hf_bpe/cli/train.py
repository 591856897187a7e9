"""``hf-bpe train`` (byte-level and char-level BPE, WordPiece, Unigram; several sizes from one run; continuing a
tokenizer) and ``hf-bpe count``: the settings checked, the library called, the summary printed.

Still here and library work by rights (a later step moves them into the models' packages): reading the smaller
vocabularies of a multi-size run off the largest, and measuring the compression of a continued tokenizer.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hf_bpe.cli.checks import (
    check_continuing,
    check_counted_alike,
    check_output,
    check_special_tokens,
    refuse_binary,
    refuse_bpe_options,
    require,
)
from hf_bpe.cli.directories import BYTE_LEVEL, KINDS, kind_of
from hf_bpe.cli.errors import UsageError
from hf_bpe.cli.parity import refuse_parity_only, train_parity
from hf_bpe.cli.presentation import Progress
from hf_bpe.cli.sentencepiece import MODELS as SENTENCEPIECE_MODELS
from hf_bpe.cli.sentencepiece import train_sentencepiece
from hf_bpe.cli.settings import (
    ROLES,
    bpe_options,
    cut,
    pre_tokenizer_of,
    refuse_bpe_only,
    settings_of,
    unigram_options,
    wordpiece_options,
)
from hf_bpe.models.bpe.options import BpeOptions
from hf_bpe.models.directory import special_token_roles
from hf_bpe.models.shortfall import TrainingWarning, shortfall, unknown_characters_dropped

if TYPE_CHECKING:
    from hf_bpe.pipeline.pre_tokenizers import PreTokenizer

#: What :func:`_check_bpe_command` builds once and training takes as it is: the options, the pre-tokenizer (None:
#: continuing keeps the base's) and the ``--from-counts`` directory's recorded pre-tokenizer (None: no directory).
_Built = tuple[BpeOptions, "PreTokenizer | None", "PreTokenizer | None"]


def train_command(args: argparse.Namespace) -> int:
    """``hf-bpe train``: WordPiece and Unigram in their own functions; BPE (byte-level, char-level, continued, one
    size or several) here."""
    settings = settings_of(args)
    if args.parity:
        return train_parity(args, settings, continued_base)
    refuse_parity_only(args)
    refuse_binary(args.files, settings["encoding_errors"])
    if args.continue_from and (settings["model"] != "bpe" or settings["char_level"]):
        raise UsageError("--continue-from continues byte-level BPE: leave out --model and --char-level")
    if args.model in SENTENCEPIECE_MODELS:
        return train_sentencepiece(args)
    if args.spm:
        raise UsageError("--spm gives sentencepiece's options: add --model sentencepiece-bpe or sentencepiece-unigram")
    if settings["model"] == "wordpiece":
        return train_wordpiece(args, settings)
    if settings["model"] == "unigram":
        return train_unigram(args, settings)
    built = _check_bpe_command(args, settings)
    check_output(args.output, force=args.force, source=args.continue_from)
    for size in settings["vocab_sizes"] if len(settings["vocab_sizes"]) > 1 else ():
        check_output(str(Path(args.output) / str(size)), force=args.force, source=args.continue_from)
    base = continued_base(args, settings, built[1])
    roles = {role: settings[role] for role in ROLES}
    if base is not None:
        roles = {**base.roles, **{role: token for role, token in roles.items() if token is not None}}
    start = time.perf_counter()
    result, by_size = _train_bpe_sizes(args, settings, base, built)
    with warnings.catch_warnings():
        # The library's TrainingWarning (a char-level tokenizer without an unknown token): the summary says it.
        warnings.simplefilter("ignore", TrainingWarning)
        if len(by_size) > 1:
            for size, sub in by_size.items():
                sub.save(Path(args.output) / str(size), roles=roles, force=args.force)
                if not args.json:
                    written = Path(args.output) / str(size)
                    print(f"vocab size {len(sub.vocab)}, {len(sub.merges)} merges, written to {written}")
        else:
            result.save(args.output, roles=roles, force=args.force)
    _print_bpe_summary(args, settings, result, base, time.perf_counter() - start)
    return 0


def _check_bpe_command(args: argparse.Namespace, settings: dict[str, Any]) -> _Built:
    """Refuse, before any work, what BPE training cannot take: WordPiece's options, both or neither of FILEs and
    --from-counts, char-level from counts, a pre-tokenizer the options do not make, a counts directory counted
    otherwise than asked.

    Returns:
        The options, the pre-tokenizer and the ``--from-counts`` directory's recorded one, each built or read once
        here and handed on to training (no pre-tokenizer when continuing without ``--regex``: the base's is kept; no
        recorded one without ``--from-counts``).
    """
    wordpiece_only = ("scoring", "strip_accents", "max_input_chars_per_word")
    given = [name for name in wordpiece_only if settings[name] is not None]
    given += [name for name in ("clean_text", "handle_chinese_chars") if not settings[name]]
    if given:
        raise UsageError(f"--{given[0].replace('_', '-')} is a WordPiece option; add --model wordpiece")
    check_special_tokens(args)
    if args.files and args.from_counts:
        raise UsageError("give the text FILEs to train on, or --from-counts DIR, but not both")
    if not args.files and not args.from_counts:
        hint = ""
        if args.special_tokens:
            hint = f" (--special-tokens took every word after it: {args.special_tokens}; put the FILEs first)"
        raise UsageError(f"no FILE to train on: give text FILEs or --from-counts DIR{hint}")
    if args.from_counts and settings["char_level"]:
        raise UsageError("counts directories hold byte-level pre-tokens; train --char-level from the text files")
    options = bpe_options(settings)
    # A bad --regex or a refused combination, before any work: the pre-tokenizer built once, and then used.
    cut = pre_tokenizer_of(settings, options) if not args.continue_from or settings["regex"] else None
    counted = None
    if args.from_counts:
        from hf_bpe.models.bpe.training import counted_cut

        counted = counted_cut(args.from_counts)  # the manifest read once: checked here, trained with below
        check_counted_alike(args.from_counts, args, cut, counted)
    return options, cut, counted


def continued_base(args: argparse.Namespace, settings: dict[str, Any], cut: PreTokenizer | None = None) -> Any:
    """The tokenizer ``--continue-from`` names (None without it), checked against the options and ``cut`` (the
    ``--regex`` pre-tokenizer, if one is given)."""
    if not args.continue_from:
        return None
    from hf_bpe.models.bpe.continuing import NOT_TOKENIZER_JSON, not_a_base, read_base

    given = Path(args.continue_from)
    if given.is_file() and (given.suffix != ".json" or given.name in NOT_TOKENIZER_JSON):
        raise UsageError(f"--continue-from {not_a_base(given)}")
    kind = kind_of(given)
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
    check_continuing(settings, base, cut)
    return base


def _train_bpe_sizes(
    args: argparse.Namespace, settings: dict[str, Any], base: Any, built: _Built
) -> tuple[Any, dict[int, Any]]:
    """Train the largest size asked for; return it and every size's result (the smaller read off the largest
    where that is exact, trained on their own where not: see ``smaller_vocabulary``). ``built``: the options and
    pre-tokenizer :func:`_check_bpe_command` built, handed to the library as they are."""
    from hf_bpe.models.bpe.training import train_from_count_directory, train_from_files, train_sizes

    progress = Progress(not args.no_progress and not args.json)

    largest, cut, counted = built
    # Continuing without --regex: the cutting options go to the library as given (it refuses them, naming them).
    cutting: dict[str, Any] = {"pre_tokenizer": cut}
    if cut is None:
        cutting = {key: settings[key] for key in ("pattern", "normalizer", "add_prefix_space")}

    def train(vocab_size: int) -> Any:
        # A smaller size read off the largest run needs no options; one trained on its own takes its size.
        options = largest if vocab_size == largest.vocab_size else dataclasses.replace(largest, vocab_size=vocab_size)
        if args.from_counts:
            return train_from_count_directory(
                args.from_counts,
                options=options,
                workers=settings["workers"],
                progress=progress,
                continue_from=base,
                counted=counted,
            )
        return train_from_files(
            args.files,
            options=options,
            **cutting,
            workers=settings["workers"],
            exclude_special_tokens=settings["exclude_special_tokens"],
            errors=settings["encoding_errors"],
            progress=progress,
            continue_from=base,
        )

    try:
        with warnings.catch_warnings():
            # The library's TrainingWarning: the command says the same thing in its own words (the summary).
            warnings.simplefilter("ignore")
            by_size = train_sizes(train, settings["vocab_sizes"])
    finally:
        progress.close()
    return by_size[max(by_size)], by_size


def _print_bpe_summary(
    args: argparse.Namespace, settings: dict[str, Any], result: Any, base: Any, elapsed: float
) -> None:
    """What training gave, its warnings and (continuing from files) the compression before and after: as lines,
    or as one JSON object with ``--json``."""
    from hf_bpe.models.bpe.training import shortfall as bpe_shortfall
    from hf_bpe.report import compression_before_after

    sizes = settings["vocab_sizes"]
    notes = []
    message = bpe_shortfall(result, settings["vocab_size"], settings["min_frequency"], names=OPTION_NAMES)
    if message is not None:
        notes.append(message)
    roles = {role: settings[role] for role in ROLES}
    if result.char_level is not None and special_token_roles(result.special_tokens, roles)["unk_token"] is None:
        notes.append(unknown_characters_dropped({"unk_token": "--unk-token"}))
    if result.replaced_lines:
        notes.append(f"replaced invalid UTF-8 with U+FFFD on {result.replaced_lines} line(s)")
    before_after = None if base is None or not args.files else compression_before_after(base, result, args.files)
    if args.json:
        summary: dict[str, Any] = {
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
        return
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


#: How the command spells the options a shortfall message names.
OPTION_NAMES = {"vocab_size": "--vocab-size", "min_frequency": "--min-frequency"}


def _warn_short(size: int, settings: dict[str, Any], stop_reason: str) -> None:
    """Say why a WordPiece or Unigram vocabulary is not the size asked for (BPE's summary says it its own way)."""
    message = shortfall(
        size, settings["vocab_size"], stop_reason, min_frequency=settings["min_frequency"], names=OPTION_NAMES
    )
    if message is not None:
        print(f"hf-bpe: warning: {message}", file=sys.stderr)


def train_unigram(args: argparse.Namespace, settings: dict[str, Any]) -> int:
    from hf_bpe.models.unigram.files import write_unigram_dir
    from hf_bpe.models.unigram.training import train_unigram_from_count_directory, train_unigram_from_files

    if bool(args.files) == bool(args.from_counts):
        raise UsageError("--model unigram trains on text FILEs or on --from-counts DIR (hf-bpe count --model unigram)")
    options = unigram_options(args, settings)
    check_output(args.output, force=args.force)
    start = time.perf_counter()
    progress = Progress(not args.no_progress)
    with warnings.catch_warnings(), contextlib.closing(progress):
        warnings.simplefilter("ignore", TrainingWarning)  # said below, in the command's option names
        if args.from_counts:
            result = train_unigram_from_count_directory(args.from_counts, options, progress=progress)
        else:
            result = train_unigram_from_files(
                args.files, options, errors=settings["encoding_errors"], workers=settings["workers"], progress=progress
            )
    _warn_short(len(result.pieces), settings, "no_pieces")
    roles = {role: settings[role] for role in ROLES if role != "unk_token"}
    write_unigram_dir(args.output, result.pieces, result.unk_id, result.special_tokens, roles=roles, force=args.force)
    print(
        f"vocab size {len(result.pieces)} (unigram), unk id {result.unk_id}, "
        f"{time.perf_counter() - start:.1f} s, written to {args.output}"
    )
    return 0


def train_wordpiece(args: argparse.Namespace, settings: dict[str, Any]) -> int:
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
    refuse_bpe_only(settings, (*bpe_only, "normalizer"), "wordpiece")
    for role in ("bos_token", "eos_token"):
        if settings[role] is not None:
            raise UsageError(f"--{role.replace('_', '-')}: WordPiece has no {role}; BERT's roles are fixed")
    unk = settings["unk_token"]
    if unk not in settings["special_tokens"]:
        raise UsageError(f"--unk-token {unk!r} is not among the special tokens {settings['special_tokens']}")
    check_output(args.output, force=args.force)
    recipe = BertRecipe(
        clean_text=settings["clean_text"],
        handle_chinese_chars=settings["handle_chinese_chars"],
        strip_accents=settings["strip_accents"],
        lowercase=settings["lowercase"],
    )
    progress = Progress(not args.no_progress)
    start = time.perf_counter()
    options = wordpiece_options(settings)
    run = {"options": options, "workers": settings["workers"], "progress": progress}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TrainingWarning)  # said below, in the command's option names
            if args.from_counts:
                result = train_wordpiece_from_count_directory(args.from_counts, **run)
            else:
                result = train_wordpiece_from_files(
                    args.files, recipe=recipe, errors=settings["encoding_errors"], **run
                )
    finally:
        progress.close()
    _warn_short(len(result.vocab), settings, result.stop_reason)
    result = dataclasses.replace(result, max_input_chars_per_word=settings["max_input_chars_per_word"])
    result.save(args.output, force=args.force)
    if result.replaced_lines:
        print(
            f"hf-bpe: warning: replaced invalid UTF-8 with U+FFFD on {result.replaced_lines} line(s)", file=sys.stderr
        )
    print(
        f"wordpiece ({result.scoring}) vocab size {len(result.vocab)}, stopped: {result.stop_reason}, "
        f"{time.perf_counter() - start:.1f} s, written to {args.output}"
    )
    return 0


def count_command(args: argparse.Namespace) -> int:
    from hf_bpe.counting.counts_dir import read_manifest
    from hf_bpe.models.bpe.training import count_to_directory

    check_special_tokens(args)
    refuse_binary(args.files, args.encoding_errors)
    check_output(args.output, tokenizer=False)
    counting = None
    if args.model == "wordpiece":
        from hf_bpe.models.wordpiece.training import wordpiece_counting
        from hf_bpe.pipeline.bert import BertRecipe

        refuse_bpe_options(args, "wordpiece", "BERT's recipe (--no-lowercase, ...)")
        counting = wordpiece_counting(
            BertRecipe(args.clean_text, args.handle_chinese_chars, args.strip_accents, args.lowercase)
        )
    elif args.model == "unigram":
        from hf_bpe.models.unigram.training import unigram_counting

        refuse_bpe_options(args, "unigram", "the SentencePiece recipe (Nmt, NFKC)")
        counting = unigram_counting()
    else:
        counting = cut(
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
        require("datatrove", "--engine datatrove", "datatrove>=0.4", "datatrove")
        if args.executor == "ray":
            require("ray", "--executor ray", "ray>=2.40", "ray")
    elif args.executor != "local" or args.executor_option or args.tasks:
        raise UsageError("--executor, --executor-option and --tasks are datatrove's: add --engine datatrove")
    for name in args.files:
        if args.engine == "datatrove" and name == "-":
            raise UsageError("- (standard input): datatrove's tasks read files; save it to a file first")
    progress = Progress(not args.no_progress and args.engine == "local")
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
    if not manifest.is_file():  # --executor-option wait=false: the Slurm jobs are submitted, and it said what next
        return 0
    described = read_manifest(manifest.parent)
    print(
        f"{described['pre_tokens']} distinct pre-tokens, {described['total']} in all, "
        f"{time.perf_counter() - start:.1f} s, written to {args.output}"
    )
    return 0
