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
    # README shows the report's last block as the demo prints it (on the Python 3.11 it names; paths under out/).
    readme = (DEMO.parent.parent / "README.md").read_text(encoding="utf-8")
    shown = readme[readme.index("out/demo-sizes/4000: 4000 tokens\n") :].split("```", 1)[0]
    last = out[out.index(f"{tmp_path / 'demo-sizes' / '4000'}: 4000 tokens\n") :].split("plot written to", 1)[0]
    assert shown == last.replace(f"{tmp_path}/", "out/")


def test_the_set_up_installs_once_until_pyproject_changes(tmp_path):
    """README's two commands source scripts/setup_venv.sh: it installs into .venv when the venv is new or
    pyproject.toml (or the extras) changed, and otherwise starts at once. A stand-in .venv/bin/python records
    what it is asked to do (hashing runs on the real interpreter)."""
    repo = tmp_path / "clone"
    (repo / "scripts").mkdir(parents=True)
    setup = Path(__file__).resolve().parent.parent / "scripts" / "setup_venv.sh"
    (repo / "scripts" / "setup_venv.sh").write_text(setup.read_text(encoding="utf-8"), encoding="utf-8")
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    log = tmp_path / "calls.log"
    python = repo / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(
        f'#!/bin/sh\necho "$*" >> {log}\n[ "$1" = "-c" ] && exec {sys.executable} "$@"\nexit 0\n', encoding="utf-8"
    )
    python.chmod(0o755)

    def set_up(extra: str) -> list[str]:
        log.write_text("", encoding="utf-8")
        done = subprocess.run(
            ["bash", "-c", f'source scripts/setup_venv.sh {extra}; echo "venv=$venv"'],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == f"venv={repo / '.venv'}"
        return [line.split()[1] for line in log.read_text(encoding="utf-8").splitlines() if line.startswith("-m ")]

    assert set_up("plot") == ["pip", "compileall"]
    assert set_up("plot") == []  # nothing changed: no install
    assert set_up("test") == ["pip", "compileall"]  # other extras
    assert set_up("test") == []
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "2"\n', encoding="utf-8")
    assert set_up("test") == ["pip", "compileall"]
