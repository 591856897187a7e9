"""WordPieceTokenizer against transformers' Rust ``BertTokenizer`` loaded from the same ``vocab.txt``, and against
the Rust backend loaded from our ``tokenizer.json``: every output of ``__call__``, decoding, AutoTokenizer."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from conftest import COURSE, multilingual_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from transformers import BertTokenizer, TokenizersBackend

import hf_bpe
from hf_bpe.models.wordpiece.training import train_wordpiece_from_iterator
from hf_bpe.pipeline.bert import BertRecipe
from hf_bpe.transformers.wordpiece import WordPieceTokenizer

ADVERSARIAL = [
    "Hello, World! Héllo Ça va? naïve café",
    "中文English混合，标点。日本語のテキスト한국어",
    "ΣΑΣ ΟΔΟΣ İstanbul ǅ ß ﬁ",
    "",
    "   \t\n ",
    "a" * 101,
    "a" * 100,
    "supercalifragilistic" * 6,
    "x[SEP]y [CLS] [cls] [MASK]",
    "\x00\x01\x7f ok\u200b!!!...???---",
    "e\u0301\u0327 a\u0327\u0301 \U0001f600\U0001f44d\U0001f3fd",
    "don't stop-believing (2024) $100 #tag @user",
    "zebra quixotic ☃ never seen",
    multilingual_text(4, 9),
]
PAIR_OPTIONS = [
    {},
    {"padding": True},
    {"padding": True, "padding_side": "left"},
    {"truncation": True, "max_length": 9},
    {"padding": "max_length", "max_length": 48, "truncation": True},
    {"padding": True, "pad_to_multiple_of": 8},
    {"return_special_tokens_mask": True, "return_length": True},
    {"add_special_tokens": False},
]


@pytest.fixture(scope="module", params=["uncased", "cased"])
def directories(request, tmp_path_factory):
    """(our directory, a directory with only vocab.txt) for a small trained vocabulary, cased and uncased."""
    root = tmp_path_factory.mktemp(f"wordpiece-{request.param}")
    recipe = BertRecipe(lowercase=request.param == "uncased")
    texts = [*COURSE] * 3 + [multilingual_text(400, 2), "don't stop believing, ça va naïve café 中文 ΣΑΣ"]
    train_wordpiece_from_iterator(texts, vocab_size=700, recipe=recipe).save(root / "out")
    (root / "vocab").mkdir()
    shutil.copy(root / "out" / "vocab.txt", root / "vocab" / "vocab.txt")
    return root / "out", root / "vocab", recipe


@pytest.fixture(scope="module")
def tokenizers(directories):
    ours_dir, vocab_dir, recipe = directories
    ours = WordPieceTokenizer.from_pretrained(ours_dir)
    rust = BertTokenizer.from_pretrained(vocab_dir, do_lower_case=recipe.lowercase)
    from_json = TokenizersBackend.from_pretrained(ours_dir)
    return ours, rust, from_json


def same(ours, rust, *args, **options):
    expected = dict(rust(*args, return_offsets_mapping=True, **options))
    assert dict(ours(*args, return_offsets_mapping=True, **options)) == expected
    expected.pop("offset_mapping")
    assert dict(ours(*args, **options)) == expected


@pytest.mark.parametrize("text", ADVERSARIAL, ids=range(len(ADVERSARIAL)))
def test_single_texts_match_rust_bert(tokenizers, text):
    ours, rust, from_json = tokenizers
    same(ours, rust, text)
    assert ours.tokenize(text) == rust.tokenize(text)
    ids = ours(text)["input_ids"]
    assert ours.decode(ids) == rust.decode(ids)
    assert ours.decode(ids, skip_special_tokens=True) == rust.decode(ids, skip_special_tokens=True)
    assert ours(text)["input_ids"] == from_json(text)["input_ids"]


@pytest.mark.parametrize("options", PAIR_OPTIONS, ids=[str(sorted(o.items())) for o in PAIR_OPTIONS])
def test_batches_and_pairs_match_rust_bert(tokenizers, options):
    ours, rust, from_json = tokenizers
    same(ours, rust, ADVERSARIAL, **options)
    same(ours, rust, ADVERSARIAL, ADVERSARIAL[::-1], **options)
    same(ours, rust, ADVERSARIAL[0], ADVERSARIAL[1], **options)
    assert dict(ours(ADVERSARIAL, ADVERSARIAL[::-1], **options)) == dict(
        from_json(ADVERSARIAL, ADVERSARIAL[::-1], **options)
    )


def test_empty_second_text(tokenizers):
    """A single pair with an empty second text is no pair to the Rust backend; in a batch it is a pair."""
    ours, rust, _ = tokenizers
    for first in ("", "a b", ADVERSARIAL[0]):
        same(ours, rust, first, "")
        same(ours, rust, first, "", truncation=True, max_length=12)
        same(ours, rust, [first, first], ["", "x"], padding=True)


@pytest.mark.parametrize("max_length", [7, 8, 12, 13], ids=lambda n: f"max{n}")
def test_longest_first_splits_the_room_as_rust_does(tokenizers, max_length):
    """Both sequences too long: half the room each, the odd token to the second (found by hypothesis: transformers'
    Python path gives it to the first)."""
    ours, rust, _ = tokenizers
    same(ours, rust, "0 0 0 0 0 0", "0 0 0 0 0 0", truncation=True, max_length=max_length)
    same(ours, rust, "a b c d e f g h", "a b", truncation=True, max_length=max_length)
    same(ours, rust, ["a b c d e f g h"] * 2, ["a b c d e f g h i", "x"], truncation=True, max_length=max_length)


@pytest.mark.parametrize("strategy", ["only_first", "only_second"])
def test_truncating_one_sequence_of_a_pair(tokenizers, strategy):
    """Where the sequence to cut is long enough (else the Rust backend raises, and transformers' Python path logs
    an error and does not cut)."""
    ours, rust, _ = tokenizers
    long, short = ADVERSARIAL[-1] * 3, "ok then"
    pair = (long, short) if strategy == "only_first" else (short, long)
    same(ours, rust, *pair, truncation=strategy, max_length=12)
    same(ours, rust, [pair[0]] * 2, [pair[1]] * 2, truncation=strategy, max_length=12, padding="max_length")


def test_tensors_and_defaults(tokenizers):
    ours, rust, _ = tokenizers
    assert ours.model_input_names == rust.model_input_names
    np_ours = ours(ADVERSARIAL[:3], padding=True, return_tensors="np", return_offsets_mapping=True)
    np_rust = rust(ADVERSARIAL[:3], padding=True, return_tensors="np", return_offsets_mapping=True)
    assert {key: value.tolist() for key, value in np_ours.items()} == {
        key: value.tolist() for key, value in np_rust.items()
    }
    assert (ours.cls_token_id, ours.sep_token_id, ours.pad_token_id, ours.unk_token_id, ours.mask_token_id) == (
        2,
        3,
        0,
        1,
        4,
    )
    assert len(ours) == len(rust)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.text(
            st.one_of(
                st.sampled_from(list("abcdefghijklmnopqrstuvwxyz .,!?'-中文éüÇΣ\t\n")),
                st.characters(exclude_categories=("Cs",)),
            ),
            max_size=40,
        ),
        min_size=1,
        max_size=3,
    )
)
def test_hypothesis_matches_rust_bert(tokenizers, texts):
    ours, rust, _ = tokenizers
    same(ours, rust, texts, padding=True)
    same(ours, rust, texts[0])
    ids = ours(texts[0])["input_ids"]
    assert ours.decode(ids) == rust.decode(ids)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=80), st.text(max_size=30))
def test_hypothesis_pairs_matches_rust_bert_long(tokenizers, first, second):
    ours, rust, _ = tokenizers
    same(ours, rust, first, second, truncation=True, max_length=12)
    same(ours, rust, first)


def test_bert_base_style_vocab_and_saving(tmp_path, tokenizers):
    ours, _, _ = tokenizers
    ours.save_pretrained(tmp_path / "saved")
    again = WordPieceTokenizer.from_pretrained(tmp_path / "saved")
    saved_rust = TokenizersBackend.from_pretrained(tmp_path / "saved")
    for text in ADVERSARIAL:
        assert again(text)["input_ids"] == ours(text)["input_ids"] == saved_rust(text)["input_ids"]


def test_directory_loads_through_auto_tokenizer(directories):
    ours_dir, _, _ = directories
    code = (
        "import sys\n"
        "if sys.argv[1] == '1': import hf_bpe\n"
        "from transformers import AutoTokenizer\n"
        f"tok = AutoTokenizer.from_pretrained({str(ours_dir)!r})\n"
        "print(type(tok).__name__, tok('Hello, ça va? 中文', 'pair')['input_ids'])"
    )
    lines = [
        subprocess.run([sys.executable, "-c", code, flag], capture_output=True, text=True, check=True).stdout.strip()
        for flag in ("1", "0")
    ]
    expected = hf_bpe.WordPieceTokenizer.from_pretrained(ours_dir)("Hello, ça va? 中文", "pair")["input_ids"]
    assert lines == [f"WordPieceTokenizer {expected}", f"TokenizersBackend {expected}"]


def test_pickles_the_same_before_and_after_use(tokenizers):
    import pickle

    ours, rust, _ = tokenizers
    fresh = WordPieceTokenizer.from_pretrained(ours.name_or_path)
    before = pickle.dumps(fresh)
    fresh(ADVERSARIAL)
    assert pickle.dumps(fresh) == before
    again = pickle.loads(before)
    assert again(ADVERSARIAL)["input_ids"] == rust(ADVERSARIAL)["input_ids"]


def test_missing_vocab_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"vocab\.txt"):
        WordPieceTokenizer(vocab_file=str(tmp_path / "vocab.txt"))


SPLIT_WORDS = [
    ["Hello,", "World!", "héllo"],
    ["中文English混合，", "", "don't", "x[SEP]y", "a" * 101],
    ["   ", "ΣΑΣ", "\x00ok", "naïve café"],
    [],
]


@pytest.mark.parametrize("options", PAIR_OPTIONS, ids=[str(sorted(o.items())) for o in PAIR_OPTIONS])
def test_split_into_words_matches_rust_bert(tokenizers, options):
    """Pre-split words: each word cut on its own, offsets within each word (the Rust backend's pre-tokenized input)."""
    ours, rust, from_json = tokenizers
    for words in SPLIT_WORDS:
        same(ours, rust, words, is_split_into_words=True, **options)
    same(ours, rust, SPLIT_WORDS, is_split_into_words=True, **options)
    same(ours, rust, SPLIT_WORDS, SPLIT_WORDS[::-1], is_split_into_words=True, **options)
    same(ours, rust, SPLIT_WORDS[0], SPLIT_WORDS[1], is_split_into_words=True, **options)
    same(from_json, rust, SPLIT_WORDS, SPLIT_WORDS[::-1], is_split_into_words=True, **options)


@pytest.mark.parametrize("stride", [0, 1, 3])
@pytest.mark.parametrize("max_length", [5, 6, 9, 16])
def test_overflowing_windows_match_rust_bert(tokenizers, stride, max_length):
    """return_overflowing_tokens: one row per window (overlapping by stride), offsets and all, for texts, pairs
    (every combination of the two sequences' windows) and pre-split words, with and without special tokens."""
    ours, rust, from_json = tokenizers
    long, other = ADVERSARIAL[0] + " " + ADVERSARIAL[-1], "zebra quixotic, don't stop believing"
    for strategy in ("longest_first", "only_first", "only_second"):
        options = {
            "truncation": strategy,
            "max_length": max_length,
            "stride": stride,
            "return_overflowing_tokens": True,
            "return_special_tokens_mask": True,
        }
        calls = [((long, other), {}), (([long, other], [other, long]), {"padding": True})]
        if strategy != "only_second":
            calls += [((long,), {}), ((long.split(),), {"is_split_into_words": True})]
        for args, extra in calls:
            for add_special_tokens in (True, False):
                settings_ = {**options, **extra, "add_special_tokens": add_special_tokens}
                try:
                    expected = dict(rust(*args, return_offsets_mapping=True, **settings_))
                except (KeyboardInterrupt, SystemExit):
                    raise
                except BaseException:
                    # The Rust backend refuses (a stride too large for the room left, nothing to cut): so do we.
                    with pytest.raises(ValueError):
                        ours(*args, return_offsets_mapping=True, **settings_)
                    continue
                assert dict(ours(*args, return_offsets_mapping=True, **settings_)) == expected
                assert dict(from_json(*args, return_offsets_mapping=True, **settings_)) == expected
