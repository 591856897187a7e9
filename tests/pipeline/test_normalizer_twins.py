"""The normalizer twins of :mod:`hf_bpe.pipeline.normalizers` against ``tokenizers``' normalizers, run in the same
test: the text (``normalize_str``) and each output character's span in the original text, which the reference
gives through a ``Tokenizer`` that makes every character a token of its own (:func:`reference_spans`).

Each twin is read from the JSON the reference writes for it (:func:`twin_of`), so every comparison is a round
trip too. ``Precompiled`` is tried on real SentencePiece charsmaps: tiny models trained in-process with each of
SentencePiece's normalization rules.
"""

from __future__ import annotations

import io
import json
import sys
import unicodedata
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Regex, Tokenizer, normalizers, pre_tokenizers
from tokenizers.models import WordLevel

from hf_bpe.pipeline.component import Span, UnknownComponent
from hf_bpe.pipeline.normalizers import NormalizerSequence, normalizer_from_json

EVERY_CHAR = [chr(cp) for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp < 0xE000]
#: Characters where the twins have rules of their own: marks of every kind (reordered, unknown to the reference,
#: spacing), compositions, Hangul, CJK, white space of Rust and of Python, controls, bytes of several lengths.
TRICKY = (
    "aeAÉé\u0301\u0316\u0327\u0334\u0344\u0345\u0903\u093c\u0f71\u0f72\u0f73\u0f80\u1dc0\u08ca\u1e09ﬁǅẞİΣ"
    "\u1100\u1161\u11a8\uac00\uac01中文\u3400\U00020000\uf900 \t\n\v\f\r\x1c\x1f\x85\xa0\u2000\u200b\u200d\u3000"
    "\x00\x7f\xad\ufffd\ue000\u0600\u1cf2\u1cf7\U00011938\U00011935\U00011930\U0001f44d\U0001f3fb\U0001f1eb"
    "\U0001f1f7Ａ①Ⅻ\u2126\u0e33\u32ff\u0338=≠"
)
CHARS = st.sampled_from(TRICKY) | st.characters(exclude_categories=("Cs",))
TEXTS = st.lists(CHARS | st.sampled_from(["\r\n", "e\u0301", "\U0001f468\u200d\U0001f469", "\u1100\u1161\u11a8"]))
TEXTS = TEXTS.map("".join)
EXAMPLES = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def identity_spans(text: str) -> list[Span]:
    return [(index, index + 1) for index in range(len(text))]


def reference_spans(normalizer: Any, text: str) -> tuple[str, list[Span]]:
    """``normalizer``'s text, and each of its characters' span in ``text`` as the Rust side aligns it: every
    character of the normalized text is an unknown word of its own, whose offsets are its alignment."""
    tokenizer = Tokenizer(WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), "isolated")
    encoding = tokenizer.encode(text, add_special_tokens=False)
    return normalizer.normalize_str(text), [tuple(offsets) for offsets in encoding.offsets]


def rust_json(normalizer: Any) -> Any:
    """The ``normalizer`` section the reference writes into a ``tokenizer.json``."""
    tokenizer = Tokenizer(WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizer
    return json.loads(tokenizer.to_str())["normalizer"]


def twin_of(normalizer: Any) -> NormalizerSequence:
    return normalizer_from_json(rust_json(normalizer))


def check(normalizer: Any, text: str, twin: NormalizerSequence | None = None) -> None:
    twin = twin or twin_of(normalizer)
    assert twin.normalize(text, identity_spans(text)) == reference_spans(normalizer, text), repr(text)


def check_every_char(normalizer: Any, twin: NormalizerSequence | None = None, *, alone: bool = False) -> None:
    """The text of every code point as the reference normalizes it: each between line breaks in one text (or each
    alone), and where that differs, the first code points normalized otherwise alone."""
    twin = twin or twin_of(normalizer)
    if not alone:
        text = "\n".join(EVERY_CHAR)
        if twin.normalize(text, identity_spans(text))[0] == normalizer.normalize_str(text):
            return
    wrong = [
        f"U+{ord(char):04X}"
        for char in EVERY_CHAR
        if twin.normalize(char, [(0, 1)])[0] != normalizer.normalize_str(char)
    ]
    assert not wrong, f"{len(wrong)} code points normalized otherwise: {wrong[:20]}"


# -- the Unicode forms ---------------------------------------------------------------------------------------------

FORMS = {"NFC": normalizers.NFC, "NFD": normalizers.NFD, "NFKC": normalizers.NFKC, "NFKD": normalizers.NFKD}


@pytest.mark.parametrize("form", ["NFD", "NFKD"])
def test_decompositions_of_every_code_point(form):
    check_every_char(FORMS[form](), alone=True)


@pytest.mark.parametrize("form", list(FORMS))
def test_forms_around_every_mark(form):
    """Each mark and decomposable character after a mark of class 230 and before one of class 1: the reference
    reorders by its own (older) combining classes."""
    reference = FORMS[form]()
    text = "".join(
        f"a{chr(cp)}\u0334 a\u0301{chr(cp)} {unicodedata.normalize('NFD', chr(cp))} "
        for cp in range(0x300, 0x20000)
        if unicodedata.combining(chr(cp)) or unicodedata.decomposition(chr(cp))
    )
    assert twin_of(reference).normalize(text, identity_spans(text))[0] == reference.normalize_str(text)


@pytest.mark.parametrize(
    ("form", "text", "spans"),
    [
        # Marks put in canonical order move; the spans stay where they were (NormalizedString::transform).
        ("NFD", "é\u0316", [(0, 1), (1, 2), (1, 2)]),
        ("NFD", "\u1e09\u0316", [(0, 1), (0, 1), (1, 2), (1, 2)]),
        ("NFKD", "ﬁé", [(0, 1), (0, 1), (1, 2), (1, 2)]),
        ("NFC", "e\u0316\u0301x", [(0, 1), (2, 3), (3, 4)]),
        ("NFKC", "ﬁ\u0301\u0316", [(0, 1), (1, 2), (2, 3)]),
        ("NFC", "\u1100\u1161\u11a8", [(0, 1)]),
    ],
    ids=["nfd-reordered", "nfd-three-marks", "nfkd-ligature", "nfc-over-a-mark", "nfkc-ligature-marks", "hangul"],
)
def test_forms_by_hand(form, text, spans):
    twin = normalizer_from_json({"type": form})
    assert twin.normalize(text, identity_spans(text))[1] == spans
    assert reference_spans(FORMS[form](), text)[1] == spans


@EXAMPLES
@given(st.sampled_from(list(FORMS)), TEXTS)
def test_forms_with_spans(form, text):
    check(FORMS[form](), text)


# -- Strip, StripAccents, Nmt, ByteLevel -------------------------------------------------------------------------


def test_strip_every_code_point():
    check_every_char(normalizers.Strip(), alone=True)
    assert twin_of(normalizers.Strip()).normalize("\x1c a\u3000", [(0, 1), (1, 2), (2, 3), (3, 4)]) == (
        "\x1c a",
        [(0, 1), (1, 2), (2, 3)],
    )


@EXAMPLES
@given(st.booleans(), st.booleans(), TEXTS)
def test_strip_with_spans(left, right, text):
    check(normalizers.Strip(left=left, right=right), text)


def test_strip_accents_every_code_point():
    check_every_char(normalizers.StripAccents())


@EXAMPLES
@given(TEXTS)
def test_strip_accents_with_spans(text):
    check(normalizers.StripAccents(), text)
    check(normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents()]), text)


def test_strip_accents_by_hand():
    twin = normalizer_from_json({"type": "Sequence", "normalizers": [{"type": "NFKD"}, {"type": "StripAccents"}]})
    assert twin.normalize("Ça ﬁ", identity_spans("Ça ﬁ")) == ("Ca fi", [(0, 1), (1, 2), (2, 3), (3, 4), (3, 4)])


def test_nmt_every_code_point():
    check_every_char(normalizers.Nmt())


@EXAMPLES
@given(TEXTS)
def test_nmt_with_spans(text):
    check(normalizers.Nmt(), text)
    check(normalizers.Sequence([normalizers.Nmt(), normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")]), text)


def test_nmt_by_hand():
    text = "\x01a\x02\tb\u200b\x7f"
    assert twin_of(normalizers.Nmt()).normalize(text, identity_spans(text)) == reference_spans(normalizers.Nmt(), text)
    assert reference_spans(normalizers.Nmt(), text) == ("a b ", [(1, 2), (3, 4), (4, 5), (5, 6)])


def test_byte_level_every_code_point():
    check_every_char(normalizers.ByteLevel())


@EXAMPLES
@given(TEXTS)
def test_byte_level_with_spans(text):
    check(normalizers.ByteLevel(), text)


# -- BertNormalizer ------------------------------------------------------------------------------------------------

BERT_OPTIONS = st.fixed_dictionaries(
    {
        "clean_text": st.booleans(),
        "handle_chinese_chars": st.booleans(),
        "strip_accents": st.sampled_from([None, True, False]),
        "lowercase": st.booleans(),
    }
)


@pytest.mark.parametrize("lowercase", [True, False])
def test_bert_every_code_point(lowercase):
    check_every_char(normalizers.BertNormalizer(lowercase=lowercase, strip_accents=lowercase))


@EXAMPLES
@given(BERT_OPTIONS, TEXTS)
def test_bert_with_spans(options, text):
    check(normalizers.BertNormalizer(**options), text)


def test_bert_by_hand():
    text = "Hé\t中\x00Ω\u0301"
    want = ("he  中 ω", [(0, 1), (1, 2), (2, 3), (3, 4), (3, 4), (3, 4), (5, 6)])
    assert twin_of(normalizers.BertNormalizer()).normalize(text, identity_spans(text)) == want
    assert reference_spans(normalizers.BertNormalizer(), text) == want


# -- Precompiled ---------------------------------------------------------------------------------------------------

#: SentencePiece's normalization rules with a charsmap (``identity`` has none).
RULES = ("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf")
_CHARSMAPS: dict[str, bytes] = {}


def charsmap(rule: str) -> bytes:
    """The ``precompiled_charsmap`` of a tiny SentencePiece model trained with normalization ``rule``."""
    if rule not in _CHARSMAPS:
        import sentencepiece
        from sentencepiece import sentencepiece_model_pb2

        model = io.BytesIO()
        sentencepiece.SentencePieceTrainer.train(
            sentence_iterator=iter(["hello world", "the quick brown fox", "ﬁne Ａ"] * 20),
            model_writer=model,
            vocab_size=30,
            hard_vocab_limit=False,
            normalization_rule_name=rule,
            minloglevel=2,
        )
        proto = sentencepiece_model_pb2.ModelProto()
        proto.ParseFromString(model.getvalue())
        _CHARSMAPS[rule] = proto.normalizer_spec.precompiled_charsmap
    return _CHARSMAPS[rule]


def test_precompiled_every_code_point():
    reference = normalizers.Precompiled(charsmap("nmt_nfkc"))
    check_every_char(reference)


@pytest.mark.parametrize("rule", RULES)
def test_precompiled_rules(rule):
    """Every seventh code point, and the graphemes the charsmap replaces whole (a key starting them)."""
    reference = normalizers.Precompiled(charsmap(rule))
    twin = twin_of(reference)
    chars = EVERY_CHAR[rule.__len__() % 7 :: 7]
    text = "\n".join(chars)
    assert twin.normalize(text, identity_spans(text))[0] == reference.normalize_str(text)
    for text in ["Ａ\u0301", "ﬁ\u0301", "①\u0308", "\r\n", "\u1100\u1161", "e\u0301\u0301\u0301", "ﬁﬁ", "\u00ad\u00ad"]:
        check(reference, text, twin)


@EXAMPLES
@given(st.sampled_from(RULES), TEXTS)
def test_precompiled_with_spans(rule, text):
    check(normalizers.Precompiled(charsmap(rule)), text)


def test_precompiled_by_hand():
    """A ligature at the start: its second letter is put in before any input is taken, so both take (0, 1)
    there; a full-width letter and the mark of its grapheme become one letter (the key "Ａ" starts it)."""
    twin = twin_of(normalizers.Precompiled(charsmap("nmt_nfkc")))
    assert twin.normalize("ﬁ", [(0, 1)]) == ("fi", [(0, 1), (0, 1)])
    assert twin.normalize("xＡ\u0301", identity_spans("xＡ\u0301")) == ("xA", [(0, 1), (1, 2)])
    assert twin.normalize("xＡ\u0301", identity_spans("xＡ\u0301")) == reference_spans(
        normalizers.Precompiled(charsmap("nmt_nfkc")), "xＡ\u0301"
    )


def test_precompiled_empty_charsmap_changes_nothing():
    """SentencePiece's ``identity`` rule has an empty charsmap (the reference cannot read it; hf_bpe reads it as no
    change)."""
    assert charsmap("identity") == b""
    twin = normalizer_from_json({"type": "Precompiled", "precompiled_charsmap": ""})
    assert twin.normalize("ﬁ Ａ", identity_spans("ﬁ Ａ")) == ("ﬁ Ａ", identity_spans("ﬁ Ａ"))


# -- the readers ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"type": "Strip", "strip_left": True}, "normalizer.strip_right"),
        ({"type": "Strip", "strip_left": 1, "strip_right": True}, "normalizer.strip_left"),
        ({"type": "BertNormalizer", "clean_text": True, "lowercase": True}, "normalizer.handle_chinese_chars"),
        (
            {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "lowercase": True,
             "strip_accents": "yes"},
            "normalizer.strip_accents",
        ),
        ({"type": "Precompiled"}, "normalizer.precompiled_charsmap"),
        ({"type": "Precompiled", "precompiled_charsmap": "!!"}, "normalizer.precompiled_charsmap"),
        ({"type": "Precompiled", "precompiled_charsmap": "AAA="}, "normalizer.precompiled_charsmap"),
        ({"type": "Precompiled", "precompiled_charsmap": "CAAAAAEAAAA="}, "normalizer.precompiled_charsmap"),
        (
            {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "NFKX"}]},
            "normalizer.normalizers[1].type",
        ),
    ],
    ids=["strip-missing", "strip-not-bool", "bert-missing", "bert-strip-accents", "charsmap-missing",
         "charsmap-not-base64", "charsmap-short", "charsmap-cut", "unknown-in-sequence"],
)  # fmt: skip
def test_readers_refuse_bad_fields(data, path):
    with pytest.raises(UnknownComponent) as caught:
        normalizer_from_json(data)
    assert caught.value.path == path
    assert str(caught.value).startswith(path)


@pytest.mark.parametrize(
    "data",
    [
        {"type": "Strip", "strip_left": True},
        {"type": "BertNormalizer", "clean_text": True, "lowercase": True},
        {"type": "Precompiled", "precompiled_charsmap": "!!"},
    ],
    ids=["strip", "bert", "precompiled"],
)
def test_the_reference_refuses_them_too(data):
    tokenizer = json.loads(Tokenizer(WordLevel({"[UNK]": 0}, unk_token="[UNK]")).to_str())
    tokenizer["normalizer"] = data
    with pytest.raises(BaseException):  # noqa: B017 - a panic is a BaseException
        Tokenizer.from_str(json.dumps(tokenizer))
