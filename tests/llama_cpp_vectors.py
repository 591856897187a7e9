"""llama.cpp's tokenizer test vectors, an independent judge of real tokenizers: ``vendor/llama.cpp/models`` in the
``llama-cpp-python`` 0.3.36 source archive (fetched from PyPI once, SHA-256 pinned in
:data:`real_tokenizers.PYPI`, cached in ``$HF_BPE_CACHE/pypi``; never committed).

For each vocabulary NAME there, ``ggml-vocab-NAME.gguf.inp`` holds edge-case texts, each followed by the line
``__ggml_vocab_test__``, and ``ggml-vocab-NAME.gguf.out`` one line per text: the ids the model's own HuggingFace
tokenizer gave, ``tokenizer.encode(text, add_special_tokens=False)``, written by llama.cpp's
``convert_hf_to_gguf_update.py``. ``ggml-vocab-NAME.gguf`` is that tokenizer's vocabulary (and merges) converted to
GGUF: :func:`gguf_metadata` reads it, so a test can prove that the tokenizer.json it judges is the model the vectors
were made with. This module owns reading the three files; the tests own what they compare.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from real_tokenizers import pypi_members

REQUIREMENT = "llama-cpp-python==0.3.36"
FOLDER = "/vendor/llama.cpp/models/ggml-vocab-"
SEPARATOR = "\n__ggml_vocab_test__\n"
#: The vocabularies whose GGUF files are kept too (a few MB each), for the proofs of identity.
KEEP_GGUF = ("gpt-2", "llama-bpe", "qwen2", "command-r", "mpt", "bert-bge")


def _wanted(path: str) -> str | None:
    if FOLDER not in path:
        return None
    name = path.rsplit("/", 1)[-1]
    if name.endswith((".gguf.inp", ".gguf.out")):
        return name
    if name.endswith(".gguf") and name.removeprefix("ggml-vocab-").removesuffix(".gguf") in KEEP_GGUF:
        return name
    return None


def vectors_folder() -> Path:
    """The cache folder holding every ``ggml-vocab-*.gguf.inp`` and ``.out``, and the :data:`KEEP_GGUF` files."""
    return pypi_members(REQUIREMENT, _wanted)


def cases(vocab: str) -> list[tuple[str, list[int]]]:
    """The texts of ``ggml-vocab-VOCAB.gguf.inp`` paired with the ids of its ``.out``, in file order.

    Both files are read as bytes and decoded as UTF-8: Python's text mode would turn a ``\\r`` in a text into
    ``\\n``. A text is everything before a separator line; what follows the last separator (normally nothing) is a
    text too when it is not empty (``gemma-4``'s file ends without one).

    Raises:
        ValueError: the two files do not have as many texts as id lines.
    """
    folder = vectors_folder()
    texts = (folder / f"ggml-vocab-{vocab}.gguf.inp").read_bytes().decode("utf-8").split(SEPARATOR)
    if texts[-1] == "":
        texts.pop()
    lines = (folder / f"ggml-vocab-{vocab}.gguf.out").read_bytes().decode("utf-8").split("\n")
    if lines[-1] == "":
        lines.pop()
    if len(texts) != len(lines):
        raise ValueError(f"ggml-vocab-{vocab}: {len(texts)} texts but {len(lines)} lines of ids")
    return [(text, [int(each) for each in line.split()]) for text, line in zip(texts, lines, strict=True)]


_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9


def gguf_metadata(vocab: str) -> dict[str, Any]:
    """The key-value metadata of ``ggml-vocab-VOCAB.gguf`` (``tokenizer.ggml.tokens``, ``tokenizer.ggml.merges``…),
    read as GGUF lays it out: magic, version, tensor count, pair count, then each key (a length-prefixed UTF-8
    string), its type and its value, little-endian (the layout llama.cpp's ``gguf_init_from_file`` reads)."""
    data = (vectors_folder() / f"ggml-vocab-{vocab}.gguf").read_bytes()
    if data[:4] != b"GGUF":
        raise ValueError(f"ggml-vocab-{vocab}.gguf is not a GGUF file (starts with {data[:4]!r})")
    position = 4

    def take(code: str) -> Any:
        nonlocal position
        (value,) = struct.unpack_from("<" + code, data, position)
        position += struct.calcsize("<" + code)
        return value

    def string() -> str:
        nonlocal position
        length = take("Q")
        position += length
        return data[position - length : position].decode("utf-8")

    def value(kind: int) -> Any:
        if kind == _STRING:
            return string()
        if kind == _ARRAY:
            item, count = take("I"), take("Q")
            return [value(item) for _ in range(count)]
        return take(_SCALARS[kind])

    take("I")  # version
    take("Q")  # tensors: none in a vocabulary-only file, and never read here
    pairs = take("Q")
    metadata: dict[str, Any] = {}
    for _ in range(pairs):
        key = string()
        metadata[key] = value(take("I"))
    return metadata
