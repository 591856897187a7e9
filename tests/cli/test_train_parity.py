"""``hf-bpe train --parity`` as a user runs it (a subprocess): the vocab.json and merges.txt it writes are tokenizers'
ParityBpeTrainer's, trained in the same test on the same lines (``train_from_iterator``, each file's lines with their
line endings, as tokenizers reads a file); bad command lines exit 2 with one line naming the culprit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tokenizers import Tokenizer, pre_tokenizers
from tokenizers.models import BPE
from tokenizers.trainers import ParityBpeTrainer

from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
from hf_bpe.reference.trainers import reference_cut

LANGUAGES = ("english", "japanese", "russian")


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", *map(str, args)], capture_output=True, text=True, timeout=600
    )


def _slice(source: Path, start: int, size: int, target: Path) -> Path:
    """``size`` bytes of ``source`` from ``start``, whole lines only, written to ``target``."""
    data = source.read_bytes()[start : start + size]
    target.write_bytes(data[data.index(b"\n") + 1 if start else 0 : data.rindex(b"\n") + 1])
    return target


@pytest.fixture(scope="module")
def files(debian_corpora: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Per language a training file (English in two), and a held-out dev file from another part of the corpus."""
    root = tmp_path_factory.mktemp("parity")
    found = {}
    for name in LANGUAGES:
        found[f"{name}.train"] = _slice(debian_corpora[name], 0, 60_000, root / f"{name}.train.txt")
        found[f"{name}.dev"] = _slice(debian_corpora[name], 600_000, 20_000, root / f"{name}.dev.txt")
    found["english.train2"] = _slice(debian_corpora["english"], 200_000, 40_000, root / "english.train2.txt")
    return found


def _lines(path: Path) -> list[str]:
    """The file's lines, each with its ``\\n``, as tokenizers reads a training file."""
    text = path.read_bytes().decode("utf-8")
    return [line + "\n" for line in text.split("\n")[:-1]] + ([text.rsplit("\n", 1)[-1]] if text[-1:] != "\n" else [])


def reference(
    train: dict[str, list[Path]],
    dev: dict[str, list[Path]] | None,
    pattern: str | None = None,
    save_to: Path | None = None,
    **options: Any,
) -> tuple[dict[str, int], list[str]]:
    """ParityBpeTrainer's vocabulary and merges ("a b" lines) on the files' lines, byte-level with the byte
    alphabet (a preset's normalizer and pre-tokenizer as the tokenizer.json hf_bpe writes for it)."""
    tokenizer = Tokenizer(BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    if pattern is not None:
        normalizer, tokenizer.pre_tokenizer = reference_cut(PreTokenizer.from_pattern(pattern))
        if normalizer is not None:
            tokenizer.normalizer = normalizer
    ratio = options.pop("ratio", None)
    trainer = ParityBpeTrainer(show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), **options)
    read = {name: [line for path in paths for line in _lines(path)] for name, paths in train.items()}
    trainer.train_from_iterator(
        tokenizer,
        train_iterators=[iter(lines) for lines in read.values()],
        dev_iterators=None if dev is None else [iter([ln for p in dev[name] for ln in _lines(p)]) for name in train],
        ratio=ratio,
    )
    if save_to is not None:
        save_to.mkdir()
        tokenizer.save(str(save_to / "tokenizer.json"))
    merges = json.loads(tokenizer.to_str())["model"]["merges"]
    return tokenizer.get_vocab(), [" ".join(merge) for merge in merges]


def written(directory: Path) -> tuple[dict[str, int], list[str]]:
    """vocab.json and merges.txt (its lines after the ``#version`` header) as the command wrote them."""
    vocab = json.loads((directory / "vocab.json").read_text(encoding="utf-8"))
    lines = (directory / "merges.txt").read_text(encoding="utf-8").split("\n")
    return vocab, [line for line in lines[1:] if line]


def test_base_with_dev_sets_and_two_files_is_parity_bpe_trainers(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "tok"
    done = run(
        "train", "--parity", f"english={files['english.train']}", f"japanese={files['japanese.train']}",
        f"russian={files['russian.train']}", f"english={files['english.train2']}",
        "--dev", *(f"{name}={files[f'{name}.dev']}" for name in LANGUAGES),
        "-o", out, "--vocab-size", "1200", "--special-tokens", "<s>", "</s>", "--workers", "2", "--no-progress",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    train = {name: [files[f"{name}.train"]] for name in LANGUAGES}
    train["english"].append(files["english.train2"])
    dev = {name: [files[f"{name}.dev"]] for name in LANGUAGES}
    expected = reference(train, dev, num_merges=1200, total_symbols=True, special_tokens=["<s>", "</s>"])
    assert len(expected[0]) == 1200
    assert written(out) == expected
    assert "parity-aware BPE over 3 languages (english, japanese, russian): vocab size 1200" in done.stdout


def test_window_ratio_global_merges_and_a_preset_are_parity_bpe_trainers(
    files: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "tok"
    ratio = {"english": 1.0, "japanese": 2.6, "russian": 1.8}
    done = run(
        "train", "--parity", *(f"{name}={files[f'{name}.train']}" for name in LANGUAGES),
        "--ratio", *(f"{name}={value}" for name, value in ratio.items()),
        "--variant", "window", "--window-size", "12", "--alpha", "1.5", "--global-merges", "40",
        "--num-merges", "600", "--min-frequency", "3", "--pattern", "llama3", "--json", "-o", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    expected = reference(
        {name: [files[f"{name}.train"]] for name in LANGUAGES}, None, pattern="llama3",
        ratio=list(ratio.values()), variant="window", window_size=12, alpha=1.5, global_merges=40, num_merges=600,
        min_frequency=3,
    )  # fmt: skip
    assert len(expected[1]) > 500
    assert written(out) == expected
    summary = json.loads(done.stdout)
    assert (summary["languages"], summary["vocab_size"]) == (list(LANGUAGES), len(expected[0]))


def test_continue_from_a_parity_bpe_trainer_base_is_training_to_the_larger_size(
    files: dict[str, Path], tmp_path: Path
) -> None:
    """The base is ParityBpeTrainer's (its tokenizer.json, 500 tokens); continued to 1200 tokens it is what
    ParityBpeTrainer trains to 1200 directly, every id and merge of the base kept."""
    train = {name: [files[f"{name}.train"]] for name in LANGUAGES}
    dev = {name: [files[f"{name}.dev"]] for name in LANGUAGES}
    base_vocab, base_merges = reference(train, dev, save_to=tmp_path / "base", num_merges=500, total_symbols=True)
    out = tmp_path / "continued"
    done = run(
        "train", "--parity", *(f"{name}={files[f'{name}.train']}" for name in LANGUAGES),
        "--dev", *(f"{name}={files[f'{name}.dev']}" for name in LANGUAGES),
        "--continue-from", tmp_path / "base", "-o", out, "--vocab-size", "1200", "--no-progress",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    vocab, merges = written(out)
    assert (vocab, merges) == reference(train, dev, num_merges=1200, total_symbols=True)
    assert base_vocab.items() <= vocab.items()
    assert merges[: len(base_merges)] == base_merges
    refused = run(
        "train", "--parity", *(f"{name}={files[f'{name}.train']}" for name in LANGUAGES),
        "--continue-from", tmp_path / "base", "-o", tmp_path / "other", "--pattern", "llama3",
    )  # fmt: skip
    assert refused.returncode == 2
    assert "--continue-from: pattern is given, but continuing training keeps the base's pre-tokenizer" in refused.stderr


def test_bad_command_lines_exit_2_naming_the_culprit(tmp_path: Path) -> None:
    en, hi = tmp_path / "en.txt", tmp_path / "hi.txt"
    en.write_text("hello world\n", encoding="utf-8")
    hi.write_text("नमस्ते दुनिया\n", encoding="utf-8")
    out = tmp_path / "out"
    both = [f"en={en}", f"hi={hi}"]
    cases = [
        (["--parity", str(en), f"hi={hi}"], f"argument --parity: '{en}' is not LANG=FILE"),
        (["--parity", *both, "--dev", f"fr={en}"], f"--dev fr={en}: 'fr' is not a --parity language (en, hi)"),
        (["--parity", *both, "--dev", f"en={en}"], "--dev has nothing for 'hi'"),
        (["--parity", f"en={en}", f"hi={tmp_path / 'missing.txt'}"], f"--parity hi={tmp_path}/missing.txt: no such"),
        (["--parity", *both, "--dev", f"en={tmp_path}", f"hi={hi}"], f"--dev en={tmp_path}: a directory"),
        (["--parity", *both, "--ratio", "en=1", "hi=zero"], "argument --ratio: 'hi=zero' is not LANG=R"),
        (["--parity", *both, "--ratio", "en=1"], "--ratio has nothing for 'hi'"),
        (["--parity", *both, "--ratio", "en=1", "hi=2", "--dev", f"en={en}", f"hi={hi}"], "not both"),
        (["--parity", *both, "--model", "wordpiece"], "--model wordpiece: parity-aware training trains byte-level"),
        (["--parity", *both, "--char-level"], "--char-level does not go with --parity"),
        (["--parity", *both, "--limit-alphabet", "10"], "--limit-alphabet does not go with --parity"),
        (["--parity", *both, "--vocab-size", "300", "--num-merges", "10"], "not both"),
        (["--parity", *both, "--vocab-size", "300,400"], "one --vocab-size at a time"),
        (["--parity", *both, "--variant", "window", "--alpha", "0"], "argument --alpha: '0' is not a positive number"),
        ([str(en), "--parity", *both], f"FILE {en}: with --parity every file is a language's"),
        ([str(en), "--dev", f"en={en}"], "--dev is an option of parity-aware training; add --parity"),
        ([str(en), "--variant", "window"], "--variant is an option of parity-aware training"),
    ]
    for args, message in cases:
        done = run("train", *args, "-o", out)
        assert done.returncode == 2, (args, done.stderr)
        assert message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) <= 2  # one line (argparse adds its pointer to --help)
        assert not out.exists()


def test_invalid_utf8_names_the_file_and_line(tmp_path: Path) -> None:
    en, bad = tmp_path / "en.txt", tmp_path / "bad.txt"
    en.write_text("hello world\n", encoding="utf-8")
    bad.write_bytes(b"ok\nfine\n\xc3\x28 no\n")
    done = run("train", "--parity", f"en={en}", f"xx={bad}", "-o", tmp_path / "out", "--workers", "1")
    assert done.returncode == 1, done.stderr
    assert f"{bad}:3: invalid UTF-8 at byte offset 8" in done.stderr
    assert not (tmp_path / "out").exists()


def test_report_gives_tokens_per_byte_and_line_per_language_and_the_gap(files: dict[str, Path], tmp_path: Path) -> None:
    """``hf-bpe report PLAIN PARITY``: per language the tokens, bytes and lines of its held-out text, each count
    tokenizers' (each directory's tokenizer.json read by ``Tokenizer.from_file``), and for each tokenizer the gap
    between its best- and worst-served language (tokens per byte, per line), in --json and under the table."""
    plain, parity = tmp_path / "plain", tmp_path / "parity"
    trained = [
        run("train", *(files[f"{name}.train"] for name in LANGUAGES), "-o", plain, "--vocab-size", "1000",
            "--no-progress"),
        run("train", "--parity", *(f"{name}={files[f'{name}.train']}" for name in LANGUAGES),
            "--dev", *(f"{name}={files[f'{name}.dev']}" for name in LANGUAGES), "-o", parity, "--vocab-size", "1000"),
    ]  # fmt: skip
    assert all(done.returncode == 0 for done in trained), [done.stderr for done in trained]
    assert "counting languages" in trained[1].stderr and "merging" in trained[1].stderr  # --parity draws its bars
    samples = [f"{name}={files[f'{name}.dev']}" for name in LANGUAGES]
    done = run("report", plain, parity, "--sample", *samples, "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    ratios = []
    for directory, figures in zip((plain, parity), found, strict=True):
        rust = Tokenizer.from_file(str(directory / "tokenizer.json"))
        expected = {}
        for name in LANGUAGES:
            text = files[f"{name}.dev"].read_bytes().decode("utf-8")
            expected[name] = (len(rust.encode(text).ids), len(text.encode("utf-8")), text.count("\n"))
        got = {f["name"]: (f["tokens"], f["bytes"], f["lines"]) for f in figures["per_language"]}
        assert got == expected
        for gap in figures["gaps"]:
            unit = 1 if gap["measure"] == "tokens_per_byte" else 2
            value = {name: counts[0] / counts[unit] for name, counts in expected.items()}
            worst, best = max(value, key=value.__getitem__), min(value, key=value.__getitem__)
            assert (gap["worst"], gap["best"]) == (worst, best)
            assert gap["ratio"] == pytest.approx(value[worst] / value[best], rel=1e-12)
        assert [gap["measure"] for gap in figures["gaps"]] == ["tokens_per_byte", "tokens_per_line"]
        ratios.append(figures["gaps"][0]["ratio"])
    assert ratios[1] < ratios[0]  # the parity-aware tokenizer narrows the gap on held-out text
    table = run("report", plain, parity, "--sample", *samples)
    assert table.returncode == 0, table.stderr
    gap = found[1]["gaps"][0]
    assert (
        f"gap in tokens/byte: worst-served {gap['worst']} {gap['worst_value']:.4f}, best-served {gap['best']} "
        f"{gap['best_value']:.4f}: {gap['ratio']:.2f}x" in table.stdout
    )
    assert f"in tokens/byte: {ratios[0]:.2f}x" in table.stdout and f"-> {ratios[1]:.2f}x" in table.stdout


def _count(path: Path, directory: Path, engine: str, *options: str) -> Path:
    """``hf-bpe count`` of one file into ``directory`` (this machine's processes, or datatrove's local executor)."""
    done = run("count", path, "-o", directory, "--engine", engine, "--workers", "2", "--no-progress", *options)
    assert done.returncode == 0, done.stderr
    return directory


def test_counts_directories_from_datatrove_and_local_counting_are_parity_bpe_trainers(
    files: dict[str, Path], tmp_path: Path
) -> None:
    """Each language counted apart (English and Japanese with datatrove, Russian on this machine's processes), with
    Llama-3's pattern, then ``train --parity LANG=DIR``: ParityBpeTrainer's files on the texts themselves, with dev
    text files and with dev counts directories (window variant)."""
    engines = {"english": "datatrove", "japanese": "datatrove", "russian": "local"}
    counts = {
        name: _count(files[f"{name}.train"], tmp_path / f"{name}.counts", engine, "--pattern", "llama3")
        for name, engine in engines.items()
    }
    train = {name: [files[f"{name}.train"]] for name in LANGUAGES}
    dev = {name: [files[f"{name}.dev"]] for name in LANGUAGES}
    out = tmp_path / "from-counts"
    done = run(
        "train", "--parity", *(f"{name}={counts[name]}" for name in LANGUAGES),
        "--dev", *(f"{name}={files[f'{name}.dev']}" for name in LANGUAGES),
        "-o", out, "--vocab-size", "1100", "--special-tokens", "<s>", "--no-progress",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    expected = reference(
        train, dev, pattern="llama3", save_to=tmp_path / "ref", num_merges=1100, total_symbols=True,
        special_tokens=["<s>"],
    )  # fmt: skip
    assert len(expected[0]) == 1100
    assert written(out) == expected
    ours, theirs = (json.loads((d / "tokenizer.json").read_text(encoding="utf-8")) for d in (out, tmp_path / "ref"))
    assert ours["pre_tokenizer"] == theirs["pre_tokenizer"]  # the counts' own cut (Llama-3's) goes into the tokenizer

    dev_counts = {name: _count(files[f"{name}.dev"], tmp_path / f"{name}.dev.counts", "local", "--pattern", "llama3")
                  for name in LANGUAGES}  # fmt: skip
    out = tmp_path / "window"
    done = run(
        "train", "--parity", *(f"{name}={counts[name]}" for name in LANGUAGES),
        "--dev", *(f"{name}={dev_counts[name]}" for name in LANGUAGES), "--variant", "window", "--window-size", "9",
        "--num-merges", "700", "-o", out, "--no-progress",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    expected = reference(train, dev, pattern="llama3", num_merges=700, variant="window", window_size=9)
    assert written(out) == expected


def test_counts_directories_that_do_not_go_together_are_refused(files: dict[str, Path], tmp_path: Path) -> None:
    english = _count(files["english.train"], tmp_path / "en.counts", "local")
    japanese = _count(files["japanese.train"], tmp_path / "ja.counts", "local", "--pattern", "llama3")
    unfinished = _count(files["russian.train"], tmp_path / "ru.counts", "local")
    (unfinished / "manifest.json").unlink()
    text = files["russian.train"]
    cases = [
        ([f"en={english}", f"ru={text}"], "give every language as a counts directory", 2),
        ([f"en={english}", f"en={text}", f"ru={english}"], "a counts directory is the whole of a language's text", 2),
        ([f"en={english}", f"ru={unfinished}"], f"--parity ru={unfinished}: a directory without manifest.json", 2),
        ([f"en={text}", f"ru={text}", "--dev", f"en={english}", f"ru={text}"], f"--dev en={english} is a counts", 2),
        ([f"en={english}", f"ru={english}", "--pattern", "llama3"], "--pattern/--regex/--normalizer differ", 2),
        ([f"en={english}", f"ja={japanese}"], f"{japanese} was counted with another pre-tokenizer than {english}", 1),
    ]
    for args, message, code in cases:
        done = run("train", "--parity", *args, "-o", tmp_path / "out", "--vocab-size", "600", "--no-progress")
        assert done.returncode == code, (args, done.stderr)
        assert message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
        assert not (tmp_path / "out").exists()
