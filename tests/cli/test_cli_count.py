"""``hf-bpe count`` then ``hf-bpe train --from-counts`` as a user runs them: same files as training directly."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import multilingual_text, reference_train

from hf_bpe import cli


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", *map(str, args)], capture_output=True, text=True, timeout=600
    )


@pytest.fixture
def corpus(tmp_path):
    paths = []
    for seed in range(2):
        path = tmp_path / f"part{seed}.txt"
        path.write_text(multilingual_text(250, seed), encoding="utf-8", newline="")
        paths.append(path)
    return paths


@pytest.mark.parametrize("engine", ["local", "datatrove"])
def test_count_then_train_from_counts_matches_tokenizers(corpus, tmp_path, engine):
    counted = run("count", *corpus, "--output", tmp_path / "counts", "--engine", engine, "--workers", "2",
                  "--add-prefix-space", "--no-progress")  # fmt: skip
    assert counted.returncode == 0, counted.stderr
    assert "distinct pre-tokens" in counted.stdout
    manifest = json.loads((tmp_path / "counts" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["settings"]["add_prefix_space"] is True
    trained = run("train", "--from-counts", tmp_path / "counts", "--output", tmp_path / "out", "--vocab-size", "900",
                  "--special-tokens", "<|endoftext|>", "--no-progress")  # fmt: skip
    assert trained.returncode == 0, trained.stderr
    vocab, merges = reference_train(
        corpus, tmp_path / "ref", vocab_size=900, special_tokens=["<|endoftext|>"], add_prefix_space=True
    )
    assert (tmp_path / "out" / "vocab.json").read_text(encoding="utf-8") == vocab
    assert (tmp_path / "out" / "merges.txt").read_text(encoding="utf-8") == merges
    config = json.loads((tmp_path / "out" / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["add_prefix_space"] is True


def test_from_counts_refuses_other_settings_and_unfinished_dirs(corpus, tmp_path):
    assert run("count", *corpus, "--output", tmp_path / "counts", "--no-progress").returncode == 0
    done = run("train", "--from-counts", tmp_path / "counts", "--add-prefix-space", "--output", tmp_path / "out")
    assert done.returncode == 2
    assert "--add-prefix-space differs from how" in done.stderr
    (tmp_path / "counts" / "manifest.json").unlink()
    done = run("train", "--from-counts", tmp_path / "counts", "--output", tmp_path / "out")
    assert done.returncode == 1
    assert "not a finished counts directory" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_files_and_from_counts_together_is_a_usage_error(corpus, tmp_path):
    done = run("train", *corpus, "--from-counts", tmp_path, "--output", tmp_path / "out")
    assert done.returncode == 2
    assert "but not both" in done.stderr


@pytest.mark.parametrize("model", ["wordpiece", "unigram"])
@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--pattern", "o200k"], "the special-token options are BPE's; leave them out for {model}"),
        (["--special-tokens", "<s>"], "the special-token options are BPE's; leave them out for {model}"),
        (["--normalizer", "nfc"], "--normalizer is BPE's; {model} normalizes with"),
    ],
    ids=["pattern", "special-tokens", "normalizer"],
)
def test_count_refuses_bpe_options_for_other_models(tmp_path, capsys, model, option, message):
    corpus = tmp_path / "a.txt"
    corpus.write_text("some text\n", encoding="utf-8")
    out = tmp_path / "counts"
    assert cli.main(["count", str(corpus), "--model", model, *option, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert message.format(model=model) in err
    assert "Traceback" not in err and not out.exists()
