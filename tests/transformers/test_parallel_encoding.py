"""A big batch is encoded in forked processes (:mod:`hf_bpe.processes`, ``EncodingRowsTokenizer.encode_texts``):
the ids are the Rust backend's, in the batch's order, with every option that goes through it; parallelism turns
off as the Rust tokenizers' does; a child's failure is raised in the parent and no child outlives a call.
"""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest
from conftest import multilingual_text

from hf_bpe.processes import fork_processes, run_forked
from hf_bpe.transformers import rows as encoding_rows


def documents(lines: int, seed: int) -> list[str]:
    """Documents of 1 to 22 lines of mixed scripts, so that the processes' stripes differ in length and cost."""
    text = multilingual_text(lines, seed).splitlines(keepends=True)
    docs, start, size = [], 0, 1
    while start < len(text):
        docs.append("".join(text[start : start + size]))
        start, size = start + size, size % 20 + 3
    return docs


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of jobs of each ``run_forked`` call a tokenizer makes; batches of 2000 characters fork, into 3
    processes (whatever this machine's CPUs)."""
    calls: list[int] = []

    def recording(jobs, name):  # type: ignore[no-untyped-def]
        calls.append(len(jobs))
        return run_forked(jobs, name)

    monkeypatch.setattr(encoding_rows, "run_forked", recording)
    monkeypatch.setattr(encoding_rows, "FORK_MIN_CHARS", 2000)
    monkeypatch.setattr(encoding_rows, "fork_processes", lambda: 3)
    return calls


@pytest.fixture(scope="module")
def batch() -> list[str]:
    return documents(1500, seed=11)


def test_a_big_batch_is_encoded_in_processes_with_the_rust_backends_ids(gpt2_ours, gpt2_rust, batch, forks):
    gpt2_ours.bpe.clear_cache()
    ours = gpt2_ours(batch)["input_ids"]
    assert forks == [3]
    assert ours == gpt2_rust(batch)["input_ids"]
    assert len(ours) == len(batch) > 100


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({"truncation": True, "max_length": 40, "padding": True}, id="truncation-padding"),
        pytest.param({"padding": "max_length", "max_length": 600, "return_length": True}, id="max-length"),
        pytest.param({"return_overflowing_tokens": True, "truncation": True, "max_length": 30}, id="overflowing"),
    ],
)
def test_rows_built_from_ids_encoded_in_processes_are_the_rust_backends(gpt2_ours, gpt2_rust, batch, forks, options):
    gpt2_ours.pad_token = gpt2_rust.pad_token = "<|endoftext|>"
    try:
        ours = gpt2_ours(batch, **options)
        theirs = gpt2_rust(batch, **options)
    finally:
        gpt2_ours.pad_token = gpt2_rust.pad_token = None
    assert forks == [3]
    assert dict(ours) == dict(theirs)


def test_pairs_are_encoded_in_processes_in_their_order(gpt2_ours, gpt2_rust, batch, forks):
    firsts, seconds = batch[: len(batch) // 2], batch[len(batch) // 2 :][: len(batch) // 2]
    ours = gpt2_ours(firsts, seconds, truncation="longest_first", max_length=64)
    assert forks == [3]
    assert dict(ours) == dict(gpt2_rust(firsts, seconds, truncation="longest_first", max_length=64))


def test_cl100k_in_processes_matches_tiktoken(openai_encodings, batch, forks):
    from hf_bpe import BPETokenizer

    encoding, directory = openai_encodings["cl100k_base"]
    ours = BPETokenizer.from_pretrained(str(directory))
    ours.bpe.clear_cache()
    assert ours(batch, add_special_tokens=False)["input_ids"] == encoding.encode_ordinary_batch(batch)
    assert forks == [3]


def test_a_small_batch_and_offsets_stay_in_this_process(gpt2_ours, gpt2_rust, batch, forks):
    assert gpt2_ours(batch[:3])["input_ids"] == gpt2_rust(batch[:3])["input_ids"]
    assert sum(map(len, batch[:3])) < 2 * 2000
    ours = gpt2_ours(batch, return_offsets_mapping=True)
    assert ours["offset_mapping"] == gpt2_rust(batch, return_offsets_mapping=True)["offset_mapping"]
    assert forks == []


def test_a_process_that_holds_much_memory_shares_out_only_bigger_batches(
    monkeypatch, gpt2_ours, gpt2_rust, batch, forks
):
    """A fork copies the page tables: 2000 characters per process and as many more per GiB held (here 1000)."""
    monkeypatch.setattr(encoding_rows, "resident_gib", lambda: 1000.0)
    assert gpt2_ours(batch)["input_ids"] == gpt2_rust(batch)["input_ids"]
    assert forks == []
    assert 3 * 2000 < sum(map(len, batch)) < 2000 * 1001
    monkeypatch.setattr(encoding_rows, "resident_gib", lambda: 0.0)
    assert gpt2_ours(batch)["input_ids"] == gpt2_rust(batch)["input_ids"]
    assert forks == [3]


@pytest.mark.parametrize("value", ["false", "FALSE", "0", "off", "no", "n", "f", ""])
def test_tokenizers_parallelism_off_keeps_a_batch_in_this_process(monkeypatch, gpt2_ours, gpt2_rust, batch, value):
    calls: list[int] = []
    monkeypatch.setattr(encoding_rows, "run_forked", lambda jobs, name: calls.append(len(jobs)))
    monkeypatch.setattr(encoding_rows, "FORK_MIN_CHARS", 2000)
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", value)
    assert fork_processes() == 1
    assert gpt2_ours(batch)["input_ids"] == gpt2_rust(batch)["input_ids"]
    assert calls == []


@pytest.mark.parametrize("value", [None, "true", "1", "yes"])
def test_otherwise_every_cpu_of_this_process_is_used(monkeypatch, value):
    if value is None:
        monkeypatch.delenv("TOKENIZERS_PARALLELISM", raising=False)
    else:
        monkeypatch.setenv("TOKENIZERS_PARALLELISM", value)
    assert fork_processes() == len(os.sched_getaffinity(0))


def _in_a_daemon(queue) -> None:  # type: ignore[no-untyped-def]
    queue.put(fork_processes())


def test_a_daemonic_worker_encodes_alone(monkeypatch):
    monkeypatch.delenv("TOKENIZERS_PARALLELISM", raising=False)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    worker = context.Process(target=_in_a_daemon, args=(queue,), daemon=True)
    worker.start()
    assert queue.get(timeout=60) == 1
    worker.join()


def test_a_multiprocess_worker_encodes_alone(monkeypatch):
    """``multiprocess`` (datasets' fork of multiprocessing) keeps a record of the current process that the
    standard library's does not see."""
    import multiprocess

    monkeypatch.delenv("TOKENIZERS_PARALLELISM", raising=False)
    with multiprocess.get_context("fork").Pool(1) as pool:
        assert pool.apply(fork_processes) == 1
    assert fork_processes() == len(os.sched_getaffinity(0))


def test_a_datasets_map_worker_encodes_alone(monkeypatch):
    """``datasets.map(num_proc=…)``'s workers are daemonic ``multiprocess`` workers, and datasets sets
    ``TOKENIZERS_PARALLELISM=false`` in them besides."""
    import datasets

    monkeypatch.delenv("TOKENIZERS_PARALLELISM", raising=False)
    rows = datasets.Dataset.from_dict({"x": list(range(8))})
    mapped = rows.map(lambda batch: {"n": [fork_processes()] * len(batch["x"])}, batched=True, batch_size=2, num_proc=2)
    assert mapped["n"] == [1] * 8
    assert fork_processes() == len(os.sched_getaffinity(0))


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended and been reaped (a zombie still takes signal 0)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def children_recorded(tmp_path: Path, job):  # type: ignore[no-untyped-def]
    """``job`` run after writing its process's id to a new file in ``tmp_path``; and the ids written so far."""

    def recorded():  # type: ignore[no-untyped-def]
        (tmp_path / f"{os.getpid()}.pid").touch()
        return job()

    return recorded, lambda: [int(path.stem) for path in tmp_path.glob("*.pid")]


def test_run_forked_returns_the_results_in_order():
    first, second, here = run_forked([os.getpid, os.getpid, os.getpid], "test")
    assert here == os.getpid() and len({first, second, here}) == 3
    assert gone(first) and gone(second)
    assert run_forked([lambda: [1, 2], lambda: "x"], "test") == [[1, 2], "x"]


def test_a_childs_exception_is_raised_here(tmp_path):
    job, pids = children_recorded(tmp_path, lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        run_forked([job, lambda: 1], "test")
    assert len(pids()) == 1 and all(map(gone, pids()))


def test_a_child_that_dies_is_named_with_its_exit_code(tmp_path):
    job, pids = children_recorded(tmp_path, lambda: os._exit(3))
    with pytest.raises(RuntimeError, match=r"hf_bpe encoding: a child process stopped \(exit code 3\)"):
        run_forked([job, lambda: 1], "hf_bpe encoding")
    assert len(pids()) == 1 and all(map(gone, pids()))


def test_a_result_that_does_not_pickle_is_an_error_not_a_hang():
    with pytest.raises(RuntimeError, match="pickle"):
        run_forked([lambda: lambda: 1, lambda: 1], "test")


def test_when_this_process_fails_the_children_are_stopped(tmp_path):
    import time

    job, pids = children_recorded(tmp_path, lambda: time.sleep(60))

    def fail() -> None:
        while not pids():  # a child sleeps by now
            time.sleep(0.01)
        raise ValueError("here")

    started = time.monotonic()
    with pytest.raises(ValueError, match="here"):
        run_forked([job, job, fail], "test")
    assert time.monotonic() - started < 30
    assert all(map(gone, pids()))


def test_a_child_takes_no_lock_a_thread_held_when_it_was_forked():
    """A thread in the middle of a write holds the stream's lock at the fork; the child must not wait for it."""
    import sys
    import threading

    held, release = threading.Event(), threading.Event()

    class Stream:
        def __init__(self) -> None:
            self.lock = threading.Lock()

        def write(self, text: str) -> int:
            with self.lock:
                held.set()
                release.wait()
            return len(text)

        def flush(self) -> None:
            with self.lock:
                pass

    stream = Stream()
    writer = threading.Thread(target=lambda: stream.write("x"))
    previous = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = stream  # type: ignore[assignment]
    try:
        writer.start()
        held.wait()
        results: list[list[str]] = []
        caller = threading.Thread(target=lambda: results.append(run_forked([lambda: "a", lambda: "b"], "test")))
        caller.daemon = True
        caller.start()
        caller.join(60)  # a child (or this process) waiting for the lock would never end
        assert results == [["a", "b"]]
    finally:
        sys.stdout, sys.stderr = previous
        release.set()
        writer.join()


def test_what_a_pause_of_the_collector_made_is_not_visited_when_it_ends():
    """The lists a call makes (its rows, the pre-token cache) would be walked by the collection that the first
    allocation after ``gc.enable()`` starts; they go to the oldest generation instead."""
    import gc

    from hf_bpe.collector import collector_paused

    before = gc.get_stats()[0]["collections"]
    with collector_paused():
        made = [[index] for index in range(100_000)]
    after = [[] for _ in range(100)]
    assert gc.get_stats()[0]["collections"] == before
    assert gc.isenabled() and len(made) + len(after) == 100_100
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with collector_paused():
            more = [[index] for index in range(100_000)]
        assert gc.get_freeze_count() == frozen > len(more)  # what someone froze stays frozen
    finally:
        gc.unfreeze()


def test_ctrl_c_is_left_to_this_process_which_stops_the_children():
    """A terminal's Ctrl-C signals the whole process group: a child ignores it; this process is interrupted and
    terminates the children."""
    import signal
    import time

    def interrupted_child() -> str:
        os.kill(os.getpid(), signal.SIGINT)
        return "went on"

    assert run_forked([interrupted_child, lambda: "here"], "test") == ["went on", "here"]

    def interrupted_here() -> None:
        raise KeyboardInterrupt

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run_forked([lambda: time.sleep(60), interrupted_here], "test")
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("name", ["llama3", "gemma3"])
def test_the_models_first_word_tables_are_made_once_before_the_fork(name, batch, forks, tmp_path):
    """A byte-level file's encoder cuts (Llama-3's pairs no merge joins) and a SentencePiece-style file's first-word
    tables (Gemma-3's) are made in the parent, before the fork (each child made them again: ~0.35 s a process), and
    the shared-out batch gives the Rust backend's ids."""
    import shutil

    from real_tokenizers import model_tokenizer_json
    from transformers import PreTrainedTokenizerFast

    import hf_bpe

    shutil.copy(model_tokenizer_json(name), tmp_path / "tokenizer.json")
    rust = PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "tokenizer.json"))
    ours = hf_bpe.from_pretrained(tmp_path)
    model = ours.pipeline.model
    encoder = model._byte_level  # made with the pipeline (its id tables are the model's), its cuts not yet
    assert model._joins is None and (encoder is None if name == "gemma3" else encoder._boundaries is None)
    assert ours(batch)["input_ids"] == rust(batch)["input_ids"]
    assert forks == [3]
    if name == "llama3":
        assert model._byte_level._boundaries is not None and model._joins is None  # the unspelled path's only
    else:
        assert model._cut_before_meta is not None and model._byte_level is None
