"""Converting tiktoken rank files to vocab.json + merges.txt, checked by encoding with both."""

from __future__ import annotations

import base64

import pytest
import tiktoken
from transformers import GPT2Tokenizer

from hf_bpe.files import write_tokenizer_dir
from hf_bpe.gpt2 import TIKTOKEN_PATTERN
from hf_bpe.tiktoken_files import ranks_to_vocab_and_merges, read_tiktoken_ranks


def write_ranks(path, ranks):
    path.write_bytes(b"".join(base64.b64encode(token) + b" %d\n" % rank for token, rank in ranks.items()))


@pytest.fixture
def small_ranks():
    """All bytes, then tokens whose merge order matters: "ab" before "bc", so "abc" is built as "ab" + "c"."""
    ranks = {bytes([byte]): byte for byte in range(256)}
    for token in (b"ab", b"bc", b"abc", b" a", b" ab", b" abc", b"aa", b"aaaa"):
        ranks[token] = len(ranks)
    return ranks


def test_converted_files_encode_like_tiktoken(small_ranks, tmp_path):
    write_ranks(tmp_path / "small.tiktoken", small_ranks)
    ranks = read_tiktoken_ranks(tmp_path / "small.tiktoken")
    assert ranks == small_ranks
    vocab, merges = ranks_to_vocab_and_merges(ranks, {"<|end|>": len(ranks)})
    # " ab" is " " + "ab": BPE over lower ranks merges "ab" (rank 256) before " a" (rank 259).
    assert merges == [
        ("a", "b"),
        ("b", "c"),
        ("ab", "c"),
        ("Ġ", "a"),
        ("Ġ", "ab"),
        ("Ġ", "abc"),
        ("a", "a"),
        ("aa", "aa"),
    ]
    write_tokenizer_dir(tmp_path / "out", vocab, merges, special_tokens=["<|end|>"])
    reference = tiktoken.Encoding("small", pat_str=TIKTOKEN_PATTERN, mergeable_ranks=ranks, special_tokens={})
    rust = GPT2Tokenizer.from_pretrained(str(tmp_path / "out"))
    for text in ("abc abc", "aaaaaaa bca", " abcab", "xabcx aab"):
        assert rust(text)["input_ids"] == reference.encode(text)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(b"YQ== 0\nnot-base64!! 1\n", r"small\.tiktoken:2: expected 'base64-token rank'", id="base64"),
        pytest.param(b"YQ== 0\nYg==\n", r"small\.tiktoken:2: expected", id="no-rank"),
        pytest.param(b"YQ== 0\nYQ== 1\n", r"small\.tiktoken:2: token b'a' or rank 1 appears twice", id="twice"),
    ],
)
def test_malformed_rank_file_names_line(tmp_path, content, message):
    path = tmp_path / "small.tiktoken"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message):
        read_tiktoken_ranks(path)


def test_missing_byte_and_unbuildable_token_are_refused(small_ranks):
    without_z = {token: rank for token, rank in small_ranks.items() if token != b"z"}
    with pytest.raises(ValueError, match=r"lack single bytes \[122\]"):
        ranks_to_vocab_and_merges(without_z)
    small_ranks[b"xyz"] = len(small_ranks)  # no "xy" or "yz" below it
    with pytest.raises(ValueError, match=r"token b'xyz' \(rank 264\) cannot be built"):
        ranks_to_vocab_and_merges(small_ranks)
