"""hf_bpe's SentencePiece BPE trainer (:mod:`hf_bpe.models.sentencepiece.train_bpe`) judged in each test by
sentencepiece 0.2.3's own ``SentencePieceTrainer`` (``model_type=bpe``) on the same text: both ``.model`` files are
parsed with sentencepiece's own ``sentencepiece_model_pb2`` and compared field by field (every piece, score and type;
the trainer spec but its input and model prefix; the normalizer spec), and both encode held-out text with
``SentencePieceProcessor`` to the same ids.

The charsmap rules (``nmt_nfkc``, sentencepiece's default, and ``nfkc``, ``nmt_nfkc_cf``, ``nfkc_cf``) are judged
the same way on corpora mixed with text each rule changes, and hf_bpe's normalizer against sentencepiece's own
``SentencePieceNormalizer``.

Corpora: slices of the Debian English, Japanese, Chinese and Russian corpora (``debian_corpora``) and Python's own
standard library sources (code: long lines, digits, indentation runs).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import pytest
import sentencepiece
from sentencepiece import sentencepiece_model_pb2
from spm_reference import assert_same_model, lines_of, spm_train

from hf_bpe.models.sentencepiece.train_bpe import SentencePieceOptions, count_words, train_bpe, train_bpe_from_text

#: Training slice (bytes) and held-out slice of each corpus.
TRAIN = slice(0, 200_000)
HELD_OUT = slice(700_000, 800_000)


def _code() -> bytes:
    """Python's standard library sources, the code corpus."""
    stdlib = Path(os.__file__).parent
    return b"".join(path.read_bytes() for path in sorted(stdlib.glob("[a-q]*.py")))


_spm_train = functools.partial(spm_train, model_type="bpe")


#: (corpus, options) by a readable id; every case uses the identity normalization rule.
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "english_2000": ("english", {"vocab_size": 2000}),
    "english_8000_byte_fallback": ("english", {"vocab_size": 8000, "byte_fallback": True}),
    "japanese_4000": ("japanese", {"vocab_size": 4000}),
    "japanese_coverage_1": ("japanese", {"vocab_size": 3000, "character_coverage": 1.0}),
    "chinese_6000_byte_fallback": ("chinese", {"vocab_size": 6000, "byte_fallback": True}),
    "chinese_symbols": (
        "chinese",
        {
            "vocab_size": 3000,
            "character_coverage": 0.9995,
            "user_defined_symbols": ["的", "ab"],
            "control_symbols": ["<sep>", "<cls>"],
        },
    ),
    "russian_3000": ("russian", {"vocab_size": 3000, "num_threads": 1}),
    "code_3000": ("code", {"vocab_size": 3000}),
    "code_digits_spaces": (
        "code",
        {"vocab_size": 2000, "byte_fallback": True, "split_digits": True, "remove_extra_whitespaces": False},
    ),
    "code_suffix": (
        "code",
        {
            "vocab_size": 2000,
            "treat_whitespace_as_suffix": True,
            "split_by_number": False,
            "max_sentencepiece_length": 8,
        },
    ),
    "code_long_lines_ids": (
        "code",
        {
            "vocab_size": 2000,
            "split_by_unicode_script": False,
            "add_dummy_prefix": False,
            "max_sentence_length": 200,
            "pad_id": 3,
            "bos_id": -1,
            "hard_vocab_limit": False,
        },
    ),
    "code_sentences": ("code", {"vocab_size": 2000, "split_by_whitespace": False}),
    "code_required_chars": ("code", {"vocab_size": 2500, "required_chars": "XYZ€", "unk_piece": "<UNK>"}),
}


@pytest.mark.parametrize("case", CASES)
def test_equals_spm_train(case: str, debian_corpora: dict[str, Path], tmp_path: Path) -> None:
    corpus, options = CASES[case]
    data = _code() if corpus == "code" else debian_corpora[corpus].read_bytes()
    lines, held_out = lines_of(data[TRAIN]), lines_of(data[HELD_OUT])[:400]
    options = {"normalization_rule_name": "identity", **options}
    reference = _spm_train(tmp_path, lines, **options)
    ours = train_bpe_from_text(lines, **options)
    assert_same_model(ours, reference, [line.decode("utf-8", "replace") for line in held_out])


def test_counts_from_several_sources_add_up(debian_corpora: dict[str, Path], tmp_path: Path) -> None:
    """Words counted per source and summed train the model ``spm_train`` trains on the whole text."""
    lines = lines_of(debian_corpora["russian"].read_bytes()[TRAIN])
    options = SentencePieceOptions.from_kwargs(vocab_size=1500, normalization_rule_name="identity")
    counts = count_words(lines[: len(lines) // 2], options)
    counts.update(count_words(lines[len(lines) // 2 :], options))
    from hf_bpe.models.sentencepiece.model_writer import write_model_proto

    reference = _spm_train(tmp_path, lines, vocab_size=1500, normalization_rule_name="identity")
    assert_same_model(write_model_proto(train_bpe(counts, options)), reference, ["Привет, мир! 12345"])
    # consume_counts (the CLI's): the counts' memory goes to merging, the model is the same
    assert counts
    assert_same_model(write_model_proto(train_bpe(counts, options, consume_counts=True)), reference, ["мир"])
    assert counts == {}


@pytest.mark.parametrize("processes", [1, 2, 3])
def test_files_counted_in_several_processes_train_spm_trains_model(
    processes: int, debian_corpora: dict[str, Path], tmp_path: Path
) -> None:
    """Files cut into line-aligned byte ranges, counted in 1, 2 or 3 processes and summed, train the model
    ``spm_train`` trains on the files; one file ends without a newline, one is empty, one is a single line longer
    than max_sentence_length (skipped by both; a range cut inside it moves to the next line start)."""
    english = lines_of(debian_corpora["english"].read_bytes()[TRAIN])
    japanese = lines_of(debian_corpora["japanese"].read_bytes()[TRAIN])
    files = {
        "english.txt": b"\n".join(english[: len(english) // 2]) + b"\n",
        "empty.txt": b"",
        "long.txt": b" ".join(english[len(english) // 2 : len(english) // 2 + 3000]) + b"\n",
        "japanese.txt": b"\n".join(japanese),  # no newline at its end: its last line is a sentence of its own
        "english-rest.txt": b"\n".join(english[len(english) // 2 :]) + b"\n",
    }
    paths = []
    for name, data in files.items():
        paths.append(tmp_path / name)
        paths[-1].write_bytes(data)
    kwargs = {"vocab_size": 4000, "max_sentence_length": 5000, "normalization_rule_name": "nmt_nfkc"}
    prefix = tmp_path / "reference"
    sentencepiece.SentencePieceTrainer.train(
        input=[str(path) for path in paths], model_prefix=str(prefix), model_type="bpe", minloglevel=2, **kwargs
    )
    from hf_bpe.models.sentencepiece.model_writer import write_model_proto
    from hf_bpe.models.sentencepiece.train_bpe import count_words_in_files

    options = SentencePieceOptions.from_kwargs(**kwargs)
    counts = count_words_in_files([str(path) for path in paths], options, processes=processes)
    held_out = [line.decode("utf-8", "replace") for line in lines_of(debian_corpora["japanese"].read_bytes()[HELD_OUT])]
    assert_same_model(
        write_model_proto(train_bpe(counts, options)), prefix.with_suffix(".model").read_bytes(), held_out[:200]
    )


#: Text each charsmap rule changes: full-width ASCII, ligatures, half-width katakana with its sound marks, NBSP and
#: ideographic spaces, combining marks (composed by NFKC), circled digits, control characters, tabs, upper case.
RULE_TEXT = [
    "ＡＢＣ ｄｅｆ １２３ ｆｉｌｅ ﬁle ﬂow ﬃ ｶﾞｷﾞｸﾞ ﾊﾟﾋﾟ ｱｲｳ",
    "caf\u00e9 cafe\u0301 A\u030a \u00c5 na\u0303o Zo\u0308e ｎｏ\u00a0break\u00a0\u00a0space",
    "\u3000全角\u3000スペース\u3000 ①②③ ㍿ ㌔ Ⅻ \u00bd \u2126 \u212b",
    "tab\there\x01ctl\x7f ZERO\u200bWIDTH  ПРИВЕТ Straße ΣΟΦΙΑ",
]


def _rule_corpus(debian_corpora: dict[str, Path], corpus: str) -> tuple[list[bytes], list[str]]:
    """A training slice with the rule-changed lines mixed in, and held-out text holding them too."""
    data = _code() if corpus == "code" else debian_corpora[corpus].read_bytes()
    lines = lines_of(data[TRAIN])
    extra = [line.encode() for line in RULE_TEXT]
    mixed: list[bytes] = []
    for i, line in enumerate(lines):
        mixed += [line, extra[i % len(extra)]] if i % 50 == 0 else [line]
    lines = mixed
    held_out = [line.decode("utf-8", "replace") for line in lines_of(data[HELD_OUT])[:300]]
    return lines, held_out + RULE_TEXT + [text.swapcase() for text in RULE_TEXT]


#: (corpus, options) with sentencepiece's default normalization (nmt_nfkc) or the rule named.
DEFAULT_RULE_CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "english_1000": ("english", {"vocab_size": 1000}),
    "english_4000_byte_fallback": ("english", {"vocab_size": 4000, "byte_fallback": True}),
    "japanese_3000": ("japanese", {"vocab_size": 3000}),
    "japanese_6000_byte_fallback": ("japanese", {"vocab_size": 6000, "byte_fallback": True}),
    "chinese_3000_byte_fallback": ("chinese", {"vocab_size": 3000, "byte_fallback": True}),
    "chinese_6000": ("chinese", {"vocab_size": 6000}),
    "russian_1500_byte_fallback": ("russian", {"vocab_size": 1500, "byte_fallback": True}),
    "russian_4000": ("russian", {"vocab_size": 4000}),
    "code_1500": ("code", {"vocab_size": 1500}),
    "code_4000_byte_fallback": ("code", {"vocab_size": 4000, "byte_fallback": True}),
    "english_nfkc": ("english", {"vocab_size": 2000, "normalization_rule_name": "nfkc"}),
    "russian_nmt_nfkc_cf": ("russian", {"vocab_size": 2000, "normalization_rule_name": "nmt_nfkc_cf"}),
    "japanese_nfkc_cf_spaces_kept": (
        "japanese",
        {"vocab_size": 3000, "normalization_rule_name": "nfkc_cf", "remove_extra_whitespaces": False},
    ),
}


@pytest.mark.parametrize("case", DEFAULT_RULE_CASES)
def test_charsmap_rules_equal_spm_train(case: str, debian_corpora: dict[str, Path], tmp_path: Path) -> None:
    """The default rule (nmt_nfkc) and the other charsmap rules: the normalizer spec (name, charsmap bytes, flags)
    and every piece equal spm_train's, and held-out text the rule changes encodes to the same ids."""
    corpus, options = DEFAULT_RULE_CASES[case]
    lines, held_out = _rule_corpus(debian_corpora, corpus)
    reference = _spm_train(tmp_path, lines, **options)
    ours = train_bpe_from_text(lines, **options)
    assert_same_model(ours, reference, held_out)
    spec = sentencepiece_model_pb2.ModelProto.FromString(ours).normalizer_spec
    assert spec.name == options.get("normalization_rule_name", "nmt_nfkc")
    assert len(spec.precompiled_charsmap) > 100_000


def test_normalization_equals_sentencepiece_normalizer() -> None:
    """Each rule, with and without its white-space options, normalizes as sentencepiece's own normalizer does,
    on the rule-changed text and random mixes of the characters it changes (malformed bytes aside: sentencepiece's
    Python normalizer takes str)."""
    import random

    from hf_bpe.models.sentencepiece.normalization import Normalizer

    rng = random.Random(43)
    pool = list("aeAé ｶﾞﾟｱ\u0301\u0300\u0308\u00a0\u3000\t\x01ﬁﬂ①Å\u00b4㍿\u2581ΣßЁ\u200b")
    texts = [*RULE_TEXT, "", " ", " \x01", "\x01", "\u00a0\u00a0", "ﾞ", "e\u0301\u0301"]
    texts += ["".join(rng.choice(pool) for _ in range(rng.randint(0, 12))) for _ in range(2000)]
    # ASCII alone (str.translate's path: every ASCII character but NUL, control characters and spaces often)
    ascii_pool = [chr(code) for code in range(1, 128)] + list(" \t\x01\x7f\x1f") * 8
    texts += ["".join(rng.choice(ascii_pool) for _ in range(rng.randint(0, 10))) for _ in range(1500)]
    texts += ["\x01", "\x01 \x02", " \t ", "\t", "A\tB", "\x7f\x7f"]
    for rule in ("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf", "identity"):
        for remove in (True, False):
            for prefix in (True, False):
                flags = {"remove_extra_whitespaces": remove, "add_dummy_prefix": prefix}
                reference = sentencepiece.SentencePieceNormalizer(rule_name=rule, **flags)
                options = SentencePieceOptions.from_kwargs(normalization_rule_name=rule, **flags)
                ours = Normalizer(options.normalizer_spec)
                for text in texts:
                    assert ours.normalize(text) == reference.normalize(text), (rule, flags, text)


#: Lines for count_words' repeated-line blocks and printable-ASCII path and IsValidSentencePiece's per-character
#: kinds: every ASCII control character (but the line end) and DEL amid printable ASCII (the keys nmt_nfkc maps
#: there), spaces before and after, combining marks after letters, digits, full-width digits and ``▁``, scripts
#: side by side.
FAST_PATH_TEXT = [
    *(f"  ascii{chr(code)}line {code} {chr(code)}x  " for code in [*range(1, 0x20), 0x7F] if code != 0x0A),
    "plain ascii words only, printable: ~!@#$%^&*()_+{}|:<>?`-=[]\\;',./",
    "e\u0301t\u00e9 1\u0301 \uff15\u0301 \u2581\u0301a 12ab ab12 \uff11\uff12x",
    "\u0661\u0662 \u0430b \u3042\u30a2\u30fc\u6f22 a\u3042 \u0430\u0301\u0431",
    "\u0301leading mark, x\u0301\u0301\u0301 marks, 9\u20e3 keycap",
]


@pytest.mark.parametrize(
    "options",
    [
        {"normalization_rule_name": "nmt_nfkc"},
        {"normalization_rule_name": "nfkc", "split_by_number": False},
        {"normalization_rule_name": "nmt_nfkc_cf", "split_digits": True},
        {"normalization_rule_name": "identity", "split_by_unicode_script": False},
    ],
    ids=["nmt_nfkc", "nfkc_numbers_joined", "nmt_nfkc_cf_digits", "identity_scripts_joined"],
)
def test_count_words_fast_paths_equal_spm_train(
    options: dict[str, Any], debian_corpora: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Repeated lines (normalized once per block), printable ASCII (no charsmap walk) and each character's kind for
    IsValidSentencePiece give spm_train's model: the fast-path lines repeated and mixed into English text, across
    a block's end, with the charsmap rules that take the ASCII path and ones that do not."""
    from hf_bpe.models.sentencepiece import train_bpe as module

    monkeypatch.setattr(module, "_BLOCK_LINES", 997)  # repeats within blocks and across their ends
    english = lines_of(debian_corpora["english"].read_bytes()[TRAIN])
    text = [line.encode() for line in FAST_PATH_TEXT]
    lines = [*english[:3000], *text * 40, *english[3000:], *text * 3]
    kwargs = {"vocab_size": 3000, "character_coverage": 1.0, **options}
    reference = _spm_train(tmp_path, lines, **kwargs)
    assert_same_model(train_bpe_from_text(lines, **kwargs), reference, FAST_PATH_TEXT)


def test_a_rule_without_sentencepiece_installed_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from hf_bpe.models.sentencepiece import normalization

    monkeypatch.setitem(sys.modules, "sentencepiece", None)
    normalization.rule_charsmap.cache_clear()
    try:
        refusal = r"normalization_rule_name='nfkc'.*pip install 'hf-bpe\[sentencepiece\]'"
        with pytest.raises(ModuleNotFoundError, match=refusal):
            SentencePieceOptions.from_kwargs(normalization_rule_name="nfkc")
        options = SentencePieceOptions.from_kwargs(normalization_rule_name="identity")
        assert options.normalizer_spec.precompiled_charsmap == b""
    finally:
        normalization.rule_charsmap.cache_clear()


def test_a_vocabulary_larger_than_the_corpus_yields_fails_as_spm_train_does(tmp_path: Path) -> None:
    lines = [b"abc abd", b"abc"]
    with pytest.raises(RuntimeError, match="Vocabulary size too high"):
        _spm_train(tmp_path, lines, vocab_size=40, normalization_rule_name="identity")
    with pytest.raises(ValueError, match="vocab_size=40 is too high"):
        train_bpe_from_text(lines, vocab_size=40, normalization_rule_name="identity")


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"normalization_rule_name": "nfkc_lowercase"}, "normalization_rule_name='nfkc_lowercase'"),
        ({"normalization_rule_tsv": "41\t61"}, "normalization_rule_tsv"),
        ({"normalization_rule_name": "identity", "seed_sentencepiece_size": 10}, "seed_sentencepiece_size"),
        ({"normalization_rule_name": "identity", "model_type": "char"}, "model_type='char'"),
        ({"normalization_rule_name": "identity", "allow_whitespace_only_pieces": True}, "allow_whitespace_only"),
        ({"normalization_rule_name": "identity", "input_sentence_size": 1000}, "input_sentence_size"),
        ({"normalization_rule_name": "identity", "character_coverage": 0.5}, "character_coverage=0.5"),
    ],
)
def test_options_not_implemented_or_out_of_range_are_refused_by_name(kwargs: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError, match=named.replace("(", r"\(")):
        SentencePieceOptions.from_kwargs(**kwargs)


@pytest.mark.parametrize("byte_fallback", [False, True], ids=["unk", "byte_fallback"])
def test_saved_directory_loads_in_sentencepiece_transformers_and_hf_bpe(
    byte_fallback: bool, debian_corpora: dict[str, Path], tmp_path: Path
) -> None:
    """save_sentencepiece's directory: its tokenizer.json is the document transformers converts the tokenizer.model
    alone into, and SentencePieceProcessor, the Rust backend (AutoTokenizer) and hf_bpe.from_pretrained give the
    same ids on held-out multilingual text."""
    import json

    import transformers

    import hf_bpe
    from hf_bpe.models.sentencepiece.model_writer import save_sentencepiece

    lines: list[bytes] = []
    held_out = [*RULE_TEXT[1:], "  lead  and  trail  ", "Привет 日本語 中文 😀 ①"]
    for corpus in ("english", "japanese", "chinese", "russian"):
        data = debian_corpora[corpus].read_bytes()
        lines += lines_of(data[:60_000])
        held_out += [line.decode("utf-8", "replace") for line in lines_of(data[HELD_OUT])[:100]]
    model = train_bpe_from_text(lines, vocab_size=4000, byte_fallback=byte_fallback)
    directory = save_sentencepiece(model, tmp_path / "out")
    names = sorted(path.name for path in directory.iterdir())
    assert names == ["tokenizer.json", "tokenizer.model", "tokenizer_config.json"]

    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "tokenizer.model").write_bytes(model)
    converted = json.loads(transformers.AutoTokenizer.from_pretrained(alone).backend_tokenizer.to_str())
    assert json.loads((directory / "tokenizer.json").read_text()) == converted

    processor = sentencepiece.SentencePieceProcessor(model_file=str(directory / "tokenizer.model"))
    rust = transformers.AutoTokenizer.from_pretrained(directory)
    ours = hf_bpe.from_pretrained(directory)
    assert type(rust).__name__ == "TokenizersBackend"
    expected = processor.encode(held_out)
    assert [rust.encode(text, add_special_tokens=False) for text in held_out] == expected
    assert [ours.encode(text, add_special_tokens=False) for text in held_out] == expected
    # Where the two references part (tokenizers' Precompiled maps a grapheme, sentencepiece the longest key: the
    # half-width "ｶﾞ" is one key, ガ, there and カ + U+3099 here), hf_bpe follows the document, as the Rust backend.
    assert ours.encode("ｶﾞｷﾞ", add_special_tokens=False) == rust.encode("ｶﾞｷﾞ", add_special_tokens=False)
