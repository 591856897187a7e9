"""The on-disk format for pre-token counts, so counting and merging can run in different places and times.

A counts directory (format ``hf-bpe-counts``, version 1) holds:

* ``manifest.json`` — ``{"format": "hf-bpe-counts", "version": 1, "buckets": B, "settings": {...},
  "sources": [input paths], "pre_tokens": distinct pre-tokens, "total": their summed count,
  "files": [bucket file names]}``.
  ``settings`` records how the text was cut into pre-tokens (split pattern, prefix space, special tokens...),
  so training refuses counts made another way. The manifest is written last: a directory without one is an
  unfinished run and is never read.
* ``bucket-00000.jsonl`` … — one JSON array ``["pre-token", count]`` per line, UTF-8, keys sorted. A
  pre-token's bucket is ``crc32(UTF-8 bytes) % B``: stable across processes and machines (never Python's
  salted ``hash()``), so partial counts from many workers can be summed bucket by bucket, in memory that
  follows the distinct pre-tokens of one bucket.

This module writes, reads, validates and sums such files. Producing counts from text is
:mod:`hf_bpe.counting.counting`'s job; distributing that is :mod:`hf_bpe.counting.datatrove`'s.
"""

from __future__ import annotations

import json
import os
import zlib
from collections import Counter
from collections.abc import ItemsView, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from hf_bpe.atomic import write_files

FORMAT = "hf-bpe-counts"
VERSION = 1
MANIFEST = "manifest.json"
DEFAULT_BUCKETS = 16


def bucket_of(pre_token: str, buckets: int) -> int:
    """The bucket a pre-token's count is stored in.

    >>> bucket_of("Ġthe", 16), zlib.crc32("Ġthe".encode()) % 16
    (7, 7)
    """
    return zlib.crc32(pre_token.encode("utf-8", "surrogatepass")) % buckets


def bucket_file_name(bucket: int) -> str:
    return f"bucket-{bucket:05d}.jsonl"


def format_bucket(counts: Mapping[str, int]) -> str:
    """One bucket file's text: a ``["pre-token", count]`` line per pre-token, sorted by pre-token."""
    return "".join(json.dumps([key, counts[key]], ensure_ascii=False) + "\n" for key in sorted(counts))


def split_into_buckets(counts: Mapping[str, int], buckets: int) -> list[dict[str, int]]:
    parts: list[dict[str, int]] = [{} for _ in range(buckets)]
    for key, count in counts.items():
        parts[bucket_of(key, buckets)][key] = count
    return parts


def write_counts(
    directory: str | os.PathLike[str],
    counts: Mapping[str, int],
    *,
    settings: Mapping[str, Any],
    buckets: int = DEFAULT_BUCKETS,
    sources: Sequence[str] = (),
) -> Path:
    """Write ``counts`` as a complete counts directory: the bucket files, then the manifest.

    Returns:
        The manifest's path.

    >>> import tempfile
    >>> directory = tempfile.mkdtemp()
    >>> _ = write_counts(directory, {"Ġthe": 3, "a": 1}, settings={"pattern": "gpt2"}, buckets=2)
    >>> dict(iter_counts(directory)), read_manifest(directory)["total"]
    ({'a': 1, 'Ġthe': 3}, 4)
    """
    if buckets < 1:
        raise ValueError(f"buckets must be at least 1, got {buckets}")
    parts = split_into_buckets(counts, buckets)
    write_files(directory, {bucket_file_name(number): format_bucket(part) for number, part in enumerate(parts)})
    return write_counts_manifest(directory, buckets=buckets, settings=settings, sources=sources)


def write_counts_manifest(
    directory: str | os.PathLike[str],
    *,
    buckets: int,
    settings: Mapping[str, Any],
    sources: Sequence[str] = (),
) -> Path:
    """Finish a counts directory whose bucket files are all written: check them and write the manifest.

    Raises:
        ValueError: naming a missing or corrupt bucket file.
    """
    directory = Path(directory)
    names = [bucket_file_name(number) for number in range(buckets)]
    pre_tokens = total = 0
    for name in names:
        if not (directory / name).is_file():
            raise ValueError(f"{directory / name}: missing; the counting did not finish")
        for _key, count in read_bucket(directory / name):
            pre_tokens += 1
            total += count
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "buckets": buckets,
        "settings": dict(settings),
        "sources": list(sources),
        "pre_tokens": pre_tokens,
        "total": total,
        "files": names,
    }
    write_files(directory, {MANIFEST: json.dumps(manifest, ensure_ascii=False, indent=2) + "\n"})
    return directory / MANIFEST


def read_manifest(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and check a counts directory's manifest.

    Raises:
        FileNotFoundError: if the directory has no manifest (not a counts directory, or an unfinished run).
        ValueError: if the manifest is malformed, of another format or version, or a bucket file is missing.
    """
    path = Path(directory) / MANIFEST
    if not path.is_file():
        raise FileNotFoundError(
            f"{path}: no such file; {directory} is not a finished counts directory (was the counting interrupted?)"
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not a valid counts manifest ({e})") from e
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ValueError(f"{path}: not an {FORMAT} manifest")
    if manifest.get("version") != VERSION:
        raise ValueError(
            f"{path}: counts format version {manifest.get('version')!r}, this hf_bpe reads version {VERSION}; "
            "recount with this version"
        )
    for name in manifest.get("files", []):
        if not (Path(directory) / name).is_file():
            raise ValueError(f"{path}: lists {name}, which is missing from {directory}")
    return manifest


def read_bucket(path: str | os.PathLike[str]) -> Iterator[tuple[str, int]]:
    """The ``(pre-token, count)`` pairs of one bucket file, in file order.

    Raises:
        ValueError: naming the file and 1-based line of a malformed or truncated line.
    """
    path = Path(path)
    with path.open("rb") as stream:
        for number, raw in enumerate(stream, start=1):
            try:
                if not raw.endswith(b"\n"):
                    raise ValueError("the line is cut off (truncated file?)")
                entry = json.loads(raw)
                if (
                    not isinstance(entry, list)
                    or len(entry) != 2
                    or not isinstance(entry[0], str)
                    or type(entry[1]) is not int
                    or entry[1] < 0
                ):
                    raise ValueError(f'expected ["pre-token", count], found {raw[:80]!r}')
            except (ValueError, UnicodeDecodeError) as e:
                raise ValueError(f"{path}:{number}: corrupt counts line: {e}") from e
            yield entry[0], entry[1]


def iter_counts(directory: str | os.PathLike[str]) -> Iterator[tuple[str, int]]:
    """Every ``(pre-token, count)`` of a counts directory, one bucket at a time.

    Each pre-token appears once (a bucket is summed before it is yielded).
    """
    manifest = read_manifest(directory)
    for name in manifest["files"]:
        yield from sum_counts([read_bucket(Path(directory) / name)]).items()


class CountsDirectory(Mapping[str, int]):
    """A counts directory as a read-only mapping from pre-token to count, read from disk, one bucket at a time,
    each time it is gone through (in :func:`iter_counts`' order): training on it holds no table of every pre-token
    (some 150 bytes each) beside the merge phase's own. Looking one pre-token up reads its bucket.

    >>> import tempfile
    >>> directory = write_counts(tempfile.mkdtemp(), {"a": 1, "bc": 2}, settings={}, buckets=2)
    >>> counts = CountsDirectory(directory.parent)
    >>> len(counts), sorted(counts.items()), counts["bc"]
    (2, [('a', 1), ('bc', 2)], 2)
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self._manifest = read_manifest(directory)
        self._length: int | None = None

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in iter_counts(self.directory))

    def items(self) -> _StreamedItems:
        return _StreamedItems(self)

    def __len__(self) -> int:
        if self._length is None:
            self._length = sum(1 for _ in iter_counts(self.directory))
        return self._length

    def __getitem__(self, key: str) -> int:
        name = self._manifest["files"][bucket_of(key, self._manifest["buckets"])]
        found = sum(count for pre_token, count in read_bucket(self.directory / name) if pre_token == key)
        if not found:
            raise KeyError(key)
        return found


class _StreamedItems(ItemsView[str, int]):
    """A :class:`CountsDirectory`'s items, read from disk bucket by bucket (not looked up key by key)."""

    _mapping: CountsDirectory

    def __iter__(self) -> Iterator[tuple[str, int]]:
        return iter_counts(self._mapping.directory)


def sum_counts(sources: Iterable[Iterable[tuple[str, int]]]) -> Counter[str]:
    """Sum ``(pre-token, count)`` streams into one table.

    >>> dict(sum_counts([[("a", 1), ("b", 2)], [("a", 5)]]))
    {'a': 6, 'b': 2}
    """
    total: Counter[str] = Counter()
    for source in sources:
        for key, count in source:
            total[key] += count
    return total
