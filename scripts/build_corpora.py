"""Build real-text corpora for benchmarks and slow tests from Debian packages.

This script owns fetching, extracting and concatenating the corpora; what is done with them (training, parity
checks, timing) is left to the benchmarks and tests that read ``cache/corpora/``.

Each corpus comes from one Debian package fetched with ``apt-get download`` (the only network used is
Debian's archive, through apt) and unpacked with ``dpkg-deb -x``:

- ``english``: the reST sources of the Python docs, ``python3.11-doc``
  (``usr/share/doc/python3.11/html/_sources/**/*.txt``, about 11 MB in Debian 12 "bookworm",
  3.11.2-6+deb12u8), 10 MB by default.
- ``japanese``: the Japanese man pages, ``manpages-ja`` (``usr/share/man/ja/**/*.gz``, gzipped roff, all
  UTF-8 in bookworm's 0.5.0.0.20221215+dfsg-1; symlinked pages are skipped so no page counts twice), 3 MB by
  default. The pages are kept as gunzipped roff source, macros and all: no lossy cleaning to get wrong, and
  the corpus stays exactly the package's text (the README's benchmarks were measured on it).
- ``chinese``: the Simplified Chinese man pages, ``manpages-zh`` (``usr/share/man/zh_CN/**/*.gz``), 2 MB by
  default; ``russian``: the Russian man pages, ``manpages-ru`` (``usr/share/man/ru/**/*.gz``), 3 MB by default;
  both read as the Japanese ones (the Unigram parity runs, ``tests/test_unigram_trainer.py``).

Files are read in sorted path order (compared component by component) and concatenated byte for byte
(line endings as in the sources; a file not ending in a newline gets one), then cut at the last line end at
or before the target size. If a package holds less text than asked for, its files are repeated in the same
order and the script says so. One MB here is 1,000,000 bytes.

Each corpus is written atomically with a ``<name>.json`` record beside it (package, version, size asked
for, sha256); a later run with the same size and an intact file skips it, ``--force`` rebuilds. Several processes
may build into one output directory at once (parallel test workers): a lock file per corpus (``.<name>.lock``) lets
one build while the others wait and then reuse what it wrote.

Usage::

    python scripts/build_corpora.py                      # every corpus into cache/corpora/
    python scripts/build_corpora.py japanese --size-mb japanese=1 --output /tmp/corpora --force

If ``apt-get download`` cannot find a package, run ``apt-get update`` once and retry, or pass ``--apt-update``
to have the script do it (one process at a time: concurrent ``apt-get update`` runs fail on apt's own lock).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from hf_bpe.atomic import write_files
from hf_bpe.reference.package_index import cache_lock

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = REPO_ROOT / "cache" / "corpora"
MB = 1_000_000
# One `apt-get update` at a time on this machine, whichever output directory a build writes to (the lock
# directory the FHS gives every program; the temporary one where there is none).
APT_UPDATE_LOCK = Path("/run/lock" if Path("/run/lock").is_dir() else tempfile.gettempdir()) / "hf-bpe-apt-update.lock"
# Bump when the selection or cleaning of text changes, so cached corpora are rebuilt.
FORMAT_VERSION = 1


class CorpusError(Exception):
    """A corpus could not be built; the message says why and what to do."""


@dataclass(frozen=True)
class CorpusSpec:
    """Where one corpus comes from and how its files become text."""

    name: str
    package: str
    source_dir: str
    pattern: str
    default_mb: float
    read: Callable[[Path], bytes]


@dataclass(frozen=True)
class BuiltCorpus:
    """What was written (or found already built)."""

    path: Path
    package: str
    version: str
    size_bytes: int
    lines: int
    sha256: str
    repeated: bool
    skipped: bool


# ---------------------------------------------------------------------------------------------------------------
# sources


def _read_plain(path: Path) -> bytes:
    data = path.read_bytes()
    data.decode("utf-8")  # fail here, naming the file, rather than write an undecodable corpus
    return data


def _read_man_page(path: Path) -> bytes:
    data = gzip.decompress(path.read_bytes())
    data.decode("utf-8")
    return data


CORPORA: dict[str, CorpusSpec] = {
    "english": CorpusSpec(
        name="english",
        package="python3.11-doc",
        source_dir="usr/share/doc/python3.11/html/_sources",
        pattern="*.txt",
        default_mb=10,
        read=_read_plain,
    ),
    "japanese": CorpusSpec(
        name="japanese",
        package="manpages-ja",
        source_dir="usr/share/man/ja",
        pattern="*.gz",
        default_mb=3,
        read=_read_man_page,
    ),
    "chinese": CorpusSpec(
        name="chinese",
        package="manpages-zh",
        source_dir="usr/share/man/zh_CN",
        pattern="*.gz",
        default_mb=2,
        read=_read_man_page,
    ),
    "russian": CorpusSpec(
        name="russian",
        package="manpages-ru",
        source_dir="usr/share/man/ru",
        pattern="*.gz",
        default_mb=3,
        read=_read_man_page,
    ),
}


def _run(cmd: list[str], *, cwd: Path) -> str:
    try:
        result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError as e:
        raise CorpusError(f"{cmd[0]} not found: this script needs a Debian system with apt and dpkg") from e
    if result.returncode != 0:
        lines = [ln for ln in result.stderr.splitlines() if ln.startswith("E:")] or result.stderr.splitlines()
        detail = lines[-1].strip() if lines else f"exit code {result.returncode}"
        hint = "; run `apt-get update` and retry" if cmd[:2] == ["apt-get", "download"] else ""
        raise CorpusError(f"`{' '.join(cmd)}` failed: {detail}{hint}")
    return result.stdout


def fetch_package(package: str, workdir: Path, *, update: bool = False) -> tuple[Path, str]:
    """Download one package with apt and unpack it.

    Args:
        package: Debian package name.
        workdir: An empty scratch directory.
        update: If apt cannot download the package, run ``apt-get update`` (see :func:`apt_update`) and retry.

    Returns:
        The directory the package was unpacked into, and the package version.

    Raises:
        CorpusError: apt or dpkg failed, or the download left no ``.deb``.
    """
    # apt drops privileges to _apt for downloads; let it write here instead of warning and falling back.
    workdir.chmod(0o777)
    started = time.time()
    try:
        _run(["apt-get", "download", package], cwd=workdir)
    except CorpusError:
        if not update:
            raise
        apt_update(since=started)
        _run(["apt-get", "download", package], cwd=workdir)
    debs = sorted(workdir.glob(f"{package}_*.deb"))
    if len(debs) != 1:
        raise CorpusError(f"`apt-get download {package}` left {len(debs)} .deb files in {workdir}, expected 1")
    version = _run(["dpkg-deb", "-f", str(debs[0]), "Version"], cwd=workdir).strip()
    root = workdir / "root"
    _run(["dpkg-deb", "-x", str(debs[0]), str(root)], cwd=workdir)
    return root, version


def apt_update(*, since: float = 0.0) -> None:
    """Run ``apt-get update``, one process at a time; skip it if another process ran it after ``since``.

    apt takes its lists' lock without waiting, so a second concurrent ``apt-get update`` fails; builds queue on
    :data:`APT_UPDATE_LOCK` instead, and a stamp beside it says when the last update under it ended.
    """
    stamp = APT_UPDATE_LOCK.with_suffix(".done")
    with cache_lock(APT_UPDATE_LOCK, "running apt-get update"):
        if stamp.is_file() and stamp.stat().st_mtime > since:
            return
        _run(["apt-get", "update", "-qq"], cwd=Path("/"))
        stamp.touch()


def _source_files(spec: CorpusSpec, root: Path) -> list[Path]:
    base = root / spec.source_dir
    if not base.is_dir():
        raise CorpusError(f"{spec.package} has no {spec.source_dir}/; its layout changed, update CORPORA")
    files = sorted(
        (p for p in base.rglob(spec.pattern) if p.is_file() and not p.is_symlink()),
        key=lambda p: p.relative_to(base).parts,
    )
    if not files:
        raise CorpusError(f"{spec.package} has no {spec.pattern} files under {spec.source_dir}/")
    return files


def _chunks(spec: CorpusSpec, files: list[Path]) -> Iterator[bytes]:
    for path in files:
        try:
            data = spec.read(path)
        except UnicodeDecodeError as e:
            raise CorpusError(f"{path.name} in {spec.package} is not UTF-8 ({e}); add a decoder to CORPORA") from e
        if data and not data.endswith(b"\n"):
            data += b"\n"
        yield data


def assemble(spec: CorpusSpec, files: list[Path], target: int) -> tuple[bytes, bool]:
    """Concatenate files in order up to ``target`` bytes, cut at a line end; repeat them if too short.

    Returns:
        The corpus and whether the files had to be repeated.
    """
    parts: list[bytes] = []
    total = 0
    rounds = 0
    while total < target:
        before = total
        for data in _chunks(spec, files):
            parts.append(data)
            total += len(data)
            if total >= target:
                break
        rounds += 1
        if total == before:
            raise CorpusError(f"{spec.package} yielded no text from {len(files)} files")
    corpus = b"".join(parts)
    cut = corpus.rfind(b"\n", 0, target) + 1
    return corpus[: cut or target], rounds > 1


# ---------------------------------------------------------------------------------------------------------------
# building


def _meta_path(path: Path) -> Path:
    return path.with_suffix(".json")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _cached(spec: CorpusSpec, path: Path, target: int) -> BuiltCorpus | None:
    try:
        meta = json.loads(_meta_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    expected = {"format": FORMAT_VERSION, "package": spec.package, "target_bytes": target}
    if any(meta.get(k) != v for k, v in expected.items()) or not path.is_file():
        return None
    if path.stat().st_size != meta.get("size_bytes") or _sha256(path) != meta.get("sha256"):
        return None
    return BuiltCorpus(
        path=path,
        package=spec.package,
        version=meta["version"],
        size_bytes=meta["size_bytes"],
        lines=meta["lines"],
        sha256=meta["sha256"],
        repeated=meta["repeated"],
        skipped=True,
    )


def lock_path(output: Path, name: str) -> Path:
    """The lock file that one build of corpus ``name`` into ``output`` holds at a time."""
    return output / f".{name}.lock"


def build_corpus(
    spec: CorpusSpec, output: Path, *, size_mb: float, force: bool = False, update: bool = False
) -> BuiltCorpus:
    """Build one corpus into ``output/<name>.txt`` unless an identical build is already there.

    Builds of one corpus into one directory take turns (:func:`lock_path`): a process that waited for another's
    build finds it there and reuses it (unless ``force``).

    Raises:
        CorpusError: apt or dpkg failed, or the package's files are not what this script expects.
    """
    target = int(size_mb * MB)
    path = output / f"{spec.name}.txt"
    if not force and (cached := _cached(spec, path, target)) is not None:
        return cached
    with cache_lock(lock_path(output, spec.name), f"building the {spec.name} corpus"):
        if not force and (cached := _cached(spec, path, target)) is not None:
            return cached
        return _build(spec, path, target, update=update)


def _build(spec: CorpusSpec, path: Path, target: int, *, update: bool) -> BuiltCorpus:
    with tempfile.TemporaryDirectory(prefix=f"build_corpora_{spec.name}_") as tmp:
        root, version = fetch_package(spec.package, Path(tmp), update=update)
        corpus, repeated = assemble(spec, _source_files(spec, root), target)
    built = BuiltCorpus(
        path=path,
        package=spec.package,
        version=version,
        size_bytes=len(corpus),
        lines=corpus.count(b"\n"),
        sha256=hashlib.sha256(corpus).hexdigest(),
        repeated=repeated,
        skipped=False,
    )
    meta = {
        "format": FORMAT_VERSION,
        "package": spec.package,
        "version": version,
        "target_bytes": target,
        "size_bytes": built.size_bytes,
        "lines": built.lines,
        "sha256": built.sha256,
        "repeated": repeated,
    }
    # The corpus, then its record, renamed into place together from temporary names of their own: a reader sees
    # the old pair or the new one (or, between the two renames, a record that does not match: it waits on the lock).
    write_files(path.parent, {path.name: corpus, _meta_path(path).name: json.dumps(meta, indent=2) + "\n"})
    return built


def _parse_sizes(items: list[str]) -> dict[str, float]:
    sizes: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or name not in CORPORA:
            raise CorpusError(f"--size-mb {item!r}: expected NAME=MB with NAME one of {', '.join(CORPORA)}")
        try:
            sizes[name] = float(value)
        except ValueError as e:
            raise CorpusError(f"--size-mb {item!r}: {value!r} is not a number of MB") from e
        if sizes[name] <= 0:
            raise CorpusError(f"--size-mb {item!r}: the size must be positive")
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "corpora", nargs="*", metavar="NAME", help=f"corpora to build: {', '.join(CORPORA)} (default: all)"
    )
    parser.add_argument(
        "--size-mb",
        action="append",
        default=[],
        metavar="NAME=MB",
        help="target size of one corpus in MB of 10^6 bytes (defaults: "
        + ", ".join(f"{s.name}={s.default_mb:g}" for s in CORPORA.values())
        + "); repeatable",
    )
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="output directory (default: %(default)s)")
    parser.add_argument("--force", action="store_true", help="rebuild even if an identical corpus is there")
    parser.add_argument(
        "--apt-update",
        action="store_true",
        help="if apt cannot download a package, run `apt-get update` (one process at a time) and retry",
    )
    args = parser.parse_args(argv)
    unknown = [name for name in args.corpora if name not in CORPORA]
    if unknown:
        parser.error(f"unknown corpus {unknown[0]!r}; choose from {', '.join(CORPORA)}")
    try:
        sizes = _parse_sizes(args.size_mb)
        for name in args.corpora or CORPORA:
            spec = CORPORA[name]
            size_mb = sizes.get(name, spec.default_mb)
            built = build_corpus(spec, args.output, size_mb=size_mb, force=args.force, update=args.apt_update)
            status = "already built" if built.skipped else "built"
            print(
                f"{status} {built.path}: {built.size_bytes:,} bytes, {built.lines:,} lines, "
                f"sha256 {built.sha256} (from {built.package} {built.version})"
            )
            if built.repeated:
                print(f"  note: {built.package} holds less text than asked for; its files were repeated")
    except CorpusError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
