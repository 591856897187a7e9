"""Added tokens are cut out of text as the Rust ``AddedVocabulary`` cuts them: every occurrence, leftmost first,
the longest where several start at one place (``whole_tokens_pattern`` and ``split_around``; the judge:
``tokenizers`` with the same added tokens over a model that keeps each stretch between them whole)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, models

from hf_bpe.pipeline.added_tokens import split_around, whole_tokens_pattern

#: Tokens sharing prefixes, one inside another, and text made of their characters.
ALPHABET = "<>ab/\n "


def rust_cuts(tokens: list[str], text: str) -> list[tuple[int, int, str | None]]:
    """How the Rust ``AddedVocabulary`` cuts ``text``: a ``WordLevel`` model that makes each stretch between added
    tokens one unknown token, so the encoding's tokens and offsets are the cuts."""
    rust = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    rust.add_special_tokens(tokens)
    encoding = rust.encode(text)
    return [
        (start, end, token if token != "[UNK]" else None)
        for token, (start, end) in zip(encoding.tokens, encoding.offsets, strict=True)
    ]


@settings(max_examples=300, deadline=None)
@given(
    tokens=st.lists(st.text(alphabet=ALPHABET, min_size=1, max_size=6), min_size=1, max_size=12, unique=True),
    text=st.text(alphabet=ALPHABET, max_size=40),
)
def test_cuts_as_the_rust_added_vocabulary(tokens, text):
    expected = rust_cuts(tokens, text)
    assert list(split_around(text, whole_tokens_pattern(tokens))) == expected


def test_thousands_of_tokens_sharing_a_prefix_cut_as_the_rust_added_vocabulary():
    """As Gemma's files hold them: 6,000 ``<unusedN>`` tokens, one a prefix of others, runs of newlines."""
    tokens = [f"<unused{i}>" for i in range(6000)] + ["<unused1", "\n\n", "\n\n\n"]
    text = "a<unused12>b<unused1\n\n\n\n<unused5999><unused6000> <unused<unused7>"
    expected = rust_cuts(tokens, text)
    assert list(split_around(text, whole_tokens_pattern(tokens))) == expected
    assert sum(token is not None for _, _, token in expected) == 5
