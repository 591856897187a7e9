"""Reading and writing vocab.json / merges.txt / whole tokenizer directories, against ``tokenizers``' own files."""

from __future__ import annotations

import json

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import TokenizersBackend

from hf_bpe.atomic import write_files
from hf_bpe.models.bpe.files import format_merges, format_vocab, read_merges, read_vocab, write_tokenizer_dir
from hf_bpe.models.directory import special_token_roles
from hf_bpe.reference.trainers import bpe_tokenizer, bpe_trainer

COURSE = [
    "This is the Hugging Face Course.\n",
    "This chapter is about tokenization.\n",
    "This section shows several tokenizer algorithms.\n",
    "Hopefully, you will be able to understand how they are trained and generate tokens.\n",
]


@pytest.fixture(scope="module")
def reference_dir(tmp_path_factory):
    """vocab.json + merges.txt as ``tokenizers`` saves them, with non-ASCII tokens in both."""
    tokenizer = bpe_tokenizer(pre_tokenizer=pre_tokenizers.ByteLevel(add_prefix_space=False))
    trainer = bpe_trainer(vocab_size=300, special_tokens=["<|endoftext|>"])
    tokenizer.train_from_iterator([*COURSE, "héllo wörld, héllo\n"], trainer)
    directory = tmp_path_factory.mktemp("reference")
    tokenizer.model.save(str(directory))
    return directory


def test_formats_are_byte_identical_to_reference(reference_dir):
    vocab = read_vocab(reference_dir / "vocab.json")
    merges = read_merges(reference_dir / "merges.txt", vocab)
    assert len(vocab) == 300 and len(merges) == 300 - 257
    assert format_vocab(vocab) == (reference_dir / "vocab.json").read_text(encoding="utf-8")
    assert format_merges(merges) == (reference_dir / "merges.txt").read_text(encoding="utf-8")


def test_tokenizer_dir_loads_in_rust_backend_with_reference_ids(reference_dir, tmp_path):
    vocab = read_vocab(reference_dir / "vocab.json")
    merges = read_merges(reference_dir / "merges.txt")
    written = write_tokenizer_dir(tmp_path / "out", vocab, merges, special_tokens=["<|endoftext|>"])
    assert sorted(path.name for path in written) == [
        "merges.txt",
        "tokenizer.json",
        "tokenizer_config.json",
        "vocab.json",
    ]
    reference = Tokenizer.from_file(str(tmp_path / "out" / "tokenizer.json"))
    rust = TokenizersBackend.from_pretrained(str(tmp_path / "out"))
    text = "This is the Hugging Face Course. héllo<|endoftext|>wörld"
    expected = Tokenizer(models.BPE.from_file(str(reference_dir / "vocab.json"), str(reference_dir / "merges.txt")))
    expected.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    expected.add_special_tokens(["<|endoftext|>"])
    assert rust(text)["input_ids"] == reference.encode(text).ids == expected.encode(text).ids
    config = json.loads((tmp_path / "out" / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["eos_token"] == config["bos_token"] == config["unk_token"] == "<|endoftext|>"
    assert config["tokenizer_class"] == "BPETokenizer"


@pytest.mark.parametrize("ending", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("header", [True, False], ids=["header", "no-header"])
def test_merges_load_with_any_line_ending_and_header(tmp_path, ending, header):
    lines = (["#version: 0.2"] if header else []) + ["a b", "ab c"]
    path = tmp_path / "merges.txt"
    path.write_bytes(ending.join(lines).encode() + ending.encode())
    assert read_merges(path, {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4}) == [("a", "b"), ("ab", "c")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("#version: 0.2\na b\nabc\n", r"merges\.txt:3: expected two tokens", id="one-part"),
        pytest.param("a b\nab c d\n", r"merges\.txt:2: expected two tokens", id="three-parts"),
        pytest.param("a b\na  b\n", r"merges\.txt:2: expected two tokens", id="double-space"),
        pytest.param("a b\nab x\n", r"merges\.txt:2: 'x' \(from merge 'ab x'\) is not in the vocabulary", id="part"),
        pytest.param("a c\n", r"merges\.txt:1: 'ac' \(from merge 'a c'\) is not in the vocabulary", id="result"),
    ],
)
def test_bad_merges_name_file_and_line(tmp_path, text, message):
    path = tmp_path / "merges.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        read_merges(path, {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param('{"a": 0,', "not valid JSON", id="not-json"),
        pytest.param('["a"]', "expected a JSON object", id="list"),
        pytest.param('{"a": -1}', "token 'a' has id -1", id="negative"),
        pytest.param('{"a": "0"}', "token 'a' has id '0'", id="string-id"),
        pytest.param('{"a": true}', "token 'a' has id True", id="bool-id"),
        pytest.param('{"a": 0, "b": 0}', "tokens 'a' and 'b' both have id 0", id="shared-id"),
    ],
)
def test_bad_vocab_names_file_and_token(tmp_path, text, message):
    path = tmp_path / "vocab.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as error:
        read_vocab(path)
    assert str(path) in str(error.value)


def test_missing_and_directory_paths_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"nowhere\.json: no such file"):
        read_vocab(tmp_path / "nowhere.json")
    with pytest.raises(IsADirectoryError, match="is a directory"):
        read_merges(tmp_path)


def test_invalid_utf8_names_line_and_offset(tmp_path):
    path = tmp_path / "merges.txt"
    path.write_bytes(b"a b\nc \xff\n")
    with pytest.raises(ValueError, match=r"merges\.txt:2: invalid UTF-8 at byte offset 6"):
        read_merges(path)


def test_failed_write_leaves_directory_as_it_was(tmp_path):
    (tmp_path / "vocab.json").write_text("old vocab", encoding="utf-8")
    with pytest.raises(TypeError):
        write_files(tmp_path, {"vocab.json": "new vocab", "merges.txt": None})  # type: ignore[dict-item]
    assert (tmp_path / "vocab.json").read_text(encoding="utf-8") == "old vocab"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["vocab.json"]


def test_output_path_that_is_a_file_is_refused(tmp_path):
    target = tmp_path / "taken"
    target.write_text("x", encoding="utf-8")
    with pytest.raises(NotADirectoryError, match="taken: is a file"):
        write_files(target, {"vocab.json": "{}"})


def test_special_token_roles():
    assert special_token_roles(["<pad>", "<|endoftext|>"])["eos_token"] == "<|endoftext|>"
    assert special_token_roles(["<s>"]) == dict.fromkeys(("bos_token", "eos_token", "unk_token", "pad_token"))
    with pytest.raises(ValueError, match="'<x>' is not one of the special tokens"):
        special_token_roles(["<s>"], {"eos_token": "<x>"})
