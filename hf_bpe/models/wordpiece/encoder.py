"""Words to WordPiece ids: greedy longest-match-first, as ``tokenizers``' ``WordPiece::tokenize`` does.

This module owns the model's one rule: from the start of a word, take the longest piece in the vocabulary
(spelled with the continuing-subword prefix after the first), then go on from where it ends. A word longer than
``max_input_chars_per_word`` characters, or with a place where no piece matches, is the unknown token as a whole.
Cutting text into words is :mod:`hf_bpe.pipeline.bert`'s job.
"""

from __future__ import annotations

from collections.abc import Mapping

#: Words kept in an encoder's cache (cleared when full).
CACHE_SIZE = 1 << 16


class WordPieceEncoder:
    """Greedy longest-match-first over a vocabulary.

    Args:
        vocab: token to id.
        unk_token: the unknown token (must be in ``vocab``).
        continuing_subword_prefix: the prefix of pieces that continue a word.
        max_input_chars_per_word: longer words are ``unk_token``.

    Raises:
        ValueError: if ``unk_token`` is not in ``vocab``.

    >>> encoder = WordPieceEncoder({"[UNK]": 0, "hug": 1, "##s": 2, "b": 3, "##u": 4, "##gs": 5})
    >>> encoder.encode_word("hugs"), encoder.encode_word("bugs"), encoder.encode_word("bum")
    ([1, 2], [3, 4, 5], [0])
    """

    def __init__(
        self,
        vocab: Mapping[str, int],
        *,
        unk_token: str = "[UNK]",
        continuing_subword_prefix: str = "##",
        max_input_chars_per_word: int = 100,
    ) -> None:
        if unk_token not in vocab:
            raise ValueError(f"unk_token {unk_token!r} is not in the vocabulary; add it or name another unk_token")
        self.vocab = vocab
        self.unk_id = vocab[unk_token]
        self.prefix = continuing_subword_prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        # The longest piece, in characters: no longer match is tried.
        self._longest = max(map(len, vocab), default=1)
        self._id_cache: dict[str, list[int]] = {}
        self._sized_cache: dict[str, list[tuple[int, int]]] = {}  # :meth:`tokenize`'s, by word

    def clear_cache(self) -> None:
        """Forget the words met so far."""
        self._id_cache.clear()
        self._sized_cache.clear()

    def __getstate__(self) -> dict[str, object]:
        # The caches are derived: a pickle (and datasets' fingerprint of a tokenizer) does not depend on what was
        # encoded before.
        return {**self.__dict__, "_id_cache": {}, "_sized_cache": {}}

    def token_ids(self, word: str) -> list[int]:
        """The ids of one word, for the pipeline (:meth:`encode_word`'s list: the caller does not change it)."""
        return self.encode_word(word)

    def encode_word(self, word: str) -> list[int]:
        """The ids of one word (cached on their own: most words of a text were met before)."""
        found = self._id_cache.get(word)
        if found is None:
            found = [token_id for token_id, _, _ in self._encode(word)]
            if len(self._id_cache) >= CACHE_SIZE:
                self._id_cache.clear()
            self._id_cache[word] = found
        return found

    def tokenize(self, word: str) -> list[tuple[int, int]]:
        """``(id, UTF-8 bytes of the word it covers)`` of each piece of one word (the pipeline's model API).

        >>> WordPieceEncoder({"[UNK]": 0, "é": 1, "##t": 2}).tokenize("ét")
        [(1, 2), (2, 1)]
        """
        found = self._sized_cache.get(word)
        if found is None:
            # A word met before costs one look-up: the pipeline asks for every word of every text.
            if word.isascii():
                found = [(token_id, end - start) for token_id, start, end in self._encode(word)]
            else:
                found = [
                    (token_id, len(word[start:end].encode("utf-8"))) for token_id, start, end in self._encode(word)
                ]
            if len(self._sized_cache) >= CACHE_SIZE:
                self._sized_cache.clear()
            self._sized_cache[word] = found
        return list(found)  # the caller's to change, not the cache's

    def to_json(self) -> dict[str, object]:
        """The model section of a ``tokenizer.json``."""
        return {
            "type": "WordPiece",
            "unk_token": next(token for token, token_id in self.vocab.items() if token_id == self.unk_id),
            "continuing_subword_prefix": self.prefix,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "vocab": dict(sorted(self.vocab.items(), key=lambda item: item[1])),
        }

    def _encode(self, word: str) -> list[tuple[int, int, int]]:
        size = len(word)
        unknown = [(self.unk_id, 0, size)]
        if size > self.max_input_chars_per_word:
            return unknown
        vocab = self.vocab
        prefix = self.prefix
        pieces: list[tuple[int, int, int]] = []
        start = 0
        while start < size:
            end = min(size, start + self._longest)
            while end > start:
                piece = word[start:end] if start == 0 else prefix + word[start:end]
                token_id = vocab.get(piece)
                if token_id is not None:
                    pieces.append((token_id, start, end))
                    break
                end -= 1
            else:
                return unknown
            start = end
        return pieces
