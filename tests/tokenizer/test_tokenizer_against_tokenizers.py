"""``hf_bpe.Tokenizer`` against ``tokenizers.Tokenizer``, both loaded from the same ``tokenizer.json``, in the same
test: every field and method of each ``Encoding`` (overflowing windows included), ``decode``, the vocabulary and the
truncation and padding settings, on real model files (Qwen3, Llama-3.1, Gemma-2, Llama-2, Command-R+), a WordPiece
file trained by ``BertWordPieceTokenizer`` and a Unigram file trained by ``UnigramTrainer``, over multilingual text:
singles, pairs, pre-tokenized words, batches, truncation with stride and overflow (each strategy, each side) and
padding; then every real file the tests fetch (slow): ``to_str`` and ``save`` byte for byte, and its encodings;
``add_tokens``, ``add_special_tokens``, ``post_process`` and ``from_str``.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import multilingual_text
from real_tokenizers import EVERY_TOKENIZER_JSON, model_tokenizer_json, real_tokenizer_json
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, processors, trainers

import hf_bpe

REAL = ["qwen3", "llama3_1", "gemma2", "llama2", "command_r_plus"]
KINDS = [*REAL, "wordpiece", "unigram"]
LINES = multilingual_text(8, seed=38).splitlines()
TEXT = " ".join(LINES[:3])


def _wordpiece(folder: Path) -> Path:
    """A BERT WordPiece file trained by tokenizers' BertWordPieceTokenizer on the multilingual text."""
    from tokenizers import BertWordPieceTokenizer

    tokenizer = BertWordPieceTokenizer()
    tokenizer.train_from_iterator(multilingual_text(200, seed=1).splitlines(), vocab_size=400, show_progress=False)
    tokenizer.save(str(folder / "wordpiece.json"))
    return folder / "wordpiece.json"


def _unigram(folder: Path) -> Path:
    """A Unigram file trained by tokenizers' UnigramTrainer (Metaspace, ``<s> $A </s>``), with a ``<mask>`` that
    strips the space before it (``lstrip``) and a ``single_word`` token."""
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=300, special_tokens=["<unk>", "<s>", "</s>", "<pad>"], unk_token="<unk>", show_progress=False
    )
    tokenizer.train_from_iterator(multilingual_text(200, seed=2).splitlines(), trainer)
    tokenizer.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True, normalized=False)])
    tokenizer.add_tokens([AddedToken("the", single_word=True, normalized=False)])
    bos, eos = tokenizer.token_to_id("<s>"), tokenizer.token_to_id("</s>")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> $B:1 </s>:1", special_tokens=[("<s>", bos), ("</s>", eos)]
    )
    tokenizer.save(str(folder / "unigram.json"))
    return folder / "unigram.json"


@functools.cache
def _file(kind: str) -> Path:
    if kind in REAL:
        return model_tokenizer_json(kind)
    folder = Path(tempfile.mkdtemp(prefix=f"hf_bpe_{kind}_"))
    return _wordpiece(folder) if kind == "wordpiece" else _unigram(folder)


def _pair(kind: str) -> tuple[hf_bpe.Tokenizer, Tokenizer]:
    """Both tokenizers, loaded afresh from the same file (the settings a test changes stay in it)."""
    path = _file(kind)
    return _ours(path), Tokenizer.from_file(str(path))


@functools.cache
def _loaded(path: Path) -> Any:
    return hf_bpe.Tokenizer.from_file(path).file


def _ours(path: Path) -> hf_bpe.Tokenizer:
    return hf_bpe.Tokenizer(_loaded(path))  # the file read once: Gemma's merges take seconds


def _special(rust: Tokenizer) -> str:
    """An added special token of the file, to put in the text."""
    found = [token.content for token in rust.get_added_tokens_decoder().values() if token.special]
    return found[min(2, len(found) - 1)] if found else ""


def _texts(rust: Tokenizer) -> list[str]:
    special = _special(rust)
    return [TEXT, f"{LINES[3]}{special}{LINES[4]}", f"  {special} the <mask>x{LINES[5]}", "", LINES[6]]


def assert_same_encoding(ours: Any, rust: Any, where: str = "row") -> None:
    """Every field and method of two ``Encoding``s, their overflowing windows too."""
    fields = ["ids", "type_ids", "tokens", "offsets", "attention_mask", "special_tokens_mask", "word_ids"]
    fields += ["sequence_ids", "n_sequences"]
    for name in fields:
        assert getattr(ours, name) == getattr(rust, name), f"{where}.{name}"
    length = len(rust.ids)
    for sequence in range(rust.n_sequences):
        for word in range(max([w for w in rust.word_ids if w is not None], default=0) + 2):
            assert ours.word_to_tokens(word, sequence) == rust.word_to_tokens(word, sequence), (where, word, sequence)
            assert ours.word_to_chars(word, sequence) == rust.word_to_chars(word, sequence), (where, word, sequence)
        last = max((end for _, end in rust.offsets), default=0)
        for char in range(last + 2):
            assert ours.char_to_token(char, sequence) == rust.char_to_token(char, sequence), (where, char, sequence)
            assert ours.char_to_word(char, sequence) == rust.char_to_word(char, sequence), (where, char, sequence)
    for token in range(length + 1):
        assert ours.token_to_chars(token) == rust.token_to_chars(token), (where, token)
        assert ours.token_to_word(token) == rust.token_to_word(token), (where, token)
        assert ours.token_to_sequence(token) == rust.token_to_sequence(token), (where, token)
    assert len(ours.overflowing) == len(rust.overflowing), f"{where}.overflowing"
    for index, (mine, theirs) in enumerate(zip(ours.overflowing, rust.overflowing, strict=True)):
        assert_same_encoding(mine, theirs, f"{where}.overflowing[{index}]")


def _both(ours: Any, rust: Any, call: Callable[[Any], Any]) -> tuple[Any, Any]:
    """``call`` on each; where the reference raises, ours must raise too."""
    try:
        expected = call(rust)
    except Exception:
        with pytest.raises((ValueError, TypeError)):
            call(ours)
        return None, None
    return call(ours), expected


def _same_encodings(ours: Any, rust: Any, call: Callable[[Any], Any]) -> None:
    mine, theirs = _both(ours, rust, call)
    if isinstance(theirs, list):
        assert len(mine) == len(theirs)
        for index, (row, expected) in enumerate(zip(mine, theirs, strict=True)):
            assert_same_encoding(row, expected, f"batch[{index}]")
    elif theirs is not None:
        assert_same_encoding(mine, theirs)


@pytest.mark.parametrize("kind", KINDS)
def test_singles_pairs_and_decode_match_tokenizers(kind):
    ours, rust = _pair(kind)
    texts = _texts(rust)
    for text in texts:
        for add_special_tokens in (True, False):
            _same_encodings(ours, rust, lambda tok, t=text, a=add_special_tokens: tok.encode(t, add_special_tokens=a))
        for pair in (texts[1], ""):
            _same_encodings(ours, rust, lambda tok, t=text, p=pair: tok.encode(t, p))
        ids = rust.encode(text).ids
        for skip in (True, False):
            assert ours.decode(ids, skip_special_tokens=skip) == rust.decode(ids, skip_special_tokens=skip)
    batch_ids = [encoding.ids for encoding in rust.encode_batch(texts)]
    assert ours.decode_batch(batch_ids) == rust.decode_batch(batch_ids)
    assert ours.decode_batch(batch_ids, skip_special_tokens=False) == rust.decode_batch(
        batch_ids, skip_special_tokens=False
    )


@pytest.mark.parametrize("kind", KINDS)
def test_pretokenized_input_and_batches_match_tokenizers(kind):
    ours, rust = _pair(kind)
    texts = _texts(rust)
    words = [text.split() for text in texts]
    _same_encodings(ours, rust, lambda tok: tok.encode(words[0], is_pretokenized=True))
    _same_encodings(ours, rust, lambda tok: tok.encode(words[1], words[2], is_pretokenized=True))
    _same_encodings(ours, rust, lambda tok: tok.encode_batch(texts))
    _same_encodings(ours, rust, lambda tok: tok.encode_batch(list(zip(texts, texts[::-1], strict=True))))
    _same_encodings(ours, rust, lambda tok: tok.encode_batch(words, is_pretokenized=True))
    pairs = [(words[0], words[1]), (words[2], words[4])]
    _same_encodings(ours, rust, lambda tok: tok.encode_batch(pairs, is_pretokenized=True, add_special_tokens=False))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("strategy", ["longest_first", "only_first", "only_second"])
@pytest.mark.parametrize("direction", ["right", "left"])
def test_truncation_with_stride_and_overflow_matches_tokenizers(kind, strategy, direction):
    ours, rust = _pair(kind)
    texts = _texts(rust)
    for tok in (ours, rust):
        tok.enable_truncation(24, stride=5, strategy=strategy, direction=direction)
    assert ours.truncation == rust.truncation
    _same_encodings(ours, rust, lambda tok: tok.encode(texts[0]))
    _same_encodings(ours, rust, lambda tok: tok.encode("When?", texts[0]))
    _same_encodings(ours, rust, lambda tok: tok.encode(texts[0], texts[1]))
    _same_encodings(ours, rust, lambda tok: tok.encode(texts[0].split(), ["a", "b"], is_pretokenized=True))
    _same_encodings(ours, rust, lambda tok: tok.encode_batch([texts[1], texts[2]], add_special_tokens=False))
    for tok in (ours, rust):
        tok.no_truncation()
    assert ours.truncation is None is rust.truncation
    _same_encodings(ours, rust, lambda tok: tok.encode(texts[0]))


@pytest.mark.parametrize("kind", KINDS)
def test_padding_matches_tokenizers(kind):
    ours, rust = _pair(kind)
    texts = _texts(rust)
    settings: list[dict[str, Any]] = [
        {"pad_id": 3, "pad_token": "<pad>"},
        {"direction": "left", "pad_id": 1, "pad_type_id": 2, "pad_token": "[PAD]", "pad_to_multiple_of": 8},
        {"length": 90, "pad_id": 0},
    ]
    for setting in settings:
        for tok in (ours, rust):
            tok.enable_padding(**setting)
            tok.enable_truncation(40, stride=4)
        assert ours.padding == rust.padding
        _same_encodings(ours, rust, lambda tok: tok.encode_batch(texts))
        _same_encodings(ours, rust, lambda tok: tok.encode_batch([(texts[0], texts[1]), (texts[3], texts[4])]))
        _same_encodings(ours, rust, lambda tok: tok.encode(texts[4]))
    for tok in (ours, rust):
        tok.no_padding()
    assert ours.padding is None is rust.padding
    _same_encodings(ours, rust, lambda tok: tok.encode_batch(texts))


@pytest.mark.parametrize("kind", KINDS)
def test_vocabulary_matches_tokenizers(kind):
    ours, rust = _pair(kind)
    for added in (True, False):
        assert ours.get_vocab(with_added_tokens=added) == rust.get_vocab(with_added_tokens=added)
        assert ours.get_vocab_size(with_added_tokens=added) == rust.get_vocab_size(with_added_tokens=added)
    size = rust.get_vocab_size()
    for token_id in [*range(0, size, max(1, size // 500)), size - 1, size, size + 10]:
        assert ours.id_to_token(token_id) == rust.id_to_token(token_id), token_id
    for token in [*list(rust.get_vocab())[:300], _special(rust), "no such token ∅", ""]:
        assert ours.token_to_id(token) == rust.token_to_id(token), token
    for is_pair in (False, True):
        assert ours.num_special_tokens_to_add(is_pair) == rust.num_special_tokens_to_add(is_pair)


def test_a_stride_leaving_no_room_is_refused_as_tokenizers_refuses_it():
    ours, rust = _pair("unigram")
    with pytest.raises(Exception, match="stride"):
        rust.enable_truncation(5, stride=4)
    with pytest.raises(ValueError, match="stride=4"):
        ours.enable_truncation(5, stride=4)
    with pytest.raises(ValueError, match="strategy='shortest'"):
        ours.enable_truncation(5, strategy="shortest")


@pytest.mark.slow
@pytest.mark.parametrize("name", EVERY_TOKENIZER_JSON)
def test_every_real_file_writes_and_encodes_as_tokenizers(name, tmp_path):
    path = real_tokenizer_json(name)
    ours, rust = hf_bpe.Tokenizer.from_file(path), Tokenizer.from_file(str(path))
    assert ours.to_str() == rust.to_str()
    assert ours.to_str(pretty=True) == rust.to_str(pretty=True)
    ours.save(tmp_path / "ours.json")
    rust.save(str(tmp_path / "rust.json"))
    assert (tmp_path / "ours.json").read_bytes() == (tmp_path / "rust.json").read_bytes()
    texts = _texts(rust)
    for tok in (ours, rust):
        tok.enable_truncation(48, stride=6)
        tok.enable_padding(pad_id=0, pad_to_multiple_of=16)
    _same_encodings(ours, rust, lambda tok: tok.encode_batch([*texts, (texts[0], texts[1])]))
    _same_encodings(ours, rust, lambda tok: tok.encode(texts[0].split(), texts[4].split(), is_pretokenized=True))
    ids = rust.encode(texts[1]).ids
    assert ours.decode(ids, skip_special_tokens=False) == rust.decode(ids, skip_special_tokens=False)
    # The settings are part of the file too.
    assert ours.to_str() == rust.to_str()


#: What the added-token tests add: texts and AddedTokens with every flag, a token the vocabulary has, one added
#: twice, an empty one.
def _new_tokens(rust: Tokenizer) -> list[Any]:
    known = next(token for token in rust.get_vocab(with_added_tokens=False) if len(token) > 2)
    return [
        "hugging",
        known,
        AddedToken("<ent>", single_word=True),
        AddedToken("[loc]", lstrip=True, rstrip=True, normalized=False),
        AddedToken("Ωmega", normalized=True),
        AddedToken("<unset>"),  # normalized unless special: add_special_tokens makes it raw-matched
        "",
        "hugging",
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_added_tokens_match_tokenizers(kind):
    ours, rust = _pair(kind)
    new = _new_tokens(rust)
    assert ours.add_tokens(new[:4]) == rust.add_tokens(new[:4])
    assert ours.add_special_tokens(["<sp1>", *new[3:], AddedToken("<sp2>", normalized=True)]) == (
        rust.add_special_tokens(["<sp1>", *new[3:], AddedToken("<sp2>", normalized=True)])
    )
    assert ours.add_tokens(["<sp1>"]) == rust.add_tokens(["<sp1>"])  # the same content, other flags: added again
    assert ours.to_str() == rust.to_str()
    assert ours.get_vocab() == rust.get_vocab()
    flags = ("content", "single_word", "lstrip", "rstrip", "normalized", "special")
    assert {i: [getattr(t, f) for f in flags] for i, t in ours.get_added_tokens_decoder().items()} == {
        i: [getattr(t, f) for f in flags] for i, t in rust.get_added_tokens_decoder().items()
    }
    text = f"the hugging<ent> x<ent>y <unset> [loc]  Ωmega ΩMEGA <sp1>{LINES[2]}<sp2>{new[1]} hugging"
    _same_encodings(ours, rust, lambda tok: tok.encode(text, LINES[3]))
    ids = rust.encode(text).ids
    for skip in (True, False):
        assert ours.decode(ids, skip_special_tokens=skip) == rust.decode(ids, skip_special_tokens=skip)
    with pytest.raises(TypeError, match="got int: 5"):
        ours.add_tokens([5])


@pytest.mark.parametrize("kind", ["qwen3", "wordpiece", "unigram"])
def test_post_process_and_from_str_match_tokenizers(kind):
    ours, rust = _pair(kind)
    texts = _texts(rust)
    for tok in (ours, rust):
        tok.enable_truncation(20, stride=3, strategy="longest_first")
    mine, theirs = (tok.encode(texts[0], add_special_tokens=False) for tok in (ours, rust))
    pair_mine, pair_theirs = (
        ours.encode(texts[4], add_special_tokens=False),
        rust.encode(texts[4], add_special_tokens=False),
    )
    assert_same_encoding(ours.post_process(mine), rust.post_process(theirs))
    assert_same_encoding(ours.post_process(mine, pair_mine), rust.post_process(theirs, pair_theirs))
    assert_same_encoding(
        ours.post_process(mine, pair_mine, add_special_tokens=False),
        rust.post_process(theirs, pair_theirs, add_special_tokens=False),
    )
    assert_same_encoding(mine, theirs)  # the encodings given are left as they are
    again = hf_bpe.Tokenizer.from_str(rust.to_str())
    assert again.to_str() == rust.to_str()
    _same_encodings(again, rust, lambda tok: tok.encode(texts[1], texts[2]))
    with pytest.raises(ValueError, match=r"<string>: not valid JSON \(line 1, column 2"):
        hf_bpe.Tokenizer.from_str("{x")


def test_scores_are_written_as_tokenizers_writes_them(tmp_path):
    """Unigram scores in serde's float form (``-0.000015``, not Python's ``-1.5e-05``), by ``to_str`` and by the
    transformers class's ``save_pretrained``, each beside the reference's own writing of the same file."""
    from transformers import PreTrainedTokenizerFast

    pieces = [("<unk>", 0.0), ("a", -1.5e-05), ("b", -2.0), ("ab", -1e-07), ("▁", -12.25), ("c", -1e16)]
    rust = Tokenizer(models.Unigram(pieces, unk_id=0))
    rust.pre_tokenizer = pre_tokenizers.Metaspace()
    rust.save(str(tmp_path / "tokenizer.json"))
    ours = hf_bpe.Tokenizer.from_file(tmp_path / "tokenizer.json")
    assert ours.to_str() == rust.to_str()
    assert ours.to_str(pretty=True) == rust.to_str(pretty=True)
    hf_bpe.from_pretrained(tmp_path).save_pretrained(tmp_path / "ours")
    PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "tokenizer.json")).save_pretrained(tmp_path / "rust")
    assert (tmp_path / "ours" / "tokenizer.json").read_text() == (tmp_path / "rust" / "tokenizer.json").read_text()


@pytest.mark.parametrize("kind", KINDS)
def test_stages_inspect_as_tokenizers_does(kind):
    """``normalizer.normalize_str``, ``pre_tokenizer.pre_tokenize_str`` (pieces and offsets) and ``decoder.decode``,
    as the HF course inspects a tokenizer's stages; None where the file has no such stage."""
    ours, rust = _pair(kind)
    texts = [*_texts(rust), "Hello, how are  you?", "  héllo\tthere ¿qué? 東京では"]
    for stage in ("normalizer", "pre_tokenizer", "decoder"):
        assert (getattr(ours, stage) is None) == (getattr(rust, stage) is None), stage
    for text in texts:
        if rust.normalizer is not None:
            assert ours.normalizer.normalize_str(text) == rust.normalizer.normalize_str(text), text
        if rust.pre_tokenizer is not None:
            assert ours.pre_tokenizer.pre_tokenize_str(text) == rust.pre_tokenizer.pre_tokenize_str(text), text
        if rust.decoder is not None:
            tokens = rust.encode(text).tokens
            assert ours.decoder.decode(tokens) == rust.decoder.decode(tokens), text
