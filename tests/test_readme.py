"""README.md runs as written: every ```python, ```bash and ```console block, in order, in one directory.

The small input files the blocks name (``a.txt``, ``b.txt``, ``corpus/*.txt``, ``docs.txt``) are made here; a
file a console block shows with ``cat`` is made from what it shows. Console blocks' output must match what the
README shows (times aside). A block is left out only with a marker comment on the line before it,
``<!-- not run: REASON -->``; ``<!-- output not compared: REASON -->`` runs it and checks each command's exit
status and last line. In Python blocks, a line ``expression  # value`` whose value is a Python literal asserts
that value. The test counts the blocks it ran, so a block cannot silently drop out.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import multilingual_text
from real_tokenizers import model_tokenizer_json

README = Path(__file__).parent.parent / "README.md"
NOT_RUN = re.compile(r"<!-- not run: (.+?) -->")
LOOSE = re.compile(r"<!-- output not compared: (.+?) -->")


@dataclasses.dataclass
class Block:
    language: str
    code: str
    line: int  # 1-based line of the opening fence
    marker: str  # the comment on the line before it, or ""


def readme_blocks(text: str) -> list[Block]:
    """The fenced blocks of a Markdown text, with the comment line before each."""
    blocks = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        fence = re.fullmatch(r"```(\w*)\s*", lines[index])
        if fence is None:
            index += 1
            continue
        end = index + 1
        while not lines[end].startswith("```"):
            end += 1
        before = next((line for line in reversed(lines[:index]) if line.strip()), "")
        blocks.append(Block(fence.group(1), "\n".join(lines[index + 1 : end]) + "\n", index + 1, before.strip()))
        index = end + 1
    return blocks


def with_shown_values_checked(code: str) -> str:
    """A Python block whose ``expression  # value`` lines (value a Python literal) assert that value."""
    out = []
    for line in code.splitlines():
        shown = re.fullmatch(r"(\S.*?)\s+#\s+(.+)", line)
        if shown is not None:
            try:
                ast.parse(shown.group(1), mode="eval")
                value = ast.literal_eval(shown.group(2))
            except (SyntaxError, ValueError):
                pass
            else:
                line = f"assert ({shown.group(1)}) == {value!r}, {shown.group(1)!r}"
        out.append(line)
    return "\n".join(out) + "\n"


def test_shown_values_become_assertions():
    code = "x = f(1)  # a comment\nf(2)  # [1, 2]\nprint(3)  # shows 3\n"
    assert (
        with_shown_values_checked(code)
        == "x = f(1)  # a comment\nassert (f(2)) == [1, 2], 'f(2)'\nprint(3)  # shows 3\n"
    )


def console_commands(code: str) -> list[tuple[str, list[str]]]:
    """``(command, shown output lines)`` for each ``$ `` line of a console block."""
    commands: list[tuple[str, list[str]]] = []
    for line in code.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        elif commands:
            commands[-1][1].append(line)
    return commands


def _normalized(lines: list[str]) -> list[str]:
    return [re.sub(r"\b\d+\.\d s\b", "N.N s", line.rstrip()) for line in lines if line.strip()]


def _environment(tmp_path: Path) -> dict[str, str]:
    """``hf-bpe`` on the PATH (this checkout's), hub downloads off, caches under tmp_path."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "hf-bpe"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m hf_bpe.cli "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TRANSFORMERS_NO_ADVISORY")}
    environment.update(
        PATH=f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        PYTHONPATH=str(README.parent),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_DATASETS_CACHE=str(tmp_path / "hf-datasets"),
    )
    return environment


def _inputs(directory: Path) -> None:
    """The small files the README's blocks name (``my.tiktoken``: GPT-2's rank file)."""
    (directory / "corpus").mkdir()
    for seed in range(2):
        text = multilingual_text(200, seed)
        (directory / "corpus" / f"part{seed}.txt").write_text(text, encoding="utf-8", newline="")
    (directory / "a.txt").write_text(multilingual_text(100, 3), encoding="utf-8", newline="")
    (directory / "b.txt").write_text(multilingual_text(100, 4), encoding="utf-8", newline="")
    (directory / "docs.txt").write_text(multilingual_text(300, 5), encoding="utf-8", newline="")
    (directory / "held-out.txt").write_text(multilingual_text(100, 6), encoding="utf-8", newline="")
    # a tiktoken rank file to convert: GPT-2's
    from hf_bpe.reference.gpt2 import RANKS_FILE, gpt2_files

    shutil.copy(gpt2_files() / RANKS_FILE, directory / "my.tiktoken")
    # two model directories holding only a tokenizer.json ("Load any tokenizer")
    for name, folder in (("llama3_1", "llama-3.1"), ("gemma2", "gemma-2")):
        (directory / folder).mkdir()
        shutil.copy(model_tokenizer_json(name), directory / folder / "tokenizer.json")


def _run(command: str | list[str], block: Block, work: Path, environment: dict[str, str]) -> tuple[str, str]:
    args = ["bash", "-euo", "pipefail", "-c", command] if isinstance(command, str) else command
    done = subprocess.run(args, cwd=work, env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"README.md:{block.line} ({block.language}) failed:\n{command}\n{done.stderr}"
    assert "Traceback" not in done.stderr, f"README.md:{block.line}: {done.stderr}"
    assert "PyTorch was not found" not in done.stderr, f"README.md:{block.line}: transformers' advisory printed"
    return done.stdout, done.stderr


def test_every_readme_block_runs_as_written(tmp_path):
    blocks = [block for block in readme_blocks(README.read_text(encoding="utf-8")) if block.language]
    work = tmp_path / "work"
    work.mkdir()
    _inputs(work)
    environment = _environment(tmp_path)
    ran, skipped = [], []
    for block in blocks:
        assert block.language in ("python", "bash", "console"), f"README.md:{block.line}: ```{block.language}"
        if NOT_RUN.fullmatch(block.marker):
            skipped.append(block.line)
            continue
        if block.language == "python":
            _run([sys.executable, "-c", with_shown_values_checked(block.code)], block, work, environment)
        elif block.language == "bash":
            _run(block.code, block, work, environment)
        else:
            for command, shown in console_commands(block.code):
                target = re.fullmatch(r"cat (\S+)\s*(#.*)?", command)
                if target and not (work / target.group(1)).exists():
                    (work / target.group(1)).write_text("\n".join(shown) + "\n", encoding="utf-8")
                stdout, _stderr = _run(command, block, work, environment)
                if LOOSE.fullmatch(block.marker):
                    assert _normalized(stdout.splitlines())[-1:] == _normalized(shown)[-1:], f"README.md:{block.line}"
                else:
                    assert _normalized(stdout.splitlines()) == _normalized(shown), f"README.md:{block.line}: {command}"
        ran.append(block.line)
    # Every block ran but the marked ones: the install script's, the clusters' (Slurm, Ray), the embedding slice
    # of a trimmed model (a model's weights), bench_scale's runs (hours) and the 100M-pre-token training (an hour).
    assert len(ran) + len(skipped) == len(blocks)
    assert len(skipped) == 6, f"blocks not run, at README.md lines {skipped}"
    assert len(ran) >= 9, f"ran only the blocks at README.md lines {ran}"


DOCUMENTS = [README, README.parent / "tests" / "README.md", README.parent / "scripts" / "README.md"]


def _prose(text: str) -> str:
    """The text outside fenced code blocks."""
    return re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)


def _anchors(document: Path) -> set[str]:
    """GitHub's anchors for a Markdown file's headings: lower case, punctuation dropped, spaces made hyphens."""
    headings = re.findall(r"^#+ (.+)$", _prose(document.read_text(encoding="utf-8")), flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def _stale_names(text: str) -> list[str]:
    """Paths of the repository and ``hf_bpe.`` names in backticks that do not exist."""
    stale = []
    for quoted in re.findall(r"`([^`\n]+)`", text):
        for path in re.findall(r"(?<![\w./])((?:hf_bpe|tests|scripts|configs)/[\w./*-]*[\w*])", quoted):
            if not list(README.parent.glob(path)):
                stale.append(path)
        for name in re.findall(r"(?<![\w./])(hf_bpe(?:\.\w+)+)", quoted):
            parts = name.split(".")
            modules = [".".join(parts[:cut]) for cut in range(len(parts), 0, -1)]
            for cut, module_name in zip(range(len(parts), 0, -1), modules, strict=True):
                try:
                    found: object = importlib.import_module(module_name)
                except ImportError:
                    continue
                for attribute in parts[cut:]:
                    found = getattr(found, attribute, None)
                if found is None:
                    stale.append(name)
                break
    return stale


def test_the_documents_name_files_and_modules_that_exist_where_they_are_now():
    for document in DOCUMENTS:
        assert _stale_names(document.read_text(encoding="utf-8")) == [], document


def test_the_documents_links_lead_to_files_and_headings_that_exist():
    for document in DOCUMENTS:
        for target in re.findall(r"\]\(([^)\s]+)\)", _prose(document.read_text(encoding="utf-8"))):
            if target.startswith("http"):
                continue
            path, _, anchor = target.partition("#")
            linked = (document.parent / path).resolve() if path else document
            assert linked.exists(), f"{document}: link to {target}"
            if anchor:
                assert anchor in _anchors(linked), f"{document}: link to {target}: no such heading"


def test_the_stale_name_check_finds_missing_names():
    text = "`hf_bpe.training.TrainingWarning` `hf_bpe/nowhere.py` `hf_bpe.models.bpe.trainer.train_bpe` `tests/cli/`"
    assert _stale_names(text) == ["hf_bpe.training.TrainingWarning", "hf_bpe/nowhere.py"]


def test_the_first_screen_says_what_why_and_how_to_start():
    first = "\n".join(README.read_text(encoding="utf-8").splitlines()[:60])
    for words in ("BPE", "WordPiece", "Unigram", "exactly", "PythonBackend", "Continue a tokenizer", "Deterministic"):
        assert words in first, words
    assert "## Contents" in first and "[Scale" in first
    assert "bash scripts/demo.sh" in first and "bash scripts/test.sh" in first
