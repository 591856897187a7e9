"""``tokenizers``' BPE model on a word's own characters: SentencePiece-converted files (Gemma, Mistral-7B, Llama-2, Yi,
InternLM2, Baichuan2, ChatGLM3) and char-level files with subword affixes (``CharBPETokenizer``'s ``</w>``, BERT-like
``##``). No byte-level alphabet: each character is a symbol (``##`` before all but a word's first, ``</w>`` after
its last, where set); a symbol outside the vocabulary becomes its UTF-8 bytes as ``<0xXX>`` tokens
(``byte_fallback``) or the unknown token (runs of them fused into one with ``fuse_unk``); then merges apply by rank
(:func:`hf_bpe.models.bpe.encoder.merge_by_rank`). Cutting the text into words is the pre-tokenizer's job.
"""

from __future__ import annotations

import heapq
import itertools
import operator
import random
from collections.abc import Callable, Mapping, Sequence
from typing import cast

from hf_bpe.models.bpe.encoder import (
    CACHE_SIZE,
    LONG_PIECE,
    BytePairEncoder,
    _forget_older_half,
    id_merges,
    merge_ids,
)
from hf_bpe.models.bpe.options import MergePairs
from hf_bpe.pipeline.byte_level import BYTE_TO_UNICODE

#: SentencePiece's space (U+2581), which Metaspace and Llama-2's Replace normalizer put for " ".
META = "\u2581"
#: Parts of a word up to this many characters are remembered whole (a longer one only in its own parts).
LONG_PART = 64
#: One token of a word: its id and how many UTF-8 bytes of the word it stands for.
Piece = tuple[int, int]
#: What :func:`~hf_bpe.models.bpe.encoder.id_merges` makes: ``(pair_ranks, merged_ids, span)``.
IdMerges = tuple[dict[int, int], list[int], int]


class SymbolBPE:
    """The BPE model of a ``tokenizer.json`` that is not byte-level.

    Args:
        vocab: token to id.
        merges: ``(left, right)`` pairs in rank order.
        unk_token: what a character outside the vocabulary (and, with ``byte_fallback``, one of whose bytes has no
            ``<0xXX>`` token) becomes; None drops it, as the Rust model does.
        continuing_subword_prefix: put before each character of a word but its first (``"##"``); a merge's
            result is its left part, then its right part without as many bytes as the prefix has.
        end_of_word_suffix: put after a word's last character (``"</w>"``).
        fuse_unk: consecutive unknown characters become one unknown token.
        byte_fallback: a character outside the vocabulary becomes its bytes' ``<0xXX>`` tokens where all exist
            (the bytes of the character with its prefix and suffix, as the Rust model spells it).
        ignore_merges: a word in the vocabulary whole (as it is, with no affix) is that one token; not with
            dropout, as in the Rust model.
        dropout: each time a merge comes up, it is skipped with this probability (BPE-dropout, as the Rust model
            samples it: a skipped merge comes back after the next merge made); None or 0: no sampling.
        seed: the seed of the dropout's random numbers (None: from the system).

    Raises:
        ValueError: if ``unk_token`` or a merge's parts or result are not in ``vocab``.

    >>> model = SymbolBPE({"<unk>": 0, "▁": 1, "a": 2, "b": 3, "▁a": 4, "<0xC3>": 5, "<0xA9>": 6},
    ...                   [("▁", "a")], unk_token="<unk>", fuse_unk=True, byte_fallback=True)
    >>> model.tokenize("▁aébxx")
    [(4, 4), (5, 1), (6, 1), (3, 1), (0, 2)]
    >>> words = SymbolBPE({"l": 0, "##o": 1, "##w</w>": 2, "##o</w>": 3, "lo": 4, "low</w>": 5, "lo</w>": 6},
    ...                   [("l", "##o"), ("lo", "##w</w>"), ("l", "##o</w>")],
    ...                   continuing_subword_prefix="##", end_of_word_suffix="</w>")
    >>> words.tokenize("low"), words.tokenize("lo")
    ([(5, 3)], [(6, 2)])
    """

    def __init__(
        self,
        vocab: Mapping[str, int],
        merges: Sequence[tuple[str, str]],
        *,
        unk_token: str | None = None,
        continuing_subword_prefix: str | None = None,
        end_of_word_suffix: str | None = None,
        fuse_unk: bool = False,
        byte_fallback: bool = False,
        ignore_merges: bool = False,
        dropout: float | None = None,
        seed: int | None = None,
    ) -> None:
        self.vocab = dict(vocab)
        self.continuing_subword_prefix = continuing_subword_prefix
        self.end_of_word_suffix = end_of_word_suffix
        self._ranks: dict[tuple[str, str], int] | None = None
        if continuing_subword_prefix:
            self._ranks, self._id_merges = prefixed_merges(self.vocab, merges, continuing_subword_prefix)
        else:
            self._id_merges = plain_merges(self.vocab, merges)
        # For :attr:`ranks`, made on first use: a copy, or a file's read-only MergePairs as they are (Gemma-3's
        # 514,000 tuples, and the collector's pass over them, were a tenth of its load).
        self._merges = merges if isinstance(merges, MergePairs) else list(merges)
        self.id_to_token = {token_id: token for token, token_id in self.vocab.items()}
        if unk_token is not None and unk_token not in self.vocab:
            raise ValueError(f"the unknown token {unk_token!r} is not in the vocabulary")
        self.unk_token = unk_token
        self._unk_id = None if unk_token is None else self.vocab[unk_token]
        self.fuse_unk = fuse_unk
        self.byte_fallback = byte_fallback
        self.ignore_merges = ignore_merges
        if dropout is not None and not 0.0 <= dropout <= 1.0:
            raise ValueError(f"dropout {dropout!r} is not a probability between 0 and 1")
        self.dropout = dropout or None
        self._random = random.Random(seed)
        self._bytes = [self.vocab.get(f"<0x{byte:02X}>") for byte in range(256)]
        self._cache: dict[str, list[Piece]] = {}
        self._ids_cache: dict[str, list[int]] = {}  # :meth:`token_ids`', by part
        self._joins: frozenset[str] | None = None  # made on first use (see _parts)
        self._joined_ids: frozenset[int] | None = None  # made on first use (see _parts)
        self._merges_bytes: bool | None = None  # found on first use (see _bytes_merge)
        self._cut_before_meta: frozenset[str] | None = None  # made on first use (see _meta_parts)
        self._chars: dict[str, int] | None = None  # made on first use (see _single_chars)
        self._byte_level: BytePairEncoder | bool | None = None  # made on first use (see byte_level_ids)
        # Where every byte has its token (else None: see _char_symbols); filled as characters are met.
        self._by_char = None if None in self._bytes else _CharSymbols(self.vocab, cast("list[int]", self._bytes))

    @property
    def ranks(self) -> dict[tuple[str, str], int]:
        """Each merge's rank by its ``(left, right)`` pair (a pair listed twice: its last rank), made on first use:
        encoding needs only the id tables, and Gemma's 580,000 merges would take a second more to load."""
        if self._ranks is None:
            pairs = ((left, right) for left, right in self._merges)
            self._ranks = dict(zip(pairs, range(len(self._merges)), strict=True))
        return self._ranks

    def byte_level_ids(self) -> Callable[[str], list[int]] | None:
        """The ids of a pre-token given before its byte-level spelling (``ByteLevel``'s piece as cut, not spelled),
        where this model is a plain byte-level BPE: every byte's character in the vocabulary, no affix, no dropout
        (so no unknown token or byte fallback can come up). The pipeline's span-free path then spells only the
        pieces it has not met (GPT-2's, Llama-3's, Qwen's files): a
        :class:`~hf_bpe.models.bpe.encoder.BytePairEncoder` on this model's id tables, whose cache is keyed by the
        piece as cut and which cuts a non-ASCII piece between characters no merge joins. None where this model is
        not such a BPE."""
        if self._affixes or self.dropout is not None:
            return None
        if self._byte_level is None:
            plain = all(BYTE_TO_UNICODE[byte] in self.vocab for byte in range(256))
            self._byte_level = (
                BytePairEncoder(self.vocab, self._merges, ignore_merges=self.ignore_merges, id_tables=self._id_merges)
                if plain
                else False
            )
        return self._byte_level.encode_pre_token if isinstance(self._byte_level, BytePairEncoder) else None

    def make_tables(self, unspelled: bool = False) -> None:
        """Make now the tables the first word would make (a batch shared out to forked processes makes them once,
        before the fork): those of :meth:`byte_level_ids`' encoder where the pipeline hands this model its pieces
        unspelled, else :meth:`_first_word_tables`."""
        ids_of = self.byte_level_ids() if unspelled else None
        if ids_of is not None:
            cast("BytePairEncoder", ids_of.__self__).make_tables()  # type: ignore[attr-defined]
        else:
            self._first_word_tables()

    @property
    def _affixes(self) -> bool:
        return bool(self.continuing_subword_prefix or self.end_of_word_suffix)

    def tokenize(self, word: str) -> list[Piece]:
        """The tokens of one pre-token, as ``(id, UTF-8 bytes of the word it covers)``.

        With dropout, each word is merged anew and whole, ``ignore_merges`` aside (the Rust model's ``tokenize``
        goes straight to ``merge_word`` then). With affixes, a word is merged whole and remembered. Else (a
        SentencePiece-style file, whose whole text may be one word: no pre-tokenizer cuts it) it is merged in parts,
        cut between two characters of the vocabulary that no merge's result holds side by side (no merge can cross
        there, so each part merges as it would in the whole), each part's tokens remembered.

        (With ``byte_fallback`` and affixes, a character's byte tokens count the bytes of its prefix and suffix too,
        each one byte of the word, as in the Rust model: the tokens after it stand for bytes further on.)
        """
        if not word:
            return []
        if self.dropout is not None:
            return self._merge_heap(*self._symbols(word))
        vocab = self.vocab
        if self.ignore_merges and word in vocab:
            return [(vocab[word], len(word.encode("utf-8")))]
        cache = self._cache
        if self._affixes:
            found = cache.get(word)
            if found is None:
                found = self._merge_heap(*self._symbols(word))
                if len(cache) >= CACHE_SIZE:
                    cache.clear()
                cache[word] = found
            return list(found)  # the caller's to change, not the cache's
        pieces: list[Piece] = []
        for part in self._meta_parts(word):
            found = cache.get(part)
            pieces += found if found is not None else self._part_pieces(part)
        return pieces

    def token_ids(self, word: str) -> list[int]:
        """:meth:`tokenize`'s ids alone, for the pipeline: each part's ids remembered on their own (a list the caller
        does not change)."""
        if not word or self.dropout is not None or self._affixes or (self.ignore_merges and word in self.vocab):
            return [token_id for token_id, _ in self.tokenize(word)]
        cache = self._ids_cache
        ids: list[int] = []
        for part in self._meta_parts(word):
            found = cache.get(part)
            if found is None:
                found = self._part_ids(part)
                if len(part) <= LONG_PART:
                    if len(cache) >= CACHE_SIZE:
                        # Not emptied: the parts met lately stay (BytePairEncoder's rule). Emptying it merged ~4% more
                        # parts on the benchmark's 5 MB mix (Gemma-3 121,987 -> 116,864, Mistral-7B 122,955 -> 118,680).
                        _forget_older_half(cache)
                    cache[part] = found
            ids += found
        return ids

    def _part_ids(self, part: str) -> list[int]:
        """A part's ids alone (:meth:`token_ids` on a part not met before): its symbols' ids merged, with no sizes
        worked out; a long part is cut first (:meth:`_long_part_ids`), and so is one with a character outside the
        vocabulary where no merge takes a byte token (:meth:`_bytes_merge`). Such a character is its bytes'
        ``<0xXX>`` tokens where every byte has one (no unknown token can come up then), as :meth:`_symbols` spells
        it; else the part goes :meth:`_part_pieces`' way."""
        chars = list(map(self._single_chars().get, part, itertools.repeat(-1)))
        if -1 not in chars:
            if len(chars) > LONG_PIECE:
                return self._long_part_ids(part, chars, None)
            return merge_ids(chars, *self._id_merges)
        by_char = self._char_symbols
        if by_char is None:
            return [token_id for token_id, _ in self._part_pieces(part)]
        if len(part) > LONG_PIECE or not self._bytes_merge():
            return self._long_part_ids(part, chars, by_char)
        return merge_ids(list(itertools.chain.from_iterable(map(by_char.__getitem__, part))), *self._id_merges)

    def _long_part_ids(self, part: str, chars: list[int], by_char: _CharSymbols | None) -> list[int]:
        """:meth:`_part_ids` of a long part, given its characters' ids (-1: outside the vocabulary, then spelled by
        ``by_char``): cut as :meth:`_parts` cuts (the pairs looked up in C), each piece's ids remembered under its
        text as a part's are (a piece is merged whole either way, so one cache serves both). Beside a character
        outside the vocabulary, cut only where no merge takes a byte token (:meth:`_bytes_merge`): its byte tokens
        are then never merged, and the text on either side merges on its own (Mistral-7B's CJK text, most of whose
        characters are bytes, merges as pieces met before instead of as runs of a hundred symbols). A piece of one
        character is its own id, or its bytes' ids (no merge takes them where it was cut off), with no look-up:
        two in five of Gemma-3's pieces on the benchmark's mix, three in four of Mistral-7B's."""
        span = self._id_merges[2]
        keys = map(operator.add, map(operator.mul, chars, itertools.repeat(span)), chars[1:])
        joined = self._id_joins()
        cuts = list(itertools.compress(range(1, len(chars)), map(operator.not_, map(joined.__contains__, keys))))
        if by_char is not None and self._bytes_merge():
            cuts = [cut for cut in cuts if chars[cut - 1] >= 0 and chars[cut] >= 0]
        cuts.append(len(chars))
        cache = self._ids_cache
        ids: list[int] = []
        start = 0
        for end in cuts:
            if end - start == 1:
                token_id = chars[start]
                if token_id >= 0:
                    ids.append(token_id)
                else:
                    ids += by_char[part[start]]  # type: ignore[index]  # -1 only where by_char spells it
                start = end
                continue
            piece = part[start:end]
            found = cache.get(piece)
            if found is None:
                symbols = chars[start:end]
                if by_char is not None and -1 in symbols:
                    symbols = list(itertools.chain.from_iterable(map(by_char.__getitem__, piece)))
                found = merge_ids(symbols, *self._id_merges)
                if end - start <= LONG_PART:
                    if len(cache) >= CACHE_SIZE:
                        _forget_older_half(cache)
                    cache[piece] = found
            ids += found
            start = end
        return ids

    def _single_chars(self) -> dict[str, int]:
        """The vocabulary's tokens of one character, by text (made on first use): a part's characters are looked up
        in this small table (Gemma-3's 19,000 of its 262,000 tokens), whose entries stay in the CPU's caches."""
        if self._chars is None:
            self._chars = {token: token_id for token, token_id in self.vocab.items() if len(token) == 1}
        return self._chars

    def _bytes_merge(self) -> bool:
        """Whether a merge takes a byte token (``<0x00>`` to ``<0xFF>``) as a part, found on first use: in C, the
        merges' parts against the 256 names. SentencePiece's converted files never merge bytes (Llama-2,
        Mistral-7B, Gemma-3): a character spelled by them is cut off on both sides."""
        if self._merges_bytes is None:
            names = frozenset(f"<0x{byte:02X}>" for byte in range(256))
            self._merges_bytes = not names.isdisjoint(itertools.chain.from_iterable(self._merges))
        return self._merges_bytes

    @property
    def _char_symbols(self) -> _CharSymbols | None:
        """Each character's symbol ids as :meth:`_symbols` spells them with no affix, where ``byte_fallback`` is set
        and every byte has its ``<0xXX>`` token (None otherwise: an unknown token may come up)."""
        return self._by_char if self.byte_fallback else None

    def _part_pieces(self, part: str) -> list[Piece]:
        """A part's tokens (see :meth:`tokenize`): those of its own parts, each remembered, and the part's too where
        it is not long."""
        cache = self._cache
        found = cache.get(part)
        if found is None:
            found = []
            for sub in self._parts(part):
                merged = cache.get(sub)
                if merged is None:
                    merged = self._merge(sub)
                    self._remember(sub, merged)
                found += merged
            if len(part) <= LONG_PART:
                self._remember(part, found)
        return found

    def _remember(self, part: str, pieces: list[Piece]) -> None:
        """Keep a part's tokens, the cache emptied when full (bounded: a text of any size, any number of calls)."""
        cache = self._cache
        if len(cache) >= CACHE_SIZE:
            cache.clear()
        cache[part] = pieces

    @property
    def byte_spans(self) -> Callable[[str], list[tuple[int, int, int]]] | None:
        """Where the tokens' bytes may run past the word (byte fallback with affixes): ``(id, start, end)`` of each
        token in the word's UTF-8 bytes, those past its end put on its last byte. The Rust backend reads such
        offsets in the whole text instead (``PreTokenizedString::into_encoding``): hf_bpe's offsets differ there."""
        return self._byte_spans if self.byte_fallback and self._affixes else None

    def _byte_spans(self, word: str) -> list[tuple[int, int, int]]:
        length = len(word.encode("utf-8"))
        spans = []
        start = 0
        for token_id, size in self.tokenize(word):
            end = min(start + size, length)
            spans.append((token_id, min(start, end - 1), end))
            start += size
        return spans

    def _meta_parts(self, word: str) -> list[str]:
        """``word`` cut before each ``▁`` (SentencePiece's space, U+2581) where :meth:`_parts` would cut too: the
        character before it is in the vocabulary and no merge's result holds it and ``▁`` side by side (a vocabulary
        with ``▁▁`` or ``a▁`` keeps those together). A cut of :meth:`_parts` found by ``str.split`` in C, so that a
        word met before costs one look-up in the cache, not one per character."""
        safe = self._cut_before_meta
        if safe is None:
            safe = self._first_word_tables()
        if not safe or META not in word:
            return [word]
        chunks = word.split(META)
        parts = []
        part = chunks[0]
        for chunk in itertools.islice(chunks, 1, None):
            if part and part[-1] in safe:
                parts.append(part)
                part = META + chunk
            else:
                part += META + chunk
        parts.append(part)
        return parts

    def _first_word_tables(self) -> frozenset[str]:
        """Every table a part may need made at once, at the first word (:meth:`_meta_parts`' cuts before ``▁``, the
        pairs of :meth:`_id_joins`, :meth:`_bytes_merge`), not each when a part first needs it: a batch shared out
        to forked processes makes them once, before the fork (``encode_texts`` encodes a first text there), where a
        child making them again paid Gemma-3's ~0.3 s per process."""
        joins = self._pair_joins()
        self._id_joins()
        self._bytes_merge()
        self._cut_before_meta = frozenset(
            token for token in self._single_chars() if token + META not in joins and META in self.vocab
        )
        return self._cut_before_meta

    def _pair_joins(self) -> frozenset[str]:
        """Every two characters side by side in a merge's result (made on first use)."""
        if self._joins is None:
            found: set[str] = set()
            id_to_token = self.id_to_token
            for result in set(self._id_merges[1]):
                token = id_to_token[result]
                found.update(map(operator.add, token, token[1:]))  # its characters two by two, in C
            self._joins = frozenset(found)
        return self._joins

    def _id_joins(self) -> frozenset[int]:
        """:meth:`_pair_joins` of two characters of the vocabulary, each as ``left * span + right`` of their ids."""
        if self._joined_ids is None:
            vocab, span = self.vocab, self._id_merges[2]
            self._joined_ids = frozenset(
                vocab[pair[0]] * span + vocab[pair[1]]
                for pair in self._pair_joins()
                if pair[0] in vocab and pair[1] in vocab
            )
        return self._joined_ids

    def _parts(self, word: str) -> list[str]:
        """``word`` cut wherever no merge can cross (see :meth:`tokenize`): between two characters of the vocabulary
        that no merge's result holds side by side. The pairs are looked up as ids, in C; a character outside the
        vocabulary is id -1 there, whose pairs are no merge's (a candidate cut beside it is then dropped)."""
        if len(word) < 3:
            return [word]
        ids = list(map(self.vocab.get, word, itertools.repeat(-1)))
        keys = map(operator.add, map(operator.mul, ids, itertools.repeat(self._id_merges[2])), ids[1:])
        joined = self._id_joins()
        cuts = list(itertools.compress(range(1, len(word)), map(operator.not_, map(joined.__contains__, keys))))
        if -1 in ids:
            cuts = [cut for cut in cuts if ids[cut - 1] >= 0 and ids[cut] >= 0]
        return [word[start:end] for start, end in itertools.pairwise([0, *cuts, len(word)])]

    def _symbols(self, word: str) -> tuple[list[int], list[int]]:
        """A word's symbols before any merge, as ``BPE::merge_word`` adds them: ids and UTF-8 bytes of the word
        each stands for. Each character is spelled with its affixes; spelled so, it is a token, else its bytes'
        tokens (each one byte), else part of an unknown run."""
        prefix, suffix = self.continuing_subword_prefix or "", self.end_of_word_suffix or ""
        spelled: Sequence[str] = word
        if word and (prefix or suffix):
            spelled = [word[0], *[prefix + char for char in word[1:]]]
            spelled[-1] += suffix
        get, unk_id = self.vocab.get, self._unk_id
        ids: list[int] = []
        sizes: list[int] = []
        unknown = 0  # UTF-8 bytes of an unknown run waiting to be added (the Rust model's ``unk``); 0: none
        for char, symbol in zip(word, spelled, strict=True):
            token_id = get(symbol)
            if token_id is not None:
                if unknown:
                    ids.append(unk_id)  # type: ignore[arg-type]  # a run is only counted with an unknown token
                    sizes.append(unknown)
                    unknown = 0
                ids.append(token_id)
                sizes.append(len(char.encode("utf-8")))
                continue
            if self.byte_fallback:
                found = [self._bytes[byte] for byte in symbol.encode("utf-8")]
                if None not in found:
                    # As the Rust model: a pending unknown run is not added before the bytes.
                    ids += found  # type: ignore[arg-type]
                    sizes += [1] * len(found)
                    continue
            if unk_id is not None:
                if unknown and not self.fuse_unk:
                    ids.append(unk_id)
                    sizes.append(unknown)
                    unknown = 0
                unknown += len(char.encode("utf-8"))
        if unknown:
            ids.append(unk_id)  # type: ignore[arg-type]
            sizes.append(unknown)
        return ids, sizes

    def _merge(self, word: str) -> list[Piece]:
        """One part's tokens (no affixes, no dropout): its symbols merged by rank, on the encoder's fast loops."""
        found = list(map(self.vocab.get, word))
        if None not in found:
            # Every character a token: each token made is the text of its characters, its size that text's.
            id_to_token = self.id_to_token
            merged = merge_ids(cast("list[int]", found), *self._id_merges)
            if word.isascii():
                return [(token_id, len(id_to_token[token_id])) for token_id in merged]
            return [(token_id, len(id_to_token[token_id].encode("utf-8"))) for token_id in merged]
        ids, sizes = self._symbols(word)
        merged = merge_ids(list(ids), *self._id_merges)
        if len(merged) == len(ids):
            return list(zip(ids, sizes, strict=True))
        # Each merged token is the concatenation of consecutive symbols: sum their sizes.
        id_to_token = self.id_to_token
        pieces: list[Piece] = []
        at = 0
        for token_id in merged:
            wanted = len(id_to_token[token_id])
            length = 0
            size = 0
            while length < wanted:
                length += len(id_to_token[ids[at]])
                size += sizes[at]
                at += 1
            pieces.append((token_id, size))
        return pieces

    def _merge_heap(self, ids: list[int], sizes: list[int]) -> list[Piece]:
        """A word's symbols merged as ``Word::merge_all`` does, sizes carried along: the merge of lowest rank (then
        leftmost) comes off a heap; with probability :attr:`dropout` it is set aside, else the ones set aside go
        back on the heap and it is made unless it went stale (a side already merged away, or the pair there now
        makes another token). A merge's result need not spell its parts (a prefix comes off the right one), so
        each token's size is added up here, not read off its text."""
        pair_ranks, merged_ids, span = self._id_merges
        size = len(ids)
        following = list(range(1, size + 1))
        preceding = list(range(-1, size - 1))
        heap = [(pair_ranks[ids[i] * span + ids[i + 1]], i) for i in range(size - 1)
                if ids[i] * span + ids[i + 1] in pair_ranks]  # fmt: skip
        heapq.heapify(heap)
        skipped: list[tuple[int, int]] = []
        draw, dropout = self._random.random, self.dropout
        while heap:
            top = heapq.heappop(heap)
            if dropout is not None and draw() < dropout:
                skipped.append(top)
                continue
            for entry in skipped:
                heapq.heappush(heap, entry)
            skipped.clear()
            rank, i = top
            j = following[i]
            if not sizes[i] or j >= size:
                continue  # merged away, or the word's last symbol now
            now = pair_ranks.get(ids[i] * span + ids[j])
            if now is None or merged_ids[now] != merged_ids[rank]:
                continue  # the pair changed since it was pushed (the Rust model compares the tokens made)
            ids[i] = merged_ids[rank]
            sizes[i] += sizes[j]
            sizes[j] = 0
            following[i] = following[j]
            if following[j] < size:
                preceding[following[j]] = i
            for left in (preceding[i], i):
                right = following[left] if left >= 0 else size
                if right < size and ids[left] * span + ids[right] in pair_ranks:
                    heapq.heappush(heap, (pair_ranks[ids[left] * span + ids[right]], left))
        return [(token_id, bytes_) for token_id, bytes_ in zip(ids, sizes, strict=True) if bytes_]

    def clear_cache(self) -> None:
        """Forget the tokens of the words met so far."""
        self._cache.clear()
        self._ids_cache.clear()

    def __getstate__(self) -> dict[str, object]:
        # What text taught it (caches) and the tables made at its first word are no state: a pickle (and datasets'
        # fingerprint of a tokenizer) must not depend on what was encoded before, nor on the process (sets of str
        # pickle in their hash order; without dropout no random number is drawn, so the generator's seed is none).
        state = self.__dict__.copy()
        state["_cache"] = {}
        state["_ids_cache"] = {}
        for table in ("_joins", "_joined_ids", "_merges_bytes", "_cut_before_meta", "_chars", "_byte_level"):
            state[table] = None
        if self.dropout is None:
            state["_random"] = None
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        if self._random is None:
            self._random = random.Random()


class _CharSymbols(dict[str, tuple[int, ...]]):
    """A character's symbol ids (its token's id, else its UTF-8 bytes' ``<0xXX>`` ids), worked out on first use:
    ``map(symbols.__getitem__, text)`` runs in C for every character met before."""

    def __init__(self, vocab: Mapping[str, int], byte_ids: Sequence[int]) -> None:
        super().__init__()
        self._vocab = vocab
        self._byte_ids = byte_ids

    def __reduce__(self) -> tuple[type[_CharSymbols], tuple[Mapping[str, int], Sequence[int]]]:
        return (_CharSymbols, (self._vocab, self._byte_ids))  # pickled empty: the characters met are no state

    def __missing__(self, char: str) -> tuple[int, ...]:
        token_id = self._vocab.get(char)
        found = (token_id,) if token_id is not None else tuple(self._byte_ids[byte] for byte in char.encode("utf-8"))
        if len(self) < CACHE_SIZE:
            self[char] = found
        return found


def plain_merges(vocab: Mapping[str, int], merges: Sequence[tuple[str, str]]) -> IdMerges:
    """:func:`~hf_bpe.models.bpe.encoder.id_merges`'s tables (made in C, one pass over the merges per list).

    Raises:
        ValueError: naming the first merge whose parts or result are not in ``vocab``
            (:func:`~hf_bpe.models.bpe.encoder.merge_ranks`'s message).

    >>> plain_merges({"a": 0, "b": 1, "ab": 2}, [("a", "b")])
    ({1: 0}, [2], 259)
    """
    return id_merges(vocab, merges)


def prefixed_merges(
    vocab: Mapping[str, int], merges: Sequence[tuple[str, str]], prefix: str
) -> tuple[dict[tuple[str, str], int], IdMerges]:
    """Merges' ranks and id tables (as :func:`~hf_bpe.models.bpe.encoder.merge_ranks` and
    :func:`~hf_bpe.models.bpe.encoder.id_merges` make them) where a merge's result is its left part, then its right
    part less as many leading UTF-8 bytes as ``prefix`` has, as ``BpeBuilder::build`` makes it (whether or not the
    right part starts with the prefix).

    Raises:
        ValueError: naming a merge whose parts or result are not in ``vocab``, or whose right part is shorter
            than the prefix (the Rust model panics there).

    >>> prefixed_merges({"a": 0, "##b": 1, "ab": 2}, [("a", "##b")], "##")
    ({('a', '##b'): 0}, ({1: 0}, [2], 259))
    """
    strip = len(prefix.encode("utf-8"))
    span = max(vocab.values(), default=0) + 257
    ranks: dict[tuple[str, str], int] = {}
    pair_ranks: dict[int, int] = {}
    merged_ids: list[int] = []
    for rank, (left, right) in enumerate(merges):
        where = f"merge {rank + 1} ({left} {right})"
        for token in (left, right):
            if token not in vocab:
                raise ValueError(f"{where}: {token!r} is not in the vocabulary")
        rest = right.encode("utf-8")[strip:]
        if len(right.encode("utf-8")) < strip:
            raise ValueError(f"{where}: the right part is shorter than the continuing subword prefix {prefix!r}")
        try:
            result = left + rest.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{where}: cutting {prefix!r}'s {strip} bytes off {right!r} cuts a character") from None
        if result not in vocab:
            raise ValueError(f"{where}: {result!r} is not in the vocabulary")
        ranks[left, right] = rank
        pair_ranks[vocab[left] * span + vocab[right]] = rank
        merged_ids.append(vocab[result])
    return ranks, (pair_ranks, merged_ids, span)
