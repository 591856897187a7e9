"""Loading a big ``tokenizer.json`` with :meth:`hf_bpe.Tokenizer.from_file` runs no garbage collection: the parse
makes millions of lists and tuples that no cycle holds, and each 700 of them started a collection, the oldest
generation's walking the whole heap (:func:`hf_bpe.tokenizer.serialization.collector_paused`). The collector is on
again after, and the tokenizer encodes as ``tokenizers``' own ``Tokenizer.from_file`` of the same file does."""

from __future__ import annotations

import gc
from typing import Any

from conftest import multilingual_text
from real_tokenizers import model_tokenizer_json
from tokenizers import Tokenizer as RustTokenizer

import hf_bpe


def test_from_file_of_gemma3_runs_no_collection_and_encodes_as_tokenizers():
    path = str(model_tokenizer_json("gemma3"))
    collections: list[int] = []

    def started(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    assert gc.isenabled()
    gc.callbacks.append(started)
    try:
        ours = hf_bpe.Tokenizer.from_file(path)
    finally:
        gc.callbacks.remove(started)
    # At most the young generation's one pass as the collector comes back on (at the next allocation).
    assert collections in ([], [0]) and gc.isenabled()
    text = multilingual_text(40)
    assert ours.encode(text).ids == RustTokenizer.from_file(path).encode(text).ids
