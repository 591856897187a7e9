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

import pytest
from conftest import COURSE, multilingual_text
from hypothesis import HealthCheck, given, settings
from rust_parity import calls, check
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


@pytest.mark.parametrize("name", CONFIGURATIONS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(call=calls(SPECIALS))
def test_same_encoding_as_rust_backend(gpt2_dir, name, call):
    ours, rust = loaded(gpt2_dir)[name]
    text, options = call
    check(ours, rust, text, options)


@pytest.mark.slow
@pytest.mark.parametrize("name", CONFIGURATIONS)
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(call=calls(SPECIALS))
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
