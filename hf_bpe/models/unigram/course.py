"""The HuggingFace course's simplified Unigram, for its worked example ("course" mode).

The course (chapter 6, "Unigram tokenization") teaches the algorithm without EM: the initial vocabulary is every
strict substring of the words (every substring that is shorter than some word it occurs in), a piece's
probability is its frequency in the corpus over the sum of all the vocabulary's frequencies, a word is cut by
Viterbi into its most probable segmentation, and the corpus loss is the sum over words of
``count * -log P(word)``. Training removes, in each round, the share ``percent_to_remove`` of the multi-character
pieces whose removal raises the loss least, re-deriving the probabilities from the remaining frequencies. On
``hug×10 pug×5 pun×12 bun×4 hugs×5``: the frequencies sum to 210, ``unhug`` is cut ``un hug``, the loss is 169.8.

This is the teaching algorithm, not ``tokenizers``': :mod:`.trainer` is that one.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping


def strict_substring_frequencies(word_freqs: Mapping[str, int]) -> dict[str, int]:
    """Every strict substring of the words, with its frequency over the whole corpus (whole words included).

    >>> freqs = strict_substring_frequencies({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5})
    >>> freqs["ug"], freqs["hug"], "hugs" in freqs, sum(freqs.values())
    (20, 15, False, 210)
    """
    occurrences: Counter[str] = Counter()
    strict: set[str] = set()
    for word, freq in word_freqs.items():
        for start in range(len(word)):
            for end in range(start + 1, len(word) + 1):
                occurrences[word[start:end]] += freq
                if end - start < len(word):
                    strict.add(word[start:end])
    return {piece: occurrences[piece] for piece in occurrences if piece in strict}


def probabilities(freqs: Mapping[str, int]) -> dict[str, float]:
    """Each piece's frequency over the sum of all frequencies.

    >>> probabilities({"a": 1, "b": 3})
    {'a': 0.25, 'b': 0.75}
    """
    total = sum(freqs.values())
    return {piece: freq / total for piece, freq in freqs.items()}


def encode_word(word: str, probs: Mapping[str, float]) -> tuple[list[str], float]:
    """The most probable segmentation of ``word`` and its probability (Viterbi; the first of equal ones wins).

    Returns ``(["<unk>"], 0.0)`` if the word cannot be cut.

    >>> probs = probabilities(strict_substring_frequencies({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}))
    >>> tokens, p = encode_word("unhug", probs)
    >>> tokens, round(p, 6)
    (['un', 'hug'], 0.005442)
    """
    best: list[tuple[float, int] | None] = [(1.0, 0)] + [None] * len(word)
    for start in range(len(word)):
        here = best[start]
        if here is None:
            continue
        for end in range(start + 1, len(word) + 1):
            p = probs.get(word[start:end])
            if p is None:
                continue
            candidate = here[0] * p
            current = best[end]
            if current is None or candidate > current[0]:
                best[end] = (candidate, start)
    last = best[len(word)]
    if last is None:
        return ["<unk>"], 0.0
    tokens: list[str] = []
    end = len(word)
    while end > 0:
        entry = best[end]
        assert entry is not None  # every position on the path was reached
        tokens.append(word[entry[1] : end])
        end = entry[1]
    return tokens[::-1], last[0]


def corpus_loss(word_freqs: Mapping[str, int], probs: Mapping[str, float]) -> float:
    """``sum(count * -log P(word))`` over the corpus, each word cut by :func:`encode_word`.

    >>> corpus = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    >>> round(corpus_loss(corpus, probabilities(strict_substring_frequencies(corpus))), 1)
    169.8
    """
    return sum(freq * -math.log(encode_word(word, probs)[1]) for word, freq in word_freqs.items())


def removal_costs(word_freqs: Mapping[str, int], freqs: Mapping[str, int]) -> dict[str, float]:
    """How much the loss rises if each multi-character piece is removed (probabilities kept as they are).

    >>> corpus = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    >>> costs = removal_costs(corpus, strict_substring_frequencies(corpus))
    >>> round(costs["pu"], 6), round(costs["hug"], 1)
    (0.0, 23.5)
    """
    probs = probabilities(freqs)
    base = corpus_loss(word_freqs, probs)
    costs = {}
    for piece in probs:
        if len(piece) == 1:
            continue
        without = {other: p for other, p in probs.items() if other != piece}
        costs[piece] = corpus_loss(word_freqs, without) - base
    return costs


def train_course(word_freqs: Mapping[str, int], vocab_size: int, *, percent_to_remove: float = 0.1) -> dict[str, float]:
    """The course's training loop: prune the cheapest pieces until the vocabulary has ``vocab_size`` pieces.

    Returns each kept piece's probability. Single characters are never removed.

    >>> sorted(train_course({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 10))
    ['b', 'bu', 'g', 'h', 'hug', 'n', 'p', 'pu', 's', 'u']
    """
    freqs = dict(strict_substring_frequencies(word_freqs))
    while len(freqs) > vocab_size:
        costs = sorted(removal_costs(word_freqs, freqs).items(), key=lambda item: item[1])
        if not costs:
            break
        count = max(1, min(int(len(freqs) * percent_to_remove), len(freqs) - vocab_size))
        for piece, _ in costs[:count]:
            del freqs[piece]
    return probabilities(freqs)
