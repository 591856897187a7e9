"""``tokenizers``' WordLevel model: each pre-token is one token, looked up whole.

A pre-token the vocabulary lacks is the unknown token; with no unknown token in the vocabulary, the Rust model
refuses to encode it (``WordLevel error: Missing [UNK] token from the vocabulary``), and so does this one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class MissingUnknownToken(ValueError):
    """A pre-token outside the vocabulary, and no unknown token to stand for it."""


class WordLevel:
    """The WordLevel model of a ``tokenizer.json``.

    Args:
        vocab: token to id.
        unk_token: what a pre-token outside the vocabulary becomes.

    >>> model = WordLevel({"[UNK]": 0, "hello": 1}, unk_token="[UNK]")
    >>> model.tokenize("hello"), model.tokenize("héllo")
    ([(1, 5)], [(0, 6)])
    """

    def __init__(self, vocab: Mapping[str, int], *, unk_token: str = "<unk>") -> None:
        self.vocab = dict(vocab)
        self.unk_token = unk_token
        self.unk_id = self.vocab.get(unk_token)

    def tokenize(self, piece: str) -> list[tuple[int, int]]:
        """The one token of ``piece``: ``(id, UTF-8 bytes)``.

        Raises:
            MissingUnknownToken: ``piece`` is not in the vocabulary and the unknown token is not either.
        """
        token_id = self.vocab.get(piece, self.unk_id)
        if token_id is None:
            raise MissingUnknownToken(
                f"{piece!r} is not in the vocabulary and neither is the unknown token {self.unk_token!r}"
            )
        return [(token_id, len(piece.encode("utf-8")))]

    def to_json(self) -> dict[str, Any]:
        """The model section of a ``tokenizer.json``."""
        return {
            "type": "WordLevel",
            "vocab": dict(sorted(self.vocab.items(), key=lambda item: item[1])),
            "unk_token": self.unk_token,
        }
