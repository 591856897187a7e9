"""The merge loop for plain words (byte-level, or characters without affixes): every size, continuing included.

A word is a *symbol string*: one character per symbol, whose code point is the symbol's id. A pair is the
two-character string of its ids, so ``str.split`` finds its occurrences in C, and comparing two pairs compares
``(left id, right id)``, the reference's tie-break. A token's length is kept per token (``lengths``), which is each
occurrence's length wherever every initial symbol is one character, as in plain words.

Words kept in one flat buffer (:class:`~hf_bpe.models.bpe.at_scale.CompactWords`, from
:data:`hf_bpe.models.bpe.trainer.COMPACT_MIN_WORDS` distinct pre-tokens on, continuing included) are merged by
:func:`~hf_bpe.models.bpe.at_scale.merge_tracked`, which keeps a count, a word list and a queue entry only for the
pairs that can still be merged; words in a list by :func:`merge_listed`, which keeps them for every pair and the
reference's queue order. Affixed words (``##b``,
``a</w>``) are :mod:`hf_bpe.models.bpe._affixed_loop`'s, which takes this module's queue (the reference's octonary
heap, :func:`octonary_push`) and per-word merge (:func:`merge_pair`).
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, MutableSequence, Sequence
from itertools import chain

from hf_bpe.models.bpe.at_scale import CompactWords, merge_tracked
from hf_bpe.models.bpe.options import STOP_MIN_FREQUENCY, STOP_NO_PAIRS, STOP_VOCAB_SIZE, Vocab

Progress = Callable[[int, int], None]

# A queue entry is one int: -count, then the left id and the right id (21 bits each: every id is a code point), then
# the entry's sequence number (42 bits). The smallest entry is the highest count, then the smaller pair (the
# reference's tie-break); the reference's heap compares (count, pair) alone (entry >> SEQ_BITS).
ID_BITS = 21
SEQ_BITS = 42
PAIR_BITS = 2 * ID_BITS
ID_MASK = (1 << ID_BITS) - 1
PAIR_MASK = (1 << PAIR_BITS) - 1
SEQ_MASK = (1 << SEQ_BITS) - 1
LEFT_SHIFT = SEQ_BITS + ID_BITS
COUNT_SHIFT = SEQ_BITS + 2 * ID_BITS


def merge_plain(
    words: list[str] | CompactWords,
    word_counts: Sequence[int],
    vocab: Vocab,
    tokens: list[str],
    lengths: list[int],
    pair_counts: defaultdict[str, int],
    found_in: defaultdict[str, array[int]],
    *,
    vocab_size: int,
    min_frequency: int,
    max_token_length: int | None,
    progress: Progress | None,
    recount_progress: Progress | None = None,
) -> tuple[list[str], str]:
    """Merge plain ``words`` until ``vocab_size``; ``words`` change and ``vocab``, ``tokens`` and ``lengths`` (symbols
    a token spans) grow in place. ``pair_counts`` and ``found_in`` (the words each pair occurs in, increasing) are
    the initial count, and are emptied. Compact words are merged by :func:`merge_tracked`, a list by
    :func:`merge_listed`.

    Returns the merge pairs (symbol strings, in order, repeats included) and the stop reason.
    """
    limit = max_token_length if max_token_length is not None else -1
    if isinstance(words, CompactWords):
        wanted = max(vocab_size - len(tokens), 0)
        initial = frozenset(chain.from_iterable(pair_counts))
        merges, stop = merge_tracked(
            words, pair_counts, found_in, vocab, tokens, lengths, vocab_size=vocab_size, min_frequency=min_frequency,
            limit=limit, initial=initial, progress=progress, recount_progress=recount_progress,
        )  # fmt: skip
        if progress is not None:
            progress(len(merges), wanted)
        return merges, stop
    return merge_listed(
        words, word_counts, vocab, tokens, lengths, pair_counts, found_in, vocab_size=vocab_size,
        min_frequency=min_frequency, limit=limit, progress=progress,
    )  # fmt: skip


def merge_listed(
    words: list[str],
    word_counts: Sequence[int],
    vocab: Vocab,
    tokens: list[str],
    lengths: list[int],
    pair_counts: defaultdict[str, int],
    found_in: defaultdict[str, array[int]],
    *,
    vocab_size: int,
    min_frequency: int,
    limit: int,
    progress: Progress | None,
) -> tuple[list[str], str]:
    """:func:`merge_plain`'s loop keeping every pair's count, words and queue entries (``limit``:
    ``max_token_length``, or -1). Pairs are keyed ``left id << 21 | right id`` (ints take less memory than
    two-character strings).

    Hot loop: one piece on purpose. Each round pops the queue, merges and requeues in the same locals; split into
    functions, every round would pay for the calls and for passing a dozen pieces of state between them.
    """
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
    # reference's heap is rebuilt by replaying the log into a simulation of it (octonary_push, octonary_pop),
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
            entry = -count << COUNT_SHIFT | ord(pair[0]) << LEFT_SHIFT | ord(pair[1]) << SEQ_BITS | seq
            (heap if count > floor else low).append(entry)
            record(entry)
    heapq.heapify(heap)
    seq = len(entry_words)
    del found_in
    counts_of = pair_keys(pair_counts)
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
        if heap and heap[0] >> SEQ_BITS == top >> SEQ_BITS and not simulated:
            heap, low, floor, simulated = octonary_replay(log), [], -math.inf, True
            pop, push = octonary_pop, octonary_push
            top = pop(heap)
        record(None)
        kept = entry_words[top & SEQ_MASK]
        entry_words[top & SEQ_MASK] = None
        single = entry_word[top & SEQ_MASK]
        pair = chr(top >> LEFT_SHIFT & ID_MASK) + chr(top >> SEQ_BITS & ID_MASK)
        count = counts_of.get(top >> SEQ_BITS & PAIR_MASK, 0)
        if top >> COUNT_SHIFT != -count:
            # A stale count: back into the queue with the current count, for the same words, as a newer entry.
            entry_words.append(kept)
            entry_word.append(single)
            entry = -count << COUNT_SHIFT | (top >> SEQ_BITS & PAIR_MASK) << SEQ_BITS | seq
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
        token = tokens[a] + tokens[b]
        new = vocab.get(token)
        if new is None:
            new = len(tokens)
            vocab[token] = new
            tokens.append(token)
            lengths.append(lengths[a] + lengths[b])
        merges.append(pair)
        symbol = chr(new)
        positions = (single,) if kept is None else kept  # an entry is popped once: kept is not None if single < 0
        merge_pair(words, positions, word_counts, pair, symbol, lengths, limit, counts_of, where)
        for key, gained in where.items():
            count = counts_of[key]
            if count > 0:
                if len(gained) > 1:
                    entry_words.append(array("i", gained))
                    entry_word.append(-1)
                else:
                    entry_words.append(None)
                    entry_word.append(gained.pop())
                entry = -count << COUNT_SHIFT | key << SEQ_BITS | seq
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
    return merges, stop


def merge_pair(
    words: MutableSequence[str],
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
    has its own branch: the general loop would cost more than a tenth of the training time.

    Hot loop: one piece on purpose; it runs for every word a merge touches, and its two branches share locals.
    """
    before_counts: defaultdict[str, int] = defaultdict(int)
    before_words: defaultdict[str, set[int]] = defaultdict(set)
    after_counts: defaultdict[str, int] = defaultdict(int)
    after_words: defaultdict[str, set[int]] = defaultdict(set)
    for index in indices:
        parts = words[index].split(pair)
        occurrences = len(parts) - 1
        if not occurrences:
            continue  # the pair has left this word since the entry was made
        count = word_counts[index]
        words[index] = symbol.join(parts)
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
    new_length = lengths[new] if limit >= 0 else 0
    first, second = ord(pair[0]), ord(pair[1]) << ID_BITS
    for left, count in before_counts.items():
        left_id = ord(left) << ID_BITS
        old = left_id | first
        if pair_counts[old] == count:
            del pair_counts[old]
        else:
            pair_counts[old] -= count
        if limit < 0 or lengths[left_id >> ID_BITS] + new_length < limit:
            key = left_id | new
            pair_counts[key] += count
            where[key] |= before_words[left]
    new <<= ID_BITS
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


def pair_keys(pair_counts: Mapping[str, int]) -> defaultdict[int, int]:
    """``pair_counts`` keyed ``left id << 21 | right id`` instead of by two-character strings."""
    return defaultdict(int, {ord(pair[0]) << ID_BITS | ord(pair[1]): count for pair, count in pair_counts.items()})


def octonary_push(heap: list[int], entry: int) -> None:
    """``OctonaryHeap::push`` on a heap of packed queue entries, ordered by their ``(count, pair)`` alone: the entry
    sifts up while it comes strictly before its parent."""
    heap.append(entry)
    _octonary_sift_up(heap, 0, len(heap) - 1)


def octonary_pop(heap: list[int]) -> int:
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
        best_key = heap[child] >> SEQ_BITS
        for other in range(child + 1, child + 8):
            key = heap[other] >> SEQ_BITS
            if key <= best_key:
                best, best_key = other, key
        heap[pos] = heap[best]
        pos = best
        child = 8 * pos + 1
    if child < end:
        best = child
        best_key = heap[child] >> SEQ_BITS
        for other in range(child + 1, end):
            key = heap[other] >> SEQ_BITS
            if key <= best_key:
                best, best_key = other, key
        heap[pos] = heap[best]
        pos = best
    heap[pos] = moved
    _octonary_sift_up(heap, 0, pos)
    return entry


def _octonary_sift_up(heap: list[int], start: int, pos: int) -> None:
    entry = heap[pos]
    key = entry >> SEQ_BITS
    while pos > start:
        parent = (pos - 1) >> 3
        if key >= heap[parent] >> SEQ_BITS:
            break
        heap[pos] = heap[parent]
        pos = parent
    heap[pos] = entry


def octonary_replay(log: Iterable[int | None]) -> list[int]:
    """The reference's heap after the same pushes (entries) and pops (None) in the same order."""
    heap: list[int] = []
    for entry in log:
        if entry is None:
            octonary_pop(heap)
        else:
            octonary_push(heap, entry)
    return heap
