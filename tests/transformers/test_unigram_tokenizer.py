"""hf_bpe's UnigramTokenizer against transformers' Rust backend loaded from the same directory.

Ids, tokens, offsets and decodes, single and batched, with padding and truncation, on adversarial, multilingual
and random text; on a directory trained by hf_bpe and on one trained and saved by ``tokenizers``' own
``SentencePieceUnigramTokenizer``. Registration with AutoTokenizer and loading without hf_bpe run in fresh
subprocesses.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ADVERSARIAL, multilingual_text
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_bpe.models.unigram.files import write_unigram_dir
from hf_bpe.models.unigram.trainer import UnigramOptions, train_unigram
from hf_bpe.pipeline import sentencepiece as recipe

SPECIALS = ("<pad>", "<s>", "</s>")
ROLES = {"pad_token": "<pad>", "bos_token": "<s>", "eos_token": "</s>"}
TEXTS = [
    *ADVERSARIAL,
    *multilingual_text(60, seed=11).split("\n"),
    "<s>hello</s> world <pad>",
    "x<s>y",
    "<unk> and <UNK>",
    "ﬁne ㋿ ㍻ \U00011938 \u1ac1a\u0334",
    "",
]


@pytest.fixture(scope="module")
def directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("unigram")
    counts = recipe.count_words(recipe.lines(multilingual_text(1200, seed=4)))
    result = train_unigram(counts, UnigramOptions(vocab_size=500, unk_token="<unk>", special_tokens=SPECIALS))
    write_unigram_dir(path, result.pieces, result.unk_id, result.special_tokens, roles=ROLES)
    return path


@pytest.fixture(scope="module")
def reference_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Trained and saved by tokenizers' SentencePieceUnigramTokenizer; our config names our class."""
    from tokenizers import SentencePieceUnigramTokenizer

    path = tmp_path_factory.mktemp("reference")
    corpus = path / "corpus.txt"
    corpus.write_text(multilingual_text(800, seed=6), encoding="utf-8", newline="")
    tokenizer = SentencePieceUnigramTokenizer()
    tokenizer.train(
        str(corpus), vocab_size=300, special_tokens=["<pad>", "<unk>"], unk_token="<unk>", show_progress=False
    )
    tokenizer.save(str(path / "tokenizer.json"))
    (path / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "UnigramTokenizer", "unk_token": "<unk>", "pad_token": "<pad>"})
    )
    return path


@functools.cache
def pair(path: Path) -> tuple[Any, Any]:
    from transformers import AutoTokenizer, TokenizersBackend

    import hf_bpe  # noqa: F401 (registers the class)

    ours = AutoTokenizer.from_pretrained(path)
    rust = TokenizersBackend.from_pretrained(path)
    assert type(ours).__name__ == "UnigramTokenizer"
    return ours, rust


def assert_same_encoding(ours: Any, rust: Any, text: str) -> None:
    mine = ours(text)["input_ids"]
    theirs = rust(text)["input_ids"]
    assert mine == theirs
    assert ours.tokenize(text) == rust.tokenize(text)
    offsets = rust(text, return_offsets_mapping=True)["offset_mapping"]
    assert ours(text, return_offsets_mapping=True)["offset_mapping"] == offsets
    assert ours.convert_ids_to_tokens(mine) == rust.convert_ids_to_tokens(theirs)
    for skip in (False, True):
        assert ours.decode(mine, skip_special_tokens=skip) == rust.decode(theirs, skip_special_tokens=skip)


@pytest.mark.parametrize("text", TEXTS, ids=[f"text{i}" for i in range(len(TEXTS))])
def test_encoding_matches_the_rust_backend(directory: Path, text: str) -> None:
    ours, rust = pair(directory)
    assert_same_encoding(ours, rust, text)


@pytest.mark.parametrize("text", TEXTS[::3], ids=[f"text{i}" for i in range(0, len(TEXTS), 3)])
def test_a_directory_trained_by_tokenizers_encodes_the_same(reference_directory: Path, text: str) -> None:
    ours, rust = pair(reference_directory)
    assert_same_encoding(ours, rust, text)


@pytest.mark.parametrize(
    "options",
    [
        {"padding": True},
        {"padding": "max_length", "max_length": 24, "truncation": True},
        {"padding": True, "truncation": True, "max_length": 5, "padding_side": "left"},
        {"padding": "longest", "pad_to_multiple_of": 8},
    ],
    ids=["longest", "max-length", "truncate-left-pad", "multiple-of-8"],
)
def test_batches_pad_and_truncate_like_the_rust_backend(directory: Path, options: dict[str, Any]) -> None:
    ours, rust = pair(directory)
    batch = [text for text in TEXTS if text][:20]
    mine = ours(batch, **options)
    theirs = rust(batch, **options)
    assert mine["input_ids"] == theirs["input_ids"]
    assert mine["attention_mask"] == theirs["attention_mask"]
    assert ours.batch_decode(mine["input_ids"], skip_special_tokens=True) == rust.batch_decode(
        theirs["input_ids"], skip_special_tokens=True
    )


def test_text_pairs_match(directory: Path) -> None:
    ours, rust = pair(directory)
    assert ours("hello world", "привет мир")["input_ids"] == rust("hello world", "привет мир")["input_ids"]


def test_save_and_reload_keep_the_encoding(directory: Path, tmp_path: Path) -> None:
    ours, rust = pair(directory)
    ours.save_pretrained(tmp_path)
    again, again_rust = pair(tmp_path)
    for text in TEXTS[:20]:
        assert again(text)["input_ids"] == rust(text)["input_ids"] == again_rust(text)["input_ids"]


def test_registration_and_loading_without_hf_bpe_in_fresh_processes(directory: Path) -> None:
    with_hf_bpe = (
        "import transformers, hf_bpe; from transformers import AutoTokenizer; "
        f"t = AutoTokenizer.from_pretrained({str(directory)!r}); print(type(t).__name__, t('hugs xy')['input_ids'])"
    )
    without = (
        "from transformers import AutoTokenizer; import sys; "
        f"t = AutoTokenizer.from_pretrained({str(directory)!r}); "
        "print(type(t).__name__, t('hugs xy')['input_ids'], 'hf_bpe' in sys.modules)"
    )
    # Both processes at once (each spends its time importing transformers).
    running = [
        subprocess.Popen(
            [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd
        )
        for code, cwd in ((with_hf_bpe, None), (without, "/"))
    ]
    outputs = [process.communicate() for process in running]
    for process, (_, err) in zip(running, outputs, strict=True):
        assert process.returncode == 0, err
    ours, theirs = (out for out, _ in outputs)
    name, ids = ours.split(" ", 1)
    assert name == "UnigramTokenizer"
    assert theirs.startswith("TokenizersBackend ") and theirs.strip().endswith("False")
    assert ids.strip() == theirs.split(" ", 1)[1].rsplit(" ", 1)[0].strip()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet=st.characters(codec="utf-8"), max_size=12),
            st.sampled_from([*SPECIALS, " ", "  ", "\n", "hello", "日本語", "e\u0301", "ﬁ", "<unk>"]),
        ),
        max_size=8,
    )
)
def test_random_text_encodes_like_the_rust_backend(directory: Path, parts: list[str]) -> None:
    ours, rust = pair(directory)
    assert_same_encoding(ours, rust, "".join(parts))


def test_scores_are_read_as_the_rust_backend_reads_them() -> None:
    """tokenizers parses tokenizer.json with serde_json's fast float parsing (two roundings): hf_bpe reads alike."""
    import random

    from tokenizers import Tokenizer
    from tokenizers.models import Unigram

    from hf_bpe.models.unigram.files import serde_json_float

    rng = random.Random(2)
    values = [-rng.uniform(0.001, 30) * 10 ** rng.randint(-5, 3) for _ in range(3000)]
    values += [-1e-320, -5e-324, -1.7976931348623157e308, -123456789012345678901234.5, -1.2345678901234567e-21]
    text = Tokenizer(Unigram([("<unk>", 0.0)] + [(f"p{i}", v) for i, v in enumerate(values)], 0, False)).to_str()
    # What Rust holds after loading, shown by saving again (serialization is exact: shortest round-trip digits).
    loaded = [score for _, score in json.loads(Tokenizer.from_str(text).to_str())["model"]["vocab"][1:]]
    ours = [score for _, score in json.loads(text, parse_float=serde_json_float)["model"]["vocab"][1:]]
    assert ours == loaded
    assert sum(a != b for a, b in zip(values, loaded, strict=True)) > 100  # Python's float() would not do


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"padding": True, "return_special_tokens_mask": True, "return_length": True},
        {"truncation": True, "max_length": 6, "stride": 2, "return_overflowing_tokens": True, "padding": True},
        {"truncation": "only_second", "max_length": 9, "return_overflowing_tokens": True},
        {"padding": "max_length", "max_length": 40, "truncation": True, "padding_side": "left"},
    ],
    ids=["plain", "padded", "overflow", "overflow-second", "max-length-left"],
)
def test_whole_batch_encoding_with_offsets_matches_the_rust_backend(directory: Path, options: dict[str, Any]) -> None:
    """Every key of the BatchEncoding, offsets included, for texts, batches and pairs (the rows hf_bpe's classes
    share, :mod:`hf_bpe.transformers.rows`)."""
    ours, rust = pair(directory)
    batch = [text for text in TEXTS if text][:12]
    calls: list[tuple[Any, ...]] = [(batch, batch[::-1]), (batch[3], batch[4])]
    if options.get("truncation") != "only_second":  # (the Rust backend refuses it without a second sequence)
        calls += [(batch,), (batch[5],)]
    for args in calls:
        try:
            expected = dict(rust(*args, return_offsets_mapping=True, **options))
        except Exception:  # the Rust backend refuses (a sequence too short for only_second): so do we
            with pytest.raises(ValueError):
                ours(*args, return_offsets_mapping=True, **options)
            continue
        assert dict(ours(*args, return_offsets_mapping=True, **options)) == expected
        expected.pop("offset_mapping")
        assert dict(ours(*args, **options)) == expected


SPLIT_WORDS = [
    ["Hello,", "world!", "naïve", " café"],
    ["東京の", "", "   ", "x<s>y", "<pad>", "  lead", "trail  ", "e\u0301ﬁ", "👍🏽\u3000ok"],
    ["привет", "мир", "a  b\tc\n", "<unk>", "\x00\x7f"],
    [],
]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"padding": True, "return_special_tokens_mask": True, "return_length": True},
        {"truncation": True, "max_length": 6, "stride": 2, "return_overflowing_tokens": True, "padding": True},
        {"padding": "max_length", "max_length": 40, "truncation": True, "padding_side": "left"},
    ],
    ids=["plain", "padded", "overflow", "max-length-left"],
)
def test_split_into_words_matches_the_rust_backend(directory: Path, options: dict[str, Any]) -> None:
    """Pre-split words (``is_split_into_words=True``): each word normalized and cut on its own, ``▁`` in front,
    offsets within the word -- single, batched and paired, every key of the BatchEncoding."""
    ours, rust = pair(directory)
    calls: list[tuple[Any, ...]] = [
        *((words,) for words in SPLIT_WORDS),
        (SPLIT_WORDS,),
        (SPLIT_WORDS[0], SPLIT_WORDS[1]),
        (SPLIT_WORDS, SPLIT_WORDS[::-1]),
    ]
    for args in calls:
        for offsets in (True, False):
            expected = dict(rust(*args, is_split_into_words=True, return_offsets_mapping=offsets, **options))
            mine = dict(ours(*args, is_split_into_words=True, return_offsets_mapping=offsets, **options))
            assert mine == expected, args
    ids = rust(SPLIT_WORDS[1], is_split_into_words=True)["input_ids"]
    assert ours.decode(ids) == rust.decode(ids)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet=st.characters(codec="utf-8"), max_size=8),
            st.sampled_from([*SPECIALS, " ", "", "hello", "日本語", "e\u0301", "<unk>"]),
        ),
        max_size=6,
    )
)
def test_random_split_words_encode_like_the_rust_backend(directory: Path, words: list[str]) -> None:
    ours, rust = pair(directory)
    for args in ((words,), (words, words[::-1])):
        expected = dict(rust(*args, is_split_into_words=True, return_offsets_mapping=True))
        assert dict(ours(*args, is_split_into_words=True, return_offsets_mapping=True)) == expected
