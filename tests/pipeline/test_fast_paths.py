"""The pipeline's fast paths against ``tokenizers``' Rust ``Tokenizer`` loaded from the same file: the BPE model's
``▁`` cuts and cache of parts (:class:`~hf_bpe.models.bpe.symbols.SymbolBPE`) and the span-free
``normalize_str`` / ``pieces_str`` path :meth:`~hf_bpe.pipeline.pipeline.Pipeline.encode` takes. Each file is
encoded through one instance several times, in two orders, with each fast path on and forced off; ids (and, through
``encode_with_offsets``, offsets) must be the Rust backend's every time."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import multilingual_text
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from hf_bpe.models.bpe.symbols import SymbolBPE
from hf_bpe.models.unigram.encoder import UnigramEncoder
from hf_bpe.models.wordpiece.encoder import WordPieceEncoder
from hf_bpe.pipeline.pipeline import Pipeline
from hf_bpe.tokenizer.serialization import read_pipeline_json
from hf_bpe.tokenizer.tokenizer import Tokenizer as Ours

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from real_tokenizers import bert_base_uncased_vocab, model_tokenizer_json

META = "\u2581"


def _texts(debian_corpora: dict[str, Path]) -> list[str]:
    """Multilingual lines and 40-line documents of each real corpus (first 60 kB of each)."""
    texts = [multilingual_text(40, seed=seed) for seed in range(3)]
    for path in debian_corpora.values():
        lines = path.read_text(encoding="utf-8")[:60_000].splitlines(keepends=True)
        texts += ["".join(lines[i : i + 40]) for i in range(0, len(lines), 40)]
    return texts


def _sentencepiece_bpe_crossing_meta(root: Path) -> Path:
    """A Llama-2-style file (Prepend and Replace normalizers, no pre-tokenizer: a text is one word) trained by
    ``tokenizers`` on whole lines, so that its merges join across ``▁`` (``e▁``, ``▁▁``)."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True, byte_fallback=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend(META), normalizers.Replace(" ", META)])
    tok.decoder = decoders.Sequence([decoders.Replace(META, " "), decoders.ByteFallback(), decoders.Fuse()])
    lines = multilingual_text(400, seed=7).splitlines()
    bytes_ = [f"<0x{byte:02X}>" for byte in range(256)]
    tok.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=3000, special_tokens=["<unk>", *bytes_]))
    path = root / "crossing.json"
    tok.save(str(path))
    return path


def _unigram(root: Path, prepend_scheme: str) -> Path:
    """A Unigram file trained by ``tokenizers`` (NFKC, a Replace of space runs, Metaspace)."""
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme=prepend_scheme)
    tok.decoder = decoders.Metaspace(prepend_scheme=prepend_scheme)
    lines = multilingual_text(400, seed=3).splitlines()
    tok.train_from_iterator(
        lines, trainers.UnigramTrainer(vocab_size=2000, unk_token="<unk>", special_tokens=["<unk>"])
    )
    path = root / f"unigram-{prepend_scheme}.json"
    tok.save(str(path))
    return path


def _bert(root: Path) -> Path:
    """bert-base-uncased's vocabulary as ``tokenizers``' ``BertWordPieceTokenizer`` writes it (BertNormalizer,
    BertPreTokenizer, WordPiece)."""
    from tokenizers import BertWordPieceTokenizer

    path = root / "bert.json"
    BertWordPieceTokenizer(str(bert_base_uncased_vocab()), lowercase=True)._tokenizer.save(str(path))
    return path


FILES: dict[str, Callable[[Path], Path]] = {
    "llama2": lambda root: model_tokenizer_json("llama2"),
    "gemma3": lambda root: model_tokenizer_json("gemma3"),
    "crossing": _sentencepiece_bpe_crossing_meta,
    "unigram": lambda root: _unigram(root, "always"),
    "unigram-first": lambda root: _unigram(root, "first"),
    "bert": _bert,
}


@pytest.fixture(scope="module")
def texts(debian_corpora: dict[str, Path]) -> list[str]:
    return _texts(debian_corpora)


@pytest.fixture(scope="module", params=list(FILES))
def loaded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Ours]:
    path = FILES[request.param](tmp_path_factory.mktemp(request.param))
    return path, Ours.from_file(path)


def _ids(tok: Ours, text: str) -> list[int]:
    """The ids of ``text`` on the path ``tok(texts)`` takes: the added tokens matched in the raw text cut it, and
    each stretch between them goes through :meth:`Pipeline.encode` (no offsets)."""
    ids: list[int] = []
    for start, end, token in tok._added_spans(text):
        ids += [tok._added_ids[token]] if token is not None else tok.pipeline.encode(text[start:end], start)
    return ids


class _Forgetful(dict):  # type: ignore[type-arg]
    """A cache that keeps nothing."""

    def __setitem__(self, key: object, value: object) -> None:
        pass


def _fast_paths_off(monkeypatch: pytest.MonkeyPatch, pipeline: Pipeline) -> None:
    monkeypatch.setitem(pipeline.__dict__, "_span_free", False)
    monkeypatch.setattr(SymbolBPE, "_meta_parts", lambda self, word: [word])
    monkeypatch.setattr(SymbolBPE, "_parts", lambda self, word: [word])  # merged whole, never cut
    monkeypatch.setattr(SymbolBPE, "_remember", lambda self, part, pieces: None)
    monkeypatch.setattr(SymbolBPE, "token_ids", None)  # the pipeline takes tokenize's ids then
    if isinstance(pipeline.model, WordPieceEncoder | UnigramEncoder):
        monkeypatch.setattr(pipeline.model, "_sized_cache", _Forgetful())
        monkeypatch.setattr(type(pipeline.model), "token_ids", None)  # the pipeline takes tokenize's ids then
    if isinstance(pipeline.model, UnigramEncoder):
        monkeypatch.setattr(pipeline.model, "_cache", _Forgetful())
    if isinstance(pipeline.model, WordPieceEncoder):
        monkeypatch.setattr(pipeline.model, "_id_cache", _Forgetful())


@pytest.mark.parametrize("fast", [True, False], ids=["fast-paths", "forced-off"])
def test_ids_and_offsets_are_the_rust_backends_in_any_order(loaded, texts, fast, monkeypatch) -> None:
    path, tok = loaded
    rust = Tokenizer.from_file(str(path))
    expected = rust.encode_batch(texts, add_special_tokens=False)
    if not fast:
        _fast_paths_off(monkeypatch, tok.pipeline)
    tok.pipeline.model.clear_cache()
    for order in (range(len(texts)), reversed(range(len(texts))), range(len(texts))):
        for i in order:
            assert _ids(tok, texts[i]) == expected[i].ids, (path.name, i)
    for i in reversed(range(len(texts))):
        found = tok.encode(texts[i], add_special_tokens=False)
        assert (found.ids, found.offsets) == (expected[i].ids, expected[i].offsets), (path.name, i)


def test_encode_takes_the_span_free_path_where_no_step_reads_spans(loaded, texts, monkeypatch) -> None:
    path, tok = loaded
    pipeline = tok.pipeline
    rust = Tokenizer.from_file(str(path))
    reads_spans = path.name == "unigram-first.json"
    assert pipeline._span_free is not reads_spans

    def refused(*args: object) -> None:
        raise AssertionError("encode() asked for spans")

    if not reads_spans:
        monkeypatch.setattr(type(pipeline.normalizer), "normalize", refused)
        monkeypatch.setattr(type(pipeline.pre_tokenizer), "pre_tokenize", refused)
    for text in texts[:8]:
        assert _ids(tok, text) == rust.encode(text, add_special_tokens=False).ids


def test_normalize_str_and_pre_tokenize_str_are_the_rust_backends(loaded, texts) -> None:
    path, tok = loaded
    pipeline = tok.pipeline
    rust = Tokenizer.from_file(str(path))
    for text in texts:
        normalized = pipeline.normalizer.normalize_str(text)
        if rust.normalizer is not None:
            assert normalized == rust.normalizer.normalize_str(text)
        if rust.pre_tokenizer is not None and not pipeline.pre_tokenizer.reads_spans:
            expected = [piece for piece, _ in rust.pre_tokenizer.pre_tokenize_str(normalized)]
            assert pipeline.pre_tokenizer.pieces_str(normalized) == expected


def test_a_merge_across_meta_keeps_its_characters_together(tmp_path) -> None:
    path = _sentencepiece_bpe_crossing_meta(tmp_path)
    model = read_pipeline_json(path).pipeline.model
    merged = {model.id_to_token[token_id] for token_id in model._id_merges[1]}
    crossing = {token[token.index(META) - 1] for token in merged if META in token[1:]}
    assert crossing, "the trained file has no merge across ▁"
    rust = Tokenizer.from_file(str(path))
    for char in sorted(crossing)[:20]:
        word = f"{META}a{char}{META}b"
        assert model._meta_parts(word) == [word]  # never cut between a character and the ▁ a merge joins it to
        got = [token_id for token_id, _ in model.tokenize(word)]
        assert got == [token.id for token in rust.model.tokenize(word)]


CODE_POINTS = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
NORMALIZERS = {
    "bert-uncased": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                     "strip_accents": None, "lowercase": True},
    "nfd": {"type": "NFD"},
    "nfkd": {"type": "NFKD"},
    "nfc": {"type": "NFC"},
    "nfkc": {"type": "NFKC"},
    "lowercase": {"type": "Lowercase"},
    "strip-accents": {"type": "StripAccents"},
    "nmt": {"type": "Nmt"},
    "strip": {"type": "Strip", "strip_left": True, "strip_right": True},
    "replace-string": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
    "replace-dot": {"type": "Replace", "pattern": {"String": "."}, "content": "<.>"},
    "replace-regex": {"type": "Replace", "pattern": {"Regex": " {2,}|a+"}, "content": "_"},
    "prepend": {"type": "Prepend", "prepend": "\u2581"},
}  # fmt: skip


@pytest.mark.parametrize("name", list(NORMALIZERS))
def test_normalize_str_is_the_rust_normalizers_on_every_code_point(name) -> None:
    import json

    from hf_bpe.pipeline.normalizers import normalizer_from_json

    data = NORMALIZERS[name]
    ours = normalizer_from_json(data)
    reference = Tokenizer.from_str(
        json.dumps(
            {"version": "1.0", "normalizer": data, "model": {"type": "WordLevel", "vocab": {}, "unk_token": "?"}}
        )
    ).normalizer
    for start in range(0, len(CODE_POINTS), 2048):
        # Each character after a letter and before a mark, so that compositions and reorderings are exercised too.
        block = "".join(f"a{char}\u0301 " for char in CODE_POINTS[start : start + 2048])
        if ours.normalize_str(block) != reference.normalize_str(block):
            wrong = [c for c in CODE_POINTS[start : start + 2048]
                     if ours.normalize_str(f"a{c}\u0301 ") != reference.normalize_str(f"a{c}\u0301 ")]  # fmt: skip
            assert wrong == [], [f"U+{ord(c):04X}" for c in wrong[:20]]


@pytest.mark.parametrize("spelling", ["lists", "strings", "mixed"])
def test_merges_read_in_c_or_one_by_one_load_the_rust_backends_model(tmp_path, spelling) -> None:
    import json

    data = json.loads(_sentencepiece_bpe_crossing_meta(tmp_path).read_text(encoding="utf-8"))
    pairs = [merge.split(" ") if isinstance(merge, str) else merge for merge in data["model"]["merges"]]
    spelled = {"lists": pairs, "strings": [" ".join(pair) for pair in pairs]}
    spelled["mixed"] = [" ".join(pair) if i % 2 else pair for i, pair in enumerate(pairs)]
    data["model"]["merges"] = spelled[spelling]
    path = tmp_path / f"{spelling}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    if spelling == "mixed":  # tokenizers reads one kind throughout (MergeType, an untagged enum)
        with pytest.raises(Exception, match="MergeType"):
            Tokenizer.from_file(str(path))
        with pytest.raises(ValueError, match=r"merge 2 is .*, but the merges before it are pairs"):
            read_pipeline_json(path)
        return
    ours, rust = read_pipeline_json(path).pipeline, Tokenizer.from_file(str(path))
    for text in (multilingual_text(20, seed=11), "a▁b  c"):
        assert ours.encode(text) == rust.encode(text, add_special_tokens=False).ids
    # One malformed merge: refused by both, hf_bpe naming it.
    data["model"]["merges"][4] = " ".join(pairs[4]).replace(" ", "  ")
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(Exception):  # noqa: B017 (the Rust backend's own error type)
        Tokenizer.from_file(str(path))
    with pytest.raises(ValueError, match="merge 5 is"):
        read_pipeline_json(path)


PRE_TOKENIZERS = {
    "bert": {"type": "BertPreTokenizer"},
    "whitespace-split": {"type": "WhitespaceSplit"},
    "split-space": {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": False},
    "metaspace": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
    "metaspace-never": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "never", "split": True},
    "metaspace-whole": {"type": "Metaspace", "replacement": "_", "prepend_scheme": "always", "split": False},
    "metaspace-sequence": {"type": "Sequence", "pretokenizers": [
        {"type": "WhitespaceSplit"}, {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always"}]},
    "digits": {"type": "Digits", "individual_digits": True},
    "punctuation": {"type": "Punctuation", "behavior": "Isolated"},
}  # fmt: skip


@pytest.mark.parametrize("name", list(PRE_TOKENIZERS))
def test_pre_tokenize_str_is_the_rust_pre_tokenizers_on_every_code_point(name) -> None:
    import json

    from hf_bpe.pipeline.pre_tokenizers import pre_tokenizer_from_json

    data = PRE_TOKENIZERS[name]
    ours = pre_tokenizer_from_json(data)
    model = {"type": "WordLevel", "vocab": {}, "unk_token": "?"}
    reference = Tokenizer.from_str(json.dumps({"version": "1.0", "pre_tokenizer": data, "model": model})).pre_tokenizer
    for start in range(0, len(CODE_POINTS), 2048):
        # Each character between letters, beside a space and a digit: every cut a class can make.
        block = "".join(f"a{char}b {char}1" for char in CODE_POINTS[start : start + 2048])
        expected = [piece for piece, _ in reference.pre_tokenize_str(block)]
        if ours.pieces_str(block) != expected:
            wrong = [c for c in CODE_POINTS[start : start + 2048]
                     if ours.pieces_str(f"a{c}b {c}1")
                     != [piece for piece, _ in reference.pre_tokenize_str(f"a{c}b {c}1")]]  # fmt: skip
            assert wrong == [], [f"U+{ord(c):04X}" for c in wrong[:20]]
