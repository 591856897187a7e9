"""A text cut around its added tokens is encoded in one call (``encode_parts``, ``encode_spans``), judged by the
Rust backend.

Gemma's newline is an added token, so a Gemma text reaches the model one line at a time; ``PipelineTokenizer``
encodes all of a text's lines in one :meth:`~hf_bpe.pipeline.pipeline.Pipeline.encode_parts` call instead of a
call chain a line: the text's parts (``pattern.split``, no offsets) for the common call, its spans where
special tokens are split or added tokens strip. Each test compares with ``tokenizers`` loaded from the same
file: the span-free path and the path with spans (both sides of each switch), added tokens in the raw text or
split, no added tokens, and a batch shared out to forked processes, whose added-token pattern is derived once
before the fork.
"""

from __future__ import annotations

import copy
import json

import pytest
from real_tokenizers import model_tokenizer_json
from tokenizers import Tokenizer
from transformers import PreTrainedTokenizerFast

import hf_bpe
from hf_bpe.pipeline import added_tokens
from hf_bpe.pipeline.added_tokens import split_around
from hf_bpe.transformers import rows

#: Lines, blank lines, added tokens inside a line and at the ends, white space around them, no text at all.
TEXTS = [
    "",
    "\n",
    "one line",
    "Hello world\n\nsecond  line\n third\n",
    "\n\nstarts with newlines and ends with spaces   ",
    "<start_of_turn>user\nWie geht's?<end_of_turn>\n<start_of_turn>model\nГорошо, 谢谢！<end_of_turn>\n",
    "<s>[INST] a <s> b </s>\n\tc\r\nd\n\n\n</s>",
    "x\n" * 30 + "日本語のテキスト\nкириллица\n",
]

#: Gemma-3 (newline an added token, thousands of added tokens) and Mistral-7B v0.1 ("llama2": a Prepend normalizer,
#: which tells a text's first stretch from the others).
MODELS = ["gemma3", "llama2"]


@pytest.fixture(scope="module", params=MODELS)
def loaded(request):
    path = model_tokenizer_json(request.param)
    return (
        hf_bpe.from_pretrained(path),
        PreTrainedTokenizerFast(tokenizer_file=str(path)),
        Tokenizer.from_file(str(path)),
    )


@pytest.mark.parametrize("split_special_tokens", [False, True], ids=["added-matched", "added-split"])
@pytest.mark.parametrize("add_special_tokens", [True, False], ids=["template", "bare"])
def test_batch_ids_are_the_rust_backends(loaded, split_special_tokens, add_special_tokens):
    ours, theirs, _ = loaded
    options = {"split_special_tokens": split_special_tokens, "add_special_tokens": add_special_tokens}
    expected = theirs(TEXTS, **options)["input_ids"]
    assert ours(TEXTS, **options)["input_ids"] == expected
    assert [ours(text, **options)["input_ids"] for text in TEXTS] == expected


def test_both_pipeline_paths_give_the_rust_ids(loaded):
    """``encode_spans`` on the span-free path (normalize_str, split_str, token_ids) and with the path switched off
    (``encode`` a stretch, spans kept): the same ids, the Rust ones."""
    ours, _, reference = loaded
    fast = ours.pipeline
    assert fast._str_path is not None  # both files take the span-free path
    slow = copy.copy(fast)
    object.__setattr__(slow, "_str_path", None)
    pattern = ours._added_matcher.pattern(ours.raw_added_tokens())
    added = ours._added_tokens_encoder
    for text in TEXTS:
        spans = split_around(text, pattern)
        expected = reference.encode(text, add_special_tokens=False).ids
        assert fast.encode_spans(text, spans, added) == expected, text
        assert slow.encode_spans(text, spans, added) == expected, text
        assert fast.encode_parts(pattern.split(text), added) == expected, text
        assert slow.encode_parts(pattern.split(text), added) == expected, text


def test_a_file_without_added_tokens_gives_the_rust_ids(tmp_path):
    """No added token: no pattern, the text is one part (both backends load the same edited file)."""
    data = json.loads(model_tokenizer_json("llama2").read_text(encoding="utf-8"))
    data["added_tokens"] = []
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    ours = hf_bpe.from_pretrained(path)
    assert ours._added_matcher.pattern(ours.raw_added_tokens()) is None
    theirs = PreTrainedTokenizerFast(tokenizer_file=str(path))
    for options in ({}, {"split_special_tokens": True}):
        assert ours(TEXTS, **options)["input_ids"] == theirs(TEXTS, **options)["input_ids"]


def test_forked_batch_derives_the_pattern_once_before_the_fork(loaded, monkeypatch):
    """A batch shared out to forked processes: the Rust ids, and the added tokens' pattern derived in this process
    before the fork (each child inherits it instead of compiling Gemma's 6,415 tokens again)."""
    ours, theirs, _ = loaded
    texts = TEXTS * 50
    monkeypatch.setattr(rows, "FORK_MIN_CHARS", 10)
    monkeypatch.setattr(rows, "fork_processes", lambda: 2)
    ours._added_matcher.changed()  # what was derived before is stale
    derived_at_fork = []
    run_forked = rows.run_forked

    def spy(jobs, name):
        found = ours._added_matcher._derived.get("pattern")
        derived_at_fork.append(found is not None and found[0] == ours._added_matcher._version)
        return run_forked(jobs, name)

    monkeypatch.setattr(rows, "run_forked", spy)
    assert ours(texts)["input_ids"] == theirs(texts)["input_ids"]
    assert derived_at_fork == [True]


def test_instances_of_one_file_share_one_compiled_pattern_and_keep_their_own_tokens():
    """Tokenizers loaded from one file share the compiled pattern of its added tokens (compiled once per set of
    tokens), and one whose tokens change compiles its own: each gives the Rust backend's ids for its tokens."""
    path = model_tokenizer_json("gemma3")
    added_tokens._compiled_pattern.cache_clear()
    first, second = hf_bpe.from_pretrained(path), hf_bpe.from_pretrained(path)
    theirs = PreTrainedTokenizerFast(tokenizer_file=str(path))
    expected = theirs(TEXTS)["input_ids"]
    assert first(TEXTS)["input_ids"] == expected
    assert second(TEXTS)["input_ids"] == expected
    assert added_tokens._compiled_pattern.cache_info().misses == 1  # the second instance compiled nothing
    assert first._added_matcher.pattern({}) is second._added_matcher.pattern({})

    texts = [text + " <zz> x<zz>\n" for text in TEXTS]
    first.add_tokens(["<zz>"], special_tokens=True)
    theirs.add_tokens(["<zz>"], special_tokens=True)
    assert first(texts)["input_ids"] == theirs(texts)["input_ids"]
    assert second(texts)["input_ids"] == PreTrainedTokenizerFast(tokenizer_file=str(path))(texts)["input_ids"]
    assert first._added_matcher.pattern({}) is not second._added_matcher.pattern({})
