"""CharBPETokenizer's ``BatchEncoding`` carries the Rust backend's rows: ``word_ids()``, ``tokens()``, offsets and
``sequence_ids()`` for texts and pairs, judged against ``PreTrainedTokenizerFast`` loading the same directory's
``tokenizer.json`` (BPE with ``end_of_word_suffix`` ``"</w>"`` behind ``WhitespaceSplit``, as ``tokenizers``'
``CharBPETokenizer`` writes it; with ``##`` and ``Lowercase`` too)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import multilingual_text
from transformers import PreTrainedTokenizerFast

import hf_bpe
from hf_bpe.models.bpe.options import CharLevel
from hf_bpe.transformers.char_bpe import CharBPETokenizer

LEVELS = {
    "suffix": CharLevel(),
    "prefix_and_suffix": CharLevel(continuing_subword_prefix="##"),
    "lowercase": CharLevel(lowercase=True),
}
EDGES = ["", "   ", "ÀÉÎ İstanbul ΟΔΟΣ", "a\u3000b\tc\n\nd  e", "<unk> xyz<unk>", "日本語のテキスト 2024"]


def both(level: CharLevel, directory: Path) -> tuple[CharBPETokenizer, PreTrainedTokenizerFast]:
    texts = multilingual_text(200, seed=4).splitlines()
    result = hf_bpe.train_from_iterator(
        texts, vocab_size=600, char_level=level, special_tokens=["<unk>"], progress=False
    )
    result.save(directory, roles={"unk_token": "<unk>"})
    ours = CharBPETokenizer.from_pretrained(str(directory))
    rust = PreTrainedTokenizerFast(tokenizer_file=str(directory / "tokenizer.json"), unk_token="<unk>")
    return ours, rust


def same_rows(ours, rust, *args, **options) -> None:
    mine = ours(*args, return_offsets_mapping=True, **options)
    theirs = rust(*args, return_offsets_mapping=True, **options)
    assert mine["input_ids"] == theirs["input_ids"]
    assert mine["offset_mapping"] == theirs["offset_mapping"]
    for row in range(len(theirs["input_ids"])):
        assert mine.tokens(row) == theirs.tokens(row)
        assert mine.word_ids(row) == theirs.word_ids(row)
        assert mine.sequence_ids(row) == theirs.sequence_ids(row)


@pytest.mark.parametrize("name", list(LEVELS))
def test_rows_give_the_rust_backends_word_ids_tokens_offsets_and_sequence_ids(name, tmp_path):
    ours, rust = both(LEVELS[name], tmp_path)
    lines = [*EDGES, *multilingual_text(30, seed=9).splitlines()]
    same_rows(ours, rust, lines)
    same_rows(ours, rust, lines[:-1], lines[1:])
    words = [line.split() for line in lines if line.split()]
    same_rows(ours, rust, words, is_split_into_words=True)


def test_tokens_added_after_loading_match_in_the_lowercased_text_as_the_rust_backends(tmp_path):
    """A token added with ``add_tokens`` is ``normalized``: ``AddedVocabulary`` matches it in the lowercased text, so
    ``"ist"`` takes the start of ``"Istanbul"`` (the Rust backend's tokens, ids, offsets and word ids, with ``##``,
    ``Lowercase`` and an unknown token)."""
    ours, rust = both(CharLevel(continuing_subword_prefix="##", lowercase=True), tmp_path)
    for tokenizer in (ours, rust):
        assert tokenizer.add_tokens(["ist", "<new>"]) == 2
    lines = ["Istanbul <new>x", "ISTANBUL ist mist", "Zebra ☃ İst", *multilingual_text(10, seed=3).splitlines()]
    assert rust.tokenize(lines[0])[:2] == ["ist", "an"]
    for line in lines:
        assert ours.tokenize(line) == rust.tokenize(line), line
        ids = rust(line)["input_ids"]
        assert ours.decode(ids) == rust.decode(ids), line
    same_rows(ours, rust, lines)
    same_rows(ours, rust, lines[:-1], lines[1:])


def test_a_prefix_only_tokenizer_decodes_as_the_rust_backend(tmp_path):
    """With a continuing-subword prefix and no end-of-word suffix, decoding is the file's ``BPEDecoder`` (its empty
    suffix put between every character, as ``str::replace`` does), as the Rust backend decodes the same file."""
    ours, rust = both(CharLevel(end_of_word_suffix=None, continuing_subword_prefix="##"), tmp_path)
    for line in ["Hello wonderful world, Zebra ❄", *multilingual_text(10, seed=5).splitlines()]:
        ids = rust(line)["input_ids"]
        assert ours(line)["input_ids"] == ids, line
        assert ours.decode(ids) == rust.decode(ids), line
        assert ours.decode(ids, skip_special_tokens=True) == rust.decode(ids, skip_special_tokens=True), line
