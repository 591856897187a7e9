"""A newcomer's second hour (issue 25's friction): short usage errors with exit 2 for every user mistake,
``verify train --help`` listing only what it takes, binary input named as such, a mistyped directory refused at
once."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO

#: No network: a name that went to the model hub would fail (or hang) here instead of being refused at once.
OFFLINE = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def run(*args, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=OFFLINE,
    )


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text("hello world, hello there\nthe world says hello\n" * 30, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("argv", "command", "message"),
    [
        (["train", "a.txt", "-o", "x", "--vocab-size", "zero"], "hf-bpe train", "argument --vocab-size: 'zero': "),
        (["train", "a.txt", "--pattern", "llama4", "-o", "x"], "hf-bpe train", "argument --pattern: invalid choice"),
        (["count", "a.txt"], "hf-bpe count", "the following arguments are required: --output/-o"),
        (["encode"], "hf-bpe encode", "the following arguments are required: DIR|gpt2, TEXT"),
        (["verify", "encode", "--tokenizer", "gpt2"], "hf-bpe verify encode", "required: FILE"),
        (["frobnicate"], "hf-bpe", "argument COMMAND: invalid choice: 'frobnicate'"),
    ],
    ids=["bad-value", "bad-choice", "missing-option", "missing-argument", "sub-sub-command", "unknown-command"],
)
def test_a_usage_error_is_one_line_and_a_pointer_to_help(argv, command, message):
    done = run(*argv)
    assert done.returncode == 2 and done.stdout == ""
    first, hint = done.stderr.splitlines()
    assert first.startswith(f"{command}: error: ") and message in first
    assert hint == f"(see '{command} --help')"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--regex", "(unclosed"], "--regex: split pattern '(unclosed' does not compile"),
        (["--special-tokens", "<s>", "<s>"], "special token '<s>' is given twice"),
        (["--char-level", "--add-prefix-space"], "--char-level: add_prefix_space applies to byte-level BPE only"),
        (["--char-level", "--normalizer", "nfc"], "--char-level: char-level BPE splits words on white space"),
        (["--continue-from", "{base}", "--pattern", "llama3"], "continuing training keeps the base's pre-tokenizer"),
        (["--continue-from", "{base}", "--limit-alphabet", "50"], "leave limit_alphabet out"),
    ],
    ids=["bad-regex", "twice-special", "char-prefix", "char-normalizer", "continue-pattern", "continue-alphabet"],
)
def test_user_mistakes_found_by_the_library_exit_2(options, message, corpus, tmp_path):
    base = tmp_path / "base"
    assert run("train", corpus, "-o", base, "--vocab-size", "270", "--no-progress").returncode == 0
    argv = [part.format(base=base) for part in options]
    done = run("train", corpus, "-o", tmp_path / "out", "--vocab-size", "300", "--no-progress", *argv)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("hf-bpe: error: ") and message in done.stderr and done.stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_verify_train_help_lists_only_what_it_takes(corpus):
    help_text = run("verify", "train", "--help").stdout
    for refused in ("--char-level", "--end-of-word-suffix", "--continuing-subword-prefix", "--lowercase",
                    "--scoring", "--no-lowercase", "--strip-accents", "--no-clean-text", "--no-chinese-chars",
                    "--max-input-chars-per-word", "wordpiece", "DIR/8000"):  # fmt: skip
        assert refused not in help_text, refused
    for taken in ("--vocab-size N ", "--pattern NAME", "--regex REGEX", "--model {bpe,unigram}", "--shrinking-factor"):
        assert taken in help_text, taken
    done = run("verify", "train", corpus, "--char-level")
    assert done.returncode == 2 and "unrecognized arguments: --char-level" in done.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["train", "{file}", "-o", "{out}"],
        ["train", "{file}", "-o", "{out}", "--model", "wordpiece"],
        ["train", "{file}", "-o", "{out}", "--model", "unigram"],
        ["count", "{file}", "-o", "{out}"],
        ["verify", "train", "{file}"],
    ],
    ids=["train", "wordpiece", "unigram", "count", "verify-train"],
)
def test_a_binary_file_is_named_as_binary_without_a_hint_to_train_on_it(argv, tmp_path):
    binary = tmp_path / "program"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
    out = tmp_path / "out"
    done = run(*[part.format(file=binary, out=out) for part in argv], "--no-progress")
    assert done.returncode == 1
    assert done.stderr == (
        f"hf-bpe: error: {binary}: looks binary, not text (a NUL byte at byte offset 7); give text files "
        "(a compressed file is read when its name ends in .gz, .bz2, .xz or .zst)\n"
    )
    assert "replace" not in done.stderr and not out.exists()


@pytest.mark.parametrize("command", ["encode", "report", "export", "verify"])
def test_a_mistyped_directory_is_refused_at_once_naming_it(command, corpus, tmp_path):
    assert run("train", corpus, "-o", tmp_path / "my-tokenizer", "--vocab-size", "270", "--no-progress").returncode == 0
    argv = {
        "encode": ["encode", "./my-tokenzier", "hi"],
        "report": ["report", "./my-tokenzier", "--sample", corpus],
        "export": ["export", "tiktoken", "./my-tokenzier", "-o", "x.tiktoken"],
        "verify": ["verify", "encode", "--tokenizer", "./my-tokenzier", corpus],
    }[command]
    start = time.monotonic()
    done = run(*argv, cwd=tmp_path)
    assert time.monotonic() - start < 60  # not minutes of retrying a model hub (no speed is asserted otherwise)
    assert done.returncode == 1
    assert done.stderr.endswith("./my-tokenzier: no such tokenizer directory (did you mean ./my-tokenizer?)\n")
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize("error", [KeyError("vocab_size"), TypeError("'str' object is not callable")])
def test_an_internal_error_is_named_a_bug_not_a_user_mistake(error, monkeypatch, capsys, corpus):
    """hf_bpe's own bug (a KeyError or TypeError no user mistake raises) is said to be one, with where it was
    raised, in one line; a user mistake stays "hf-bpe: error: ..." (the tests above)."""
    cli = importlib.import_module("hf_bpe.cli.main")

    def broken(args):
        raise error

    monkeypatch.setattr(cli, "train_command", broken)
    assert cli.main(["train", str(corpus), "--vocab-size", "300", "-o", str(corpus.parent / "out")]) == 1
    message = capsys.readouterr().err
    assert message.startswith(f"hf-bpe: internal error: {type(error).__name__}: {error}; this is a bug in hf_bpe")
    assert "test_cli_friction.py" in message and "broken" in message
    assert "Traceback" not in message and message.count("\n") == 1
