"""Overflowing windows of singles and pairs (#37), judged by the Rust backend (``PreTrainedTokenizerFast``) loading
the same file: every key of the ``BatchEncoding`` and every ``Encoding`` behind it (type ids, sequence ids, word ids,
tokens, offsets) for each truncation strategy, ``max_length`` 0, 1, 2 and more, with and without special tokens,
empty texts included. ``tokenizers`` truncates each sequence before the post-processor (``truncate_encodings``),
which types only the kept rows: a window keeps the type id its sequence was encoded with (``Tokenizer::encode``
gives a pair's second sequence 1) where a template types that sequence 0 (T5's ``$A </s> $B </s>``);
RoBERTa's post-processor types the windows 0 too, but only where it adds special tokens."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from real_tokenizers import model_tokenizer_json
from test_issue37_calls import _t5_like
from tokenizers import Tokenizer, processors
from transformers import PreTrainedTokenizerFast

import hf_bpe

SINGLES = ["", "hello world", "the quick brown fox jumps over", "a", ""]
PAIRS = [
    ("", ""),
    ("", "0"),
    ("hello there", ""),
    ("the quick brown fox jumps", "a b"),
    ("a", "the lazy dog jumps over the fox"),
]
LENGTHS = [0, 1, 2, 3, 4, 7]
ENCODING_FIELDS = (
    "ids", "type_ids", "tokens", "offsets", "attention_mask", "special_tokens_mask", "word_ids", "sequence_ids",
)  # fmt: skip


def _roberta_like(path: Path) -> Path:
    """GPT-2's real file with RoBERTa's post-processor, which types a pair's kept rows and, with special tokens,
    its overflowing windows 0 (``RobertaProcessing::process_encodings``)."""
    tokenizer = Tokenizer.from_file(str(model_tokenizer_json("gpt2")))
    tokenizer.add_special_tokens(["<s>", "</s>"])
    tokenizer.post_processor = processors.RobertaProcessing(
        ("</s>", tokenizer.token_to_id("</s>")), ("<s>", tokenizer.token_to_id("<s>"))
    )
    path.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(path / "tokenizer.json"))
    return path / "tokenizer.json"


@functools.cache
def _pair(name: str, folder: str) -> tuple[Any, Any]:
    makers = {"t5": _t5_like, "roberta": _roberta_like, "qwen3": lambda _: model_tokenizer_json("qwen3")}
    path = makers[name](Path(folder))
    return hf_bpe.from_pretrained(path), PreTrainedTokenizerFast(tokenizer_file=str(path))


def _outcome(tokenizer: Any, inputs: tuple[Any, ...], options: dict[str, Any]) -> tuple[str, Any]:
    """("ok", the BatchEncoding) or ("error", None)."""
    try:
        return "ok", tokenizer(*inputs, **options)
    except BaseException as error:  # the Rust backend panics (a BaseException) where hf_bpe raises ValueError
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        return "error", None


def _rows(encoded: Any) -> list[dict[str, Any]]:
    """Each row's ``Encoding`` fields and what ``BatchEncoding``'s methods read from it."""
    return [
        {
            **{field: getattr(encoding, field) for field in ENCODING_FIELDS},
            "n_sequences": encoding.n_sequences,
            "sequence_ids()": encoded.sequence_ids(index),
            "word_ids()": encoded.word_ids(index),
            "tokens()": encoded.tokens(index),
        }
        for index, encoding in enumerate(encoded.encodings)
    ]


@pytest.mark.parametrize("kind", ["single", "pair"])
@pytest.mark.parametrize("add_special_tokens", [False, True], ids=["plain", "special"])
@pytest.mark.parametrize("strategy", ["longest_first", "only_first", "only_second"])
@pytest.mark.parametrize("name", ["t5", "qwen3", "roberta"])
def test_overflowing_windows_are_the_rust_backends(
    name: str, strategy: str, add_special_tokens: bool, kind: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    ours, rust = _pair(name, str(tmp_path_factory.getbasetemp() / f"overflow-{name}"))
    items: list[tuple[Any, ...]] = [(text,) for text in SINGLES] if kind == "single" else list(PAIRS)
    # The batch, then each text or pair alone (a batch is refused whole where one of its items is).
    calls = [tuple(map(list, zip(*items, strict=True))), *items]
    compared = 0
    for max_length in LENGTHS:
        for stride in (0, 1):
            for offsets in (False, True):
                options = {
                    "max_length": max_length,
                    "stride": stride,
                    "truncation": strategy,
                    "add_special_tokens": add_special_tokens,
                    "return_overflowing_tokens": True,
                    "return_token_type_ids": True,
                    "return_special_tokens_mask": True,
                    "return_offsets_mapping": offsets,
                    "return_length": True,
                }
                for inputs in calls:
                    expected, got = _outcome(rust, inputs, options), _outcome(ours, inputs, options)
                    where = f"{inputs} max_length={max_length} stride={stride} offsets={offsets}"
                    assert got[0] == expected[0], f"{where}: hf_bpe {got}, Rust backend {expected}"
                    if expected[0] == "error":
                        continue
                    assert dict(got[1]) == dict(expected[1]), where
                    assert _rows(got[1]) == _rows(expected[1]), where
                    compared += 1
    # Most calls of the grid are encoded (only_second's singles are refused by both).
    assert compared >= (0 if strategy == "only_second" and kind == "single" else 50)
