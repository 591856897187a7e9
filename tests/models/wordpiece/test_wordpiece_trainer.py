"""WordPiece training against the references: BERT's recipe and ``WordPieceTrainer`` from ``tokenizers``, run in
the same test, and the HuggingFace course's worked examples for the likelihood trainer."""

from __future__ import annotations

import gettext
import re
import sysconfig
from pathlib import Path

import pytest
from conftest import COURSE, REPO, multilingual_text
from tokenizers import normalizers, pre_tokenizers

from hf_bpe.counting.counting import count_files
from hf_bpe.models.wordpiece.options import WordPieceOptions
from hf_bpe.models.wordpiece.trainer import train_wordpiece
from hf_bpe.models.wordpiece.training import (
    train_wordpiece_from_files,
    train_wordpiece_from_iterator,
    wordpiece_counting,
)
from hf_bpe.pipeline.bert import BertRecipe, pre_tokenize, split_words
from hf_bpe.reference.trainers import wordpiece_reference

STDLIB = Path(sysconfig.get_paths()["stdlib"])
SEEDS = REPO.parent / "shared" / "seeds"  # the documents the product was founded on, beside the clone
#: Every code point a Rust string can hold, each between two ``a``s (a starter: NFD cannot reorder across it).
EVERY_CODE_POINT = "".join("a" + chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF) + "a"
HUG = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


@pytest.mark.parametrize(
    "recipe",
    [
        BertRecipe(),
        BertRecipe(clean_text=True, handle_chinese_chars=False, strip_accents=False, lowercase=False),
        BertRecipe(clean_text=False, handle_chinese_chars=True, strip_accents=False, lowercase=False),
        BertRecipe(clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=False),
        BertRecipe(clean_text=False, handle_chinese_chars=False, strip_accents=False, lowercase=True),
    ],
    ids=["bert", "clean", "chinese", "strip-accents", "lowercase"],
)
def test_normalizer_on_every_code_point(recipe):
    reference = normalizers.BertNormalizer(
        clean_text=recipe.clean_text,
        handle_chinese_chars=recipe.handle_chinese_chars,
        strip_accents=recipe.strip_accents,
        lowercase=recipe.lowercase,
    )
    assert recipe.normalize(EVERY_CODE_POINT) == reference.normalize_str(EVERY_CODE_POINT)


@pytest.mark.parametrize("lowercase", [True, False], ids=["lowercase", "clean-only"])
def test_normalizer_fast_paths_on_every_code_point(lowercase):
    """Without the characters Python lowercases otherwise (and capital sigma), lowercasing is ``str.lower``; other
    text than ASCII is cleaned by replacing only the characters cleaning changes. Both against the reference."""
    from hf_bpe.pipeline.normalizers import _LOWERED_OTHERWISE

    text = "".join(char for char in EVERY_CODE_POINT if char not in _LOWERED_OTHERWISE)
    assert len(text) > 2 * 0x10F000 and "\u03a3" not in text
    recipe = BertRecipe(clean_text=True, handle_chinese_chars=False, strip_accents=False, lowercase=lowercase)
    reference = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=False, strip_accents=False, lowercase=lowercase
    )
    assert recipe.normalize(text) == reference.normalize_str(text)


def test_pre_tokenizer_on_every_code_point():
    expected = pre_tokenizers.BertPreTokenizer().pre_tokenize_str(EVERY_CODE_POINT)
    assert pre_tokenize(EVERY_CODE_POINT) == expected
    # The fast split behind training and encoding (str.split, str.isalnum; not taken where U+001C-U+001F are).
    assert split_words(EVERY_CODE_POINT) == [piece for piece, _ in expected]
    fast = "".join(
        f"a{chr(cp)}a {chr(cp)}" for cp in range(0x110000) if not (0xD800 <= cp <= 0xDFFF or 0x1C <= cp <= 0x1F)
    )
    assert split_words(fast) == [piece for piece, _ in pre_tokenizers.BertPreTokenizer().pre_tokenize_str(fast)]


@pytest.mark.parametrize(
    "text",
    [
        "ΣΑΣ ΟΔΟΣ",
        "İstanbul ǅ ß ﬁ",
        "e\u0301\u0327 a\u0327\u0301",
        "\x00\ufffd\x0b\x85\u200b tab\there",
        "中文English混合",
    ],
)
def test_normalizer_on_context_sensitive_text(text):
    """Final sigma, multi-character lowercase, combining marks in either order, removed white space."""
    assert BertRecipe().normalize(text) == normalizers.BertNormalizer().normalize_str(text)


def reference_wordpiece(paths, vocab_size, *, lowercase=True, min_frequency=2, limit_alphabet=1000):
    """``tokenizers``' WordPieceTrainer behind the BertWordPieceTokenizer recipe; returns the vocabulary."""
    options = WordPieceOptions(vocab_size=vocab_size, min_frequency=min_frequency, limit_alphabet=limit_alphabet)
    tokenizer, trainer = wordpiece_reference(options, BertRecipe(lowercase=lowercase))
    tokenizer.train([str(path) for path in paths], trainer)
    return tokenizer.get_vocab()


def train_files(paths, order=None, *, recipe=None, min_frequency=2, **options):
    """train_wordpiece_from_files, with the counts put in another order first if ``order`` is given."""
    recipe = recipe or BertRecipe()
    counts = count_files(paths, pre_tokenizer=wordpiece_counting(recipe), workers=1).counts
    if order is not None:
        counts = order(counts)
    return train_wordpiece(
        counts, recipe=recipe, min_frequency=min_frequency, limit_alphabet=1000, workers=1, **options
    ).vocab


def in_run_order(counts, run: dict[str, int]) -> dict[str, int]:
    """``counts`` reordered so that hf_bpe's trainer, which numbers the ``##`` symbols in order of first appearance
    (word by word, left to right), numbers them as this reference run did (its hash order of words): words that
    bring new symbols go in the order of those symbols' ids in the run, the others after them."""
    first: dict[str, list[str]] = {}
    for word in counts:
        symbols = list(dict.fromkeys("##" + char for char in word[1:] if "##" + char in run))
        first[word] = symbols
    by_symbol: dict[str, list[str]] = {}
    for word, symbols in first.items():
        for symbol in symbols:
            by_symbol.setdefault(symbol, []).append(word)
    wanted = sorted(by_symbol, key=run.__getitem__)
    introduced: set[str] = set()
    ordered: dict[str, int] = {}
    position = 0
    while position < len(wanted):
        symbol = wanted[position]
        for word in by_symbol[symbol]:
            if word in ordered:
                continue
            new = [s for s in first[word] if s not in introduced]
            if new and new == wanted[position : position + len(new)]:
                ordered[word] = counts[word]
                introduced.update(new)
                position += len(new)
                break
        else:
            raise AssertionError(f"no word introduces {symbol!r} in the run's order")
    for word, count in counts.items():
        ordered.setdefault(word, count)
    return ordered


def numbered_like(run: dict[str, int], train):
    """Train with the ``##`` symbols numbered as in one reference run (read off its vocabulary): ``train`` takes
    the counts, given in the run's order (see :func:`in_run_order`), and, where limit_alphabet ties, keeps the
    run's characters (``alphabet_tie_preference``)."""
    return train(lambda counts: in_run_order(counts, run), alphabet_tie_preference=set(run))


def assert_same_as_reference(ours: dict[str, int], runs: list[dict[str, int]], train) -> None:
    """The reference numbers ``##`` symbols in hash order, so its ids of those symbols, and (where merges tie
    on count) which merges come first and which tokens make it in, vary between runs; hf_bpe numbers them in
    code-point order. So:

    * trained with each run's numbering of the ``##`` symbols, ours is that run, every id;
    * trained as it is, the same ids for the special tokens and the alphabet, the ``##`` symbols in the same id
      range. (Runs that agree with each other say nothing more: a fourth numbering can break a tie otherwise.)
    """
    for run in runs:
        assert numbered_like(run, train) == run
    first_merged = min(i for token, i in runs[0].items() if len(token.removeprefix("##")) > 1 and i >= 5)
    fixed = {token: i for token, i in runs[0].items() if i < first_merged and not token.startswith("##")}
    prefixed = {token for token, i in runs[0].items() if i < first_merged and token.startswith("##")}
    if all({token: run.get(token) for token in fixed} == fixed for run in runs):  # limit_alphabet ties can vary
        assert {token: ours.get(token) for token in fixed} == fixed
        assert {token for token, i in ours.items() if i < first_merged and token.startswith("##")} == prefixed


def test_frequency_hug_example_ids(tmp_path):
    path = tmp_path / "hug.txt"
    path.write_text("".join(f"{word}\n" * count for word, count in HUG.items()), encoding="utf-8")
    runs = [reference_wordpiece([path], 19, min_frequency=0) for _ in range(3)]

    def train(order=None, **options):
        return train_files([path], order, vocab_size=19, min_frequency=0, **options)

    ours = train()
    assert_same_as_reference(ours, runs, train)
    # BPE with the prefix: "##u ##g" (20) first, then "##u ##n" (16), then "h ##ug" (15).
    assert [token for token, i in sorted(ours.items(), key=lambda item: item[1])][16:] == ["##ug", "##un", "hug"]


def stdlib_sources(count: int) -> list[Path]:
    return sorted(STDLIB.glob("*.py"))[:count]


@pytest.fixture(scope="module")
def mixed_corpus(tmp_path_factory) -> list[Path]:
    path = tmp_path_factory.mktemp("wordpiece") / "mixed.txt"
    path.write_text("".join(COURSE) * 3 + multilingual_text(800, 4), encoding="utf-8")
    return [path, *stdlib_sources(12)]


@pytest.mark.parametrize("vocab_size", [300, 1200])
def test_frequency_matches_reference(mixed_corpus, vocab_size):
    runs = [reference_wordpiece(mixed_corpus, vocab_size) for _ in range(3)]

    def train(order=None, **options):
        return train_files(mixed_corpus, order, vocab_size=vocab_size, **options)

    ours = train()
    assert len(ours) == vocab_size
    assert_same_as_reference(ours, runs, train)


def test_frequency_cased_and_from_iterator(mixed_corpus):
    runs = [reference_wordpiece(mixed_corpus, 800, lowercase=False) for _ in range(3)]

    def train(order=None, **options):
        return train_files(mixed_corpus, order, vocab_size=800, recipe=BertRecipe(lowercase=False), **options)

    ours = train()
    assert_same_as_reference(ours, runs, train)
    lines = [line for path in mixed_corpus for line in path.read_text(encoding="utf-8").splitlines(keepends=True)]
    # The iterator path counts in another order, so its ## symbols may be numbered otherwise (both are orders the
    # reference can take); the special tokens and the alphabet are the same.
    from_iterator = train_wordpiece_from_iterator(lines, vocab_size=800, recipe=BertRecipe(lowercase=False)).vocab
    assert len(from_iterator) == len(ours)
    assert {t: i for t, i in from_iterator.items() if len(t) == 1 or t.startswith("[")} == {
        t: i for t, i in ours.items() if len(t) == 1 or t.startswith("[")
    }


def catalog_text(language: str) -> str:
    """The translated messages of the system's gettext catalogs for ``language`` (real Russian / Chinese text)."""
    texts = []
    for path in sorted(Path("/usr/share/locale", language, "LC_MESSAGES").glob("*.mo")):
        with path.open("rb") as stream:
            try:
                catalog = gettext.GNUTranslations(stream)
            except (OSError, UnicodeDecodeError):
                continue
        texts.extend(value for key, value in catalog._catalog.items() if key and isinstance(value, str))
    return "\n".join(texts) + "\n"


@pytest.fixture(scope="module")
def real_corpora(tmp_path_factory) -> dict[str, list[Path]]:
    root = tmp_path_factory.mktemp("real")
    chinese = root / "chinese.txt"
    chinese.write_text(
        "".join(path.read_text(encoding="utf-8") for path in sorted(SEEDS.glob("*.txt"))) + catalog_text("zh_CN"),
        encoding="utf-8",
    )
    russian = root / "russian.txt"
    russian.write_text(catalog_text("ru")[:1_200_000], encoding="utf-8")
    english = root / "english.txt"
    docstrings = [
        doc
        for path in sorted(STDLIB.rglob("*.py"))
        if "test" not in path.parts and "site-packages" not in path.parts
        for doc in re.findall(r'"""(.*?)"""', path.read_text(encoding="utf-8", errors="replace"), re.S)
    ]
    english.write_text(
        ((STDLIB / "pydoc_data" / "topics.py").read_text(encoding="utf-8") + "\n".join(docstrings))[:2_500_000],
        encoding="utf-8",
    )
    return {
        "english": [english],
        "code": stdlib_sources(150),
        "chinese": [chinese],
        "russian": [russian],
    }


@pytest.mark.slow
@pytest.mark.parametrize(
    ("corpus", "vocab_size", "min_frequency"),
    [("english", 8000, 2), ("chinese", 8000, 0), ("russian", 12000, 2)],  # code: see the 30k test
)
def test_frequency_matches_reference_on_real_corpora(real_corpora, corpus, vocab_size, min_frequency):
    """About 1 to 3 MB each: English (pydoc's topics and the standard library's docstrings), code (standard
    library sources), Chinese (the course documents and the system's zh_CN message catalogs) and Russian (its ru
    catalogs). The Chinese text runs out of pairs seen twice at some 7,000 tokens: min_frequency 0 takes it to
    8,000, through many ties at count 1."""
    paths = real_corpora[corpus]
    assert sum(path.stat().st_size for path in paths) > 700_000
    runs = [reference_wordpiece(paths, vocab_size, min_frequency=min_frequency) for _ in range(3)]

    def train(order=None, **options):
        return train_files(paths, order, vocab_size=vocab_size, min_frequency=min_frequency, **options)

    ours = train()
    assert len(ours) == vocab_size
    assert_same_as_reference(ours, runs, train)


# -- likelihood scoring: the course's worked examples ------------------------------------------------------------


def test_likelihood_hug_example():
    """First ``##g ##s`` (score 5 / (20 * 5) = 1/20, every pair with ``##u`` scoring 1/36), then among the pairs
    tied at 1/36 the first seen, ``h ##u``."""
    result = train_wordpiece(HUG, vocab_size=9, scoring="likelihood", special_tokens=())
    assert list(result.vocab) == ["##g", "##n", "##s", "##u", "b", "h", "p", "##gs", "hu"]


def test_likelihood_course_corpus():
    """The course's four sentences, cut by BERT's pre-tokenizer (cased, as bert-base-cased's), trained to 70."""
    counts: dict[str, int] = {}
    for sentence in COURSE:
        for word, _ in pre_tokenizers.BertPreTokenizer().pre_tokenize_str(sentence):
            counts[word] = counts.get(word, 0) + 1
    result = train_wordpiece(counts, vocab_size=70, scoring="likelihood", recipe=BertRecipe(lowercase=False))
    assert list(result.vocab) == [
        "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "##a", "##b", "##c", "##d", "##e", "##f", "##g", "##h", "##i",
        "##k", "##l", "##m", "##n", "##o", "##p", "##r", "##s", "##t", "##u", "##v", "##w", "##y", "##z", ",", ".",
        "C", "F", "H", "T", "a", "b", "c", "g", "h", "i", "s", "t", "u", "w", "y", "ab", "##fu", "Fa", "Fac", "##ct",
        "##ful", "##full", "##fully", "Th", "ch", "##hm", "cha", "chap", "chapt", "##thm", "Hu", "Hug", "Hugg", "sh",
        "th", "is", "##thms", "##za", "##zat", "##ut",
    ]  # fmt: skip
    assert result.vocab["##ut"] == 69


def test_likelihood_through_the_recipe():
    """Counting through BERT's recipe (cased) gives the course's counts, so the same vocabulary."""
    result = train_wordpiece_from_iterator(
        COURSE, vocab_size=70, scoring="likelihood", min_frequency=0, recipe=BertRecipe(lowercase=False)
    )
    assert list(result.vocab)[45:50] == ["ab", "##fu", "Fa", "Fac", "##ct"]


def test_unknown_scoring_is_named():
    with pytest.raises(ValueError, match="scoring='bm25'"):
        train_wordpiece(HUG, scoring="bm25")


def utf8_stdlib_sources() -> list[Path]:
    """Every standard-library source outside the tests (and site-packages) that is valid UTF-8: some 13 MB."""
    paths = []
    for path in sorted(STDLIB.rglob("*.py")):
        if "site-packages" in path.parts or "test" in path.parts:
            continue
        try:
            path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:  # tokenizers refuses the whole run on one such file
            continue
        paths.append(path)
    return paths


@pytest.mark.slow
def test_frequency_matches_reference_at_30k():
    """30,000 tokens, BertWordPieceTokenizer's default, on the standard library's sources (about 13 MB; the smaller
    corpora above run out of pairs seen twice before 15,000). One reference run, not three (each training takes
    some 15 s): trained with that run's numbering of the ``##`` symbols, ours is that run, every id."""
    paths = utf8_stdlib_sources()
    assert sum(path.stat().st_size for path in paths) > 10_000_000
    run = reference_wordpiece(paths, 30000)
    assert len(run) == 30000
    counts = count_files(paths, pre_tokenizer=wordpiece_counting(BertRecipe()), workers=1).counts

    def train(order, **options):
        return train_wordpiece(
            order(counts),
            recipe=BertRecipe(),
            min_frequency=2,
            limit_alphabet=1000,
            workers=1,
            vocab_size=30000,
            **options,
        ).vocab

    assert numbered_like(run, train) == run


def test_stopping_short_of_vocab_size_warns_with_the_references_size(tmp_path):
    from hf_bpe.models.shortfall import TrainingWarning

    corpus = tmp_path / "course.txt"
    corpus.write_text("".join(COURSE), encoding="utf-8")
    with pytest.warns(TrainingWarning, match=r"the vocabulary has \d+ of the 1,000 tokens asked for \(stopped: "):
        result = train_wordpiece_from_files([corpus], vocab_size=1000, min_frequency=0)
    # The reference's size moves by a token or two between runs (its hash-ordered ## symbols decide which merges
    # remake an existing token on this tie-heavy corpus): hf_bpe's must be within its own spread.
    sizes = [len(reference_wordpiece([corpus], 1000, min_frequency=0)) for _ in range(16)]  # 149 in 4 of 10 runs
    assert min(sizes) <= len(result.vocab) <= max(sizes) < 1000, (len(result.vocab), sizes)
