"""What a BPE model is made of (its vocabulary and merges, as types) and how a char-level one is made."""

from __future__ import annotations

import dataclasses

#: Token (spelled with the byte-level alphabet, or plain characters for char-level BPE) to id.
Vocab = dict[str, int]
#: The merges in the order they apply, as ``merges.txt`` lists them.
Merges = list[tuple[str, str]]


@dataclasses.dataclass(frozen=True)
class CharLevel:
    """Char-level BPE (GPT-1 / Sennrich style) instead of byte-level: words split on white space, tokens spelled
    with the text's own characters, the last character of a word marked with a suffix.

    Attributes:
        end_of_word_suffix: glued to the last character of every word (``"</w>"``), or None.
        continuing_subword_prefix: glued to every character but a word's first (``"##"``), or None.
        lowercase: lowercase the text first.
    """

    end_of_word_suffix: str | None = "</w>"
    continuing_subword_prefix: str | None = None
    lowercase: bool = False
