"""``hf-bpe verify``: passes on matching inputs, fails with the right location and context on differing ones."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from conftest import COURSE, multilingual_text

from hf_bpe.counting.counting import count_files
from hf_bpe.models.bpe.trainer import train_bpe
from hf_bpe.reference.verify import compare_training, reference_training

ENCODING_KEYS = {"reference", "units", "differing", "round_trip_failures", "examples", "ok"}
EXAMPLE_KEYS = {"location", "position", "ours", "reference", "ours_tokens", "reference_tokens", "round_trip"}
TRAINING_KEYS = {
    "vocab_size",
    "merges",
    "same_vocab",
    "same_merges",
    "first_difference",
    "ours_merge",
    "reference_merge",
    "ours_pair_count",
    "reference_pair_count",
    "diagnosis",
    "ok",
}


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", "verify", *map(str, args)], capture_output=True, text=True, timeout=600
    )


@pytest.fixture
def text_file(tmp_path):
    path = tmp_path / "text.txt"
    path.write_text("".join(COURSE) + multilingual_text(60, seed=4), encoding="utf-8", newline="")
    return path


@pytest.mark.parametrize("against", ["tiktoken", "transformers"])
def test_encode_passes_on_gpt2(text_file, gpt2_dir, against):
    done = run("encode", "--tokenizer", "gpt2", "--against", against, text_file, "--json", "--no-progress")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report) == ENCODING_KEYS
    assert report["ok"] is True and report["differing"] == 0
    assert report["units"] == len(text_file.read_text(encoding="utf-8").splitlines())


def test_encode_finds_swapped_merges(text_file, gpt2_dir, tmp_path):
    """GPT-2's merges "h e" (rank 2) and "Ġt h" (rank 38) swapped: " the" becomes "Ġth" "e" instead of "Ġthe"."""
    swapped = tmp_path / "swapped"
    swapped.mkdir()
    shutil.copy(gpt2_dir / "vocab.json", swapped / "vocab.json")
    lines = (gpt2_dir / "merges.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    first, second = lines.index("h e\n"), lines.index("Ġt h\n")
    lines[first], lines[second] = lines[second], lines[first]
    (swapped / "merges.txt").write_text("".join(lines), encoding="utf-8")
    done = run("encode", "--tokenizer", swapped, "--against", "tiktoken", text_file, "--no-progress", "--json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["ok"] is False and report["differing"] > 0
    first = report["examples"][0]
    assert set(first) == EXAMPLE_KEYS
    assert first["location"] == f"{text_file}:1"  # "This is the Hugging Face Course."
    assert first["ours"] != first["reference"]
    assert " the" in "".join(first["reference_tokens"])
    human = run("encode", "--tokenizer", swapped, "--against", "tiktoken", text_file, "--no-progress")
    assert f"{text_file}:1: first difference at token" in human.stdout and human.stdout.strip().endswith("DIFFERENT")


def test_train_passes_on_matching_corpus(text_file):
    done = run("train", text_file, "--vocab-size", "500", "--special-tokens", "<s>", "--json", "--no-progress")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report) == TRAINING_KEYS
    assert report["ok"] is True and report["vocab_size"] == [500, 500]


def test_training_difference_is_located_and_explained(text_file):
    """hf_bpe trained with add_prefix_space against tokenizers without: the first differing merge is named,
    with both pairs recounted from hf_bpe's counts."""
    counts = count_files([text_file], add_prefix_space=True, workers=1).counts
    ours = train_bpe(counts, vocab_size=400)
    reference = reference_training([text_file], vocab_size=400, add_prefix_space=False)
    report = compare_training((ours.vocab, ours.merges), reference, counts)
    assert not report.ok
    index = report.first_difference
    assert index is not None
    assert ours.merges[:index] == reference[1][:index]
    assert report.ours_merge == ours.merges[index] and report.reference_merge == reference[1][index]
    assert report.ours_pair_count is not None and report.reference_pair_count is not None
    assert report.ours_pair_count >= report.reference_pair_count
    assert report.diagnosis
