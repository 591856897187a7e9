"""The merge loop for affixed words (char-level BPE: ``##b``, ``a</w>``), and the reference's queue.

Affixed words are where the reference's queue quirks show (:mod:`hf_bpe.models.bpe.trainer`'s docstring): a token
can be made by two different merges (``h`` + ``##ug`` and ``hu`` + ``##g``), so one pair's occurrences can sit in
several queue entries, each merged only for its own words, and two entries of the same pair and count pop in the
order the reference's ``OctonaryHeap`` (``dary_heap``) gives them. A token's length belongs to each occurrence, as
in the reference's Word: every initial symbol spans 1 however it is spelled (``a</w>``, ``##b``, a special token), a
merged one the sum of its two parts, even when the token already exists with another length. So this loop keeps
the reference's queue itself (:func:`~hf_bpe.models.bpe._merge_loop.octonary_push`) from the start, and with
``max_token_length`` a list of lengths for each word. Plain words, where none of that can happen, are
:mod:`hf_bpe.models.bpe._merge_loop`'s.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence

from hf_bpe.models.bpe._merge_loop import (
    COUNT_SHIFT,
    ID_BITS,
    ID_MASK,
    PAIR_MASK,
    SEQ_BITS,
    SEQ_MASK,
    merge_pair,
    octonary_pop,
    octonary_push,
    pair_keys,
)
from hf_bpe.models.bpe.options import STOP_MIN_FREQUENCY, STOP_NO_PAIRS, STOP_VOCAB_SIZE, Vocab


def merge_affixed(
    words: list[str],
    word_counts: Sequence[int],
    vocab: Vocab,
    tokens: list[str],
    pair_counts: Mapping[str, int],
    found_in: Mapping[str, Collection[int]],
    *,
    vocab_size: int,
    min_frequency: int,
    max_token_length: int | None,
    prefix: str,
    progress: Callable[[int, int], None] | None,
) -> tuple[list[str], str]:
    """Merge affixed ``words`` (symbol strings, see :mod:`hf_bpe.models.bpe._merge_loop`) until ``vocab_size``, as
    the module docstring says; ``words`` change and ``vocab`` and ``tokens`` grow in place.

    Args:
        pair_counts, found_in: the initial count of the pairs (two-symbol strings) and the words each occurs in.
        prefix: the continuing-subword prefix, dropped from the right token when two are joined (``h`` + ``##ug``
            makes ``hug``, as BpeTrainer::do_train).

    Returns:
        The merge pairs (symbol strings, in order, repeats included) and the stop reason.

    Hot loop: one piece on purpose. Each round pops the queue, merges every occurrence of the pair in its words
    (Word::merge, left to right) and requeues the pairs made, in the same locals; split into functions, every round
    would pay for the calls and for passing a dozen pieces of state between them.
    """
    limit = max_token_length
    spans_of = None if limit is None else [[1] * len(word) for word in words]  # each occurrence's length
    counts_of = pair_keys(pair_counts)  # keyed left id << 21 | right id
    entry_words: dict[int, Collection[int]] = {}
    heap: list[int] = []
    seq = 0

    def queue(gained: Mapping[int, Collection[int]]) -> None:
        nonlocal seq
        for key, positions in gained.items():
            count = counts_of.get(key, 0)
            if count > 0:
                entry_words[seq] = positions
                octonary_push(heap, -count << COUNT_SHIFT | key << SEQ_BITS | seq)
                seq += 1

    queue({ord(pair[0]) << ID_BITS | ord(pair[1]): found for pair, found in found_in.items()})
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
        top = octonary_pop(heap)
        positions = entry_words.pop(top & SEQ_MASK)
        key = top >> SEQ_BITS & PAIR_MASK
        count = counts_of.get(key, 0)
        if top >> COUNT_SHIFT != -count:
            # A stale count: back into the queue with the current count, for the same words, as a newer entry.
            entry_words[seq] = positions
            octonary_push(heap, -count << COUNT_SHIFT | key << SEQ_BITS | seq)
            seq += 1
            continue
        if count < 1:
            break
        if count < min_frequency:
            stop = STOP_MIN_FREQUENCY
            break
        a, b = key >> ID_BITS, key & ID_MASK
        pair = chr(a) + chr(b)
        right_token = tokens[b]
        if prefix and right_token.startswith(prefix):
            right_token = right_token[len(prefix) :]
        token = tokens[a] + right_token
        new = vocab.get(token)
        if new is None:
            new = len(tokens)
            vocab[token] = new
            tokens.append(token)
        symbol = chr(new)
        merges.append(pair)
        # The pairs made: those before an occurrence first, then those after it, each in order of first making
        # (one of the orders the reference's hash map of them can take), as merge_pair gathers them.
        before: defaultdict[int, set[int]] = defaultdict(set)
        if spans_of is None:
            merge_pair(words, positions, word_counts, pair, symbol, (), -1, counts_of, before)
            queue(before)
            if progress is not None and len(merges) % report_every == 0:
                progress(len(merges), wanted)
            continue
        after: defaultdict[int, set[int]] = defaultdict(set)
        for index in positions:
            # Word::merge: occurrences left to right, each looked for after the symbol the last one made; a pair
            # is counted only if its token, by the lengths of these occurrences, is shorter than the limit.
            word, spans = words[index], spans_of[index]
            weight = word_counts[index]
            i = word.find(pair)
            while i >= 0:
                span = spans[i] + spans[i + 1]
                if i > 0:
                    left = ord(word[i - 1]) << ID_BITS
                    counts_of[left | a] -= weight
                    if spans[i - 1] + span < limit:  # type: ignore[operator]
                        counts_of[left | new] += weight
                        before[left | new].add(index)
                word = word[:i] + symbol + word[i + 2 :]
                spans[i : i + 2] = [span]
                if i + 1 < len(word):
                    right = ord(word[i + 1])
                    counts_of[b << ID_BITS | right] -= weight
                    if span + spans[i + 1] < limit:  # type: ignore[operator]
                        counts_of[new << ID_BITS | right] += weight
                        after[new << ID_BITS | right].add(index)
                i = word.find(pair, i + 1)
            words[index] = word
        for made, found in after.items():
            before[made] |= found
        queue(before)
        if progress is not None and len(merges) % report_every == 0:
            progress(len(merges), wanted)
    if progress is not None:
        progress(len(merges), wanted)
    return merges, stop
