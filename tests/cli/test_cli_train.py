"""``hf-bpe train`` as a user runs it: a subprocess, files compared with ``tokenizers``' own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import REPO, multilingual_text, reference_train

CONFIGS = REPO / "configs"


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", *map(str, args)], capture_output=True, text=True, timeout=300
    )


def read_output(directory: Path) -> tuple[str, str]:
    return (directory / "vocab.json").read_text(encoding="utf-8"), (directory / "merges.txt").read_text(
        encoding="utf-8"
    )


def corpus(tmp_path: Path, count: int = 2) -> list[Path]:
    paths = []
    for seed in range(count):
        path = tmp_path / f"corpus{seed}.txt"
        path.write_text(multilingual_text(300, seed), encoding="utf-8", newline="")
        paths.append(path)
    return paths


def test_train_writes_the_reference_files(tmp_path):
    paths = corpus(tmp_path)
    done = run("train", *paths, "--output", tmp_path / "out", "--vocab-size", "1500", "--special-tokens", "<s>", "</s>",
               "--min-frequency", "2", "--add-prefix-space", "--workers", "2", "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    expected = reference_train(
        paths, tmp_path / "ref", vocab_size=1500, special_tokens=["<s>", "</s>"], min_frequency=2, add_prefix_space=True
    )
    assert read_output(tmp_path / "out") == expected
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "merges.txt",
        "tokenizer.json",
        "tokenizer_config.json",
        "vocab.json",
    ]
    size = len(json.loads(expected[0]))
    merges = len(expected[1].splitlines()) - 1
    assert f"vocab size {size}, {merges} merges learned, stopped: min_frequency" in done.stdout
    assert str(tmp_path / "out") in done.stdout
    # --no-progress: no bars; only the note that min_frequency stopped it short of --vocab-size
    assert done.stderr.splitlines() == [
        f"hf-bpe: warning: the vocabulary has {size:,} of the 1,500 tokens asked for (stopped: min_frequency): the "
        "most frequent pair left occurs fewer than --min-frequency 2 times; lower it or train on more text"
    ]


def test_progress_bars_go_to_stderr(tmp_path):
    paths = corpus(tmp_path, 1)
    done = run("train", *paths, "--output", tmp_path / "out", "--vocab-size", "400")
    assert done.returncode == 0, done.stderr
    assert "counting" in done.stderr and "merging" in done.stderr
    assert read_output(tmp_path / "out") == reference_train(paths, tmp_path / "ref", vocab_size=400)


def test_config_with_command_line_override(tmp_path):
    paths = corpus(tmp_path, 1)
    done = run("train", *paths, "-o", tmp_path / "out", "--config", CONFIGS / "gpt2.json", "--vocab-size", "700",
               "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert read_output(tmp_path / "out") == reference_train(
        paths, tmp_path / "ref", vocab_size=700, special_tokens=["<|endoftext|>"]
    )
    config = json.loads((tmp_path / "out" / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["eos_token"] == "<|endoftext|>"


def test_presets_are_valid(tmp_path):
    from hf_bpe.cli.main import read_config

    assert read_config(str(CONFIGS / "gpt2.json"))["vocab_size"] == 50257
    assert read_config(str(CONFIGS / "demo.json"))["vocab_size"] == 2000
    code = read_config(str(CONFIGS / "code.json"))
    paths = corpus(tmp_path, 1)
    done = run("train", *paths, "-o", tmp_path / "out", "--config", CONFIGS / "code.json", "--vocab-size", "600",
               "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert read_output(tmp_path / "out") == reference_train(
        paths,
        tmp_path / "ref",
        vocab_size=600,
        min_frequency=code["min_frequency"],
        max_token_length=code["max_token_length"],
        special_tokens=code["special_tokens"],
    )
    config = json.loads((tmp_path / "out" / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["pad_token"] == "<|pad|>"


def test_role_tokens_and_exclusion(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("hello<eos>world <eos>\n" * 30, encoding="utf-8")
    done = run("train", path, "-o", tmp_path / "out", "--vocab-size", "300", "--eos-token", "<eos>",
               "--exclude-special-tokens", "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    vocab = json.loads((tmp_path / "out" / "vocab.json").read_text(encoding="utf-8"))
    assert vocab["<eos>"] == 0
    assert not any("eos" in token for token in vocab if token != "<eos>")  # never counted as text
    # Without exclusion the reference's behaviour: the special token's text is counted like any other text.
    done = run("train", path, "-o", tmp_path / "out2", "--vocab-size", "300", "--eos-token", "<eos>", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert read_output(tmp_path / "out2") == reference_train(
        [path], tmp_path / "ref", vocab_size=300, special_tokens=["<eos>"]
    )


def test_user_errors_are_one_line_without_traceback(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("hello\n", encoding="utf-8")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xc3\x28\n")
    config = tmp_path / "preset.json"
    config.write_text('{"vocab_size": 100, "colour": "blue"}', encoding="utf-8")
    cases = [
        (["train", tmp_path / "missing.txt", "-o", tmp_path / "o"], 1, "missing.txt: no such file"),
        (["train", bad, "-o", tmp_path / "o"], 1, "bad.txt:2: invalid UTF-8 at byte offset 3"),
        (["train", good, "-o", tmp_path / "o", "--config", config], 2, "unknown option 'colour'"),
        (["train", good, "-o", tmp_path / "o", "--config", tmp_path / "nope.json"], 2, "nope.json: no such file"),
        (["train", good, "-o", tmp_path / "o", "--vocab-size", "many"], 2, "'many' is not an integer"),
        (["train", good], 2, "--output"),
        (["train", good, "-o", good], 1, "is a file, not a directory"),
    ]
    for args, status, message in cases:
        done = run(*args, "--no-progress") if "--vocab-size" not in args else run(*args)
        assert done.returncode == status, (args, done.stderr)
        assert message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
        assert not (tmp_path / "o").exists()


def test_the_readmes_llama3_example_has_its_bos_and_eos(tmp_path):
    """README's Llama-3-style command: the tokens get their roles and are special tokens of tokenizer.json."""
    from transformers import AutoTokenizer

    import hf_bpe  # noqa: F401  (registers hf_bpe's classes with AutoTokenizer)
    from hf_bpe.cli import main

    corpus = tmp_path / "corpus.txt"
    corpus.write_text(multilingual_text(100, seed=2), encoding="utf-8")
    out = tmp_path / "llama3-style"
    bos, eos = "<|begin_of_text|>", "<|end_of_text|>"
    args = ["train", str(corpus), "-o", str(out), "--vocab-size", "600", "--pattern", "llama3"]
    assert main([*args, "--bos-token", bos, "--eos-token", eos, "--no-progress"]) == 0
    tokenizer = AutoTokenizer.from_pretrained(str(out))
    assert (tokenizer.bos_token, tokenizer.eos_token) == (bos, eos)
    added = {
        token["content"]: token["special"] for token in json.loads((out / "tokenizer.json").read_text())["added_tokens"]
    }
    assert added == {bos: True, eos: True}
    assert tokenizer.convert_tokens_to_ids([bos, eos]) == [0, 1]
