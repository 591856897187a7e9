"""Applying BPE merges to text: the encoder and decoder behind the transformers class, with no transformers in it.

:class:`BytePairEncoder` owns turning text into ids and ids back into text for a byte-level vocabulary: special
tokens matched whole, the split pattern, the byte-level spelling, and merges applied by rank (lowest first,
leftmost first on equal rank, so ``"aaa"`` becomes ``"aa" "a"``) exactly as the Rust ``tokenizers`` BPE model
and tiktoken apply them. A bounded cache remembers the ids of recent pre-tokens. Loading files is
:mod:`hf_bpe.files`' job; the transformers API is :mod:`hf_bpe.tokenizer`'s.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Mapping, Sequence

import regex

from hf_bpe.byte_level import GPT2_SPLIT_PATTERN, SplitPattern, from_byte_level, replace_surrogates, to_byte_level
from hf_bpe.files import Merges

#: Pre-tokens longer than this are merged with a heap over a linked list (n log n) instead of the simple loop.
LONG_PIECE = 16
#: How many distinct pre-tokens the cache remembers before it starts over.
CACHE_SIZE = 100_000


class BytePairEncoder:
    """Encode text to ids and decode ids to text with a byte-level BPE vocabulary.

    Args:
        vocab: token (byte-level spelling) to id.
        merges: merges in rank order.
        special_tokens: strings matched whole in the text and encoded as their own id (they must be in
            ``vocab``); the longest wins where two overlap.
        pattern: the split pattern.
        add_prefix_space: add a space before the text if it does not start with one.

    Raises:
        ValueError: if a merge's parts or result, or a special token, are not in ``vocab``.

    >>> encoder = BytePairEncoder({"a": 0, "b": 1, "ab": 2, "Ġ": 3, "Ġab": 4}, [("a", "b"), ("Ġ", "ab")])
    >>> encoder.encode("ab ab aab")
    [2, 4, 3, 0, 2]
    >>> encoder.decode([2, 4, 3, 0, 2])
    'ab ab aab'
    """

    def __init__(
        self,
        vocab: Mapping[str, int],
        merges: Merges,
        *,
        special_tokens: Iterable[str] = (),
        pattern: str = GPT2_SPLIT_PATTERN,
        add_prefix_space: bool = False,
    ) -> None:
        self.vocab = dict(vocab)
        self.id_to_token = {i: t for t, i in self.vocab.items()}
        self.ranks: dict[tuple[str, str], int] = {}
        for rank, (left, right) in enumerate(merges):
            for token in (left, right, left + right):
                if token not in self.vocab:
                    raise ValueError(f"merge {rank + 1} ({left} {right}): {token!r} is not in the vocabulary")
            self.ranks.setdefault((left, right), rank)
        self.split = SplitPattern(pattern)
        self.add_prefix_space = add_prefix_space
        self.special_tokens: dict[str, int] = {}
        self._special_pattern: regex.Pattern[str] | None = None
        self.set_special_tokens(special_tokens)
        self._cache: dict[str, list[int]] = {}

    def set_special_tokens(self, tokens: Iterable[str]) -> None:
        """Match these strings whole in text (each must be in the vocabulary)."""
        specials = {}
        for token in tokens:
            if token not in self.vocab:
                raise ValueError(f"special token {token!r} is not in the vocabulary")
            specials[token] = self.vocab[token]
        self.special_tokens = specials
        ordered = sorted(specials, key=lambda t: (-len(t), t))
        self._special_pattern = regex.compile("|".join(map(regex.escape, ordered))) if ordered else None

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``; special tokens in it are matched whole.

        Raises:
            TypeError: if ``text`` is not a string.
        """
        if not isinstance(text, str):
            raise TypeError(f"expected a string to encode, got {type(text).__name__}: {text!r:.60}")
        text = replace_surrogates(text)
        if self.add_prefix_space and not text.startswith(" "):
            text = " " + text
        if self._special_pattern is None:
            return self.encode_ordinary(text)
        ids: list[int] = []
        start = 0
        for match in self._special_pattern.finditer(text):
            if match.start() > start:
                ids += self.encode_ordinary(text[start : match.start()])
            ids.append(self.special_tokens[match.group()])
            start = match.end()
        if start < len(text):
            ids += self.encode_ordinary(text[start:])
        return ids

    def encode_ordinary(self, text: str) -> list[int]:
        """The ids of ``text`` with no special-token matching (``text`` must have no lone surrogates)."""
        cache = self._cache
        ids: list[int] = []
        extend = ids.extend
        for piece in self.split.findall(text):
            hit = cache.get(piece)
            if hit is None:
                hit = self._encode_piece(piece)
                if len(cache) >= CACHE_SIZE:
                    cache.clear()
                cache[piece] = hit
            extend(hit)
        return ids

    def _encode_piece(self, piece: str) -> list[int]:
        spelled = to_byte_level(piece)
        vocab = self.vocab
        parts = _merge_long(spelled, self.ranks) if len(spelled) > LONG_PIECE else _merge(spelled, self.ranks)
        return [vocab[part] for part in parts]

    def decode_bytes(self, ids: Sequence[int], *, skip_special_tokens: bool = False) -> bytes:
        """The bytes ``ids`` stand for (special tokens as their UTF-8 text).

        Raises:
            KeyError: naming an id not in the vocabulary.
        """
        out = bytearray()
        specials = self.special_tokens
        for token_id in ids:
            token = self.id_to_token.get(token_id)
            if token is None:
                raise KeyError(f"id {token_id} is not in the vocabulary")
            if token in specials:
                if not skip_special_tokens:
                    out += token.encode("utf-8")
            else:
                out += from_byte_level(token)
        return bytes(out)

    def decode(self, ids: Sequence[int], *, errors: str = "replace", skip_special_tokens: bool = False) -> str:
        """The text ``ids`` stand for; invalid UTF-8 is handled by ``errors`` (as in ``bytes.decode``)."""
        return self.decode_bytes(ids, skip_special_tokens=skip_special_tokens).decode("utf-8", errors)

    def clear_cache(self) -> None:
        self._cache.clear()

    def __getstate__(self) -> dict[str, object]:
        # The cache is a speed-up, not state: pickles (and datasets' fingerprints) must not depend on what was
        # encoded before.
        state = self.__dict__.copy()
        state["_cache"] = {}
        return state


def _merge(word: str, ranks: Mapping[tuple[str, str], int]) -> list[str]:
    """Apply merges to a short word: repeatedly merge every occurrence of the lowest-ranked pair, left to right."""
    parts = list(word)
    get = ranks.get
    while len(parts) > 1:
        best = None
        best_rank = None
        for pair in itertools.pairwise(parts):
            rank = get(pair)
            if rank is not None and (best_rank is None or rank < best_rank):
                best, best_rank = pair, rank
        if best is None:
            break
        left, right = best
        merged: list[str] = []
        i = 0
        n = len(parts)
        while i < n:
            if i < n - 1 and parts[i] == left and parts[i + 1] == right:
                merged.append(left + right)
                i += 2
            else:
                merged.append(parts[i])
                i += 1
        parts = merged
    return parts


def _merge_long(word: str, ranks: Mapping[tuple[str, str], int]) -> list[str]:
    """Apply merges to a long word in O(n log n): a heap of (rank, position) over a doubly linked list.

    Equal ranks pop leftmost first, which merges ``"aaa"`` as ``"aa" "a"``, like the simple loop.
    """
    n = len(word)
    parts = list(word)  # "" marks a symbol merged into the one before it
    following = list(range(1, n + 1))
    preceding = list(range(-1, n - 1))
    get = ranks.get
    heap: list[tuple[int, int, str, str]] = []
    for i in range(n - 1):
        rank = get((word[i], word[i + 1]))
        if rank is not None:
            heap.append((rank, i, word[i], word[i + 1]))
    heapq.heapify(heap)
    while heap:
        _rank, i, left, right = heapq.heappop(heap)
        j = following[i]
        # Stale if either side changed since the entry was pushed (symbols only grow, so equal means unchanged).
        if parts[i] != left or j >= n or parts[j] != right:
            continue
        merged = left + right
        parts[i] = merged
        parts[j] = ""
        k = following[j]
        following[i] = k
        if k < n:
            preceding[k] = i
        p = preceding[i]
        if p >= 0:
            rank = get((parts[p], merged))
            if rank is not None:
                heapq.heappush(heap, (rank, p, parts[p], merged))
        if k < n:
            rank = get((merged, parts[k]))
            if rank is not None:
                heapq.heappush(heap, (rank, i, merged, parts[k]))
    return [part for part in parts if part]
