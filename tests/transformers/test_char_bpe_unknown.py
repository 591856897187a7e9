"""A char-level tokenizer without an unknown token drops the characters it has not seen, as ``tokenizers`` does
(the judge: the Rust tokenizer loaded from the same ``tokenizer.json``), but never silently: saving it warns, and
encoding warns with the characters it dropped."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from tokenizers import Tokenizer
from transformers import PreTrainedTokenizerFast

import hf_bpe
from hf_bpe.cli import main
from hf_bpe.models.bpe.options import CharLevel
from hf_bpe.models.shortfall import TrainingWarning
from hf_bpe.transformers.char_bpe import CharBPETokenizer, DroppedCharactersWarning

COUNTS = {"low": 5, "lower": 2, "newest": 6, "widest": 3, "<unk>": 1}


def test_saving_without_an_unknown_token_warns_and_encoding_names_what_it_drops(tmp_path: Path):
    result = hf_bpe.train_from_counts(COUNTS, vocab_size=30, char_level=CharLevel())
    with pytest.warns(TrainingWarning, match="without an unknown token drops every character"):
        result.save(tmp_path)
    tokenizer = CharBPETokenizer.from_pretrained(str(tmp_path))
    rust = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    with pytest.warns(DroppedCharactersWarning, match=r"dropped 5 character\(s\) not in the vocabulary \('xyphe'\)"):
        ids = tokenizer("xylophone")["input_ids"]
    assert ids == rust.encode("xylophone").ids
    assert tokenizer.decode(ids) == rust.decode(rust.encode("xylophone").ids) == "loon"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tokenizer("lower newest")["input_ids"] == rust.encode("lower newest").ids


def test_with_an_unknown_token_nothing_is_dropped_and_nothing_warns(tmp_path: Path):
    result = hf_bpe.train_from_counts(COUNTS, vocab_size=30, char_level=CharLevel(), special_tokens=["<unk>"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result.save(tmp_path, roles={"unk_token": "<unk>"})
        tokenizer = CharBPETokenizer.from_pretrained(str(tmp_path))
        ids = tokenizer("xylophone")["input_ids"]
    rust = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    assert ids == rust.encode("xylophone").ids
    assert tokenizer.convert_ids_to_tokens(ids).count("<unk>") == 5


def test_the_command_line_says_so_at_training_and_when_encoding(tmp_path: Path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower newest widest\n" * 20, encoding="utf-8")
    out = tmp_path / "char"
    assert main(["train", str(corpus), "-o", str(out), "--char-level", "--vocab-size", "40", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "hf-bpe: warning: char-level BPE without an unknown token drops" in err
    assert "give --unk-token to keep their place" in err
    assert main(["encode", str(out), "xylophone", "--json"]) == 0
    captured = capsys.readouterr()
    assert "hf-bpe: warning: dropped 5 character(s) not in the vocabulary ('xyphe')" in captured.err
    assert '"ids": ' + str(Tokenizer.from_file(str(out / "tokenizer.json")).encode("xylophone").ids) in captured.out


def test_a_token_added_after_loading_is_not_taken_for_dropped_characters(tmp_path: Path):
    """``add_tokens`` makes a ``normalized`` token, matched in the normalized text before the model: its characters
    reach no word, so none is dropped and none is named; the characters that are dropped still are (the judge: the
    Rust backend loading the same file, given the same token)."""
    with pytest.warns(TrainingWarning):
        hf_bpe.train_from_counts(COUNTS, vocab_size=30, char_level=CharLevel()).save(tmp_path)
    tokenizer = CharBPETokenizer.from_pretrained(str(tmp_path))
    rust = PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "tokenizer.json"))
    for each in (tokenizer, rust):
        each.add_tokens(["[qq]"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tokenizer("lower [qq]newest")["input_ids"] == rust("lower [qq]newest")["input_ids"]
        assert tokenizer.tokenize("low[qq]") == rust.tokenize("low[qq]") == ["low</w>", "[qq]"]
    with pytest.warns(DroppedCharactersWarning, match=r"dropped 2 character\(s\) not in the vocabulary \('xy'\)"):
        ids = tokenizer("x[qq]y", return_offsets_mapping=True)
    assert ids.data == rust("x[qq]y", return_offsets_mapping=True).data
