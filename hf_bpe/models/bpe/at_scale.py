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
from itertools import islice, repeat

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
        packed = cls(wide=wide)
        for word, count in zip(words, counts, strict=True):
            packed.append(word, count)
        packed.close()
        return packed

    def append(self, word: str, count: int) -> None:
        self.symbols.frombytes(self.encode(word, "surrogatepass")[0])
        self.starts = _appended(self.starts, len(self.symbols), "Q")
        self.sizes = _appended(self.sizes, len(word), "I")
        self.counts = _appended(self.counts, count, "Q")

    def close(self) -> None:
        """No more words: slots are written in place from now on."""
        self.view = memoryview(self.symbols).cast("B")

    def __len__(self) -> int:
        return len(self.sizes)

    def __getitem__(self, index: int) -> str:
        start = self.starts[index] * self.width
        return self.decode(self.view[start : start + self.sizes[index] * self.width], "surrogatepass")[0]

    def __setitem__(self, index: int, word: str) -> None:
        # The merge loops do the same inline.
        start = self.starts[index] * self.width
        data = self.encode(word, "surrogatepass")[0]
        self.view[start : start + len(data)] = data
        self.sizes[index] = len(word)


def _appended(values: array[int], value: int, wider: str) -> array[int]:
    """``values`` with ``value`` appended: the same array, or a copy of typecode ``wider`` if it does not fit."""
    try:
        values.append(value)
    except OverflowError:
        if value < 0:
            raise
        values = array(wider, values)
        values.append(value)
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
        initial: the symbols the words started with (a pair of two is counted whatever ``limit``).
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
    # A tracked pair, keyed left id << 21 | right id (an int takes less memory than a two-character string), has
    # one array: its count, then the words it occurs in.
    tracked = {
        _key(pair): _counted(found, pair_counts[pair]) for pair, found in found_in.items() if pair_counts[pair] >= floor
    }
    pair_counts.clear()
    found_in.clear()
    heap = _queue(tracked)
    merges: list[str] = []
    report_every = max(wanted // 200, 1)
    made = bytearray(chr(i) in initial for i in range(len(tokens)))  # 1 for each token that has been in the words
    remade = False  # a token made a second time (never seen): every pair is counted again
    while len(vocab) < vocab_size:
        count, key = _best(heap, tracked)
        if remade or count < floor:
            if not remade and count and floor <= min_frequency:
                return merges, STOP_MIN_FREQUENCY  # the best of all pairs counts less than floor
            if not remade and not count and floor <= 1:
                return merges, STOP_NO_PAIRS
            floor, tracked = _recount(words, vocab_size - len(vocab), lengths, limit, initial, recount_progress)
            heap = _queue(tracked)
            remade = False
            _release_free_memory()
            continue
        if count < min_frequency:
            return merges, STOP_MIN_FREQUENCY
        heapq.heappop(heap)
        left, right = key >> _ID_BITS, key & _ID_MASK
        new = _token(vocab, tokens, lengths, left, right)
        made.extend(bytes(len(tokens) - len(made)))
        pair = chr(left) + chr(right)
        merges.append(pair)
        changes, gained = _merge_words(words, islice(tracked.pop(key), 1, None), pair, chr(new))
        remade = bool(made[new])
        made[new] = 1
        _track(tracked, heap, changes, gained, floor, lengths, limit)
        if len(merges) % RELEASE_EVERY == 0:
            _release_free_memory()
        if progress is not None and len(merges) % report_every == 0:
            progress(len(merges), wanted)
    return merges, STOP_VOCAB_SIZE


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
    changes: Mapping[int, int],
    gained: Mapping[int, array[int]],
    floor: int,
    lengths: Sequence[int],
    limit: int,
) -> None:
    """A merge's ``changes`` to the pair counts (and the words of the pairs it made, ``gained``) applied to the
    tracked pairs: those falling below ``floor`` are let go, those made at or above it are tracked and queued."""
    for key, change in changes.items():
        found = tracked.get(key)
        if found is not None:
            count = found[0] + change
            if count < floor:  # never merged before the pairs are counted again, which finds it again
                del tracked[key]
            elif count <= _LARGEST[found.typecode]:
                found[0] = count
            else:
                tracked[key] = _counted(found[1:], count)
        elif change >= floor and change > 0 and _countable(key, lengths, limit):
            tracked[key] = _counted(gained[key], change)
            heapq.heappush(heap, -change << _COUNT_SHIFT | key)


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


def _merge_words(
    words: CompactWords, indices: Iterable[int], pair: str, symbol: str
) -> tuple[defaultdict[int, int], dict[int, array[int]]]:
    """Word::merge of ``pair`` into ``symbol`` in each of the words at ``indices`` (increasing): every occurrence,
    left to right. Returns how the count of each pair around the occurrences changes, and for each pair made with
    ``symbol`` the words it was made in (increasing); pairs by key.

    Every occurrence with ``left`` before it turns one ``(left, first)`` into ``(left, symbol)``, and every one
    with ``right`` after it ``(second, right)`` into ``(symbol, right)``. The symbol before an occurrence is the
    end of the text before it (``symbol`` where two occurrences touch); the one after it is the start of the text
    after it (``first`` where the next occurrence follows at once).

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
            part = parts[m]
            if left:
                before_counts[left] += count
                listed = before_words[left]
                if not listed or listed[-1] != index:
                    listed.append(index)
            right = part[:1] or (pair[0] if m < occurrences else "")
            if right:
                after_counts[right] += count
                listed = after_words[right]
                if not listed or listed[-1] != index:
                    listed.append(index)
            left = part[-1:] or symbol

    changes: defaultdict[int, int] = defaultdict(int)
    gained: dict[int, array[int]] = {}
    first, second, new = ord(pair[0]), ord(pair[1]) << _ID_BITS, ord(symbol)
    for left, count in before_counts.items():
        key = ord(left) << _ID_BITS
        changes[key | first] -= count
        changes[key | new] += count
        gained[key | new] = before_words[left]
    new <<= _ID_BITS
    for right, count in after_counts.items():
        changes[second | ord(right)] -= count
        key = new | ord(right)
        changes[key] += count
        also = gained.get(key)  # (symbol, symbol): made before and after occurrences
        listed = after_words[right]
        gained[key] = listed if also is None else array(typecode, sorted({*also, *listed}))
    return changes, gained


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
    initial_ids = frozenset(map(ord, initial))
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
