"""Where invalid UTF-8 is, said the same way by every reader: ``FILE:LINE: invalid UTF-8 at byte offset N (reason)``.

>>> decode_utf8(b"ok\\nbad \\xff", "a.txt")
Traceback (most recent call last):
ValueError: a.txt:2: invalid UTF-8 at byte offset 7 (invalid start byte)
"""

from __future__ import annotations

import os


def invalid_utf8(
    path: str | os.PathLike[str],
    error: UnicodeDecodeError,
    data: bytes,
    *,
    base: int = 0,
    lines_before: int = 0,
    note: str = "",
) -> str:
    """The message for ``error`` in ``data``, bytes that start at byte ``base`` of ``path`` after ``lines_before``
    lines: the 1-based line, the offset in the file, ``note`` (e.g. " of the decompressed text") and the reason."""
    line = lines_before + data.count(b"\n", 0, error.start) + 1
    return f"{path}:{line}: invalid UTF-8 at byte offset {base + error.start}{note} ({error.reason})"


def decode_utf8(data: bytes, path: str | os.PathLike[str]) -> str:
    """``data``, the whole of ``path``, decoded.

    Raises:
        ValueError: naming the file, line and byte offset of invalid UTF-8.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(invalid_utf8(path, e, data)) from e
