"""Parity-aware BPE (Foroutan et al. 2025, arXiv 2508.04796): each merge is chosen for the language that compresses
worst, exactly as ``tokenizers``' ``ParityBpeTrainer`` chooses it (``tokenizers/src/models/bpe/parity_trainer.rs``).

This module owns the parity rules; text is cut and counted by :mod:`hf_bpe.counting.counting` (one language per
process, every core) with the pre-tokenizer :func:`hf_bpe.models.bpe.training.pre_tokenizer_for` builds for the
other front ends, and the result is the same :class:`~hf_bpe.models.bpe.result.TrainResult`, saved by its
``save``.

What is shared with the plain trainer (:mod:`hf_bpe.models.bpe.trainer`): the vocabulary's first ids (special
tokens, then the alphabet by code point: ``first_tokens``), the word representation (symbol strings, one
character per symbol whose code point is the symbol's id, so ``str.split`` finds a pair in C) and the merge of
every occurrence left to right. What differs, and why it is written here:

* every language keeps its own words, pair counts and queue, and every merge is applied to all of them: the
  reference picks the pair from one language's counts (``apply_merge_to_language`` for each language).
* ties between pairs of equal count go to the *larger* ``(left token, right token)`` compared as strings
  (``PairMerge::cmp``, after the Python reference's ``max(stats, key=lambda x: (stats[x][lang], x))``), not to
  the smaller ids as ``BpeTrainer`` has it; so the queues here order by a string key, not by ids.
* a merged pair's count drops to 0 in every language (the reference sets it), and all its occurrences merge
  in one step; so, unlike ``BpeTrainer``'s, this loop has no queue-order quirk: the argmax is exact.

The rules of ``ParityBpeTrainer::do_train``:

* languages are in the order of ``train``'s keys; ties between languages go to the first.
* the measure: with ``dev``, each language's dev text length in symbols (the units the pre-tokenizer emits: bytes
  under byte-level); the longest goes next (``base``). With ``ratio``, the training text's compression
  (initial length / current length) divided by the language's ratio; the lowest goes next. With neither, the
  training text's length, as with ``dev``.
* ``window``: the language with the best measure is passed over while it holds more than ``alpha / languages``
  of the last ``window_size`` choices (``select_language_window``).
* ``global_merges``: the first merges take the pair counts summed over the languages.
* a language whose best pair is rarer than ``min_frequency`` (or which has none) is exhausted for good and skipped;
  training stops when every language is, or after ``num_merges`` merges (less the size of the vocabulary before
  any merge with ``total_symbols``, so that the vocabulary has at most ``num_merges`` tokens).
* a merge whose token already exists keeps its id (a pair merged twice keeps its last place in ``merges.txt``).
"""

from __future__ import annotations

import heapq
import math
import os
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import pairwise
from typing import Any

from hf_bpe.counting.counting import count_sequences
from hf_bpe.models.bpe.continuing import (
    BaseTokenizer,
    ContinuedResult,
    add_special_tokens,
    as_base,
    base_tokens,
    check_base,
)
from hf_bpe.models.bpe.encoder import BytePairEncoder
from hf_bpe.models.bpe.options import STOP_MIN_FREQUENCY, STOP_NO_PAIRS, STOP_VOCAB_SIZE, Merges, Vocab
from hf_bpe.models.bpe.result import TrainResult
from hf_bpe.models.bpe.trainer import first_tokens
from hf_bpe.models.options import check_count, check_special_tokens
from hf_bpe.pipeline.byte_level import BYTE_ALPHABET, from_byte_level
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
from hf_bpe.processes import run_forked
from hf_bpe.progress import Progress, ProgressOption, callback, with_progress

VARIANTS = ("base", "window")

Texts = Iterable[str | Sequence[str]]

# A queue entry: (-count, key of the left token, key of the right token, pair). heapq pops the smallest, so the
# keys reverse the string order: each character c becomes chr(_TOP - 1 - ord(c)) and a key ends with chr(_TOP),
# above every such character, so that a longer token ("abc") comes before its prefix ("ab"), as it is larger.
_TOP = 0x10FFFF


def _descending(token: str) -> str:
    """A key whose ascending order is ``token``'s descending order (see ``_TOP``)."""
    return "".join([chr(_TOP - 1 - ord(c)) for c in token]) + chr(_TOP)


@dataclass
class _Words:
    """One language's words (symbol strings), their counts, and the words each pair may occur in (a superset:
    a word stays listed after the pair left it). ``pairs``: the pair counts (training words only); ``queue``:
    their lazy max-queue, and ``risen`` the pairs whose count rose since it was last used (queued when it is
    next used: each once, however often it rose); ``length``: the symbols of the text, words of one symbol
    included; ``initial``: its characters (byte-level: bytes), the length before any merge."""

    words: list[str]
    counts: list[int]
    where: dict[str, list[int]]
    length: int
    initial: int
    pairs: dict[str, int] | None = None
    queue: list[tuple[int, str, str, str]] = field(default_factory=list)
    risen: set[str] = field(default_factory=set)


def _spell(counts: Mapping[str, int], spell: Callable[[str], str], count_pairs: bool) -> _Words:
    """``counts`` as symbol strings (``spell``: a word to its symbols), with where each pair occurs (and its count,
    for training words)."""
    words: list[str] = []
    word_counts: list[int] = []
    where: dict[str, list[int]] = {}
    pairs: dict[str, int] = {}
    length = initial = 0
    for word, count in counts.items():
        initial += len(word) * count
        if len(word) < 2:
            length += len(word) * count
            continue  # no pair, never changes; its length is counted
        symbols = spell(word)
        length += len(symbols) * count
        if len(symbols) < 2:
            continue
        index = len(words)
        words.append(symbols)
        word_counts.append(count)
        found = [a + b for a, b in pairwise(symbols)]
        if count_pairs:
            for pair in found:
                pairs[pair] = pairs.get(pair, 0) + count
        for pair in dict.fromkeys(found):
            where.setdefault(pair, []).append(index)
    return _Words(words, word_counts, where, length, initial, pairs if count_pairs else None)


def _merge(language: _Words, pair: str, symbol: str) -> tuple[int, set[str]]:
    """Merge every occurrence of ``pair`` into ``symbol`` in ``language``'s words (``Word::merge``, left to right).

    Returns how many symbols the text lost, and the pairs whose count rose: the new pairs, each of ``symbol``
    and a neighbour. The pair's own count ends at 0, as ``apply_merge_to_language`` sets it. Pairs whose count
    fell (a neighbour with ``pair``'s first or second symbol) need no telling: their queue entries are too high,
    and are put right when popped. Counts and words are gathered by neighbour first, and each pair is updated
    once per neighbour; a word of one occurrence, by far the most common, has its own branch.

    Hot loop: one piece on purpose (it runs for every word each merge touches, in every language).
    """
    indices = language.where.pop(pair, None)
    if indices is None:
        return 0, set()
    words, counts, where, pairs = language.words, language.counts, language.where, language.pairs
    # The symbol before an occurrence -> its count, and the words it is in; the same after.
    before: defaultdict[str, int] = defaultdict(int)
    before_words: defaultdict[str, list[int]] = defaultdict(list)
    after: defaultdict[str, int] = defaultdict(int)
    after_words: defaultdict[str, list[int]] = defaultdict(list)
    touching = 0  # occurrences right after another ("a b a b": (b, a) becomes (ab, ab))
    touching_words: list[int] = []
    lost = 0
    for index in indices:
        parts = words[index].split(pair)
        occurrences = len(parts) - 1
        if not occurrences:
            continue  # the pair left this word after it was listed
        words[index] = symbol.join(parts)
        count = counts[index]
        lost += occurrences * count
        if occurrences == 1:
            head, tail = parts
            if head:
                left = head[-1]
                before[left] += count
                before_words[left].append(index)
            if tail:
                right = tail[0]
                after[right] += count
                after_words[right].append(index)
            continue
        for j, part in enumerate(parts):
            if part:
                if j:
                    after[part[0]] += count
                    after_words[part[0]].append(index)
                if j < occurrences:
                    before[part[-1]] += count
                    before_words[part[-1]].append(index)
            elif 0 < j < occurrences:
                touching += count
                touching_words.append(index)
    changes = [(left + pair[0], left + symbol, count, before_words[left]) for left, count in before.items()]
    changes += [(pair[1] + right, symbol + right, count, after_words[right]) for right, count in after.items()]
    if touching:
        changes.append((pair[1] + pair[0], symbol + symbol, touching, touching_words))
    rose = set()
    for old, new, count, found in changes:
        if new in where:
            where[new].extend(found)
        else:
            where[new] = found
        if pairs is None:
            continue
        if old != pair:  # an overlapping occurrence ("a a a" for "a a") went with the pair
            left_over = pairs[old] - count
            if left_over:
                pairs[old] = left_over
            else:  # gone from every word: forget it (it is listed again if it comes back)
                del pairs[old]
                where.pop(old, None)
        pairs[new] = pairs.get(new, 0) + count
        rose.add(new)
    if pairs is not None:
        pairs.pop(pair, None)
    return lost, rose


def _enqueue(queue: list[tuple[int, str, str, str]], pair: str, count: int, keys: list[str]) -> None:
    """Queue ``pair`` at ``count``: the highest count first, then the larger pair of token strings."""
    heapq.heappush(queue, (-count, keys[ord(pair[0])], keys[ord(pair[1])], pair))


def _best(queue: list[tuple[int, str, str, str]], count_of: Callable[[str], int]) -> tuple[str, int] | None:
    """Pop the best pair and its count, None if none is left (``pop_best_pair``): an entry whose count is stale
    is queued again at its current count, one for a pair gone is dropped."""
    while queue:
        entry = heapq.heappop(queue)
        count = count_of(entry[3])
        if count <= 0:
            continue
        if count != -entry[0]:
            heapq.heappush(queue, (-count, *entry[1:]))
            continue
        return entry[3], count
    return None


def _window_choice(values: Sequence[float], window: deque[int], window_size: int, threshold: float) -> int:
    """The language with the highest value (-inf: exhausted) that holds at most ``threshold`` of the window,
    passing over the best while it holds more (``select_language_window``). As the reference has it, a choice
    among none left falls to language 0, exhausted or not.

    Raises:
        RuntimeError: where the reference would loop for ever (language 0 holds too much of the window and the
            languages left unpassed are all exhausted).
    """
    mask = [True] * len(values)
    while True:
        best, best_value = 0, -math.inf
        for index, value in enumerate(values):
            if mask[index] and value > best_value:
                best, best_value = index, value
        if window.count(best) / window_size <= threshold:
            return best
        if best_value == -math.inf and not mask[best]:
            raise RuntimeError(
                "the window variant has no language to choose: the languages left are exhausted or hold more "
                f"than alpha / languages = {threshold} of the window (tokenizers' ParityBpeTrainer loops for ever "
                "here); raise alpha"
            )
        mask[best] = False
        if not any(mask):
            return best


@dataclass
class _Choice:
    """How the next language is chosen (``do_train``'s selection)."""

    variant: str
    ratio: list[float] | None
    initial: list[int]  # ratio mode: each language's training length before any merge
    window_size: int
    threshold: float
    window: deque[int] = field(default_factory=deque)

    def language(self, lengths: Sequence[int], exhausted: set[int]) -> int:
        """The language the next merge is for, given the current lengths (dev or training)."""
        if self.ratio is not None:
            # The compression (initial / current length) over the ratio: the lowest goes next.
            rates = [(float(i) / float(c)) / r for i, c, r in zip(self.initial, lengths, self.ratio, strict=True)]
            if self.variant == "base":
                best, best_rate = 0, math.inf
                for index, rate in enumerate(rates):
                    if index not in exhausted and rate < best_rate:
                        best, best_rate = index, rate
                return best
            values = [-math.inf if i in exhausted else -rate for i, rate in enumerate(rates)]
        elif self.variant == "base":
            best, best_length = 0, -math.inf
            for index, length in enumerate(lengths):
                if index not in exhausted and length > best_length:
                    best, best_length = index, length
            return best
        else:
            values = [-math.inf if i in exhausted else float(length) for i, length in enumerate(lengths)]
        best = _window_choice(values, self.window, self.window_size, self.threshold)
        self.window.append(best)
        if len(self.window) > self.window_size:
            self.window.popleft()
        return best


@dataclass
class _Run:
    """The state of a run: the vocabulary so far, each language's training and dev words, the merges."""

    vocab: Vocab
    tokens: list[str]
    keys: list[str]  # id -> _descending(token)
    languages: list[_Words]
    dev: list[_Words] | None
    merges: list[str] = field(default_factory=list)

    def count(self, pair: str) -> int:
        """The pair's count summed over the languages (the global phase's)."""
        return sum(language.pairs.get(pair, 0) for language in self.languages if language.pairs is not None)

    def merge(self, pair: str, global_queue: list[tuple[int, str, str, str]] | None) -> list[int]:
        """Merge ``pair`` in every language (and dev set); returns how many symbols each language's measured text
        lost (dev text where there is a dev set)."""
        token = self.tokens[ord(pair[0])] + self.tokens[ord(pair[1])]
        if token not in self.vocab:
            self.vocab[token] = len(self.tokens)
            self.tokens.append(token)
            self.keys.append(_descending(token))
        symbol = chr(self.vocab[token])
        self.merges.append(pair)
        lost = []
        rose: set[str] = set()
        for language in self.languages:
            fewer, risen = _merge(language, pair, symbol)
            lost.append(fewer)
            language.risen |= risen
            rose |= risen
        if global_queue is not None:
            for changed in rose:
                _enqueue(global_queue, changed, self.count(changed), self.keys)
        if self.dev is not None:
            lost = [_merge(language, pair, symbol)[0] for language in self.dev]
        return lost


@with_progress
def train_parity_from_counts(
    train: Mapping[str, Mapping[str, int]],
    *,
    dev: Mapping[str, Mapping[str, int]] | None = None,
    ratio: Mapping[str, float] | None = None,
    variant: str = "base",
    num_merges: int = 32000,
    min_frequency: int = 0,
    global_merges: int = 0,
    window_size: int = 100,
    alpha: float = 2.0,
    total_symbols: bool = False,
    special_tokens: Sequence[str] = (),
    pre_tokenizer: PreTokenizer | None = None,
    consume_counts: bool = False,
    continue_from: str | os.PathLike[str] | BaseTokenizer | None = None,
    progress: ProgressOption = True,
) -> TrainResult:
    """Parity-aware BPE on each language's pre-token counts (byte-level spelling), as ``ParityBpeTrainer`` trains.

    Args and Raises: as :func:`train_parity_aware`, with counts (pre-token to count) for texts; ``pre_tokenizer``
    only records how the counts were made, for the tokenizer files. ``consume_counts``: empty the counts (dicts
    the caller owns and no longer needs) once their words are read, so that merging has their memory.
    ``continue_from``: the counts must be cut with the base's pre-tokenizer (``pre_tokenizer`` is then its).
    ``progress``: True (a bar of merges on standard error), False, or a callable ``progress(stage, done, total)``.

    >>> result = train_parity_from_counts({"en": {"aabb": 100}, "xx": {"ccdd": 1}}, num_merges=6,
    ...     variant="window", window_size=2, alpha=1.0)
    >>> [" ".join(merge) for merge in result.merges]
    ['b b', 'a bb', 'd d', 'a abb', 'c dd', 'c cdd']
    """
    names = list(train)
    specials = check_special_tokens(special_tokens)
    check_parity_options(names, dev, ratio, variant, num_merges, min_frequency, global_merges, window_size, alpha)
    for name in names:
        if not train[name]:
            raise ValueError(f"language {name!r} has no training text: give it text or leave it out")
    base = None if continue_from is None else as_base(continue_from)
    if base is None:
        seen = set().union(*(set("".join(counts)) for counts in [*train.values(), *(dev or {}).values()]))
        vocab, tokens = first_tokens([*specials, *sorted(seen | set(BYTE_ALPHABET))])
        table = {ord(char): chr(vocab[char]) for char in seen}
        spell: Callable[[str], str] = partial(_translated, table=table)
    else:
        vocab, tokens, specials, spell = _continued_start(base, specials)
    languages = [_spell(train[name], spell, True) for name in names]
    dev_words = None if dev is None else [_spell(dev[name], spell, False) for name in names]
    for counts in [*train.values(), *(dev or {}).values()] if consume_counts else []:
        if isinstance(counts, MutableMapping):
            counts.clear()
    run = _Run(vocab, tokens, [_descending(token) for token in tokens], languages, dev_words)
    if base is not None and total_symbols and num_merges < len(tokens):
        raise ValueError(
            f"num_merges={num_merges} with total_symbols is below the base's {len(tokens)} tokens (new special tokens "
            f"included); continuing keeps every token of the base, so ask for {len(tokens)} or more"
        )
    if total_symbols:
        # The vocabulary before any merge counts against num_merges: tokenizers 0.23.3 subtracts its size (special
        # tokens, initial alphabet and dev characters included), not the distinct characters its source describes.
        num_merges = max(num_merges - len(tokens), 0)
    ratios = None if ratio is None else [float(ratio[name]) for name in names]
    lengths = [language.length for language in (dev_words or languages)]
    # The ratio's compression is of the text's characters (the reference's initial length), continued or not.
    choice = _Choice(variant, ratios, [language.initial for language in languages], window_size, alpha / len(names))
    report = callback(progress)
    merged = None if report is None else partial(report, "merge")
    stop = _merge_loop(run, choice, lengths, num_merges, min_frequency, global_merges, merged)
    merges, learned = _in_order(run.merges, tokens)
    cut = pre_tokenizer or PreTokenizer()
    if base is None:
        return TrainResult(vocab, merges, stop, learned, specials, pre_tokenizer=cut)
    ranked = set(base.merges)  # a new merge of a base pair (after a merge whose token was the base's) is not listed
    merges = list(base.merges) + [pair for pair in merges if pair not in ranked]
    return ContinuedResult(vocab, merges, stop, learned, specials, cut, roles=base.roles, pipeline=base.pipeline)


def _translated(word: str, table: dict[int, str]) -> str:
    return word.translate(table)


def _continued_start(
    base: BaseTokenizer, new_special_tokens: tuple[str, ...]
) -> tuple[Vocab, list[str], tuple[str, ...], Callable[[str], str]]:
    """The vocabulary continuing starts from (the base's, new special tokens after its last id), its tokens by id,
    the special tokens, and how a word is spelled: as the base encodes it (its merges by rank, ``ignore_merges``;
    the rules of :func:`hf_bpe.models.bpe.continuing.continue_bpe`, whose checks and id rules these are).

    Raises:
        ValueError: for a base with a gap in its ids or without a byte, or a new special token that is an
            ordinary token of the base.
    """
    tokens = base_tokens(base.vocab)
    check_base(base.vocab, len(tokens), len(tokens), base.special_tokens)
    vocab = dict(base.vocab)
    specials = list(base.special_tokens)
    add_special_tokens(vocab, tokens, specials, new_special_tokens)
    model = base.vocab
    if base.pipeline is not None:  # an added token the model does not hold spells no word
        model = {token: token_id for token, token_id in base.vocab.items() if token not in base.pipeline.added_only}
    merge_bytes = BytePairEncoder(model, base.merges, ignore_merges=base.ignore_merges).merge_bytes

    def spell(word: str) -> str:
        return "".join(map(chr, merge_bytes(from_byte_level(word))))

    return vocab, tokens, tuple(specials), spell


def _merge_loop(
    run: _Run,
    choice: _Choice,
    lengths: list[int],
    num_merges: int,
    min_frequency: int,
    global_merges: int,
    report: Callable[[int, int], None] | None = None,
) -> str:
    """``do_train``'s loop: choose a language (or the global counts), pop its best pair, merge it everywhere.
    ``lengths`` change in place; ``report(merges_done, num_merges)`` after each merge. Returns why training
    stopped."""
    for language in run.languages:
        counts = language.pairs or {}
        language.queue = [(-c, run.keys[ord(p[0])], run.keys[ord(p[1])], p) for p, c in counts.items() if c > 0]
        heapq.heapify(language.queue)
    global_queue: list[tuple[int, str, str, str]] | None = None
    if global_merges:
        totals: Counter[str] = Counter()
        for language in run.languages:
            totals.update(language.pairs or {})
        global_queue = [(-c, run.keys[ord(p[0])], run.keys[ord(p[1])], p) for p, c in totals.items() if c > 0]
        heapq.heapify(global_queue)
    exhausted: set[int] = set()
    stop = STOP_NO_PAIRS
    while len(run.merges) < num_merges:
        if len(exhausted) >= len(run.languages):
            return stop
        if len(run.merges) < global_merges and global_queue is not None:
            best = _best(global_queue, run.count)
            if best is None or best[1] < min_frequency:
                return STOP_NO_PAIRS if best is None else STOP_MIN_FREQUENCY
        else:
            global_queue = None  # the global phase is over
            index = choice.language(lengths, exhausted)
            language = run.languages[index]
            pairs = language.pairs or {}
            for changed in language.risen:
                if changed in pairs:
                    _enqueue(language.queue, changed, pairs[changed], run.keys)
            language.risen.clear()
            best = _best(language.queue, partial(_pair_count, pairs))
            if best is None or best[1] < min_frequency:
                stop = STOP_NO_PAIRS if best is None and stop == STOP_NO_PAIRS else STOP_MIN_FREQUENCY
                exhausted.add(index)
                continue
        lost = run.merge(best[0], global_queue)
        for index, fewer in enumerate(lost):
            lengths[index] -= fewer
        if report is not None:
            report(len(run.merges), num_merges)
    return STOP_VOCAB_SIZE


def _pair_count(pairs: Mapping[str, int], pair: str) -> int:
    return pairs.get(pair, 0)


def _in_order(merges: list[str], tokens: list[str]) -> tuple[Merges, int]:
    """The merges as ``merges.txt`` lists them (a pair merged twice keeps its last place: the reference's model
    keeps merges in a map from pair to rank) and how many were made."""
    last = {pair: rank for rank, pair in enumerate(merges)}
    kept = [pair for rank, pair in enumerate(merges) if last[pair] == rank]
    return [(tokens[ord(pair[0])], tokens[ord(pair[1])]) for pair in kept], len(merges)


def check_parity_options(
    names: list[str],
    dev: Mapping[str, object] | None,
    ratio: Mapping[str, float] | None,
    variant: str,
    num_merges: int,
    min_frequency: int,
    global_merges: int,
    window_size: int,
    alpha: float,
) -> None:
    """Refuse bad options, naming the option, the language or the value (the command line checks with it too).

    Raises:
        ValueError: naming the option and the value.
    """
    if not names:
        raise ValueError("train has no language: give a mapping from each language's name to its texts")
    if variant not in VARIANTS:
        raise ValueError(f"variant={variant!r}: must be one of {', '.join(map(repr, VARIANTS))}")
    check_count("num_merges", num_merges, 0)
    check_count("min_frequency", min_frequency, 0)
    check_count("global_merges", global_merges, 0)
    check_count("window_size", window_size, 1)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not math.isfinite(alpha) or alpha <= 0:
        raise ValueError(f"alpha={alpha!r}: must be a positive finite number")
    if dev is not None and ratio is not None:
        raise ValueError("give dev (held-out text per language) or ratio (target compression per language), not both")
    for option, given in (("dev", dev), ("ratio", ratio)):
        if given is None:
            continue
        missing = [name for name in names if name not in given]
        extra = [name for name in given if name not in names]
        if missing or extra:
            what = f"has no {missing[0]!r}" if missing else f"has {extra[0]!r}, which train has not"
            raise ValueError(f"{option} {what}: its languages must be train's ({', '.join(map(repr, names))})")
    for name, value in (ratio or {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise ValueError(f"ratio[{name!r}]={value!r}: must be a positive finite number")


@with_progress
def train_parity_aware(
    train: Mapping[str, Texts],
    *,
    dev: Mapping[str, Texts] | None = None,
    ratio: Mapping[str, float] | None = None,
    variant: str = "base",
    num_merges: int = 32000,
    min_frequency: int = 0,
    global_merges: int = 0,
    window_size: int = 100,
    alpha: float = 2.0,
    total_symbols: bool = False,
    pattern: str | None = None,
    normalizer: str | None = None,
    add_prefix_space: bool = False,
    pre_tokenizer: PreTokenizer | None = None,
    special_tokens: Sequence[str] = (),
    exclude_special_tokens: bool = False,
    workers: int | None = None,
    continue_from: str | os.PathLike[str] | BaseTokenizer | None = None,
    progress: ProgressOption = True,
) -> TrainResult:
    """Train byte-level BPE over several languages at once, each merge chosen for the language that compresses
    worst: exactly ``tokenizers``' ``ParityBpeTrainer.train_from_iterator`` with the same pre-tokenizer and the
    byte alphabet as ``initial_alphabet`` (the rules: the module docstring).

    Args:
        train: each language's name to its texts (strings, or batches of strings, as ``train_from_iterator``
            takes); languages are ranked in this order, and ties go to the first.
        dev: each language's held-out texts (ideally parallel): the language whose dev text is longest in symbols
            takes the next merge. Languages as ``train``'s.
        ratio: each language's target compression instead of ``dev``: the language whose training compression
            divided by its ratio is lowest takes the next merge (only the ratios' proportions matter).
        variant: ``"base"``, or ``"window"``: a language is passed over while it holds more than
            ``alpha / languages`` of the last ``window_size`` choices.
        num_merges: how many merges to make (each adds a token unless its token exists already).
        min_frequency: a language whose best pair is rarer than this is done.
        global_merges: how many merges first take the pair counts summed over the languages (plain BPE).
        window_size, alpha: the window variant's.
        total_symbols: count the vocabulary before any merge (special tokens, alphabet) in ``num_merges``, which
            is then the most tokens the vocabulary has.
        pattern, normalizer, add_prefix_space, pre_tokenizer, special_tokens, exclude_special_tokens: how text is
            cut, as :func:`hf_bpe.models.bpe.training.train_from_iterator` takes them (byte-level only).
        workers: processes that count the languages' texts at once (default: the CPU count; any gives one result).
        continue_from: a byte-level BPE tokenizer to continue, as ``train_from_files``' ``continue_from``: its
            ids, merges, special tokens and pre-tokenizer kept (cutting keywords refused), new special tokens and
            then merges after its own. Words start as the base encodes them, lengths count its tokens, ``ratio``
            the bytes' compression; ``window`` starts empty. A ``ParityBpeTrainer`` base continued (base variant)
            is that trainer run to the larger ``num_merges`` directly.
        progress: True (bars: the languages counted, then the merges), False, or ``progress(stage, done, total)``.

    Returns:
        The vocabulary (special tokens, the 256 byte-level characters, then merged tokens in order) and merges.

    Raises:
        ValueError: naming an unknown variant, a language of ``dev`` or ``ratio`` that is not ``train``'s (or
            one missing), ``dev`` with ``ratio``, a language without text, a bad number, or a char-level cut.
        TypeError: naming a language whose texts are one string instead of an iterable of strings.

    >>> train_parity_aware({"en": ["hug hug pug"], "fr": ["bon bon"]}, num_merges=3, workers=1).merges
    [('u', 'g'), ('h', 'ug'), ('o', 'n')]
    """
    base, cut = _cut(
        continue_from, pre_tokenizer=pre_tokenizer, pattern=pattern, normalizer=normalizer,
        add_prefix_space=add_prefix_space, special_tokens=special_tokens, exclude_special_tokens=exclude_special_tokens,
    )  # fmt: skip
    check_count("workers", workers, 1, optional=True)
    names = list(train)
    check_parity_options(names, dev, ratio, variant, num_merges, min_frequency, global_merges, window_size, alpha)
    sources = [("train", name, train[name]) for name in names]
    sources += [("dev", name, dev[name]) for name in names] if dev is not None else []
    counted = _count(sources, cut, workers or os.cpu_count() or 1, callback(progress))
    return train_parity_from_counts(
        dict(zip(names, counted, strict=False)),  # counted: the train counts, then dev's
        dev=None if dev is None else dict(zip(names, counted[len(names) :], strict=True)),
        ratio=ratio, variant=variant, num_merges=num_merges, min_frequency=min_frequency,
        global_merges=global_merges, window_size=window_size, alpha=alpha, total_symbols=total_symbols,
        special_tokens=special_tokens, pre_tokenizer=cut.for_encoding(), consume_counts=True, continue_from=base,
        progress=progress,
    )  # fmt: skip


@with_progress
def train_parity_from_count_directories(
    train: Mapping[str, str | os.PathLike[str]],
    *,
    dev: Mapping[str, str | os.PathLike[str] | Texts] | None = None,
    workers: int | None = None,
    continue_from: str | os.PathLike[str] | BaseTokenizer | None = None,
    progress: ProgressOption = True,
    **options: Any,
) -> TrainResult:
    """Parity-aware BPE on counts directories, one per language, as ``hf-bpe count`` writes them (on this machine
    or with datatrove, on Slurm or Ray): the result of :func:`train_parity_aware` on the texts they were counted
    from, with the pre-tokenizer they record.

    Args:
        train: each language's name to its counts directory (languages ranked in this order).
        dev: each language's held-out text: a counts directory (counted as ``train``'s), or texts, counted here
            with the directories' pre-tokenizer.
        workers: processes that count ``dev`` texts at once (default: the CPU count).
        continue_from: a byte-level BPE tokenizer to continue; the directories must be counted with its
            pre-tokenizer.
        progress: as :func:`train_parity_aware`'s.
        options: :func:`train_parity_from_counts`' (``ratio``, ``variant``, ``num_merges``, ``special_tokens``, ...).

    Raises:
        FileNotFoundError: naming a directory without a counts manifest.
        ValueError: naming a directory counted with another pre-tokenizer than the first language's (or the
            base's), counted with a WordPiece or Unigram recipe, or a corrupt counts file.

    >>> import tempfile
    >>> from hf_bpe.counting.counts_dir import write_counts
    >>> en = write_counts(tempfile.mkdtemp(), {"hug": 3, "Ġhug": 2, "pug": 1}, settings={}, buckets=1).parent
    >>> fr = write_counts(tempfile.mkdtemp(), {"bon": 2, "Ġbon": 2}, settings={}, buckets=1).parent
    >>> train_parity_from_count_directories({"en": en, "fr": fr}, num_merges=3, progress=False).merges
    [('u', 'g'), ('h', 'ug'), ('o', 'n')]
    """
    from hf_bpe.counting.counts_dir import CountsDirectory
    from hf_bpe.models.bpe.training import check_counted_like_base, counted_cut  # training imports the trainers

    check_count("workers", workers, 1, optional=True)
    if not train:
        raise ValueError("train has no language: give each language's counts directory")
    first = next(iter(train.values()))
    cut = counted_cut(first)
    directories = [*train.values(), *(path for path in (dev or {}).values() if isinstance(path, (str, os.PathLike)))]
    for path in directories[1:]:
        recorded = counted_cut(path)
        if recorded.for_encoding() != cut.for_encoding():
            raise ValueError(
                f"{path} was counted with another pre-tokenizer than {first} (pattern "
                f"{recorded.preset or recorded.splits}, normalizer {recorded.normalizer}, add_prefix_space "
                f"{recorded.add_prefix_space}); count every language alike"
            )
    base = None if continue_from is None else as_base(continue_from)
    if base is not None:
        check_counted_like_base(first, cut, base)
    texts = [("dev", name, value) for name, value in (dev or {}).items() if not isinstance(value, (str, os.PathLike))]
    counted = _count(texts, cut, workers or os.cpu_count() or 1, callback(progress))
    dev_counts: dict[str, Mapping[str, int]] | None = None
    if dev is not None:
        from_texts = dict(zip([name for _, name, _ in texts], counted, strict=True))
        dev_counts = {
            name: from_texts[name] if name in from_texts else CountsDirectory(value)  # type: ignore[arg-type]
            for name, value in dev.items()
        }
    return train_parity_from_counts(
        {name: CountsDirectory(path) for name, path in train.items()},
        dev=dev_counts,
        pre_tokenizer=cut.for_encoding() if base is None else None,
        consume_counts=True,
        continue_from=base,
        progress=progress,
        **options,
    )


def _cut(
    continue_from: str | os.PathLike[str] | BaseTokenizer | None, **cutting: Any
) -> tuple[BaseTokenizer | None, PreTokenizer]:
    """The base (None for a new tokenizer) and how text is cut: the keywords' pre-tokenizer, or the base's
    (:func:`hf_bpe.models.bpe.training.continuing_cut`, which refuses a keyword that would change it).

    Raises:
        ValueError: for a char-level cut, or a cutting keyword given with a base.
    """
    # training imports the trainers: not at load time
    from hf_bpe.models.bpe.training import continuing_cut, pre_tokenizer_for

    base, cut = None, pre_tokenizer_for(**cutting)
    if continue_from is not None:
        base, cut = continuing_cut(continue_from, **cutting)
    if not cut.byte_level:
        raise ValueError("train_parity_aware trains byte-level BPE: give a byte-level pre_tokenizer")
    return base, cut


def _count(
    sources: list[tuple[str, str, Texts]], cut: PreTokenizer, workers: int, progress: Progress | None = None
) -> list[Counter[str]]:
    """Each source's pre-token counts, ``workers`` sources at a time, each in a forked process of its own
    (:func:`hf_bpe.processes.run_forked`: the child takes the iterable as it is, only the counts come back);
    ``progress("languages", done, total)`` as they come back."""
    for role, name, texts in sources:
        if isinstance(texts, (str, bytes)):
            raise TypeError(
                f"{role}[{name!r}] is one {type(texts).__name__}; give an iterable of texts (a list of strings)"
            )
    jobs = [partial(count_sequences, texts, pre_tokenizer=cut) for _, _, texts in sources]
    counted: list[Counter[str]] = []
    step = workers if workers >= 2 else 1  # one source at a time in this process
    for start in range(0, len(jobs), step):
        batch = jobs[start : start + step]
        counted += run_forked(batch, "hf_bpe parity counting") if workers >= 2 else [job() for job in batch]
        if progress is not None:
            progress("languages", len(counted), len(jobs))
    return counted
