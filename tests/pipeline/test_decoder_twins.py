"""The decoder twins of :mod:`hf_bpe.pipeline.decoders` against ``tokenizers``' decoders, run in the same test:
``decoders.X(...).decode(tokens)`` against ``DecoderSequence((twin,)).decode(tokens)``, the twin read from the JSON
the reference writes for it (a round trip). A chain of two decoders checks what ``decode_chain`` hands on: the
reference's ``Sequence`` passes the list of one to the next."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, decoders
from tokenizers.models import WordLevel

from hf_bpe.pipeline.byte_level import BYTE_TO_UNICODE
from hf_bpe.pipeline.component import UnknownComponent
from hf_bpe.pipeline.decoders import DecoderSequence, decoder_from_json

EXAMPLES = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CHARS = st.characters(exclude_categories=("Cs",))
#: Pieces of the tokens: the markers each decoder looks for, the clean-up's patterns, any character.
PIECES = st.sampled_from(
    ["\u2581", "_", "##", "#", "</w>", "<pad>", "|", " ", " .", " ?", " !", " ,", " ' ", " n't", " 'm", " do not",
     " 's", " 've", " 're", "a", "b", "'", "n't", "do", "not", "Ġ", "Ã", "©", "é"]
) | st.text(CHARS, max_size=3)  # fmt: skip
TOKENS = st.lists(st.lists(PIECES, max_size=4).map("".join), max_size=8)


def rust_json(decoder: Any) -> Any:
    """The ``decoder`` section the reference writes into a ``tokenizer.json``."""
    tokenizer = Tokenizer(WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tokenizer.decoder = decoder
    return json.loads(tokenizer.to_str())["decoder"]


def twin_of(decoder: Any) -> DecoderSequence:
    return decoder_from_json(rust_json(decoder))


def check(decoder: Any, tokens: list[str]) -> None:
    assert twin_of(decoder).decode(tokens) == decoder.decode(tokens), tokens


# -- ByteLevel -----------------------------------------------------------------------------------------------------

BYTE_CHARS = list(BYTE_TO_UNICODE.values())


@EXAMPLES
@given(st.lists(st.binary(max_size=6), max_size=6))
def test_byte_level_on_any_bytes(chunks):
    """Tokens of any bytes (invalid UTF-8 included): one U+FFFD per bad sequence, as ``from_utf8_lossy``."""
    check(decoders.ByteLevel(), ["".join(BYTE_TO_UNICODE[byte] for byte in chunk) for chunk in chunks])


@EXAMPLES
@given(st.lists(st.text(st.sampled_from(BYTE_CHARS) | CHARS, max_size=5), max_size=6))
def test_byte_level_with_other_characters(tokens):
    """A token with a character outside the byte alphabet stands for its own UTF-8 bytes."""
    check(decoders.ByteLevel(), tokens)


@pytest.mark.parametrize(
    ("tokens", "text"),
    [
        (["Ġhello", "Ġw", "orld"], " hello world"),
        (["Ã", "©"], "é"),  # one character cut over two tokens
        (["Ã", "x"], "\ufffdx"),
        (["â\x82", "Ġ"], "â\x82 "),  # U+0082 is no byte character: the token is its own UTF-8
        (["ðŁ", "ĻĤ"], "\U0001f642"),
    ],
    ids=["words", "split-character", "invalid", "not-byte-level", "four-bytes"],
)
def test_byte_level_by_hand(tokens, text):
    assert decoder_from_json(rust_json(decoders.ByteLevel())).decode(tokens) == text
    assert decoders.ByteLevel().decode(tokens) == text


# -- Metaspace, WordPiece, BPEDecoder, CTC -------------------------------------------------------------------------


@EXAMPLES
@given(st.sampled_from(["\u2581", "_", " "]), st.sampled_from(["always", "first", "never"]), st.booleans(), TOKENS)
def test_metaspace(replacement, scheme, split, tokens):
    check(decoders.Metaspace(replacement=replacement, prepend_scheme=scheme, split=split), tokens)


@EXAMPLES
@given(st.sampled_from(["##", "#", "", "a"]), st.booleans(), TOKENS)
def test_wordpiece(prefix, cleanup, tokens):
    check(decoders.WordPiece(prefix=prefix, cleanup=cleanup), tokens)


@EXAMPLES
@given(st.sampled_from(["</w>", "_", "", "ab"]), TOKENS)
def test_bpe_decoder(suffix, tokens):
    check(decoders.BPEDecoder(suffix=suffix), tokens)


@EXAMPLES
@given(st.sampled_from(["<pad>", "_", "a"]), st.sampled_from(["|", " ", "_"]), st.booleans(), TOKENS)
def test_ctc(pad, delimiter, cleanup, tokens):
    check(decoders.CTC(pad_token=pad, word_delimiter_token=delimiter, cleanup=cleanup), tokens)


@EXAMPLES
@given(st.sampled_from(["ByteLevel", "CTC", "WordPiece", "BPEDecoder"]), TOKENS)
def test_chains(first, tokens):
    """What each decoder hands on: ByteLevel one string (then Metaspace sees one first token), the others a
    token each."""
    made = {
        "ByteLevel": decoders.ByteLevel(),
        "CTC": decoders.CTC(),
        "WordPiece": decoders.WordPiece(),
        "BPEDecoder": decoders.BPEDecoder(),
    }
    check(decoders.Sequence([made[first], decoders.Metaspace()]), tokens)


@pytest.mark.parametrize(
    ("decoder", "tokens", "text"),
    [
        (decoders.Metaspace(), ["\u2581Hey", "\u2581friend!"], "Hey friend!"),
        (decoders.Metaspace(), ["\u2581a\u2581b", "\u2581c"], "ab c"),  # every one in the first token goes
        (decoders.Metaspace(prepend_scheme="never"), ["\u2581a", "\u2581b"], " a b"),
        (decoders.WordPiece(), ["un", "##aff", "##able", "do not", "'s", ",", "ok", "."], "unaffable don't's, ok."),
        (decoders.WordPiece(), ["##a", "b"], "##a b"),  # the first token keeps its prefix
        (decoders.BPEDecoder(), ["hel", "lo</w>", "wor", "ld</w>"], "hello world"),
        (decoders.CTC(), ["<pad>", "h", "e", "e", "l", "l", "<pad>", "l", "o", "|", "|", "w"], "hello w"),
    ],
    ids=["metaspace", "metaspace-first-token", "metaspace-never", "wordpiece", "wordpiece-first", "bpe", "ctc"],
)  # fmt: skip
def test_decoders_by_hand(decoder, tokens, text):
    assert twin_of(decoder).decode(tokens) == text
    assert decoder.decode(tokens) == text


# -- the readers ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"type": "ByteLevel", "add_prefix_space": True}, "decoder.trim_offsets"),
        ({"type": "ByteLevel", "add_prefix_space": 1, "trim_offsets": True}, "decoder.add_prefix_space"),
        ({"type": "Metaspace"}, "decoder.replacement"),
        ({"type": "Metaspace", "replacement": "ab"}, "decoder.replacement"),
        ({"type": "Metaspace", "replacement": "_", "prepend_scheme": "First"}, "decoder.prepend_scheme"),
        ({"type": "Metaspace", "replacement": "_", "add_prefix_space": False}, "decoder.add_prefix_space"),
        ({"type": "Metaspace", "replacement": "_", "split": 1}, "decoder.split"),
        ({"type": "WordPiece", "prefix": "##"}, "decoder.cleanup"),
        ({"type": "WordPiece", "cleanup": True}, "decoder.prefix"),
        ({"type": "BPEDecoder"}, "decoder.suffix"),
        ({"type": "CTC", "pad_token": "<pad>", "cleanup": True}, "decoder.word_delimiter_token"),
        ({"type": "Sequence", "decoders": [{"type": "Fuse"}, {"type": "CTC"}]}, "decoder.decoders[1].pad_token"),
    ],
    ids=["byte-level-missing", "byte-level-not-bool", "metaspace-missing", "metaspace-two-chars",
         "metaspace-scheme", "metaspace-legacy-false", "metaspace-split", "wordpiece-cleanup", "wordpiece-prefix",
         "bpe-suffix", "ctc-delimiter", "in-sequence"],
)  # fmt: skip
def test_readers_refuse_bad_fields(data, path):
    with pytest.raises(UnknownComponent) as caught:
        decoder_from_json(data)
    assert caught.value.path == path
    assert str(caught.value).startswith(path)
    tokenizer = json.loads(Tokenizer(WordLevel({"[UNK]": 0}, unk_token="[UNK]")).to_str())
    tokenizer["decoder"] = data
    with pytest.raises(BaseException):  # noqa: B017 - the reference refuses it too (a panic is a BaseException)
        Tokenizer.from_str(json.dumps(tokenizer))


def test_readers_take_legacy_and_defaults():
    """tokenizers < 0.19 wrote ``add_prefix_space`` for Metaspace; ``prepend_scheme`` and ``split`` have defaults."""
    for data in [
        {"type": "Metaspace", "replacement": "_", "add_prefix_space": True},
        {"type": "Metaspace", "replacement": "_"},
        {"type": "Metaspace", "replacement": "_", "prepend_scheme": "never", "add_prefix_space": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False},
    ]:
        tokenizer = json.loads(Tokenizer(WordLevel({"[UNK]": 0}, unk_token="[UNK]")).to_str())
        tokenizer["decoder"] = data
        reference = Tokenizer.from_str(json.dumps(tokenizer)).decoder
        tokens = ["_a_b", "_c"]
        assert decoder_from_json(data).decode(tokens) == reference.decode(tokens)
