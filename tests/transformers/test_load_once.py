"""Loading reads each version of a ``tokenizer.json`` once, and no version twice by mistake: within one
:func:`hf_bpe.from_pretrained` the parse that decides the class is the one the class reads
(:func:`hf_bpe.tokenizer.serialization.parsing_once`), and the classes' cache of loaded files knows a file by its
content, so a file rewritten at the same size within the file system's clock tick (its ``st_mtime_ns`` unchanged)
loads anew. Judged by the Rust backend (``PreTrainedTokenizerFast``) loading the same file."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

import hf_bpe
from hf_bpe.tokenizer.directory import BYTE_LEVEL, PIPELINE, tokenizer_kind

CORPUS = ["hug pug hug bun", "the quick brown fox", "pugs hug buns", "a bun for the pug"] * 20
TEXT = "hug the pug, a quick bun"


def _byte_level(path: Path) -> None:
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    tokenizer.save(str(path))


def _wordpiece(path: Path) -> None:
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(vocab_size=200, special_tokens=["[UNK]"], show_progress=False)
    tokenizer.train_from_iterator(CORPUS, trainer)
    tokenizer.save(str(path))


MAKERS = {BYTE_LEVEL: _byte_level, PIPELINE: _wordpiece}


def _swapped_ids(path: Path, text: str) -> str:
    """The file's text with the ids of two tokens of ``text``'s encoding swapped: the same size, other ids."""
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    vocab = document["model"]["vocab"]
    used = Tokenizer.from_file(str(path)).encode(text).ids
    tokens = {token_id: token for token, token_id in vocab.items()}
    first, second = [i for i in sorted(set(used)) if len(str(i)) == len(str(max(used)))][:2]
    vocab[tokens[first]], vocab[tokens[second]] = second, first
    return json.dumps(document, ensure_ascii=False, indent=2)


def counting_parses(monkeypatch: pytest.MonkeyPatch, *, by_hf_bpe_only: bool = False) -> list[str]:
    """Every ``json.loads`` of a tokenizer.json (a document with a ``"model"``) from now on, until
    ``monkeypatch.undo()``, transformers' on hf_bpe's behalf included (``by_hf_bpe_only``: hf_bpe's own only, where
    a Rust backend reads the file too), with no file kept loaded from before."""
    from hf_bpe.transformers import bpe, pipeline

    bpe._loaded.cache_clear()  # no file read by an earlier test
    pipeline.loaded_file.cache_clear()
    parsed: list[str] = []
    real_loads = json.loads

    def counting_loads(text: str | bytes, **kwargs: Any) -> Any:
        ours = not by_hf_bpe_only or sys._getframe(1).f_globals.get("__name__", "").startswith("hf_bpe.")
        if ours and '"model"' in (text if isinstance(text, str) else text.decode()):
            parsed.append("tokenizer.json")
        return real_loads(text, **kwargs)

    monkeypatch.setattr(json, "loads", counting_loads)
    return parsed


@pytest.mark.parametrize("kind", list(MAKERS))
def test_a_file_rewritten_at_the_same_size_and_time_loads_anew(kind, tmp_path):
    path = tmp_path / "tokenizer.json"
    MAKERS[kind](path)
    first_text = json.dumps(json.loads(path.read_text(encoding="utf-8")), ensure_ascii=False, indent=2)
    second_text = _swapped_ids(path, TEXT)
    assert len(first_text.encode()) == len(second_text.encode()) and first_text != second_text
    path.write_text(first_text, encoding="utf-8")
    before = os.stat(path)
    assert tokenizer_kind(path).tokenizer_class == kind  # type: ignore[union-attr]
    first = hf_bpe.from_pretrained(path)(TEXT)["input_ids"]
    assert first == PreTrainedTokenizerFast(tokenizer_file=str(path))(TEXT)["input_ids"]

    # Rewritten in place, its modification time set back: what a rewrite within one clock tick leaves.
    path.write_text(second_text, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (os.stat(path).st_size, os.stat(path).st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    second = hf_bpe.from_pretrained(path)(TEXT)["input_ids"]
    rust = PreTrainedTokenizerFast(tokenizer_file=str(path))(TEXT)["input_ids"]
    assert second == rust != first


@pytest.mark.parametrize("kind", list(MAKERS))
def test_from_pretrained_parses_the_file_once(kind, tmp_path, monkeypatch):
    path = tmp_path / "tokenizer.json"
    MAKERS[kind](path)
    parsed = counting_parses(monkeypatch)
    ours = hf_bpe.from_pretrained(path)(TEXT)["input_ids"]
    monkeypatch.undo()
    assert parsed == ["tokenizer.json"]
    assert ours == PreTrainedTokenizerFast(tokenizer_file=str(path))(TEXT)["input_ids"]


@pytest.mark.parametrize("kind", list(MAKERS))
def test_from_pretrained_reads_and_hashes_the_file_once(kind, tmp_path, monkeypatch):
    path = tmp_path / "tokenizer.json"
    MAKERS[kind](path)
    read: list[Path] = []
    real_read_bytes = Path.read_bytes

    def counting_read_bytes(self: Path) -> bytes:
        read.append(self)
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", counting_read_bytes)
    ours = hf_bpe.from_pretrained(path)(TEXT)["input_ids"]
    monkeypatch.undo()
    assert [p.resolve() for p in read] == [path.resolve()]
    assert ours == PreTrainedTokenizerFast(tokenizer_file=str(path))(TEXT)["input_ids"]


@pytest.mark.parametrize("kind", list(MAKERS))
def test_the_command_line_parses_the_file_once(kind, tmp_path, monkeypatch, capsys):
    from hf_bpe.cli import main

    MAKERS[kind](tmp_path / "tokenizer.json")
    parsed = counting_parses(monkeypatch)
    assert main(["encode", str(tmp_path), TEXT, "--json"]) == 0
    monkeypatch.undo()
    assert parsed == ["tokenizer.json"]
    rust = PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "tokenizer.json"))(TEXT)["input_ids"]
    assert json.loads(capsys.readouterr().out)["ids"] == rust


def test_from_pretrained_of_a_real_directory_parses_its_file_once(monkeypatch):
    from real_tokenizers import model_tokenizer_json

    from hf_bpe.transformers import bpe

    directory = model_tokenizer_json("llama3").parent  # tokenizer.json alone: transformers' legacy branch
    bpe._loaded.cache_clear()
    parsed: list[str] = []
    real_loads = json.loads

    def counting_loads(text: str | bytes, **kwargs: Any) -> Any:
        if '"model"' in (text if isinstance(text, str) else text.decode()):
            parsed.append("tokenizer.json")
        return real_loads(text, **kwargs)

    def counting_load(handle: Any, **kwargs: Any) -> Any:
        return counting_loads(handle.read(), **kwargs)

    monkeypatch.setattr(json, "loads", counting_loads)
    monkeypatch.setattr(json, "load", counting_load)
    ours = hf_bpe.from_pretrained(directory)
    monkeypatch.undo()
    assert parsed == ["tokenizer.json"]
    rust = PreTrainedTokenizerFast.from_pretrained(str(directory))
    assert {i: (str(t), t.special, t.normalized) for i, t in ours.added_tokens_decoder.items()} == {
        i: (str(t), t.special, t.normalized) for i, t in rust.added_tokens_decoder.items()
    }
    text = "<|begin_of_text|>hug the pug<|eot_id|> " + TEXT
    assert ours(text)["input_ids"] == rust(text)["input_ids"]
    assert (ours.bos_token, ours.eos_token) == (rust.bos_token, rust.eos_token)
