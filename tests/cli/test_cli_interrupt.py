"""Ctrl-C as a terminal sends it: SIGINT to the whole process group, twice in quick succession."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import multilingual_text


def _group_members(group: int) -> list[int]:
    """Live processes in process group ``group`` (zombies excluded)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, pgrp = fields[0], int(fields[2])
        if pgrp == group and state != "Z":
            members.append(int(entry.name))
    return members


def _big_corpus(tmp_path: Path) -> Path:
    path = tmp_path / "big.txt"
    block = multilingual_text(2000, 7)
    with path.open("w", encoding="utf-8", newline="") as stream:
        for _ in range(max(1, (24 << 20) // len(block.encode()))):
            stream.write(block)
    return path


def _interrupt_while_counting(tmp_path: Path, signals: int) -> tuple[int, str, list[int]]:
    corpus = _big_corpus(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "vocab.json").write_text("earlier", encoding="utf-8")
    child = subprocess.Popen(
        # --force: the directory holds an earlier file, which an interrupted run must leave as it was
        [sys.executable, "-m", "hf_bpe.cli", "train", str(corpus), "-o", str(out), "--workers", "2", "--force"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    group = child.pid
    # Wait until the counting workers run (the progress bar says "counting"), then Ctrl-C the group.
    assert child.stderr is not None
    seen = ""
    while "counting" not in seen:
        character = child.stderr.read(1)
        assert character, f"the command ended before counting: {seen}"
        seen += character
    time.sleep(0.3)
    for _ in range(signals):
        os.killpg(group, signal.SIGINT)
        time.sleep(0.005)
    try:
        _, rest = child.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        left = _group_members(group)
        os.killpg(group, signal.SIGKILL)
        child.communicate()
        raise AssertionError(f"hf-bpe hung after {signals} SIGINTs; processes left: {left}") from None
    leftovers = _group_members(group)
    for pid in leftovers:
        os.kill(pid, signal.SIGKILL)
    assert (out / "vocab.json").read_text(encoding="utf-8") == "earlier"
    assert sorted(p.name for p in out.iterdir()) == ["vocab.json"]
    return child.returncode, seen + rest, leftovers


def test_two_quick_sigints_to_the_group_exit_130_and_leave_no_process(tmp_path):
    status, stderr, leftovers = _interrupt_while_counting(tmp_path, 2)
    assert (status, leftovers) == (130, []), stderr
    assert "Traceback" not in stderr
    assert stderr.rstrip().endswith("hf-bpe: interrupted; nothing was written")


def test_three_sigints_leave_no_orphaned_worker(tmp_path):
    status, stderr, leftovers = _interrupt_while_counting(tmp_path, 3)
    assert (status, leftovers) == (130, []), stderr
    assert "Traceback" not in stderr
