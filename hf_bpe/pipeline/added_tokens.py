"""Added tokens: where they cut a text before any other stage sees it.

A tokenizer's added tokens (special or not) are matched whole in the raw text, the longest where several start at
one place and the leftmost first, as ``tokenizers``' ``AddedVocabulary`` does; the text between them goes on to
the normalizer. :func:`added_token_spans` applies each token's ``lstrip``, ``rstrip`` and ``single_word`` flags
(:class:`AddedToken` holds them); which tokens are matched in the raw text and which in the normalized one
(``normalized``) is the tokenizer's to decide.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Collection, Iterable
from typing import Any, Protocol, cast

import regex


class TokenFlags(Protocol):
    """What :func:`added_token_spans` reads of an added token (transformers' and ``tokenizers``' ``AddedToken``
    alike)."""

    @property
    def single_word(self) -> bool: ...
    @property
    def lstrip(self) -> bool: ...
    @property
    def rstrip(self) -> bool: ...


@dataclasses.dataclass(frozen=True)
class AddedToken:
    """``tokenizers.AddedToken``: an added token's content and flags, as a ``tokenizer.json``'s ``added_tokens``
    entry gives them (its ``id`` aside)."""

    content: str
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False
    normalized: bool = True
    special: bool = False


def whole_tokens_pattern(tokens: Iterable[str]) -> regex.Pattern[str] | None:
    """A pattern matching any of ``tokens`` whole, the longest where several start at one place (None: no tokens).
    Its one group is the whole match, so ``pattern.split(text)`` alternates text between tokens and tokens.

    >>> whole_tokens_pattern(["<s>", "<s><s>"]).findall("a<s><s><s>")
    ['<s><s>', '<s>']
    >>> whole_tokens_pattern(["<s>", "<s><s>"]).split("a<s><s><s>")
    ['a', '<s><s>', '', '<s>', '']
    """
    return _compiled_pattern(frozenset(tokens))


@functools.lru_cache(maxsize=16)
def _compiled_pattern(tokens: frozenset[str]) -> regex.Pattern[str] | None:
    """:func:`whole_tokens_pattern`, compiled once per set of tokens: every tokenizer loaded from one file shares
    it (Gemma's 6,415 added tokens take 0.1 s to compile; a compiled pattern is never changed)."""
    trie: dict[str, Any] = {}
    for token in tokens:
        node = trie
        for char in token:
            node = node.setdefault(char, {})
        node[_END] = True
    return regex.compile(f"({_trie_pattern(trie)})") if trie else None


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


def split_around(
    text: str, pattern: regex.Pattern[str] | None, *, skip: Collection[str] = ()
) -> list[tuple[int, int, str | None]]:
    """``(start, end, token)`` spans covering ``text``: a whole match of ``pattern`` (``token`` is its text) or
    the non-empty text between matches (``token`` is None). A match in ``skip`` is text (see
    :func:`added_token_spans`).

    >>> split_around("a<s>b", whole_tokens_pattern(["<s>"]))
    [(0, 1, None), (1, 4, '<s>'), (4, 5, None)]
    """
    # A list, not a generator: callers read every span, and a Gemma text has two a line (its "\n" is added).
    spans: list[tuple[int, int, str | None]] = []
    append = spans.append
    start = 0
    for match in pattern.finditer(text) if pattern is not None else ():
        begin, end = match.span()
        if skip and match.group() in skip:
            continue
        if begin > start:
            append((start, begin, None))
        append((begin, end, match.group()))
        start = end
    if start < len(text):
        append((start, len(text), None))
    return spans


#: Rust regex's ``\s`` and ``\w`` (Unicode's White_Space; Alphabetic, marks, digits, connectors, joiners), what
#: ``AddedVocabulary::find_matches`` strips and takes for a word character.
_SPACES_AT_END = regex.compile(r"\p{White_Space}*\Z")
_SPACES_AT_START = regex.compile(r"\p{White_Space}*")
_WORD_CHAR = regex.compile(r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]")


def added_token_spans(
    text: str, pattern: regex.Pattern[str], flags_of: Callable[[str], TokenFlags], *, skip: Collection[str] = ()
) -> list[tuple[int, int, str | None]]:
    """``text`` cut around the added tokens as ``AddedVocabulary::find_matches`` cuts it, with their flags
    (``flags_of(token)``): a ``single_word`` token touching a word character is no match (the text goes on after
    it, not inside it), an ``lstrip`` token takes the white space before it (not what the previous token took) and
    an ``rstrip`` token the white space after it. ``(start, end, token or None)``, covering ``text``. A match of
    a token in ``skip`` is no match either: ``split_special_tokens`` skips the special tokens' matches, found
    with all the others (``encode_special_tokens``), so a special token still hides another it overlaps.

    >>> flags = {"<m>": AddedToken("<m>", lstrip=True, rstrip=True)}
    >>> added_token_spans("a  <m> b", whole_tokens_pattern(flags), flags.__getitem__)
    [(0, 1, None), (1, 7, '<m>'), (7, 8, None)]
    """
    spans: list[tuple[int, int, str | None]] = []
    done = 0
    for match in pattern.finditer(text):
        start, stop, token = match.start(), match.end(), match.group()
        if skip and token in skip:
            continue
        flags = flags_of(token)
        if flags.single_word and (
            (start > 0 and _WORD_CHAR.match(text, start - 1)) or (stop < len(text) and _WORD_CHAR.match(text, stop))
        ):
            continue
        if flags.lstrip:
            start = max(cast(regex.Match[str], _SPACES_AT_END.search(text, done, start)).start(), done)
        if flags.rstrip:
            stop = cast(regex.Match[str], _SPACES_AT_START.match(text, stop)).end()
        if done < start:
            spans.append((done, start, None))
        spans.append((start, stop, token))
        done = stop
    if done < len(text):
        spans.append((done, len(text), None))
    return spans
