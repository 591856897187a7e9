"""``hf-bpe verify``: encoding compared with a reference (transformers' Rust backend on the directory's own
``tokenizer.json``, or tiktoken with the tokenizer's rank file), training compared with ``tokenizers``; the
comparing itself is :mod:`hf_bpe.reference.verify`'s."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

from hf_bpe.cli.checks import check_special_tokens, refuse_binary, require
from hf_bpe.cli.directories import BYTE_LEVEL, load_tokenizer, tokenizer_dir
from hf_bpe.cli.errors import UsageError
from hf_bpe.cli.presentation import Progress
from hf_bpe.cli.settings import bpe_options, pre_tokenizer_of, settings_of, unigram_options


def verify_encode_command(args: argparse.Namespace) -> int:
    from hf_bpe.reference.verify import asdict, format_encoding_report, units, verify_encoding
    from hf_bpe.tokenizer.serialization import parsing_once

    with parsing_once():  # the tokenizer.json that decides the class is the one it reads: parsed once
        found = tokenizer_dir(args.tokenizer, "--tokenizer")
        if args.against == "tiktoken":
            found.require((BYTE_LEVEL,), "--against tiktoken", "verify it --against transformers")
        tokenizer = load_tokenizer(found)
    reference, name = _reference_encoder(args, found.path, tokenizer)
    if found.kind != BYTE_LEVEL or tokenizer.num_special_tokens_to_add() or not hasattr(tokenizer, "encode_text"):
        # As called (a template's tokens included: Llama-3's BOS), as the reference is.
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
    from hf_bpe.models.bpe.trainer import train_bpe
    from hf_bpe.models.bpe.training import count_paths
    from hf_bpe.reference.verify import asdict, compare_training, format_training_report, reference_training

    settings = settings_of(args)
    check_special_tokens(args)
    refuse_binary(args.files, settings["encoding_errors"])
    if settings["model"] == "unigram":
        from hf_bpe.reference.unigram_verify import verify_unigram_training

        unigram = verify_unigram_training(
            args.files,
            unigram_options(args, settings),
            errors=settings["encoding_errors"],
            progress=not args.no_progress,
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
    options = bpe_options(settings)
    limit = options.limit_alphabet
    if limit is not None and limit < 256:
        raise UsageError(
            f"--limit-alphabet {limit} is below the byte-level alphabet's 256 symbols: tokenizers then keeps an "
            f"arbitrary {limit} of them (all count as equally frequent; which ones changes from run to run), so "
            "there is no one result to compare with; give 256 or more"
        )
    pre_tokenizer = pre_tokenizer_of(settings, options)
    with contextlib.closing(Progress(not args.no_progress)) as progress:
        counts = count_paths(args.files, progress, pre_tokenizer=pre_tokenizer, workers=settings["workers"]).counts
        ours = train_bpe(counts, options=options, progress=lambda done, total: progress("merge", done, total))
    reference = reference_training(
        args.files,
        pre_tokenizer=pre_tokenizer,
        show_progress=not args.no_progress,
        vocab_size=options.vocab_size,
        min_frequency=options.min_frequency,
        special_tokens=options.special_tokens,
        max_token_length=options.max_token_length,
        limit_alphabet=options.limit_alphabet,
    )
    report = compare_training((ours.vocab, ours.merges), reference, counts)
    print(json.dumps(asdict(report), ensure_ascii=False, indent=2) if args.json else format_training_report(report))
    return 0 if report.ok else 1


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
    require("tiktoken", "--against tiktoken", "tiktoken>=0.9", "test")
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
