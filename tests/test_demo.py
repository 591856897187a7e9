"""The main job, as README's first command runs it (``scripts/demo.py``; ``demo.sh`` only installs first)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from tokenizers import Tokenizer

DEMO = Path(__file__).resolve().parent.parent / "scripts" / "demo.py"


@pytest.mark.slow
def test_demo_trains_loads_and_reports(tmp_path):
    done = subprocess.run(
        [sys.executable, str(DEMO), "--output", str(tmp_path / "demo")], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "round trip       exact" in out
    ids = [int(i) for i in re.search(r"ids +\[([\d, ]+)\]", out).group(1).split(", ")]
    rust = Tokenizer.from_file(str(tmp_path / "demo" / "tokenizer.json"))  # the reference, on the same files
    assert rust.encode("def greet(name):\n    return f'Hello, {name}!'  # naïve café ☕\n").ids == ids
    shares = [float(x) for x in re.findall(r"\n  all +\d+ +\d+ +([\d.]+)", out)]
    assert len(shares) == 3 and shares[0] < shares[1] < shares[2]  # bytes per token grow with the vocabulary
    for size in (1000, 2000, 4000):
        assert f"{tmp_path / 'demo-sizes' / str(size)}: {size} tokens" in out
    assert (tmp_path / "demo-sizes" / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
