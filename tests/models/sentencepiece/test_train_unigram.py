"""hf_bpe's SentencePiece Unigram trainer (:mod:`hf_bpe.models.sentencepiece.train_unigram`) judged in each test by
sentencepiece 0.2.3's own ``SentencePieceTrainer`` (``model_type=unigram``, ``num_threads=1``) on the same text: both
``.model`` files are parsed with sentencepiece's own ``sentencepiece_model_pb2`` and compared field by field (every
piece, its score exactly, its type; the trainer spec but its input and model prefix; the normalizer spec), and both
encode held-out text with ``SentencePieceProcessor`` to the same ids.

Corpora: 100-200 KB slices of the Debian English, Japanese, Chinese and Russian corpora (``debian_corpora``), with
the identity and nmt_nfkc rules, two vocabulary sizes, byte fallback on and off; and small corpora built so that
what the trainer reads of whole sentences (the byte after each word, the order of sentences after removing lines
normalized to nothing) changes the model.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from spm_reference import assert_same_model, lines_of, spm_train

from hf_bpe.models.sentencepiece.train_bpe import SentencePieceOptions
from hf_bpe.models.sentencepiece.train_unigram import count_sentences, train_unigram, train_unigram_from_text

HELD_OUT = slice(700_000, 760_000)


_spm_train = functools.partial(spm_train, model_type="unigram")


#: (corpus, training slice size, options) by a readable id.
FAST: dict[str, tuple[str, int, dict[str, Any]]] = {
    "english_identity_1000": ("english", 150_000, {"vocab_size": 1000, "normalization_rule_name": "identity"}),
    "japanese_nmt_nfkc_2000_byte_fallback": ("japanese", 100_000, {"vocab_size": 2000, "byte_fallback": True}),
    "chinese_identity_3000": ("chinese", 120_000, {"vocab_size": 3000, "normalization_rule_name": "identity"}),
    "russian_nmt_nfkc_1000": ("russian", 100_000, {"vocab_size": 1000}),
}
SLOW: dict[str, tuple[str, int, dict[str, Any]]] = {
    "english_nmt_nfkc_2800_byte_fallback": ("english", 200_000, {"vocab_size": 2800, "byte_fallback": True}),
    "japanese_identity_4000": ("japanese", 200_000, {"vocab_size": 4000, "normalization_rule_name": "identity"}),
    "chinese_nmt_nfkc_6000_byte_fallback": ("chinese", 200_000, {"vocab_size": 6000, "byte_fallback": True}),
    "russian_identity_3500_byte_fallback": (
        "russian",
        200_000,
        {"vocab_size": 3500, "byte_fallback": True, "normalization_rule_name": "identity"},
    ),
    "english_options": (
        "english",
        150_000,
        {
            "vocab_size": 1500,
            "seed_sentencepiece_size": 3000,
            "shrinking_factor": 0.6,
            "num_sub_iterations": 3,
            "max_sentencepiece_length": 6,
            "character_coverage": 1.0,
        },
    ),
    "russian_suffix_no_prefix": (
        "russian",
        100_000,
        {"vocab_size": 1500, "treat_whitespace_as_suffix": True, "add_dummy_prefix": False},
    ),
    "chinese_symbols": (
        "chinese",
        100_000,
        {"vocab_size": 2500, "user_defined_symbols": ["的", "ab"], "control_symbols": ["<sep>"], "pad_id": 3},
    ),
}


def _check(case: tuple[str, int, dict[str, Any]], corpora: dict[str, Path], tmp_path: Path) -> None:
    corpus, size, options = case
    options = {"num_threads": 1, **options}
    data = corpora[corpus].read_bytes()
    lines, held_out = lines_of(data[:size]), lines_of(data[HELD_OUT])[:300]
    reference = _spm_train(tmp_path, lines, **options)
    ours = train_unigram_from_text(lines, **options)
    assert_same_model(ours, reference, [line.decode("utf-8", "replace") for line in held_out])


@pytest.mark.parametrize("case", FAST)
def test_equals_spm_train(case: str, debian_corpora: dict[str, Path], tmp_path: Path) -> None:
    _check(FAST[case], debian_corpora, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW)
def test_equals_spm_train_slow(case: str, debian_corpora: dict[str, Path], tmp_path: Path) -> None:
    _check(SLOW[case], debian_corpora, tmp_path)


#: Sentences ending in the same word: whether "▁qq" + NUL is a suffix-tree node depends on which sentence is last.
_ENDINGS = [f"w{i} x{i % 3} qq".encode() for i in range(40)] + [b"y zz", b"a qq"]


@pytest.mark.parametrize(
    "lines",
    [
        pytest.param(_ENDINGS, id="last_sentence_ends_with_qq"),
        pytest.param([*_ENDINGS[:-2], b"a qq", b"y zz"], id="last_sentence_ends_with_zz"),
        # A line of spaces normalizes to nothing; LoadSentences swaps the last sentence into its place.
        pytest.param([*_ENDINGS[:5], b"   ", *_ENDINGS[5:20], b" \t ", *_ENDINGS[20:]], id="blank_lines_reorder"),
        pytest.param([b"   ", *_ENDINGS, b"  ", b" "], id="blank_lines_at_both_ends"),
    ],
)
def test_sentence_ends_and_order(lines: list[bytes], tmp_path: Path) -> None:
    options: dict[str, Any] = {"vocab_size": 30, "hard_vocab_limit": False, "normalization_rule_name": "identity"}
    options["num_threads"] = 1
    reference = _spm_train(tmp_path, lines, **options)
    assert_same_model(train_unigram_from_text(lines, **options), reference, ["w7 x1 qq y zz", "a qq"])


def test_followers_are_counted() -> None:
    options = SentencePieceOptions.from_kwargs(model_type="unigram", normalization_rule_name="identity")
    counts = count_sentences(["a b", "   ", "b c", "c"], options)
    # "c" was last; the blank line's removal swaps it into the blank's place, so "▁c" (of "b c") is last.
    assert dict(counts.followed) == {
        ("▁a", "▁"): 1,
        ("▁b", "\0▁"): 1,
        ("▁c", "\0▁"): 1,
        ("▁b", "▁"): 1,
        ("▁c", "\0"): 1,
    }


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"model_type": "unigram", "split_by_whitespace": False}, "split_by_whitespace=False"),
        ({"model_type": "unigram", "seed_sentencepieces_file": "x"}, "seed_sentencepieces_file"),
        ({"model_type": "unigram", "shrinking_factor": 0.3}, "shrinking_factor"),
        ({"model_type": "bpe", "num_sub_iterations": 3}, "num_sub_iterations is not implemented by hf_bpe's BPE"),
        ({"model_type": "word"}, "model_type='word'"),
    ],
)
def test_refusals_name_the_option(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        options = SentencePieceOptions.from_kwargs(**kwargs)
        train_unigram(count_sentences(["a b"], options), options)


def test_vocabulary_too_large_is_refused_by_both(tmp_path: Path) -> None:
    lines, options = _ENDINGS, {"vocab_size": 200, "normalization_rule_name": "identity", "num_threads": 1}
    with pytest.raises(RuntimeError, match="Vocabulary size too high"):
        _spm_train(tmp_path, lines, **options)
    with pytest.raises(ValueError, match="vocab_size=200 is too high for this corpus"):
        train_unigram_from_text(lines, **options)
