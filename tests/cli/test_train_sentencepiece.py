"""``hf-bpe train --model sentencepiece-bpe|sentencepiece-unigram`` as a user runs it (a subprocess): the
``tokenizer.model`` it writes is the one ``spm_train --model_type=bpe|unigram`` writes for the same files and the
same options (sentencepiece 0.2.3, run in the same test; compared field by field but the input paths and model
prefix), and the directory loads in transformers' Rust backend and in hf_bpe with ``SentencePieceProcessor``'s ids.
Bad command lines exit 2 with one line naming the culprit.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import sentencepiece
from sentencepiece import sentencepiece_model_pb2
from spm_reference import RUN_FIELDS, fields
from transformers import AutoTokenizer

import hf_bpe


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", *map(str, args)], capture_output=True, text=True, timeout=600
    )


def _slice(source: Path, start: int, size: int, target: Path) -> Path:
    """``size`` bytes of ``source`` from ``start``, whole lines only, written to ``target``."""
    data = source.read_bytes()[start : start + size]
    target.write_bytes(data[data.index(b"\n") + 1 : data.rindex(b"\n") + 1])
    return target


@pytest.mark.parametrize(
    ("model", "language", "options"),
    [
        ("bpe", "japanese", ["--vocab-size", "3000", "--spm", "byte_fallback=1", "--spm", "character_coverage=0.9995"]),
        ("bpe", "russian", ["--spm", "vocab_size=2000", "--spm", "user_defined_symbols=<x>,<y>",
                            "--spm", "split_digits=1"]),
        ("unigram", "english", ["--vocab-size", "2000", "--spm", "byte_fallback=true", "--spm", "num_threads=1"]),
        ("unigram", "chinese", ["--spm", "vocab_size=3000", "--spm", "control_symbols=<c>", "--spm", "num_threads=1"]),
    ],
)  # fmt: skip
def test_the_cli_writes_spm_trains_model_and_every_backend_reads_it(debian_corpora, tmp_path, model, language, options):
    corpus = _slice(debian_corpora[language], 0, 120_000, tmp_path / "a.txt")
    more = _slice(debian_corpora[language], 300_000, 40_000, tmp_path / "b.txt")
    done = run("train", corpus, more, "-o", tmp_path / "tok", "--model", f"sentencepiece-{model}", *options)
    assert done.returncode == 0, done.stderr
    assert f"(sentencepiece-{model})" in done.stdout

    spm_options = dict(option.split("=", 1) for option in options[1::2] if "=" in option)
    if "--vocab-size" in options:
        spm_options["vocab_size"] = options[options.index("--vocab-size") + 1]
    prefix = tmp_path / "reference"
    sentencepiece.SentencePieceTrainer.train(
        input=f"{corpus},{more}", model_prefix=str(prefix), model_type=model, minloglevel=2, **spm_options
    )
    ours, theirs = sentencepiece_model_pb2.ModelProto(), sentencepiece_model_pb2.ModelProto()
    ours.ParseFromString((tmp_path / "tok" / "tokenizer.model").read_bytes())
    theirs.ParseFromString(prefix.with_suffix(".model").read_bytes())
    assert [(p.piece, p.score, p.type) for p in ours.pieces] == [(p.piece, p.score, p.type) for p in theirs.pieces]
    assert fields(ours.trainer_spec, RUN_FIELDS) == fields(theirs.trainer_spec, RUN_FIELDS)
    assert fields(ours.normalizer_spec) == fields(theirs.normalizer_spec)

    held_out = debian_corpora[language].read_bytes()[700_000:730_000].decode("utf-8", "ignore").splitlines()[1:-1]
    reference = sentencepiece.SentencePieceProcessor(model_file=str(prefix.with_suffix(".model")))
    expected = reference.encode(held_out)
    backend = AutoTokenizer.from_pretrained(str(tmp_path / "tok"))
    rust = [backend.encode(line, add_special_tokens=False) for line in held_out]
    mine = hf_bpe.from_pretrained(tmp_path / "tok")
    assert [mine.encode(line, add_special_tokens=False) for line in held_out] == rust
    # The two references break a tie between equally likely Unigram segmentations apart ("****" runs cut 13+14 or
    # 14+13); elsewhere they agree.
    for spm_ids, rust_ids in zip(expected, rust, strict=True):
        if spm_ids != rust_ids:
            assert model == "unigram"
            assert sum(map(reference.get_score, spm_ids)) == sum(map(reference.get_score, rust_ids))
    assert sum(spm_ids == rust_ids for spm_ids, rust_ids in zip(expected, rust, strict=True)) >= 0.99 * len(held_out)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--spm", "bogus=1"], "--spm: sentencepiece option bogus is not implemented"),
        (["--spm", "character_coverage=abc"], "--spm character_coverage=abc: could not convert"),
        (["--spm", "vocab_size"], "'vocab_size': give a sentencepiece option as NAME=VALUE"),
        (["--spm", "vocab_size=10"], "vocab_size=10 is smaller than the required characters"),
        (["--vocab-size", "100", "--spm", "vocab_size=200"], "trains one vocab_size"),
        (["--pattern", "llama3"], "--pattern is not an option of --model sentencepiece-bpe"),
        (["--special-tokens", "<s>"], "(use --spm user_defined_symbols=A,B or control_symbols=A,B)"),
        (["--spm", "normalization_rule_name=nope"], "normalization_rule_name"),
    ],
)
def test_bad_sentencepiece_command_lines_name_the_culprit(tmp_path, arguments, message):
    corpus = tmp_path / "a.txt"
    corpus.write_text("hello world\nhug pug hug\n" * 50, encoding="utf-8")
    done = run("train", corpus, "-o", tmp_path / "tok", "--model", "sentencepiece-bpe", *arguments)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) <= 2
    assert not (tmp_path / "tok").exists()


def test_spm_options_without_the_model_are_refused(tmp_path):
    corpus = tmp_path / "a.txt"
    corpus.write_text("hello world\n", encoding="utf-8")
    done = run("train", corpus, "-o", tmp_path / "tok", "--spm", "byte_fallback=true")
    assert done.returncode == 2
    assert "--spm gives sentencepiece's options: add --model sentencepiece-bpe or sentencepiece-unigram" in done.stderr
