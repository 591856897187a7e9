"""``hf-bpe train --model sentencepiece-bpe|sentencepiece-unigram``: the model ``spm_train --model_type=bpe|unigram``
writes, from text files read line by line as it reads them (the files one after the other), with sentencepiece's
own options by their own names (``--spm NAME=VALUE``).

The words are counted as the files are read (memory follows distinct words, not sentences; for BPE on every CPU
(``--workers``) where the files are plain, their counts summed; for Unigram in one process, each with what follows
it, which its seed pieces need), then :func:`hf_bpe.models.sentencepiece.train_bpe.train_bpe` or
:func:`hf_bpe.models.sentencepiece.train_unigram.train_unigram` trains on the counts, and
:func:`~hf_bpe.models.sentencepiece.model_writer.save_sentencepiece` writes ``tokenizer.model`` with the
``tokenizer.json`` and config transformers makes of it. hf-bpe's options about byte-level BPE are refused by name.
"""

from __future__ import annotations

import argparse
import itertools
import os
import time
from collections.abc import Iterator
from typing import Any

from hf_bpe.cli.checks import check_output
from hf_bpe.cli.errors import UsageError

#: The command line's model names, to sentencepiece's ``model_type``.
MODELS = {"sentencepiece-bpe": "bpe", "sentencepiece-unigram": "unigram"}
#: hf-bpe options a SentencePiece training does not take (sentencepiece's own are given as ``--spm NAME=VALUE``).
_NOT_TAKEN = {
    "from_counts": "--from-counts",
    "continue_from": "--continue-from",
    "pattern": "--pattern",
    "regex": "--regex",
    "normalizer": "--normalizer (use --spm normalization_rule_name=RULE)",
    "add_prefix_space": "--add-prefix-space (use --spm add_dummy_prefix=true)",
    "special_tokens": "--special-tokens (use --spm user_defined_symbols=A,B or control_symbols=A,B)",
    "min_frequency": "--min-frequency",
    "limit_alphabet": "--limit-alphabet (use --spm character_coverage=F)",
    "max_token_length": "--max-token-length (use --spm max_sentencepiece_length=N)",
    "char_level": "--char-level",
    "config": "--config",
    "exclude_special_tokens": "--exclude-special-tokens",
}


def spm_option(text: str) -> tuple[str, str]:
    """``NAME=VALUE`` for ``--spm`` (argparse ``type``)."""
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: give a sentencepiece option as NAME=VALUE (vocab_size=8000)")
    return name.strip().replace("-", "_"), value


def train_sentencepiece(args: argparse.Namespace) -> int:
    """Train and write a SentencePiece model (exit status 0)."""
    from hf_bpe.models.sentencepiece import train_bpe, train_unigram
    from hf_bpe.models.sentencepiece.model_writer import save_sentencepiece, write_model_proto

    options = _options(args, train_bpe.SentencePieceOptions)
    if not args.files:
        raise UsageError(f"--model {args.model} trains on text FILEs")
    check_output(args.output, force=args.force)
    start = time.perf_counter()
    lines = itertools.chain.from_iterable(map(_lines, args.files))
    try:
        if MODELS[args.model] == "unigram":
            counts: Any = train_unigram.count_sentences(lines, options)
            model = train_unigram.train_unigram(counts, options)
        else:
            if all(_plain(path) for path in args.files):  # counted on every CPU (--workers), over byte ranges
                counts = train_bpe.count_words_in_files(list(map(str, args.files)), options, processes=args.workers)
            else:
                counts = train_bpe.count_words(lines, options)
            model = train_bpe.train_bpe(counts, options, consume_counts=True)
    except ValueError as e:
        raise UsageError(str(e)) from None
    save_sentencepiece(write_model_proto(model), args.output, force=args.force)
    seconds = time.perf_counter() - start
    print(f"vocab size {len(model.pieces)} ({args.model}), {seconds:.1f} s, written to {args.output}")
    return 0


def _options(args: argparse.Namespace, kind: Any) -> Any:
    """sentencepiece's options from ``--spm`` and ``--vocab-size``, the hf-bpe options it does not take refused.

    Raises:
        UsageError: naming the option refused, given twice, or unknown to hf_bpe's trainer.
    """
    for name, spelled in _NOT_TAKEN.items():
        if getattr(args, name, None):
            option, _, hint = spelled.partition(" ")
            raise UsageError(f"{option} is not an option of --model {args.model}" + (f" {hint}" if hint else ""))
    given: dict[str, str] = {"model_type": MODELS[args.model]}
    for name, value in args.spm or ():
        if name in given:
            raise UsageError(f"--spm {name} is given twice")
        given[name] = value
    if args.vocab_size is not None:
        sizes = args.vocab_size if isinstance(args.vocab_size, list) else [args.vocab_size]
        if len(sizes) > 1 or "vocab_size" in given:
            raise UsageError(f"--model {args.model} trains one vocab_size: give --vocab-size N or --spm vocab_size=N")
        given["vocab_size"] = str(sizes[0])
    try:
        return kind.from_kwargs(**given)
    except ModuleNotFoundError as e:
        raise UsageError(str(e)) from None
    except (TypeError, ValueError) as e:
        culprit = _culprit(kind, given)
        raise UsageError(f"--spm{'' if culprit == ': ' else ' '}{culprit}{e}") from None


def _culprit(kind: Any, given: dict[str, str]) -> str:
    """``NAME=VALUE: `` for the one option refused alone (a value that is no number, say), else ``": "`` (the
    library's message names it already, or it is the options together)."""
    for name, value in given.items():
        alone = {"model_type": given["model_type"], "normalization_rule_name": "identity", name: value}
        try:
            kind.from_kwargs(**alone)
        except (TypeError, ValueError, ModuleNotFoundError) as e:
            return ": " if str(e).startswith("sentencepiece option") else f"{name}={value}: "
    return ": "


def _plain(path: str) -> bool:
    """Whether ``path`` is a plain file that can be read from any byte (not standard input, not compressed)."""
    from hf_bpe.counting.sources import is_stream

    return os.path.isfile(path) and not is_stream(path)


def _lines(path: str) -> Iterator[bytes]:
    """The lines of a file as ``std::getline`` gives them to ``spm_train``: split on ``\\n``, without it."""
    from hf_bpe.counting.sources import open_binary

    with open_binary(path) as stream:
        for line in stream:
            yield line[:-1] if line.endswith(b"\n") else line
