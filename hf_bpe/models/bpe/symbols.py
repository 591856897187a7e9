"""``tokenizers``' BPE model on a word's own characters, as SentencePiece-converted files use it (Gemma, Mistral-7B,
Llama-2, Yi, InternLM2, Baichuan2, ChatGLM3): no byte-level alphabet; a character outside the vocabulary becomes
its UTF-8 bytes as ``<0xXX>`` tokens (``byte_fallback``) or the unknown token (runs of them fused into one with
``fuse_unk``); then merges apply by rank (:func:`hf_bpe.models.bpe.encoder.merge_by_rank`).
"""

from __future__ import annotations

import heapq
import itertools
import operator
import random
from collections.abc import Mapping, Sequence

from hf_bpe.models.bpe.encoder import CACHE_SIZE, id_merges, merge_ids, merge_ranks

#: One token of a word: its id and how many UTF-8 bytes of the word it stands for.
Piece = tuple[int, int]


class SymbolBPE:
    """The BPE model of a SentencePiece-style ``tokenizer.json``.

    Args:
        vocab: token to id.
        merges: ``(left, right)`` pairs in rank order.
        unk_token: what a character outside the vocabulary (and, with ``byte_fallback``, one of whose bytes has no
            ``<0xXX>`` token) becomes; None drops it, as the Rust model does.
        fuse_unk: consecutive unknown characters become one unknown token.
        byte_fallback: a character outside the vocabulary becomes its bytes' ``<0xXX>`` tokens where all exist.
        ignore_merges: a word in the vocabulary whole is that one token.
        dropout: each time a merge comes up, it is skipped with this probability (BPE-dropout, as the Rust model
            samples it: a skipped merge comes back after the next merge made); None or 0: no sampling.
        seed: the seed of the dropout's random numbers (None: from the system).

    Raises:
        ValueError: if ``unk_token`` or a merge's parts or result are not in ``vocab``.

    >>> model = SymbolBPE({"<unk>": 0, "▁": 1, "a": 2, "b": 3, "▁a": 4, "<0xC3>": 5, "<0xA9>": 6},
    ...                   [("▁", "a")], unk_token="<unk>", fuse_unk=True, byte_fallback=True)
    >>> model.tokenize("▁aébxx")
    [(4, 4), (5, 1), (6, 1), (3, 1), (0, 2)]
    """

    def __init__(
        self,
        vocab: Mapping[str, int],
        merges: Sequence[tuple[str, str]],
        *,
        unk_token: str | None = None,
        fuse_unk: bool = False,
        byte_fallback: bool = False,
        ignore_merges: bool = False,
        dropout: float | None = None,
        seed: int | None = None,
    ) -> None:
        self.vocab = dict(vocab)
        self.ranks = merge_ranks(self.vocab, merges)
        self._id_merges = id_merges(self.vocab, merges)
        self.id_to_token = {token_id: token for token, token_id in self.vocab.items()}
        if unk_token is not None and unk_token not in self.vocab:
            raise ValueError(f"the unknown token {unk_token!r} is not in the vocabulary")
        self.unk_token = unk_token
        self.fuse_unk = fuse_unk
        self.byte_fallback = byte_fallback
        self.ignore_merges = ignore_merges
        if dropout is not None and not 0.0 <= dropout <= 1.0:
            raise ValueError(f"dropout {dropout!r} is not a probability between 0 and 1")
        self.dropout = dropout or None
        self._random = random.Random(seed)
        self._bytes = {byte: self.vocab.get(f"<0x{byte:02X}>") for byte in range(256)}
        self._cache: dict[str, list[Piece]] = {}
        self._joins: frozenset[str] | None = None  # made on first use (see _parts)

    def tokenize(self, word: str) -> list[Piece]:
        """The tokens of one pre-token, as ``(id, UTF-8 bytes of the word it covers)``.

        A SentencePiece-style file has no pre-tokenizer that cuts words (its spaces are ``▁``): a whole text is one
        word. It is merged in parts, cut between two characters of the vocabulary that no merge's result holds
        side by side (no merge can cross there, so each part merges as it would in the whole), each part's tokens
        remembered.
        """
        vocab = self.vocab
        if self.ignore_merges and word in vocab:
            return [(vocab[word], len(word.encode("utf-8")))]
        if self.dropout is not None:  # each encoding is drawn anew: nothing is remembered
            return [piece for part in self._parts(word) for piece in self._merge(part)]
        cache = self._cache
        pieces: list[Piece] = []
        for part in self._parts(word):
            found = cache.get(part)
            if found is None:
                found = self._merge(part)
                if len(cache) >= CACHE_SIZE:
                    cache.clear()
                cache[part] = found
            pieces += found
        return pieces

    def _parts(self, word: str) -> list[str]:
        """``word`` cut wherever no merge can cross (see :meth:`tokenize`)."""
        if self._joins is None:
            found: set[str] = set()
            for left, right in self.ranks:
                result = left + right
                found.update(map(operator.add, result, result[1:]))  # its characters two by two, in C
            self._joins = frozenset(found)
        joins, vocab = self._joins, self.vocab
        cuts = [
            index
            for index, pair in enumerate(map(operator.add, word, word[1:]), start=1)
            if pair not in joins and pair[0] in vocab and pair[1] in vocab
        ]
        return [word[start:end] for start, end in itertools.pairwise([0, *cuts, len(word)])]

    def _merge(self, word: str) -> list[Piece]:
        """One part's tokens: its characters (or their byte tokens, or the unknown token), merged by rank."""
        vocab = self.vocab
        symbols: list[str] = []
        sizes: list[int] = []
        unknown = 0  # UTF-8 bytes of an unknown run waiting to be added (the Rust model's ``unk``); 0: none
        for char in word:
            size = len(char.encode("utf-8"))
            if char in vocab:
                if unknown:
                    symbols.append(str(self.unk_token))
                    sizes.append(unknown)
                    unknown = 0
                symbols.append(char)
                sizes.append(size)
                continue
            if self.byte_fallback:
                data = char.encode("utf-8")
                if all(self._bytes[byte] is not None for byte in data):
                    # As the Rust model: a pending unknown run is not added before the bytes.
                    symbols += [f"<0x{byte:02X}>" for byte in data]
                    sizes += [1] * len(data)
                    continue
            if self.unk_token is not None:
                if unknown and not self.fuse_unk:
                    symbols.append(self.unk_token)
                    sizes.append(unknown)
                    unknown = 0
                unknown += size
        if unknown:
            symbols.append(str(self.unk_token))
            sizes.append(unknown)
        ids = [vocab[symbol] for symbol in symbols]
        merged = merge_ids(list(ids), *self._id_merges) if self.dropout is None else self._dropped(list(ids))
        if len(merged) == len(symbols):
            return list(zip(ids, sizes, strict=True))
        # Each merged token is the concatenation of consecutive symbols: sum their sizes.
        pieces: list[Piece] = []
        at = 0
        for token_id in merged:
            wanted = len(self.id_to_token[token_id])
            length = 0
            size = 0
            while length < wanted:
                length += len(symbols[at])
                size += sizes[at]
                at += 1
            pieces.append((token_id, size))
        return pieces

    def _dropped(self, ids: list[int]) -> list[int]:
        """``ids`` merged with dropout, as ``Word::merge_all`` does: the merge of lowest rank (then leftmost) comes
        off a heap; with probability :attr:`dropout` it is set aside, else the ones set aside go back on the heap
        and it is made unless it went stale (a side already merged otherwise)."""
        pair_ranks, merged_ids, span = self._id_merges
        size = len(ids)
        following = list(range(1, size + 1))
        preceding = list(range(-1, size - 1))
        alive = [True] * size
        heap = [(pair_ranks[ids[i] * span + ids[i + 1]], i) for i in range(size - 1)
                if ids[i] * span + ids[i + 1] in pair_ranks]  # fmt: skip
        heapq.heapify(heap)
        skipped: list[tuple[int, int]] = []
        draw, dropout = self._random.random, self.dropout or 0.0
        while heap:
            top = heapq.heappop(heap)
            if draw() < dropout:
                skipped.append(top)
                continue
            for entry in skipped:
                heapq.heappush(heap, entry)
            skipped.clear()
            rank, i = top
            j = following[i]
            if not alive[i] or j >= size or pair_ranks.get(ids[i] * span + ids[j]) != rank:
                continue  # merged away, or the pair changed since it was pushed
            ids[i] = merged_ids[rank]
            alive[j] = False
            following[i] = following[j]
            if following[j] < size:
                preceding[following[j]] = i
            for left in (preceding[i], i):
                right = following[left] if left >= 0 else size
                if left >= 0 and right < size and ids[left] * span + ids[right] in pair_ranks:
                    heapq.heappush(heap, (pair_ranks[ids[left] * span + ids[right]], left))
        return [token_id for token_id, kept in zip(ids, alive, strict=True) if kept]

    def clear_cache(self) -> None:
        """Forget the tokens of the words met so far."""
        self._cache.clear()

    def __getstate__(self) -> dict[str, object]:
        state = self.__dict__.copy()
        state["_cache"] = {}
        return state
