"""``hf-bpe train --model wordpiece``: the files it writes, judged by the course's vocabulary and by
``tokenizers``/transformers loading them; its errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import COURSE
from tokenizers import Tokenizer
from transformers import BertTokenizer


def hf_bpe(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", "train", *args, "--no-progress"],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_likelihood_gives_the_course_vocabulary(tmp_path):
    corpus = tmp_path / "course.txt"
    corpus.write_text("".join(COURSE), encoding="utf-8")
    done = hf_bpe(str(corpus), "-o", str(tmp_path / "out"), "--model", "wordpiece", "--scoring", "likelihood",
                  "--vocab-size", "70", "--no-lowercase", "--min-frequency", "0")  # fmt: skip
    assert done.returncode == 0, done.stderr
    vocab = (tmp_path / "out" / "vocab.txt").read_text(encoding="utf-8").splitlines()
    assert len(vocab) == 70
    assert vocab[45:] == [
        "ab", "##fu", "Fa", "Fac", "##ct", "##ful", "##full", "##fully", "Th", "ch", "##hm", "cha", "chap", "chapt",
        "##thm", "Hu", "Hug", "Hugg", "sh", "th", "is", "##thms", "##za", "##zat", "##ut",
    ]  # fmt: skip
    config = json.loads((tmp_path / "out" / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert (config["tokenizer_class"], config["do_lower_case"]) == ("WordPieceTokenizer", False)
    # The course's own encoding of "Hugging" with this vocabulary: Hugg ##i ##n ##g.
    rust = BertTokenizer.from_pretrained(tmp_path / "out", do_lower_case=False)
    assert rust.tokenize("Hugging") == ["Hugg", "##i", "##n", "##g"]


def test_frequency_defaults_are_berts(tmp_path):
    """The command trains with BertWordPieceTokenizer.train's defaults (min_frequency 2, limit_alphabet 1000, BERT's
    special tokens, lowercasing): the library with those options gives the same vocab.txt (the library's parity
    with WordPieceTrainer is tests/test_wordpiece_trainer.py's), and the Rust BertTokenizer reading the command's
    vocab.txt encodes as the tokenizer.json it wrote."""
    from hf_bpe.counting.counting import count_files
    from hf_bpe.models.wordpiece.files import format_vocab_txt
    from hf_bpe.models.wordpiece.trainer import train_wordpiece
    from hf_bpe.models.wordpiece.training import wordpiece_counting
    from hf_bpe.pipeline.bert import BertRecipe

    corpus = tmp_path / "text.txt"
    corpus.write_text("".join(COURSE) * 4 + "Ça va? Naïve café, 中文字符\n" * 3, encoding="utf-8")
    done = hf_bpe(str(corpus), "-o", str(tmp_path / "out"), "--model", "wordpiece", "--vocab-size", "150")
    assert done.returncode == 0, done.stderr
    counts = count_files([corpus], pre_tokenizer=wordpiece_counting(BertRecipe())).counts
    expected = train_wordpiece(counts, vocab_size=150, min_frequency=2, limit_alphabet=1000)
    assert (tmp_path / "out" / "vocab.txt").read_text(encoding="utf-8") == format_vocab_txt(expected.vocab)
    rust = BertTokenizer.from_pretrained(tmp_path / "out")
    saved = Tokenizer.from_file(str(tmp_path / "out" / "tokenizer.json"))
    for text in [*COURSE, "Ça va, naïve?", "中文 unknownword"]:
        assert rust(text)["input_ids"] == saved.encode(text).ids


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scoring", "likelihood"], "--scoring is a WordPiece option"),
        (["--model", "wordpiece", "--add-prefix-space"], "--add-prefix-space is a BPE option"),
        (["--model", "wordpiece", "--eos-token", "</s>"], "WordPiece has no eos_token"),
        (["--model", "wordpiece", "--from-counts", "x", "--no-lowercase"], "records how its text was normalized"),
        (["--model", "wordpiece", "--pattern", "llama3"], "--pattern is a BPE option"),
        (["--model", "wordpiece", "--scoring", "bm25"], "invalid choice: 'bm25'"),
    ],
)
def test_mistakes_are_named(tmp_path, args, message):
    corpus = tmp_path / "c.txt"
    corpus.write_text("hug pug\n", encoding="utf-8")
    done = hf_bpe(*([] if "--from-counts" in args else [str(corpus)]), "-o", str(tmp_path / "out"), *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()
