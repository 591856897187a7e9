"""Added tokens: where they cut a text before any other stage sees it.

A tokenizer's added tokens (special or not) are matched whole in the raw text, the longest where several start at
one place and the leftmost first, as ``tokenizers``' ``AddedVocabulary`` does; the text between them goes on to
the normalizer. The flags of each token (``lstrip``, ``rstrip``, ``single_word``, ``normalized``) are the
transformers classes' to apply.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import regex


def whole_tokens_pattern(tokens: Iterable[str]) -> regex.Pattern[str] | None:
    """A pattern matching any of ``tokens`` whole, the longest where several start at one place (None: no tokens).

    >>> whole_tokens_pattern(["<s>", "<s><s>"]).findall("a<s><s><s>")
    ['<s><s>', '<s>']
    """
    trie: dict[str, Any] = {}
    for token in set(tokens):
        node = trie
        for char in token:
            node = node.setdefault(char, {})
        node[_END] = True
    return regex.compile(_trie_pattern(trie)) if trie else None


#: The key marking where a token ends in :func:`whole_tokens_pattern`'s trie (a key no single character equals).
_END = "end"


def _trie_pattern(node: dict[str, Any]) -> str:
    """The pattern of a trie of tokens: at each branch, the next characters as alternatives, and, where a token
    ends there, the rest optional. Greedy, it matches the longest token at a place, as an alternation of the
    tokens longest first does; but the regex engine follows one branch per character instead of trying every
    token at every position (Gemma's 6,000 added tokens: some 90 times faster)."""
    chain = ""
    while _END not in node and len(node) == 1:  # a run of single characters: no group needed
        char, node = next(iter(node.items()))
        chain += regex.escape(char)
    branches = [regex.escape(char) + _trie_pattern(child) for char, child in sorted(node.items()) if char != _END]
    if not branches:
        return chain
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return chain + (f"(?:{body})?" if _END in node else body)


def split_around(text: str, pattern: regex.Pattern[str] | None) -> Iterator[tuple[int, int, str | None]]:
    """``(start, end, token)`` spans covering ``text``: a whole match of ``pattern`` (``token`` is its text) or
    the non-empty text between matches (``token`` is None).

    >>> list(split_around("a<s>b", whole_tokens_pattern(["<s>"])))
    [(0, 1, None), (1, 4, '<s>'), (4, 5, None)]
    """
    start = 0
    for match in pattern.finditer(text) if pattern is not None else ():
        if match.start() > start:
            yield start, match.start(), None
        yield match.start(), match.end(), match.group()
        start = match.end()
    if start < len(text):
        yield start, len(text), None
