"""Words to Unigram tokens, as ``tokenizers``' ``Unigram`` model encodes them (the pipeline normalizes and cuts
the text: :mod:`hf_bpe.pipeline.pipeline`).

Each word is cut by ``Unigram::encode_optimized``: the best path
over the pieces that occur in it, where the best path to a position keeps the first of equal candidates in the
order start position, then length, the unknown node last; a character with no one-character piece is an unknown
node scored ``min_score - 10``, and runs of unknown nodes are fused into one token (``fuse_unk``). A token's id
is its piece's, or the unknown id for a fused run that is not itself a piece (``Unigram::tokenize``). Words are
cached, as the reference caches them. Training is :mod:`.trainer`'s job; this module does not import it.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import cast

from hf_bpe.models.unigram.lattice import UNK_PENALTY

#: How many words each of the encoder's caches holds before it starts again (a bound on memory, never on results).
CACHE_SIZE = 100_000


class UnknownCharacterError(ValueError):
    """A character is not in the vocabulary and the model has no unknown token."""


class UnigramEncoder:
    """Viterbi encoding with a Unigram vocabulary.

    Args:
        pieces: ``(piece, score)`` in id order.
        unk_id: the unknown piece's id, or None.
        byte_fallback: an unknown stretch becomes its bytes' ``<0xXX>`` tokens (:meth:`tokenize`).

    >>> encoder = UnigramEncoder([("<unk>", 0.0), ("▁", -2.0), ("▁hug", -1.0), ("s", -3.0)], unk_id=0)
    >>> encoder.encode_word("▁hugs"), encoder.encode_word("▁xy")
    ([(2, '▁hug'), (3, 's')], [(1, '▁'), (0, 'xy')])
    """

    def __init__(
        self,
        pieces: Sequence[tuple[str, float]],
        unk_id: int | None,
        *,
        byte_fallback: bool = False,
    ) -> None:
        self.byte_fallback = byte_fallback
        self.pieces = list(pieces)
        self.unk_id = unk_id
        self.ids: dict[str, int] = {}
        min_score = float("inf")
        for index, (piece, score) in enumerate(self.pieces):
            self.ids[piece] = index
            if score < min_score:
                min_score = score
        # Every prefix of a piece, to the piece's id or -1 (a prefix only): one lookup per candidate substring.
        self.trie: dict[str, int] = {}
        for piece in self.ids:
            for end in range(1, len(piece)):
                self.trie.setdefault(piece[:end], -1)
        self.trie.update(self.ids)
        self.scores = [score for _, score in self.pieces]
        self.unk_score = min_score - UNK_PENALTY
        self._cache: dict[str, list[tuple[int, str]]] = {}
        self._sized_cache: dict[str, list[tuple[int, int]]] = {}  # :meth:`tokenize`'s, by word
        self._ids_cache: dict[str, list[int]] = {}  # :meth:`token_ids`', by word

    def clear_cache(self) -> None:
        """Forget the words met so far."""
        self._cache.clear()
        self._sized_cache.clear()
        self._ids_cache.clear()

    def __getstate__(self) -> dict[str, object]:
        # The cache is derived: a pickle (and datasets' fingerprint of a tokenizer) does not depend on what was
        # encoded before.
        return {**self.__dict__, "_cache": {}, "_sized_cache": {}, "_ids_cache": {}}

    def encode_word(self, word: str) -> list[tuple[int, str]]:
        """``(id, token)`` of one word (``Unigram::encode_optimized`` then ``Unigram::tokenize``).

        Raises:
            UnknownCharacterError: a character has no piece and there is no unknown id.
        """
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        best_start, best_id = self._best_path(word)
        unk_id = self.unk_id
        surfaces: list[str] = []
        unknown: list[str] = []
        end = len(word)
        while end > 0:
            start = best_start[end]
            if best_id[end] == unk_id:
                unknown.append(word[start:end])
            else:
                if unknown:
                    surfaces.append("".join(reversed(unknown)))
                    unknown = []
                surfaces.append(word[start:end])
            end = start
        if unknown:
            surfaces.append("".join(reversed(unknown)))
        surfaces.reverse()
        unk = unk_id if unk_id is not None else -1
        ids = self.ids
        result = [(ids.get(surface, unk), surface) for surface in surfaces]
        if len(self._cache) < CACHE_SIZE:
            self._cache[word] = result
        return result

    def _best_path(self, word: str) -> tuple[list[int], list[int]]:
        """The best path to each end position (``Unigram::encode_optimized``'s forward pass): its last node's start
        and id (the unknown id for an unknown node).

        Raises:
            UnknownCharacterError: a character has no piece and there is no unknown id.
        """
        n = len(word)
        get = self.trie.get
        scores = self.scores
        unk_id = self.unk_id
        unk_score = self.unk_score
        # Per end position: best score (-inf: no path yet), start, id. A candidate replaces the best only when it
        # scores higher, so the first of equal candidates stays (start position first, then length).
        best_score = [-math.inf] * (n + 1)
        best_score[0] = 0.0
        best_start = [0] * (n + 1)
        best_id = [0] * (n + 1)
        # Each position's one- and two-character candidates looked up in C: most positions start no longer piece.
        firsts = list(map(get, word))
        seconds = list(map(get, map(operator.add, word, word[1:])))
        seconds.append(None)
        for start, piece_id in enumerate(firsts):
            here = best_score[start]
            if piece_id is None or piece_id < 0:
                if unk_id is None:
                    raise UnknownCharacterError(
                        f"{word[start]!r} (U+{ord(word[start]):04X}) is not in the vocabulary and it has no unk "
                        "token; train with --unk-token"
                    )
                # No one-character piece: the unknown node (the last candidate from here; the others from here
                # end further on, so it is compared with the same ones as if it came last).
                score = unk_score + here
                piece_id = unk_id
            else:
                score = scores[piece_id] + here
            end = start + 1
            if score > best_score[end]:
                best_score[end] = score
                best_start[end] = start
                best_id[end] = piece_id
            piece_id = seconds[start]  # None where the character is no piece's prefix: nothing longer either
            while piece_id is not None:
                end += 1
                if piece_id >= 0:
                    score = scores[piece_id] + here
                    if score > best_score[end]:
                        best_score[end] = score
                        best_start[end] = start
                        best_id[end] = piece_id
                piece_id = get(word[start : end + 1]) if end < n else None
        return best_start, best_id

    def _path_ids(self, word: str) -> list[int]:
        """:meth:`tokenize`'s ids of a word, read off :meth:`_best_path` with no token texts made but the unknown
        runs' (fused as :meth:`encode_word` fuses them; their bytes' ids with :attr:`byte_fallback`)."""
        best_start, best_id = self._best_path(word)
        unk_id = self.unk_id
        out: list[int] = []
        end = len(word)
        unknown_end = -1  # where the unknown run being walked back over ends; -1: none
        while end > 0:
            token_id = best_id[end]
            if token_id == unk_id:
                if unknown_end < 0:
                    unknown_end = end
            else:
                if unknown_end >= 0:
                    out += reversed(self._unknown_ids(word[end:unknown_end]))
                    unknown_end = -1
                out.append(token_id)
            end = best_start[end]
        if unknown_end >= 0:
            out += reversed(self._unknown_ids(word[:unknown_end]))
        out.reverse()
        return out

    def _unknown_ids(self, surface: str) -> list[int]:
        """The ids of a fused unknown run (:meth:`encode_word`'s id for it, then :meth:`tokenize`'s bytes)."""
        token_id = self.ids.get(surface, -1 if self.unk_id is None else self.unk_id)
        return self._fallback(token_id, surface, surface.encode("utf-8")) or [token_id]

    def tokenize(self, word: str) -> list[tuple[int, int]]:
        """``(id, UTF-8 bytes of the word it covers)`` of each token of one word (the pipeline's model API); with
        :attr:`byte_fallback`, an unknown stretch is its bytes' ``<0xXX>`` tokens where all of them exist, as
        ``Unigram::encode`` does.

        >>> UnigramEncoder([("<unk>", 0.0), ("▁a", -1.0), ("<0xC3>", -5.0), ("<0xA9>", -5.0)], unk_id=0,
        ...     byte_fallback=True).tokenize("▁aé")
        [(1, 4), (2, 1), (3, 1)]
        """
        found = self._sized_cache.get(word)
        if found is not None:  # a word met before costs one look-up: the pipeline asks for every word of every text
            return list(found)  # the caller's to change, not the cache's
        out: list[tuple[int, int]] = []
        for token_id, surface in self.encode_word(word):
            encoded = surface.encode("utf-8")
            byte_ids = self._fallback(token_id, surface, encoded)
            out += [(byte_id, 1) for byte_id in byte_ids] if byte_ids else [(token_id, len(encoded))]
        if len(self._sized_cache) >= CACHE_SIZE:
            self._sized_cache.clear()
        self._sized_cache[word] = out
        return list(out)

    def token_ids(self, word: str) -> list[int]:
        """The ids of one word's tokens (:meth:`tokenize`'s), for the pipeline: a list the caller does not change.

        >>> UnigramEncoder([("<unk>", 0.0), ("▁a", -1.0)], unk_id=0).token_ids("▁aé")
        [1, 0]
        """
        found = self._ids_cache.get(word)
        if found is None:
            found = self._path_ids(word)
            if len(self._ids_cache) >= CACHE_SIZE:
                self._ids_cache.clear()
            self._ids_cache[word] = found
        return found

    def byte_spans(self, word: str) -> list[tuple[int, int, int]]:
        """``(id, start, end)`` of each token of one word, in its UTF-8 bytes: the byte-fallback tokens of an
        unknown stretch each span the whole stretch, as ``Unigram::encode`` gives them offsets.

        >>> UnigramEncoder([("<unk>", 0.0), ("▁a", -1.0), ("<0xC3>", -5.0), ("<0xA9>", -5.0)], unk_id=0,
        ...     byte_fallback=True).byte_spans("▁aé")
        [(1, 0, 4), (2, 4, 6), (3, 4, 6)]
        """
        out: list[tuple[int, int, int]] = []
        start = 0
        for token_id, surface in self.encode_word(word):
            encoded = surface.encode("utf-8")
            end = start + len(encoded)
            out += [(byte_id, start, end) for byte_id in self._fallback(token_id, surface, encoded) or [token_id]]
            start = end
        return out

    def tokens(self, word: str) -> list[tuple[int, str]]:
        """``(id, token)`` of each token of one word as ``Unigram::tokenize`` names them: a piece its own text, an
        unknown stretch the text it covers (not the unknown piece's name), a byte-fallback token ``<0xXX>``.

        >>> UnigramEncoder([("<unk>", 0.0), ("▁a", -1.0), ("<0xC3>", -5.0), ("<0xA9>", -5.0)], unk_id=0,
        ...     byte_fallback=True).tokens("▁aéü")
        [(1, '▁a'), (0, 'éü')]
        """
        out: list[tuple[int, str]] = []
        for token_id, surface in self.encode_word(word):
            byte_ids = self._fallback(token_id, surface, surface.encode("utf-8"))
            out += [(byte_id, self.pieces[byte_id][0]) for byte_id in byte_ids] if byte_ids else [(token_id, surface)]
        return out

    def _fallback(self, token_id: int, surface: str, encoded: bytes) -> list[int]:
        """The ``<0xXX>`` ids of an unknown stretch's bytes (``encoded``: ``surface`` in UTF-8), with byte fallback
        and all of them in the vocabulary (else none: the stretch stays the unknown token). A stretch that is a
        piece's text is that piece, the unknown piece's own text included (``Unigram::tokenize`` looks the text up
        first: "<unk>" in a word is the unknown piece, not its bytes)."""
        if token_id != self.unk_id or not self.byte_fallback or surface in self.ids:
            return []
        byte_ids = [self.ids.get(f"<0x{byte:02X}>") for byte in encoded]
        return [] if None in byte_ids else cast("list[int]", byte_ids)

    def to_json(self) -> dict[str, object]:
        """The model section of a ``tokenizer.json``."""
        return {
            "type": "Unigram",
            "unk_id": self.unk_id,
            "vocab": [[piece, score] for piece, score in self.pieces],
            "byte_fallback": self.byte_fallback,
        }
