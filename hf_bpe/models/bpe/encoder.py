"""Applying BPE merges by rank to byte-level pre-tokens: the model behind a byte-level BPE pipeline's span-free path.

:class:`BytePairEncoder` owns turning one pre-token (cut and normalized by the pipeline, before byte-level spelling)
into ids: its bytes spelled as the vocabulary's byte tokens, ``ignore_merges``' whole-word look-up, and merges applied
by rank (lowest first, leftmost first on equal rank, so ``"aaa"`` becomes ``"aa" "a"``) exactly as the Rust
``tokenizers`` BPE model and tiktoken apply them, with a bounded cache of recent pre-tokens and pieces cut where no
merge can join two characters. Cutting text into pre-tokens, added tokens and decoding are the pipeline's
(:mod:`hf_bpe.pipeline`, :class:`hf_bpe.tokenizer.tokenizer.Tokenizer`); the model's twin in a pipeline is
:class:`hf_bpe.models.bpe.symbols.SymbolBPE`, which hands its pre-tokens here; loading files is
:mod:`hf_bpe.models.bpe.files`' job.
"""

from __future__ import annotations

import heapq
import itertools
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import regex

from hf_bpe.models.bpe.options import MergePairs
from hf_bpe.pipeline.byte_level import BYTE_TO_UNICODE, from_byte_level, replace_surrogates

#: Pre-tokens of more bytes than this are merged with a heap over a linked list (n log n) instead of the simple loop.
LONG_PIECE = 16
#: Stands for "no merge" among ranks (above every rank).
_NO_RANK = 1 << 62
#: How many distinct pre-tokens the cache remembers before it forgets the older half.
CACHE_SIZE = 100_000


class BytePairEncoder:
    """The ids of byte-level pre-tokens under a vocabulary and its merges.

    Args:
        vocab: token (byte-level spelling) to id.
        merges: merges in rank order.
        ignore_merges: a pre-token that is in the vocabulary whole is that one token, whatever the merges would
            make of it (the BPE model's ``ignore_merges``, set in Llama-3's files).
        id_tables: :func:`id_merges` of ``vocab`` and ``merges``, where the caller has them.

    Raises:
        ValueError: if a merge's parts or result are not in ``vocab``.

    >>> encoder = BytePairEncoder({"a": 0, "b": 1, "ab": 2, "Ġ": 3, "Ġab": 4}, [("a", "b"), ("Ġ", "ab")])
    >>> [encoder.encode_pre_token(piece) for piece in ("ab", " ab", " ", "aab")]
    [[2], [4], [3], [0, 2]]
    """

    def __init__(
        self,
        vocab: Mapping[str, int],
        merges: Sequence[tuple[str, str]],
        *,
        ignore_merges: bool = False,
        id_tables: tuple[dict[int, int], list[int], int] | None = None,
    ) -> None:
        self.vocab = dict(vocab)
        self.ignore_merges = ignore_merges
        # id_merges refuses a merge whose parts or result are not in the vocabulary (merge_ranks' message); a pair
        # listed twice keeps its last rank in both tables, as merge_ranks and the Rust model have it. A model that
        # made them already for the same vocabulary and merges hands them over (``id_tables``).
        self._pair_ranks, self._merged_ids, self._id_span = id_tables or id_merges(self.vocab, merges)
        # The merges as given (a file's read-only MergePairs as they are: no tuple per merge), for the pairs no
        # merge joins (:meth:`_cut`).
        self._merges = merges if isinstance(merges, MergePairs) else list(merges)
        # Where pieces can be cut (made on first use, see :meth:`_cut`).
        self._boundaries: _Boundaries | None = None
        # A byte missing from the vocabulary gets a stand-in id past the vocabulary, reported after merging.
        self._byte_ids = [self.vocab.get(BYTE_TO_UNICODE[byte], self._id_span - 256 + byte) for byte in range(256)]
        # Two caches, never one: a whole pre-token's ids (``ignore_merges`` looked at) and a cut part's (merged alone,
        # see :meth:`_cut`). A part read back as a whole pre-token would skip the whole-word lookup: the ids of
        # " дажеx" depended on whether " даже)" was encoded first.
        self._cache: dict[str, list[int]] = {}
        self._part_cache: dict[str, list[int]] = {}

    def encode_pre_token(self, piece: str) -> list[int]:
        """The ids of one pre-token (normalized and cut, before byte-level spelling), remembered.

        >>> BytePairEncoder({"a": 0, "b": 1, "ab": 2, "Ġ": 3}, [("a", "b")]).encode_pre_token(" abb")
        [3, 2, 1]
        """
        cache = self._cache
        hit = cache.get(piece)
        if hit is None:
            hit = self._encode_piece(piece)
            if len(cache) >= CACHE_SIZE:
                _forget_older_half(cache)
            cache[piece] = hit
        return hit

    def merge_bytes(self, data: bytes) -> list[int]:
        """The ids of one pre-token given as bytes: merges applied by rank, exactly as :meth:`encode_pre_token`
        applies them (nothing remembered; bytes that are not UTF-8 merged as they are).

        Raises:
            KeyError: naming a byte that has no token in the vocabulary.

        >>> BytePairEncoder({"a": 0, "b": 1, "ab": 2}, [("a", "b")]).merge_bytes(b"abba")
        [2, 1, 0]
        """
        try:
            piece = data.decode("utf-8")
        except UnicodeDecodeError:
            return self._encode_one(repr(data[:60]), data)
        return self._encode_piece(piece)

    def _encode_piece(self, piece: str) -> list[int]:
        try:
            data = piece.encode("utf-8")
        except UnicodeEncodeError:
            data = replace_surrogates(piece).encode("utf-8")
            piece = data.decode("utf-8")
        if self.ignore_merges:
            whole = self.vocab.get("".join([BYTE_TO_UNICODE[byte] for byte in data]))
            if whole is not None:
                return [whole]
        if len(data) > LONG_PIECE or not piece.isascii():
            parts = self._cut(piece)
            if len(parts) > 1:
                cache = self._part_cache
                ids: list[int] = []
                for part in parts:
                    hit = cache.get(part)
                    if hit is None:
                        if len(cache) >= CACHE_SIZE:
                            _forget_older_half(cache)
                        hit = cache[part] = self._encode_one(part, part.encode("utf-8"))
                    ids += hit
                return ids
        return self._encode_one(piece, data)

    def _cut(self, piece: str) -> list[str]:
        """``piece`` cut between every two characters no merge can join (see :class:`_Boundaries`). Every merge then
        lies within one part, so merging the parts on their own gives the piece's merges exactly. Most boundaries in
        CJK and Cyrillic text are such, even for vocabularies that join many of their characters."""
        boundaries = self._boundaries
        if boundaries is None:
            boundaries = self._boundaries = _Boundaries(left + right for left, right in self._merges)
        cuts = boundaries.cuts(piece)
        if not cuts:
            return [piece]
        cuts.append(len(piece))
        parts = [piece[: cuts[0]]]
        parts += [piece[start:end] for start, end in itertools.pairwise(cuts)]
        return parts

    def _encode_one(self, piece: str, data: bytes) -> list[int]:
        byte_ids = self._byte_ids
        merge = _merge if len(data) <= LONG_PIECE else _merge_long  # merge_ids' choice, inline: once per pre-token
        ids = merge([byte_ids[byte] for byte in data], self._pair_ranks, self._merged_ids, self._id_span)
        first_stand_in = self._id_span - 256
        if max(ids) >= first_stand_in:
            missing = next(bytes([i - first_stand_in]) for i in ids if i >= first_stand_in)
            raise KeyError(f"byte {missing!r} of {piece[:60]!r} has no token in the vocabulary")
        return ids

    def make_tables(self) -> None:
        """Make now what :meth:`_cut` makes at the first non-ASCII piece (the pairs no merge joins: Llama-3's took
        0.35 s), so that a batch shared out to forked processes makes it once, before the fork."""
        if self._boundaries is None:
            self._boundaries = _Boundaries(left + right for left, right in self._merges)

    def clear_cache(self) -> None:
        """Forget what was learned from text: the ids of pre-tokens and the verdicts on pairs of characters."""
        self._cache.clear()
        self._part_cache.clear()
        if self._boundaries is not None:
            self._boundaries.clear()

    def __getstate__(self) -> dict[str, object]:
        # The cache is a speed-up, not state: pickles (and datasets' fingerprints) must not depend on what was
        # encoded before.
        state = self.__dict__.copy()
        state["_cache"] = {}
        state["_part_cache"] = {}
        state["_boundaries"] = None
        return state


def _forget_older_half(cache: dict[str, Any]) -> None:
    """Drop the half of ``cache`` put in first: text that changes language or subject keeps the pieces it met
    lately, where clearing all would merge them all again (a 5 MB multilingual batch meets over 100,000)."""
    for piece in list(itertools.islice(cache, len(cache) // 2)):
        del cache[piece]


class _Boundaries(dict[str, bool]):
    """Where a piece may be cut: between two characters that no merge's result holds next to each other, whole or
    in part (:meth:`cuts`).

    A merge crossing the boundary between characters ``a`` and ``b`` makes a token holding the bytes of ``a``, or a
    last part of them, followed by those of ``b``, or a first part. Each result's bytes are read as UTF-8 and cut
    into its characters, its leading continuation bytes (a last part of a character) and its trailing incomplete
    character (a first part); partial bytes are spelled as ``surrogateescape`` spells them. ``joins`` holds every
    two consecutive parts written together; ``a`` and ``b`` may be cut apart unless ``a`` or a last part of it,
    followed by ``b`` or a first part of it, is in ``joins``. A result that cannot occur in valid UTF-8 text (a
    continuation byte where a character should start) never applies to text and is left out.

    That test is asked per pair of characters, and the verdict on each pair met is remembered (the key, a
    two-character string; the older half is forgotten past ``CACHE_SIZE``). A coarser test, of bytes alone, cuts
    wherever the last byte of one part and the first of the next are side by side in no join: in C throughout,
    with no first meeting to pay per pair. A vocabulary that joins few such pairs of bytes (GPT-2's joins under
    one in twenty of those between a continuation byte and a lead byte, cl100k's one in eight, o200k's two in
    five) is cut as finely by it, and faster: ``by_bytes`` (chosen on that share when not given) picks it.

    >>> # The results "ab", "日本" and the last byte of "日" with the first two of "語" (as a byte-level vocabulary
    >>> # may hold them): "a" "b" and "日" "本" are joined, "日" "語" too (in part); the other neighbours are not.
    >>> results = ["ab", "æĹ¥æľ¬", "¥èª"]
    >>> _Boundaries(results, by_bytes=False).cuts("ab日本日語å本x")
    [2, 4, 6, 7, 8]
    >>> _Boundaries(results, by_bytes=True).cuts("ab日本日語å本x")  # not "å" "本": "å" ends in 0xa5, as "日" does
    [2, 4, 6, 8]
    """

    def __init__(self, results: Iterable[str], *, by_bytes: bool | None = None) -> None:
        super().__init__()
        joins: set[str] = set()
        starts: set[str] = set()  # last parts of characters that begin a result, and the first parts that end one
        ends: set[str] = set()
        edges: set[tuple[int, int]] = set()  # the last byte of a part and the first of the next
        # All results at once, as one text of valid UTF-8 between byte 0xff (never in UTF-8, so it cannot join a
        # neighbour); the results spelled with characters alone give their pairs straight away.
        text = from_byte_level(BYTE_TO_UNICODE[0xFF].join(results)).decode("utf-8", "surrogateescape")
        for pair in set(map(operator.add, text, text[1:])):
            if not _PARTIAL.search(pair):
                joins.add(pair)
                edges.add((_last_byte(pair[0]), _first_byte(pair[1])))
        for result in _HAS_PARTIAL.findall(text):
            parts = _UTF8_PARTS.fullmatch(result)
            if parts is None:
                continue
            start, chars, end = parts.groups()
            spelled = [*([start] if start else []), *chars, *([end] if end else [])]
            if len(spelled) > 1:
                joins.update(map(operator.add, spelled, spelled[1:]))
                edges.update(zip(map(_last_byte, spelled), map(_first_byte, spelled[1:]), strict=False))
                if start:
                    starts.add(start)
                if end:
                    ends.add(end)
        self.joins = frozenset(joins)
        self.starts = frozenset(starts)
        self.ends = frozenset(ends)
        # Each character met, with its last parts that begin a result (and with its first parts that end one).
        self._lefts: dict[str, tuple[str, ...]] = {}
        self._rights: dict[str, tuple[str, ...]] = {}
        if by_bytes is None:
            across = [(a, b) for a in range(0x80, 0xC0) for b in range(0xC2, 0xF5)]
            by_bytes = sum(pair in edges for pair in across) < len(across) / 20
        # For the test of bytes: the pairs of bytes (as chr) in no join, and each character's first and last byte.
        self._byte_apart: frozenset[tuple[str, str]] | None = None
        self._edges = _Edges()
        if by_bytes:
            every = itertools.product(range(256), repeat=2)
            self._byte_apart = frozenset((chr(a), chr(b)) for a, b in every if (a, b) not in edges)

    def cuts(self, piece: str) -> list[int]:
        """The positions where ``piece`` may be cut; in C but for characters and pairs met for the first time."""
        if self._byte_apart is None:
            apart = map(self.__getitem__, map(operator.add, piece, piece[1:]))
        else:
            edges = piece.translate(self._edges)
            # (last byte, next first byte) at each boundary: the odd characters paired with the even ones after them.
            apart = map(self._byte_apart.__contains__, zip(edges[1::2], edges[2::2], strict=False))
        return list(itertools.compress(range(1, len(piece)), apart))

    def __missing__(self, pair: str) -> bool:
        if len(self) >= CACHE_SIZE:
            _forget_older_half(self)
        joins = self.joins
        apart = self[pair] = pair not in joins
        if apart:
            first, second = pair[0], pair[1]
            lefts = self._lefts.get(first) or self._spellings(first)
            rights = self._rights.get(second) or self._spellings(second, first_parts=True)
            if len(lefts) > 1 or len(rights) > 1:
                apart = self[pair] = not any(left + right in joins for left in lefts for right in rights)
        return apart

    def clear(self) -> None:
        """Forget the pairs and characters met."""
        super().clear()
        self._lefts.clear()
        self._rights.clear()
        self._edges.clear()

    def _spellings(self, char: str, *, first_parts: bool = False) -> tuple[str, ...]:
        """``char``, and its last parts that begin some result (its first parts that end one), remembered."""
        data = char.encode("utf-8")
        if first_parts:
            parts = (data[:i].decode("utf-8", "surrogateescape") for i in range(1, len(data)))
            spellings = self._rights[char] = (char, *(part for part in parts if part in self.ends))
        else:
            parts = (data[i:].decode("utf-8", "surrogateescape") for i in range(1, len(data)))
            spellings = self._lefts[char] = (char, *(part for part in parts if part in self.starts))
        return spellings


def _last_byte(spelled: str) -> int:
    """The last byte of a character or a part of one, spelled as :class:`_Boundaries` spells them."""
    return spelled[-1].encode("utf-8", "surrogateescape")[-1]


def _first_byte(spelled: str) -> int:
    return spelled[0].encode("utf-8", "surrogateescape")[0]


class _Edges(dict[int, str]):
    """A ``str.translate`` table taking a character to two: its UTF-8 encoding's first and last byte (filled as
    characters are met)."""

    def __missing__(self, code_point: int) -> str:
        data = chr(code_point).encode("utf-8")
        edge = self[code_point] = chr(data[0]) + chr(data[-1])
        return edge


#: A byte that is not UTF-8 as ``surrogateescape`` spells it; results with one; and such a result read as (the
#: last part of a character, whole characters, the first part of one).
_PARTIAL = regex.compile("[\udc80-\udcff]")
_HAS_PARTIAL = regex.compile("[^\udcff]*[\udc80-\udcfe][^\udcff]*")
_UTF8_PARTS = regex.compile("([\udc80-\udcbf]{1,3})?([^\udc80-\udcff]*)([\udcc0-\udcf7][\udc80-\udcbf]{0,2})?")


def merge_ranks(vocab: Mapping[str, int], merges: Sequence[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """Each merge's rank; a pair listed twice takes its last rank, as in the Rust model.

    Raises:
        ValueError: naming a merge whose parts or result are not in ``vocab``.
    """
    ranks: dict[tuple[str, str], int] = {}
    for rank, (left, right) in enumerate(merges):
        for token in (left, right, left + right):
            if token not in vocab:
                raise ValueError(f"merge {rank + 1} ({left} {right}): {token!r} is not in the vocabulary")
        ranks[left, right] = rank
    return ranks


def id_merges(vocab: Mapping[str, int], merges: Sequence[tuple[str, str]]) -> tuple[dict[int, int], list[int], int]:
    """The merges as :func:`merge_ids` applies them to ids: ``(pair_ranks, merged_ids, span)``, a pair ``(a, b)``
    keyed ``a * span + b`` to its rank (a pair listed twice: its last), each rank's merged id. ``span`` leaves room
    for 256 stand-in ids past the vocabulary (bytes the vocabulary lacks). Each list is made in one pass in C
    (``map`` over the merges): Gemma's 514,000 merges in a tenth of the time a loop takes.

    Raises:
        ValueError: naming the first merge whose parts or result are not in ``vocab`` (:func:`merge_ranks`'s
            message).

    >>> id_merges({"a": 0, "b": 1, "ab": 2}, [("a", "b")])
    ({1: 0}, [2], 259)
    """
    get = vocab.__getitem__
    if isinstance(merges, MergePairs):
        lefts, rights = merges.lefts, merges.rights
    else:
        lefts = list(map(operator.itemgetter(0), merges))
        rights = list(map(operator.itemgetter(1), merges))
    try:
        left_ids, right_ids = list(map(get, lefts)), list(map(get, rights))
        merged_ids = list(map(get, map(operator.add, lefts, rights)))
    except KeyError:
        merge_ranks(vocab, merges)  # raises, naming the first merge whose part or result is missing
        raise
    span = max(vocab.values(), default=0) + 257
    keys = map(operator.add, map(operator.mul, left_ids, itertools.repeat(span)), right_ids)
    # dict() keeps a pair's last rank, as the Rust model does for a pair listed twice.
    return dict(zip(keys, range(len(merged_ids)), strict=True)), merged_ids, span


def merge_ids(ids: list[int], pair_ranks: Mapping[int, int], merged_ids: Sequence[int], span: int) -> list[int]:
    """The BPE model's rule (:func:`merge_by_rank`) on ids, with the tables of :func:`id_merges`: ``ids`` merged
    in place and returned (a heap for a long word, :func:`_merge_long`; scans of a list for a short one).

    >>> merge_ids([0, 1, 1], *id_merges({"a": 0, "b": 1, "ab": 2}, [("a", "b")]))
    [2, 1]
    """
    merge = _merge if len(ids) <= LONG_PIECE else _merge_long
    return merge(ids, pair_ranks, merged_ids, span)


def merge_by_rank(
    symbols: list[str],
    ranks: Mapping[tuple[str, str], int],
    join: Callable[[str, str], str] = operator.add,
) -> list[str]:
    """The BPE model's rule on a word's symbols: merge the pair of lowest rank, the leftmost of equal ranks, one
    pair at a time, until no pair has a rank. ``join`` makes a merged symbol (char-level BPE drops the right
    part's ``##``). A heap of (rank, position) over a linked list, as the Rust model merges a word; the encoder's
    own loops (:func:`_merge`, :func:`_merge_long`) are the same rule on ids, for speed.

    >>> merge_by_rank(list("aaab"), {("a", "a"): 0, ("a", "b"): 1, ("aa", "a"): 2})
    ['aa', 'ab']
    """
    following = list(range(1, len(symbols) + 1))
    preceding = list(range(-1, len(symbols) - 1))
    heap = [(ranks[pair], i, *pair) for i, pair in enumerate(itertools.pairwise(symbols)) if pair in ranks]
    heapq.heapify(heap)
    while heap:
        _rank, i, left, right = heapq.heappop(heap)
        j = following[i]
        if symbols[i] != left or j >= len(symbols) or symbols[j] != right:
            continue  # stale: a neighbour was merged since this entry was pushed
        symbols[i], symbols[j] = join(left, right), ""
        k = following[j]
        following[i] = k
        if k < len(symbols):
            preceding[k] = i
        for a, b in ((preceding[i], i), (i, k)):
            if a >= 0 and b < len(symbols) and (symbols[a], symbols[b]) in ranks:
                heapq.heappush(heap, (ranks[(symbols[a], symbols[b])], a, symbols[a], symbols[b]))
    return [symbol for symbol in symbols if symbol]


def _merge(ids: list[int], pair_ranks: Mapping[int, int], merged_ids: Sequence[int], span: int) -> list[int]:
    """Apply merges to a short word: repeatedly merge the lowest-ranked pair, the leftmost on equal ranks.

    One pair at a time, as tiktoken and the Rust BPE model do: with a merges file that ranks a pair with a new
    token before the merge making it, merging every occurrence at once (GPT-2's original loop) would differ.
    Arguments as :func:`_merge_long`'s; the ranks of adjacent pairs are kept in step with the word (after a merge
    only its two neighbours change) and ``min``/``index`` find the lowest, leftmost one in C. ``ids`` is merged in
    place (no copy: the caller made it for this call) and returned.

    >>> # "a" = 0, "b" = 1; merges ("a", "a") -> 2, ("a", "b") -> 3, ("aa", "a") -> 4; ids below span 10.
    >>> _merge([0, 0, 0, 1], {0 * 10 + 0: 0, 0 * 10 + 1: 1, 2 * 10 + 0: 2}, [2, 3, 4], 10)
    [2, 3]
    """
    if len(ids) < 2:
        return ids
    get = pair_ranks.get
    ranks = [get(left * span + right, _NO_RANK) for left, right in itertools.pairwise(ids)]
    while True:
        best = min(ranks)
        if best == _NO_RANK:
            return ids
        i = ranks.index(best)
        merged = ids[i] = merged_ids[best]
        del ids[i + 1]
        del ranks[i]
        if i < len(ranks):
            ranks[i] = get(merged * span + ids[i + 1], _NO_RANK)
        elif not i:
            return ids
        if i:
            ranks[i - 1] = get(ids[i - 1] * span + merged, _NO_RANK)


def _merge_long(ids: list[int], pair_ranks: Mapping[int, int], merged_ids: Sequence[int], span: int) -> list[int]:
    """Apply merges to a long word in O(n log n): positions bucketed by rank over a doubly linked list, in ints.

    ``ids`` are the word's byte ids; ``pair_ranks`` maps ``left * span + right`` to the merge's rank and
    ``merged_ids[rank]`` is its result. The lowest rank present is taken next (a heap of ranks) and all its
    positions are merged left to right, which is what merging one pair at a time, lowest rank first and leftmost
    first on equal ranks, does: a merge never creates a pair of its own rank (the merged token is new to both
    sides), and ``"aaa"`` merges as ``"aa" "a"`` because the second position is gone once the first is merged.
    A position is merged only if it is alive and the pair there still has the bucket's rank (each rank belongs
    to one pair); stale positions are skipped. Should a merge create a pair of lower rank than the bucket's
    (possible in a hand-made merges file), that pair is merged before the rest of the bucket.

    >>> # "a" = 0, "b" = 1; merges ("a", "a") -> 2, then ("aa", "b") -> 3; ids below span 10.
    >>> _merge_long([0, 0, 0, 0, 1], {0 * 10 + 0: 0, 2 * 10 + 1: 1}, [2, 3], 10)
    [2, 3]

    Hot loop: one piece on purpose; the linked list, the buckets and the heap live in its locals, and a call per
    merged position would cost more than the merge.
    """
    n = len(ids)  # in ids (changed in place), -1 marks a symbol merged into the one before it
    following = list(range(1, n + 1))
    preceding = list(range(-1, n - 1))
    get = pair_ranks.get
    buckets: dict[int, list[int]] = {}
    for i, (left, right) in enumerate(itertools.pairwise(ids)):
        rank = get(left * span + right)
        if rank is not None:
            bucket = buckets.get(rank)
            if bucket is None:
                buckets[rank] = [i]
            else:
                bucket.append(i)
    ranks = list(buckets)
    heapq.heapify(ranks)
    pop, push = heapq.heappop, heapq.heappush
    while ranks:
        rank = pop(ranks)
        positions = buckets.pop(rank)
        positions.sort()
        merged = merged_ids[rank]
        lowest_new = rank  # the lowest rank this bucket's merges have created
        for index, i in enumerate(positions):
            left = ids[i]
            if left < 0:
                continue
            j = following[i]
            if j >= n or get(left * span + ids[j]) != rank:
                continue
            ids[i] = merged
            ids[j] = -1
            k = following[j]
            following[i] = k
            if k < n:
                preceding[k] = i
                after = get(merged * span + ids[k])
                if after is not None:
                    bucket = buckets.get(after)
                    if bucket is None:
                        buckets[after] = [i]
                        push(ranks, after)
                    else:
                        bucket.append(i)
                    if after < lowest_new:
                        lowest_new = after
            p = preceding[i]
            if p >= 0:
                before = get(ids[p] * span + merged)
                if before is not None:
                    bucket = buckets.get(before)
                    if bucket is None:
                        buckets[before] = [p]
                        push(ranks, before)
                    else:
                        bucket.append(p)
                    if before < lowest_new:
                        lowest_new = before
            if lowest_new < rank:
                # A merges file may rank a pair with the new token before the merge that makes it (trained files
                # never do): that pair goes first, as in the Rust model's queue; the rest of this bucket waits.
                rest = positions[index + 1 :]
                if rest:
                    buckets[rank] = rest
                    push(ranks, rank)
                break
    return [token_id for token_id in ids if token_id >= 0]
