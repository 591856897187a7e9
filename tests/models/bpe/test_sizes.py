"""Several vocabulary sizes from one run (``--vocab-size 8000,16000``): each directory against ``tokenizers``
trained to that size on its own."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import COURSE, multilingual_text, reference_train

import hf_bpe
from hf_bpe.models.bpe.training import smaller_vocabulary


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hf_bpe.cli", *args], capture_output=True, text=True)


@pytest.mark.parametrize(
    "special_tokens",
    [[], ["<|endoftext|>"], ["hug", "Ġthe"]],
    ids=["plain", "special", "special-spelled-like-merges"],
)
def test_each_size_equals_tokenizers_trained_to_it(special_tokens, stdlib_files, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(multilingual_text(400, seed=2) + "hug hugs hug the the\n" * 30, encoding="utf-8", newline="")
    files = [str(corpus), str(stdlib_files[0])]
    sizes = [300, 700, 1500]
    done = run_cli("train", *files, "-o", str(tmp_path / "out"), "--vocab-size", "1500,300,700", "--no-progress",
                   *(["--special-tokens", *special_tokens] if special_tokens else []))  # fmt: skip
    assert done.returncode == 0, done.stderr
    for size in sizes:
        vocab, merges = reference_train(files, tmp_path / f"ref-{size}", vocab_size=size, special_tokens=special_tokens)
        assert (tmp_path / "out" / str(size) / "vocab.json").read_text(encoding="utf-8") == vocab, size
        assert (tmp_path / "out" / str(size) / "merges.txt").read_text(encoding="utf-8") == merges, size
        assert (tmp_path / "out" / str(size) / "tokenizer.json").is_file()


def test_a_merge_that_makes_no_new_token_is_not_read_off():
    """ "hug" is a special token: the merge h + ug makes no new id, so smaller sizes are trained on their own."""
    texts = ["".join(COURSE), "hug hug hug pug"]
    big = hf_bpe.train_from_iterator(texts, vocab_size=300, special_tokens=["hug"])
    assert ("h", "ug") in big.merges or ("hu", "g") in big.merges
    assert smaller_vocabulary(big, 280) is None
    assert smaller_vocabulary(hf_bpe.train_from_iterator(texts, vocab_size=300), 280) is not None
