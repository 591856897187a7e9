"""Converting tiktoken rank files to vocab.json + merges.txt, checked by encoding with both."""

from __future__ import annotations

import base64
import random
import subprocess
import sys

import pytest
import tiktoken
from conftest import multilingual_text
from transformers import GPT2Tokenizer, TokenizersBackend

import hf_bpe
from hf_bpe.models.bpe.files import write_tokenizer_dir
from hf_bpe.pipeline.byte_level import BYTE_TO_UNICODE
from hf_bpe.pipeline.pre_tokenizers import PRESETS
from hf_bpe.reference.gpt2 import TIKTOKEN_PATTERN
from hf_bpe.reference.openai_ranks import SPECIAL_TOKENS, openai_ranks
from hf_bpe.reference.tiktoken_files import convert_tiktoken, ranks_to_vocab_and_merges, read_tiktoken_ranks


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


def test_missing_byte_is_refused(small_ranks):
    without_z = {token: rank for token, rank in small_ranks.items() if token != b"z"}
    with pytest.raises(ValueError, match=r"lack single bytes \[122\]"):
        ranks_to_vocab_and_merges(without_z)


def test_tokens_not_built_from_lower_ranks_encode_like_tiktoken(tmp_path):
    """ "xyz" has no ranked split; "abab" splits into ab + ab, but BPE over lower ranks joins "ba" (rank 256) first
    and is left with a + ba + b (Llama-3's b'.:.:'). tiktoken takes either whole as a piece; the converter lists
    the splits there are and writes ignore_merges."""
    ranks = {bytes([byte]): byte for byte in range(256)}
    for token in (b"ba", b"ab", b"abab", b"xyz"):
        ranks[token] = len(ranks)
    _vocab, merges = ranks_to_vocab_and_merges(ranks)
    assert merges == [("b", "a"), ("a", "b"), ("ab", "ab")]
    write_ranks(tmp_path / "odd.tiktoken", ranks)
    convert_tiktoken(tmp_path / "odd.tiktoken", tmp_path / "out", pattern=TIKTOKEN_PATTERN)
    reference = tiktoken.Encoding("odd", pat_str=TIKTOKEN_PATTERN, mergeable_ranks=ranks, special_tokens={})
    ours = hf_bpe.BPETokenizer.from_pretrained(str(tmp_path / "out"))
    rust = TokenizersBackend.from_pretrained(str(tmp_path / "out"))
    for text in ("xyz", "abab", " abab", "ababab", "xabab", "abab abab xyzxyz", "bababa"):
        assert ours(text)["input_ids"] == rust(text)["input_ids"] == reference.encode(text), text
    assert reference.encode("abab") == [258] and reference.encode("xyz") == [259]


#: tiktoken's own tests' edge cases (tests/test_encoding.py): repeated digits, contractions, line ends, empty text,
#: emoji and surrogates, and its catastrophically repetitive texts; then the odd tokens whole, inside words, repeated.
TIKTOKEN_EDGE_CASES = [
    "hello world",
    "hello <|endoftext|>",
    "rer",
    "'rer",
    "today\n ",
    "today\n \n",
    "today\n  \n",
    " \x850",
    "",
    "👍",
    "\ud83d\udc4d",
    "\ud83d",
    *("0" * n for n in range(1, 18)),
    *(text for c in ("^", "0", "a", "'s", " ", "\n") for text in (c * 10000, " " + c * 10000, c * 10000 + " ")),
    ".:.:",
    " .:.:",
    ".:.:.:.:",
    "a.:.:b",
    "x.:.:.:",
    "..:.:.",
    ".:.:" * 2500,
    "\x00\x01\x02",
    "\x00\x01\x02\x00\x01\x02",
    "日本.:.:語 aaaぁ aaaぁ.:.",
]


def test_cl100k_with_tokens_not_built_from_lower_ranks_encodes_like_tiktoken(tmp_path):
    """Llama-3's b'.:.:' (rank 100421 there): b':.' ranks below b'.:', so BPE over lower ranks leaves . + :. + :.
    Added to cl100k with a token of no ranked split, one built from a higher-ranked part (b'.:.' + b':'), and one
    that BPE builds; judged by tiktoken with the same ranks, on real text, tiktoken's edge cases and random text."""
    ranks = read_tiktoken_ranks(openai_ranks("cl100k_base"))
    for offset, token in enumerate((b".:.:", b"\x00\x01\x02", b".:.", b"aaa\xe3\x81")):
        assert token not in ranks
        ranks[token] = 100300 + offset
    write_ranks(tmp_path / "odd.tiktoken", ranks)
    specials = SPECIAL_TOKENS["cl100k_base"]
    convert_tiktoken(tmp_path / "odd.tiktoken", tmp_path / "out", pattern="cl100k", special_tokens=specials)
    reference = tiktoken.Encoding(
        "odd", pat_str=PRESETS["cl100k"].splits[0], mergeable_ranks=ranks, special_tokens=specials
    )
    ours = hf_bpe.BPETokenizer.from_pretrained(str(tmp_path / "out"))
    rust = TokenizersBackend.from_pretrained(str(tmp_path / "out"))
    rng = random.Random(5)
    alphabet = [".", ":", " ", "a", "\x00", "\x01", "\x02", "\n", "ぁ"]
    random_texts = ["".join(rng.choices(alphabet, k=rng.randint(1, 14))) for _ in range(2000)]
    for text in [multilingual_text(300, seed=6), *TIKTOKEN_EDGE_CASES, *random_texts]:
        expected = reference.encode(text, allowed_special="all")
        assert ours(text)["input_ids"] == expected, text[:40]
        if not any("\ud800" <= char <= "\udfff" for char in text):  # the Rust backend takes no lone surrogate
            assert rust(text)["input_ids"] == expected, text[:40]
    assert reference.encode(".:.:") == [100300] and reference.encode("\x00\x01\x02") == [100301]


# -- export: a directory's vocabulary as a rank file -------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hf_bpe.cli", *args], capture_output=True, text=True)


def test_export_of_gpt2s_files_is_gpt2s_rank_file(gpt2_dir, tmp_path):
    done = run_cli("export", "tiktoken", str(gpt2_dir), "-o", str(tmp_path / "gpt2.tiktoken"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "gpt2.tiktoken").read_bytes() == (gpt2_dir / "gpt2.tiktoken").read_bytes()
    assert "<|endoftext|>=50256" in done.stdout


@pytest.mark.parametrize("pattern", ["gpt2", "llama3", "o200k"])
def test_export_of_a_trained_directory_encodes_the_same_in_tiktoken(pattern, stdlib_files, tmp_path):
    from tiktoken.load import load_tiktoken_bpe

    import hf_bpe
    from hf_bpe.pipeline.pre_tokenizers import PRESETS
    from hf_bpe.reference.gpt2 import TIKTOKEN_PATTERN

    texts = [multilingual_text(200, seed=4), stdlib_files[1].read_text(encoding="utf-8")[:50000]]
    result = hf_bpe.train_from_iterator(texts, vocab_size=1500, pattern=pattern, special_tokens=["<|endoftext|>"])
    result.save(tmp_path / "tok")
    done = run_cli("export", "tiktoken", str(tmp_path / "tok"), "-o", str(tmp_path / "tok.tiktoken"))
    assert done.returncode == 0, done.stdout + done.stderr
    encoding = tiktoken.Encoding(
        "exported",
        pat_str=TIKTOKEN_PATTERN if pattern == "gpt2" else PRESETS[pattern].splits[0],
        mergeable_ranks=load_tiktoken_bpe(str(tmp_path / "tok.tiktoken")),
        special_tokens={"<|endoftext|>": 0},
    )
    ours = hf_bpe.BPETokenizer.from_pretrained(str(tmp_path / "tok"))
    for text in [*texts, multilingual_text(100, seed=8), "x<|endoftext|>y 2024123"]:
        assert ours(text)["input_ids"] == encoding.encode(text, allowed_special="all")
    done = run_cli("convert", "tiktoken", str(tmp_path / "tok.tiktoken"), "-o", str(tmp_path / "back"),
                   "--pattern", pattern, "--special-tokens", "<|endoftext|>=0")  # fmt: skip
    assert done.returncode == 0, done.stderr
    for name in ("vocab.json", "merges.txt"):
        assert (tmp_path / "back" / name).read_bytes() == (tmp_path / "tok" / name).read_bytes()


def test_export_names_a_merge_tiktoken_would_not_make(tmp_path):
    """ "abc" is listed as ab + c, but "bc" ranks below "ab": tiktoken merges b + c first, then a + bc into "abc",
    which the BPE model never does."""
    vocab = {**{char: byte for byte, char in BYTE_TO_UNICODE.items()}, "bc": 256, "ab": 257, "abc": 258}
    write_tokenizer_dir(tmp_path / "tok", vocab, [("b", "c"), ("a", "b"), ("ab", "c")])
    done = run_cli("export", "tiktoken", str(tmp_path / "tok"), "-o", str(tmp_path / "tok.tiktoken"))
    assert done.returncode == 1
    assert "'abc': merges.txt has ('ab', 'c'), tiktoken's rule" in done.stderr and "('a', 'bc')" in done.stderr
    reference = tiktoken.Encoding(
        "t", pat_str=TIKTOKEN_PATTERN, mergeable_ranks=read_tiktoken_ranks(tmp_path / "tok.tiktoken"), special_tokens={}
    )
    rust = GPT2Tokenizer.from_pretrained(str(tmp_path / "tok"))
    assert reference.encode("abc") == [258] and rust("abc")["input_ids"] == [ord("a"), 256]
