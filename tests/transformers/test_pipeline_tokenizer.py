"""PipelineTokenizer against the Rust backend loading the same ``tokenizer.json``: files built with ``tokenizers``
for the models and post-processors real files use beyond BPE (WordLevel, WordPiece, Unigram with byte fallback;
BertProcessing, RobertaProcessing, ByteLevel's trimmed offsets), each read by hf_bpe's twins and judged by the
Rust backend on every call option (hypothesis, tests/rust_parity.py)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from rust_parity import calls, check
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
from transformers import PreTrainedTokenizerFast

import hf_bpe

WORDS = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "hello", "world", "Ġhello", "Ġworld", "a", "b", "ab", "##b", "##c"]


def _word_level() -> Tokenizer:
    tokenizer = Tokenizer(models.WordLevel({word: i for i, word in enumerate(WORDS)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    tokenizer.pre_tokenizer = pre_tokenizers.Split(" ", "removed")
    tokenizer.post_processor = processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))
    return tokenizer


def _wordpiece() -> Tokenizer:
    tokenizer = Tokenizer(models.WordPiece({word: i for i, word in enumerate(WORDS)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(" ", "removed")
    tokenizer.post_processor = processors.RobertaProcessing(("[SEP]", 2), ("[CLS]", 1), trim_offsets=False)
    return tokenizer


def _unigram() -> Tokenizer:
    pieces = [("<unk>", 0.0), ("▁", -2.0), ("▁hello", -3.0), ("▁world", -3.5), ("l", -4.0), ("o", -4.0)]
    pieces += [(f"<0x{byte:02X}>", -10.0) for byte in range(256)]
    tokenizer = Tokenizer(models.Unigram(pieces, unk_id=0, byte_fallback=True))
    tokenizer.normalizer = normalizers.Sequence([normalizers.Replace(" ", "▁"), normalizers.Prepend("▁")])
    tokenizer.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    return tokenizer


def _metaspace_unigram() -> Tokenizer:
    """T5/ALBERT-like: Metaspace with prepend_scheme "first" (no ▁ put before a stretch after an added token)."""
    tokenizer = _unigram()
    tokenizer.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace("  ", " ")])
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    tokenizer.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="first")
    tokenizer.add_special_tokens(["[CLS]", "[SEP]"])
    tokenizer.post_processor = processors.TemplateProcessing(
        single="$A [SEP]", pair="$A [SEP] $B:1 [SEP]:1", special_tokens=[("[SEP]", tokenizer.token_to_id("[SEP]"))]
    )
    return tokenizer


def _trimmed_bpe() -> Tokenizer:
    vocab = {"[CLS]": 0, "[SEP]": 1, "Ġ": 2, "h": 3, "i": 4, "Ġh": 5, "Ġhi": 6, "ĠĠ": 7}
    tokenizer = Tokenizer(models.BPE(vocab, [("Ġ", "h"), ("Ġh", "i"), ("Ġ", "Ġ")]))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(" ", "merged_with_next")
    tokenizer.normalizer = normalizers.Replace(" ", "Ġ")
    tokenizer.post_processor = processors.Sequence(
        [
            processors.ByteLevel(trim_offsets=True),
            processors.TemplateProcessing(
                "[CLS] $A [SEP]", "[CLS] $A [SEP] $B:1 [SEP]:1", [("[CLS]", 0), ("[SEP]", 1)]
            ),
        ]
    )
    return tokenizer


FILES = {
    "word_level": _word_level,
    "wordpiece": _wordpiece,
    "unigram": _unigram,
    "metaspace_unigram": _metaspace_unigram,
    "trimmed_bpe": _trimmed_bpe,
}
TEXTS = ["hello world", "Hello  wörld ab abc", " hi  hi hih", "héllo ol x\u00e9", "", "  ", "[CLS] hello [SEP]"]


def _both(name: str, directory) -> tuple:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "tokenizer.json"
    FILES[name]().save(str(path))
    ours = hf_bpe.from_pretrained(path)
    rust = PreTrainedTokenizerFast(tokenizer_file=str(path))
    return ours, rust


@pytest.mark.parametrize("name", list(FILES))
def test_each_model_and_post_processor_encodes_as_the_rust_backend(name, tmp_path):
    ours, rust = _both(name, tmp_path)
    assert type(ours).__name__ == "PipelineTokenizer"
    options = {"return_offsets_mapping": True, "return_special_tokens_mask": True, "return_token_type_ids": True}
    for text in TEXTS:
        expected = rust(text, **options)
        assert dict(ours(text, **options)) == dict(expected), (name, text)
        assert dict(ours(text, text[::-1], **options)) == dict(rust(text, text[::-1], **options)), (name, text)
        ids = expected["input_ids"]
        assert ours.decode(ids) == rust.decode(ids), (name, text)


_LOADED: dict[str, tuple] = {}


@pytest.mark.parametrize("name", list(FILES))
@settings(max_examples=30, deadline=None)
@given(data=calls(["[CLS]", "[SEP]"]))
def test_each_file_gives_the_rust_backends_encodings_for_any_call(name, data, tmp_path_factory):
    if name not in _LOADED:
        _LOADED[name] = _both(name, tmp_path_factory.mktemp(name))
    ours, rust = _LOADED[name]
    text, options = data
    check(ours, rust, text, options)


def test_a_model_hf_bpe_does_not_implement_is_refused_by_its_json_path(tmp_path):
    _word_level().save(str(tmp_path / "tokenizer.json"))
    data = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    data["model"]["type"] = "WordSoup"
    (tmp_path / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=r'tokenizer\.json: model\.type is "WordSoup": the model'):
        hf_bpe.from_pretrained(tmp_path)
    with pytest.raises(FileNotFoundError, match="no such file or directory"):
        hf_bpe.from_pretrained(tmp_path / "missing")


def _edited(tmp_path, path: str, value) -> None:
    """The word-level file with ``value`` put at ``path`` (dotted keys, ``[i]`` for list items)."""
    _word_level().save(str(tmp_path / "tokenizer.json"))
    data = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    *parents, last = path.split(".")
    node = data
    for key in parents:
        node = node[key]
    node[last] = value
    (tmp_path / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize(
    ("path", "value", "named"),
    [
        ("pre_tokenizer", {"type": "UnicodeScripts"}, r"pre_tokenizer\.type"),
        ("normalizer", {"type": "Sparkle"}, r"normalizer\.type"),
        ("decoder", {"type": "Sparkle"}, r"decoder\.type"),
        ("post_processor", {"type": "Sparkle"}, r"post_processor\.type"),
    ],
)
def test_each_component_hf_bpe_does_not_implement_is_refused_by_its_json_path(path, value, named, tmp_path):
    """What hf_bpe does not implement, fed one at a time: the Rust backend loads each real one; hf_bpe names it."""
    _edited(tmp_path, path, value)
    if "Sparkle" not in json.dumps(value):
        assert PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "tokenizer.json"))("hello")["input_ids"]
    with pytest.raises(ValueError, match=rf"tokenizer\.json: {named}") as refused:
        hf_bpe.from_pretrained(tmp_path)
    assert "PipelineTokenizer does not implement" in str(refused.value)


def test_a_bpe_dropout_out_of_range_is_refused_by_its_json_path(tmp_path):
    """(Subword affixes are read: tests/transformers/test_bpe_affixes.py.)"""
    _trimmed_bpe().save(str(tmp_path / "tokenizer.json"))
    data = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    data["model"]["dropout"] = 1.5
    (tmp_path / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=r"tokenizer\.json: model\.dropout is"):
        hf_bpe.from_pretrained(tmp_path)


def _dropout_bpe(dropout: float | None) -> Tokenizer:
    """Merges that build ``abcdefgh`` in several ways: how often each segmentation comes up shows how merges
    are skipped and come back."""
    letters = "abcdefgh"
    vocab = {char: i for i, char in enumerate(letters)}
    merges = [("a", "b"), ("c", "d"), ("e", "f"), ("g", "h"), ("b", "c"), ("ab", "cd"), ("ef", "gh"), ("abcd", "efgh")]
    for left, right in merges:
        vocab.setdefault(left + right, len(vocab))
    return Tokenizer(models.BPE(vocab, merges, dropout=dropout))


def _segmentations(encode, word: str, times: int) -> dict[tuple[str, ...], float]:
    counts: dict[tuple[str, ...], int] = {}
    for _ in range(times):
        key = tuple(encode(word))
        counts[key] = counts.get(key, 0) + 1
    return {key: count / times for key, count in counts.items()}


@pytest.mark.parametrize("dropout", [0.2, 0.5, 0.8])
def test_bpe_dropout_samples_segmentations_as_often_as_the_rust_model(dropout, tmp_path):
    """Not bit-identical (each side draws its own random numbers), but the same distribution: over 4,000 draws
    of one word each, every segmentation's share is within 0.04 of the Rust model's (the sampling error of a share
    over 4,000 draws is at most 0.008; a merge skipped for good instead of coming back after the next merge shifts
    shares by more than 0.1)."""
    _dropout_bpe(dropout).save(str(tmp_path / "tokenizer.json"))
    rust = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    ours = hf_bpe.from_pretrained(tmp_path / "tokenizer.json")
    assert type(ours).__name__ == "PipelineTokenizer"
    theirs = _segmentations(lambda word: rust.encode(word).tokens, "abcdefgh", 4000)
    mine = _segmentations(ours.tokenize, "abcdefgh", 4000)
    for key in theirs.keys() | mine.keys():
        assert abs(theirs.get(key, 0.0) - mine.get(key, 0.0)) < 0.04, (key, theirs.get(key), mine.get(key))
    assert len(theirs) > 3  # the word really is cut in many ways


@pytest.mark.parametrize("dropout", [None, 0.0])
def test_no_dropout_gives_the_rust_models_one_segmentation(dropout, tmp_path):
    _dropout_bpe(dropout).save(str(tmp_path / "tokenizer.json"))
    rust = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    ours = hf_bpe.from_pretrained(tmp_path / "tokenizer.json")
    for word in ("abcdefgh", "abcd", "bcde", "hgfedcba", "aabbccdd"):
        assert ours.tokenize(word) == rust.encode(word).tokens, word
