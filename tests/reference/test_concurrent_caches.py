"""Two processes filling the same cache at once (two hf-bpe commands, two pytest-xdist workers) both get the
whole, identical result: one builds under the cache's lock, the other waits and reuses it.

Each test holds the lock itself while it starts both processes, and releases it only once each has said it is
waiting: so the two really arrive together, on every machine, however loaded (no sleeps, no timing).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from conftest import REPO

from hf_bpe.reference.gpt2 import RANKS_FILE, RANKS_SHA256
from hf_bpe.reference.package_index import cache_lock

BUILD_CORPORA = REPO / "scripts" / "build_corpora.py"


@contextlib.contextmanager
def two_waiting(lock_file: Path, command: list[str]) -> Iterator[list[subprocess.Popen[str]]]:
    """Start ``command`` twice while holding ``lock_file``; yield the processes once both wait for it, unlocked."""
    processes: list[subprocess.Popen[str]] = []
    try:
        with cache_lock(lock_file, "holding the cache for the test"):
            for _ in range(2):
                processes.append(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
            for process in processes:
                assert process.stderr is not None
                said = ""
                while not said.endswith("\n") or "hf_bpe: waiting for another process" not in said:
                    line = process.stderr.readline()
                    assert line, f"ended without waiting for the lock: {said}"
                    said += line
        yield processes
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
            process.communicate()


def finish(process: subprocess.Popen[str]) -> tuple[str, str]:
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    return out, err


def test_two_builds_of_one_corpus_at_once_give_one_whole_corpus(tmp_path):
    output = tmp_path / "corpora"
    command = [sys.executable, str(BUILD_CORPORA), "chinese", "--size-mb", "chinese=0.2", "--output", str(output)]
    sys.path.insert(0, str(BUILD_CORPORA.parent))
    try:
        import build_corpora
    finally:
        sys.path.pop(0)
    with two_waiting(build_corpora.lock_path(output, "chinese"), command) as processes:
        reports = [finish(process)[0] for process in processes]
    corpus = (output / "chinese.txt").read_bytes()
    digest = hashlib.sha256(corpus).hexdigest()
    # One built it, the other found it built; both report the file that is there, byte for byte.
    assert sorted(report.split(" ", 1)[0] for report in reports) == ["already", "built"], reports
    for report in reports:
        assert f"{len(corpus):,} bytes" in report and f"sha256 {digest}" in report, report
    record = json.loads((output / "chinese.json").read_text(encoding="utf-8"))
    assert (record["size_bytes"], record["sha256"], record["package"]) == (len(corpus), digest, "manpages-zh")
    # Whole: the man pages' text cut at the last line end before 200,000 bytes (no line is 1,000 bytes long).
    assert 199_000 < len(corpus) <= 200_000 and corpus.endswith(b"\n")
    corpus.decode("utf-8")
    assert sorted(p.name for p in output.iterdir()) == [".chinese.lock", "chinese.json", "chinese.txt"]


def test_two_first_uses_of_gpt2_at_once_convert_once_and_agree(gpt2_dir, tmp_path):
    # The rank file is there (checked by its published SHA-256), its conversion not yet: no download in this test.
    directory = tmp_path / "gpt2"
    directory.mkdir()
    shutil.copyfile(gpt2_dir / RANKS_FILE, directory / RANKS_FILE)
    code = (
        "import hashlib, sys; from hf_bpe.reference.gpt2 import gpt2_files; d = gpt2_files(sys.argv[1]); "
        "print(*(hashlib.sha256((d / n).read_bytes()).hexdigest() for n in ('vocab.json', 'merges.txt', sys.argv[2])))"
    )
    command = [sys.executable, "-c", code, str(directory), RANKS_FILE]
    with two_waiting(directory / ".gpt2.lock", command) as processes:
        (first, first_err), (second, second_err) = (finish(process) for process in processes)
    # One converted, the other waited and reused its files: the same three files, the rank file still the one whose
    # SHA-256 OpenAI's whisper package publishes; GPT-2's published sizes.
    assert first == second and first.split()[2] == RANKS_SHA256, (first, second)
    assert "fetching" not in first_err + second_err
    assert sorted(p.name for p in directory.iterdir()) == [".gpt2.lock", RANKS_FILE, "merges.txt", "vocab.json"]
    vocab = json.loads((directory / "vocab.json").read_text(encoding="utf-8"))
    assert len(vocab) == 50257 and vocab["<|endoftext|>"] == 50256
    merges = (directory / "merges.txt").read_text(encoding="utf-8").splitlines()
    assert len(merges) == 1 + 50000 and merges[1] == "Ġ t"
