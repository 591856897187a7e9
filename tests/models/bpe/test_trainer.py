"""The trainer against ``tokenizers``' BpeTrainer, trained in the same test with the same settings."""

from __future__ import annotations

import itertools
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from conftest import COURSE, multilingual_text, ours, reference_train, reference_train_counts
from hypothesis import given, settings
from hypothesis import strategies as st

from hf_bpe.counting.counting import count_sequences
from hf_bpe.models.bpe import trainer
from hf_bpe.models.bpe.options import BpeOptions
from hf_bpe.models.bpe.trainer import STOP_MIN_FREQUENCY, STOP_NO_PAIRS, STOP_VOCAB_SIZE, train_bpe
from hf_bpe.models.bpe.training import train_from_counts, train_from_dataset, train_from_files, train_from_iterator
from hf_bpe.pipeline.byte_level import to_byte_level
from hf_bpe.pipeline.pre_tokenizers import SplitPattern


@pytest.mark.parametrize("vocab_size", [1, 256, 257, 260, 270, 290, 300, 320, 400], ids=lambda v: f"vocab{v}")
def test_course_corpus(course_file, tmp_path, vocab_size):
    expected = reference_train([course_file], tmp_path / "ref", vocab_size=vocab_size)
    result = train_from_files([course_file], vocab_size=vocab_size, workers=1)
    assert ours(result) == expected
    assert len(result.vocab) == min(max(vocab_size, 256), len(result.vocab))


def _naive_first_encountered(counts: dict[str, int], merges_wanted: int) -> list[tuple[str, str]]:
    """Textbook BPE whose ties go to the pair seen first in the corpus (dict order), not the smaller id pair."""
    words = [(list(word), count) for word, count in counts.items()]
    merges = []
    for _ in range(merges_wanted):
        pairs: Counter[tuple[str, str]] = Counter()
        for symbols, count in words:
            for pair in itertools.pairwise(symbols):
                pairs[pair] += count
        if not pairs:
            break
        best = max(pairs.values())
        pair = next(p for p, c in pairs.items() if c == best)  # the first one encountered
        merges.append(pair)
        for symbols, _count in words:
            i = 0
            while i < len(symbols) - 1:
                if (symbols[i], symbols[i + 1]) == pair:
                    symbols[i : i + 2] = [symbols[i] + symbols[i + 1]]
                i += 1
    return merges


def test_ties_go_to_the_smaller_id_pair_not_the_first_encountered(course_file, tmp_path):
    """On the course corpus the first merges are all ties; only the smaller-(left id, right id) rule matches."""
    vocab_text, merges_text = reference_train([course_file], tmp_path / "ref", vocab_size=300)
    reference_merges = [tuple(line.split(" ")) for line in merges_text.splitlines()[1:]]
    split = SplitPattern().findall
    counts = Counter(to_byte_level(piece) for line in COURSE for piece in split(line))
    naive = _naive_first_encountered(dict(counts), len(reference_merges))
    assert naive != reference_merges  # a naive tie-break gets it wrong ...
    result = train_bpe(counts, vocab_size=300)
    assert result.merges == reference_merges  # ... ours does not
    assert ours(result) == (vocab_text, merges_text)


def test_initial_pair_count_shared_with_a_child_process(tmp_path, monkeypatch):
    """With two workers the second half of the words is pair-counted in a child process: same files as the
    reference, and the parent counted only the first half."""
    monkeypatch.setattr(trainer, "PARALLEL_MIN_WORDS", 10)
    ranges: list[tuple[int, int]] = []
    count_pair_range = trainer._count_pair_range

    def recording(words, word_counts, start, stop, **options):
        ranges.append((start, stop))
        return count_pair_range(words, word_counts, start, stop, **options)

    monkeypatch.setattr(trainer, "_count_pair_range", recording)
    path = tmp_path / "text.txt"
    path.write_text(multilingual_text(400, 5), encoding="utf-8", newline="")
    expected = reference_train([path], tmp_path / "ref", vocab_size=2000, max_token_length=6)
    assert ours(train_from_files([path], vocab_size=2000, max_token_length=6, workers=2)) == expected
    assert ours(train_from_files([path], vocab_size=2000, max_token_length=6, workers=1)) == expected
    (start, half), (start_alone, words) = ranges  # the parent's range with two workers, then with one
    assert start == start_alone == 0 and words > 10 and half == words // 2


def test_a_merge_whose_token_exists_keeps_its_id(tmp_path):
    """A special token spelled like a merge result ("hug") is made again by the merge h + ug: the merge is
    recorded, the token keeps its id 0, and the vocabulary does not grow (BpeTrainer's word_to_id lookup)."""
    path = tmp_path / "hugs.txt"
    path.write_text("hug hugs hug pug hugging bug\n" * 30, encoding="utf-8")
    options = {"vocab_size": 270, "special_tokens": ["hug"]}
    expected = reference_train([path], tmp_path / "ref", **options)
    result = train_from_files([path], workers=1, **options)
    assert ours(result) == expected
    assert ("h", "ug") in result.merges
    assert result.vocab["hug"] == 0
    # One special token and 256 byte characters, plus one token per merge but h + ug, which made none.
    assert result.merges_learned == len(result.merges) == len(result.vocab) - 1 - 256 + 1


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({"vocab_size": 500}, id="vocab500"),
        pytest.param({"vocab_size": 2000, "min_frequency": 2}, id="vocab2000-min2"),
        pytest.param({"vocab_size": 5000, "min_frequency": 5}, id="vocab5000-min5"),
        pytest.param({"vocab_size": 3000, "special_tokens": ["<|endoftext|>", "<pad>", "e"]}, id="specials"),
        pytest.param({"vocab_size": 3000, "add_prefix_space": True}, id="prefix-space"),
        pytest.param({"vocab_size": 3000, "max_token_length": 2}, id="max-len2"),
        pytest.param({"vocab_size": 3000, "max_token_length": 5}, id="max-len5"),
        pytest.param({"vocab_size": 3000, "limit_alphabet": 256}, id="limit-alphabet-256"),
        pytest.param({"vocab_size": 3000, "limit_alphabet": 1000}, id="limit-alphabet-1000"),
        pytest.param({"vocab_size": 50257, "min_frequency": 0}, id="vocab50257"),
    ],
)
def test_multilingual_files(tmp_path, options):
    paths = []
    for seed in range(3):  # several files, as one training run
        path = tmp_path / f"text{seed}.txt"
        path.write_text(multilingual_text(400, seed), encoding="utf-8", newline="")
        paths.append(path)
    expected = reference_train(paths, tmp_path / "ref", **options)
    assert ours(train_from_files(paths, workers=2, **options)) == expected


@pytest.mark.parametrize("vocab_size", [1000, 8000], ids=lambda v: f"vocab{v}")
def test_stdlib_sources(stdlib_files, tmp_path, vocab_size):
    expected = reference_train(stdlib_files, tmp_path / "ref", vocab_size=vocab_size)
    assert ours(train_from_files(stdlib_files, vocab_size=vocab_size, workers=2)) == expected


@pytest.mark.slow
@pytest.mark.parametrize(
    "options",
    [
        pytest.param({"vocab_size": 50257, "special_tokens": ["<|endoftext|>"]}, id="gpt2"),
        pytest.param({"vocab_size": 32000, "min_frequency": 2, "add_prefix_space": True}, id="32k-prefix-min2"),
        pytest.param({"vocab_size": 32000, "max_token_length": 16}, id="32k-maxlen16"),
    ],
)
def test_stdlib_sources_big(stdlib_all_files, tmp_path, options):
    expected = reference_train(stdlib_all_files, tmp_path / "ref", **options)
    assert ours(train_from_files(stdlib_all_files, workers=2, **options)) == expected


def test_iterator_and_batches(tmp_path):
    text = multilingual_text(300, seed=7)
    items = text.split("\n\n")  # items with newlines inside: one sequence each
    expected = reference_train(items, tmp_path / "ref", files=False, vocab_size=2000)
    assert ours(train_from_iterator(items, vocab_size=2000)) == expected
    batches = [items[i : i + 7] for i in range(0, len(items), 7)]
    assert ours(train_from_iterator(batches, vocab_size=2000)) == expected


def test_counts_are_emptied_only_when_given_up(tmp_path):
    """``consume_counts`` empties the caller's dict once its words are read (the front ends that count the text
    themselves give theirs up, for the merge phase's memory); the merges are the reference's either way, and the
    caller's dict is untouched by default."""
    text = multilingual_text(200, seed=8)
    expected = reference_train([text], tmp_path / "ref", files=False, vocab_size=800)
    counted = count_sequences([text])
    kept = dict(counted)
    assert ours(train_from_counts(counted, vocab_size=800, progress=False)) == expected
    assert counted == kept
    assert ours(train_from_counts(counted, vocab_size=800, progress=False, consume_counts=True)) == expected
    assert not counted and kept


def test_dataset_column(tmp_path):
    import datasets

    rows = multilingual_text(300, seed=3).splitlines(keepends=True)
    dataset = datasets.Dataset.from_dict({"text": rows, "other": list(range(len(rows)))})
    expected = reference_train(rows, tmp_path / "ref", files=False, vocab_size=1500, add_prefix_space=True)
    result = train_from_dataset(dataset, "text", vocab_size=1500, add_prefix_space=True)
    assert ours(result) == expected
    with pytest.raises(KeyError, match=r"'txt'.*'text', 'other'"):
        train_from_dataset(dataset, "txt")


def test_stop_reasons(course_file, tmp_path):
    assert train_from_files([course_file], vocab_size=300, workers=1).stop_reason == STOP_VOCAB_SIZE
    result = train_from_files([course_file], vocab_size=30000, min_frequency=3, workers=1)
    assert result.stop_reason == STOP_MIN_FREQUENCY
    assert ours(result) == reference_train([course_file], tmp_path / "r1", min_frequency=3)
    result = train_from_files([course_file], workers=1)
    assert result.stop_reason == STOP_NO_PAIRS
    assert ours(result) == reference_train([course_file], tmp_path / "r2")
    assert result.merges_learned == len(result.merges) == len(result.vocab) - 256


def test_min_frequency_is_inclusive(tmp_path):
    """A pair seen exactly ``min_frequency`` times is merged (the reference stops on ``min_frequency > count``)."""
    counts = {"ab": 3, "cd": 2}
    for min_frequency in (2, 3, 4):
        expected = reference_train_counts(counts, tmp_path / f"r{min_frequency}", min_frequency=min_frequency)
        assert ours(train_bpe(counts, min_frequency=min_frequency)) == expected
    assert train_bpe(counts, min_frequency=3).merges == [("a", "b")]


def test_max_token_length_is_exclusive_after_the_first_merges(tmp_path):
    """``max_token_length=3`` still allows only two-character tokens: new pairs must be *shorter* than it."""
    counts = {"abcdefgh": 5}
    expected = reference_train_counts(counts, tmp_path / "ref", max_token_length=3)
    result = train_bpe(counts, max_token_length=3)
    assert ours(result) == expected
    assert max(len(a + b) for a, b in result.merges) == 2


def test_special_token_equal_to_a_merge_keeps_its_id(tmp_path):
    counts = {"ab": 5, "abab": 3, "ba": 2}
    options = {"special_tokens": ["ab", "<s>", "abab"], "vocab_size": 300}
    result = train_bpe(counts, **options)
    assert ours(result) == reference_train_counts(counts, tmp_path / "ref", **options)
    assert result.vocab["ab"] == 0 and ("a", "b") in result.merges


def test_limit_alphabet_below_256_is_not_deterministic_in_the_reference(tmp_path):
    """Why we do not compare below 256: with the byte alphabet as initial alphabet every character is equally
    "frequent" to the reference, which then drops an arbitrary (hash-ordered) subset. Ours keeps the lowest code
    points, and the size is the same."""
    text = ["the quick brown fox jumps over the lazy dog 日本語のテキスト\n"] * 3
    runs = {
        reference_train(text, tmp_path / f"r{i}", files=False, vocab_size=300, limit_alphabet=100) for i in range(6)
    }
    assert len(runs) > 1
    result = train_from_iterator(text, vocab_size=300, limit_alphabet=100)
    alphabet = [token for token, token_id in result.vocab.items() if token_id < 100]
    assert len(alphabet) == 100 and all(len(token) == 1 for token in alphabet)
    assert len(result.vocab) == 100 + len(result.merges)


def test_pair_counts_above_2_to_the_31_do_not_wrap():
    """tokenizers keeps pair counts as i32 (tokenizers#2058): a word count of 2**31 becomes -2**31 there, so the
    pair never enters its queue, and three words of 2**30 sum to 3 * 2**30, which wraps negative too. We count
    with Python integers. The reference cannot be run on 2**31 words, so it is run on counts scaled down in the
    same proportions (where it does not wrap), and the order it finds there is the right answer here."""
    big = {"xya": 2**30, "xyb": 2**30, "xyc": 2**30, "pq": 2**31 - 1, "ab": 2**31, "cd": 2**31 + 5}
    small = {"xya": 1, "xyb": 1, "xyc": 1, "pq": 2, "ab": 2, "cd": 2}  # same order of pair counts, ties aside
    with tempfile.TemporaryDirectory() as directory:
        _, merges_text = reference_train_counts(small, Path(directory), vocab_size=261)
    reference_order = [tuple(line.split(" ")) for line in merges_text.splitlines()[1:]]
    result = train_bpe(big, vocab_size=261)
    # x y: 3 * 2**30 > c d: 2**31 + 5 > a b: 2**31 > p q: 2**31 - 1 > the rest
    assert result.merges == [("x", "y"), ("c", "d"), ("a", "b"), ("p", "q"), ("xy", "a")]
    assert reference_order[0] == ("x", "y") and set(reference_order[1:4]) == {("a", "b"), ("c", "d"), ("p", "q")}
    # Past 2**63, where even 64-bit counts would wrap, the trainer still orders by the true sums: x y (3 * 2**62,
    # summed over three words) before c d (2**63 + 1) before a b (2**63 - 1).
    huge = {"xya": 2**62, "xyb": 2**62, "xyc": 2**62, "ab": 2**63 - 1, "cd": 2**63 + 1}
    assert train_bpe(huge, vocab_size=259).merges == [("x", "y"), ("c", "d"), ("a", "b")]


def test_bad_options():
    with pytest.raises(ValueError, match="vocab_size=0"):
        train_bpe({"ab": 1}, vocab_size=0)
    with pytest.raises(ValueError, match="'ab' has count -1"):
        train_bpe({"ab": -1})
    with pytest.raises(TypeError, match="special_tokens='<s>' is a string"):
        train_bpe({"ab": 1}, special_tokens="<s>")


def test_options_are_taken_as_handed_over(course_file, tmp_path, monkeypatch):
    """``train_bpe(options=...)`` trains with the object it is handed, building no BpeOptions of its own, and
    gives what the reference gives with those options; keyword callers get the same through one conversion."""
    options = BpeOptions(vocab_size=300, min_frequency=2, special_tokens=["<s>"], max_token_length=5)
    counts = Counter(to_byte_level(piece) for line in COURSE for piece in SplitPattern().findall(line))
    built: list[BpeOptions] = []
    check = BpeOptions.__post_init__
    monkeypatch.setattr(BpeOptions, "__post_init__", lambda self: (built.append(self), check(self))[1])
    result = train_bpe(counts, options=options)
    assert built == []
    by_keywords = train_bpe(counts, vocab_size=300, min_frequency=2, special_tokens=["<s>"], max_token_length=5)
    assert built == [options]  # the keywords' one conversion
    monkeypatch.undo()
    expected = reference_train(
        [course_file], tmp_path / "ref", vocab_size=300, min_frequency=2, special_tokens=["<s>"], max_token_length=5
    )
    assert ours(result) == ours(by_keywords) == expected
    with pytest.raises(TypeError, match=r"train_bpe\(\) got an unexpected keyword argument 'vocab_sise'"):
        train_bpe(counts, options=options, vocab_sise=5)


def test_save_writes_a_loadable_directory(course_file, tmp_path):
    result = train_from_files([course_file], vocab_size=300, special_tokens=["<|endoftext|>"], workers=1)
    paths = result.save(tmp_path / "out")
    assert sorted(p.name for p in paths) == ["merges.txt", "tokenizer.json", "tokenizer_config.json", "vocab.json"]
    vocab_text, merges_text = reference_train(
        [course_file], tmp_path / "ref", vocab_size=300, special_tokens=["<|endoftext|>"]
    )
    assert (tmp_path / "out" / "vocab.json").read_text(encoding="utf-8") == vocab_text
    assert (tmp_path / "out" / "merges.txt").read_text(encoding="utf-8") == merges_text


# Random small corpora over tiny alphabets: ties everywhere, runs of repeated characters, short words.
corpora = st.lists(st.text(alphabet="aab \n\té", max_size=24), min_size=1, max_size=30)


@settings(max_examples=150, deadline=None)
@given(
    corpus=corpora,
    vocab_size=st.integers(250, 330),
    min_frequency=st.sampled_from([0, 1, 2, 3]),
    max_token_length=st.sampled_from([None, 2, 3, 4, 6]),
    add_prefix_space=st.booleans(),
    special_tokens=st.sampled_from([[], ["ab"], ["<s>", "aa"], ["a"]]),
)
def test_random_corpora_train_identically(
    corpus, vocab_size, min_frequency, max_token_length, add_prefix_space, special_tokens
):
    options = {
        "vocab_size": vocab_size,
        "min_frequency": min_frequency,
        "max_token_length": max_token_length,
        "add_prefix_space": add_prefix_space,
        "special_tokens": special_tokens,
    }
    with tempfile.TemporaryDirectory() as directory:
        expected = reference_train(corpus, Path(directory), files=False, **options)
    assert ours(train_from_iterator(corpus, **options)) == expected


@settings(max_examples=60, deadline=None)
@given(
    counts=st.dictionaries(st.text(alphabet="ab", min_size=1, max_size=9), st.integers(1, 6), min_size=1, max_size=12)
)
def test_random_counts_train_identically(counts):
    with tempfile.TemporaryDirectory() as directory:
        expected = reference_train_counts(counts, Path(directory), vocab_size=300)
    assert ours(train_from_counts(counts, vocab_size=300)) == expected
