"""The merge loop for millions of distinct pre-tokens: the words in one flat buffer, and a count, a word list and a
queue entry only for the pairs that can still be merged.

:func:`hf_bpe.models.bpe._merge_loop.merge_listed` keeps them for every pair that ever occurs. Most pairs made late in
training are pairs of rare words, counting 1 or 2 and never merged; on a million distinct pre-tokens their counts,
queue entries and word lists take two thirds of the merge phase's memory. Here a pair is *tracked* (its count and
the words it occurs in kept in one array, and a queue entry) only while its count is at least ``floor``.

Why that is exact. :func:`merge_tracked` takes plain words only (byte-level, or characters without affixes), where
the reference's merges are textbook BPE's: each merge is of the pair with the highest count in the current words
(occurrences weighted by the words' counts; with ``max_token_length``, a pair whose token would reach it is not
counted unless both its symbols are initial ones), ties going to the smaller ``(left id, right id)``, applied to
every word. Its queue's quirks need a token made by two different merges, which plain words never have (the
"Continuing" part of :mod:`hf_bpe.models.bpe.trainer`'s docstring; were it to happen, every pair is counted again
at once). And a pair's count grows only in the merge that makes one of its two tokens, made once; after that it
only falls. So a pair below ``floor`` when it was made, or fallen below it since, stays below it: while the best
tracked count is at least ``floor``, it is the best of all pairs. When it is not, every pair is counted again from
the words (:func:`_recount`), ``floor`` is lowered and merging goes on.

``floor`` starts where no merge of a full training can be below it, so a training that fills its vocabulary never
counts again: at the count of the ``(R + T)``-th most frequent word, ``R`` the new tokens wanted and ``T`` the
tokens there are (words of fewer symbols than ``max_token_length``, if set). Once the last merge, of count ``c``,
is made, no pair counts more than ``c`` (it was the highest, and a pair made since counts at most the pair merged),
so every word counting more than ``c`` is one token by then: each a token of its own, new unless it is a special
token, so there are fewer than ``R + T`` of them, and the ``(R + T)``-th most frequent word counts at most ``c``.
The last merges count more than that (32k tokens: 41 against 8 on a million synthetic Zipf pre-tokens, 382
against 241 on the kernel source's 1.2 GB). Training counts again only where it would run out of pairs or reach
``min_frequency``; the new ``floor`` is half the ``R``-th highest pair count then.

The words (:class:`CompactWords`) take 2 bytes a symbol (4 past 55,296 ids), a word's start 4 bytes, its size 2 and
its count 4, each array widened the first time a value does not fit. A tracked pair's words are an array of 4-byte
word indices, in increasing order. Measured (``scripts/bench_scale.py``, the merge phase alone over the loaded
counts): 89 bytes a distinct pre-token on a million synthetic ones (336 with ``merge_listed``, 22 s against 23),
74 on the kernel source's 1.2 GB.
"""

from __future__ import annotations

import codecs
import ctypes
import functools
import heapq
import operator
from array import array
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from itertools import accumulate, islice, repeat
from typing import TypeAlias

from hf_bpe.models.bpe.options import STOP_MIN_FREQUENCY, STOP_NO_PAIRS, STOP_VOCAB_SIZE, Vocab

# A queue entry packs -count, then left id, right id (21 bits each: every id is a code point) into one int: the
# smallest entry is the highest count, then the smaller pair (the reference's tie-break).
_ID_BITS = 21
_ID_MASK = (1 << _ID_BITS) - 1
_PAIR_MASK = (1 << 2 * _ID_BITS) - 1
_COUNT_SHIFT = 2 * _ID_BITS

#: Words counted between two progress reports of a count of the pairs.
REPORT_WORDS = 1 << 16

#: Merges between two returns of freed memory to the system (:func:`_release_free_memory`).
RELEASE_EVERY = 256


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None  # not glibc


_TRIM = _malloc_trim()


def _release_free_memory() -> None:
    """Give the memory freed inside the C heap back to the system (glibc's ``malloc_trim``; elsewhere nothing).

    A merge frees the word lists of the pair it merged, and the arrays of those made alongside the ones kept; the
    holes they leave between arrays still in use stay in the process: on a million pre-tokens a fifth of the merge
    phase's peak (160 MiB against 126 with it)."""
    if _TRIM is not None:
        _TRIM(0)


class CompactWords:
    """Symbol strings (one character per symbol, its code point the symbol's id) in one flat buffer, each word in
    its own slot: 2 bytes a symbol (4 where an id reaches the UTF-16 surrogates) instead of a Python string of some
    60 bytes more each. A word is read as a string (UTF-16 or UTF-32 decoded in C) and written back shorter into
    its slot after a merge. Starts, sizes and counts are kept in the narrowest array that holds them (counts past
    2**64 raise ``OverflowError``; no corpus comes near).

    >>> words = CompactWords.pack(["ab", "cde"], [3, 1], wide=False)
    >>> words[1], len(words)
    ('cde', 2)
    >>> words[1] = "x"
    >>> words[0], words[1], list(words.counts), words.counts.typecode
    ('ab', 'x', [3, 1], 'I')
    >>> list(words.read(0, 2))
    ['ab', 'x']
    """

    __slots__ = ("counts", "decode", "encode", "sizes", "starts", "symbols", "view", "width")

    def __init__(self, *, wide: bool) -> None:
        self.width = 4 if wide else 2  # bytes a symbol
        # The codecs' functions themselves: str.encode and bytes.decode look the codec up by name at each call.
        self.decode = codecs.utf_32_le_decode if wide else codecs.utf_16_le_decode
        self.encode = codecs.utf_32_le_encode if wide else codecs.utf_16_le_encode
        self.symbols = array("I" if wide else "H")
        self.starts = array("I", [0])  # word i's slot: symbols[starts[i]:starts[i + 1]]
        self.sizes = array("H")  # symbols word i has now
        self.counts = array("I")
        self.view = memoryview(b"")  # the symbols' bytes, once closed

    @classmethod
    def pack(cls, words: Iterable[str], counts: Iterable[int], *, wide: bool) -> CompactWords:
        """``words`` and their ``counts`` in a new, closed :class:`CompactWords`."""
        return cls.from_pairs(zip(words, counts, strict=True), wide=wide)

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, int]], *, wide: bool) -> CompactWords:
        """Words and their counts, given together, in a new, closed :class:`CompactWords`."""
        packed = cls(wide=wide)
        pairs = iter(pairs)
        while batch := list(islice(pairs, 1 << 12)):
            words, counts = zip(*batch, strict=True)
            packed.extend(words, counts)
        packed.close()
        return packed

    def extend(self, words: Sequence[str], counts: Sequence[int]) -> None:
        """Add ``words`` and their ``counts`` (the arrays grown in a few C calls, widened where a value needs it)."""
        sizes = list(map(len, words))
        self.symbols.frombytes(self.encode("".join(words), "surrogatepass")[0])
        self.starts = _extended(self.starts, list(accumulate(sizes, initial=self.starts[-1]))[1:], "Q")
        self.sizes = _extended(self.sizes, sizes, "I")
        self.counts = _extended(self.counts, counts, "Q")

    def close(self) -> None:
        """No more words: slots are written in place from now on."""
        self.view = memoryview(self.symbols).cast("B")

    def __len__(self) -> int:
        return len(self.sizes)

    def __getitem__(self, index: int) -> str:
        start = self.starts[index] * self.width
        return self.decode(self.view[start : start + self.sizes[index] * self.width], "surrogatepass")[0]

    def __setitem__(self, index: int, word: str) -> None:
        # The merge loops do the same inline: the method call would double what a word costs there.
        start = self.starts[index] * self.width
        data = self.encode(word, "surrogatepass")[0]
        self.view[start : start + len(data)] = data
        self.sizes[index] = len(word)

    def read(self, start: int, stop: int) -> Iterator[str]:
        """Words ``start`` to ``stop``, decoded some thousands at a time: one C call, then a slice each, instead of
        a decoding each."""
        starts, sizes, width, view, decode = self.starts, self.sizes, self.width, self.view, self.decode
        for low in range(start, stop, 1 << 12):
            high = min(low + (1 << 12), stop)
            base = starts[low]
            text = decode(view[base * width : starts[high] * width], "surrogatepass")[0]
            for index in range(low, high):
                at = starts[index] - base
                yield text[at : at + sizes[index]]


def _extended(values: array[int], more: Sequence[int], wider: str) -> array[int]:
    """``values`` with ``more`` added: the same array, or a copy of typecode ``wider`` if one does not fit."""
    try:
        added = array(values.typecode, more)
    except OverflowError:
        values, added = array(wider, values), array(wider, more)
    values.extend(added)
    return values


def merge_tracked(
    words: CompactWords,
    pair_counts: dict[str, int],
    found_in: dict[str, array[int]],
    vocab: Vocab,
    tokens: list[str],
    lengths: list[int],
    *,
    vocab_size: int,
    min_frequency: int,
    limit: int,
    initial: Collection[str],
    progress: Callable[[int, int], None] | None = None,
    recount_progress: Callable[[int, int], None] | None = None,
) -> tuple[list[str], str]:
    """Merge ``words`` (symbol strings) until ``vocab_size``, as the module docstring says; ``vocab``, ``tokens``
    and ``lengths`` (symbols a token spans) grow in place.

    Args:
        pair_counts, found_in: the initial count of the pairs (two-symbol strings) and the words each occurs in,
            in increasing order (:func:`hf_bpe.models.bpe.trainer.merge_words` counts them); both are emptied.
        limit: ``max_token_length``, or -1.
        initial: the symbols the words started with (a pair of two of one character each is counted whatever
            ``limit``).
        progress: called as ``progress(merges_done, merges_wanted)``; ``recount_progress`` as
            ``(words_done, words)`` while the pairs are counted again.

    Returns:
        The merged pairs (two-symbol strings, in order) and why training stopped.

    >>> tokens, (a, b, c) = ["a", "b", "c"], map(chr, range(3))  # the symbols of ids 0, 1 and 2
    >>> words = CompactWords.pack([a + b, a + b + c, b + c], [3, 2, 1], wide=False)
    >>> pairs, found = {a + b: 5, b + c: 3}, {a + b: array("I", [0, 1]), b + c: array("I", [1, 2])}
    >>> merged, stop = merge_tracked(words, pairs, found, {"a": 0, "b": 1, "c": 2}, tokens, [1, 1, 1], vocab_size=5,
    ...                              min_frequency=0, limit=-1, initial=a + b + c)
    >>> tokens[3:], stop, [ord(symbol) for symbol in words[1]]
    (['ab', 'abc'], 'vocab_size', [4])
    """
    wanted = max(vocab_size - len(vocab), 0)
    floor = first_floor(words, wanted + len(tokens), limit)
    tracked = _first_tracked(pair_counts, found_in, floor)
    heap = _queue(tracked)
    typecode = _index_type(words)
    merges: list[str] = []
    report_every = max(wanted // 200, 1)
    made = bytearray(chr(i) in initial for i in range(len(tokens)))  # 1 for each token that has been in the words
    remade = False  # a token made a second time (never seen): every pair is counted again
    stop = STOP_VOCAB_SIZE
    while len(vocab) < vocab_size:
        count, key = _best(heap, tracked)
        if remade or count < floor:
            if not remade and (floor <= min_frequency if count else floor <= 1):
                stop = STOP_MIN_FREQUENCY if count else STOP_NO_PAIRS  # the best of all pairs counts less than floor
                break
            floor, tracked = _recount(words, vocab_size - len(vocab), lengths, limit, initial, recount_progress)
            heap = _queue(tracked)
            remade = False
            _release_free_memory()
            continue
        if count < min_frequency:
            stop = STOP_MIN_FREQUENCY
            break
        heapq.heappop(heap)
        left, right = key >> _ID_BITS, key & _ID_MASK
        new = _token(vocab, tokens, lengths, left, right)
        made.extend(bytes(len(tokens) - len(made)))
        pair = chr(left) + chr(right)
        merges.append(pair)
        symbol = chr(new)
        around = _merge_words(words, islice(tracked.pop(key), 1, None), pair, symbol)
        remade = bool(made[new])
        made[new] = 1
        _track(tracked, heap, around, pair, symbol, floor, lengths, limit, typecode)
        if len(merges) % RELEASE_EVERY == 0:
            _release_free_memory()
        if progress is not None and len(merges) % report_every == 0:
            progress(len(merges), wanted)
    return merges, stop


def _first_tracked(pair_counts: dict[str, int], found_in: dict[str, array[int]], floor: int) -> dict[int, array[int]]:
    """The pairs counting at least ``floor``, taken from the initial count (both dicts are emptied). A tracked pair,
    keyed ``left id << 21 | right id`` (an int takes less memory than a two-character string), has one array: its
    count, then the words it occurs in."""
    tracked = {
        _key(pair): _counted(found, pair_counts[pair]) for pair, found in found_in.items() if pair_counts[pair] >= floor
    }
    pair_counts.clear()
    found_in.clear()
    return tracked


def first_floor(words: CompactWords, rank: int, limit: int) -> int:
    """The count of the ``rank``-th most frequent of ``words`` (as yet unmerged) that can become one token
    (shorter than ``limit`` unless it is -1), or 1 if there are fewer: see the module docstring."""
    if limit < 0:
        return _kth_largest(words.counts, rank)
    return _kth_largest((count for count, size in zip(words.counts, words.sizes, strict=True) if size < limit), rank)


def _key(pair: str) -> int:
    return ord(pair[0]) << _ID_BITS | ord(pair[1])


def _token(vocab: Vocab, tokens: list[str], lengths: list[int], left: int, right: int) -> int:
    """The id of the token ``left`` and ``right`` make: a new one, unless the token is there already."""
    token = tokens[left] + tokens[right]
    new = vocab.get(token)
    if new is None:
        new = len(tokens)
        vocab[token] = new
        tokens.append(token)
        lengths.append(lengths[left] + lengths[right])
    return new


def _track(
    tracked: dict[int, array[int]],
    heap: list[int],
    around: _Around,
    pair: str,
    symbol: str,
    floor: int,
    lengths: Sequence[int],
    limit: int,
    typecode: str,
) -> None:
    """A merge of ``pair`` into ``symbol`` applied to the tracked pairs, from the neighbours of its occurrences
    (``around``, :func:`_merge_words`): each pair it ends loses their count, let go below ``floor``; each pair it
    makes counting at least ``floor`` is tracked and queued.

    A pair made with ``symbol`` is never tracked before (``symbol`` is not in the words yet; were it, a token made
    twice, every pair is counted again right after) and is made by one neighbour only, so its count is whole here.

    Hot loop: one piece on purpose (it runs for every pair a merge ends or makes; a call for each would cost a
    tenth of the merge loop's time).
    """
    before_counts, before_words, after_counts, after_words = around
    get = tracked.get
    push = heapq.heappush
    largest = _LARGEST[typecode]
    first, second, new = ord(pair[0]), ord(pair[1]) << _ID_BITS, ord(symbol)
    countable = limit < 0
    for left, count in before_counts.items():
        if left is _TOUCHING:
            ended, made = second | first, new << _ID_BITS | new
        else:
            ended = ord(left) << _ID_BITS
            made = ended | new
            ended |= first
        found = get(ended)
        if found is not None:
            if found[0] - count < floor:  # never merged before the pairs are counted again, which finds it again
                del tracked[ended]
            else:
                found[0] -= count
        if count >= floor and (countable or lengths[made >> _ID_BITS] + lengths[new] < limit):
            listed = before_words[left]
            if count > largest:
                listed = array("Q", listed)
            listed.insert(0, count)
            tracked[made] = listed
            push(heap, -count << _COUNT_SHIFT | made)
    new_length, new = lengths[new], new << _ID_BITS
    for right, count in after_counts.items():
        right_id = ord(right)
        found = get(second | right_id)
        if found is not None:
            if found[0] - count < floor:
                del tracked[second | right_id]
            else:
                found[0] -= count
        if count >= floor and (countable or new_length + lengths[right_id] < limit):
            listed = after_words[right]
            if count > largest:
                listed = array("Q", listed)
            listed.insert(0, count)
            tracked[new | right_id] = listed
            push(heap, -count << _COUNT_SHIFT | new | right_id)


# The largest count an array of each typecode of word indices holds.
_LARGEST = {"i": 2**31 - 1, "I": 2**32 - 1, "q": 2**63 - 1, "Q": 2**64 - 1}


def _counted(found: array[int], count: int) -> array[int]:
    """A tracked pair's array: ``count``, then the words of ``found`` (itself, or a copy of wider typecode if the
    count does not fit)."""
    if count > _LARGEST[found.typecode]:
        found = array("Q", found)
    found.insert(0, count)
    return found


def _queue(tracked: Mapping[int, array[int]]) -> list[int]:
    """A heap of entries ``-count << 42 | pair key``: the smallest is the highest count, then the smaller pair
    (the reference's tie-break)."""
    heap = [-found[0] << _COUNT_SHIFT | key for key, found in tracked.items()]
    heapq.heapify(heap)
    return heap


def _best(heap: list[int], tracked: Mapping[int, array[int]]) -> tuple[int, int]:
    """The count and key of the tracked pair with the highest count (ties: the smaller pair), or ``(0, 0)``:
    entries whose count is stale are pushed back with the current one, those of pairs gone are dropped."""
    while heap:
        top = heap[0]
        key = top & _PAIR_MASK
        found = tracked.get(key)
        count = 0 if found is None else found[0]
        if -(top >> _COUNT_SHIFT) == count:
            return count, key
        if count > 0:
            heapq.heapreplace(heap, -count << _COUNT_SHIFT | key)
        else:
            heapq.heappop(heap)
    return 0, 0


def _countable(key: int, lengths: Sequence[int], limit: int) -> bool:
    """Whether a pair a merge made is counted: its token is shorter than ``max_token_length`` (``limit``)."""
    return limit < 0 or lengths[key >> _ID_BITS] + lengths[key & _ID_MASK] < limit


def _kth_largest(values: Iterable[int], k: int) -> int:
    """The ``k``-th largest of ``values``, or 1 if there are fewer (and at least 1)."""
    top = heapq.nlargest(k, values) if k > 0 else []
    return max(top[-1], 1) if len(top) == k and top else 1


#: The neighbour recorded before an occurrence that follows another at once: not a symbol (one character), so that
#: :func:`_track` tells it from the symbol itself in a word that already holds it.
_TOUCHING = "touching"

# Per neighbour symbol, before the occurrences then after them: the words' count, and the words (increasing).
_Around: TypeAlias = (
    "tuple[defaultdict[str, int], defaultdict[str, array[int]], defaultdict[str, int], defaultdict[str, array[int]]]"
)


def _merge_words(words: CompactWords, indices: Iterable[int], pair: str, symbol: str) -> _Around:
    """Word::merge of ``pair`` into ``symbol`` in each of the words at ``indices`` (increasing): every occurrence,
    left to right. Returns the symbols met before and after the occurrences, each with the count of the words and
    the words it was met in (one dict of each filled alongside the other, so that they list symbols alike).

    An occurrence with ``left`` before it ends the pair ``(left, first)`` and makes ``(left, symbol)``; one with
    ``right`` after it ends ``(second, right)`` and makes ``(symbol, right)``. Where two occurrences touch, the
    second has :data:`_TOUCHING` before it: it ends ``(second, first)`` and makes ``(symbol, symbol)``.

    Hot loop: one piece on purpose (it runs for every word a merge touches); one occurrence, by far the most
    common case, has its own branch.
    """
    starts, sizes, view, width, decode, encode = (
        words.starts, words.sizes, words.view, words.width, words.decode, words.encode
    )  # fmt: skip
    word_counts = words.counts
    typecode = _index_type(words)
    before_counts: defaultdict[str, int] = defaultdict(int)
    before_words: defaultdict[str, array[int]] = defaultdict(functools.partial(array, typecode))
    after_counts: defaultdict[str, int] = defaultdict(int)
    after_words: defaultdict[str, array[int]] = defaultdict(functools.partial(array, typecode))
    for index in indices:
        start = starts[index] * width
        word = decode(view[start : start + sizes[index] * width], "surrogatepass")[0]
        parts = word.split(pair)
        occurrences = len(parts) - 1
        if not occurrences:
            continue  # the pair has left this word since it was listed
        data = encode(symbol.join(parts), "surrogatepass")[0]
        view[start : start + len(data)] = data
        sizes[index] = len(word) - occurrences
        count = word_counts[index]
        if occurrences == 1:
            before, after = parts
            if before:
                left = before[-1]
                before_counts[left] += count
                before_words[left].append(index)
            if after:
                right = after[0]
                after_counts[right] += count
                after_words[right].append(index)
            continue
        left = parts[0][-1:]
        for m in range(1, occurrences + 1):
            if left:
                before_counts[left] += count
                listed = before_words[left]
                if not listed or listed[-1] != index:
                    listed.append(index)
            part = parts[m]
            if part:
                right = part[0]
                after_counts[right] += count
                listed = after_words[right]
                if not listed or listed[-1] != index:
                    listed.append(index)
                left = part[-1]
            else:
                left = _TOUCHING
    return before_counts, before_words, after_counts, after_words


def _index_type(words: CompactWords) -> str:
    """The typecode of arrays of word indices."""
    return "I" if len(words) <= 1 << 32 else "Q"


def _recount(
    words: CompactWords,
    wanted: int,
    lengths: Sequence[int],
    limit: int,
    initial: Collection[str],
    progress: Callable[[int, int], None] | None,
) -> tuple[int, dict[int, array[int]]]:
    """Every pair's count in the current ``words`` (with ``limit``, only the countable ones), a new floor (half the
    ``wanted``-th highest count, at least 1), and the pairs counting at least that with their words.

    The pairs are counted in parts, a range of left ids at a time, so that the counts of all pairs (a million on a
    million distinct pre-tokens late in training) are never in memory at once: one part to start with, four
    times as many each time a part's pairs pass :data:`RECOUNT_BUDGET` a word, down to one left id a part."""
    # A pair of two initial one-character symbols counts whatever the limit: the reference counts every pair of its
    # first words; continuing, whose words start as a base's tokens, only those (trainer.merge_words' continued).
    initial_ids = frozenset(symbol for symbol in map(ord, initial) if lengths[symbol] == 1)
    parts = 1
    while (kept := _counts_in_parts(words, parts, wanted, lengths, limit, initial_ids, progress)) is None:
        parts *= 4
    floor = max(_kth_largest(kept.values(), wanted) // 2, 1)
    tracked = {key: count for key, count in kept.items() if count >= floor}
    del kept
    return floor, {key: _counted(found, tracked[key]) for key, found in _pair_words(words, tracked).items()}


#: Pairs a part of a recount may hold: this many for each word, and at least RECOUNT_MIN_PAIRS.
RECOUNT_BUDGET = 0.25
RECOUNT_MIN_PAIRS = 1 << 16


def _counts_in_parts(
    words: CompactWords,
    parts: int,
    wanted: int,
    lengths: Sequence[int],
    limit: int,
    initial_ids: Collection[int],
    progress: Callable[[int, int], None] | None,
) -> dict[int, int] | None:
    """The counts of the pairs that may be tracked (each part's, down to half its ``wanted``-th highest), or None
    if a part's pairs pass the budget."""
    kept: dict[int, int] = {}
    top = len(lengths)
    # Parts of one left id each cannot be cut further: no budget then.
    budget = max(int(RECOUNT_BUDGET * len(words)), RECOUNT_MIN_PAIRS) if parts < top else _PAIR_MASK
    for part in range(parts):
        low, high = (part * top // parts) << _ID_BITS, ((part + 1) * top // parts) << _ID_BITS
        totals = _pair_totals(words, low, high, budget, progress)
        if totals is None:
            return None
        if limit >= 0:
            for key in [k for k in totals if k >> _ID_BITS not in initial_ids or k & _ID_MASK not in initial_ids]:
                if not _countable(key, lengths, limit):
                    del totals[key]
        part_floor = max(_kth_largest(totals.values(), wanted) // 2, 1)
        kept.update((key, count) for key, count in totals.items() if count >= part_floor)
    return kept


def _word_keys(words: CompactWords, low: int, high: int) -> Iterator[tuple[int, Iterable[int], int]]:
    """Each word's index, the keys of its pairs (overlapping windows) from ``low`` to below ``high``, and its
    count: made in C from the symbols' array."""
    symbols, starts, sizes, word_counts = words.symbols, words.starts, words.sizes, words.counts
    everything = low == 0 and high > _PAIR_MASK
    for index in range(len(words)):
        start = starts[index]
        ids = symbols[start : start + sizes[index]]
        keys: Iterable[int] = map(operator.or_, map(operator.lshift, ids[:-1], repeat(_ID_BITS)), ids[1:])
        if not everything:
            keys = filter(high.__gt__, filter(low.__le__, keys))
        yield index, keys, word_counts[index]


def _pair_totals(
    words: CompactWords, low: int, high: int, budget: int, progress: Callable[[int, int], None] | None
) -> dict[int, int] | None:
    """The count of every pair in ``words`` keyed from ``low`` to below ``high`` (the pairs of words seen once
    counted in C, a batch at a time), or None once there are more than ``budget`` of them."""
    totals: defaultdict[int, int] = defaultdict(int)
    seen_once: Counter[int] = Counter()
    batch: list[int] = []
    for index, keys, count in _word_keys(words, low, high):
        if count == 1:
            batch += keys
            if len(batch) >= 1 << 16:
                seen_once.update(batch)
                batch.clear()
        else:
            for key in keys:
                totals[key] += count
        if not index % REPORT_WORDS:
            if len(totals) + len(seen_once) > budget:
                return None
            if progress is not None:
                progress(index, len(words))
    seen_once.update(batch)
    for key, count in seen_once.items():
        totals[key] += count
    if progress is not None:
        progress(len(words), len(words))
    return None if len(totals) > budget else dict(totals)


def _pair_words(words: CompactWords, tracked: Mapping[int, int]) -> dict[int, array[int]]:
    """The words each pair of ``tracked`` occurs in, in increasing order (appended in C: pairs not tracked go to
    an array emptied at each word)."""
    typecode = _index_type(words)
    listed = {key: array(typecode) for key in tracked}
    find = listed.get
    elsewhere = array(typecode)
    consume = deque[object](maxlen=0).extend
    for index, keys, _ in _word_keys(words, 0, _PAIR_MASK + 1):
        consume(map(array.append, map(find, dict.fromkeys(keys), repeat(elsewhere)), repeat(index)))
        del elsewhere[:]
    return listed
