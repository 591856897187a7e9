"""Word counts to a Unigram vocabulary, as ``tokenizers``' ``UnigramTrainer`` trains it.

The steps of ``tokenizers/src/models/unigram/trainer.rs`` (``do_train``), in order:

1. **Seed pieces** (``make_seed_sentence_pieces``): every character, scored by its count in the corpus, then the
   substrings of the distinct words (each word once, ``\\0`` after each) that are nodes of their suffix tree --
   repeated at least twice and not always followed by the same character (``esaxx``'s enhanced suffix array) --
   of 2 to ``max_piece_length`` characters, scored ``occurrences * length``, best first (ties: the larger
   string first), up to ``seed_size`` pieces in all; scores become log-probabilities. A ``<UNK>`` piece with a
   NaN score comes first.
2. **EM** (``run_e_step``/``run_m_step``), ``n_sub_iterations`` times: expected piece counts from each word's
   lattice marginals, weighted by the word's count; pieces expected less than 0.5 times are dropped; scores
   become ``digamma(count) - digamma(total)`` (the Bayesian EM of sentencepiece).
3. **Pruning** (``prune_sentence_pieces``), until at most ``vocab_size * 1.1`` pieces remain: each piece's loss
   of likelihood if it were replaced by its second-best segmentation; the pieces with the least loss go, down to
   ``max(vocab_size * 1.1, shrinking_factor * size)``.
4. **Final** (``finalize``): every character of the corpus is kept; the remaining pieces are taken in model order
   up to the size, sorted by score (best first), after the special tokens (and ``unk_token``, first, if it is not
   one of them).

The reference cuts the words into chunks per thread and adds the chunks' sums, in an order that changes from
run to run, so its scores move by about 1e-3 between runs of the same input while the set of pieces does not. Here
the E-step's sums run over :data:`E_STEP_GROUPS` fixed groups of words, added in order, and the processes that
share the groups (and pruning's Viterbi pass, whose sums are whole numbers) change no float: the same result on
one core or many. This module writes no files (:mod:`.files` does) and does not cut text
(:mod:`.recipe` does).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from hf_bpe.models.shortfall import TrainingWarning, caller_stacklevel, shortfall
from hf_bpe.models.unigram.lattice import Lattice, UnigramModel, WordLattices, cut, populate_marginal
from hf_bpe.models.unigram.options import UnigramOptions
from hf_bpe.processes import fork_processes, run_forked

Pieces = list[tuple[str, float]]

#: The trainer's own unknown piece while training (``"<UNK>"`` in ``do_train``), never in the result.
TRAINING_UNK = "<UNK>"
_BOUNDARY = "\0"
#: The fixed groups of words the E-step sums separately (:func:`run_e_step`).
E_STEP_GROUPS = 8
#: Distinct words from which the E-step and pruning share their words among processes (fewer do not repay the
#: forks, some 10-50 ms each); either way the result is the same.
PARALLEL_MIN_WORDS = 20_000

T = TypeVar("T")


class UnigramTrainingError(ValueError):
    """The options cannot give a vocabulary (too small for the corpus's characters, ...)."""


@dataclasses.dataclass(frozen=True)
class UnigramResult:
    """A trained Unigram model: ``pieces`` (special tokens first) with scores, and the unknown token's id.

    ``special_tokens`` are the trainer's (the added tokens of ``tokenizer.json``); an ``unk_token`` that is not one
    of them is the first piece but not an added token, as in the reference.
    """

    pieces: Pieces
    unk_id: int | None
    special_tokens: tuple[str, ...]


Trace = Callable[[str, Pieces], None]
"""Called with a step's name (``"seed"``, ``"em 1.2"``, ``"prune 1"``) and the pieces after it (``verify``)."""


def digamma(x: float) -> float:
    """The digamma function as ``trainer.rs`` and sentencepiece's ``Digamma`` (unigram_model_trainer.cc) compute it
    (recurrence to 7, then the asymptotic series added to the result at once).

    >>> round(digamma(1.0), 6)  # -Euler's constant
    -0.577216
    """
    result = 0.0
    while x < 7.0:
        result -= 1.0 / x
        x += 1.0
    x -= 1.0 / 2.0
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    result += (
        math.log(x)
        + (1.0 / 24.0) * xx2
        - 7.0 / 960.0 * xx4
        + (31.0 / 8064.0) * xx4 * xx2
        - (127.0 / 30720.0) * xx4 * xx4
    )
    return result


def _sum(values: Iterable[float]) -> float:
    """Left-to-right float sum, as Rust's ``Iterator::sum`` (Python 3.12's ``sum`` compensates)."""
    total = 0.0
    for value in values:
        total += value
    return total


def repeated_substrings(words: Sequence[str], max_length: int) -> list[tuple[str, int]]:
    """The suffix-tree nodes of ``words`` joined with ``\\0`` that ``make_seed_sentence_pieces`` keeps.

    That is: substrings of 2 to ``max_length`` characters without ``\\0`` that occur at least twice in the
    joined string and are not always followed by the same character, with their number of occurrences. Found
    with a suffix array of the suffixes cut to ``max_length + 1`` characters (enough to see the next character),
    sorted by Python's string sort, and the intervals of equal prefixes (the lcp intervals) read off it.

    >>> sorted(repeated_substrings(["abracadabra"], 16))
    [('abra', 2), ('bra', 2), ('ra', 2)]
    """
    flat = "".join(word + _BOUNDARY for word in words if word)
    width = max_length + 1
    suffixes = sorted(flat[i : i + width] for i in range(len(flat)) if flat[i] != _BOUNDARY)
    found: list[tuple[str, int]] = []
    # The stack of open lcp intervals: (depth, left boundary).
    stack: list[tuple[int, int]] = [(0, 0)]
    previous = ""
    for index in range(len(suffixes) + 1):
        if index < len(suffixes):
            current = suffixes[index]
            limit = min(len(previous), len(current))
            lcp = 0
            while lcp < limit and previous[lcp] == current[lcp]:
                lcp += 1
            previous = current
        else:
            lcp = 0
        left = index - 1
        while lcp < stack[-1][0]:
            depth, left = stack.pop()
            if 2 <= depth <= max_length:
                piece = suffixes[left][:depth]
                if _BOUNDARY not in piece:
                    found.append((piece, index - left))
        if lcp > stack[-1][0]:
            stack.append((lcp, left))
    return found


def seed_pieces(sentences: Sequence[tuple[str, int]], options: UnigramOptions) -> Pieces:
    """``make_seed_sentence_pieces``: characters by count, then repeated substrings by ``freq * length``.

    >>> [piece for piece, _ in seed_pieces([("ab", 1), ("abc", 2)], UnigramOptions())]
    ['b', 'a', 'c', 'ab']
    """
    chars: Counter[str] = Counter()
    for word, count in sentences:
        for char in word:
            if char != _BOUNDARY:
                chars[char] += count
    seeds: list[tuple[str, float]] = [
        (char, float(count)) for count, char in sorted(((c, ch) for ch, c in chars.items()), reverse=True)
    ]
    scored = sorted(
        (
            (freq * len(piece), piece)
            for piece, freq in repeated_substrings([w for w, _ in sentences], options.max_piece_length)
        ),
        reverse=True,
    )
    for score, piece in scored:
        if len(seeds) >= options.seed_size:
            break
        seeds.append((piece, float(score)))
    log_sum = math.log(_sum(score for _, score in seeds))
    return [(piece, math.log(score) - log_sum) for piece, score in seeds]


def run_e_step(
    source: UnigramModel | WordLattices, sentences: Sequence[tuple[str, int]], processes: int = 1
) -> list[float]:
    """Expected counts of every piece over the corpus (``run_e_step``), by the model's ids: ``source`` is the
    model, or the words' lattices under it (:meth:`WordLattices.use`), which give the same floats faster.

    The words are cut into :data:`E_STEP_GROUPS` fixed groups; each group's sums start from zero and the groups'
    sums are added in order (the reference does so per thread's chunk): the same floats whatever ``processes``
    share the groups out.
    """
    bounds = _groups(len(sentences), E_STEP_GROUPS)

    def groups(first: int, last: int) -> list[list[float]]:
        return [_expected(source, sentences, start, end) for start, end in bounds[first:last]]

    parts = [part for share in _shared(groups, len(bounds), processes, "unigram E-step") for part in share]
    expected = parts[0]
    for part in parts[1:]:
        expected = [total + value for total, value in zip(expected, part, strict=True)]
    return expected


def _expected(
    source: UnigramModel | WordLattices, sentences: Sequence[tuple[str, int]], first: int, last: int
) -> list[float]:
    """The expected counts by the model's ids of the words ``first`` to ``last``, summed from zero in order."""
    if isinstance(source, WordLattices):
        expected = [0.0] * (source.unk_slot + 1)
        lattices = source.lattices
        scores = source.scores
        for index in range(first, last):
            z = populate_marginal(lattices[index], scores, float(sentences[index][1]), expected)
            _check_likelihood(z, sentences[index][0])
        return source.by_id(expected)
    expected = [0.0] * len(source.pieces)
    for word, count in sentences[first:last]:
        _check_likelihood(source.populate_marginal(word, float(count), expected), word)
    return expected


def _check_likelihood(z: float, word: str) -> None:
    if math.isnan(z):
        raise UnigramTrainingError(f"the likelihood of {word[:40]!r} is NaN (a word may be too long)")


def _groups(size: int, count: int) -> list[tuple[int, int]]:
    """``count`` contiguous ``(start, end)`` ranges covering ``range(size)``, as even as can be."""
    return [(size * index // count, size * (index + 1) // count) for index in range(count)]


def _shared(work: Callable[[int, int], T], items: int, processes: int, name: str) -> list[T]:
    """``work(first, last)`` over ``range(items)`` cut into ``processes`` contiguous shares, the last share in this
    process and each other in a forked child (:func:`hf_bpe.processes.run_forked`), results in share order."""
    shares = _groups(items, max(1, min(processes, items)))
    return run_forked([functools.partial(work, first, last) for first, last in shares], name)


def training_processes(sentences: Sequence[tuple[str, int]]) -> int:
    """How many processes the E-step and pruning share their words among: the CPUs (:func:`fork_processes`), or
    one for a corpus too small to repay a fork. It changes no result (:func:`run_e_step`)."""
    return fork_processes() if len(sentences) >= PARALLEL_MIN_WORDS else 1


def run_m_step(pieces: Pieces, expected: Sequence[float]) -> Pieces:
    """Drop pieces expected less than 0.5 times; score the rest ``digamma(count) - digamma(total)``."""
    kept: list[tuple[str, float]] = []
    total = 0.0
    for index, (freq, (piece, _)) in enumerate(zip(expected, pieces, strict=True)):
        if index == 0:
            kept.append((piece, math.nan))
            continue
        if freq < 0.5:
            continue
        kept.append((piece, freq))
        total += freq
    log_sum = digamma(total)
    return [(piece, digamma(count) - log_sum) for piece, count in kept]


def prune_pieces(
    model: UnigramModel,
    pieces: Pieces,
    sentences: Sequence[tuple[str, int]],
    options: UnigramOptions,
    processes: int = 1,
    lattices: WordLattices | None = None,
) -> Pieces:
    """``prune_sentence_pieces``: keep the pieces whose removal would cost the corpus likelihood most (the Viterbi
    paths from ``lattices``, the words' lattices under ``model``, if given: the same paths, faster)."""
    model.trie  # noqa: B018 -- made once here, not in each process of the shares
    shares = _shared(functools.partial(_alternatives, model), len(pieces), processes, "unigram pruning")
    always_keep = [keep for share in shares for keep in share[0]]
    alternatives = [alternative for share in shares for alternative in share[1]]
    vsum = float(sum(count for _, count in sentences))
    freq, inverted = _viterbi_counts(model if lattices is None else lattices, sentences, processes)

    total = _sum(freq)
    log_total = math.log(total)
    candidates: list[tuple[int, float]] = []
    new_pieces: Pieces = [pieces[0]]
    for index, (piece, score) in enumerate(pieces):
        if index == 0:
            continue
        if freq[index] == 0.0 and not always_keep[index]:
            continue  # not on any Viterbi path: removable at no cost
        if not alternatives[index]:
            new_pieces.append((piece, score))
            continue
        f = 0.0
        for sentence_index in inverted[index]:
            f += sentences[sentence_index][1]
        if f == 0.0 or math.isnan(f):
            continue
        f /= vsum
        logprob_piece = math.log(freq[index]) - log_total
        # The reference multiplies by the number of pieces less one (``alternatives.len() - 1``), not by the
        # number of this piece's alternatives less one as sentencepiece does: kept, for the same result.
        log_total_alt = math.log(total + freq[index] * (len(alternatives) - 1))
        logprob_alt = 0.0
        for alt in alternatives[index]:
            logprob_alt += math.log(freq[alt] + freq[index]) - log_total_alt
        loss = f * (logprob_piece - logprob_alt)
        if math.isnan(loss):
            raise UnigramTrainingError(f"the pruning loss of {piece!r} is NaN")
        candidates.append((index, loss))
    desired = options.vocab_size * 11 // 10
    pruned_size = max(desired, int(len(pieces) * options.shrinking_factor))
    candidates.sort(key=lambda candidate: candidate[1], reverse=True)
    for index, _ in candidates:
        if len(new_pieces) == pruned_size:
            break
        new_pieces.append(pieces[index])
    return new_pieces


def _alternatives(model: UnigramModel, first: int, last: int) -> tuple[list[bool], list[list[int]]]:
    """For the pieces ``first`` to ``last``: whether each must be kept, and the pieces of its second-best
    segmentation where it is its own best one (``nbest2``)."""
    always_keep = [True] * (last - first)
    alternatives: list[list[int]] = [[] for _ in range(last - first)]
    for index in range(first, last):
        if index == 0:
            always_keep[0] = False
            continue
        piece = model.pieces[index][0]
        if len(piece) == 1:
            continue  # its lattice is its own node: one segmentation, kept (as nbest2 would find)
        nbests = model.nbest2(piece)
        if len(nbests) == 1:
            always_keep[index - first] = True
        elif len(nbests[0]) >= 2:
            always_keep[index - first] = False
        elif len(nbests[0]) == 1:
            always_keep[index - first] = True
            alternatives[index - first] = nbests[1]
    return always_keep, alternatives


def _viterbi_counts(
    source: UnigramModel | WordLattices, sentences: Sequence[tuple[str, int]], processes: int
) -> tuple[list[float], list[list[int]]]:
    """How often each piece is on the words' Viterbi paths (counts weighted: whole numbers, so exact in any order),
    and the words (their indices, ascending) each is on, shared among ``processes`` by contiguous ranges;
    ``source`` is the model or the words' lattices under it (the same paths)."""
    size = len(source.model.pieces) if isinstance(source, WordLattices) else len(source.pieces)

    def counted(first: int, last: int) -> tuple[list[float], list[list[int]]]:
        freq = [0.0] * size
        inverted: list[list[int]] = [[] for _ in range(size)]
        for sentence_index in range(first, last):
            word, count = sentences[sentence_index]
            path = source.viterbi(sentence_index if isinstance(source, WordLattices) else word)  # type: ignore[arg-type]
            for piece_id in path:
                freq[piece_id] += count
                inverted[piece_id].append(sentence_index)
        return freq, inverted

    shares = _shared(counted, len(sentences), processes, "unigram pruning")
    freq, inverted = shares[0]
    for more_freq, more_inverted in shares[1:]:
        freq = [total + value for total, value in zip(freq, more_freq, strict=True)]
        for ids, more in zip(inverted, more_inverted, strict=True):
            ids += more
    return freq, inverted


def required_chars(sentences: Sequence[tuple[str, int]], options: UnigramOptions) -> list[str]:
    """Every character of the corpus and of ``initial_alphabet`` (sorted: the reference's set has no order)."""
    chars = {char for word, _ in sentences for char in word}
    chars.update(alpha[0] for alpha in options.initial_alphabet if alpha)
    return sorted(chars)


def finalize(model: UnigramModel, required: Sequence[str], options: UnigramOptions) -> UnigramResult:
    """``finalize``: characters first, then model order up to the size; sorted by score; special tokens first."""
    penalty = 0.0
    pieces: Pieces = []
    inserted = {TRAINING_UNK}
    existing = dict(model.pieces)
    for char in required:
        if char in existing:
            inserted.add(char)
            pieces.append((char, existing[char]))
        else:
            inserted.add(char)
            pieces.append((char, model.min_score + penalty))
            penalty += 0.0001
    specials = list(options.special_tokens)
    unk_id: int | None = None
    need_unk = False
    if options.unk_token is not None:
        if options.unk_token in specials:
            unk_id = specials.index(options.unk_token)
        else:
            unk_id, need_unk = 0, True
    size = options.vocab_size - len(specials) - (1 if need_unk else 0)
    for token, score in model.pieces:
        if token in inserted:
            continue
        inserted.add(token)
        pieces.append((token, 0.0 if math.isnan(score) else score))
        if len(pieces) == size:
            break
    pieces.sort(key=lambda item: item[1], reverse=True)
    head = [options.unk_token, *specials] if need_unk else specials
    return UnigramResult(
        pieces=[(str(token), 0.0) for token in head] + pieces, unk_id=unk_id, special_tokens=tuple(specials)
    )


def train_unigram(
    word_counts: Mapping[str, int],
    options: UnigramOptions | None = None,
    *,
    trace: Trace | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> UnigramResult:
    """Train a Unigram vocabulary on word counts (``UnigramTrainer::do_train``).

    Args:
        word_counts: words as :func:`hf_bpe.pipeline.sentencepiece.words` cuts them, with their counts.
        options: the trainer's options.
        trace: called after every step, for ``verify``.
        progress: called as ``progress("em", rounds_done, rounds_expected)`` after each round of EM and pruning
            (the expected number is estimated from the seed pieces and ``shrinking_factor``).

    Raises:
        UnigramTrainingError: ``vocab_size`` is smaller than the number of characters to keep.

    >>> result = train_unigram({"▁hug": 10, "▁pug": 5, "▁pun": 12, "▁bun": 4, "▁hugs": 5},
    ...                        UnigramOptions(vocab_size=12, unk_token="<unk>"))
    >>> [piece for piece, _ in result.pieces][:4], result.unk_id
    (['<unk>', '▁pu', 'n', '▁hug'], 0)
    """
    options = options or UnigramOptions()
    sentences = sorted(word_counts.items())
    if not sentences:
        raise UnigramTrainingError("no text to train on: the corpus holds no words")
    pieces: Pieces = [(TRAINING_UNK, math.nan), *seed_pieces(sentences, options)]
    if trace:
        trace("seed", pieces)
    desired = options.vocab_size * 11 // 10
    required = required_chars(sentences, options)
    if len(required) > options.vocab_size:
        raise UnigramTrainingError(
            f"vocab_size {options.vocab_size} is smaller than the {len(required)} characters of the corpus, "
            "which the vocabulary must hold: raise --vocab-size"
        )
    model = UnigramModel(pieces, 0)
    # The lattices are cut after the first M-step: most of the seed pieces go there, and their nodes with them.
    lattices: WordLattices | None = None
    processes = training_processes(sentences)
    rounds = _expected_rounds(len(pieces), desired, options.shrinking_factor)
    round_ = 0
    while True:
        if progress is not None:
            progress("em", round_, rounds)
        round_ += 1
        for iteration in range(options.n_sub_iterations):
            expected = run_e_step(model if lattices is None else lattices, sentences, processes)
            pieces = run_m_step(pieces, expected)
            model = UnigramModel(pieces, 0)
            if lattices is None:
                lattices = _cut_lattices(model, sentences, processes)
            else:
                lattices.use(model)
            if trace:
                trace(f"em {round_}.{iteration + 1}", pieces)
        if len(pieces) <= desired:
            break
        pieces = prune_pieces(model, pieces, sentences, options, processes, lattices)
        model = UnigramModel(pieces, 0)
        if lattices is not None:
            lattices.use(model)
        if trace:
            trace(f"prune {round_}", pieces)
    if progress is not None:
        progress("em", round_, round_)
    result = finalize(model, required, options)
    message = shortfall(len(result.pieces), options.vocab_size, "no_pieces")
    if message is not None:
        warnings.warn(message, TrainingWarning, stacklevel=caller_stacklevel())
    return result


def _cut_lattices(model: UnigramModel, sentences: Sequence[tuple[str, int]], processes: int) -> WordLattices:
    """The words' lattices under ``model`` (:class:`WordLattices`), cut in ``processes`` shares of the words."""
    words = [word for word, _ in sentences]
    model.trie  # noqa: B018 -- made once here, not in each process of the shares

    def cut_share(first: int, last: int) -> list[Lattice]:
        return [cut(model, word, len(model.pieces)) for word in words[first:last]]

    shares = _shared(cut_share, len(words), processes, "unigram lattices")
    return WordLattices(model, words, [lattice for share in shares for lattice in share])


def _expected_rounds(seeds: int, desired: int, shrinking_factor: float) -> int:
    """How many rounds of EM and pruning shrink ``seeds`` pieces to ``desired`` (each keeps ``shrinking_factor`` of
    them), for the progress bar.

    >>> _expected_rounds(1000, 110, 0.75)
    9
    """
    if seeds <= desired or not 0 < shrinking_factor < 1:
        return 1
    return math.ceil(math.log(desired / seeds) / math.log(shrinking_factor)) + 1
