"""GPT-2's real vocabulary without the model hub: fetched from the package index, verified, converted, cached.

OpenAI's ``openai-whisper`` source distribution ships GPT-2's byte-pair ranks as ``whisper/assets/gpt2.tiktoken``.
:func:`gpt2_files` downloads that sdist with pip (the package index is the only network it needs), checks the
file's SHA-256, converts it with :mod:`hf_bpe.reference.tiktoken_files` and caches ``vocab.json`` + ``merges.txt`` (and
the rank file itself, for tiktoken) under ``$HF_BPE_CACHE`` (default ``~/.cache/hf_bpe``).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any

from hf_bpe.atomic import write_files
from hf_bpe.models.bpe.files import format_merges, format_vocab, read_merges, read_vocab, write_tokenizer_dir
from hf_bpe.models.directory import GPT2_SPECIAL_TOKEN
from hf_bpe.reference.package_index import cache_lock, cache_root, fetch_member
from hf_bpe.reference.tiktoken_files import ranks_to_vocab_and_merges, read_tiktoken_ranks

WHISPER_SDIST = "openai-whisper==20250625"
RANKS_MEMBER = "whisper/assets/gpt2.tiktoken"
RANKS_SHA256 = "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"
RANKS_FILE = "gpt2.tiktoken"
#: GPT-2's split pattern in tiktoken's spelling (the same pre-tokens as hf_bpe's ``GPT2_SPLIT_PATTERN``).
TIKTOKEN_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
GPT2_VOCAB_SIZE = 50257


def cache_dir() -> Path:
    """Where GPT-2's files are kept: ``$HF_BPE_CACHE/gpt2`` or ``~/.cache/hf_bpe/gpt2``."""
    return cache_root() / "gpt2"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _download_ranks(target: Path) -> None:
    # A first use takes some seconds: say what is fetched, from where, and where it goes.
    print(
        f"hf_bpe: fetching GPT-2's vocabulary once: {RANKS_MEMBER} from the {WHISPER_SDIST} source archive on the "
        f"package index (pip download, about 800 KB), checked by SHA-256, kept in {target.parent}",
        file=sys.stderr,
    )
    fetch_member(WHISPER_SDIST, RANKS_MEMBER, RANKS_SHA256, target, wheel=False)


def write_gpt2_directory(directory: str | os.PathLike[str], *, force: bool = False) -> list[Path]:
    """Write GPT-2's tokenizer as a directory ``AutoTokenizer`` loads, with hf_bpe (``BPETokenizer``) or without
    it (transformers' Rust backend, from ``tokenizer.json``), with the same ids as tiktoken's ``gpt2``.

    The files: ``vocab.json`` and ``merges.txt`` (from :func:`gpt2_files`, fetched on first use),
    ``tokenizer_config.json`` (``<|endoftext|>`` as bos, eos and unk) and ``tokenizer.json``.

    Args:
        directory: where to write them (made if missing).
        force: remove another tokenizer's extra files there (see :func:`hf_bpe.models.bpe.files.write_tokenizer_dir`).

    Returns:
        The paths written.
    """
    source = gpt2_files()
    vocab = read_vocab(source / "vocab.json")
    merges = read_merges(source / "merges.txt")
    return write_tokenizer_dir(directory, vocab, merges, special_tokens=[GPT2_SPECIAL_TOKEN], force=force)


def gpt2_files(directory: str | os.PathLike[str] | None = None) -> Path:
    """A directory with GPT-2's ``vocab.json``, ``merges.txt`` and ``gpt2.tiktoken``, made on first use.

    Args:
        directory: where to keep them (default: :func:`cache_dir`).

    Returns:
        The directory.

    Raises:
        RuntimeError: if the download fails or the rank file's checksum is wrong.
    """
    directory = Path(directory) if directory is not None else cache_dir()
    if _complete(directory):
        return directory
    # One process fetches and converts; others arriving meanwhile wait, then find the files made.
    with cache_lock(directory / ".gpt2.lock", "fetching GPT-2's vocabulary"):
        ranks_path = directory / RANKS_FILE
        if not ranks_path.is_file() or _sha256(ranks_path) != RANKS_SHA256:
            _download_ranks(ranks_path)
        if not _complete(directory):
            vocab, merges = ranks_to_vocab_and_merges(
                read_tiktoken_ranks(ranks_path), {GPT2_SPECIAL_TOKEN: GPT2_VOCAB_SIZE - 1}
            )
            write_files(directory, {"vocab.json": format_vocab(vocab), "merges.txt": format_merges(merges)})
    return directory


def _complete(directory: Path) -> bool:
    """Whether ``directory`` holds the checked rank file and both converted files (each written whole)."""
    ranks_path = directory / RANKS_FILE
    converted = (directory / "vocab.json").is_file() and (directory / "merges.txt").is_file()
    return converted and ranks_path.is_file() and _sha256(ranks_path) == RANKS_SHA256


def tiktoken_encoding(
    ranks_path: str | os.PathLike[str], *, pattern: str = TIKTOKEN_PATTERN, special_tokens: dict[str, int] | None = None
) -> Any:
    """tiktoken's encoding for a ``.tiktoken`` rank file: GPT-2's split pattern and ``<|endoftext|>`` after the
    ranks unless ``pattern`` and ``special_tokens`` say otherwise (the reference for GPT-2's ids when the file is
    GPT-2's). Needs ``tiktoken`` (a test dependency).
    """
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    ranks = load_tiktoken_bpe(str(ranks_path))
    return tiktoken.Encoding(
        Path(ranks_path).stem,
        pat_str=pattern,
        mergeable_ranks=ranks,
        special_tokens={GPT2_SPECIAL_TOKEN: len(ranks)} if special_tokens is None else special_tokens,
    )


def tiktoken_gpt2(directory: str | os.PathLike[str] | None = None) -> Any:
    """tiktoken's GPT-2 encoding built from the same rank file as :func:`gpt2_files`' vocabulary."""
    return tiktoken_encoding(gpt2_files(directory) / RANKS_FILE)
