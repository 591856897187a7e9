"""``--pattern NAME`` takes a preset's name only; a split of one's own is ``--regex REGEX`` (``regex`` in a config).
A mistyped name used to become a regex matching only itself, and training silently cut no word apart."""

from __future__ import annotations

import json

import pytest
from tokenizers import Regex, pre_tokenizers

from hf_bpe.cli import main
from hf_bpe.reference.trainers import bpe_tokenizer, bpe_trainer

PRESETS = "'gpt2', 'llama3', 'cl100k', 'o200k', 'qwen2', 'deepseek-v3'"


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("hello world, hello there\nthe world says hello 2024\n" * 20, encoding="utf-8")
    return path


@pytest.mark.parametrize("typo", ["llama4", "Llama3", "gpt4", "qwen"])
@pytest.mark.parametrize("command", ["train", "count"])
def test_a_mistyped_pattern_is_refused_with_the_presets(typo, command, corpus, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit:
        main([command, str(corpus), "-o", str(tmp_path / "out"), "--pattern", typo, "--no-progress"])
    assert exit.value.code == 2
    error = capsys.readouterr().err
    assert f"argument --pattern: invalid choice: '{typo}' (choose from {PRESETS})" in error
    assert not (tmp_path / "out").exists()


def test_a_mistyped_pattern_in_a_config_is_refused(corpus, tmp_path, capsys):
    config = tmp_path / "mine.json"
    config.write_text(json.dumps({"pattern": "llama4"}), encoding="utf-8")
    assert main(["train", str(corpus), "-o", str(tmp_path / "out"), "--config", str(config)]) == 2
    error = capsys.readouterr().err
    assert "pattern 'llama4' is no preset (gpt2, llama3, cl100k, o200k, qwen2, deepseek-v3)" in error
    assert "'regex'" in error and not (tmp_path / "out").exists()


@pytest.mark.parametrize("where", ["option", "config"])
def test_regex_trains_like_a_tokenizers_split(where, corpus, tmp_path):
    regex = "[a-z]+"  # a regex that looks like a name: --regex never reads it as one
    out = tmp_path / "out"
    argv = ["train", str(corpus), "-o", str(out), "--vocab-size", "280", "--no-progress", "--workers", "1"]
    if where == "option":
        argv += ["--regex", regex]
    else:
        config = tmp_path / "mine.json"
        config.write_text(json.dumps({"regex": regex}), encoding="utf-8")
        argv += ["--config", str(config)]
    assert main(argv) == 0
    reference = bpe_tokenizer(
        pre_tokenizer=pre_tokenizers.Sequence(
            [pre_tokenizers.Split(Regex(regex), "isolated"), pre_tokenizers.ByteLevel(False, use_regex=False)]
        )
    )
    trainer = bpe_trainer(vocab_size=280)
    reference.train([str(corpus)], trainer)
    reference.model.save(str(tmp_path), "ref")
    assert (out / "vocab.json").read_text(encoding="utf-8") == (tmp_path / "ref-vocab.json").read_text(encoding="utf-8")
    assert (out / "merges.txt").read_text(encoding="utf-8") == (tmp_path / "ref-merges.txt").read_text(encoding="utf-8")


def test_pattern_and_regex_together_are_refused(corpus, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit:
        main(["train", str(corpus), "-o", str(tmp_path / "out"), "--pattern", "gpt2", "--regex", "[a-z]+"])
    assert exit.value.code == 2
    assert "argument --regex: not allowed with argument --pattern" in capsys.readouterr().err


def test_a_regex_that_does_not_compile_is_a_usage_error(corpus, tmp_path, capsys):
    assert main(["train", str(corpus), "-o", str(tmp_path / "out"), "--regex", "(unclosed"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("hf-bpe: error: --regex: split pattern '(unclosed' does not compile")
    assert not (tmp_path / "out").exists()
