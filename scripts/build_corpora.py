"""Build real-text corpora for the benchmarks from Debian packages (no other download).

Usage: ``python scripts/build_corpora.py [--output cache/corpora] [--english-mb 10] [--japanese-mb 3] [--force]``

* ``english.txt`` — the reST sources of the Python documentation (Debian ``python3.11-doc``,
  ``usr/share/doc/python3.11/html/_sources/**/*.txt``), concatenated in path order up to the size asked for.
* ``japanese.txt`` — the Japanese manual pages (Debian ``manpages-ja``, ``usr/share/man/ja/**/*.gz``), gunzipped
  roff source (macros and all), concatenated in path order up to the size asked for.

Packages are fetched with ``apt-get download`` (run ``apt-get update`` once on a new machine) and unpacked with
``dpkg-deb -x`` into a temporary directory. A corpus that already has the asked-for size is kept unless
``--force``. Each file's lines keep their endings; a file is cut only at a line end.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPORA = {
    "english": ("python3.11-doc", "usr/share/doc/python3.11/html/_sources", "*.txt"),
    "japanese": ("manpages-ja", "usr/share/man/ja", "*.gz"),
}


class BuildError(Exception):
    """A step failed; the message says which and why."""


def unpack(package: str, into: Path) -> Path:
    """Download ``package`` with apt-get and unpack it; return the unpacked root."""
    done = subprocess.run(["apt-get", "download", package], cwd=into, capture_output=True, text=True)
    if done.returncode != 0:
        raise BuildError(f"apt-get download {package} failed: {done.stderr.strip()[-300:]} (try: apt-get update)")
    debs = sorted(into.glob(f"{package}_*.deb"))
    if not debs:
        raise BuildError(f"apt-get download {package} left no .deb in {into}")
    root = into / package
    subprocess.run(["dpkg-deb", "-x", str(debs[0]), str(root)], check=True)
    return root


def texts(root: Path, folder: str, pattern: str) -> Iterator[bytes]:
    for path in sorted((root / folder).rglob(pattern)):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            data = gzip.decompress(data) if path.suffix == ".gz" else data
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                continue  # the few files in other encodings are left out, so every corpus is valid UTF-8
            yield data if data.endswith(b"\n") else data + b"\n"


def build(name: str, target: Path, megabytes: float, scratch: Path) -> None:
    package, folder, pattern = CORPORA[name]
    root = unpack(package, scratch)
    budget = int(megabytes * 1e6)
    parts: list[bytes] = []
    size = 0
    for data in texts(root, folder, pattern):
        if size + len(data) > budget:
            cut = data.rfind(b"\n", 0, budget - size) + 1
            parts.append(data[:cut])
            size += cut
            break
        parts.append(data)
        size += len(data)
    if size < budget * 0.9:
        print(f"{name}: {package} has only {size / 1e6:.1f} MB of text; using all of it", file=sys.stderr)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"".join(parts))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=REPO / "cache" / "corpora")
    parser.add_argument("--english-mb", type=float, default=10.0)
    parser.add_argument("--japanese-mb", type=float, default=3.0)
    parser.add_argument("--force", action="store_true", help="rebuild corpora that exist already")
    args = parser.parse_args()
    sizes = {"english": args.english_mb, "japanese": args.japanese_mb}
    try:
        with tempfile.TemporaryDirectory(prefix="hf-bpe-corpora-") as scratch:
            for name, megabytes in sizes.items():
                target = args.output / f"{name}.txt"
                if args.force or not target.is_file() or abs(target.stat().st_size - megabytes * 1e6) > 1e5:
                    build(name, target, megabytes, Path(scratch))
                data = target.read_bytes()
                digest = hashlib.sha256(data).hexdigest()
                lines = data.count(b"\n")
                print(f"{target}: {len(data) / 1e6:.2f} MB, {lines} lines, sha256 {digest}")
    except (BuildError, subprocess.CalledProcessError, OSError) as e:
        print(f"build_corpora: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
