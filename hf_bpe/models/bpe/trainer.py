"""Pre-token counts in, ordered merges and a vocabulary out: the BPE merge loop.

This module owns the training rules and nothing else (no files, no printing; progress goes through a callback).
It reproduces ``tokenizers``' ``BpeTrainer::do_train`` (``tokenizers/src/models/bpe/trainer.rs``) rule for rule:

* ids: special tokens first, in the given order; then the alphabet (the initial alphabet plus every character
  of the pre-tokens, cut to ``limit_alphabet``) sorted by code point; for char-level BPE, then the new affixed
  symbols (``t</w>``, ``##b``) in order of first appearance, word by word, each word left to right; then merged
  tokens in creation order. Characters left out of the alphabet are dropped from the words, so their neighbours
  become adjacent.
* pair counts over overlapping windows of each word; the most frequent pair is merged first, ties going to the
  smaller ``(left id, right id)``; a merge whose token already exists keeps the old id.
* the queue is lazy and each queue entry carries the set of words it was made for: a popped entry whose stored
  count is stale is pushed back with the current count (same words); a merge is applied only to the popped
  entry's words; after each merge, pairs that gained occurrences get a new entry for the words where they did.
  The merged pair's own count is not lowered (the reference only updates neighbours), and a pair merged twice
  (possible only when the merge result already existed) keeps its last position in ``merges.txt``.
* entries of the same pair and count pop in the order of the reference's queue, ``dary_heap``'s
  ``OctonaryHeap`` (see :func:`_merge_loop`).
* ``max_token_length``: a new pair is counted only if its token would be *shorter* than the limit; the initial
  two-symbol pairs are always counted. Length is per occurrence, as the reference's Word keeps it: every initial
  symbol spans 1 however it is spelled (a byte-level character, ``a</w>``, ``##b``, a special token), a merged
  one the sum of its parts, even where the token already exists with another length.
* stop when the vocabulary is full, when the best count is below ``min_frequency``, or when no pair is left.

The reference's words, and so its affixed symbols' ids and its queue's pushes, come in hash-map order, which
changes from run to run; ours come in one of the orders it can take (the order of ``counts``), so results agree
wherever the reference's do not depend on that order.

Two deliberate differences, both bugs of the reference's:

* it keeps pair counts in 32-bit integers, which wrap above 2**31 (tokenizers#2058); here they are Python
  integers and always right.
* with affixes and ``max_token_length`` a pair count can go below zero (an occurrence too long to be counted is
  uncounted again when a neighbour merges; tokenizers#2320), which the reference reads as a huge unsigned count,
  merging a pair that does not occur; here it is below every positive count.

Continuing (:func:`continue_bpe`): the merge loop starts from a base vocabulary and its merges, each pre-token
first encoded as the base encodes it, with exact pair counts and one queue entry per pair. Training corpus C to N
tokens with the reference and continuing on C to M gives exactly the reference trained on C to M (every id and
merge), for byte-level BPE with any special tokens, ``min_frequency`` and ``max_token_length``. The queue quirks
above cannot make them differ there, because none of them is ever triggered by byte-level training:

* a pair's occurrences are in more than one queue entry (so a merge applies to some of its words, and the pair is
  merged a second time later) only if one of its tokens is made by two different merges. In byte-level training a
  token's string is built inside its own span of the word, where no merge crossed the span's edges (else the token
  could not form), so by the same merges in the same order in every word: its last merge is always the same one,
  made once, for all its words at once.
* the merged pair's own count, left as it was, matters only if the pair occurs again, which needs one of its tokens
  made again: the same argument.
* a merge that makes an existing special token (``"Ġthe"`` as a special token) keeps the special token's id; the
  special token never occurs in the words before, so it behaves as a new token would, in both runs.

So the state the reference has after N merges (words, the counts of every pair that occurs, one entry per pair
covering all its words) is the state continuing rebuilds, and both merge on alike. One rule makes the rebuilt state
match where it otherwise would not: with ``max_token_length``, the reference counts every pair of two initial
symbols at the start but never counts a pair of longer tokens at or above the limit, so continuing does not count
such a pair at the start either (``_merge_loop``'s ``continued``). Char-level BPE with affixes (``##b``, ``a</w>``)
can make one token from two pairs (``h`` + ``##ug`` and ``hu`` + ``##g``), so the quirks matter there; continuing
is byte-level only. Tested against ``tokenizers`` in ``tests/test_continue.py``, random corpora built to hit the
quirks included.

Counting pre-tokens is :mod:`hf_bpe.counting.counting`'s job; file formats are :mod:`hf_bpe.models.bpe.files`'.
"""

from __future__ import annotations

import functools
import heapq
import math
import os
import tempfile
from array import array
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, MutableMapping, MutableSequence, Sequence
from itertools import chain, islice, repeat
from typing import Any, BinaryIO

from hf_bpe.collector import collector_paused
from hf_bpe.models.bpe.at_scale import CompactWords, merge_tracked
from hf_bpe.models.bpe.options import (
    STOP_MIN_FREQUENCY,
    STOP_NO_PAIRS,
    STOP_VOCAB_SIZE,
    BpeOptions,
    Merges,
    Vocab,
)
from hf_bpe.models.bpe.result import TrainResult
from hf_bpe.models.options import check_count
from hf_bpe.pipeline.byte_level import BYTE_ALPHABET
from hf_bpe.processes import run_forked

#: From this many distinct words on, the initial pair count is shared with a child process (see ``workers``).
PARALLEL_MIN_WORDS = 10_000

#: From this many distinct words on, the words are kept in one flat buffer (:class:`CompactWords`: 2 bytes a symbol
#: instead of a Python string of some 60 bytes more each) and merged by :func:`merge_tracked`, which keeps a count,
#: a word list and a queue entry only for the pairs that can still be merged; below it the memory is small anyway.
#: On a million synthetic Zipf pre-tokens (``scripts/bench_scale.py``) the merge phase takes 89 bytes a pre-token
#: instead of 336, in the same time.
COMPACT_MIN_WORDS = 500_000

# The largest id a 2-byte symbol holds: below the UTF-16 surrogates, so that UTF-16 spells every id as one unit.
_NARROW_IDS = 0xD800


# How the merge loop packs a queue entry into one int: -count, then left id, right id (21 bits each: every id is a
# code point), then the entry's sequence number (42 bits).
_ID_BITS = 21
_SEQ_BITS = 42
_PAIR_BITS = 2 * _ID_BITS
_ID_MASK = (1 << _ID_BITS) - 1
_PAIR_MASK = (1 << _PAIR_BITS) - 1
_SEQ_MASK = (1 << _SEQ_BITS) - 1
_LEFT_SHIFT = _SEQ_BITS + _ID_BITS
_COUNT_SHIFT = _SEQ_BITS + 2 * _ID_BITS

ProgressCallback = Callable[[int, int], None]
"""Called as ``progress(merges_done, merges_wanted)`` while merging. One that also has a ``stage`` method (such as
:class:`hf_bpe.progress.StageCallback`) is told of the initial pair count too, as ``progress.stage("pairs",
words_done, words)``."""

#: Words counted between two progress reports of the initial pair count.
_REPORT_WORDS = 1 << 16


def _first_tokens(tokens: Iterable[str]) -> tuple[Vocab, list[str]]:
    """The vocabulary before any merge, and its tokens by id: ``tokens`` in order, each once."""
    vocab: Vocab = {}
    ordered: list[str] = []  # id -> token
    for token in tokens:
        if token not in vocab:
            vocab[token] = len(ordered)
            ordered.append(token)
    return vocab, ordered


def train_bpe(
    counts: Mapping[str, int],
    *,
    vocab_size: int = BpeOptions.vocab_size,
    min_frequency: int = 0,
    special_tokens: Sequence[str] = (),
    limit_alphabet: int | None = None,
    initial_alphabet: Iterable[str] = BYTE_ALPHABET,
    max_token_length: int | None = None,
    end_of_word_suffix: str | None = None,
    continuing_subword_prefix: str | None = None,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    alphabet_tie_preference: Collection[str] = (),
    consume_counts: bool = False,
) -> TrainResult:
    """Learn BPE merges from pre-token counts, exactly as ``tokenizers``' ``BpeTrainer`` does.

    Args:
        counts: pre-token to count, spelled in the alphabet of the tokens (byte-level for byte-level BPE).
        vocab_size, min_frequency, special_tokens, limit_alphabet, max_token_length: as
            :class:`~hf_bpe.models.bpe.options.BpeOptions` (``limit_alphabet``'s ties: :func:`_alphabet`;
            ``max_token_length``: the module docstring).
        initial_alphabet: characters always in the alphabet (default: the 256 byte-level characters).
        end_of_word_suffix, continuing_subword_prefix: char-level BPE's affixes
            (:class:`~hf_bpe.models.bpe.options.CharLevel`'s).
        workers: processes for the initial pair count (default: the CPU count; used from
            :data:`PARALLEL_MIN_WORDS` words); the result is the same for any number.
        progress: called as ``progress(merges_done, merges_wanted)`` during merging.
        alphabet_tie_preference: characters kept first among those tied at the ``limit_alphabet`` cut (tests give
            a reference run's vocabulary here to reproduce that run's hash order).
        consume_counts: empty ``counts`` (a dict the caller owns and no longer needs) once its words are read, so
            that the merge phase has its memory (a tenth of the peak on 1.2 GB of source code).

    Returns:
        The vocabulary, merges and why training stopped.

    Raises:
        ValueError: on a bad option (as :class:`~hf_bpe.models.bpe.options.BpeOptions`) or ``workers``.

    >>> result = train_bpe({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, vocab_size=259)
    >>> result.merges, result.stop_reason
    ([('u', 'g'), ('u', 'n'), ('h', 'ug')], 'vocab_size')
    """
    _check_options(vocab_size, min_frequency, limit_alphabet, max_token_length, special_tokens, workers)
    seen = _characters(counts)
    alphabet = _alphabet(counts, seen, set(initial_alphabet), limit_alphabet, alphabet_tie_preference)
    vocab, tokens = _first_tokens([*special_tokens, *sorted(alphabet)])

    affixes = (end_of_word_suffix or "", continuing_subword_prefix or "")
    words, word_counts = _words(counts, vocab, tokens, alphabet | seen, max(vocab_size, len(tokens)), affixes)
    # How many initial symbols each token spans, for max_token_length: one for the alphabet; a special token's
    # length for a special token (outside char-level affixes it can only reach a word as a merge result equal to
    # it, made of that many characters). With affixes, lengths belong to occurrences (_exact_merge_loop).
    lengths = [len(token) if token in special_tokens else 1 for token in tokens]
    if consume_counts and isinstance(counts, MutableMapping):
        counts.clear()

    with collector_paused():
        result_merges, learned, stop = _merge_loop(
            words,
            word_counts,
            vocab,
            tokens,
            lengths,
            vocab_size,
            min_frequency,
            max_token_length,
            continuing_subword_prefix or "",
            progress,
            workers or os.cpu_count() or 1,
            exact_lengths=bool(end_of_word_suffix or continuing_subword_prefix),
        )
    return TrainResult(vocab, result_merges, stop, learned, tuple(special_tokens))


def _words(
    counts: Mapping[str, int],
    vocab: dict[str, int],
    tokens: list[str],
    characters: set[str],
    size: int,
    affixes: tuple[str, str],
) -> tuple[list[str] | CompactWords, Sequence[int]]:
    """The words as symbol strings (``BpeTrainer::tokenize_words``) and their counts, for a vocabulary of ``size``
    at most and ``affixes`` (end-of-word suffix, continuing-subword prefix; empty: none). Characters outside the
    vocabulary are dropped. Words of fewer than two symbols have no pair and never change, so they are left out."""
    if any(affixes):
        return _affixed_words(counts, vocab, tokens, *affixes)
    return _plain_words(counts, vocab, characters, wide=size > _NARROW_IDS)


def _alphabet(
    counts: Mapping[str, int],
    seen: set[str],
    initial: set[str],
    limit_alphabet: int | None,
    tie_preference: Collection[str],
) -> set[str]:
    """The alphabet (BpeTrainer::compute_alphabet): the characters seen and the initial ones, cut to the
    ``limit_alphabet`` most frequent, the initial ones counting as the most frequent of all.

    With the full byte alphabet as initial alphabet and a limit below 256, the reference picks among equally
    "frequent" characters in hash order, so it is not deterministic; here the characters most frequent in the text
    are kept, then the lowest code points. ``tie_preference``: characters kept first among those tied at the cut.
    """
    alphabet = seen | initial
    if limit_alphabet is None or len(alphabet) <= limit_alphabet:
        return alphabet
    frequency: dict[str, int] = dict.fromkeys(seen, 0)
    for word, count in counts.items():
        for char in word:
            frequency[char] += count
    # Rarest first; initial characters go last (the reference: infinitely frequent), and among them the rarer in the
    # text, then higher code points, go first (the reference leaves that order to hash iteration).
    preferred = set(tie_preference)
    ranked = sorted(alphabet, key=lambda c: (c in initial, frequency.get(c, 0), c in preferred, -ord(c)))
    return set(ranked[len(alphabet) - limit_alphabet :])


def _characters(counts: Mapping[str, int]) -> set[str]:
    """Every character of the pre-tokens (joined some at a time: all at once would be a copy of them all)."""
    seen: set[str] = set()
    keys = iter(counts)
    while chunk := list(islice(keys, 1 << 16)):
        seen.update("".join(chunk))
    return seen


def _plain_words(
    counts: Mapping[str, int], vocab: Vocab, chars: set[str], *, wide: bool
) -> tuple[list[str] | CompactWords, Sequence[int]]:
    """Words as symbol strings (see :func:`_merge_loop`; characters outside the vocabulary dropped), with their
    counts: a list, or from :data:`COMPACT_MIN_WORDS` pre-tokens on a :class:`CompactWords` (``wide``: 4-byte
    symbols), made word by word so that the strings never all exist at once."""
    table = {ord(char): chr(vocab[char]) if char in vocab else None for char in chars}
    if len(counts) < COMPACT_MIN_WORDS or not _compact_fits(counts.values(), max(map(len, counts), default=0)):
        return _symbol_words(counts, lambda word: word.translate(table))
    compact = CompactWords(wide=wide)
    for symbols, count in _spelled_words(counts, lambda word: word.translate(table)):
        compact.append(symbols, count)
    compact.close()
    return compact, compact.counts


def _compact_fits(word_counts: Iterable[int], longest: int) -> bool:
    """Whether every pair count of words this long at most, counting ``word_counts``, fits the 64 bits compact words
    keep a count in: a pair occurs fewer than ``longest`` times a word. Past that (no corpus comes near) the words
    stay Python strings and ints, exact at any size."""
    return sum(word_counts) * max(longest - 1, 1) < 1 << 64


def _symbol_words(counts: Mapping[str, int], spell: Callable[[str], str]) -> tuple[list[str], list[int]]:
    """The words of ``counts`` spelled as symbol strings by ``spell``, with their counts; words of fewer than two
    symbols have no pair and never change, so they are left out.

    Raises:
        ValueError: on a negative count.
    """
    words: list[str] = []
    word_counts: list[int] = []
    for symbols, count in _spelled_words(counts, spell):
        words.append(symbols)
        word_counts.append(count)
    return words, word_counts


def _spelled_words(counts: Mapping[str, int], spell: Callable[[str], str]) -> Iterator[tuple[str, int]]:
    """:func:`_symbol_words`' words one at a time."""
    for word, count in counts.items():
        if count < 0:
            raise ValueError(f"pre-token {word!r} has count {count}; counts must be non-negative")
        if len(word) < 2:
            continue
        symbols = spell(word)
        if len(symbols) > 1:
            yield symbols, count


def _affixed_words(
    counts: Mapping[str, int], vocab: Vocab, tokens: list[str], suffix: str, prefix: str
) -> tuple[list[str], list[int]]:
    """Words as symbol strings (see :func:`_merge_loop`) for char-level BPE: every character but the first
    carries ``prefix``, the last one ``suffix`` (first and last by position in the word, also where a character
    is dropped, as BpeTrainer::tokenize_words has it).

    New affixed symbols (``"t</w>"``, ``"##b"``) are numbered right after the alphabet in order of first
    appearance: word by word in the order of ``counts``, each word's characters left to right. That is what
    BpeTrainer::tokenize_words does, except that its words come in hash-map order (which changes from run to run);
    ours are one of the orders it can take, so the ids agree wherever its result does not depend on that order.
    """
    spelled: list[tuple[list[str], int]] = []
    for word, count in counts.items():
        if count < 0:
            raise ValueError(f"pre-token {word!r} has count {count}; counts must be non-negative")
        symbols = []
        last = len(word) - 1
        for position, char in enumerate(word):
            if char not in vocab:
                continue
            symbols.append(f"{prefix if position else ''}{char}{suffix if position == last else ''}")
        spelled.append((symbols, count))
    for symbols, _ in spelled:
        for symbol in symbols:
            if symbol not in vocab:
                vocab[symbol] = len(tokens)
                tokens.append(symbol)
    words = ["".join([chr(vocab[symbol]) for symbol in symbols]) for symbols, _ in spelled if len(symbols) > 1]
    word_counts = [count for symbols, count in spelled if len(symbols) > 1]
    return words, word_counts


def _check_options(
    vocab_size: int,
    min_frequency: int,
    limit_alphabet: int | None,
    max_token_length: int | None,
    special_tokens: Sequence[str],
    workers: int | None = None,
) -> None:
    """The checks of :class:`~hf_bpe.models.bpe.options.BpeOptions`, and the workers'."""
    BpeOptions(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=special_tokens,
        limit_alphabet=limit_alphabet,
        max_token_length=max_token_length,
    )
    check_count("workers", workers, 1, optional=True)


def _merge_pair(
    words: MutableSequence[str] | CompactWords,
    indices: Iterable[int],
    word_counts: Sequence[int],
    pair: str,
    symbol: str,
    lengths: Sequence[int],
    limit: int,
    pair_counts: defaultdict[int, int],
    where: defaultdict[int, set[int]],
) -> None:
    """Word::merge of ``pair`` into ``symbol`` in ``words[index]`` for each index: every occurrence, left to
    right. The words change in place; the neighbours' pair-count changes are added to ``pair_counts``, and each
    word where a pair was made is added to that pair's set in ``where`` (pairs keyed ``left id << 21 | right
    id``). ``limit`` is ``max_token_length`` (-1: none) and ``lengths`` the symbols each token spans.

    Every occurrence with ``left`` before it turns one ``(left, first)`` into ``(left, symbol)``, and every one
    with ``right`` after it ``(second, right)`` into ``(symbol, right)``: the counts and words are gathered by
    neighbour first, and the pairs are updated once per neighbour. The symbol before an occurrence is the end of
    the text before it (``symbol`` where two occurrences touch); the one after it is the start of the text after
    it (``first`` where the next occurrence follows at once). One occurrence is by far the most common case and
    has its own branch: the general loop would cost more than a tenth of the training time. Compact words
    (:class:`CompactWords`) are read and written inline: their methods would double what a word costs here.

    Hot loop: one piece on purpose; it runs for every word a merge touches, and its two branches share locals.
    """
    compact = words if isinstance(words, CompactWords) else None
    if compact is not None:
        starts, sizes, view, width, decode, encode = (
            compact.starts, compact.sizes, compact.view, compact.width, compact.decode, compact.encode
        )  # fmt: skip
    before_counts: defaultdict[str, int] = defaultdict(int)
    before_words: defaultdict[str, set[int]] = defaultdict(set)
    after_counts: defaultdict[str, int] = defaultdict(int)
    after_words: defaultdict[str, set[int]] = defaultdict(set)
    for index in indices:
        if compact is None:
            word = words[index]
        else:
            start = starts[index] * width
            word = decode(view[start : start + sizes[index] * width], "surrogatepass")[0]
        parts = word.split(pair)
        occurrences = len(parts) - 1
        if not occurrences:
            continue  # the pair has left this word since the entry was made
        count = word_counts[index]
        if compact is None:
            words[index] = symbol.join(parts)
        else:
            data = encode(symbol.join(parts), "surrogatepass")[0]
            view[start : start + len(data)] = data
            sizes[index] = len(word) - occurrences
        if occurrences == 1:
            before, after = parts
            if before:
                left = before[-1]
                before_counts[left] += count
                before_words[left].add(index)
            if after:
                right = after[0]
                after_counts[right] += count
                after_words[right].add(index)
            continue
        left = parts[0][-1:]
        for m in range(1, occurrences + 1):
            part = parts[m]
            if left:
                before_counts[left] += count
                before_words[left].add(index)
            right = part[:1] or (pair[0] if m < occurrences else "")
            if right:
                after_counts[right] += count
                after_words[right].add(index)
            left = part[-1:] or symbol

    # A pair whose count falls to 0 leaves ``pair_counts`` (a missing pair counts 0): a third of the pairs made
    # during training end so, and their two-character keys would stay for good.
    new = ord(symbol)
    new_length = lengths[new]
    first, second = ord(pair[0]), ord(pair[1]) << _ID_BITS
    for left, count in before_counts.items():
        left_id = ord(left) << _ID_BITS
        old = left_id | first
        if pair_counts[old] == count:
            del pair_counts[old]
        else:
            pair_counts[old] -= count
        if limit < 0 or lengths[left_id >> _ID_BITS] + new_length < limit:
            key = left_id | new
            pair_counts[key] += count
            where[key] |= before_words[left]
    new <<= _ID_BITS
    for right, count in after_counts.items():
        right_id = ord(right)
        old = second | right_id
        if pair_counts[old] == count:
            del pair_counts[old]
        else:
            pair_counts[old] -= count
        if limit < 0 or new_length + lengths[right_id] < limit:
            key = new | right_id
            pair_counts[key] += count
            where[key] |= after_words[right]


def _count_pairs(
    words: Sequence[str] | CompactWords,
    word_counts: Sequence[int],
    *,
    workers: int,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[defaultdict[str, int], defaultdict[str, array[int]]]:
    """Initial pair counts, and the words each pair occurs in (BpeTrainer::count_pairs), in increasing order.

    With two or more ``workers`` and at least :data:`PARALLEL_MIN_WORDS` words, a child process counts the second
    half of the words while this one counts the first (the reference counts in parallel too); counts add up and
    the child's words follow the parent's, so the result is the same. ``progress(words_done, words)`` reports
    this process's part (the child's goes at the same pace).
    """
    here = _count_pair_range if progress is None else functools.partial(_count_pair_range, progress=progress)
    if workers < 2 or len(words) < PARALLEL_MIN_WORDS:
        return here(words, word_counts, 0, len(words))
    half = len(words) // 2
    with tempfile.TemporaryFile() as spill:
        jobs: list[Callable[[], Any]] = [
            functools.partial(_count_pairs_spilled, words, word_counts, half, len(words), spill),
            functools.partial(here, words, word_counts, 0, half),
        ]
        (counted, found), (pair_counts, where) = run_forked(jobs, "hf_bpe pair count")
        for pair, count in counted.items():
            pair_counts[pair] += count
        spill.seek(0)
        for pair, size in found:
            where[pair].fromfile(spill, size)
    return pair_counts, where


def _count_pairs_spilled(
    words: Sequence[str] | CompactWords, word_counts: Sequence[int], start: int, stop: int, spill: BinaryIO
) -> tuple[defaultdict[str, int], list[tuple[str, int]]]:
    """:func:`_count_pair_range`, the words of each pair written to ``spill`` one after the other instead of
    returned: pickled back they would be in the parent's memory twice at once (the pickle's bytes and the arrays
    made from them). Returns the counts, and each pair with how many words it has in ``spill``."""
    counted, found = _count_pair_range(words, word_counts, start, stop)
    sizes = []
    for pair, indices in found.items():
        indices.tofile(spill)
        sizes.append((pair, len(indices)))
    spill.flush()
    return counted, sizes


def _count_pair_range(
    words: Sequence[str] | CompactWords,
    word_counts: Sequence[int],
    start: int,
    stop: int,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[defaultdict[str, int], defaultdict[str, array[int]]]:
    """:func:`_count_pairs` for ``words[start:stop]``.

    The loops over a word's pairs run in C (``map``, ``Counter.update``, a ``deque`` that consumes): only the
    pairs of words seen more than once are counted in Python. defaultdicts: a missing pair counts 0 (the
    reference's ``entry().or_default()``) without a method call. A pair's words are an array of ints, each word
    once (``dict.fromkeys`` of its pairs): a set of ints takes ten times the memory.
    """
    pair_counts: defaultdict[str, int] = defaultdict(int)
    where: defaultdict[str, array[int]] = defaultdict(functools.partial(array, "i"))
    seen_once: Counter[str] = Counter()  # pairs of the words seen once
    batch: list[str] = []
    join = str.__add__
    add_word = array.append
    words_of = where.__getitem__
    consume = deque[object](maxlen=0).extend
    for index in range(start, stop):
        word = words[index]
        pairs = list(map(join, word[:-1], word[1:]))
        count = word_counts[index]
        if count == 1:
            batch += pairs
            if len(batch) >= 1 << 16:
                seen_once.update(batch)
                batch.clear()
        else:
            for pair in pairs:
                pair_counts[pair] += count
        consume(map(add_word, map(words_of, dict.fromkeys(pairs)), repeat(index)))
        if not index % _REPORT_WORDS and progress is not None:
            progress(index - start, stop - start)
    seen_once.update(batch)
    for pair, count in seen_once.items():
        pair_counts[pair] += count
    if progress is not None:
        progress(stop - start, stop - start)
    return pair_counts, where


def _merge_loop(
    words: list[str] | CompactWords,
    word_counts: Sequence[int],
    vocab: Vocab,
    tokens: list[str],
    lengths: list[int],
    vocab_size: int,
    min_frequency: int,
    max_token_length: int | None,
    prefix: str,
    progress: ProgressCallback | None,
    workers: int,
    exact_lengths: bool = False,
    continued: bool = False,
) -> tuple[Merges, int, str]:
    """The merge loop; ``words`` change and ``vocab``, ``tokens`` and ``lengths`` (symbols a token spans) grow in
    place.

    A word is a *symbol string*: one character per symbol, whose code point is the symbol's id. A pair is the
    two-character string of its ids, so ``str.split`` finds its occurrences in C, and comparing two pairs compares
    ``(left id, right id)``, the reference's tie-break. A token's length is kept per token (``lengths``), which
    is each occurrence's length wherever every initial symbol is one character; with ``exact_lengths`` (affixed
    symbols) and a ``max_token_length``, the merges are :func:`_exact_merge_loop`'s, which keeps one per occurrence.
    ``continued``: the words start as a base's encoding (:func:`continue_bpe`), so a pair of merged tokens is not
    counted when its token would reach ``max_token_length``: the reference counts such a pair only when it is of
    two initial symbols, and starting from the alphabet it would never have counted the others.

    ``words`` may come as a :class:`CompactWords` (``word_counts`` its counts); a list of :data:`COMPACT_MIN_WORDS` or
    more is moved into one (the list is emptied); compact words are merged by :func:`merge_tracked` unless
    ``continued`` or with exact lengths. Pairs are keyed ``left id << 21 | right id`` (ints take less memory than
    two-character strings).

    Hot loop: one piece on purpose. Each round pops the queue, merges and requeues in the same locals; split into
    functions, every round would pay for the calls and for passing a dozen pieces of state between them.

    Returns merges, merges made, stop reason.
    """
    limit = max_token_length if max_token_length is not None else -1
    # Affixed words (exact_lengths: "##b", "a</w>") never take the loop at scale: it joins two tokens' spellings
    # whole (a##a where the reference makes aa) and merges a pair that makes an existing symbol once where the
    # reference's queue merges it twice. Its argument of exactness holds for plain words only.
    if (
        isinstance(words, list)
        and len(words) >= COMPACT_MIN_WORDS
        and not exact_lengths
        and _compact_fits(word_counts, max(map(len, words), default=0))
    ):
        packed = CompactWords.pack(words, word_counts, wide=max(vocab_size, len(tokens)) > _NARROW_IDS)
        words.clear()
        words, word_counts = packed, packed.counts

    stage = getattr(progress, "stage", None)
    pairs_progress = None if stage is None else functools.partial(stage, "pairs")
    pair_counts, found_in = _count_pairs(words, word_counts, workers=workers, progress=pairs_progress)
    if continued and max_token_length is not None:
        for pair in [p for p in found_in if lengths[ord(p[0])] + lengths[ord(p[1])] >= max_token_length]:
            if lengths[ord(pair[0])] > 1 or lengths[ord(pair[1])] > 1:
                del pair_counts[pair], found_in[pair]
    if isinstance(words, CompactWords) and not exact_lengths and not continued:
        initial = frozenset(chain.from_iterable(pair_counts))
        wanted = max(vocab_size - len(tokens), 0)
        tracked_merges, tracked_stop = merge_tracked(
            words, pair_counts, found_in, vocab, tokens, lengths, vocab_size=vocab_size, min_frequency=min_frequency,
            limit=limit, initial=initial, progress=progress, recount_progress=pairs_progress,
        )  # fmt: skip
        if progress is not None:
            progress(len(tracked_merges), wanted)
        return _merges_in_order(tracked_merges, tokens, tracked_stop)
    if exact_lengths and max_token_length is not None and isinstance(words, list):
        exact_merges, exact_stop = _exact_merge_loop(
            words, word_counts, vocab, tokens, pair_counts, found_in, vocab_size, min_frequency, max_token_length,
            prefix, progress,
        )  # fmt: skip
        return _merges_in_order(exact_merges, tokens, exact_stop)

    # The queue: a heap of ints, each packing an entry's (-count, left id, right id, seq) so that the smallest is
    # the highest count, then the smaller pair (the reference's tie-break), then the older entry. Comparing ints
    # is much cheaper than comparing tuples. The words an entry was made for are kept at index seq: more than one
    # as an array of ints in `entry_words` in the order they were gathered in (increasing from the initial count, a
    # set's order after a merge; a set of ints takes ten times the memory), one word in `entry_word` (and None in
    # `entry_words`; an int object would take 32 bytes, and most entries are of one word, count 1 and are never
    # popped).
    # Entries counting `floor` or less wait in `low`, out of the heap: none of them can come before an entry in
    # the heap, and most entries made late in training count 1 and are never popped. When the heap runs out, they
    # join it. Making and queueing an entry is written out at its three places: a function call per entry costs
    # some 3 % of the training time.
    #
    # The reference's queue is an octonary heap ordered by (count, pair) alone, so two entries for the same pair
    # with the same count (possible once a merge rebuilds an existing token) pop in an order its sifts decide.
    # Until two such entries are at the top, both queues pop the same entries; `log` records every push (the
    # entry) and pop (None), and the first time the popped entry's (count, pair) is also the next one's, the
    # reference's heap is rebuilt by replaying the log into a simulation of it (_octonary_push, _octonary_pop),
    # which takes over from then on. Our entries are pushed in the order of `where` and of the words, one of the
    # hash orders the reference's can take, so the result is the reference's wherever that does not depend on its
    # hash order. Recording costs about 1 % of the training time; the simulation is paid only where it matters.
    entry_words: list[array[int] | None] = []
    entry_word = array("i")
    heap: list[int] = []
    low: list[int] = []
    floor: float = 1
    log: list[int | None] = []
    record = log.append
    simulated = False
    for pair, found in found_in.items():
        count = pair_counts[pair]
        if count > 0:
            seq = len(entry_words)
            entry_words.append(found if len(found) > 1 else None)
            entry_word.append(found[0] if len(found) == 1 else -1)
            entry = -count << _COUNT_SHIFT | ord(pair[0]) << _LEFT_SHIFT | ord(pair[1]) << _SEQ_BITS | seq
            (heap if count > floor else low).append(entry)
            record(entry)
    heapq.heapify(heap)
    seq = len(entry_words)
    del found_in
    counts_of = _pair_keys(pair_counts)
    del pair_counts
    where: defaultdict[int, set[int]] = defaultdict(set)

    merges: list[str] = []
    pop: Callable[[list[int]], int] = heapq.heappop
    push: Callable[[list[int], int], None] = heapq.heappush
    stop = STOP_NO_PAIRS
    wanted = max(vocab_size - len(tokens), 0)
    report_every = max(wanted // 200, 1)
    while True:
        if len(vocab) >= vocab_size:
            stop = STOP_VOCAB_SIZE
            break
        if not heap:
            if not low:
                break
            heap, low, floor = low, [], -math.inf
            heapq.heapify(heap)
        top = pop(heap)
        if heap and heap[0] >> _SEQ_BITS == top >> _SEQ_BITS and not simulated:
            heap, low, floor, simulated = _octonary_replay(log), [], -math.inf, True
            pop, push = _octonary_pop, _octonary_push
            top = pop(heap)
        record(None)
        kept = entry_words[top & _SEQ_MASK]
        entry_words[top & _SEQ_MASK] = None
        single = entry_word[top & _SEQ_MASK]
        pair = chr(top >> _LEFT_SHIFT & _ID_MASK) + chr(top >> _SEQ_BITS & _ID_MASK)
        count = counts_of.get(top >> _SEQ_BITS & _PAIR_MASK, 0)
        if top >> _COUNT_SHIFT != -count:
            # A stale count: back into the queue with the current count, for the same words, as a newer entry.
            entry_words.append(kept)
            entry_word.append(single)
            entry = -count << _COUNT_SHIFT | (top >> _SEQ_BITS & _PAIR_MASK) << _SEQ_BITS | seq
            if count > floor:
                push(heap, entry)
            else:
                low.append(entry)
            record(entry)
            seq += 1
            continue
        if count < 1:
            break
        if count < min_frequency:
            stop = STOP_MIN_FREQUENCY
            break
        a, b = ord(pair[0]), ord(pair[1])
        right_token = tokens[b]
        if prefix and right_token.startswith(prefix):
            right_token = right_token[len(prefix) :]
        token = tokens[a] + right_token
        new = vocab.get(token)
        if new is None:
            new = len(tokens)
            vocab[token] = new
            tokens.append(token)
            lengths.append(lengths[a] + lengths[b])
        merges.append(pair)
        symbol = chr(new)
        positions = (single,) if kept is None else kept  # an entry is popped once: kept is not None if single < 0
        _merge_pair(words, positions, word_counts, pair, symbol, lengths, limit, counts_of, where)
        for key, gained in where.items():
            count = counts_of[key]
            if count > 0:
                if len(gained) > 1:
                    entry_words.append(array("i", gained))
                    entry_word.append(-1)
                else:
                    entry_words.append(None)
                    entry_word.append(gained.pop())
                entry = -count << _COUNT_SHIFT | key << _SEQ_BITS | seq
                if count > floor:
                    push(heap, entry)
                else:
                    low.append(entry)
                record(entry)
                seq += 1
        where = defaultdict(set)
        if progress is not None and len(merges) % report_every == 0:
            progress(len(merges), wanted)
    if progress is not None:
        progress(len(merges), wanted)

    return _merges_in_order(merges, tokens, stop)


def _pair_keys(pair_counts: Mapping[str, int]) -> defaultdict[int, int]:
    """``pair_counts`` keyed ``left id << 21 | right id`` instead of by two-character strings."""
    return defaultdict(int, {ord(pair[0]) << _ID_BITS | ord(pair[1]): count for pair, count in pair_counts.items()})


def _merges_in_order(merges: list[str], tokens: list[str], stop: str) -> tuple[Merges, int, str]:
    """The merges as ``merges.txt`` lists them, how many were made, and ``stop``. The reference keeps merges in a
    map from pair to (rank, id): a pair merged twice keeps its last rank."""
    learned = len(merges)
    final_rank = {pair: rank for rank, pair in enumerate(merges)}
    if len(final_rank) < learned:
        merges = [pair for rank, pair in enumerate(merges) if final_rank[pair] == rank]
    ordered = [(tokens[ord(pair[0])], tokens[ord(pair[1])]) for pair in merges]
    return ordered, learned, stop


def _octonary_push(heap: list[int], entry: int) -> None:
    """``OctonaryHeap::push`` on a heap of packed queue entries (see :func:`_merge_loop`), ordered by their
    ``(count, pair)`` alone: the entry sifts up while it comes strictly before its parent."""
    heap.append(entry)
    _octonary_sift_up(heap, 0, len(heap) - 1)


def _octonary_pop(heap: list[int]) -> int:
    """``OctonaryHeap::pop``: the last entry takes the root's place, the hole walks down to a leaf along the first
    child in queue order (of equal children the last one: ``max_sibling`` takes the later on ``<=``), and the
    entry sifts up from there (``sift_down_to_bottom``)."""
    entry = heap.pop()
    if not heap:
        return entry
    entry, heap[0] = heap[0], entry
    end = len(heap)
    moved = heap[0]
    pos = 0
    child = 1
    while child <= end - 8:
        best = child
        best_key = heap[child] >> _SEQ_BITS
        for other in range(child + 1, child + 8):
            key = heap[other] >> _SEQ_BITS
            if key <= best_key:
                best, best_key = other, key
        heap[pos] = heap[best]
        pos = best
        child = 8 * pos + 1
    if child < end:
        best = child
        best_key = heap[child] >> _SEQ_BITS
        for other in range(child + 1, end):
            key = heap[other] >> _SEQ_BITS
            if key <= best_key:
                best, best_key = other, key
        heap[pos] = heap[best]
        pos = best
    heap[pos] = moved
    _octonary_sift_up(heap, 0, pos)
    return entry


def _octonary_sift_up(heap: list[int], start: int, pos: int) -> None:
    entry = heap[pos]
    key = entry >> _SEQ_BITS
    while pos > start:
        parent = (pos - 1) >> 3
        if key >= heap[parent] >> _SEQ_BITS:
            break
        heap[pos] = heap[parent]
        pos = parent
    heap[pos] = entry


def _octonary_replay(log: Iterable[int | None]) -> list[int]:
    """The reference's heap after the same pushes (entries) and pops (None) in the same order."""
    heap: list[int] = []
    for entry in log:
        if entry is None:
            _octonary_pop(heap)
        else:
            _octonary_push(heap, entry)
    return heap


def _exact_merge_loop(
    words: list[str],
    word_counts: Sequence[int],
    vocab: Vocab,
    tokens: list[str],
    pair_counts: defaultdict[str, int],
    found_in: Mapping[str, Collection[int]],
    vocab_size: int,
    min_frequency: int,
    max_token_length: int,
    prefix: str,
    progress: ProgressCallback | None,
) -> tuple[list[str], str]:
    """The merge loop for char-level training with ``max_token_length``, where a symbol's length belongs to each
    occurrence, as in the reference's Word (Word::merge): every initial symbol spans 1 however it is spelled
    (``a</w>``, ``##b``, a special token), a merged one the sum of its two parts, even when the token already
    exists with another length. Each word (a symbol string) has a list of its symbols' lengths. The queue is the
    reference's octonary heap from the start (see :func:`_merge_loop`). ``vocab`` and ``tokens`` grow in place.

    Returns the merge pairs (symbol strings, in order, repeats included) and the stop reason.

    Hot loop: one piece on purpose, as :func:`_merge_loop` (each round's queue, merge and requeue share locals).
    """
    lengths = [[1] * len(word) for word in words]
    entry_words: dict[int, Collection[int]] = {}
    heap: list[int] = []
    seq = 0

    def queue(gained: Mapping[str, Collection[int]]) -> None:
        nonlocal seq
        for key, positions in gained.items():
            count = pair_counts[key]
            if count > 0:
                entry_words[seq] = positions
                _octonary_push(
                    heap, -count << _COUNT_SHIFT | ord(key[0]) << _LEFT_SHIFT | ord(key[1]) << _SEQ_BITS | seq
                )
                seq += 1

    queue(found_in)
    merges: list[str] = []
    stop = STOP_NO_PAIRS
    wanted = max(vocab_size - len(tokens), 0)
    report_every = max(wanted // 200, 1)
    while True:
        if len(vocab) >= vocab_size:
            stop = STOP_VOCAB_SIZE
            break
        if not heap:
            break
        top = _octonary_pop(heap)
        positions = entry_words.pop(top & _SEQ_MASK)
        pair = chr(top >> _LEFT_SHIFT & _ID_MASK) + chr(top >> _SEQ_BITS & _ID_MASK)
        count = pair_counts[pair]
        if top >> _COUNT_SHIFT != -count:
            entry_words[seq] = positions
            _octonary_push(heap, -count << _COUNT_SHIFT | (top >> _SEQ_BITS & _PAIR_MASK) << _SEQ_BITS | seq)
            seq += 1
            continue
        if count < 1:
            break
        if count < min_frequency:
            stop = STOP_MIN_FREQUENCY
            break
        a, b = pair[0], pair[1]
        right_token = tokens[ord(b)]
        if prefix and right_token.startswith(prefix):
            right_token = right_token[len(prefix) :]
        token = tokens[ord(a)] + right_token
        new = vocab.get(token)
        if new is None:
            new = len(tokens)
            vocab[token] = new
            tokens.append(token)
        symbol = chr(new)
        merges.append(pair)
        gained: defaultdict[str, set[int]] = defaultdict(set)
        for index in positions:
            # Word::merge: occurrences left to right, each looked for after the symbol the last one made.
            word, spans = words[index], lengths[index]
            weight = word_counts[index]
            i = word.find(pair)
            while i >= 0:
                span = spans[i] + spans[i + 1]
                if i > 0:
                    left = word[i - 1]
                    pair_counts[left + a] -= weight
                    if spans[i - 1] + span < max_token_length:
                        pair_counts[left + symbol] += weight
                        gained[left + symbol].add(index)
                word = word[:i] + symbol + word[i + 2 :]
                spans[i : i + 2] = [span]
                if i + 1 < len(word):
                    right = word[i + 1]
                    pair_counts[b + right] -= weight
                    if span + spans[i + 1] < max_token_length:
                        pair_counts[symbol + right] += weight
                        gained[symbol + right].add(index)
                i = word.find(pair, i + 1)
            words[index] = word
        queue(gained)
        if progress is not None and len(merges) % report_every == 0:
            progress(len(merges), wanted)
    if progress is not None:
        progress(len(merges), wanted)
    return merges, stop
