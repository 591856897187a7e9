"""What the differential tests share: hypothesis strategies for calls of a transformers tokenizer (text of every
code point but lone surrogates, with the tokenizer's special tokens inside; batches, pairs, truncation, padding and
every return flag) and the check that hf_bpe's tokenizer gives what the Rust backend gives for each."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st


def texts(specials: list[str]) -> st.SearchStrategy[str]:
    """Text of every code point but lone surrogates (the Rust backend cannot take them), with special tokens
    inside words and white space of several kinds at either end."""
    pieces = st.one_of(
        st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=10),
        st.text(alphabet="ab cd\n", max_size=8),
        st.sampled_from([*specials, " ", "  ", "\n", "\t", "\u00a0", "\u3000", "<|endoftext", "'s", "12 34"]),
    )
    return st.lists(pieces, max_size=6).map("".join)


@st.composite
def calls(draw: st.DrawFn, specials: list[str]) -> tuple[Any, dict[str, Any]]:
    """What to encode (one text, a batch, with or without pairs) and the keyword options of the call."""
    batch = draw(st.booleans())
    size = draw(st.integers(1, 3)) if batch else 1
    first = [draw(texts(specials)) for _ in range(size)]
    options: dict[str, Any] = {}
    if draw(st.booleans()):
        second = [draw(texts(specials)) for _ in range(size)]
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
