"""SymbolBPE's cut beside a character spelled by its bytes, judged by its Rust twin (``tokenizers.models.BPE`` with
``byte_fallback``, ``unk_token`` and ``fuse_unk``, and the Rust backend loading a real ``tokenizer.json``).

Where no merge takes a byte token (``<0xXX>``) as a part, as in every SentencePiece-converted file (Llama-2,
Mistral-7B, Gemma-3), a character outside the vocabulary is cut off on both sides: its byte tokens never merge, so
the text on either side merges on its own, and each piece is remembered (Mistral-7B's CJK text, most of whose
characters are bytes). Where a merge does take one, no cut is made there. Both sides of that switch, short and long
parts, first met and from the cache, in more than one order, give the Rust model's ids.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, models

import hf_bpe
from hf_bpe.models.bpe.symbols import SymbolBPE
from tests.real_tokenizers import model_tokenizer_json

CHARS = ["▁", "a", "b", "c", "d", "日"]
#: No merge takes a byte token: a character outside the vocabulary is cut off ("ab" "▁ab" "cd" "abcd" "日▁").
PLAIN = [("a", "b"), ("▁", "ab"), ("c", "d"), ("ab", "cd"), ("日", "▁")]
#: The same, and one merge of two byte tokens (ü's): no cut beside a character outside the vocabulary then.
BYTES = [*PLAIN, ("<0xC3>", "<0xBC>")]
#: Characters of the vocabulary and outside it: "x" (one byte), "ü" (whose two bytes merge in BYTES), "本", an emoji.
ALPHABET = [*CHARS, "x", "ü", "本", "\U0001f600"]
OPTIONS = {"unk_token": "<unk>", "fuse_unk": True, "byte_fallback": True}


def vocabulary(merges: list[tuple[str, str]]) -> dict[str, int]:
    tokens = ["<unk>", *CHARS, *(f"<0x{byte:02X}>" for byte in range(256)), *(left + right for left, right in merges)]
    return {token: index for index, token in enumerate(dict.fromkeys(tokens))}


def byte_ids(char: str) -> list[int]:
    """The ids of ``char``'s byte tokens (the same in both vocabularies)."""
    vocab = vocabulary(PLAIN)
    return [vocab[f"<0x{byte:02X}>"] for byte in char.encode("utf-8")]


def rust_ids(merges: list[tuple[str, str]], word: str) -> list[int]:
    model = models.BPE(vocab=vocabulary(merges), merges=merges, **OPTIONS)  # type: ignore[arg-type]
    return Tokenizer(model).encode(word).ids


@pytest.mark.parametrize("merges", [PLAIN, BYTES], ids=["no-byte-merge", "byte-merge"])
@settings(max_examples=150, deadline=None)
@given(words=st.lists(st.text(alphabet=st.sampled_from(ALPHABET), min_size=1, max_size=40), min_size=1, max_size=6))
def test_ids_are_the_rust_models_on_both_sides_of_the_byte_switch(merges, words):
    expected = [rust_ids(merges, word) for word in words]
    vocab = vocabulary(merges)
    model = SymbolBPE(vocab, merges, **OPTIONS)  # type: ignore[arg-type]
    assert [model.token_ids(word) for word in words] == expected
    assert model._bytes_merge() is (merges is BYTES)
    if merges is PLAIN:  # the fast side: a character outside the vocabulary is a piece of its own, not remembered
        outside = {char for word in words for char in word if char not in vocab}
        alone = {part for word in words for part in model._meta_parts(word)}  # a part of one character is kept
        assert {char: model._ids_cache.get(char) for char in outside - alone} == dict.fromkeys(outside - alone)
    assert [model.token_ids(word) for word in reversed(words)] == expected[::-1]
    fresh = SymbolBPE(vocabulary(merges), merges, **OPTIONS)  # type: ignore[arg-type]
    assert [[token_id for token_id, _ in fresh.tokenize(word)] for word in reversed(words)] == expected[::-1]
    assert [fresh.token_ids(word) for word in words] == expected


@pytest.mark.parametrize("word", ["ab本cd", "▁ab本x😀cd▁ab日▁", "▁ab" * 6 + "本cd本"], ids=["short", "mixed", "long"])
def test_a_byte_spelled_character_is_cut_off_where_no_merge_takes_a_byte(word):
    """The switch's sides: the text beside the character is remembered as pieces of its own ("cd") only where no
    merge takes a byte token; the character, a piece of one character, is its byte tokens with no look-up and is
    not remembered; the ids are the Rust model's either way, met first and from the cache."""
    for merges, cut in ((PLAIN, True), (BYTES, False)):
        model = SymbolBPE(vocabulary(merges), merges, **OPTIONS)  # type: ignore[arg-type]
        assert model.token_ids(word) == rust_ids(merges, word)
        assert model._bytes_merge() is not cut
        assert ("cd" in model._ids_cache) is cut
        assert "本" not in model._ids_cache
        assert model.token_ids(word) == rust_ids(merges, word)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama2", "gemma3"])
def test_real_files_encode_real_documents_as_the_rust_backend_in_two_orders(name, debian_corpora):
    """Mistral-7B's file (npm "llama2"), whose CJK characters are mostly bytes, and Gemma-3's: many documents of
    four languages through one instance, in two orders, against the Rust backend loading the same file; Mistral-7B's
    CJK characters are cut off as pieces of their own (the fast side of the switch)."""
    path = model_tokenizer_json(name)
    documents = _documents(debian_corpora)
    rust = Tokenizer.from_file(str(path))
    expected = [encoding.ids for encoding in rust.encode_batch(documents)]
    tok = hf_bpe.from_pretrained(path)
    model = tok.pipeline.model
    model.clear_cache()
    assert [tok(document)["input_ids"] for document in documents] == expected
    shuffled = list(range(len(documents)))
    random.Random(1).shuffle(shuffled)
    assert [tok(documents[index])["input_ids"] for index in shuffled] == [expected[index] for index in shuffled]
    assert not model._bytes_merge()
    if name == "llama2":  # a CJK character spelled by its bytes is a piece of one character: not looked up
        outside = next(char for char in "".join(documents) if "\u4e00" <= char <= "\u9fff" and char not in model.vocab)
        assert outside not in model._ids_cache


def _documents(corpora: dict[str, Path]) -> list[str]:
    """Forty-line documents from the first 60,000 characters of each language."""
    documents = []
    for language in ("english", "japanese", "chinese", "russian"):
        lines = corpora[language].read_text(encoding="utf-8")[:60_000].splitlines(keepends=True)
        documents += ["".join(lines[i : i + 40]) for i in range(0, len(lines), 40)]
    return documents


def test_a_full_cache_forgets_its_older_half_and_the_ids_stay_the_rust_models(monkeypatch):
    """Parts met lately stay remembered when the cache is full (as BytePairEncoder's cache does): emptying it all
    merged every part of a batch that changed language again (~4% more merges on the benchmark's mix)."""
    monkeypatch.setattr("hf_bpe.models.bpe.symbols.CACHE_SIZE", 4)
    words = ["▁ab", "▁cd", "▁abcd", "▁a本", "▁dc", "▁ba", "▁bd"]
    expected = [rust_ids(PLAIN, word) for word in words]
    model = SymbolBPE(vocabulary(PLAIN), PLAIN, **OPTIONS)  # type: ignore[arg-type]
    assert [model.token_ids(word) for word in words] == expected
    # Four kept at most ("本" alone is no look-up): "▁ab" "▁cd" forgotten at "▁a本", "▁abcd" "▁a" at "▁ba".
    assert list(model._ids_cache) == ["▁a本", "▁dc", "▁ba", "▁bd"]
    assert [model.token_ids(word) for word in reversed(words)] == expected[::-1]


def test_the_first_word_makes_every_table_a_part_may_need():
    """Made together at the first word, so that a batch makes them once before it forks (below): the pairs no merge
    crosses as ids and whether a merge takes a byte token were made only when a part first needed them."""
    model = SymbolBPE(vocabulary(PLAIN), PLAIN, **OPTIONS)  # type: ignore[arg-type]
    assert model.token_ids("▁ab") == rust_ids(PLAIN, "▁ab")
    assert model._joined_ids is not None and model._merges_bytes is False and model._cut_before_meta is not None
    words = ["▁ab本cd", "▁abcd" * 5 + "日"]  # one cut beside a byte-spelled character, one long part
    assert [model.token_ids(word) for word in words] == [rust_ids(PLAIN, word) for word in words]


def test_a_forked_batch_makes_the_models_tables_before_the_fork(monkeypatch, tmp_path):
    """``encode_texts`` encodes a first text before it shares a batch out, so each child inherits Mistral-7B's
    tables instead of making them again (Gemma-3's took ~0.3 s a process); the ids are the Rust backend's on the
    same file. The fork is replaced by running each share here, after looking at the model as a child would find
    it."""
    from transformers import PreTrainedTokenizerFast

    import hf_bpe.transformers.rows as rows

    path = tmp_path / "tokenizer.json"  # a file of its own: a model no other test has used
    path.write_bytes(model_tokenizer_json("llama2").read_bytes())
    texts = ["Hello world, 日本語の文です。", "Привет мир", "ab  cd\n\nef"] * 4
    tok = hf_bpe.from_pretrained(path)
    model = tok.pipeline.model
    assert model._cut_before_meta is None
    tables: list[bool] = []

    def run_here(jobs, name):
        tables.append(model._cut_before_meta is not None and model._joined_ids is not None)
        return [job() for job in jobs]

    monkeypatch.setattr(rows, "fork_processes", lambda: 2)
    monkeypatch.setattr(rows, "FORK_MIN_CHARS", 1)
    monkeypatch.setattr(rows, "run_forked", run_here)
    expected = PreTrainedTokenizerFast(tokenizer_file=str(path))(texts)["input_ids"]
    assert tok(texts)["input_ids"] == expected
    assert tables == [True]


@pytest.mark.parametrize("merges", [PLAIN, BYTES], ids=["no-byte-merge", "byte-merge"])
def test_a_parts_characters_are_looked_up_among_the_one_character_tokens(merges):
    """A part met first reads its characters' ids from the vocabulary's one-character tokens (a small table: Gemma-3's
    19,000 of 262,000), a character missing there spelled by its bytes; short and long parts, in and outside the
    vocabulary, give the Rust model's ids."""
    vocab = vocabulary(merges)
    model = SymbolBPE(vocab, merges, **OPTIONS)  # type: ignore[arg-type]
    words = ["▁abcd", "▁ab本cd▁", "▁dcba" * 5, "x▁ab" * 6 + "😀日▁"]
    assert [model.token_ids(word) for word in words] == [rust_ids(merges, word) for word in words]
    assert model._single_chars() == {token: token_id for token, token_id in vocab.items() if len(token) == 1}
    assert "ab" in vocab and "ab" not in model._single_chars()


def test_a_batch_whose_model_cannot_encode_a_space_alone_still_forks(monkeypatch, tmp_path):
    """The space encoded before the fork is for the tables alone: a word-level model with no unknown token, which
    refuses " " (as the Rust model refuses it), still encodes a batch of its own words, as the Rust backend does."""
    from tokenizers import models as rust_models
    from transformers import PreTrainedTokenizerFast

    import hf_bpe.transformers.rows as rows

    path = tmp_path / "tokenizer.json"
    Tokenizer(rust_models.WordLevel({"hello": 0, "world": 1}, unk_token="[UNK]")).save(str(path))
    texts = ["hello", "world"] * 6
    monkeypatch.setattr(rows, "fork_processes", lambda: 2)
    monkeypatch.setattr(rows, "FORK_MIN_CHARS", 1)
    monkeypatch.setattr(rows, "run_forked", lambda jobs, name: [job() for job in jobs])
    expected = PreTrainedTokenizerFast(tokenizer_file=str(path))(texts)["input_ids"]
    assert expected == [[0], [1]] * 6
    assert hf_bpe.from_pretrained(path)(texts)["input_ids"] == expected
