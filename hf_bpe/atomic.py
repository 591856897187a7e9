"""All-or-nothing writes of several files into a directory, with SIGINT and SIGTERM held during the renames.

A leaf module: tokenizer directories (every model's ``files``), counts directories and the reference caches all
write through :func:`write_files`, so an error or Ctrl-C never leaves a half-written or mixed directory behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path


def write_files(
    directory: str | os.PathLike[str], files: Mapping[str, str | bytes], *, remove: Sequence[str] = ()
) -> None:
    """Write several files into ``directory`` (made if missing), all or none: text (UTF-8) or bytes.

    Each file is written and flushed to disk under a temporary name first; only when all are complete are they
    renamed into place, with SIGINT and SIGTERM held back during the renames. On any error the temporary files
    are removed and the directory keeps what it had. Files are created with the mode ``open()`` gives (0666 less
    the umask), so others can read them as they read ``tokenizers``' files.

    Args:
        directory: where to write.
        files: file name to text or bytes.
        remove: names of files (or directories) to remove from ``directory`` together with the renames.

    Raises:
        NotADirectoryError: if ``directory`` (or a parent) is a file.
        PermissionError: if the directory cannot be written.
    """
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise NotADirectoryError(f"{directory}: is a file, not a directory; choose another output path")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except PermissionError as e:
        raise PermissionError(f"{directory}: cannot create it ({e.strerror}); choose another output path") from e
    temporary: dict[str, Path] = {}
    try:
        for name, text in files.items():
            try:
                handle, temp_name = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
            except PermissionError as e:
                raise PermissionError(f"{directory}: cannot write there ({e.strerror})") from e
            temporary[name] = Path(temp_name)
            # mkstemp makes the file 0600; the result is meant to be shared (another user, a container), so it
            # gets the mode open() would give it: 0666 less the umask, as tokenizers' files have.
            os.fchmod(handle, 0o666 & ~_umask())
            with os.fdopen(handle, "wb") as stream:
                stream.write(text if isinstance(text, bytes) else bytes(text, "utf-8"))
                stream.flush()
                os.fsync(stream.fileno())
        with _signals_held():
            for name, temp_path in temporary.items():
                os.replace(temp_path, directory / name)
            for name in remove:
                target = directory / name
                if target.is_dir() and not target.is_symlink():
                    shutil.rmtree(target)
                else:
                    with contextlib.suppress(FileNotFoundError):
                        target.unlink()
    finally:
        for temp_path in temporary.values():
            with contextlib.suppress(FileNotFoundError):
                temp_path.unlink()


def _umask() -> int:
    """The process's umask (read from ``/proc`` where it can be, so no other thread ever sees it changed)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Defer SIGINT/SIGTERM until the block ends (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[tuple[int, object]] = []
    previous = {
        sig: signal.signal(sig, lambda number, frame: received.append((number, frame)))
        for sig in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for number, _frame in received:
            signal.raise_signal(number)
