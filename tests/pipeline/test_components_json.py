"""Each pipeline twin writes its own JSON (``to_json``) byte for byte as ``tokenizers``' serde writes the component:
the same keys in the same order, the same values.

The judge is ``tokenizers`` itself, in the same test: a section read by hf_bpe's reader (``normalizer_from_json``,
``pre_tokenizer_from_json``, ``post_processor_from_json``, ``decoder_from_json``) and written back by the twin's
``to_json`` must equal what ``tokenizers.Tokenizer.to_str`` writes for the same section, through ``json.dumps``
without sorting keys. Components of every type the readers take, built in ``tokenizers``' Python API (or written by
hand and loaded by ``Tokenizer.from_str``: nested ``Sequence``s, a legacy ``Metaspace``, a template's keys out of
order), then every real ``tokenizer.json`` the tests fetch (slow: loading them is what costs).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

import pytest
import regex
from real_tokenizers import EVERY_TOKENIZER_JSON, real_tokenizer_json
from test_normalizer_twins import charsmap
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

from hf_bpe.pipeline.decoders import ByteFallback, DecoderReplace, DecoderSequence, Fuse, decoder_from_json
from hf_bpe.pipeline.normalizers import NormalizerSequence, Replace, UnicodeForm, normalizer_from_json
from hf_bpe.pipeline.pre_tokenizers import ByteLevel, PreTokenizerSequence, Split, pre_tokenizer_from_json
from hf_bpe.pipeline.processors import post_processor_from_json

#: hf_bpe's reader of each section.
READERS: dict[str, Callable[[Any], Any]] = {
    "normalizer": normalizer_from_json,
    "pre_tokenizer": pre_tokenizer_from_json,
    "post_processor": post_processor_from_json,
    "decoder": decoder_from_json,
}
TEMPLATE = processors.TemplateProcessing(
    single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[SEP]", 2), ("[CLS]", 1)]
)

#: ``(section, component)`` built in tokenizers' Python API, every type and setting the readers take.
MADE: dict[str, tuple[str, Any]] = {
    **{
        f"normalizer-{type(c).__name__}": ("normalizer", c)
        for c in (
            normalizers.NFC(),
            normalizers.NFD(),
            normalizers.NFKC(),
            normalizers.NFKD(),
            normalizers.Lowercase(),
            normalizers.Nmt(),
            normalizers.StripAccents(),
            normalizers.ByteLevel(),
            normalizers.Prepend("▁"),
        )
    },
    "normalizer-Strip-left": ("normalizer", normalizers.Strip(left=True, right=False)),
    "normalizer-Replace-String": ("normalizer", normalizers.Replace(" ", "▁")),
    "normalizer-Replace-Regex": ("normalizer", normalizers.Replace(Regex(r" {2,}|\p{Zs}"), " ")),
    "normalizer-Bert": ("normalizer", normalizers.BertNormalizer()),
    "normalizer-Bert-settings": (
        "normalizer",
        normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=False, lowercase=False),
    ),
    "normalizer-Precompiled": ("normalizer", normalizers.Precompiled(charsmap("nmt_nfkc"))),
    "normalizer-Sequence": ("normalizer", normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])),
    "normalizer-Sequence-one": ("normalizer", normalizers.Sequence([normalizers.Replace(" ", "▁")])),
    "normalizer-Sequence-empty": ("normalizer", normalizers.Sequence([])),
    **{
        f"pre_tokenizer-{type(c).__name__}": ("pre_tokenizer", c)
        for c in (
            pre_tokenizers.Whitespace(),
            pre_tokenizers.WhitespaceSplit(),
            pre_tokenizers.BertPreTokenizer(),
            pre_tokenizers.CharDelimiterSplit("-"),
            pre_tokenizers.FixedLength(3),
        )
    },
    **{
        f"pre_tokenizer-Split-{behavior}-{invert}": ("pre_tokenizer", pre_tokenizers.Split("-", behavior, invert))
        for behavior in ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")
        for invert in (False, True)
    },
    "pre_tokenizer-Split-Regex": ("pre_tokenizer", pre_tokenizers.Split(Regex(r"\p{L}+|\s+(?!\S)"), "isolated")),
    "pre_tokenizer-Metaspace": ("pre_tokenizer", pre_tokenizers.Metaspace()),
    "pre_tokenizer-Metaspace-settings": (
        "pre_tokenizer",
        pre_tokenizers.Metaspace(replacement="_", prepend_scheme="first", split=False),
    ),
    "pre_tokenizer-ByteLevel": ("pre_tokenizer", pre_tokenizers.ByteLevel()),
    "pre_tokenizer-ByteLevel-settings": (
        "pre_tokenizer",
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
    ),
    "pre_tokenizer-Punctuation": ("pre_tokenizer", pre_tokenizers.Punctuation("contiguous")),
    "pre_tokenizer-Digits": ("pre_tokenizer", pre_tokenizers.Digits(individual_digits=True)),
    "pre_tokenizer-Sequence": (
        "pre_tokenizer",
        pre_tokenizers.Sequence(
            [pre_tokenizers.Split(Regex(r"\p{N}{1,3}"), "isolated"), pre_tokenizers.ByteLevel(use_regex=False)]
        ),
    ),
    "pre_tokenizer-Sequence-empty": ("pre_tokenizer", pre_tokenizers.Sequence([])),
    **{
        f"decoder-{type(c).__name__}": ("decoder", c)
        for c in (
            decoders.ByteFallback(),
            decoders.Fuse(),
            decoders.Strip(" ", 1, 2),
            decoders.ByteLevel(),
            decoders.WordPiece(prefix="@@", cleanup=False),
            decoders.BPEDecoder(suffix="_"),
            decoders.CTC(pad_token="[PAD]", word_delimiter_token="_", cleanup=False),
        )
    },
    "decoder-Replace-String": ("decoder", decoders.Replace("▁", " ")),
    "decoder-Replace-Regex": ("decoder", decoders.Replace(Regex("▁+"), " ")),
    "decoder-Metaspace": ("decoder", decoders.Metaspace(replacement="_", prepend_scheme="never", split=False)),
    "decoder-Sequence": (
        "decoder",
        decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()]),
    ),
    "post_processor-Template": ("post_processor", TEMPLATE),
    "post_processor-Bert": ("post_processor", processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))),
    "post_processor-Roberta": (
        "post_processor",
        processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=False, add_prefix_space=False),
    ),
    "post_processor-ByteLevel": ("post_processor", processors.ByteLevel(trim_offsets=False)),
    "post_processor-Sequence": (
        "post_processor",
        processors.Sequence([processors.ByteLevel(trim_offsets=False), TEMPLATE]),
    ),
}

#: ``(section, JSON)`` written by hand: what the Python API cannot build (nested ``Sequence``s, which its
#: constructors flatten) and what the reference writes otherwise than it reads (a legacy field, defaults, key order).
WRITTEN: dict[str, tuple[str, Any]] = {
    "normalizer-nested": (
        "normalizer",
        {
            "type": "Sequence",
            "normalizers": [
                {"type": "NFC"},
                {"type": "Sequence", "normalizers": [{"type": "Sequence", "normalizers": []}]},
                {"type": "Sequence", "normalizers": [{"type": "Lowercase"}, {"type": "Nmt"}]},
            ],
        },
    ),
    "pre_tokenizer-nested": (
        "pre_tokenizer",
        {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": True}]},
                {"type": "Whitespace"},
            ],
        },
    ),
    "decoder-nested": (
        "decoder",
        {"type": "Sequence", "decoders": [{"type": "Sequence", "decoders": [{"type": "Fuse"}]}, {"type": "Fuse"}]},
    ),
    "pre_tokenizer-Metaspace-legacy": (
        "pre_tokenizer",
        {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True},
    ),
    "decoder-Metaspace-legacy": ("decoder", {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True}),
    "pre_tokenizer-ByteLevel-no-use_regex": (
        "pre_tokenizer",
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True},
    ),
    "pre_tokenizer-Punctuation-default": ("pre_tokenizer", {"type": "Punctuation"}),
    "pre_tokenizer-FixedLength-default": ("pre_tokenizer", {"type": "FixedLength"}),
    "normalizer-Bert-no-strip_accents": (
        "normalizer",
        {"type": "BertNormalizer", "lowercase": False, "clean_text": True, "handle_chinese_chars": True},
    ),
    "post_processor-Template-out-of-order": (
        "post_processor",
        {
            "type": "TemplateProcessing",
            "special_tokens": {
                "z": {"tokens": ["z"], "ids": [5], "id": "z"},
                "a": {"ids": [1, 2], "id": "a", "tokens": ["a", "b"]},
            },
            "pair": [
                {"Sequence": {"type_id": 0, "id": "A"}},
                {"SpecialToken": {"type_id": 1, "id": "a"}},
                {"Sequence": {"type_id": 1, "id": "B"}},
            ],
            "single": [{"SpecialToken": {"type_id": 0, "id": "z"}}, {"Sequence": {"type_id": 0, "id": "A"}}],
        },
    ),
    "post_processor-ByteLevel-no-use_regex": (
        "post_processor",
        {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False},
    ),
}


def rust_section(section: str, component: Any) -> Any:
    """The ``section`` the reference writes for a tokenizer with ``component`` there (None: none set)."""
    tokenizer = Tokenizer(models.BPE())
    if component is not None:
        setattr(tokenizer, section, component)
    return json.loads(tokenizer.to_str())[section]


def rust_rewritten(section: str, data: Any) -> Any:
    """The ``section`` the reference writes after loading a file whose ``section`` is ``data``."""
    file = json.loads(Tokenizer(models.BPE()).to_str())
    file[section] = data
    return json.loads(Tokenizer.from_str(json.dumps(file)).to_str())[section]


def written(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)


@pytest.mark.parametrize("name", MADE)
def test_made_components_write_what_tokenizers_writes(name: str) -> None:
    section, component = MADE[name]
    reference = rust_section(section, component)
    assert written(READERS[section](reference).to_json()) == written(reference)


@pytest.mark.parametrize("name", WRITTEN)
def test_hand_written_sections_write_what_tokenizers_writes_back(name: str) -> None:
    section, data = WRITTEN[name]
    assert written(READERS[section](data).to_json()) == written(rust_rewritten(section, data))


def test_no_post_processor_writes_null() -> None:
    reference = json.loads(Tokenizer(models.BPE()).to_str())
    assert reference["post_processor"] is None
    assert written(post_processor_from_json(None).to_json()) == written(reference["post_processor"])


#: The names of :func:`code_built`'s cases (built in the test: a twin without a setting fails there, not at collection).
CODE_BUILT = (
    "normalizer-none",
    "normalizer-one",
    "normalizer-two",
    "pre_tokenizer-split-bytes",
    "decoder-sentencepiece",
)


def code_built() -> dict[str, tuple[str, Any, Any]]:
    """``(section, twin pipeline, the reference's component)`` built in code on both sides, nothing read: no part
    writes null, one part itself, several a ``Sequence``; a pattern compiled in code is written as the text it
    matches where it is plain text, else as its regex."""
    digits = regex.compile(r"\p{N}{1,3}")
    return {
        "normalizer-none": ("normalizer", NormalizerSequence(()), None),
        "normalizer-one": ("normalizer", NormalizerSequence((UnicodeForm("NFC"),)), normalizers.NFC()),
        "normalizer-two": (
            "normalizer",
            NormalizerSequence((UnicodeForm("NFKC"), Replace(regex.compile(" {2,}"), " "))),
            normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")]),
        ),
        "pre_tokenizer-split-bytes": (
            "pre_tokenizer",
            PreTokenizerSequence((Split(digits, "Isolated", False), ByteLevel(False, False, trim_offsets=False))),
            pre_tokenizers.Sequence(
                [
                    pre_tokenizers.Split(Regex(digits.pattern), "isolated"),
                    pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
                ]
            ),
        ),
        "decoder-sentencepiece": (
            "decoder",
            DecoderSequence((DecoderReplace(regex.compile(regex.escape("▁")), " "), ByteFallback(), Fuse())),
            decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()]),
        ),
    }


@pytest.mark.parametrize("name", CODE_BUILT)
def test_twins_built_in_code_write_what_tokenizers_writes(name: str) -> None:
    section, twin, component = code_built()[name]
    assert written(twin.to_json()) == written(rust_section(section, component))


@functools.cache
def _sections(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A real file's four sections as hf_bpe writes them back after reading them, and as the reference writes them."""
    path = real_tokenizer_json(name)
    file = json.loads(path.read_text(encoding="utf-8"))
    reference = json.loads(Tokenizer.from_file(str(path)).to_str())
    ours = {section: written(read(file[section]).to_json()) for section, read in READERS.items()}
    return ours, {section: written(reference[section]) for section in READERS}


@pytest.mark.slow
@pytest.mark.parametrize("name", EVERY_TOKENIZER_JSON)
def test_real_files_sections_write_what_tokenizers_writes(name: str) -> None:
    ours, reference = _sections(name)
    assert ours == reference
