"""Hostile input and interruptions: clear one-line errors, nothing half-written, correct ids on hostile text."""

from __future__ import annotations

import os
import random
import signal
import struct
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from conftest import reference_train
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hf_bpe.counting.counting
import hf_bpe.models.bpe.files
from hf_bpe import cli
from hf_bpe.models.bpe.training import train_from_files


def run(*args, **options):
    return subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", *map(str, args)], capture_output=True, text=True, timeout=300, **options
    )


def snapshot(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())}


@pytest.fixture
def previous_output(tmp_path):
    """An output directory from an earlier run, which failed or interrupted runs must leave exactly as it is."""
    out = tmp_path / "out"
    source = tmp_path / "earlier.txt"
    source.write_text("an earlier corpus\n" * 20, encoding="utf-8")
    assert run("train", source, "-o", out, "--vocab-size", "270", "--no-progress").returncode == 0
    return out


def test_directory_given_as_file(tmp_path, previous_output):
    before = snapshot(previous_output)
    done = run("train", tmp_path, "-o", previous_output, "--no-progress", "--force")
    assert done.returncode == 1
    assert done.stderr.strip() == f"hf-bpe: error: {tmp_path}: is a directory, expected a text file"
    assert snapshot(previous_output) == before


def test_unreadable_file_is_named(tmp_path, monkeypatch, capsys):
    path = tmp_path / "secret.txt"
    path.write_text("text\n", encoding="utf-8")

    def refuse(name, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(name))

    monkeypatch.setattr(hf_bpe.counting.counting, "open", refuse, raising=False)
    status = cli.main(["train", str(path), "-o", str(tmp_path / "out"), "--workers", "1", "--no-progress"])
    assert status == 1
    error = capsys.readouterr().err
    assert error.startswith("hf-bpe: error: ") and "Permission denied" in error and str(path) in error
    assert not (tmp_path / "out").exists()


def test_unwritable_output_directory_is_named_and_left_alone(tmp_path, previous_output, monkeypatch, capsys):
    before = snapshot(previous_output)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(hf_bpe.atomic.tempfile, "mkstemp", refuse)
    source = tmp_path / "a.txt"
    source.write_text("hello world\n", encoding="utf-8")
    argv = ["train", str(source), "-o", str(previous_output), "--workers", "1", "--no-progress", "--force"]
    status = cli.main(argv)
    assert status == 1
    assert (
        capsys.readouterr().err.strip() == f"hf-bpe: error: {previous_output}: cannot write there (Permission denied)"
    )
    assert snapshot(previous_output) == before


def test_invalid_utf8_replaced_on_request_and_counted(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_bytes(b"good line\nbad \xff line\nalso \xc3 bad\nfine\n")
    done = run("train", path, "-o", tmp_path / "out", "--vocab-size", "300", "--encoding-errors", "replace",
               "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "replaced invalid UTF-8 with U+FFFD on 2 line(s)" in done.stderr
    replaced = tmp_path / "replaced.txt"
    replaced.write_bytes(path.read_bytes().decode("utf-8", "replace").encode("utf-8"))
    expected = reference_train([replaced], tmp_path / "ref", vocab_size=300)
    assert (tmp_path / "out" / "merges.txt").read_text(encoding="utf-8") == expected[1]


def test_empty_corpus_and_tiny_vocab_warn_and_match_reference(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    done = run("train", empty, "-o", tmp_path / "out", "--special-tokens", "<s>", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "nothing to merge (is the corpus empty?)" in done.stderr
    assert (tmp_path / "out" / "vocab.json").read_text(encoding="utf-8") == reference_train(
        [empty], tmp_path / "ref", special_tokens=["<s>"]
    )[0]
    small = tmp_path / "small.txt"
    small.write_text("hello hello\n", encoding="utf-8")
    done = run("train", small, "-o", tmp_path / "out2", "--vocab-size", "10", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "--vocab-size 10 is below the alphabet plus special tokens; the vocabulary has 256 tokens" in done.stderr
    assert (tmp_path / "out2" / "vocab.json").read_text(encoding="utf-8") == reference_train(
        [small], tmp_path / "ref2", vocab_size=10
    )[0]


@pytest.mark.parametrize(
    ("tokens", "message"),
    [(["<s>", "<s>"], "special token '<s>' is given twice"), (["<s>", ""], "special token '': special tokens must")],
    ids=["duplicate", "empty"],
)
def test_bad_special_tokens(tmp_path, tokens, message):
    source = tmp_path / "a.txt"
    source.write_text("text\n", encoding="utf-8")
    done = run("train", source, "-o", tmp_path / "out", "--special-tokens", *tokens, "--no-progress")
    assert done.returncode == 2  # a bad option value: a usage error
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory):
    """Many distinct random words (about 8 MB): still counting or merging when the signal comes."""
    path = tmp_path_factory.mktemp("big") / "big.txt"
    rng = random.Random(11)
    letters = "abcdefghijklmnopqrstuvwxyzéüßабвгд"
    lines = (" ".join("".join(rng.choices(letters, k=rng.randint(2, 12))) for _ in range(12)) for _ in range(100_000))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sig", "status", "message"),
    [
        (signal.SIGINT, 130, "hf-bpe: interrupted; nothing was written"),
        (signal.SIGTERM, 143, "hf-bpe: terminated; nothing was written"),
    ],
    ids=["sigint", "sigterm"],
)
def test_signal_during_training_leaves_previous_output(big_corpus, previous_output, sig, status, message):
    before = snapshot(previous_output)
    process = subprocess.Popen(
        # --force: replacing the earlier output is asked for, and an interrupted run must still leave it whole
        [
            sys.executable,
            "-m",
            "hf_bpe.cli",
            "train",
            str(big_corpus),
            "-o",
            str(previous_output),
            "--workers",
            "2",
            "--force",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(3)  # imports done, counting or merging under way
    assert process.poll() is None, "training finished before the signal; make the corpus bigger"
    process.send_signal(sig)
    _out, err = process.communicate(timeout=300)  # how soon it stops is measured by scripts/bench_limits.py
    assert process.returncode == status, err
    assert err.strip().splitlines()[-1] == message
    assert "Traceback" not in err
    assert snapshot(previous_output) == before  # no temporary files, nothing replaced


def _write_half_a_result(fd: int) -> None:
    """A worker stopped while it writes its result: the length of a 1 MiB message, three bytes of it, no more."""
    os.write(fd, struct.pack("!i", 1 << 20) + b"abc")
    time.sleep(3600)


def test_pool_stops_when_a_worker_is_stopped_halfway_through_its_result():
    # The signal tests above hit this now and then (the pool's manager thread waited for the rest of the message
    # for ever); here it is made to happen every time.
    pool = ProcessPoolExecutor(1, initializer=hf_bpe.counting.counting.leave_signals_to_parent)
    writer = pool._result_queue._writer
    pool.submit(_write_half_a_result, writer.fileno())
    time.sleep(1)  # the half message is in the pipe, and the manager thread reads it
    workers = list(pool._processes.values())
    stopping = threading.Thread(target=hf_bpe.counting.counting._stop_pool, args=(pool,), daemon=True)
    stopping.start()
    stopping.join(30)
    try:
        assert not stopping.is_alive(), "the pool's shutdown hung"
        assert workers and not any(process.is_alive() for process in workers)
    finally:
        writer.close()  # had it hung, this ends the manager thread (else the interpreter's exit would wait on it)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(min_size=0, max_size=300))
def test_random_bytes_train_like_reference_or_fail_clearly(tmp_path, data):
    path = tmp_path / "random.bin"
    path.write_bytes(data)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        with pytest.raises(ValueError, match=rf"random\.bin:{line}: invalid UTF-8 at byte offset {e.start}"):
            train_from_files([path], vocab_size=300, workers=1)
        return
    result = train_from_files([path], vocab_size=300, workers=1)
    vocab, merges = reference_train([path], tmp_path / "ref", vocab_size=300)
    from conftest import ours

    assert ours(result) == (vocab, merges)


def test_million_spaces_and_million_letter_word(gpt2_dir, gpt2_ours, gpt2_tiktoken):
    """Pre-tokens of a million characters. Both references' regex engines give up on a million spaces (stack
    size), so there the reference is the Rust BPE model applied to the two pre-tokens GPT-2's pattern makes."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    bpe = Tokenizer(models.BPE.from_file(str(gpt2_dir / "vocab.json"), str(gpt2_dir / "merges.txt")))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    spaces = " " * 1_000_000 + "x"
    assert gpt2_ours(spaces)["input_ids"] == bpe.encode(" " * 999_999).ids + bpe.encode(" x").ids
    rng = random.Random(3)
    word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(1_000_000))
    assert gpt2_ours(word)["input_ids"] == gpt2_tiktoken.encode(word)
    assert gpt2_ours.decode(gpt2_ours(word)["input_ids"]) == word


class _MakesDirectory:
    """Unpickling this runs ``os.mkdir(path)``: the proof that something unpickled."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (os.mkdir, (str(self.path),))


def test_loading_never_unpickles(tmp_path):
    """Every loader hf_bpe has, on directories holding pickles that would run code (a file that makes a
    directory when unpickled): beside valid files, and in place of them. Nothing runs."""
    import pickle

    probe = tmp_path / "probe"
    pickle.loads(pickle.dumps(_MakesDirectory(probe)))
    assert probe.is_dir()  # the payload is live
    marker = tmp_path / "unpickled"
    payload = pickle.dumps(_MakesDirectory(marker))

    from hf_bpe import BPETokenizer, CharBPETokenizer
    from hf_bpe.counting.counts_dir import iter_counts
    from hf_bpe.models.bpe.files import read_merges, read_tokenizer_json, read_vocab
    from hf_bpe.models.bpe.options import CharLevel
    from hf_bpe.models.bpe.training import train_from_counts, train_from_iterator

    byte_level, char_level, counts = tmp_path / "byte", tmp_path / "char", tmp_path / "counts"
    train_from_iterator(["hello world"] * 3, vocab_size=260, special_tokens=["<s>"]).save(byte_level)
    train_from_counts({"hello": 3, "world": 2}, vocab_size=20, char_level=CharLevel()).save(char_level)
    assert cli.main(["count", str(previous_corpus(tmp_path)), "-o", str(counts), "--no-progress"]) == 0
    for directory in (byte_level, char_level, counts):
        for name in ("tokenizer.pkl", "vocab.pkl", "pytorch_model.bin", "training_args.bin", "counts.pkl"):
            (directory / name).write_bytes(payload)
    BPETokenizer.from_pretrained(byte_level)("hello <s> world")
    CharBPETokenizer.from_pretrained(char_level)("hello world")
    from transformers import AutoTokenizer

    AutoTokenizer.from_pretrained(str(byte_level))("hello")
    sum(count for _, count in iter_counts(counts))
    trained = tmp_path / "from-counts"
    assert cli.main(["train", "--from-counts", str(counts), "-o", str(trained), "--vocab-size", "260"]) == 0
    # In place of the files themselves: a clear error, nothing run.
    bucket = next(counts.glob("bucket-*.jsonl"))
    for path in (byte_level / "vocab.json", byte_level / "merges.txt", byte_level / "tokenizer.json", bucket):
        path.write_bytes(payload)
    for load in (
        lambda: read_vocab(byte_level / "vocab.json"),
        lambda: read_merges(byte_level / "merges.txt"),
        lambda: read_tokenizer_json(byte_level / "tokenizer.json"),
        lambda: BPETokenizer.from_pretrained(byte_level),
        lambda: sum(count for _, count in iter_counts(counts)),
    ):
        with pytest.raises(ValueError):
            load()
    assert not marker.exists()


def previous_corpus(directory: Path) -> Path:
    path = directory / "corpus.txt"
    path.write_text("a small corpus to count\n" * 5, encoding="utf-8")
    return path


@pytest.mark.slow
def test_a_big_document(gpt2_dir, stdlib_files, tmp_path):
    """A 25 MB document encodes to tiktoken's ids. Nothing in the encoder depends on a document's size; the peak
    memory of a 100 MB one is measured by scripts/bench_limits.py."""
    block = "".join(path.read_text(encoding="utf-8") for path in stdlib_files)
    document = tmp_path / "big.txt"
    document.write_text(block * (25_000_000 // len(block.encode()) + 1), encoding="utf-8")
    code = f"""
import sys, numpy
from hf_bpe import BPETokenizer
from hf_bpe.reference.gpt2 import tiktoken_gpt2
text = open({str(document)!r}, encoding="utf-8").read()
ours = numpy.array(BPETokenizer.from_pretrained({str(gpt2_dir)!r})(text)["input_ids"], dtype=numpy.int32)
theirs = numpy.array(tiktoken_gpt2({str(gpt2_dir)!r}).encode_ordinary(text), dtype=numpy.int32)
print(len(text.encode()), len(ours), int((ours == theirs).all()) if len(ours) == len(theirs) else 0)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    size, tokens, same = map(int, done.stdout.split())
    assert size >= 25_000_000 and tokens > 5_000_000
    assert same == 1
