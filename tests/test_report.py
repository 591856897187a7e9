"""``hf-bpe report``: its figures against the Rust backend loaded from the same directories."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import multilingual_text
from tokenizers import Tokenizer


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hf_bpe.cli", *args], capture_output=True, text=True)


def test_report_figures_match_the_rust_backend_and_the_plot_is_written(stdlib_files, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(multilingual_text(300, seed=1), encoding="utf-8", newline="")
    sample = tmp_path / "sample.txt"
    sample.write_text(multilingual_text(100, seed=2), encoding="utf-8", newline="")
    samples = [sample, stdlib_files[0]]
    done = run_cli("train", str(corpus), str(stdlib_files[1]), "-o", str(tmp_path / "tok"), "--vocab-size", "400,900",
                   "--pattern", "llama3", "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    directories = [tmp_path / "tok" / "400", tmp_path / "tok" / "900"]
    plot = tmp_path / "report.png"
    done = run_cli("report", *map(str, directories), "--sample", *map(str, samples), "--json", "--plot", str(plot))
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout[: done.stdout.rindex("]") + 1])
    for directory, figures in zip(directories, found, strict=True):
        rust = Tokenizer.from_file(str(directory / "tokenizer.json"))
        used: set[int] = set()
        for path, per_file in zip(samples, figures["per_file"], strict=True):
            text = path.read_bytes().decode("utf-8")  # as report reads it: the bytes as they are
            ids = rust.encode(text).ids
            used.update(ids)
            assert (per_file["bytes"], per_file["words"], per_file["tokens"]) == (
                len(text.encode("utf-8")),
                len(text.split()),
                len(ids),
            )
        assert figures["used"] == len(used)
        assert figures["vocab_size"] == rust.get_vocab_size()
    assert found[0]["overall"]["tokens"] > found[1]["overall"]["tokens"]  # the larger vocabulary compresses more
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = run_cli("report", *map(str, directories), "--sample", str(sample))
    assert "bytes/token" in table.stdout and "vocabulary used on the sample" in table.stdout


def test_report_names_a_missing_directory(tmp_path):
    done = run_cli("report", str(tmp_path / "nope"), "--sample", str(tmp_path / "x.txt"))
    assert done.returncode == 1 and "nope: no such tokenizer directory" in done.stderr


def test_report_base_new_compares_two_real_tokenizers_per_file_and_language(debian_corpora, tmp_path):
    """Llama-3.1 against Qwen3 (two real tokenizer.json directories) on Japanese (two files), Russian and mixed
    text: every figure, per file, per language and overall, and each line of the comparison, equal counts taken
    from the Rust backend's encodings."""
    import shutil

    from real_tokenizers import model_tokenizer_json
    from transformers import PreTrainedTokenizerFast

    directories = {}
    for name in ("llama3_1", "qwen3"):
        directories[name] = tmp_path / name
        directories[name].mkdir()
        shutil.copy(model_tokenizer_json(name), directories[name] / "tokenizer.json")
    ja = debian_corpora["japanese"].read_bytes()[:60_000]
    ru = debian_corpora["russian"].read_bytes()[:40_000]
    samples = {
        tmp_path / "ja-1.txt": ("ja", ja[: ja.rindex(b"\n", 0, 30_000) + 1]),
        tmp_path / "ja-2.txt": ("ja", ja[ja.rindex(b"\n", 0, 30_000) + 1 : ja.rindex(b"\n") + 1]),
        tmp_path / "ru.txt": ("ru", ru[: ru.rindex(b"\n") + 1]),
        tmp_path / "mixed.txt": ("mixed", multilingual_text(80, seed=4).encode("utf-8")),
    }
    for path, (_language, data) in samples.items():
        path.write_bytes(data)
    # As report reads a file: the bytes as they are (the mixed text keeps its CRLF and lone CR).
    text_of = {path: path.read_bytes().decode("utf-8") for path in samples}
    given = [f"ja={path}" if language == "ja" else str(path) for path, (language, _) in samples.items()]
    base, new = (str(directories[name]) for name in ("llama3_1", "qwen3"))
    plot = tmp_path / "compare.png"
    done = run_cli("report", base, new, "--sample", *given, "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    expected_rows = {}
    for name, figures in zip(("llama3_1", "qwen3"), found, strict=True):
        rust = PreTrainedTokenizerFast(tokenizer_file=str(directories[name] / "tokenizer.json"))
        encoded = {path: rust(text_of[path], add_special_tokens=False)["input_ids"] for path in samples}

        def counts(paths, encoded=encoded):
            texts = [text_of[path] for path in paths]
            ids = [encoded[path] for path in paths]
            used = set().union(*ids)
            return {
                "bytes": sum(len(text.encode("utf-8")) for text in texts),
                "words": sum(len(text.split()) for text in texts),
                "tokens": sum(map(len, ids)),
                "used": len(used),
            }

        per_file = [counts([path]) for path in samples]
        assert [{k: f[k] for k in ("bytes", "words", "tokens", "used")} for f in figures["per_file"]] == per_file
        languages = {"ja": [p for p in samples if samples[p][0] == "ja"], "ru": [tmp_path / "ru.txt"],
                     "mixed": [tmp_path / "mixed.txt"]}  # fmt: skip
        assert [f["name"] for f in figures["per_language"]] == list(languages)
        for language, paths in languages.items():
            entry = next(f for f in figures["per_language"] if f["name"] == language)
            assert {k: entry[k] for k in ("bytes", "words", "tokens", "used")} == counts(paths)
        overall = counts(list(samples))
        assert {k: figures["overall"][k] for k in ("bytes", "words", "tokens", "used")} == overall
        assert figures["used"] == overall["used"] and figures["vocab_size"] == len(rust)
        expected_rows[name] = [(c["bytes"] / c["tokens"], c["words"] and c["tokens"] / c["words"],
                                100 * c["used"] / len(rust))
                               for c in [*per_file, *(counts(p) for p in languages.values()), overall]]  # fmt: skip
    # Both tokenizers' Japanese text is measured; the two files of one language are counted together.
    assert found[0]["per_language"][0]["tokens"] == sum(f["tokens"] for f in found[0]["per_file"][:2])
    table = run_cli("report", base, new, "--sample", *given, "--plot", str(plot))
    assert table.returncode == 0, table.stderr
    lines = table.stdout[table.stdout.index(f"{new} against {base}:") :].splitlines()[2:]
    for line, before, after in zip(lines, expected_rows["llama3_1"], expected_rows["qwen3"], strict=False):
        change = 100 * (after[0] / before[0] - 1)
        assert f"{before[0]:.3f} -> {after[0]:.3f}" in line and f"{change:+.1f}%" in line, line
        assert f"{before[1]:.3f} -> {after[1]:.3f}" in line, line
        assert f"{before[2]:.1f}% -> {after[2]:.1f}%" in line, line
    assert (
        len(lines) >= 4 + 3 + 1 and lines[4].strip().startswith("language: ja") and lines[7].strip().startswith("all")
    )
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_on_gpt2s_bare_files_matches_endoftext_as_the_rust_backend_does(gpt2_dir, tmp_path):
    """GPT-2's vocab.json + merges.txt alone: ``<|endoftext|>`` plays GPT2Tokenizer's roles, so it is matched whole
    and is no token length; every figure is transformers' Rust backend's on the same two files."""
    import shutil

    from transformers import GPT2Tokenizer

    directory = tmp_path / "gpt2"
    directory.mkdir()
    for name in ("vocab.json", "merges.txt"):
        shutil.copy(gpt2_dir / name, directory / name)
    sample = tmp_path / "sample.txt"
    sample.write_text(f"Hello<|endoftext|>world <|endoftext|>\n{multilingual_text(20, seed=5)}", encoding="utf-8")
    done = run_cli("report", str(directory), "--sample", str(sample), "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)[0]
    rust = GPT2Tokenizer.from_pretrained(str(directory))
    assert rust.is_fast
    ids = rust(sample.read_bytes().decode("utf-8"), add_special_tokens=False)["input_ids"]
    assert rust.convert_tokens_to_ids("<|endoftext|>") in ids
    assert (found["overall"]["tokens"], found["used"], found["vocab_size"]) == (len(ids), len(set(ids)), len(rust))
