"""Char-level BPE (GPT-1 / Sennrich style) against ``tokenizers``' BpeTrainer behind a WhitespaceSplit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from conftest import COURSE, multilingual_text
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers

import hf_bpe
from hf_bpe.models.bpe.options import BpeOptions, CharLevel
from hf_bpe.reference.trainers import bpe_tokenizer, bpe_trainer

CLASSIC = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def reference(paths, vocab_size, char_level: CharLevel, max_token_length=None):
    """tokenizers' char-level training: returns (vocab, merges) of one run."""
    options = BpeOptions(vocab_size=vocab_size, max_token_length=max_token_length, char_level=char_level)
    lowercase = normalizers.Lowercase() if char_level.lowercase else None
    tokenizer = bpe_tokenizer(options, pre_tokenizer=pre_tokenizers.WhitespaceSplit(), normalizer=lowercase)
    trainer = bpe_trainer(options)
    tokenizer.train([str(p) for p in paths], trainer)
    model = json.loads(tokenizer.to_str())["model"]
    return model["vocab"], [tuple(merge) for merge in model["merges"]]


def stdlib_sources() -> list[Path]:
    return sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:40]


@pytest.fixture(scope="module")
def course_and_text(tmp_path_factory):
    path = tmp_path_factory.mktemp("char") / "text.txt"
    path.write_text("".join(COURSE) * 3 + multilingual_text(500, 1), encoding="utf-8")
    return [path]


@pytest.mark.parametrize(
    ("corpus", "vocab_size", "char_level", "max_token_length"),
    [
        pytest.param("course", 300, CharLevel(), None, id="course-300-suffix"),
        pytest.param("stdlib", 1000, CharLevel(), None, id="stdlib-1000-suffix"),
        pytest.param("stdlib", 600, CharLevel(lowercase=True), None, id="stdlib-600-lowercase"),
        pytest.param("stdlib", 500, CharLevel(continuing_subword_prefix="##"), None, id="stdlib-500-suffix-prefix"),
        pytest.param(
            "stdlib",
            300,
            CharLevel(end_of_word_suffix=None, continuing_subword_prefix="##"),
            None,
            id="stdlib-300-prefix",
        ),
        pytest.param("stdlib", 1000, CharLevel(), 6, id="stdlib-1000-suffix-maxlen6"),
        pytest.param(
            "stdlib", 400, CharLevel(continuing_subword_prefix="##"), 4, id="stdlib-400-suffix-prefix-maxlen4"
        ),
    ],
)
def test_matches_reference_where_it_is_stable(corpus, vocab_size, char_level, max_token_length, course_and_text):
    """The reference numbers suffixed characters in hash order, so its ids (and, once ties matter, its merges)
    change from run to run. Where three runs agree on the merges and the token set, ours are the same."""
    paths = course_and_text if corpus == "course" else stdlib_sources()
    runs = [reference(paths, vocab_size, char_level, max_token_length) for _ in range(3)]
    assert all(merges == runs[0][1] and set(vocab) == set(runs[0][0]) for vocab, merges in runs), "not stable"
    result = hf_bpe.train_from_files(
        paths, vocab_size=vocab_size, char_level=char_level, max_token_length=max_token_length, workers=1
    )
    assert result.merges == runs[0][1]
    assert set(result.vocab) == set(runs[0][0])


def test_classic_example():
    """The textbook, with ``</w>`` as a symbol of its own, learns ``e s``, ``es t``, ``est </w>``, ``l o``, ``lo w``.
    With the suffix glued to the last character (tokenizers' formulation), ``st</w>`` is one symbol, so ``est</w>``
    takes two merges; and ``w</w>`` (end of "low") is not ``w`` (inside "lower"), so ``lo w`` never gets ``low``'s
    5 + 2: the pair is split into ``lo w</w>`` (5) and ``lo w`` (2), and ``e w`` (6), from "newest", wins first.
    The tie at count 6 between ``n e``, ``e w`` and ``w est</w>`` goes to the smallest ids: ``e`` < ``n``, ``w``.
    """
    result = hf_bpe.train_from_counts(CLASSIC, vocab_size=18, char_level=CharLevel())
    assert result.merges == [("e", "s"), ("es", "t</w>"), ("l", "o"), ("e", "w"), ("n", "ew")]
    # Suffixed characters are numbered right after the alphabet, in order of first appearance.
    assert [token for token, _ in sorted(result.vocab.items(), key=lambda item: item[1])][10:13] == [
        "w</w>",
        "r</w>",
        "t</w>",
    ]


def test_same_output_across_runs_workers_and_hash_seeds(tmp_path):
    path = tmp_path / "ties.txt"
    path.write_text(" ".join(["ab ba abc cab bca"] * 50) + "\n" + multilingual_text(200, 3), encoding="utf-8")
    code = (
        "import hf_bpe, sys; from hf_bpe.models.bpe.files import CharLevel, format_merges, format_vocab\n"
        f"r = hf_bpe.train_from_files([{str(path)!r}], vocab_size=400, workers=int(sys.argv[1]),"
        " char_level=CharLevel(continuing_subword_prefix='##'))\n"
        "print(format_vocab(r.vocab)); print(format_merges(r.merges))"
    )
    outputs = set()
    for seed, workers in (("0", "1"), ("1", "2"), ("12345", "2")):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", code, workers], capture_output=True, text=True, env=env, check=True
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1


def test_encoding_and_decoding_with_reference_model(tmp_path):
    """The saved files, loaded by tokenizers' BPE model with the same suffix and a BPEDecoder."""
    result = hf_bpe.train_from_iterator([*COURSE] * 5, vocab_size=200, char_level=CharLevel(), special_tokens=["<unk>"])
    result.save(tmp_path / "out", roles={"unk_token": "<unk>"})
    model = models.BPE.from_file(
        str(tmp_path / "out" / "vocab.json"),
        str(tmp_path / "out" / "merges.txt"),
        end_of_word_suffix="</w>",
        unk_token="<unk>",
    )
    tokenizer = Tokenizer(model)
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.decoder = decoders.BPEDecoder(suffix="</w>")
    saved = Tokenizer.from_file(str(tmp_path / "out" / "tokenizer.json"))
    text = "This is the Hugging Face tokenization Course, zébra!"
    assert saved.encode(text).ids == tokenizer.encode(text).ids
    assert "<unk>" in tokenizer.encode(text).tokens  # "é" was never seen
    assert saved.decode(saved.encode("This is the Course").ids) == "This is the Course"


def test_cli_char_level(tmp_path):
    path = tmp_path / "classic.txt"
    path.write_text(" ".join(word for word, count in CLASSIC.items() for _ in range(count)) + "\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", "train", str(path), "-o", str(tmp_path / "out"), "--char-level",
         "--vocab-size", "18", "--no-progress"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "out" / "merges.txt").read_text(encoding="utf-8").splitlines()
    assert lines == ["#version: 0.2", "e s", "es t</w>", "l o", "e w", "n ew"]


@pytest.mark.parametrize(
    "char_level",
    [CharLevel(), CharLevel(lowercase=True), CharLevel(continuing_subword_prefix="##")],
    ids=["suffix", "lowercase", "suffix-prefix"],
)
def test_char_tokenizer_matches_reference_model(tmp_path, char_level):
    """CharBPETokenizer against tokenizers loading the same directory's tokenizer.json (BPE with the same suffix,
    WhitespaceSplit, BPEDecoder): same ids, unknown characters as unk, same decoded text."""
    text = [*COURSE, multilingual_text(200, seed=6), "ΟΔΟΣ οδός σας İstanbul"]
    result = hf_bpe.train_from_iterator(text, vocab_size=500, special_tokens=["<unk>"], char_level=char_level)
    result.save(tmp_path / "out", roles={"unk_token": "<unk>"})
    ours = hf_bpe.CharBPETokenizer.from_pretrained(tmp_path / "out")
    rust = Tokenizer.from_file(str(tmp_path / "out" / "tokenizer.json"))
    samples = [*COURSE, multilingual_text(50, seed=8), "Zebra quiz: é ü ß Ω never seen ❄ ☃", "   spaced\t\tout\n"]
    samples += ["ΟΔΟΣ ΣΑΣ", "İSTANBUL"]  # a final capital sigma lowers to σ in the reference; İ to two code points
    for sample in samples:
        ids = ours(sample)["input_ids"]
        assert ids == rust.encode(sample).ids, sample
        assert ours.decode(ids, skip_special_tokens=True) == rust.decode(ids, skip_special_tokens=True)
        assert ours.decode(ids) == rust.decode(ids, skip_special_tokens=False)
    assert ours.unk_token_id in ours("☃")["input_ids"]


def test_char_directory_loads_through_auto_tokenizer(tmp_path):
    hf_bpe.train_from_counts(CLASSIC, vocab_size=18, char_level=CharLevel()).save(tmp_path / "out")
    code = (
        "import sys\n"
        "with_hf_bpe = sys.argv[1] == '1'\n"
        "if with_hf_bpe: import hf_bpe\n"
        "from transformers import AutoTokenizer\n"
        f"tok = AutoTokenizer.from_pretrained({str(tmp_path / 'out')!r})\n"
        "print(type(tok).__name__, tok('lowest newer')['input_ids'])"
    )
    lines = [
        subprocess.run([sys.executable, "-c", code, flag], capture_output=True, text=True, check=True).stdout.strip()
        for flag in ("1", "0")
    ]
    expected = hf_bpe.CharBPETokenizer.from_pretrained(tmp_path / "out")("lowest newer")["input_ids"]
    assert lines == [f"CharBPETokenizer {expected}", f"TokenizersBackend {expected}"]


def test_a_pair_listed_twice_takes_its_last_rank_as_in_the_rust_model(tmp_path):
    """A hand-made merges file listing "a b" again after "b c</w>": the Rust model keeps the last rank, so "abc" is
    "a" "bc</w>"."""
    tokens = ["<unk>", "a", "b", "c", "a</w>", "b</w>", "c</w>", "ab", "bc</w>", "abc</w>"]
    (tmp_path / "vocab.json").write_text(json.dumps({token: i for i, token in enumerate(tokens)}), encoding="utf-8")
    (tmp_path / "merges.txt").write_text("#version: 0.2\na b\nb c</w>\nab c</w>\na b\n", encoding="utf-8")
    model = models.BPE.from_file(
        str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"), end_of_word_suffix="</w>", unk_token="<unk>"
    )
    rust = Tokenizer(model)
    rust.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    ours = hf_bpe.CharBPETokenizer(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"), unk_token="<unk>")
    for text in ["abc", "ab abc cab abcabc"]:
        assert ours(text)["input_ids"] == rust.encode(text).ids, text
    assert rust.encode("abc").tokens == ["a", "bc</w>"]


@pytest.mark.parametrize("compact_min_words", [0, 500_000], ids=["compact-words", "list-words"])
@pytest.mark.parametrize(
    ("texts", "vocab_size", "char_level"),
    [
        pytest.param(["aa"], 3, CharLevel(end_of_word_suffix=None, continuing_subword_prefix="##"), id="prefix"),
        pytest.param(["cc", "ac</w>cc</w>a"], 14, CharLevel(), id="suffix-in-the-text"),
        pytest.param(None, 500, CharLevel(continuing_subword_prefix="##"), id="stdlib-suffix-prefix"),
    ],
)
def test_affixed_words_train_as_the_reference_on_both_sides_of_compact_words(
    tmp_path, monkeypatch, compact_min_words, texts, vocab_size, char_level
):
    """From ``COMPACT_MIN_WORDS`` distinct words on, the words are packed: affixed words must still merge as the
    reference does (the loop at scale once joined ``a`` and ``##a`` into ``a##a`` and merged a pair remaking an
    existing symbol once where tokenizers merges it twice; a fuzzer found both at 520,000 words)."""
    from hf_bpe.models.bpe import trainer

    monkeypatch.setattr(trainer, "COMPACT_MIN_WORDS", compact_min_words)
    if texts is None:
        paths = stdlib_sources()
    else:
        paths = [tmp_path / "text.txt"]
        paths[0].write_text("\n".join(texts) + "\n", encoding="utf-8")
    # As test_matches_reference_where_it_is_stable: the reference numbers suffixed characters in hash order, so its
    # ids differ from run to run; its merges and its token set do not here.
    vocab, merges = reference(paths, vocab_size, char_level)
    result = hf_bpe.train_from_files(paths, vocab_size=vocab_size, char_level=char_level, workers=1, progress=False)
    assert result.merges == merges and set(result.vocab) == set(vocab)
