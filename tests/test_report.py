"""``hf-bpe report``: its figures against the Rust backend loaded from the same directories."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import multilingual_text
from tokenizers import Tokenizer


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hf_bpe.cli", *args], capture_output=True, text=True)


def test_report_figures_match_the_rust_backend_and_the_plot_is_written(stdlib_files, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(multilingual_text(300, seed=1), encoding="utf-8", newline="")
    sample = tmp_path / "sample.txt"
    sample.write_text(multilingual_text(100, seed=2), encoding="utf-8", newline="")
    samples = [sample, stdlib_files[0]]
    done = run_cli("train", str(corpus), str(stdlib_files[1]), "-o", str(tmp_path / "tok"), "--vocab-size", "400,900",
                   "--pattern", "llama3", "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    directories = [tmp_path / "tok" / "400", tmp_path / "tok" / "900"]
    plot = tmp_path / "report.png"
    done = run_cli("report", *map(str, directories), "--sample", *map(str, samples), "--json", "--plot", str(plot))
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout[: done.stdout.rindex("]") + 1])
    for directory, figures in zip(directories, found, strict=True):
        rust = Tokenizer.from_file(str(directory / "tokenizer.json"))
        used: set[int] = set()
        for path, per_file in zip(samples, figures["per_file"], strict=True):
            text = path.read_text(encoding="utf-8")
            ids = rust.encode(text).ids
            used.update(ids)
            assert (per_file["bytes"], per_file["words"], per_file["tokens"]) == (
                len(text.encode("utf-8")),
                len(text.split()),
                len(ids),
            )
        assert figures["used"] == len(used)
        assert figures["vocab_size"] == rust.get_vocab_size()
    assert found[0]["overall"]["tokens"] > found[1]["overall"]["tokens"]  # the larger vocabulary compresses more
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = run_cli("report", *map(str, directories), "--sample", str(sample))
    assert "bytes/token" in table.stdout and "vocabulary used on the sample" in table.stdout


def test_report_names_a_missing_directory(tmp_path):
    done = run_cli("report", str(tmp_path / "nope"), "--sample", str(tmp_path / "x.txt"))
    assert done.returncode == 1 and "nope: no such tokenizer directory" in done.stderr
