"""The SentencePiece recipe (Nmt, NFKC, spaces, Metaspace) against ``tokenizers``' own normalizers and
pre-tokenizer, on every code point and on adversarial and random text."""

from __future__ import annotations

import unicodedata

from conftest import ADVERSARIAL, multilingual_text
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex, normalizers, pre_tokenizers

from hf_bpe.pipeline import sentencepiece as recipe

NORMALIZER = normalizers.Sequence([normalizers.Nmt(), normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
PRE_TOKENIZER = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
CODE_POINTS = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]


def reference_words(text: str) -> list[str]:
    return [word for word, _ in PRE_TOKENIZER.pre_tokenize_str(NORMALIZER.normalize_str(text))]


def test_nfkc_matches_the_reference_on_every_code_point() -> None:
    reference = normalizers.NFKC()
    for start in range(0, len(CODE_POINTS), 4096):
        block = CODE_POINTS[start : start + 4096]
        # One call per block (\x00 is a starter that composes with nothing), then per character where they differ.
        joined = "\x00".join(block)
        if recipe.nfkc(joined) != reference.normalize_str(joined):
            assert [c for c in block if recipe.nfkc(c) != reference.normalize_str(c)] == []


def test_combining_classes_and_compositions_match_the_reference() -> None:
    reference = normalizers.NFKC()
    for char in CODE_POINTS:
        klass = unicodedata.combining(char)
        if klass:
            probe = "a" + char + "\u0334" if klass > 1 else "a\u0301" + char
            assert recipe.nfkc(probe) == reference.normalize_str(probe), hex(ord(char))
        decomposition = unicodedata.decomposition(char)
        if decomposition and not decomposition.startswith("<"):
            parts = unicodedata.normalize("NFD", char)
            assert recipe.nfkc(parts) == reference.normalize_str(parts), hex(ord(char))


def test_the_whole_normalizer_matches_on_every_code_point_in_context() -> None:
    for start in range(0, len(CODE_POINTS), 4096):
        text = " x".join(CODE_POINTS[start : start + 4096])
        assert recipe.normalize(text) == NORMALIZER.normalize_str(text)


def test_words_match_the_reference_on_adversarial_and_multilingual_text() -> None:
    for text in [*ADVERSARIAL, *multilingual_text(400, seed=9).split("\n"), "▁a▁▁b", "\u2581", " \u2581 "]:
        for variant in (text, text + "\n", text + "\r\n"):
            assert recipe.words(variant) == reference_words(variant), repr(variant)


def test_lines_are_cut_as_train_from_files_reads_them() -> None:
    assert recipe.lines("a\r\nb\rc\n\nd") == ["a\r\n", "b\rc\n", "\n", "d"]
    assert recipe.lines("x\u2028y\x85z\n") == ["x\u2028y\x85z\n"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40))
def test_random_text_normalizes_and_splits_like_the_reference(text: str) -> None:
    assert recipe.words(text) == reference_words(text)


def test_the_recipe_as_a_pre_tokenizer_cuts_and_serializes_as_the_reference() -> None:
    import json

    import pytest
    from tokenizers import Tokenizer
    from tokenizers.models import Unigram

    from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
    from hf_bpe.pipeline.sentencepiece import SentencePieceRecipe

    cut = PreTokenizer.sentencepiece_recipe()
    for text in [*ADVERSARIAL, *multilingual_text(100, seed=4).split("\n"), "a\u2581\u2581b\r\n"]:
        assert cut.sequence_pieces(text) == reference_words(text), repr(text)
    theirs = Tokenizer(Unigram())
    theirs.normalizer, theirs.pre_tokenizer = NORMALIZER, PRE_TOKENIZER
    written = json.loads(theirs.to_str())
    assert (cut.normalizer_json(), cut.pre_tokenizer_json()) == (written["normalizer"], written["pre_tokenizer"])
    assert PreTokenizer.from_settings(json.loads(json.dumps(cut.to_settings()))) == cut
    assert PreTokenizer.from_settings({"splits": [r"\S+"], "byte_level": False}).sentencepiece is None
    with pytest.raises(ValueError, match="sentencepiece_recipe"):
        PreTokenizer(sentencepiece=SentencePieceRecipe())
    with pytest.raises(ValueError, match="replacement"):
        SentencePieceRecipe(replacement="_")
