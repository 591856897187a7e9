"""hf_bpe writes ``tokenizer.json`` without the ``tokenizers`` library, byte for byte as ``tokenizers`` writes it:
the judge builds the same pipeline with ``tokenizers``' own classes (spelled here by hand, independently of
hf_bpe's writers) and compares ``Tokenizer.to_str()`` with hf_bpe's text."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

from hf_bpe.models.bpe.files import CharLevel, tokenizer_json
from hf_bpe.models.unigram.files import tokenizer_json as unigram_tokenizer_json
from hf_bpe.models.wordpiece.files import wordpiece_tokenizer_json
from hf_bpe.pipeline.bert import BertRecipe
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
from hf_bpe.pipeline.processors import TemplateProcessing
from hf_bpe.pipeline.tokenizer_json import dumps, float_text

VOCAB = {"a": 0, "b": 1, "ab": 2, "Ġ": 3, "Ġab": 4, "<s>": 5, "é": 6, '"': 7, "\\": 8}
MERGES = [("a", "b"), ("Ġ", "ab")]
# Ids not in order, and a special token the vocabulary lacks.
SPECIALS = ["<s>", "<|endoftext|>", "<pad>"]


def with_specials(tokenizer: Tokenizer, specials: list[str]) -> str:
    tokenizer.add_special_tokens([AddedToken(token, special=True, normalized=False) for token in specials])
    return tokenizer.to_str()


def reference_byte_level(normalizer, pre_tokenizer, *, ignore_merges: bool = False, template=None) -> str:
    tokenizer = Tokenizer(models.BPE(vocab=dict(reversed(VOCAB.items())), merges=MERGES, ignore_merges=ignore_merges))
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    if template is not None:
        tokenizer.post_processor = processors.Sequence([tokenizer.post_processor, template])
    if normalizer is not None:
        tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre_tokenizer
    return with_specials(tokenizer, SPECIALS)


def isolated(*patterns: str, add_prefix_space: bool = False) -> pre_tokenizers.Sequence:
    splits = [pre_tokenizers.Split(Regex(pattern), "isolated") for pattern in patterns]
    return pre_tokenizers.Sequence(
        [*splits, pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=False)]
    )


@pytest.mark.parametrize("add_prefix_space", [False, True])
def test_gpt2s_byte_level_file(add_prefix_space):
    ours = tokenizer_json(VOCAB, MERGES, SPECIALS, add_prefix_space=add_prefix_space)
    assert ours == reference_byte_level(None, pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space))


@pytest.mark.parametrize(
    ("preset", "normalizer"),
    [("llama3", None), ("qwen2", normalizers.NFC()), ("o200k", None), ("deepseek-v3", None), ("cl100k", None)],
)
def test_the_presets_files(preset, normalizer):
    cut = PreTokenizer.from_preset(preset)
    assert cut.splits, preset
    from hf_bpe.pipeline._regex.dialect import oniguruma_pattern

    theirs = reference_byte_level(normalizer, isolated(*(oniguruma_pattern(p, cut.engine) for p in cut.splits)))
    assert tokenizer_json(VOCAB, MERGES, SPECIALS, pre_tokenizer=cut) == theirs
    assert json.loads(theirs)["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"]


@pytest.mark.parametrize("normalizer", ["nfkc", "lowercase"])
def test_a_custom_regex_with_a_normalizer(normalizer):
    cut = PreTokenizer(splits=(r"\p{L}+|\d", r"\S+"), normalizer=normalizer, add_prefix_space=True)
    expected = {"nfkc": normalizers.NFKC(), "lowercase": normalizers.Lowercase()}[normalizer]
    theirs = reference_byte_level(expected, isolated(r"\p{L}+|\d", r"\S+", add_prefix_space=True))
    assert tokenizer_json(VOCAB, MERGES, SPECIALS, pre_tokenizer=cut) == theirs


def test_ignore_merges_and_a_template():
    single = [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}]
    pair = [*single, {"SpecialToken": {"id": "<s>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}]
    template = TemplateProcessing(tuple(single), tuple(pair), {"<s>": {"id": "<s>", "ids": [5], "tokens": ["<s>"]}})
    ours = tokenizer_json(VOCAB, MERGES, SPECIALS, ignore_merges=True, template=template)
    reference = processors.TemplateProcessing(single="<s> $A", pair="<s> $A <s>:1 $B:1", special_tokens=[("<s>", 5)])
    assert ours == reference_byte_level(None, pre_tokenizers.ByteLevel(add_prefix_space=False), ignore_merges=True,
                                        template=reference)  # fmt: skip


@pytest.mark.parametrize(
    "char_level",
    [CharLevel(), CharLevel(end_of_word_suffix="</w>"), CharLevel(continuing_subword_prefix="##", lowercase=True)],
)
@pytest.mark.parametrize("unk", [None, "<unk>"])
def test_char_level_files(char_level, unk):
    vocab = {"<unk>": 0, "a": 1, "b": 2, "ab": 3, "b</w>": 4, "##b": 5}
    merges = [("a", "##b")] if char_level.continuing_subword_prefix else [("a", "b")]
    affixes = {"end_of_word_suffix": char_level.end_of_word_suffix, "unk_token": unk,
               "continuing_subword_prefix": char_level.continuing_subword_prefix}  # fmt: skip
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges, **{k: v for k, v in affixes.items() if v}))
    tokenizer.decoder = decoders.BPEDecoder(suffix=char_level.end_of_word_suffix or "")
    if char_level.lowercase:
        tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    theirs = with_specials(tokenizer, ["<unk>", "<s>"])
    assert tokenizer_json(vocab, merges, ["<unk>", "<s>"], char_level=char_level, unk_token=unk) == theirs


@pytest.mark.parametrize(
    "recipe",
    [BertRecipe(), BertRecipe(lowercase=False, strip_accents=True, handle_chinese_chars=False, clean_text=False)],
)
@pytest.mark.parametrize("with_cls", [True, False])
def test_wordpiece_files(recipe, with_cls):
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "a": 4, "@@b": 5} if with_cls else {"[UNK]": 0, "a": 1}
    tokenizer = Tokenizer(models.WordPiece(dict(vocab), unk_token="[UNK]", max_input_chars_per_word=50))
    tokenizer.model.continuing_subword_prefix = "@@"
    tokenizer.normalizer = normalizers.BertNormalizer(
        clean_text=recipe.clean_text, handle_chinese_chars=recipe.handle_chinese_chars,
        strip_accents=recipe.strip_accents, lowercase=recipe.lowercase,
    )  # fmt: skip
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece(prefix="@@")
    if with_cls:
        tokenizer.post_processor = processors.TemplateProcessing(
            single="[CLS]:0 $A:0 [SEP]:0", pair="[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
            special_tokens=[("[SEP]", 3), ("[CLS]", 2)],
        )  # fmt: skip
    specials = [token for token in vocab if token.startswith("[")] + ["[MASK]"]
    theirs = with_specials(tokenizer, specials)
    ours = wordpiece_tokenizer_json(
        vocab, specials, recipe, continuing_subword_prefix="@@", max_input_chars_per_word=50
    )
    assert ours == theirs


# Scores as training gives them, and numbers at the edges of serde_json's positional and exponent forms.
SCORES = [0.0, -1e-05, -1.2345e-05, -9.99e-06, -1.5e-07, -0.0001, -3.0, -1 / 3, -12.345678901234567, -1e-300, -1e16,
          -1e15, -123456789012345680.0, 5e-324]  # fmt: skip


def test_unigram_files():
    pieces = [("<unk>", 0.0), *((f"▁p{n}", score) for n, score in enumerate(SCORES)), ("<s>", 0.0)]
    tokenizer = Tokenizer(models.Unigram(pieces, 0, False))
    tokenizer.normalizer = normalizers.Sequence(
        [normalizers.Nmt(), normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")]
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tokenizer.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    theirs = with_specials(tokenizer, ["<unk>", "<s>", "<mask>"])
    assert unigram_tokenizer_json(pieces, 0, ["<unk>", "<s>", "<mask>"]) == theirs


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_any_float_is_written_as_serde_json_writes_it(value):
    tokenizer = Tokenizer(models.Unigram([("a", value)], None, False))
    assert f'"vocab":[["a",{float_text(value)}]]' in tokenizer.to_str()
    assert float(float_text(value)) == value


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=6), unique=True, max_size=8), st.text(max_size=8))
def test_any_text_is_escaped_as_serde_json_escapes_it(tokens, unknown):
    """Keys and values with quotes, backslashes, control characters and any code point."""
    tokenizer = Tokenizer(models.WordLevel({token: n for n, token in enumerate(tokens)}, unk_token=unknown))
    assert dumps(json.loads(tokenizer.to_str())) == tokenizer.to_str()
