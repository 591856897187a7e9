"""A newcomer's first hour (issue 19): what a new user runs, and the mistakes they make, as subprocesses.

Each test does what the user did and compares with the reference run in the same test: ``tokenizers`` for
training, tiktoken for GPT-2's ids, transformers' Rust backend for loading a directory without hf_bpe.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import zstandard
from conftest import REPO, multilingual_text, reference_train

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def run(*args: str | Path, stdin: bytes | None = None, user: list[str] | None = None, cwd: Path | None = None):
    return subprocess.run(
        [*(user or []), sys.executable, "-m", "hf_bpe.cli", *map(str, args)],
        input=stdin,
        capture_output=True,
        timeout=300,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=lambda: os.umask(0o022),
    )


def text_of(done: subprocess.CompletedProcess) -> tuple[str, str]:
    return done.stdout.decode(), done.stderr.decode()


def corpus(directory: Path, name: str = "corpus.txt", seed: int = 1, count: int = 400) -> Path:
    path = directory / name
    path.write_text(multilingual_text(count, seed), encoding="utf-8", newline="")
    return path


def files_of(directory: Path) -> tuple[str, str]:
    return (directory / "vocab.json").read_text(encoding="utf-8"), (directory / "merges.txt").read_text(
        encoding="utf-8"
    )


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory another user can enter (pytest's tmp_path is 0700, root's own)."""
    directory = Path(tempfile.mkdtemp(prefix="hf-bpe-shared-", dir="/tmp"))
    directory.chmod(0o755)
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


# --- 1. files others can read --------------------------------------------------------------------------------


def test_a_second_user_reads_every_output_file(shared_dir):
    source = corpus(shared_dir)
    source.chmod(0o644)
    assert run("train", source, "-o", shared_dir / "tok", "--vocab-size", "400", "--no-progress").returncode == 0
    assert run("count", source, "-o", shared_dir / "counts", "--no-progress").returncode == 0
    saved = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, hf_bpe; hf_bpe.BPETokenizer.from_pretrained(sys.argv[1]).save_pretrained(sys.argv[2])",
            shared_dir / "tok",
            shared_dir / "saved",
        ],
        capture_output=True,
        text=True,
        preexec_fn=lambda: os.umask(0o022),
    )
    assert saved.returncode == 0, saved.stderr
    written = [path for name in ("tok", "counts", "saved") for path in (shared_dir / name).iterdir()]
    assert len(written) >= 4 + 17 + 4
    for path in written:
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path
        # the other user, as in a non-root container
        read = subprocess.run([*NOBODY, "cat", str(path)], capture_output=True)
        assert (read.returncode, read.stdout) == (0, path.read_bytes()), read.stderr
    # tokenizers' own files, saved the same way, have the same mode
    from tokenizers import Tokenizer, models

    Tokenizer(models.BPE()).model.save(str(shared_dir / "tok"), "ref")
    assert stat.S_IMODE((shared_dir / "tok" / "ref-vocab.json").stat().st_mode) == 0o644


# --- 2. a reused output directory ----------------------------------------------------------------------------


def test_a_reused_directory_does_not_load_another_tokenizer(tmp_path):
    source = corpus(tmp_path)
    out = tmp_path / "tok"
    out.mkdir()
    # what an earlier tokenizer's save_pretrained left: two added tokens and another eos
    (out / "special_tokens_map.json").write_text(json.dumps({"eos_token": "<eos>"}), encoding="utf-8")
    (out / "added_tokens.json").write_text(json.dumps({"<eos>": 500, "<pad>": 501}), encoding="utf-8")
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    done = run("train", source, "-o", out, "--vocab-size", "500", "--special-tokens", "<|endoftext|>", "--no-progress")
    stderr = text_of(done)[1]
    assert done.returncode == 2
    assert "special_tokens_map.json, added_tokens.json" in stderr and "--force" in stderr
    assert sorted(p.name for p in out.iterdir()) == ["added_tokens.json", "notes.txt", "special_tokens_map.json"]

    done = run(
        "train",
        source,
        "-o",
        out,
        "--vocab-size",
        "500",
        "--special-tokens",
        "<|endoftext|>",
        "--no-progress",
        "--force",
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "merges.txt",
        "notes.txt",
        "tokenizer.json",
        "tokenizer_config.json",
        "vocab.json",
    ]
    assert files_of(out) == reference_train(
        [source], tmp_path / "ref", vocab_size=500, special_tokens=["<|endoftext|>"]
    )
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, json\n"
            "from transformers import AutoTokenizer\n"
            "rust = AutoTokenizer.from_pretrained(sys.argv[1])\n"
            "import hf_bpe\n"
            "ours = AutoTokenizer.from_pretrained(sys.argv[1])\n"
            "print(json.dumps([[len(t), t.eos_token, type(t).__name__] for t in (rust, ours)]))",
            out,
        ],
        capture_output=True,
        text=True,
    )
    assert loaded.returncode == 0, loaded.stderr
    assert json.loads(loaded.stdout) == [
        [500, "<|endoftext|>", "TokenizersBackend"],
        [500, "<|endoftext|>", "BPETokenizer"],
    ]


def test_the_python_api_refuses_a_reused_directory_too(tmp_path):
    import hf_bpe

    result = hf_bpe.train_from_iterator(["hug pug hug"], vocab_size=258)
    (tmp_path / "added_tokens.json").write_text("{}", encoding="utf-8")
    with pytest.raises(FileExistsError, match=r"added_tokens\.json"):
        result.save(tmp_path)
    result.save(tmp_path, force=True)
    assert not (tmp_path / "added_tokens.json").exists()
    assert (tmp_path / "vocab.json").is_file()


# --- 4. --special-tokens and the files after it ---------------------------------------------------------------


def test_a_file_after_special_tokens_is_not_swallowed(tmp_path):
    a, b = corpus(tmp_path, "a.txt", 1), corpus(tmp_path, "b.txt", 2)
    done = run("train", a, "--special-tokens", "<s>", "</s>", b, "-o", tmp_path / "out", "--no-progress")
    assert done.returncode == 2
    assert f"--special-tokens took '{b}', which is a file" in text_of(done)[1]
    assert not (tmp_path / "out").exists()
    done = run("train", "-o", tmp_path / "out", "--special-tokens", "<s>", "</s>", a, b, "--no-progress")
    assert done.returncode == 2
    assert f"--special-tokens took '{a}', which is a file" in text_of(done)[1]
    # ending the list with -- works, and trains on both files
    done = run(
        "train",
        "-o",
        tmp_path / "out",
        "--vocab-size",
        "600",
        "--no-progress",
        "--special-tokens",
        "<s>",
        "</s>",
        "--",
        a,
        b,
    )
    assert done.returncode == 0, done.stderr
    assert files_of(tmp_path / "out") == reference_train(
        [a, b], tmp_path / "ref", vocab_size=600, special_tokens=["<s>", "</s>"]
    )


def test_only_special_tokens_and_no_file_names_the_option(tmp_path):
    done = run("train", "-o", tmp_path / "out", "--special-tokens", "<s>", "</s>", "missing.txt")
    assert done.returncode == 2
    assert "no FILE to train on" in text_of(done)[1] and "--special-tokens took every word after it" in text_of(done)[1]


# --- 5. GPT-2's own files --------------------------------------------------------------------------------------


def test_download_gpt2_writes_a_directory_autotokenizer_loads_both_ways(tmp_path):
    from hf_bpe.reference.gpt2 import tiktoken_gpt2

    done = run("download", "gpt2", tmp_path / "gpt2")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "gpt2").iterdir()) == [
        "merges.txt",
        "tokenizer.json",
        "tokenizer_config.json",
        "vocab.json",
    ]
    text = "Hello world, naïve café ☕<|endoftext|>  tabs\tand 12345"
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, json\n"
            "from transformers import AutoTokenizer\n"
            "rust = AutoTokenizer.from_pretrained(sys.argv[1])\n"
            "import hf_bpe\n"
            "ours = AutoTokenizer.from_pretrained(sys.argv[1])\n"
            "print(json.dumps([[type(t).__name__, t(sys.argv[2])['input_ids']] for t in (rust, ours)]))",
            tmp_path / "gpt2",
            text,
        ],
        capture_output=True,
        text=True,
    )
    assert loaded.returncode == 0, loaded.stderr
    expected = tiktoken_gpt2().encode(text, allowed_special="all")
    assert json.loads(loaded.stdout) == [["TokenizersBackend", expected], ["BPETokenizer", expected]]


def test_from_pretrained_names_the_missing_file(tmp_path):
    import hf_bpe
    from hf_bpe.reference.gpt2 import gpt2_files

    shutil.copy(gpt2_files() / "vocab.json", tmp_path / "vocab.json")
    with pytest.raises(ValueError, match=r"needs vocab\.json \+ merges\.txt.* found only vocab\.json"):
        hf_bpe.BPETokenizer.from_pretrained(str(tmp_path))


# --- 6. optional features without their packages ---------------------------------------------------------------


def run_without(module: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """The command in a Python where ``import module`` fails, as for a user who never installed it."""
    code = f"import sys; sys.modules[{module!r}] = None; from hf_bpe.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    ("module", "args", "needs"),
    [
        pytest.param(
            "tiktoken",
            ["verify", "encode", "--tokenizer", "gpt2", "--against", "tiktoken"],
            "--against tiktoken",
            id="tiktoken",
        ),
        pytest.param(
            "datatrove", ["count", "--engine", "datatrove", "-o", "counts"], "--engine datatrove", id="datatrove"
        ),
        pytest.param(
            "ray", ["count", "--engine", "datatrove", "--executor", "ray", "-o", "counts"], "--executor ray", id="ray"
        ),
    ],
)
def test_a_missing_optional_package_is_one_line_with_the_install_command(tmp_path, module, args, needs):
    source = corpus(tmp_path)
    done = run_without(module, *args, source)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"hf-bpe: error: {needs} needs {module}, which is not installed: pip install ")
    assert "pip install '.[" in done.stderr  # the form that works from a clone


# --- 7. executor options from the command line -----------------------------------------------------------------


def test_executor_options_reach_datatrove(tmp_path):
    source = corpus(tmp_path)
    done = run(
        "count",
        source,
        "-o",
        tmp_path / "counts",
        "--engine",
        "datatrove",
        "--workers",
        "1",
        "--executor-option",
        "bogus_option=3",
    )
    assert done.returncode == 1
    assert "bogus_option" in text_of(done)[1] and "Traceback" not in text_of(done)[1]
    done = run(
        "count",
        source,
        "-o",
        tmp_path / "counts",
        "--engine",
        "datatrove",
        "--workers",
        "1",
        "--executor-option",
        "start_method=spawn",
        "--executor-option",
        "randomize_start_duration=0",
    )
    assert done.returncode == 0, done.stderr
    done = run(
        "train", "--from-counts", tmp_path / "counts", "-o", tmp_path / "out", "--vocab-size", "500", "--no-progress"
    )
    assert done.returncode == 0, done.stderr
    assert files_of(tmp_path / "out") == reference_train([source], tmp_path / "ref", vocab_size=500)


def test_a_script_without_the_main_guard_fails_fast(tmp_path):
    source = corpus(tmp_path)
    script = tmp_path / "count_it.py"
    script.write_text(
        "from hf_bpe.counting.datatrove import count_with_datatrove\n\n"
        f"count_with_datatrove([{str(source)!r}], 'counts', tasks=2, workers=2)\n",
        encoding="utf-8",
    )
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(temporary)},
    )
    assert done.returncode == 1
    assert (
        f"{script}:3: hf_bpe.counting.datatrove.count_with_datatrove is called at the script's top level" in done.stderr
    )
    assert 'if __name__ == "__main__":' in done.stderr
    assert done.stderr.count("Traceback") == 1
    assert list(temporary.iterdir()) == [] and not (tmp_path / "counts").exists()


# --- 8. input beyond plain files -------------------------------------------------------------------------------


def test_compressed_files_and_stdin_train_as_the_plain_file(tmp_path):
    source = corpus(tmp_path, count=1500)
    data = source.read_bytes()
    compressed = {
        ".gz": gzip.compress(data),
        ".bz2": bz2.compress(data),
        ".xz": lzma.compress(data),
        ".zst": zstandard.ZstdCompressor().compress(data),
    }
    expected = reference_train([source], tmp_path / "ref", vocab_size=700)
    for suffix, packed in compressed.items():
        path = tmp_path / f"corpus.txt{suffix}"
        path.write_bytes(packed)
        done = run("train", path, "-o", tmp_path / suffix, "--vocab-size", "700", "--no-progress", "--workers", "2")
        assert done.returncode == 0, (suffix, done.stderr)
        assert files_of(tmp_path / suffix) == expected, suffix
    for name, out in (("-", "dash"), ("/dev/stdin", "dev-stdin")):
        done = run("train", name, "-o", tmp_path / out, "--vocab-size", "700", "--no-progress", stdin=data)
        assert done.returncode == 0, done.stderr
        assert files_of(tmp_path / out) == expected, name


def test_a_compressed_file_named_txt_is_recognized(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_bytes(gzip.compress(b"some text\n" * 10))
    done = run("train", path, "-o", tmp_path / "out", "--no-progress")
    assert done.returncode == 1
    assert "it looks compressed: name it with its .gz ending" in text_of(done)[1]
    assert "errors='replace'" not in text_of(done)[1]


# --- 9. quiet surprises ----------------------------------------------------------------------------------------


def test_stopping_short_of_the_vocab_size_is_explained(tmp_path):
    source = corpus(tmp_path, count=60)
    done = run("train", source, "-o", tmp_path / "out", "--vocab-size", "32000", "--no-progress")
    assert done.returncode == 0, done.stderr
    size = len(json.loads(reference_train([source], tmp_path / "ref", vocab_size=32000)[0]))
    assert size < 32000
    assert (
        f"hf-bpe: warning: the vocabulary has {size:,} of the 32,000 tokens asked for (stopped: no_pairs)"
        in (text_of(done)[1])
    )
    done = run("train", source, "-o", tmp_path / "out", "--vocab-size", "32000", "--json", "--force")
    summary = json.loads(text_of(done)[0])
    assert (summary["vocab_size"], summary["vocab_size_asked"], summary["stop_reason"]) == (size, 32000, "no_pairs")
    assert text_of(done)[1] == ""  # --json: no progress bars either


def test_the_python_api_warns_when_it_stops_short(tmp_path):
    import hf_bpe
    from hf_bpe.models.bpe.training import TrainingWarning

    with pytest.warns(TrainingWarning, match=r"of the 1,000 tokens asked for \(stopped: min_frequency\)") as caught:
        hf_bpe.train_from_iterator(["hug pug hug"] * 3, vocab_size=1000, min_frequency=5)
    assert caught[0].filename == __file__  # points at the user's line


def test_an_unwritable_output_is_refused_before_training(tmp_path):
    # A directory no one may create anything in, root included (permission bits do not stop root, and running the
    # command as another user needs a clone that user can read, which a clone in a 0700 directory is not): sysfs
    # refuses every new file or directory, as a read-only mount would.
    source = corpus(tmp_path)
    locked = Path("/sys/kernel")
    before = sorted(path.name for path in locked.iterdir())
    done = run("train", source, "-o", locked / "tok", "--vocab-size", "400")
    stderr = text_of(done)[1]
    assert done.returncode == 1
    assert stderr.startswith(f"hf-bpe: error: {locked / 'tok'}: cannot write there ({locked}, where it would be made)")
    assert "counting" not in stderr  # refused before any work
    assert sorted(path.name for path in locked.iterdir()) == before  # nothing left behind


def test_importing_transformers_after_hf_bpe_prints_no_pytorch_advice():
    done = subprocess.run(
        [sys.executable, "-c", "import hf_bpe\nfrom transformers import AutoTokenizer\nprint(AutoTokenizer.__name__)"],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if "TRANSFORMERS" not in k},
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "AutoTokenizer\n", "")


# --- 10. command-line ergonomics -------------------------------------------------------------------------------


def test_version_and_help():
    from hf_bpe import __version__

    done = run("--version")
    assert (done.returncode, text_of(done)[0]) == (0, f"hf-bpe {__version__}\n")
    help_text = text_of(run("train", "--help"))[0]
    for heading in ("input:", "output:", "vocabulary:", "special tokens:", "classic char-level BPE", "example:"):
        assert heading in help_text
    assert "(default: 30000)" in help_text and "(default: 0)" in help_text
    for command in ("count", "encode", "download", "verify"):
        assert "example" in text_of(run(command, "--help"))[0]


def test_a_wrong_flag_shows_its_commands_usage(tmp_path):
    done = run("train", "a.txt", "-o", tmp_path, "--vocab-sise", "10")
    assert done.returncode == 2
    stderr = text_of(done)[1]
    # the one line that matters and where the usage is, not the whole usage block first
    assert stderr == "hf-bpe train: error: unrecognized arguments: --vocab-sise 10\n(see 'hf-bpe train --help')\n"


def test_presets_by_name_from_anywhere(tmp_path):
    source = corpus(tmp_path)
    done = run(
        "train",
        source,
        "-o",
        tmp_path / "out",
        "--config",
        "gpt2",
        "--vocab-size",
        "600",
        "--no-progress",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert files_of(tmp_path / "out") == reference_train(
        [source], tmp_path / "ref", vocab_size=600, special_tokens=["<|endoftext|>"]
    )
    done = run("train", source, "-o", tmp_path / "out", "--config", "gtp2", cwd=tmp_path)
    assert done.returncode == 2 and "not a preset name (code, demo, gpt2, llama3, o200k, qwen2)" in text_of(done)[1]


def test_encode_prints_the_tokens_and_ids_of_the_rust_backend(tmp_path):
    from transformers import GPT2TokenizerFast

    source = corpus(tmp_path)
    assert run("train", source, "-o", tmp_path / "tok", "--vocab-size", "600", "--no-progress").returncode == 0
    text = "Hello wörld  and more"
    done = run("encode", tmp_path / "tok", text, "--json")
    assert done.returncode == 0, done.stderr
    rust = GPT2TokenizerFast.from_pretrained(str(tmp_path / "tok"))
    ids = rust(text)["input_ids"]
    assert json.loads(text_of(done)[0]) == {"text": text, "tokens": rust.convert_ids_to_tokens(ids), "ids": ids}
    plain = text_of(run("encode", tmp_path / "tok", text))[0]
    assert f"ids:    {ids}" in plain


def test_verify_encode_on_a_char_level_tokenizer_says_what_it_is(tmp_path):
    source = corpus(tmp_path)
    done = run("train", source, "-o", tmp_path / "chars", "--char-level", "--vocab-size", "400", "--no-progress")
    assert done.returncode == 0, done.stderr
    # Against the Rust backend it is verified like any kind (tests/cli/test_cli_directories.py); tiktoken holds
    # byte-level ranks only, so that comparison is refused, naming the kind.
    done = run("verify", "encode", "--tokenizer", tmp_path / "chars", source, "--no-progress", "--against", "tiktoken")
    assert done.returncode == 2
    assert "is a char-level BPE tokenizer; --against tiktoken takes byte-level BPE only" in text_of(done)[1]


def test_slurm_asks_for_partition_and_time_before_starting_anything(tmp_path):
    source = corpus(tmp_path)
    done = run(
        "count",
        source,
        "-o",
        tmp_path / "counts",
        "--engine",
        "datatrove",
        "--executor",
        "slurm",
        "--executor-option",
        "partition=cpu",
    )
    assert done.returncode == 1
    assert text_of(done)[1] == (
        "hf-bpe: error: the Slurm executor needs time: --executor-option time=02:00:00 "
        "(in Python: executor_options={'time': '02:00:00'})\n"
    )
    assert not (tmp_path / "counts").exists()


def test_the_first_gpt2_fetch_says_what_it_fetches(tmp_path):
    from hf_bpe.reference.gpt2 import gpt2_files

    environment = {
        **os.environ,
        "HF_BPE_CACHE": str(tmp_path / "cache"),
        "PYTHONPATH": str(REPO),
    }
    done = subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", "download", "gpt2", str(tmp_path / "gpt2")],
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("hf_bpe: fetching GPT-2's vocabulary once: whisper/assets/gpt2.tiktoken from the ")
    assert str(tmp_path / "cache" / "gpt2") in done.stderr
    # the same files as the suite's cached copy (whose rank file tiktoken's tests load)
    assert files_of(tmp_path / "gpt2") == files_of(gpt2_files())
