"""BPETokenizer inside ``datasets``: map with worker processes, pickling, and stable cache fingerprints."""

from __future__ import annotations

import multiprocessing
import pickle
import subprocess
import sys
import textwrap

import datasets
import dill
import pytest
from conftest import COURSE, multilingual_text
from datasets.fingerprint import Hasher

import hf_bpe


@pytest.fixture(scope="module")
def tok_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("tok")
    hf_bpe.train_from_iterator(
        [*COURSE, multilingual_text(300)], vocab_size=600, special_tokens=["<|endoftext|>"]
    ).save(directory)
    return directory


@pytest.fixture(scope="module")
def rows():
    return multilingual_text(400, seed=3).splitlines(keepends=True)


def test_map_with_two_processes_equals_a_loop(tok_dir, rows, tmp_path):
    tok = hf_bpe.BPETokenizer.from_pretrained(tok_dir)
    dataset = datasets.Dataset.from_dict({"text": rows})
    mapped = dataset.map(lambda batch: tok(batch["text"]), batched=True, num_proc=2, batch_size=50)
    assert mapped["input_ids"] == [tok(row)["input_ids"] for row in rows]
    assert mapped["attention_mask"] == [[1] * len(ids) for ids in mapped["input_ids"]]


def _encode_in_child(tok, text, queue):
    queue.put(tok(text)["input_ids"])


def test_pickle_dill_and_spawn(tok_dir):
    tok = hf_bpe.BPETokenizer.from_pretrained(tok_dir)
    text = "Hopefully, you will be able to understand<|endoftext|>"
    expected = tok(text)["input_ids"]
    assert pickle.loads(pickle.dumps(tok))(text)["input_ids"] == expected
    assert dill.loads(dill.dumps(tok))(text)["input_ids"] == expected
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_encode_in_child, args=(tok, text, queue))
    child.start()
    got = queue.get(timeout=120)
    child.join(timeout=60)
    assert got == expected


def test_fingerprint_unchanged_by_use(tok_dir, rows):
    tok = hf_bpe.BPETokenizer.from_pretrained(tok_dir)
    before = Hasher.hash(tok)
    tok(rows)
    tok.decode(tok("some text")["input_ids"])
    assert Hasher.hash(tok) == before


@pytest.mark.parametrize("model", ["wordpiece", "unigram"])
def test_fingerprint_of_the_other_models_unchanged_by_use(model, rows, tmp_path):
    """Their encoders' caches are not state either (the Unigram one's was pickled until 2026-11-24)."""
    texts = [*COURSE, multilingual_text(300)]
    if model == "wordpiece":
        from hf_bpe.models.wordpiece.training import train_wordpiece_from_iterator

        train_wordpiece_from_iterator(texts, vocab_size=400).save(tmp_path)
        tok = hf_bpe.WordPieceTokenizer.from_pretrained(tmp_path)
    else:
        from hf_bpe.models.unigram.files import write_unigram_dir
        from hf_bpe.models.unigram.trainer import UnigramOptions
        from hf_bpe.models.unigram.training import train_unigram_from_iterator
        from hf_bpe.transformers.unigram import UnigramTokenizer

        result = train_unigram_from_iterator(texts, UnigramOptions(vocab_size=400, unk_token="<unk>"))
        write_unigram_dir(tmp_path, result.pieces, result.unk_id, result.special_tokens)
        tok = UnigramTokenizer.from_pretrained(tmp_path)
    before = Hasher.hash(tok)
    assert len(tok(rows)["input_ids"]) == len(rows)
    assert Hasher.hash(tok) == before
    assert pickle.loads(pickle.dumps(tok))(rows)["input_ids"] == tok(rows)["input_ids"]


def test_fingerprint_same_in_two_fresh_processes(tok_dir):
    code = textwrap.dedent(
        f"""
        import hf_bpe
        from datasets.fingerprint import Hasher
        tok = hf_bpe.BPETokenizer.from_pretrained({str(tok_dir)!r})
        tok(["warm the cache", "with some text"])
        print(Hasher.hash(tok))
        """
    )
    hashes = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        for _ in range(2)
    ]
    assert hashes[0] == hashes[1] and len(hashes[0]) == 16


def test_second_identical_map_reuses_cache(tok_dir, rows, tmp_path):
    path = tmp_path / "rows.txt"
    path.write_text("".join(rows), encoding="utf-8")
    tok = hf_bpe.BPETokenizer.from_pretrained(tok_dir)
    cache_dir = str(tmp_path / "cache")
    dataset = datasets.load_dataset("text", data_files=str(path), cache_dir=cache_dir)["train"]

    def encode(batch):
        return tok(batch["text"])

    first = dataset.map(encode, batched=True)
    tok(["use the tokenizer in between", "so that its cache fills"])
    second = dataset.map(encode, batched=True)
    assert first.cache_files and first.cache_files == second.cache_files
    assert first._fingerprint == second._fingerprint
