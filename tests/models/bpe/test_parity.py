"""hf_bpe.train_parity_aware against its twin, tokenizers' ParityBpeTrainer (parity_trainer.rs), trained in the same
test on the same texts: the vocabulary and the merges of the saved tokenizer must be the reference's.

Real text of four scripts (English, Japanese, Chinese, Russian: the ``debian_corpora`` fixture), training and dev
slices that do not overlap; both variants, with dev sets, with ratios and with neither, several merge counts,
``min_frequency``, ``global_merges`` and ``total_symbols``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from tokenizers import Tokenizer, pre_tokenizers
from tokenizers.models import BPE
from tokenizers.trainers import BpeTrainer, ParityBpeTrainer

import hf_bpe
from hf_bpe.models.bpe.parity import train_parity_from_counts
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
from hf_bpe.reference.trainers import reference_cut

LANGUAGES = ("english", "japanese", "chinese", "russian")
TRAIN_BYTES = 120_000
DEV_START, DEV_BYTES = 600_000, 30_000
# Bytes per character of each script in UTF-8, about: the ratios that ask for equal compression of content.
RATIO = {"english": 1.0, "japanese": 2.6, "chinese": 2.7, "russian": 1.8}

Corpus = dict[str, list[str]]


def _lines(path: Path, start: int, size: int) -> list[str]:
    """``size`` bytes of ``path`` from ``start``, cut at line ends (whole lines only)."""
    data = path.read_bytes()[start : start + size]
    text = data[data.index(b"\n") + 1 if start else 0 : data.rindex(b"\n") + 1].decode("utf-8")
    return text.splitlines(keepends=True)


@pytest.fixture(scope="module")
def corpora(debian_corpora: dict[str, Path]) -> tuple[Corpus, Corpus]:
    """Each language's training lines and its held-out dev lines (another part of the same corpus)."""
    train = {name: _lines(debian_corpora[name], 0, TRAIN_BYTES) for name in LANGUAGES}
    dev = {name: _lines(debian_corpora[name], DEV_START, DEV_BYTES) for name in LANGUAGES}
    return train, dev


def reference(
    train: dict[str, Sequence[str]],
    dev: dict[str, Sequence[str]] | None = None,
    ratio: dict[str, float] | None = None,
    *,
    add_prefix_space: bool = False,
    pattern: str | None = None,
    **options: Any,
) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """ParityBpeTrainer's vocabulary and merges (from the tokenizer's JSON), byte-level with the byte alphabet; a
    preset's ``pattern`` as the tokenizer.json hf_bpe writes for it has its normalizer and pre-tokenizer."""
    tokenizer = trained(train, dev, ratio, add_prefix_space=add_prefix_space, pattern=pattern, **options)
    merges = json.loads(tokenizer.to_str())["model"]["merges"]
    return tokenizer.get_vocab(), [tuple(merge) for merge in merges]


def trained(
    train: dict[str, Sequence[str]],
    dev: dict[str, Sequence[str]] | None = None,
    ratio: dict[str, float] | None = None,
    *,
    add_prefix_space: bool = False,
    pattern: str | None = None,
    **options: Any,
) -> Tokenizer:
    """The tokenizer ParityBpeTrainer trains (see :func:`reference`)."""
    tokenizer = Tokenizer(BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    if pattern is not None:
        normalizer, tokenizer.pre_tokenizer = reference_cut(PreTokenizer.from_pattern(pattern))
        if normalizer is not None:
            tokenizer.normalizer = normalizer
    trainer = ParityBpeTrainer(show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), **options)
    names = list(train)
    trainer.train_from_iterator(
        tokenizer,
        train_iterators=[iter(train[name]) for name in names],
        dev_iterators=None if dev is None else [iter(dev[name]) for name in names],
        ratio=None if ratio is None else [ratio[name] for name in names],
    )
    return tokenizer


def saved(result: hf_bpe.TrainResult, directory: Path) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """The vocabulary and merges of the tokenizer ``result`` saves, as tokenizers reads its tokenizer.json."""
    result.save(directory)
    tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
    merges = json.loads(tokenizer.to_str())["model"]["merges"]
    return tokenizer.get_vocab(), [tuple(merge) for merge in merges]


def _ours_and_reference(
    train: Corpus, dev: Corpus | None, ratio: dict[str, float] | None, tmp_path: Path, **options: Any
) -> tuple[tuple[dict[str, int], list[tuple[str, str]]], tuple[dict[str, int], list[tuple[str, str]]]]:
    ours = hf_bpe.train_parity_aware(train, dev=dev, ratio=ratio, **options)
    return saved(ours, tmp_path), reference(train, dev, ratio, **options)


CASES = [
    pytest.param("base", "none", 400, id="base-train-lengths-400"),
    pytest.param("base", "dev", 400, id="base-dev-400"),
    pytest.param("base", "dev", 1500, id="base-dev-1500"),
    pytest.param("base", "ratio", 400, id="base-ratio-400"),
    pytest.param("base", "ratio", 1500, id="base-ratio-1500"),
    pytest.param("window", "none", 400, id="window-train-lengths-400"),
    pytest.param("window", "dev", 400, id="window-dev-400"),
    pytest.param("window", "dev", 1500, id="window-dev-1500"),
    pytest.param("window", "ratio", 1500, id="window-ratio-1500"),
]


@pytest.mark.parametrize(("variant", "balance", "num_merges"), CASES)
def test_vocab_and_merges_are_parity_bpe_trainers(
    corpora: tuple[Corpus, Corpus], tmp_path: Path, variant: str, balance: str, num_merges: int
) -> None:
    train, dev = corpora
    ours, theirs = _ours_and_reference(
        train,
        dev if balance == "dev" else None,
        RATIO if balance == "ratio" else None,
        tmp_path,
        variant=variant,
        num_merges=num_merges,
    )
    assert len(theirs[1]) == num_merges
    assert ours[1] == theirs[1]
    assert ours[0] == theirs[0]


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({"min_frequency": 40, "num_merges": 3000}, id="min_frequency-exhausts-languages"),
        pytest.param({"global_merges": 200, "num_merges": 600}, id="global_merges"),
        pytest.param(
            {"global_merges": 100, "num_merges": 600, "variant": "window", "window_size": 16, "alpha": 1.5},
            id="global_merges-window",
        ),
        pytest.param({"total_symbols": True, "num_merges": 700, "special_tokens": ["<pad>"]}, id="total_symbols"),
        pytest.param(
            {"num_merges": 500, "special_tokens": ["<s>", "</s>"], "add_prefix_space": True},
            id="special_tokens-prefix_space",
        ),
        pytest.param({"num_merges": 500, "pattern": "llama3"}, id="preset-llama3"),
        pytest.param({"num_merges": 500, "pattern": "qwen2", "variant": "window"}, id="preset-qwen2-nfc"),
    ],
)
def test_options_are_parity_bpe_trainers(
    corpora: tuple[Corpus, Corpus], tmp_path: Path, options: dict[str, Any]
) -> None:
    train, dev = corpora
    ours, theirs = _ours_and_reference(train, dev, None, tmp_path, **options)
    assert ours[1] == theirs[1]
    assert ours[0] == theirs[0]
    if "min_frequency" in options:
        assert len(theirs[1]) < options["num_merges"]  # every language ran out of frequent pairs


def test_the_balance_decides_which_language_merges(corpora: tuple[Corpus, Corpus]) -> None:
    """Each way of choosing gives other merges than the others (so the tests above tell them apart), and each is
    the reference's."""
    train, dev = corpora
    runs = {
        "none": ({}, None, None),
        "dev": ({}, dev, None),
        "ratio": ({}, None, RATIO),
        "window": ({"variant": "window", "window_size": 10, "alpha": 1.0}, dev, None),
    }
    seen = []
    for options, dev_set, ratio in runs.values():
        ours = hf_bpe.train_parity_aware(train, dev=dev_set, ratio=ratio, num_merges=300, workers=1, **options)
        assert ours.merges == reference(train, dev_set, ratio, num_merges=300, **options)[1]
        seen.append(ours.merges)
    assert len({tuple(merges) for merges in seen}) == len(runs)


def test_counts_in_parallel_or_not_alike(corpora: tuple[Corpus, Corpus]) -> None:
    train, dev = corpora
    expected = reference(train, dev, num_merges=300)
    for workers in (1, 3):
        ours = hf_bpe.train_parity_aware(train, dev=dev, num_merges=300, workers=workers)
        assert (ours.vocab, ours.merges) == expected


def _texts(counts: dict[str, int]) -> list[str]:
    """Texts whose byte-level pre-tokens are ``counts``' words, each its count of times (one text each)."""
    return [word for word, count in counts.items() for _ in range(count)]


@pytest.mark.parametrize(
    ("languages", "options"),
    [
        # parity_trainer.rs's own unit tests: ties between languages go to the first; ties between pairs to the
        # larger pair of strings ("b b" before "a a"); the window interleaves; an exhausted language is skipped.
        pytest.param([{"aabb": 10}, {"ccdd": 10}], {"num_merges": 6}, id="alternating"),
        pytest.param([{"aabb": 100}, {"ccdd": 1}], {"num_merges": 6}, id="base-monopolizes"),
        pytest.param(
            [{"aabb": 100}, {"ccdd": 1}],
            {"num_merges": 6, "variant": "window", "window_size": 2, "alpha": 1.0},
            id="window-interleaves",
        ),
        pytest.param([{"ab": 10}, {"cdef": 10}], {"num_merges": 10, "min_frequency": 1}, id="exhausted-skipped"),
        pytest.param([{"ab": 5, "cd": 1}, {"ab": 1, "cd": 5}], {"num_merges": 2, "global_merges": 1}, id="global"),
    ],
)
def test_hand_worked_cases_are_parity_bpe_trainers(languages: list[dict[str, int]], options: dict[str, Any]) -> None:
    train = {f"language{i}": _texts(counts) for i, counts in enumerate(languages)}
    expected = reference(train, **options)
    ours = hf_bpe.train_parity_aware(train, workers=1, **options)
    assert (ours.vocab, ours.merges) == expected
    counted = train_parity_from_counts({f"language{i}": c for i, c in enumerate(languages)}, **options)
    assert (counted.vocab, counted.merges) == expected


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"variant": "moving"}, ValueError, "variant='moving': must be one of 'base', 'window'"),
        ({"ratio": {"en": 1.0}}, ValueError, "ratio has no 'fr'"),
        ({"ratio": {"en": 1.0, "fr": 1.0, "de": 2.0}}, ValueError, "ratio has 'de', which train has not"),
        ({"ratio": {"en": 1.0, "fr": 0.0}}, ValueError, "ratio['fr']=0.0: must be a positive finite number"),
        ({"dev": {"en": ["x"]}}, ValueError, "dev has no 'fr'"),
        ({"dev": {"en": ["x"], "fr": ["y"]}, "ratio": {"en": 1.0, "fr": 1.0}}, ValueError, "not both"),
        ({"alpha": 0}, ValueError, "alpha=0: must be a positive finite number"),
        ({"window_size": 0}, ValueError, "window_size=0"),
        ({"num_merges": -1}, ValueError, "num_merges=-1"),
        ({"train": {"en": "hello world", "fr": ["bonjour"]}}, TypeError, "train['en'] is one str"),
        ({"train": {"en": ["hello"], "fr": []}}, ValueError, "language 'fr' has no training text"),
        ({"train": {}}, ValueError, "train has no language"),
    ],
)
def test_bad_input_is_refused_by_name(arguments: dict[str, Any], error: type[Exception], message: str) -> None:
    train = arguments.pop("train", {"en": ["hello world"], "fr": ["bonjour le monde"]})
    with pytest.raises(error, match=message.replace("[", r"\[").replace("(", r"\(")):
        hf_bpe.train_parity_aware(train, workers=1, **arguments)


@pytest.mark.parametrize("balance", ["dev", "ratio", "none"])
def test_continuing_a_parity_bpe_trainer_base_is_training_on_to_the_larger_size(
    corpora: tuple[Corpus, Corpus], tmp_path: Path, balance: str
) -> None:
    """The base is ParityBpeTrainer's own (300 merges, its tokenizer.json); continuing it by 700 merges gives what
    ParityBpeTrainer makes with 1000 merges directly, and keeps every id and merge of the base."""
    train, dev = corpora
    dev_set, ratio = (dev if balance == "dev" else None), (RATIO if balance == "ratio" else None)
    base = trained(train, dev_set, ratio, num_merges=300, special_tokens=["<s>"])
    base.save(str(tmp_path / "tokenizer.json"))
    ours = hf_bpe.train_parity_aware(
        train, dev=dev_set, ratio=ratio, num_merges=700, continue_from=tmp_path / "tokenizer.json", workers=2
    )
    vocab, merges = saved(ours, tmp_path / "continued")
    expected = reference(train, dev_set, ratio, num_merges=1000, special_tokens=["<s>"])
    assert ours.merges_learned == 700
    assert (vocab, merges) == expected
    base_merges = [tuple(merge) for merge in json.loads(base.to_str())["model"]["merges"]]
    assert merges[:300] == base_merges
    assert base.get_vocab().items() <= vocab.items()


def test_continuing_a_plain_base_keeps_its_ids_and_refines_its_encodings(
    corpora: tuple[Corpus, Corpus], tmp_path: Path
) -> None:
    """A base BpeTrainer trained on English alone (no honest reference exists for the new merges: tokenizers has
    no parity continuing): every id and merge of the base is kept, a new special token takes the next id, and the
    continued tokenizer (tokenizers reading its tokenizer.json) cuts held-out text of every language only where
    the base (tokenizers reading the base's) cuts it: each of its tokens is a run of the base's."""
    train, dev = corpora
    base = Tokenizer(BPE())
    base.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    trainer = BpeTrainer(vocab_size=600, special_tokens=["<|end|>"], initial_alphabet=alphabet, show_progress=False)
    base.train_from_iterator(train["english"], trainer)
    base.save(str(tmp_path / "base.json"))
    ours = hf_bpe.train_parity_aware(
        train, dev=dev, num_merges=1500, total_symbols=True, special_tokens=["<|new|>"],
        continue_from=tmp_path / "base.json", workers=2,
    )  # fmt: skip
    ours.save(tmp_path / "continued")
    continued = Tokenizer.from_file(str(tmp_path / "continued" / "tokenizer.json"))
    base = Tokenizer.from_file(str(tmp_path / "base.json"))
    vocab = continued.get_vocab(with_added_tokens=True)
    assert base.get_vocab(with_added_tokens=True).items() <= vocab.items()
    assert vocab["<|new|>"] == 600 and len(vocab) == 1500
    base_merges = json.loads(base.to_str())["model"]["merges"]
    assert json.loads(continued.to_str())["model"]["merges"][: len(base_merges)] == base_merges
    for name in LANGUAGES:
        text = "".join(dev[name][:200])
        before, after = base.encode(text), continued.encode(text)
        assert {end for _, end in after.offsets} <= {end for _, end in before.offsets}, name
        assert len(after.ids) < len(before.ids), name


def test_count_directories_train_as_the_texts_they_were_counted_from(
    corpora: tuple[Corpus, Corpus], tmp_path: Path
) -> None:
    """Each language counted into a counts directory (``count_to_directory``: the files ``hf-bpe count`` writes),
    dev as texts: ParityBpeTrainer's result on the texts; continuing ParityBpeTrainer's own base from the same
    directories is that trainer run to the larger size; a directory counted otherwise is refused by name."""
    from hf_bpe.models.bpe.parity import train_parity_from_count_directories
    from hf_bpe.models.bpe.training import count_to_directory

    train, dev = corpora
    directories = {}
    for name in LANGUAGES:
        (tmp_path / f"{name}.txt").write_text("".join(train[name]), encoding="utf-8")
        directories[name] = count_to_directory(
            [tmp_path / f"{name}.txt"], tmp_path / f"{name}.counts", workers=2, progress=False
        ).parent
    ours = train_parity_from_count_directories(directories, dev=dev, num_merges=900, special_tokens=["<s>"])
    assert saved(ours, tmp_path / "ours") == reference(train, dev, num_merges=900, special_tokens=["<s>"])

    base = trained(train, None, RATIO, num_merges=300)
    base.save(str(tmp_path / "base.json"))
    continued = train_parity_from_count_directories(
        directories, ratio=RATIO, num_merges=500, continue_from=tmp_path / "base.json"
    )
    assert saved(continued, tmp_path / "continued") == reference(train, None, RATIO, num_merges=800)

    other = count_to_directory(
        [tmp_path / "russian.txt"], tmp_path / "llama3.counts", pattern="llama3", workers=1, progress=False
    ).parent
    english = directories["english"]
    with pytest.raises(ValueError, match=f"{other} was counted with another pre-tokenizer than {english}"):
        train_parity_from_count_directories({**directories, "russian": other}, num_merges=10)
    with pytest.raises(ValueError, match=f"{other} was counted with another pre-tokenizer than .*base.json's"):
        train_parity_from_count_directories({"russian": other}, num_merges=10, continue_from=tmp_path / "base.json")


def test_progress_reports_the_languages_counted_then_every_merge(corpora: tuple[Corpus, Corpus]) -> None:
    """``progress``: a callable is told of each language counted (train, then dev) and of every merge, and changes
    nothing: the result is still ParityBpeTrainer's."""
    train, dev = corpora
    small = {name: lines[:300] for name, lines in train.items()}
    calls: list[tuple[str, int, int]] = []
    ours = hf_bpe.train_parity_aware(
        small, dev=dev, num_merges=250, workers=2, progress=lambda *call: calls.append(call)
    )
    languages = [call for call in calls if call[0] == "languages"]
    merges = [call for call in calls if call[0] == "merge"]
    assert [done for _, done, _ in languages] == [2, 4, 6, 8] and {total for _, _, total in languages} == {8}
    assert merges == [("merge", done, 250) for done in range(1, 251)]
    assert (ours.vocab, ours.merges) == reference(small, dev, num_merges=250)
