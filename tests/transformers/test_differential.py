"""Differential tests: BPETokenizer against the Rust backend loaded from the same directory, on drawn text and
drawn call options. The two must return the same ``BatchEncoding`` (or both refuse the call) and the same decodes.

Directories: GPT-2's own files (with and without ``add_prefix_space``, loaded by transformers' ``GPT2Tokenizer``)
and small ones trained by hf_bpe with each encoding-relevant option (special tokens, prefix space), loaded by
``TokenizersBackend`` from their ``tokenizer.json`` (by ``GPT2Tokenizer`` where ``add_bos_token`` is asked for).
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import COURSE, multilingual_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from transformers import GPT2Tokenizer, TokenizersBackend

import hf_bpe
from hf_bpe import BPETokenizer

# transformers warns that padding=True ignores max_length; both sides get the same call.
pytestmark = pytest.mark.filterwarnings("ignore:`max_length` is ignored:UserWarning")

SPECIALS = ["<|endoftext|>", "<pad>"]
# Each configuration: how the directory is made and what the tokenizers are loaded with.
CONFIGURATIONS = {
    "gpt2": {"gpt2": True},
    "gpt2-prefix-space": {"gpt2": True, "add_prefix_space": True},
    "trained": {"train": {}},
    "trained-specials": {"train": {"special_tokens": SPECIALS}},
    "trained-specials-prefix-space": {"train": {"special_tokens": SPECIALS, "add_prefix_space": True}},
    "trained-bos": {"train": {"special_tokens": SPECIALS}, "load": {"add_bos_token": True}},
}


@functools.cache
def loaded(gpt2_dir: Path) -> dict[str, tuple[Any, Any]]:
    """Per configuration, (hf_bpe's tokenizer, the Rust backend's) loaded from the same directory (a module
    cache rather than a fixture, so that hypothesis' report of a failing case stays short)."""
    scratch = Path(tempfile.mkdtemp(prefix="hf-bpe-differential-"))
    atexit.register(shutil.rmtree, scratch, True)
    corpus = [*COURSE, multilingual_text(200, seed=5), "<|endoftext|> <pad> end of text\n"]
    pairs = {}
    for name, configuration in CONFIGURATIONS.items():
        if configuration.get("gpt2"):
            prefix = configuration.get("add_prefix_space", False)
            ours = BPETokenizer.from_pretrained(str(gpt2_dir), add_prefix_space=prefix)
            rust = GPT2Tokenizer.from_pretrained(str(gpt2_dir), add_prefix_space=prefix)
            for tokenizer in (ours, rust):
                tokenizer.pad_token = "<|endoftext|>"
        else:
            options = configuration["train"]
            directory = scratch / name
            result = hf_bpe.train_from_iterator(corpus, vocab_size=500, **options)
            roles = {"pad_token": "<pad>", "eos_token": "<|endoftext|>"} if options.get("special_tokens") else None
            result.save(directory, roles=roles)
            load = configuration.get("load", {})
            ours = BPETokenizer.from_pretrained(str(directory), **load)
            # GPT2Tokenizer is the Rust backend that knows add_bos_token (it writes a TemplateProcessing).
            rust = (GPT2Tokenizer if load else TokenizersBackend).from_pretrained(str(directory), **load)
            assert ours.add_prefix_space == rust.add_prefix_space == options.get("add_prefix_space", False)
        pairs[name] = (ours, rust)
    return pairs


@pytest.fixture
def pairs(gpt2_dir: Path) -> dict[str, tuple[Any, Any]]:
    return loaded(gpt2_dir)


def texts() -> st.SearchStrategy[str]:
    """Text of every code point but lone surrogates (the Rust backend cannot take them), with special tokens
    inside words and white space of several kinds at either end."""
    pieces = st.one_of(
        st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=10),
        st.text(alphabet="ab cd\n", max_size=8),
        st.sampled_from([*SPECIALS, " ", "  ", "\n", "\t", "\u00a0", "\u3000", "<|endoftext", "'s", "12 34"]),
    )
    return st.lists(pieces, max_size=6).map("".join)


@st.composite
def calls(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    """What to encode (one text, a batch, with or without pairs) and the keyword options of the call."""
    batch = draw(st.booleans())
    size = draw(st.integers(1, 3)) if batch else 1
    first = [draw(texts()) for _ in range(size)]
    options: dict[str, Any] = {}
    if draw(st.booleans()):
        second = [draw(texts()) for _ in range(size)]
        options["text_pair"] = second if batch else second[0]
    options["padding"] = draw(st.sampled_from([False, True, "longest", "max_length"]))
    options["truncation"] = draw(st.sampled_from([False, True, "longest_first", "only_first", "only_second"]))
    options["max_length"] = draw(st.one_of(st.none(), st.integers(0, 12)))
    options["stride"] = draw(st.sampled_from([0, 0, 1, 2]))
    options["padding_side"] = draw(st.sampled_from([None, "left", "right"]))
    options["pad_to_multiple_of"] = draw(st.sampled_from([None, None, 3]))
    for flag in (
        "return_overflowing_tokens",
        "return_offsets_mapping",
        "return_length",
        "return_special_tokens_mask",
        "return_token_type_ids",
    ):
        options[flag] = draw(st.booleans())
    options["add_special_tokens"] = draw(st.booleans())
    options["split_special_tokens"] = draw(st.sampled_from([False, False, True]))
    if draw(st.booleans()):
        options["return_tensors"] = "np"
    return (first if batch else first[0]), options


def outcome(tokenizer: Any, text: Any, options: dict[str, Any]) -> tuple[str, Any]:
    """("ok", the BatchEncoding's data as plain lists) or ("error", None): what a call gave."""
    try:
        encoded = tokenizer(text, **options)
    except (Exception, BaseException) as error:  # the Rust backend panics with a BaseException
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        return "error", None
    return "ok", {key: plain(value) for key, value in encoded.items()}


def plain(value: Any) -> Any:
    """A value with numpy arrays (ragged batches make arrays of arrays) spelled as comparable tuples."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, [plain(item) for item in value.tolist()])
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def rows(data: dict[str, Any]) -> list[list[int]]:
    ids = data["input_ids"]
    while isinstance(ids, tuple):
        ids = ids[3]
    found = [row[3] if isinstance(row, tuple) else row for row in ids]
    found = [row for row in found if isinstance(row, list)]
    return found or [ids]


def check(ours: Any, rust: Any, text: Any, options: dict[str, Any]) -> None:
    theirs = outcome(rust, text, options)
    mine = outcome(ours, text, options)
    assert mine[0] == theirs[0], f"hf_bpe: {mine}, Rust backend: {theirs}"
    if theirs[0] == "error":
        return
    assert mine[1] == theirs[1], f"hf_bpe: {mine[1]}\nRust backend: {theirs[1]}"
    for ids in rows(theirs[1]):
        for skip in (False, True):
            assert ours.decode(ids, skip_special_tokens=skip) == rust.decode(ids, skip_special_tokens=skip)


@pytest.mark.parametrize("name", CONFIGURATIONS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(call=calls())
def test_same_encoding_as_rust_backend(gpt2_dir, name, call):
    ours, rust = loaded(gpt2_dir)[name]
    text, options = call
    check(ours, rust, text, options)


@pytest.mark.slow
@pytest.mark.parametrize("name", CONFIGURATIONS)
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(call=calls())
def test_same_encoding_as_rust_backend_long_run(gpt2_dir, name, call):
    ours, rust = loaded(gpt2_dir)[name]
    text, options = call
    check(ours, rust, text, options)


@pytest.mark.parametrize("name", CONFIGURATIONS)
@pytest.mark.parametrize(
    "text",
    ["", " ", "\n", "\nx", "\tx", "\u00a0x", "\u3000x", "before<|endoftext|>after", "<|endoftext|>", " <pad> x "],
    ids=repr,
)
def test_edge_texts_same_as_rust_backend(pairs, name, text):
    """The cases of issue 13 by name: white space that is not ' ' at the start, special tokens cutting the text."""
    ours, rust = pairs[name]
    for options in ({}, {"return_offsets_mapping": True}, {"text_pair": text}):
        check(ours, rust, text, options)
    check(ours, rust, [text, "hello", text], {"padding": True, "truncation": True, "max_length": 4})
