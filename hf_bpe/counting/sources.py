"""Where text comes from: plain files, compressed files and standard input.

This module owns opening a text source as a binary stream, and telling whether it can be cut into ``\\n``-aligned
byte ranges (a plain regular file, which workers seek into) or must be read whole, front to back (a compressed
file, standard input, a pipe). Counting (:mod:`hf_bpe.counting.counting`) reads both kinds the same way, line by line
with the line endings kept, as ``tokenizers`` reads a plain file; a compressed file is the text it decompresses to.

Sources: a path; a path ending in ``.gz``, ``.bz2`` or ``.xz`` (the standard library reads them) or ``.zst``
(needs the ``zstandard`` package); ``-`` for standard input.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, cast

#: The name that means standard input.
STDIN = "-"
#: File name endings read through a decompressor.
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")
#: The first bytes of each compressed format, to recognize a compressed file that is not named so.
_MAGIC = {b"\x1f\x8b": ".gz", b"BZh": ".bz2", b"\xfd7zXZ\x00": ".xz", b"\x28\xb5\x2f\xfd": ".zst"}


def display_name(source: str | os.PathLike[str]) -> str:
    """How a source is named in messages.

    >>> display_name("-"), display_name("a.txt")
    ('standard input', 'a.txt')
    """
    return "standard input" if str(source) == STDIN else str(source)


def is_stream(source: str | os.PathLike[str]) -> bool:
    """True if ``source`` must be read whole, front to back: compressed, standard input, or not a regular file.

    >>> is_stream("-"), is_stream("corpus.txt.gz"), is_stream("corpus.txt")
    (True, True, False)
    """
    name = str(source)
    if name == STDIN or name.endswith(COMPRESSED_SUFFIXES):
        return True
    try:
        mode = os.stat(name).st_mode
    except OSError:
        return False  # a missing file is reported by whoever opens it
    return not stat.S_ISREG(mode)


@contextlib.contextmanager
def open_binary(source: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """The bytes of a source, decompressed (standard input is not closed afterwards).

    Raises:
        FileNotFoundError: naming a missing file.
        ValueError: for ``.zst`` without the ``zstandard`` package (with the command to install it), or a
            compressed file that is corrupt.
    """
    name = str(source)
    if name == STDIN:
        yield sys.stdin.buffer
        return
    path = Path(name)
    if not path.exists():
        raise FileNotFoundError(f"{name}: no such file")
    stream = _open_compressed(path) if name.endswith(COMPRESSED_SUFFIXES) else path.open("rb")
    try:
        with stream:
            yield stream
    except Exception as e:
        corrupt = isinstance(e, (EOFError, lzma.LZMAError)) or type(e).__name__ == "ZstdError"
        corrupt = corrupt or (isinstance(e, OSError) and not isinstance(e, FileNotFoundError))
        if not corrupt or not name.endswith(COMPRESSED_SUFFIXES):
            raise
        raise ValueError(f"{name}: not a valid {Path(name).suffix} file, or cut short ({e})") from e


def _open_compressed(path: Path) -> IO[bytes]:
    """A decompressing reader for a path with one of :data:`COMPRESSED_SUFFIXES`."""
    openers: dict[str, Any] = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
    if path.suffix in openers:
        return cast("IO[bytes]", openers[path.suffix](path, "rb"))
    try:
        import zstandard
    except ImportError:
        raise ValueError(f"{path}: reading .zst files needs the zstandard package: pip install zstandard") from None
    return cast("IO[bytes]", zstandard.open(path, "rb"))


def compressed_look(path: str | os.PathLike[str]) -> str | None:
    """The suffix of the compressed format a file's first bytes look like, or None.

    >>> import gzip, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "corpus.txt"
    >>> _ = path.write_bytes(gzip.compress(b"text"))
    >>> compressed_look(path)
    '.gz'
    """
    try:
        with open(path, "rb") as stream:
            head = stream.read(6)
    except OSError:
        return None
    return next((suffix for magic, suffix in _MAGIC.items() if head.startswith(magic)), None)
