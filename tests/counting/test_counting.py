"""Pre-token counting against ``tokenizers``' own pre-tokenizer and trainer."""

from __future__ import annotations

import gc
import hashlib
import os
import subprocess
import sys
import weakref
from collections import Counter

import pytest
from conftest import REPO, multilingual_text, ours, reference_train
from tokenizers import pre_tokenizers

from hf_bpe.counting import counting
from hf_bpe.counting.counting import count_dataset, count_files, count_sequences, counting_settings
from hf_bpe.counting.counts_dir import (
    CountsDirectory,
    bucket_file_name,
    bucket_of,
    iter_counts,
    write_counts,
)
from hf_bpe.models.bpe.training import (
    train_from_count_directory,
    train_from_counts,
    train_from_files,
)
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer


def reference_counts(sequences, *, add_prefix_space=False) -> Counter[str]:
    """What the reference's ByteLevel pre-tokenizer makes of each sequence, counted."""
    pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    return Counter(piece for sequence in sequences for piece, _ in pre_tokenizer.pre_tokenize_str(sequence))


@pytest.mark.parametrize("add_prefix_space", [False, True], ids=["plain", "prefix-space"])
def test_files_are_counted_line_by_line(tmp_path, add_prefix_space):
    text = multilingual_text(500, seed=11) + "last line without end  "
    path = tmp_path / "a.txt"
    path.write_text(text, encoding="utf-8", newline="")
    lines = [line + "\n" for line in text.split("\n")[:-1]] + [text.split("\n")[-1]]
    result = count_files([path], add_prefix_space=add_prefix_space, workers=1)
    assert result.counts == reference_counts(lines, add_prefix_space=add_prefix_space)
    assert result.lines == len(lines) and result.bytes_read == len(text.encode())


def test_white_space_never_crosses_a_line_end(tmp_path):
    """``a\\n  \\nb`` cut whole would give ``\\n  ``; line by line it is ``\\n`` then ``  \\n``."""
    path = tmp_path / "a.txt"
    path.write_bytes(b"a\n  \nb\r\n\r\n \t \r \n")
    counts = count_files([path], workers=1).counts
    assert counts == reference_counts(["a\n", "  \n", "b\r\n", "\r\n", " \t \r \n"])
    assert "ĠĠĊ" in counts and "ĊĠĠ" not in counts


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_shards_and_workers_give_the_same_counts(tmp_path, monkeypatch, workers):
    monkeypatch.setattr(counting, "SHARD_BYTES", 3000)
    monkeypatch.setattr(counting, "BLOCK_BYTES", 700)
    paths = []
    for seed in range(3):
        path = tmp_path / f"{seed}.txt"
        path.write_text(multilingual_text(300, seed), encoding="utf-8", newline="")
        paths.append(path)
    result = count_files(paths, workers=workers)
    expected: Counter[str] = Counter()
    for path in paths:
        text = path.read_bytes().decode("utf-8")
        pieces = text.split("\n")
        expected += reference_counts([p + "\n" for p in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else []))
    assert result.counts == expected
    assert ours(train_from_counts(result.counts, vocab_size=1000)) == reference_train(
        paths, tmp_path / "ref", vocab_size=1000
    )


def test_counts_add_up_across_parts():
    texts = multilingual_text(200, seed=5).split("\n")
    whole = count_sequences(texts)
    assert count_sequences(texts[:77]) + count_sequences(texts[77:]) == whole
    assert whole == reference_counts(texts)


def test_an_iterator_item_is_one_sequence_and_batches_flatten():
    items = ["one\n\n  two", ["three  \n", "four"], ("five",)]
    assert count_sequences(items) == reference_counts(["one\n\n  two", "three  \n", "four", "five"])
    with pytest.raises(TypeError, match=r"item 1 of the training iterator is a int"):
        count_sequences(["ok", 3])


def test_dataset_column():
    import datasets

    rows = multilingual_text(100, seed=2).split("\n")
    dataset = datasets.Dataset.from_dict({"text": rows})
    assert count_dataset(dataset, "text", batch_size=7) == reference_counts(rows)


def test_invalid_utf8_names_file_line_and_offset(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"fine\nstill fine\nbad \xff here\nok\n")
    with pytest.raises(ValueError, match=r"bad\.txt:3: invalid UTF-8 at byte offset 20"):
        count_files([path], workers=1)
    # The reference refuses such a file too.
    with pytest.raises(Exception, match="UTF-8"):
        reference_train([path], tmp_path / "ref")
    result = count_files([path], workers=1, errors="replace")
    assert result.replaced_lines == 1 and result.lines == 4
    assert result.counts == reference_counts(["fine\n", "still fine\n", "bad \ufffd here\n", "ok\n"])


def test_missing_file_and_bad_options(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"nope\.txt: no such file"):
        count_files([tmp_path / "nope.txt"])
    with pytest.raises(ValueError, match="errors='ignore'"):
        count_files([], errors="ignore")
    with pytest.raises(ValueError, match="workers=0"):
        count_files([], workers=0)


@pytest.mark.parametrize("add_prefix_space", [False, True], ids=["plain", "prefix-space"])
def test_repeated_lines_count_as_often_as_they_occur(tmp_path, add_prefix_space):
    """Lines that repeat (blank lines, markup) are cut once and counted once per occurrence."""
    lines = [".PP\n", "\n", "  indented  \n", "Ünïcode wörds\r\n", ".PP\n", "\n", "once only\n", "\n", ".PP\n"] * 7
    path = tmp_path / "a.txt"
    path.write_text("".join(lines), encoding="utf-8", newline="")
    result = count_files([path], add_prefix_space=add_prefix_space, workers=1)
    assert result.counts == reference_counts(lines, add_prefix_space=add_prefix_space)
    assert result.counts["PP"] == 3 * 7
    sequences = [line.rstrip("\n") for line in lines]
    assert count_sequences(sequences, add_prefix_space=add_prefix_space) == reference_counts(
        sequences, add_prefix_space=add_prefix_space
    )


def test_a_small_corpus_is_shared_among_the_workers(tmp_path, monkeypatch):
    """A file below SHARD_BYTES is still cut into several ranges, so that every worker has a share of it."""
    monkeypatch.setattr(counting, "MIN_SHARD_BYTES", 1000)
    path = tmp_path / "a.txt"
    path.write_text(multilingual_text(300, 3), encoding="utf-8", newline="")
    size = path.stat().st_size
    assert 8000 < size < counting.SHARD_BYTES
    shards: list[int] = []
    shared = count_files([path], workers=2, progress=shards.append)
    assert len(shards) == 2 * counting.SHARDS_PER_WORKER
    assert sum(shards) == size
    assert shared.counts == count_files([path], workers=1).counts


def shard_counts(job: int) -> Counter[str]:
    """A stand-in for one shard's counts (run in a worker)."""
    return Counter({f"w{job}-{n}": n for n in range(2000)})


def test_each_shards_counts_are_let_go_once_counted_in():
    """The pool's results do not pile up: each is released once the caller has it (the shards' futures used to
    keep every one to the end: counting 1.2 GB of kernel source peaked at 504 MiB, 192 MiB since)."""
    alive = []
    for result in counting._pool_map(shard_counts, list(range(60)), 2):
        assert result == shard_counts(len(alive))
        alive.append(weakref.ref(result))
        del result
        gc.collect()
        assert sum(ref() is not None for ref in alive) <= 1, len(alive)
    assert len(alive) == 60


def test_a_counts_directory_reads_as_the_counts_it_holds(tmp_path):
    """``CountsDirectory`` (what ``train_from_count_directory`` trains on without a table of every pre-token) is the
    counts written, in ``iter_counts``' order, also where a bucket holds a pre-token's partial counts twice (as
    datatrove's tasks write them); and training on it gives the reference's merges."""
    text = multilingual_text(120, seed=9)
    counts = count_sequences([text])
    write_counts(tmp_path / "counts", counts, settings=counting_settings(PreTokenizer(), "strict"), buckets=4)
    view = CountsDirectory(tmp_path / "counts")
    assert dict(view.items()) == dict(counts) and list(view) == [key for key, _ in iter_counts(tmp_path / "counts")]
    assert len(view) == len(counts) and view["Ġthe"] == counts["Ġthe"] and "no such" not in view
    bucket = tmp_path / "counts" / bucket_file_name(bucket_of("Ġthe", 4))
    bucket.write_text(bucket.read_text(encoding="utf-8") + '["Ġthe", 5]\n', encoding="utf-8")
    assert view["Ġthe"] == counts["Ġthe"] + 5 and len(CountsDirectory(tmp_path / "counts")) == len(counts)
    bucket.write_text(bucket.read_text(encoding="utf-8").removesuffix('["Ġthe", 5]\n'), encoding="utf-8")
    expected = reference_train([text], tmp_path / "ref", files=False, vocab_size=700)
    assert ours(train_from_count_directory(tmp_path / "counts", vocab_size=700, progress=False)) == expected


def test_special_tokens_are_text_unless_excluded(tmp_path):
    """The reference counts special tokens found in the text as ordinary text (tokenizers#1616)."""
    path = tmp_path / "a.txt"
    path.write_text("hello<|endoftext|>world <|endoftext|> hello\n" * 20, encoding="utf-8")
    specials = ["<|endoftext|>"]
    default = train_from_files([path], vocab_size=320, special_tokens=specials, workers=1)
    assert ours(default) == reference_train([path], tmp_path / "ref", vocab_size=320, special_tokens=specials)
    assert "<|" in count_files([path], special_tokens=specials, workers=1).counts
    excluded = count_files([path], special_tokens=specials, exclude_special_tokens=True, workers=1).counts
    assert excluded == reference_counts(["hello", "world ", " hello\n"] * 20)
    assert not any("|" in key for key in excluded)


DETERMINISM_SCRIPT = """
import hashlib, sys
from hf_bpe.counting import counting
from hf_bpe.models.bpe.files import format_merges, format_vocab
from hf_bpe.models.bpe.training import train_from_files
counting.SHARD_BYTES = 5000
result = train_from_files(sys.argv[2:], vocab_size=1200, workers=int(sys.argv[1]))
print(hashlib.sha256((format_vocab(result.vocab) + format_merges(result.merges)).encode()).hexdigest())
"""


def test_same_result_for_any_worker_count_and_hash_seed(tmp_path):
    paths = []
    for seed in range(2):
        path = tmp_path / f"{seed}.txt"
        path.write_text(multilingual_text(400, seed), encoding="utf-8", newline="")
        paths.append(str(path))
    vocab_text, merges_text = reference_train(paths, tmp_path / "ref", vocab_size=1200)
    expected = hashlib.sha256((vocab_text + merges_text).encode()).hexdigest()
    for workers, seed in [(1, "0"), (2, "1"), (3, "12345"), (2, "random")]:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        output = subprocess.run(
            [sys.executable, "-c", DETERMINISM_SCRIPT, str(workers), *paths],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=REPO,
        ).stdout.strip()
        assert output == expected, (workers, seed)
