"""The pipeline a ``tokenizer.json`` describes, run: normalizer -> pre-tokenizer -> model, and the decoder back.

:class:`Pipeline` holds one twin per stage (:mod:`~hf_bpe.pipeline.normalizers`,
:mod:`~hf_bpe.pipeline.pre_tokenizers`, :mod:`~hf_bpe.pipeline.processors`, :mod:`~hf_bpe.pipeline.decoders`) and
a model it knows only by :class:`Model`'s one method, so that it runs BPE, WordPiece, Unigram and WordLevel alike.
It encodes text with no added tokens in it, as ``tokenizers``' ``Tokenizer::encode_single_sequence`` does for each
stretch between them: each character's span in the original text follows the text through the normalizer and the
pre-tokenizer, and each token's offsets are the spans of the characters its bytes come from. Added tokens matched
in the raw text, the post-processor's special tokens, truncation and padding are the tokenizer's
(:mod:`hf_bpe.tokenizer`) and the transformers classes' (they build the rows).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import regex

from hf_bpe.pipeline.added_tokens import TokenFlags, added_token_spans, split_around, whole_tokens_pattern
from hf_bpe.pipeline.decoders import DecoderSequence
from hf_bpe.pipeline.normalizers import NormalizerSequence
from hf_bpe.pipeline.pre_tokenizers import ByteLevel, PreTokenizerSequence
from hf_bpe.pipeline.processors import PostProcessor


class Model(Protocol):
    """What the pipeline asks of a model: the tokens of one pre-token. (A model whose tokens may overlap in the
    text also has ``byte_spans(piece)``: ``(id, start, end)`` of each, in the piece's UTF-8 bytes; one that can
    give the ids alone faster, from a cache of words, has ``token_ids(piece)``, a list the caller does not change.)"""

    def tokenize(self, piece: str) -> list[tuple[int, int]]:
        """``(id, size)`` of each token of ``piece``, in order; ``size`` is how many of the piece's UTF-8 bytes
        the token stands for (a byte-fallback token one byte of a character, an unknown token all it covers)."""
        ...


@dataclasses.dataclass(frozen=True)
class Pipeline:
    """A ``tokenizer.json``'s stages (added tokens aside).

    >>> from hf_bpe.pipeline.pre_tokenizers import pre_tokenizer_from_json
    >>> class Chars:
    ...     def tokenize(self, piece):
    ...         return [(ord(char), len(char.encode())) for char in piece]
    >>> cut = pre_tokenizer_from_json({"type": "Split", "pattern": {"String": " "}, "behavior": "Removed",
    ...     "invert": False})
    >>> Pipeline(pre_tokenizer=cut, model=Chars()).encode_with_offsets("ab é")
    ([97, 98, 233], [(0, 1), (1, 2), (3, 4)])
    """

    model: Any
    normalizer: NormalizerSequence = dataclasses.field(default_factory=lambda: NormalizerSequence(()))
    pre_tokenizer: PreTokenizerSequence = dataclasses.field(default_factory=lambda: PreTokenizerSequence(()))
    post_processor: PostProcessor = dataclasses.field(default_factory=PostProcessor)
    decoder: DecoderSequence = dataclasses.field(default_factory=lambda: DecoderSequence(()))
    #: The added tokens matched in the normalized text (``normalized: true``), by their normalized content.
    normalized_added: Mapping[str, int] = dataclasses.field(default_factory=dict)
    #: Their ``single_word``, ``lstrip`` and ``rstrip`` flags, by the same content (none: no flag set).
    normalized_flags: Mapping[str, TokenFlags] = dataclasses.field(default_factory=dict)
    _added_pattern: regex.Pattern[str] | None = dataclasses.field(init=False, repr=False, compare=False)

    _span_free: bool = dataclasses.field(init=False, repr=False, compare=False)
    #: The span-free path's normalizer steps, cut and model call, looked up once (see :meth:`encode`).
    _str_path: tuple[list[Callable[[str], str]], Callable[[str], list[str]], Callable[[str], list[int]]] | None = (
        dataclasses.field(init=False, repr=False, compare=False)
    )
    #: Whether a token of :attr:`normalized_flags` has a flag set (then the flags cut the text).
    _flagged: bool = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_added_pattern", whole_tokens_pattern(self.normalized_added))
        span_free = self._added_pattern is None and not self.pre_tokenizer.reads_spans
        object.__setattr__(self, "_span_free", span_free)
        object.__setattr__(self, "_str_path", self._span_free_steps() if span_free else None)
        flagged = any(flag.single_word or flag.lstrip or flag.rstrip for flag in self.normalized_flags.values())
        object.__setattr__(self, "_flagged", flagged)

    def __getstate__(self) -> dict[str, Any]:
        # The span-free path holds functions made here (not picklable): made again from the stages on unpickling.
        return {**self.__dict__, "_str_path": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self._span_free:
            object.__setattr__(self, "_str_path", self._span_free_steps())

    def pieces(self, text: str, start: int = 0) -> list[tuple[str, list[tuple[int, int]], int | None]]:
        """The pre-tokens of ``text``, normalized, each with its characters' spans in the whole text ``text`` is
        the part of from ``start`` on (a part after an added token is not the text's first: ``Metaspace``'s
        ``prepend_scheme="first"`` leaves it alone, as the reference does), and the id of those that are an added
        token matched in the normalized text (None for the others). As ``AddedVocabulary::extract_and_normalize``
        does, those tokens cut the normalized text first, and the pre-tokenizer cuts each stretch between them.
        """
        normalized, spans = self.normalizer.normalize(text, [(i, i + 1) for i in range(start, start + len(text))])
        cut = self.pre_tokenizer.pre_tokenize
        if self._added_pattern is None:
            return [(piece, piece_spans, None) for piece, piece_spans in cut(normalized, spans)]
        out: list[tuple[str, list[tuple[int, int]], int | None]] = []
        if self._flagged:
            cuts = added_token_spans(normalized, self._added_pattern, self.normalized_flags.__getitem__)
        else:
            cuts = list(split_around(normalized, self._added_pattern))
        for begin, end, token in cuts:
            if token is not None:
                out.append((normalized[begin:end], spans[begin:end], self.normalized_added[token]))
            else:
                out += [
                    (piece, piece_spans, None) for piece, piece_spans in cut(normalized[begin:end], spans[begin:end])
                ]
        return out

    def encode(self, text: str, start: int = 0) -> list[int]:
        """The ids of ``text`` (no raw-matched added tokens in it; ``start``: see :meth:`pieces`).

        No offsets are asked for, so where no added token is matched in the normalized text and no pre-tokenizer
        step reads where the text is, the text goes through the stages without its characters' spans
        (``normalize_str``, ``pieces_str``, as ``tokenizers``' own span-free calls)."""
        if self._str_path is not None:
            steps, cut, ids_of = self._str_path
            for step in steps:
                text = step(text)
            out: list[int] = []
            for piece in cut(text):
                out += ids_of(piece)
            return out
        tokenize = self.model.tokenize
        if self._added_pattern is None:
            return [token_id for piece, _, _ in self.pieces(text, start) for token_id, _ in tokenize(piece)]
        return [
            token_id
            for piece, _, added in self.pieces(text, start)
            for token_id in ([added] if added is not None else [token_id for token_id, _ in tokenize(piece)])
        ]

    def encode_parts(self, parts: Sequence[str], added: Mapping[str, int]) -> list[int]:
        """The ids of a text cut around its raw-matched added tokens into ``parts``: text between tokens (maybe
        empty) and tokens in turn, as a capturing pattern's ``split`` gives them; a token's id in ``added``, the
        text as :meth:`encode` gives it (a stretch after the first starts where the parts before end).

        >>> class Chars:
        ...     def tokenize(self, piece):
        ...         return [(ord(char), len(char.encode())) for char in piece]
        >>> Pipeline(model=Chars()).encode_parts(["a", "<s>", "", "<s>", "b"], {"<s>": 1})
        [97, 1, 1, 98]
        """
        out: list[int] = []
        if self._str_path is None:
            start = 0
            for index, part in enumerate(parts):
                if index % 2:
                    out.append(added[part])
                elif part:
                    out += self.encode(part, start)
                start += len(part)
            return out
        steps, cut, ids_of = self._str_path  # encode's span-free path, inlined: no call a stretch
        for index, part in enumerate(parts):
            if index % 2:
                out.append(added[part])
            elif part:
                for step in steps:
                    part = step(part)
                for piece in cut(part):
                    out += ids_of(piece)
        return out

    def encode_spans(
        self, text: str, spans: Sequence[tuple[int, int, str | None]], added: Mapping[str, int]
    ) -> list[int]:
        """The ids of ``text`` cut around its raw-matched added tokens into ``spans`` (``(start, end, token or
        None)``, as :func:`~hf_bpe.pipeline.added_tokens.split_around` gives them): a token's id in ``added``, the
        text between as :meth:`encode` gives it. One call for the whole text, so that a text of many short
        stretches (a Gemma text is cut at each newline, an added token) costs no call chain per stretch.

        >>> class Chars:
        ...     def tokenize(self, piece):
        ...         return [(ord(char), len(char.encode())) for char in piece]
        >>> Pipeline(model=Chars()).encode_spans("a<s>b", [(0, 1, None), (1, 4, "<s>"), (4, 5, None)], {"<s>": 1})
        [97, 1, 98]
        """
        out: list[int] = []
        if self._str_path is None:
            for start, end, token in spans:
                if token is not None:
                    out.append(added[token])
                else:
                    out += self.encode(text[start:end], start)
            return out
        steps, cut, ids_of = self._str_path  # encode's span-free path, inlined: no call a stretch
        for start, end, token in spans:
            if token is not None:
                out.append(added[token])
                continue
            stretch = text[start:end]
            for step in steps:
                stretch = step(stretch)
            for piece in cut(stretch):
                out += ids_of(piece)
        return out

    def make_tables(self) -> None:
        """Make now the tables the model makes at its first word on the path :meth:`encode` takes (a batch shared
        out to forked processes makes them once, before the fork)."""
        make = getattr(self.model, "make_tables", None)
        if make is not None:
            steps = self.pre_tokenizer.steps
            make(unspelled=self._str_path is not None and bool(steps) and isinstance(steps[-1], ByteLevel))

    def _span_free_steps(
        self,
    ) -> tuple[list[Callable[[str], str]], Callable[[str], list[str]], Callable[[str], list[int]]]:
        """What :meth:`encode` runs on a text when it takes no spans along, looked up once, not per text: the
        normalizers' ``normalize_str`` steps, the pre-tokenizer's ``pieces_str`` (a lone step's own ``split_str``;
        no step: the text whole) and the model's ``token_ids`` (else its ``tokenize``'s ids)."""
        steps = self.pre_tokenizer.steps
        cut: Callable[[str], list[str]]
        if not steps:
            cut = _whole
        elif len(steps) == 1 and hasattr(steps[0], "split_str"):
            split_str = steps[0].split_str
            cut = lambda text: split_str(text) if text else []  # noqa: E731  # as pieces_str: no piece of ""
        else:
            cut = self.pre_tokenizer.pieces_str
        ids_of = getattr(self.model, "token_ids", None)
        if ids_of is None:
            tokenize = self.model.tokenize
            ids_of = lambda piece: [token_id for token_id, _ in tokenize(piece)]  # noqa: E731
        elif steps and isinstance(steps[-1], ByteLevel):
            raw_ids = getattr(self.model, "byte_level_ids", lambda: None)()
            if raw_ids is not None:
                cut, ids_of = self._unspelled_cut(steps), raw_ids
        return self.normalizer.str_steps(), cut, ids_of

    @staticmethod
    def _unspelled_cut(steps: tuple[Any, ...]) -> Callable[[str], list[str]]:
        """The span-free cut of steps ending in ``ByteLevel``, its pieces not yet spelled in the byte alphabet
        (:meth:`~hf_bpe.pipeline.pre_tokenizers.ByteLevel.unspelled`), for a model that takes them so (a byte-level
        BPE's ``byte_level_ids``: a piece met before is one look-up, with no spelling; GPT-2's, Llama-3's, Qwen's
        files)."""
        byte_level: ByteLevel = steps[-1]
        if len(steps) == 1:
            return byte_level.unspelled
        before = PreTokenizerSequence(steps[:-1]).pieces_str
        if not byte_level.use_regex:  # ByteLevel after Split steps (Llama-3's, Qwen's): no call a piece
            if byte_level.add_prefix_space:
                return lambda text: [piece if piece[0] == " " else " " + piece for piece in before(text) if piece]
            return lambda text: [piece for piece in before(text) if piece]
        return lambda text: [part for piece in before(text) for part in byte_level.unspelled(piece)]

    def encode_with_offsets(self, text: str, start: int = 0) -> tuple[list[int], list[tuple[int, int]]]:
        """The ids of ``text`` and each token's ``(start, end)`` in the whole text (see :meth:`pieces`): from the
        span of the character its first byte comes from to the end of the span of the character of its last
        byte."""
        ids: list[int] = []
        offsets: list[tuple[int, int]] = []
        for word_ids, word_offsets, _ in self.encode_words(text, start):
            ids += word_ids
            offsets += word_offsets
        return ids, offsets

    def encode_words(
        self, text: str, start: int = 0
    ) -> list[tuple[list[int], list[tuple[int, int]], list[str] | None]]:
        """Each pre-token of ``text`` (a word, in ``tokenizers``' ``Encoding``) as its ids, their offsets (see
        :meth:`encode_with_offsets`) and the tokens' names where they are not the vocabulary's: an added token
        matched in the normalized text is the text it took, a model with ``tokens(piece)`` (Unigram) names its
        own (``Model::tokenize``); None: the vocabulary's names of the ids."""
        out: list[tuple[list[int], list[tuple[int, int]], list[str] | None]] = []
        named = getattr(self.model, "tokens", None)
        for piece, spans, added in self.pieces(text, start):
            if added is not None:
                out.append(([added], [(spans[0][0], spans[-1][1])], [piece]))
                continue
            if piece.isascii():
                owner = spans
            else:
                owner = [span for char, span in zip(piece, spans, strict=True) for _ in char.encode("utf-8")]
            found = self._byte_spans(piece)
            ids = [token_id for token_id, _, _ in found]
            offsets = [(owner[begin][0], owner[end - 1][1]) for _, begin, end in found]
            out.append((ids, offsets, None if named is None else [token for _, token in named(piece)]))
        return out

    def _byte_spans(self, piece: str) -> list[tuple[int, int, int]]:
        """``(id, start, end)`` of each token of ``piece``, in the piece's UTF-8 bytes: the model's own where it
        gives them (Unigram's byte-fallback tokens each span the whole unknown stretch), else one after another."""
        spans = getattr(self.model, "byte_spans", None)
        if spans is not None:
            return list(spans(piece))
        out = []
        byte = 0
        for token_id, size in self.model.tokenize(piece):
            out.append((token_id, byte, byte + size))
            byte += size
        return out

    def decode(self, tokens: Sequence[str]) -> str:
        """The text of ``tokens`` (the decoder chain, then joined)."""
        return self.decoder.decode(tokens)


def _whole(text: str) -> list[str]:
    """A text that no pre-tokenizer cuts: one piece, none where it is empty (``PreTokenizerSequence.pieces_str``)."""
    return [text] if text else []
