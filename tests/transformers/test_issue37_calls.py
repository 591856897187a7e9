"""Calls that gave less than the Rust backend on some files (#37), judged by the Rust backend loading the same file:
``tokenize`` on a T5-like Unigram file names an unknown stretch by its text; ``return_offsets_mapping`` (and every
other option) on files whose added tokens strip white space or match single words only; ``decode`` of a byte-level
vocabulary's token outside the byte alphabet."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from real_tokenizers import model_tokenizer_json
from rust_parity import calls, check
from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from tokenizers.pre_tokenizers import ByteLevel
from transformers import PreTrainedTokenizerFast

import hf_bpe

CORPUS = ["the quick brown fox jumps over the lazy dog", "hello world, hello there", "a b c d e f g h"] * 20
#: Added tokens as T5 for SD3 and a Khmer SentencePiece file carry them: stripping white space on either side.
STRIPPING = [
    AddedToken("<extra_id_0>", lstrip=True, rstrip=True, special=True, normalized=False),
    AddedToken("<extra_id_1>", lstrip=True, special=True, normalized=False),
    AddedToken("<sep>", rstrip=True, special=False, normalized=False),
    AddedToken("<w>", single_word=True, special=False, normalized=False),
]
SPECIALS = ["<pad>", "</s>", "<unk>", "<extra_id_0>", "<extra_id_1>", "<sep>", "<w>"]
TEXTS = [
    "hello ١ world\n\t👩",
    "the fox ١٢ jumps 👩‍💻",
    "hello <extra_id_0>  world",
    "a   <extra_id_1>b <sep>   c",
    "x<w>y <w> z",
    "<extra_id_0><extra_id_0>  <sep><sep>",
    "",
]


def _t5_like(path: Path) -> Path:
    """A Unigram file T5's way (NFKC, white space split, Metaspace, ``$A </s>``), trained by tokenizers'
    UnigramTrainer on Latin text only: Arabic digits, emoji and tabs are unknown pieces."""
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.normalizer = normalizers.NFKC()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")]
    )
    tokenizer.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    trainer = trainers.UnigramTrainer(
        vocab_size=60, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>", show_progress=False
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    tokenizer.add_special_tokens(STRIPPING)
    eos = tokenizer.token_to_id("</s>")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", eos)]
    )
    path.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(path / "tokenizer.json"))
    return path / "tokenizer.json"


def _gpt2_with_mask(path: Path) -> Path:
    """GPT-2's real file with RoBERTa's ``<mask>`` (``lstrip``) and the stripping tokens above added."""
    tokenizer = Tokenizer.from_file(str(model_tokenizer_json("gpt2")))
    tokenizer.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True, normalized=False), *STRIPPING])
    path.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(path / "tokenizer.json"))
    return path / "tokenizer.json"


@functools.cache
def _pair(maker: str, folder: str) -> tuple[Any, Any]:
    path = {"t5": _t5_like, "gpt2": _gpt2_with_mask}[maker](Path(folder))
    return hf_bpe.from_pretrained(path), PreTrainedTokenizerFast(tokenizer_file=str(path))


@pytest.fixture(scope="module")
def t5(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    ours, rust = _pair("t5", str(tmp_path_factory.mktemp("t5")))
    assert type(ours).__name__ == "PipelineTokenizer"
    return ours, rust


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    ours, rust = _pair("gpt2", str(tmp_path_factory.mktemp("gpt2")))
    assert type(ours).__name__ == "BPETokenizer"
    return ours, rust


def test_tokenize_names_an_unknown_piece_by_its_text(t5: tuple[Any, Any]) -> None:
    ours, rust = t5
    assert rust.tokenize("hello ١ world\n\t👩")[-1] == "👩"
    for text in TEXTS:
        assert ours.tokenize(text) == rust.tokenize(text), text
        assert ours.tokenize(text, add_special_tokens=True) == rust.tokenize(text, add_special_tokens=True), text
        assert ours.tokenize(text, "١ <sep> x") == rust.tokenize(text, "١ <sep> x"), text
        assert ours.tokenize(text, split_special_tokens=True) == rust.tokenize(text, split_special_tokens=True)


def test_tokenize_refuses_an_option_it_does_not_take(t5: tuple[Any, Any]) -> None:
    with pytest.raises(ValueError, match="truncation"):
        t5[0].tokenize("hello", truncation=True, max_length=1)


@pytest.mark.parametrize("name", ["t5", "gpt2"])
def test_stripping_added_tokens_keep_every_option(name: str, request: pytest.FixtureRequest) -> None:
    ours, rust = request.getfixturevalue(name)
    options = {"return_offsets_mapping": True, "return_special_tokens_mask": True, "return_length": True}
    for text in TEXTS:
        expected = rust(text, **options)
        assert "offset_mapping" in expected
        assert dict(ours(text, **options)) == dict(expected), text
        assert ours(text)["input_ids"] == expected["input_ids"], text
        assert dict(ours(text, text[::-1], **options)) == dict(rust(text, text[::-1], **options)), text
    assert dict(ours(TEXTS, **options)) == dict(rust(TEXTS, **options))


@pytest.mark.parametrize("name", ["t5", "gpt2"])
@settings(max_examples=40, deadline=None)
@given(data=calls([*SPECIALS, "<mask>", " <mask>  ", "<extra_id_0> "]))
def test_stripping_added_tokens_give_the_rust_backends_encodings_for_any_call(
    name: str, data: tuple[Any, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    ours, rust = _pair(name, str(tmp_path_factory.getbasetemp() / f"any-{name}"))
    text, options = data
    check(ours, rust, text, options)


def _with_foreign_token(path: Path) -> tuple[Path, dict[str, int]]:
    """A byte-level BPE file whose vocabulary holds tokens that are not byte-level text (as a 200k code BPE holds
    ``'\\U000f54ff'``)."""
    vocab = {char: index for index, char in enumerate(sorted(ByteLevel.alphabet()))}
    for token in ("\U000f54ff", "ab\u4e00", "Ġh"):
        vocab[token] = len(vocab)
    tokenizer = Tokenizer(models.BPE(vocab, [("Ġ", "h")]))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    path.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(path / "tokenizer.json"))
    return path / "tokenizer.json", vocab


def test_decode_gives_a_foreign_tokens_own_text(tmp_path: Path) -> None:
    path, vocab = _with_foreign_token(tmp_path)
    reference = Tokenizer.from_file(str(path))
    rust = PreTrainedTokenizerFast(tokenizer_file=str(path))
    ours = hf_bpe.from_pretrained(path)
    assert type(ours).__name__ == "BPETokenizer"
    engine = hf_bpe.Tokenizer.from_file(path)
    foreign, mixed, space_h = vocab["\U000f54ff"], vocab["ab\u4e00"], vocab["Ġh"]
    for ids in ([foreign], [mixed], [space_h, foreign, vocab["g"], mixed, vocab["Ã"]]):
        expected = reference.decode(ids)
        assert expected == rust.decode(ids)
        assert ours.decode(ids) == expected
        assert ours.convert_tokens_to_string(ours.convert_ids_to_tokens(ids)) == expected
        assert engine.decode(ids, skip_special_tokens=False) == expected
    assert ours.decode([space_h, foreign]) == " h\U000f54ff"


def test_unigram_tokenizer_tokenizes_and_strips_as_the_rust_backend(tmp_path: Path) -> None:
    from transformers import TokenizersBackend

    from hf_bpe.models.unigram.files import write_unigram_dir
    from hf_bpe.models.unigram.trainer import UnigramOptions, train_unigram
    from hf_bpe.pipeline import sentencepiece as recipe

    counts = recipe.count_words(recipe.lines("\n".join(CORPUS)))
    result = train_unigram(counts, UnigramOptions(vocab_size=60, unk_token="<unk>", special_tokens=("<pad>",)))
    write_unigram_dir(tmp_path, result.pieces, result.unk_id, result.special_tokens)
    ours, rust = hf_bpe.from_pretrained(tmp_path), TokenizersBackend.from_pretrained(tmp_path)
    assert type(ours).__name__ == "UnigramTokenizer"
    for tokenizer in (ours, rust):
        tokenizer.add_tokens(list(STRIPPING), special_tokens=True)
    options = {"return_offsets_mapping": True, "return_special_tokens_mask": True}
    for text in TEXTS:
        assert ours.tokenize(text) == rust.tokenize(text), text
        assert ours.tokenize(text, text, add_special_tokens=True) == rust.tokenize(text, text, add_special_tokens=True)
        assert dict(ours(text, **options)) == dict(rust(text, **options)), text
