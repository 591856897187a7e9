"""The HuggingFace course's Unigram worked example (chapter 6), in hf_bpe's course mode.

The golden numbers are the course's own, worked by hand, with one correction: the course computes
``P(['p', 'u', 'g'])`` and ``P(['pu', 'g'])`` with ``P('p') = P('pu') = 5/210``, but "p" and "pu" occur
17 times in the corpus (5 in "pug", 12 in "pun"), so both are 17/210 -- as the course's later table
(``"pug": ["pu", "g"] (score 0.007710)``) and its Chinese translator's note already say.
"""

from __future__ import annotations

import math

import pytest

from hf_bpe.models.unigram import course

CORPUS = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
VOCABULARY = ["h", "u", "g", "hu", "ug", "p", "pu", "n", "un", "b", "bu", "s", "hug", "gs", "ugs"]
FREQUENCIES = {
    "h": 15,
    "u": 36,
    "g": 20,
    "hu": 15,
    "ug": 20,
    "p": 17,
    "pu": 17,
    "n": 16,
    "un": 16,
    "b": 4,
    "bu": 4,
    "s": 5,
    "hug": 15,
    "gs": 5,
    "ugs": 5,
}


@pytest.fixture
def probs() -> dict[str, float]:
    return course.probabilities(course.strict_substring_frequencies(CORPUS))


def test_initial_vocabulary_is_the_strict_substrings_with_their_frequencies() -> None:
    freqs = course.strict_substring_frequencies(CORPUS)
    assert sorted(freqs) == sorted(VOCABULARY)
    assert freqs == FREQUENCIES
    assert sum(freqs.values()) == 210


def test_probability_of_ug_is_20_over_210(probs: dict[str, float]) -> None:
    assert probs["ug"] == pytest.approx(20 / 210)


def test_the_pug_probabilities_with_the_corrected_p(probs: dict[str, float]) -> None:
    # The course writes 5/210 for P('p') and gets 0.000389 and 0.0022676; with 17/210:
    assert probs["p"] == pytest.approx(17 / 210)
    assert probs["pu"] == pytest.approx(17 / 210)
    assert probs["p"] * probs["u"] * probs["g"] == pytest.approx(0.0013217, abs=1e-7)
    assert probs["pu"] * probs["g"] == pytest.approx(0.0077098, abs=1e-7)
    assert probs["p"] * probs["ug"] == pytest.approx(probs["pu"] * probs["g"])  # the course's tie
    assert probs["p"] * probs["u"] * probs["g"] != pytest.approx(0.000389, abs=1e-6)  # the course's wrong value


# The course's segmentations; where several are equally probable (as the course notes for "pug"), the first
# found (by start, then end position) wins, and the course's own choice is among the tied ones.
@pytest.mark.parametrize(
    ("word", "tokens", "score"),
    [
        ("unhug", [["un", "hug"]], 0.005442),
        ("hug", [["hug"]], 0.071428),
        ("pug", [["p", "ug"], ["pu", "g"]], 0.007710),
        ("pun", [["p", "un"], ["pu", "n"]], 0.006168),
        ("bun", [["b", "un"], ["bu", "n"]], 0.001451),
        ("hugs", [["h", "ugs"], ["hu", "gs"], ["hug", "s"]], 0.001701),
    ],
)
def test_viterbi_cuts_the_words_as_the_course_does(probs, word: str, tokens: list[list[str]], score: float) -> None:
    got, p = course.encode_word(word, probs)
    assert got == tokens[0]
    for tied in tokens:
        assert math.prod(probs[t] for t in tied) == pytest.approx(score, abs=1e-6)
    assert p == pytest.approx(score, abs=1e-6)


def test_unhug_prefixes_have_the_course_scores(probs: dict[str, float]) -> None:
    # Character 0 (u): "u" 0.171429; 1 (n): "un" 0.076191; 2..4: "un" "h" / "hu" / "hug" 0.005442.
    for prefix, score in [
        ("u", 0.171429),
        ("un", 0.076191),
        ("unh", 0.005442),
        ("unhu", 0.005442),
        ("unhug", 0.005442),
    ]:
        assert course.encode_word(prefix, probs)[1] == pytest.approx(score, abs=2e-6)


def test_corpus_loss_is_169_8(probs: dict[str, float]) -> None:
    expected = sum(
        f * -math.log(p) for f, p in [(10, 0.071428), (5, 0.007710), (12, 0.006168), (4, 0.001451), (5, 0.001701)]
    )
    assert course.corpus_loss(CORPUS, probs) == pytest.approx(expected, abs=1e-3)
    assert round(course.corpus_loss(CORPUS, probs), 1) == 169.8


def test_removing_pu_costs_nothing_and_removing_hug_costs_23_5() -> None:
    costs = course.removal_costs(CORPUS, course.strict_substring_frequencies(CORPUS))
    assert costs["pu"] == pytest.approx(0.0, abs=1e-9)
    assert round(costs["hug"], 1) == 23.5
    probs = course.probabilities(FREQUENCIES)
    without_hug = {k: v for k, v in probs.items() if k != "hug"}
    # The course's ["hu", "g"] ties with ["h", "ug"], found first; ["hu", "gs"] with ["h", "ugs"].
    assert course.encode_word("hug", without_hug) == (["h", "ug"], pytest.approx(0.006802, abs=1e-6))
    assert probs["hu"] * probs["g"] == pytest.approx(0.006802, abs=1e-6)
    assert course.encode_word("hugs", without_hug) == (["h", "ugs"], pytest.approx(0.001701, abs=1e-6))
    assert probs["hu"] * probs["gs"] == pytest.approx(0.001701, abs=1e-6)


def test_course_training_never_removes_characters() -> None:
    kept = course.train_course(CORPUS, 10)
    assert len(kept) == 10
    assert {c for word in CORPUS for c in word} <= set(kept)
    assert sum(kept.values()) == pytest.approx(1.0)
