"""Phases that were silent for long show progress (issue #37): a file of one long line is counted stretch by
stretch, ``hf-bpe trim`` shows the sample's encoding, ``--continue-from`` shows the words' encoding with the base;
each phase's stage reaches its total, and the results are those of ``tokenizers`` (counts) or of a silent run."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import multilingual_text
from tokenizers import Regex, normalizers, pre_tokenizers

import hf_bpe
from hf_bpe.counting import counting
from hf_bpe.pipeline.pre_tokenizers import PRESETS, PreTokenizer
from hf_bpe.tokenizer.trim import trim


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", *map(str, args)], capture_output=True, text=True, timeout=300
    )


def reached(stderr: str, label: str) -> tuple[int, int]:
    """The last ``done/total`` the bar ``label`` showed."""
    shown = re.findall(rf"{label}: [^\r\n]*?(\d+)/(\d+)", stderr)
    assert shown, stderr[-500:]
    return int(shown[-1][0]), int(shown[-1][1])


def one_line(lines: int = 3000, seed: int = 5) -> str:
    """Mixed text as one line: the text's own line ends turned into spaces."""
    return re.sub(r"[\r\n]+", " ", multilingual_text(lines, seed)) + "\n"


def reference_pieces(text: str, preset: str, add_prefix_space: bool) -> Counter[str]:
    """``tokenizers``' pre-tokens of ``text`` (byte-level spelling): the preset's normalizer, then GPT-2's ByteLevel
    or Split + ByteLevel."""
    if PRESETS[preset].normalizer != "none":
        text = getattr(normalizers, PRESETS[preset].normalizer.upper())().normalize_str(text)
    if preset == "gpt2":
        cut = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=True)
    else:
        split = pre_tokenizers.Split(Regex(PRESETS[preset].splits[0]), "isolated")
        cut = pre_tokenizers.Sequence(
            [split, pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=False)]
        )
    return Counter(piece for piece, _ in cut.pre_tokenize_str(text))


@pytest.mark.parametrize("add_prefix_space", [False, True], ids=["plain", "prefix-space"])
@pytest.mark.parametrize("preset", ["gpt2", "llama3", "qwen2"])
def test_a_long_line_is_counted_with_progress_and_the_counts_of_tokenizers(
    tmp_path, monkeypatch, preset, add_prefix_space
):
    text = one_line()
    path = tmp_path / "line.txt"
    path.write_text(text, encoding="utf-8", newline="")
    monkeypatch.setattr(counting, "LONG_SEQUENCE", 2000)  # stretches of 2000 characters instead of 1 M
    reports: list[int] = []
    cut = PreTokenizer.from_preset(preset, add_prefix_space=add_prefix_space)
    found = counting.count_files([path], workers=1, pre_tokenizer=cut, progress=reports.append)
    size = path.stat().st_size
    assert len(text) > 20 * 2000 and len(reports) > 10  # one report for the whole line before
    assert sum(reports) == size and all(amount > 0 for amount in reports)
    assert found.counts == reference_pieces(text, preset, add_prefix_space)


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """A small byte-level BPE tokenizer to trim and to continue."""
    directory = tmp_path_factory.mktemp("base") / "tok"
    lines = multilingual_text(300, seed=3).splitlines()
    hf_bpe.train_from_iterator(lines, vocab_size=700, special_tokens=["<s>"], progress=False).save(directory)
    return directory


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("sample") / "sample.txt"
    path.write_text(multilingual_text(5000, seed=9), encoding="utf-8", newline="")
    return path


def test_trim_reports_the_sample_encoding_and_writes_the_same_files(base, sample, tmp_path):
    lines = len(sample.read_text(encoding="utf-8").splitlines(keepends=True))
    calls: list[tuple[str, int, int]] = []
    trim(base, [sample], vocab_size=400, output=tmp_path / "reported", progress=lambda *call: calls.append(call))
    assert {stage for stage, _, _ in calls} == {"sample"}
    assert calls[-1] == ("sample", lines, lines) and len(calls) > 2
    assert [done for _, done, _ in calls] == sorted(done for _, done, _ in calls)

    done = run("trim", base, "--sample", sample, "--vocab-size", "400", "--output", tmp_path / "cli")
    assert done.returncode == 0, done.stderr
    assert reached(done.stderr, "encoding the sample") == (lines, lines)
    quiet = run("trim", base, "--sample", sample, "--vocab-size", "400", "-o", tmp_path / "quiet", "--no-progress")
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    for name in ("tokenizer.json", "id_map.json", "vocab.json", "merges.txt"):
        silent = (tmp_path / "quiet" / name).read_bytes()
        assert (tmp_path / "cli" / name).read_bytes() == silent == (tmp_path / "reported" / name).read_bytes()


def test_continuing_reports_the_encoding_with_the_base_and_writes_the_same_files(base, sample, tmp_path):
    counts = counting.count_files([sample], workers=1).counts
    words = len(counts)
    calls: list[tuple[str, int, int]] = []
    result = hf_bpe.train_from_counts(
        counts, vocab_size=900, continue_from=base, progress=lambda *call: calls.append(call)
    )
    stages = [stage for stage, _, _ in calls]
    assert stages.index("base") < stages.index("pairs") < stages.index("merge")
    assert [call for call in calls if call[0] == "base"][-1] == ("base", words, words)
    assert result == hf_bpe.train_from_counts(counts, vocab_size=900, continue_from=base, progress=False)

    common = ("train", sample, "--continue-from", base, "--vocab-size", "900", "--workers", "1")
    done = run(*common, "-o", tmp_path / "cli")
    assert done.returncode == 0, done.stderr
    assert reached(done.stderr, "encoding with the base") == (words, words)
    quiet = run(*common, "-o", tmp_path / "quiet", "--no-progress")
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    for name in ("vocab.json", "merges.txt", "tokenizer.json"):
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "quiet" / name).read_bytes()
