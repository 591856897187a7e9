"""``hf-bpe verify encode --against tiktoken``: the rank file must be the tokenizer's own. Without ``--ranks`` it
used to compare any tokenizer with GPT-2's ranks (thousands of differences, "DIFFERENT"), or end in an IndexError
traceback on a small vocabulary."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import REPO, multilingual_text


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"},
    )


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A byte-level tokenizer of 800 tokens and a text file."""
    root = tmp_path_factory.mktemp("small")
    text = root / "text.txt"
    text.write_text(multilingual_text(200, seed=3), encoding="utf-8", newline="")
    done = run("train", text, "-o", root / "tok", "--vocab-size", "800", "--no-progress", "--workers", "1")
    assert done.returncode == 0, done.stderr
    return root / "tok", text


def test_without_ranks_it_asks_for_the_tokenizers_rank_file(small):
    directory, text = small
    done = run("verify", "encode", "--tokenizer", directory, "--against", "tiktoken", text, "--no-progress")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"hf-bpe: error: --against tiktoken needs --ranks FILE, the .tiktoken rank file of {directory}'s vocabulary "
        f"(hf-bpe export tiktoken {directory} -o FILE writes it); only GPT-2's vocabulary defaults to GPT-2's\n"
    )


def test_another_tokenizers_ranks_are_refused_without_a_traceback(small, gpt2_dir):
    directory, text = small
    gpt2_ranks = gpt2_dir / "gpt2.tiktoken"
    done = run("verify", "encode", "--tokenizer", directory, "--against", "tiktoken", "--ranks", gpt2_ranks, text,
               "--no-progress")  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"hf-bpe: error: --ranks {gpt2_ranks}: tiktoken gives id ")
    assert f"outside {directory}'s vocabulary of 800; give the rank file of this tokenizer" in done.stderr


def test_its_own_exported_ranks_pass(small, tmp_path):
    directory, text = small
    ranks = tmp_path / "tok.tiktoken"
    assert run("export", "tiktoken", directory, "-o", ranks).returncode == 0
    done = run("verify", "encode", "--tokenizer", directory, "--against", "tiktoken", "--ranks", ranks, text, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True and report["differing"] == 0 and report["reference"] == "tiktoken (tok.tiktoken)"


def test_verify_train_refuses_an_alphabet_limit_the_reference_applies_at_random(small):
    """Below 256, tokenizers keeps an arbitrary subset of the byte alphabet: no one result to call the same."""
    _, text = small
    done = run("verify", "train", text, "--vocab-size", "400", "--limit-alphabet", "50", "--no-progress")
    assert done.returncode == 2
    assert "--limit-alphabet 50 is below the byte-level alphabet's 256 symbols" in done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    done = run("verify", "train", text, "--vocab-size", "400", "--limit-alphabet", "256", "--no-progress")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "OK: identical"
