"""``tokenizers``' ``Encoding``: one encoded row, with what maps its tokens back to words, sequences and characters.

:class:`Encoding` holds a row's ids, type ids, tokens, offsets, word ids, masks and the token range of each
sequence, under ``tokenizers``' Python names (``word_ids``, ``sequence_ids``, ``char_to_token``, ...), and does
to them what ``tokenizers/src/tokenizer/encoding.rs`` does: truncation into overflowing windows
(``Encoding::truncate``), merging a pair (``Encoding::merge_with``) and padding (``Encoding::pad``). Rows built
for ids only leave ``tokens`` and ``words`` as None (nothing is computed that a call does not read); every other
field is always there. What the rows are made of (the model, the special-token template) is left to the
transformers classes (:mod:`hf_bpe.transformers.rows`).
"""

from __future__ import annotations

from typing import Any

Span = tuple[int, int]


class Encoding:
    """One row as ``tokenizers``' ``Encoding`` holds it, with its overflowing windows.

    ``sequence_ranges`` maps a sequence index to its ``(start, stop)`` token range; empty, the whole row is sequence
    0 (``Encoding::sequence_range``).

    >>> first = Encoding([5, 6], offsets=[(0, 2), (3, 5)], tokens=["he", "Ġyo"], words=[0, 1])
    >>> first.set_sequence_id(0)
    >>> row = Encoding([1], special_tokens_mask=[1], tokens=["<s>"], words=[None]).merge_with(first)
    >>> row.sequence_ids, row.word_ids, row.char_to_token(3), row.word_to_chars(1), row.token_to_chars(0)
    ([None, 0, 0], [None, 0, 1], 2, (3, 5), None)
    """

    __slots__ = (
        "attention_mask", "ids", "offsets", "overflowing", "sequence_ranges", "special_tokens_mask", "tokens",
        "type_ids", "words",
    )  # fmt: skip

    def __init__(
        self,
        ids: list[int],
        type_ids: list[int] | None = None,
        special_tokens_mask: list[int] | None = None,
        offsets: list[Span] | None = None,
        attention_mask: list[int] | None = None,
        overflowing: list[Encoding] | None = None,
        *,
        tokens: list[str] | None = None,
        words: list[int | None] | None = None,
        sequence_ranges: dict[int, Span] | None = None,
    ) -> None:
        length = len(ids)
        self.ids = ids
        self.type_ids = type_ids if type_ids is not None else [0] * length
        self.special_tokens_mask = special_tokens_mask if special_tokens_mask is not None else [0] * length
        self.offsets = offsets if offsets is not None else [(0, 0)] * length
        self.attention_mask = attention_mask if attention_mask is not None else [1] * length
        self.overflowing = overflowing if overflowing is not None else []
        self.tokens = tokens
        self.words = words
        self.sequence_ranges = sequence_ranges if sequence_ranges is not None else {}

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return f"Encoding(num_tokens={len(self.ids)}, attributes=[ids, type_ids, tokens, offsets, attention_mask, ...])"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Encoding):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    # -- tokenizers' Python attributes ------------------------------------------------------------------------------

    @property
    def n_sequences(self) -> int:
        """How many sequences the row holds (``Encoding::n_sequences``)."""
        return len(self.sequence_ranges) or 1

    @property
    def word_ids(self) -> list[int | None]:
        """Each token's word: its pre-token's index in its sequence (the word's, for pre-split input); None for
        special and padding tokens.

        Raises:
            ValueError: on a row made for ids only (a bug: the transformers classes make full rows on demand).
        """
        return list(self._needed(self.words, "word_ids"))

    @property
    def sequence_ids(self) -> list[int | None]:
        """Each token's sequence index; None for those outside every sequence's range (``get_sequence_ids``, which
        marks sequences ``0 .. n_sequences``, a sequence without a range covering the row: a row holding sequence
        1's range only, a window of a pair merged without a post-processor, is all sequence 0)."""
        length = len(self.ids)
        if not self.sequence_ranges:
            return [0] * length
        out: list[int | None] = [None] * length
        for sequence in range(self.n_sequences):
            start, stop = self._range(sequence)
            out[start:stop] = [sequence] * (stop - start)
        return out

    def set_sequence_id(self, sequence_id: int) -> None:
        """Make the whole row sequence ``sequence_id`` (``Encoding::set_sequence_id``)."""
        self.sequence_ranges[sequence_id] = (0, len(self.ids))

    def _needed(self, values: list[Any] | None, name: str) -> list[Any]:
        if values is None:
            raise ValueError(f"this Encoding was made for ids only; its {name} were not computed")
        return values

    def _range(self, sequence_index: int) -> Span:
        return self.sequence_ranges.get(sequence_index, (0, len(self.ids)))

    # -- tokenizers' Python methods -----------------------------------------------------------------------------------

    def token_to_sequence(self, token_index: int) -> int | None:
        """The sequence holding token ``token_index`` (``Encoding::token_to_sequence``)."""
        if token_index > len(self.ids):
            return None
        if not self.sequence_ranges:
            return 0
        return next((seq for seq, (start, stop) in self.sequence_ranges.items() if start <= token_index < stop), None)

    def token_to_chars(self, token_index: int) -> Span | None:
        """The ``(start, end)`` characters of token ``token_index`` in its sequence's text; None for a token in no
        sequence (``Encoding::token_to_chars``)."""
        if self.token_to_sequence(token_index) is None or not 0 <= token_index < len(self.offsets):
            return None
        return self.offsets[token_index]

    def token_to_word(self, token_index: int) -> int | None:
        """The word of token ``token_index`` in its sequence (``Encoding::token_to_word``)."""
        words = self._needed(self.words, "word ids")
        if self.token_to_sequence(token_index) is None or not 0 <= token_index < len(words):
            return None
        return words[token_index]

    def word_to_tokens(self, word_index: int, sequence_index: int = 0) -> Span | None:
        """The ``(first, last + 1)`` tokens of word ``word_index`` of sequence ``sequence_index``: the tokens before
        the first word past it (``Encoding::word_to_tokens``)."""
        words = self._needed(self.words, "word ids")
        begin, end = self._range(sequence_index)
        if begin > end or end > len(words):
            return None
        found = []
        for index in range(begin, end):
            word = words[index]
            if word is not None and word > word_index:
                break  # Rust's take_while(w <= Some(word)): None sorts first, so only a later word stops it
            if word == word_index:
                found.append(index)
        return (found[0], found[-1] + 1) if found else None

    def word_to_chars(self, word_index: int, sequence_index: int = 0) -> Span | None:
        """The ``(start, end)`` characters of a word (``Encoding::word_to_chars``)."""
        tokens = self.word_to_tokens(word_index, sequence_index)
        if tokens is None or tokens[1] == 0:
            return None
        return self.offsets[tokens[0]][0], self.offsets[tokens[1] - 1][1]

    def char_to_token(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """The first token of sequence ``sequence_index`` whose characters hold ``char_pos``
        (``Encoding::char_to_token``)."""
        begin, end = self._range(sequence_index)
        if begin > end or end > len(self.offsets):
            return None
        for index in range(begin, end):
            start, stop = self.offsets[index]
            if start <= char_pos < stop:
                return index
        return None

    def char_to_word(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """The word holding character ``char_pos`` of sequence ``sequence_index`` (``Encoding::char_to_word``)."""
        token = self.char_to_token(char_pos, sequence_index)
        return None if token is None else self.token_to_word(token)

    # -- what tokenizers does to rows -------------------------------------------------------------------------------

    def slice(self, start: int, stop: int) -> Encoding:
        """Tokens ``start:stop``, no windows, no sequence ranges (a window of ``Encoding::truncate``)."""
        return Encoding(
            self.ids[start:stop],
            self.type_ids[start:stop],
            self.special_tokens_mask[start:stop],
            self.offsets[start:stop],
            self.attention_mask[start:stop],
            tokens=None if self.tokens is None else self.tokens[start:stop],
            words=None if self.words is None else self.words[start:stop],
        )

    def truncate(self, max_length: int, stride: int = 0, direction: str = "right") -> None:
        """Keep ``max_length`` tokens; the rest go to ``overflowing`` as windows overlapping by ``stride``
        (``Encoding::truncate``: the sequence ranges are dropped).

        Raises:
            ValueError: if ``stride`` is not smaller than ``max_length``.
        """
        length = len(self.ids)
        if max_length >= length:
            return
        if max_length == 0:
            whole = self.slice(0, length)
            whole.overflowing, whole.sequence_ranges = self.overflowing, self.sequence_ranges
            self._take(
                Encoding([], tokens=None if self.tokens is None else [], words=None if self.words is None else [])
            )
            self.overflowing = [whole]
            return
        if stride >= max_length:
            raise ValueError(
                f"stride={stride} must be smaller than the length truncated to ({max_length}: max_length less the "
                "special tokens added); choose a smaller stride"
            )
        windows = [self.slice(start, stop) for start, stop in _window_ranges(length, max_length, stride, direction)]
        self._take(windows[0])
        self.overflowing = windows[1:]

    def _take(self, other: Encoding) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(other, name))

    def merge_with(self, pair: Encoding) -> Encoding:
        """This row followed by ``pair`` (a new row; ``Encoding::merge_with`` without growing offsets): the pair's
        sequence ranges shifted past ours, and as windows every combination, each merged the same way (so that a
        window has windows of its own where both sides overflow): each of ours with the pair and with each of its
        windows, then ours with each of the pair's windows."""
        if self.words is None:
            # A row for ids only: its windows' own windows, which nothing reads, are left out (they cost a third of
            # the time of a batch of pairs that both overflow).
            windows = [mine._joined(theirs) for mine in self.overflowing for theirs in (pair, *pair.overflowing)]
            windows += [self._joined(theirs) for theirs in pair.overflowing]
        else:
            windows = [mine.merge_with(theirs) for mine in self.overflowing for theirs in (pair, *pair.overflowing)]
            windows += [self.merge_with(theirs) for theirs in pair.overflowing]
        result = self._joined(pair)
        result.overflowing = windows
        return result

    def _joined(self, pair: Encoding) -> Encoding:
        ranges = dict(self.sequence_ranges)
        if pair.sequence_ranges:
            shift = len(self.ids)
            ranges.update({seq: (a + shift, b + shift) for seq, (a, b) in pair.sequence_ranges.items()})
        return Encoding(
            self.ids + pair.ids,
            self.type_ids + pair.type_ids,
            self.special_tokens_mask + pair.special_tokens_mask,
            self.offsets + pair.offsets,
            self.attention_mask + pair.attention_mask,
            tokens=None if self.tokens is None or pair.tokens is None else self.tokens + pair.tokens,
            words=None if self.words is None or pair.words is None else self.words + pair.words,
            sequence_ranges=ranges,
        )

    def pad(self, length: int, pad_id: int | None, pad_type_id: int, pad_token: str, direction: str) -> None:
        """Pad to ``length`` tokens, the overflowing windows too (``Encoding::pad``); padding on the left moves the
        sequence ranges along, as tokenizers 0.23 does.

        Raises:
            ValueError: if padding is needed and there is no ``pad_id``.
        """
        for window in self.overflowing:
            window.pad(length, pad_id, pad_type_id, pad_token, direction)
        missing = length - len(self.ids)
        if missing <= 0:
            return
        if pad_id is None:
            raise ValueError("padding needs a pad token; set tokenizer.pad_token (e.g. to tokenizer.eos_token)")
        tokens = None if self.tokens is None else [pad_token] * missing
        words: list[int | None] | None = None if self.words is None else [None] * missing
        if direction == "left":
            self.ids = [pad_id] * missing + self.ids
            self.type_ids = [pad_type_id] * missing + self.type_ids
            self.special_tokens_mask = [1] * missing + self.special_tokens_mask
            self.offsets = [(0, 0)] * missing + self.offsets
            self.attention_mask = [0] * missing + self.attention_mask
            self.tokens = None if tokens is None or self.tokens is None else tokens + self.tokens
            self.words = None if words is None or self.words is None else words + self.words
            self.sequence_ranges = {s: (a + missing, b + missing) for s, (a, b) in self.sequence_ranges.items()}
        else:
            self.ids = self.ids + [pad_id] * missing
            self.type_ids = self.type_ids + [pad_type_id] * missing
            self.special_tokens_mask = self.special_tokens_mask + [1] * missing
            self.offsets = self.offsets + [(0, 0)] * missing
            self.attention_mask = self.attention_mask + [0] * missing
            self.tokens = None if tokens is None or self.tokens is None else self.tokens + tokens
            self.words = None if words is None or self.words is None else self.words + words


def _window_ranges(length: int, max_length: int, stride: int, direction: str) -> list[Span]:
    """The ``(start, stop)`` token ranges of ``Encoding::truncate``'s windows, the kept one first."""
    step = max_length - stride
    ranges: list[Span] = []
    if direction != "left":
        for start in range(0, length, step):
            stop = min(start + max_length, length)
            ranges.append((start, stop))
            if stop == length:
                break
    else:
        for last in range(length - 1, -1, -step):
            start = max(last + 1 - max_length, 0)
            ranges.append((start, last + 1))
            if start == 0:
                break
    return ranges


#: ``tokenizers``' truncation strategies, by their Python names (``TruncationStrategy``).
STRATEGIES = ("longest_first", "only_first", "only_second")


def stride_fits(max_length: int, stride: int, added: int) -> bool:
    """Whether ``stride`` leaves room in ``max_length`` less the ``added`` special tokens, as
    ``TokenizerImpl::with_truncation`` checks it: its subtraction is of unsigned integers, so a ``max_length``
    below ``added`` wraps around and passes.

    >>> stride_fits(8, 6, 2), stride_fits(8, 7, 2), stride_fits(1, 7, 2)
    (True, False, True)
    """
    return not 0 <= max_length - added < stride


def truncate_encodings(
    first: Encoding,
    pair: Encoding | None,
    max_length: int,
    stride: int,
    strategy: str,
    direction: str,
    *,
    added: int = 0,
) -> None:
    """Truncate a sequence or pair to ``max_length`` tokens in all, ``added`` special tokens included (those the
    post-processor adds after), the rest going to overflowing windows, as ``TokenizerImpl::post_process`` and
    ``truncate_encodings`` do (``strategy``: one of :data:`STRATEGIES`). Its ``max_length - added`` is of unsigned
    integers: a ``max_length`` below ``added`` wraps around to a length nothing reaches.

    Raises:
        ValueError: if the sequence to truncate is too short, or ``only_second`` is asked without a pair.

    >>> row = Encoding([1, 2, 3, 4, 5])
    >>> truncate_encodings(row, None, 3, 1, "longest_first", "right")
    >>> row.ids, [window.ids for window in row.overflowing]
    ([1, 2, 3], [[3, 4, 5]])
    """
    if max_length < added:
        return
    max_length -= added
    if max_length == 0:
        first.truncate(0, stride, direction)
        if pair is not None:
            pair.truncate(0, stride, direction)
        return
    total = len(first.ids) + (len(pair.ids) if pair is not None else 0)
    if total <= max_length:
        return
    to_remove = total - max_length
    if strategy == "longest_first":
        if pair is None:
            first.truncate(max_length, stride, direction)
            return
        n1, n2 = len(first.ids), len(pair.ids)
        swap = n1 > n2
        if swap:
            n1, n2 = n2, n1
        n2 = n1 if n1 > max_length else max(n1, max_length - n1)
        if n1 + n2 > max_length:
            n1 = max_length // 2
            n2 = n1 + max_length % 2
        if swap:
            n1, n2 = n2, n1
        first.truncate(n1, stride, direction)
        pair.truncate(n2, stride, direction)
        return
    if strategy not in STRATEGIES:
        raise ValueError(f"truncation strategy {strategy!r}: not one of {list(STRATEGIES)}")
    target = first if strategy == "only_first" else pair
    if target is None:
        raise ValueError("truncation strategy 'only_second' needs a second sequence (a pair); none was given")
    if len(target.ids) <= to_remove:
        raise ValueError(
            f"truncation strategy {strategy!r} cannot reach max_length={max_length}: the sequence it may cut has "
            f"{len(target.ids)} tokens and {to_remove} must go; use 'longest_first' or a larger max_length"
        )
    target.truncate(len(target.ids) - to_remove, stride, direction)


def padding_length(encodings: list[Encoding], length: int | None, pad_to_multiple_of: int | None) -> int | None:
    """The length ``tokenizers``' ``pad_encodings`` pads every row to: ``length`` (``Fixed``), else the longest
    row's (``BatchLongest``), rounded up to a multiple of ``pad_to_multiple_of``; None for no rows.

    >>> padding_length([Encoding([1, 2, 3]), Encoding([4])], None, 4)
    4
    """
    if not encodings:
        return None
    target = length if length is not None else max(len(encoding.ids) for encoding in encodings)
    if pad_to_multiple_of and target % pad_to_multiple_of:
        target += pad_to_multiple_of - target % pad_to_multiple_of
    return target
