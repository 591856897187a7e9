"""``hf-bpe report`` and ``hf-bpe verify encode`` parse each directory's ``tokenizer.json`` once: the parse that
decides the directory's kind is the one its class reads (:func:`hf_bpe.tokenizer.serialization.parsing_once`).
Their figures are judged by the Rust backend reading the same file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tokenizers import Tokenizer

from tests.transformers.test_load_once import MAKERS, TEXT, counting_parses


@pytest.mark.parametrize("kind", list(MAKERS))
def test_report_parses_each_file_once(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    from hf_bpe.cli import main

    MAKERS[kind](tmp_path / "tokenizer.json")
    sample = tmp_path / "sample.txt"
    sample.write_text(f"{TEXT}\n{TEXT} again\n", encoding="utf-8")
    parsed = counting_parses(monkeypatch)
    assert main(["report", str(tmp_path), "--sample", str(sample), "--json"]) == 0
    monkeypatch.undo()
    assert parsed == ["tokenizer.json"]
    rust = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    tokens = len(rust.encode(sample.read_text(encoding="utf-8"), add_special_tokens=False).ids)
    assert json.loads(capsys.readouterr().out)[0]["per_language"][0]["tokens"] == tokens


@pytest.mark.parametrize("kind", list(MAKERS))
def test_verify_encode_parses_the_file_once(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hf_bpe.cli import main

    MAKERS[kind](tmp_path / "tokenizer.json")
    docs = tmp_path / "docs.txt"
    docs.write_text(f"{TEXT}\nthe pug and the bun\n", encoding="utf-8")
    parsed = counting_parses(monkeypatch, by_hf_bpe_only=True)  # the Rust backend reads it too
    assert main(["verify", "encode", "--tokenizer", str(tmp_path), str(docs), "--no-progress"]) == 0
    monkeypatch.undo()
    assert parsed == ["tokenizer.json"]
