"""The base of hf_bpe's transformers classes: the Rust backend's ``BatchEncoding``, built from each model's ids.

:class:`EncodingRowsTokenizer` is a ``PreTrainedTokenizer`` (transformers v5's ``PythonBackend``) whose
``__call__`` gives what ``TokenizersBackend`` gives for the same files: each text (or each word, with
``is_split_into_words``) is encoded by the subclass's :meth:`~EncodingRowsTokenizer.encode_text` (and
:meth:`~EncodingRowsTokenizer.encode_text_with_offsets`), into rows shaped like ``tokenizers``' ``Encoding``
(:class:`~hf_bpe.pipeline.encoding.Encoding`); truncation with overflowing windows, the special-token template,
pairs and padding are done on those rows, in the order ``Tokenizer.encode`` and ``encode_batch`` do them. The
``BatchEncoding`` carries an ``Encoding`` per row (:class:`RowEncodings`, made when first read), so that
``word_ids()``, ``sequence_ids()``, ``char_to_token()``, ... give the Rust backend's. The common ``tok(texts)``
call skips transformers' per-token Python loop. A subclass owns its model: its files, its encoder, its
special-token template (:meth:`~EncodingRowsTokenizer.special_tokens_template`), the pre-tokens words are counted
by (:meth:`~EncodingRowsTokenizer.stretch_words`), decoding and saving. :func:`file_defaults` gives a
``tokenizer.json``'s truncation and padding sections the effect transformers gives them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import regex

from hf_bpe.collector import collector_paused
from hf_bpe.pipeline.added_tokens import added_token_spans, split_around, whole_tokens_pattern
from hf_bpe.pipeline.encoding import Encoding, padding_length, stride_fits, truncate_encodings
from hf_bpe.pipeline.processors import Types, post_process
from hf_bpe.processes import fork_processes, resident_gib, run_forked
from hf_bpe.transformers._import import quiet_transformers_import

with quiet_transformers_import():
    from transformers import AddedToken, BatchEncoding, PreTrainedTokenizer
    from transformers.tokenization_utils_base import PaddingStrategy, TruncationStrategy

#: How deep this thread is in transformers' own encoding path (:meth:`EncodingRowsTokenizer._fallback_encode_plus`).
_FALLBACK = threading.local()
#: ``(before A, after A, before B, after B)``: the special-token ids a template puts around each sequence.
Template = tuple[list[int], list[int], list[int], list[int]]

#: A batch's texts are shared out to forked processes only where each gets at least this many characters (some
#: 50 ms of encoding; a fork of a small process and the ids sent back cost a few milliseconds), and as many more
#: for each GiB this process holds (a fork copies its page tables: some 17 ms per GiB).
FORK_MIN_CHARS = 100_000
#: Each process gets this many stripes of consecutive texts, taken in turn, so that text that costs more (CJK
#: runs in a batch sorted by language) is shared out too.
STRIPES_PER_PROCESS = 16


def added_tokens_decoder(entries: list[dict[str, Any]]) -> dict[int, AddedToken]:
    """A ``tokenizer.json``'s ``added_tokens`` as transformers' ``added_tokens_decoder`` (what ``from_pretrained``
    passes; a class made from the file directly passes it itself)."""
    return {
        int(entry["id"]): AddedToken(**{key: value for key, value in entry.items() if key != "id"}) for entry in entries
    }


def file_defaults(
    kwargs: dict[str, Any],
    truncation: Mapping[str, Any] | None,
    padding: Mapping[str, Any] | None,
    *,
    added: int,
    path: str | os.PathLike[str],
) -> None:
    """Set in ``kwargs``, where they are not given, the ``__init__`` arguments a ``tokenizer.json``'s ``truncation``
    and ``padding`` sections give, as ``TokenizersBackend.__init__`` does (``kwargs.setdefault``); the sections as
    :func:`~hf_bpe.pipeline.tokenizer_json.read_truncation_and_padding` reads them.

    What each field does in transformers 5:

    - ``truncation.direction`` sets ``truncation_side`` and ``padding.direction`` ``padding_side``: the side a call
      cuts or pads, when it truncates or pads.
    - ``padding.pad_token`` sets ``pad_token`` (added as a special token where the added tokens lack it).
    - ``truncation.max_length`` (else a ``Fixed`` padding's length, or None), ``truncation.stride``,
      ``truncation.strategy`` and ``padding.pad_to_multiple_of`` become the arguments ``max_length``, ``stride``,
      ``truncation_strategy`` and ``pad_to_multiple_of``, which no call reads: they are kept in ``init_kwargs`` and
      so saved in ``tokenizer_config.json``. ``padding.pad_type_id`` becomes ``pad_token_type_id``, which does not
      even set the attribute (it stays 0, and is saved as 0).
    - ``padding.pad_id`` does nothing: the padding id is ``pad_token``'s.
    - No call truncates or pads unless its own arguments say so (``truncation=``, ``padding=``, ``max_length=``):
      the Rust backend's own truncation and padding, which the sections set at load, are switched off or replaced
      by every call (``set_truncation_and_padding``) before it encodes. The Rust backend writes them into a
      ``tokenizer.json`` it saves before its first call, and the last call's after; hf_bpe writes the file's, as
      before a call. Neither changes a saved tokenizer: its ``tokenizer_config.json`` holds every argument they set.

    Raises:
        ValueError: naming the file, where ``truncation.stride`` is more than ``truncation.max_length`` less the
            ``added`` special tokens the post-processor puts around one sequence (transformers' ``enable_truncation``
            refuses such a file).

    >>> kwargs = {"padding_side": "right"}
    >>> padding = {"length": None, "pad_to_multiple_of": None, "pad_id": 0, "pad_token": "<pad>", "pad_type_id": 0,
    ...            "direction": "left"}
    >>> file_defaults(kwargs, None, padding, added=0, path="tokenizer.json")
    >>> kwargs["padding_side"], kwargs["pad_token"], kwargs["max_length"]
    ('right', '<pad>', None)
    """
    if truncation is not None:
        max_length, stride = truncation["max_length"], truncation["stride"]
        if not stride_fits(max_length, stride, added):
            raise ValueError(
                f"{path}: truncation.stride is {stride}: more than truncation.max_length ({max_length}) less the "
                f"{added} special tokens the post-processor adds, so transformers' TokenizersBackend cannot load this "
                "file either; lower the stride"
            )
        kwargs.setdefault("max_length", max_length)
        kwargs.setdefault("truncation_side", truncation["direction"])
        kwargs.setdefault("stride", stride)
        kwargs.setdefault("truncation_strategy", truncation["strategy"])
    if padding is not None:
        kwargs.setdefault("pad_token", padding["pad_token"])
        kwargs.setdefault("pad_token_type_id", padding["pad_type_id"])
        kwargs.setdefault("padding_side", padding["direction"])
        kwargs.setdefault("max_length", padding["length"])
        kwargs.setdefault("pad_to_multiple_of", padding["pad_to_multiple_of"])


#: An added token's fields in ``tokenizer.json``, after its id.
ADDED_TOKEN_FIELDS = ("content", "single_word", "lstrip", "rstrip", "normalized", "special")


class EncodingRowsTokenizer(PreTrainedTokenizer):
    """What hf_bpe's transformers classes share: ``__call__`` giving the Rust backend's rows.

    A subclass gives :meth:`encode_text`, :meth:`encode_text_with_offsets` and :meth:`special_tokens_template`;
    ``call_options`` names the extra per-call options its encoders take (BPE: ``add_prefix_space``), and
    ``encodes_split_words`` whether words given with ``is_split_into_words=True`` are encoded here (each word on its
    own, offsets within the word, as the Rust backend's pre-tokenized input) or by transformers' own path.
    """

    call_options: tuple[str, ...] = ()
    encodes_split_words: bool = False
    #: The type id of a pair's second sequence and its special tokens (RoBERTa's post-processor: 0).
    pair_type_id: int = 1
    #: Whether the post-processor, adding special tokens, types each overflowing window as the kept row
    #: (``RobertaProcessing``: 0); else a window keeps the type id its sequence was encoded with, its index.
    retypes_windows: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._added_matcher = AddedTokenMatcher()
        super().__init__(*args, **kwargs)

    # -- what a subclass gives ----------------------------------------------------------------------------------

    def encode_ordinary(self, text: str, **options: Any) -> list[int]:
        """The ids of text without added or special tokens (each model's own encoding)."""
        raise NotImplementedError

    def encode_ordinary_with_offsets(self, text: str, **options: Any) -> tuple[list[int], list[tuple[int, int]]]:
        """The ids of text without added or special tokens, and each token's ``(start, end)`` span in ``text``."""
        raise NotImplementedError

    def encode_text(self, text: str, *, split_special_tokens: bool = False, **options: Any) -> list[int]:
        """The ids of one text, added and special tokens matched whole (unless ``split_special_tokens``), the text
        between them encoded by :meth:`encode_ordinary`.

        Raises:
            TypeError: if ``text`` is not a string.
        """
        if split_special_tokens or self._strips_added_tokens():
            return self.encode_spans(text, self._added_spans(text, split_special_tokens), **options)
        if not isinstance(text, str):
            raise TypeError(f"expected a string to encode, got {type(text).__name__}: {text!r:.60}")
        pattern = self._added_matcher.pattern(self.raw_added_tokens())
        # The common call: the text cut around its added tokens in C (no offsets asked for, none reckoned).
        return self.encode_parts(text, pattern.split(text) if pattern is not None else [text], **options)

    def encode_parts(self, text: str, parts: list[str], **options: Any) -> list[int]:
        """The ids of ``text`` cut around its added tokens into ``parts``, text between tokens (maybe empty) and
        tokens in turn (``pattern.split(text)`` of :func:`~hf_bpe.pipeline.added_tokens.whole_tokens_pattern`):
        a token's id, or the ids :meth:`encode_stretch` gives the text (a subclass may encode all in one call)."""
        added = self._added_tokens_encoder
        ids: list[int] = []
        start = 0
        for index, part in enumerate(parts):
            end = start + len(part)
            if index % 2:
                ids.append(added[part])
            elif part:
                ids += self.encode_stretch(text, start, end, **options)
            start = end
        return ids

    def encode_spans(self, text: str, spans: list[tuple[int, int, str | None]], **options: Any) -> list[int]:
        """The ids of ``text`` cut into ``spans`` (:meth:`_added_spans`): an added token's id, or the ids
        :meth:`encode_stretch` gives the text between (a subclass may encode all the stretches in one call: a
        Gemma text is cut at each newline, an added token, and one call a line cost more than the line's merges).
        """
        added = self._added_tokens_encoder
        ids: list[int] = []
        for start, end, token in spans:
            if token is not None:
                ids.append(added[token])
            else:
                ids += self.encode_stretch(text, start, end, **options)
        return ids

    def encode_stretch(self, text: str, start: int, end: int, **options: Any) -> list[int]:
        """The ids of ``text[start:end]``, a stretch between added tokens (:meth:`encode_ordinary`'s; a subclass
        whose pipeline tells the text's first stretch from the others overrides it)."""
        return self.encode_ordinary(text[start:end], **options)

    def encode_stretch_with_offsets(
        self, text: str, start: int, end: int, **options: Any
    ) -> tuple[list[int], list[tuple[int, int]]]:
        """:meth:`encode_stretch` with each token's ``(start, end)`` in ``text``."""
        ids, offsets = self.encode_ordinary_with_offsets(text[start:end], **options)
        return ids, [(start + begin, start + stop) for begin, stop in offsets]

    def encode_text_with_offsets(
        self, text: str, *, split_special_tokens: bool = False, **options: Any
    ) -> tuple[list[int], list[tuple[int, int]]]:
        """The ids of one text and each token's ``(start, end)`` character span in it, as the Rust backend gives
        them: added and special tokens matched whole (unless ``split_special_tokens``), the text between them
        encoded by :meth:`encode_ordinary_with_offsets`.

        Raises:
            TypeError: if ``text`` is not a string.
        """
        added = self._added_tokens_encoder
        ids: list[int] = []
        offsets: list[tuple[int, int]] = []
        for start, end, token in self._added_spans(text, split_special_tokens):
            if token is not None:
                ids.append(added[token])
                offsets.append((start, end))
                continue
            part_ids, part_offsets = self.encode_stretch_with_offsets(text, start, end, **options)
            ids += part_ids
            offsets += part_offsets
        return ids, offsets

    def stretch_tokens(self, text: str, start: int, end: int, **options: Any) -> list[str]:
        """The tokens of ``text[start:end]``, a stretch between added tokens, as the model names them in an
        ``Encoding`` (its ids' vocabulary tokens here; a subclass whose model names some otherwise overrides it)."""
        return cast("list[str]", self.convert_ids_to_tokens(self.encode_stretch(text, start, end, **options)))

    def encoding_tokens(
        self, text: str, pair: str | None = None, add_special_tokens: bool = False, **kwargs: Any
    ) -> list[str]:
        """``TokenizersBackend.tokenize``: the tokens of the ``Encoding`` of ``text`` (and ``pair``), an added token
        as the text it took (with the white space it strips), the model's as :meth:`stretch_tokens` names them;
        inside transformers' own path (:meth:`_fallback_encode_plus`), transformers' ``tokenize``.

        Raises:
            ValueError: naming an option of the call it does not take (truncation, padding, ...).
        """
        if getattr(_FALLBACK, "depth", 0):
            return PreTrainedTokenizer.tokenize(self, text, **kwargs)
        split = kwargs.pop("split_special_tokens", None)
        call = {key: kwargs.pop(key) for key in self.call_options if key in kwargs}
        unknown = [key for key, value in kwargs.items() if value]
        if unknown:
            raise ValueError(
                f"tokenize() takes pair, add_special_tokens, split_special_tokens and {list(self.call_options)}; "
                f"got {unknown}: call the tokenizer with them and read input_ids instead"
            )
        split = self.split_special_tokens if split is None else split
        sequences = [self._sequence_tokens(part, bool(split), call) for part in (text, pair) if part is not None]
        if not add_special_tokens:
            return [token for tokens in sequences for token in tokens]
        a_before, a_after, b_before, b_after = self.special_tokens_template(pair=len(sequences) > 1)
        around = [(a_before, a_after), (b_before, b_after)]
        out: list[str] = []
        for tokens, (before, after) in zip(sequences, around, strict=False):
            out += [*self.convert_ids_to_tokens(before), *tokens, *self.convert_ids_to_tokens(after)]
        return out

    def _sequence_tokens(self, text: str, split_special_tokens: bool, call: dict[str, Any]) -> list[str]:
        """One sequence's tokens (:meth:`encoding_tokens`); an added token matched in the raw text is named by
        the text it took (``AddedVocabulary::split_with_indices``)."""
        out: list[str] = []
        for start, end, token in self._added_spans(text, split_special_tokens):
            if token is not None:
                out.append(text[start:end])
            else:
                out += self.stretch_tokens(text, start, end, **call)
        return out

    def _added_spans(self, text: str, split_special_tokens: bool) -> list[tuple[int, int, str | None]]:
        """``text`` cut around the added tokens, matched whole and longest first, as ``(start, end, token or
        None)``; with ``split_special_tokens``, a special token's match is text (``AddedVocabulary``'s
        ``encode_special_tokens``: Gemma's non-special ``<s>`` and newline are still matched)."""
        if not isinstance(text, str):
            raise TypeError(f"expected a string to encode, got {type(text).__name__}: {text!r:.60}")
        pattern = self._added_matcher.pattern(self.raw_added_tokens())
        skip = self._special_contents() if split_special_tokens else ()
        if pattern is None or not self._strips_added_tokens():
            return split_around(text, pattern, skip=skip)
        encoder, decoder = self._added_tokens_encoder, self._added_tokens_decoder
        return added_token_spans(text, pattern, lambda token: decoder[encoder[token]], skip=skip)

    def _special_contents(self) -> frozenset[str]:
        """The contents of the added tokens marked special (known until the added tokens change)."""
        decoder = self._added_tokens_decoder
        return self._added_matcher.cached(
            "special", lambda: frozenset(token.content for token in decoder.values() if token.special)
        )

    def _strips_added_tokens(self) -> bool:
        """Whether some added token strips the white space beside it or matches single words only (known until the
        added tokens change: Gemma's 6,415 were looked through for every text)."""
        return self._added_matcher.cached(
            "strips",
            lambda: any(
                token.lstrip or token.rstrip or token.single_word for token in self._added_tokens_decoder.values()
            ),
        )

    def _update_total_vocab_size(self) -> None:
        """transformers calls this whenever the added tokens change (``_add_tokens``, the ``added_tokens_decoder``
        setter): what was derived from them is derived again."""
        matcher = self.__dict__.get("_added_matcher")
        if matcher is not None:
            matcher.changed()
        super()._update_total_vocab_size()

    def added_token_names(self) -> dict[int, str]:
        """Each added token's name in decoding and :meth:`convert_ids_to_tokens`, by id: its content, unless a
        subclass's pipeline normalizes it."""
        return self._added_matcher.cached(
            "names", lambda: {token_id: token.content for token_id, token in self._added_tokens_decoder.items()}
        )

    def raw_added_tokens(self) -> dict[str, int]:
        """The added tokens matched in the raw text, before any normalizer: all of them, unless a subclass's
        pipeline matches some in the normalized text (``normalized: true``)."""
        return self._added_tokens_encoder

    def processed_offsets(self, ids: list[int], offsets: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """One sequence's offsets (a window of it, after truncation) as the post-processor leaves them: unchanged
        unless a subclass's file trims them (``trim_offsets``)."""
        return offsets

    def special_tokens_types(self, pair: bool = False) -> Types | None:
        """The type ids of :meth:`special_tokens_template`'s tokens and of the sequences (``(before A, A's, after A,
        before B, B's, after B)``), where the template gives each its own; None: those around the first sequence
        are typed 0, those around the second :attr:`pair_type_id`."""
        return None

    def special_tokens_template(self, pair: bool = False) -> Template:
        """The special-token ids put before and after the first and the second sequence (none by default), for a
        single sequence or (``pair``) a pair: a template may put others around the first of a pair."""
        return [], [], [], []

    def _fallback_encode_plus(
        self, text: Any, text_pair: Any, is_split_into_words: bool, options: dict[str, Any], kwargs: dict[str, Any]
    ) -> BatchEncoding:
        """transformers' own path, for ids (and pre-split words, where the class does not encode them); there,
        ``tokenize`` is transformers' (whose tokens it turns into ids), not :meth:`encoding_tokens`."""
        _FALLBACK.depth = getattr(_FALLBACK, "depth", 0) + 1
        try:
            return super()._encode_plus(
                cast(Any, text), text_pair=text_pair, is_split_into_words=is_split_into_words, **options, **kwargs
            )
        finally:
            _FALLBACK.depth -= 1

    # -- the special tokens, from the template ------------------------------------------------------------------

    def build_inputs_with_special_tokens(
        self, token_ids_0: list[int], token_ids_1: list[int] | None = None
    ) -> list[int]:
        a_before, a_after, b_before, b_after = self.special_tokens_template(pair=token_ids_1 is not None)
        if token_ids_1 is None and not a_before and not a_after:
            return token_ids_0  # as transformers' own does: no copy of each row where the template adds none (GPT-2)
        output = a_before + token_ids_0 + a_after
        if token_ids_1 is not None:
            output = output + b_before + token_ids_1 + b_after
        return output

    def get_special_tokens_mask(
        self, token_ids_0: list[int], token_ids_1: list[int] | None = None, already_has_special_tokens: bool = False
    ) -> list[int]:
        if already_has_special_tokens:
            special = set(self.all_special_ids)
            return [1 if token_id in special else 0 for token_id in token_ids_0]
        a_before, a_after, b_before, b_after = self.special_tokens_template(pair=token_ids_1 is not None)
        mask = [1] * len(a_before) + [0] * len(token_ids_0) + [1] * len(a_after)
        if token_ids_1 is not None:
            mask += [1] * len(b_before) + [0] * len(token_ids_1) + [1] * len(b_after)
        return mask

    def added_token_entries(self, *, normalized_only: bool = False) -> list[dict[str, Any]]:
        """Every added token as ``tokenizer.json``'s ``added_tokens`` lists it (by id, with its flags); only the
        ``normalized`` ones if ``normalized_only`` (Gemma's 6,415 tokens, none normalized: no entry made)."""
        return [
            {"id": token_id, **{key: getattr(token, key) for key in ADDED_TOKEN_FIELDS}}
            for token_id, token in sorted(self._added_tokens_decoder.items())
            if token.normalized or not normalized_only
        ]

    def skipped_ids(self) -> set[int]:
        """The ids ``decode(..., skip_special_tokens=True)`` leaves out: every added token marked special, as the
        Rust backend skips them (Qwen's ``<|im_start|>``; a padding token the file does not mark special is kept)."""
        return {token_id for token_id, token in self._added_tokens_decoder.items() if token.special}

    def decode_by_tokens(
        self, token_ids: int | Sequence[int], skip_special_tokens: bool, clean_up_tokenization_spaces: bool | None
    ) -> str:
        """``decode`` as ``Tokenizer::decode`` does it: each id's token (an added token's content), those
        ``skip_special_tokens`` leaves out dropped, then :meth:`convert_tokens_to_string` over them all."""
        ids = [token_ids] if isinstance(token_ids, int) else token_ids
        skipped = self.skipped_ids() if skip_special_tokens else set()
        added = self.added_token_names()
        tokens = []
        for token_id in map(int, ids):
            if token_id in skipped:
                continue
            tokens.append(added[token_id] if token_id in added else self._convert_id_to_token(token_id))
        return self.cleaned(self.convert_tokens_to_string(tokens), clean_up_tokenization_spaces)

    def cleaned(self, text: str, clean_up_tokenization_spaces: bool | None) -> str:
        """``text`` through transformers' ``clean_up_tokenization`` where the call (or else the tokenizer) asks."""
        clean = (
            self.clean_up_tokenization_spaces if clean_up_tokenization_spaces is None else clean_up_tokenization_spaces
        )
        return self.clean_up_tokenization(text) if clean else text

    def num_special_tokens_to_add(self, pair: bool = False) -> int:
        a_before, a_after, b_before, b_after = self.special_tokens_template(pair=pair)
        return len(a_before) + len(a_after) + (len(b_before) + len(b_after) if pair else 0)

    # -- encoding -----------------------------------------------------------------------------------------------

    def _encode_plus(  # type: ignore[override]
        self,
        text: Any,
        text_pair: Any = None,
        add_special_tokens: bool = True,
        padding_strategy: PaddingStrategy = PaddingStrategy.DO_NOT_PAD,
        truncation_strategy: TruncationStrategy = TruncationStrategy.DO_NOT_TRUNCATE,
        max_length: int | None = None,
        stride: int = 0,
        is_split_into_words: bool = False,
        pad_to_multiple_of: int | None = None,
        padding_side: str | None = None,
        return_tensors: Any = None,
        return_token_type_ids: bool | None = None,
        return_attention_mask: bool | None = None,
        return_overflowing_tokens: bool = False,
        return_special_tokens_mask: bool = False,
        return_length: bool = False,
        verbose: bool = True,
        **kwargs: Any,
    ) -> BatchEncoding:
        batched, texts = _batch(text, is_split_into_words)
        options: dict[str, Any] = {
            "add_special_tokens": add_special_tokens,
            "padding_strategy": padding_strategy,
            "truncation_strategy": truncation_strategy,
            "max_length": max_length,
            "stride": stride,
            "pad_to_multiple_of": pad_to_multiple_of,
            "padding_side": padding_side,
            "return_tensors": return_tensors,
            "return_token_type_ids": return_token_type_ids,
            "return_attention_mask": return_attention_mask,
            "return_overflowing_tokens": return_overflowing_tokens,
            "return_special_tokens_mask": return_special_tokens_mask,
            "return_length": return_length,
            "verbose": verbose,
        }
        sequence_ok = _is_words if is_split_into_words else _is_str
        known = ("split_special_tokens", "return_offsets_mapping", *self.call_options)
        ours = (
            (self.encodes_split_words or not is_split_into_words)
            and _inputs_ours(texts, text_pair, batched, is_split_into_words)
            and not any(value for key, value in kwargs.items() if key not in known)
        )
        if not ours:
            # Pre-split words (where not ours) and ids: transformers' own path.
            return self._fallback_encode_plus(text, text_pair, is_split_into_words, options, kwargs)
        split = kwargs.get("split_special_tokens")
        call = {
            "split_special_tokens": self.split_special_tokens if split is None else split,
            **{key: kwargs.get(key) for key in self.call_options},
        }
        offsets = bool(kwargs.get("return_offsets_mapping"))
        items = _items(text, texts, text_pair, batched, sequence_ok)
        # Single texts, nothing but ids, type ids and masks asked for: the short way (_encode_plain).
        plain = all(len(item) == 1 and isinstance(item[0], str) for item in items) and not (
            offsets or return_overflowing_tokens or return_special_tokens_mask or return_length
        )
        plain = plain and padding_strategy == PaddingStrategy.DO_NOT_PAD
        plain = plain and truncation_strategy == TruncationStrategy.DO_NOT_TRUNCATE
        # The rows' lists make no reference cycles, but each few hundred would start a collection that walks them
        # all again (4-10 % of the time of a batch).
        with collector_paused():
            if plain:
                return self._encode_plain(text, [item[0] for item in items], call, options)
            if truncation_strategy != TruncationStrategy.DO_NOT_TRUNCATE and max_length is not None:
                self._check_stride(max_length, stride)
            if offsets or not all(isinstance(sequence, str) for item in items for sequence in item):
                encodings = [self._encode_item(item, call, offsets, options) for item in items]
            else:
                # Texts and pairs of texts: all their ids at once (a big batch in several processes), then the rows.
                flat = iter(self.encode_texts([sequence for item in items for sequence in item], call))
                encodings = [
                    self._encode_item(item, call, offsets, options, [next(flat) for _ in item]) for item in items
                ]
            return self._batch_encoding(encodings, batched, offsets, options, items, call)

    def _check_stride(self, max_length: int, stride: int) -> None:
        """Refuse a ``stride`` that leaves no room, as the Rust backend does when it sets its truncation
        (TokenizerImpl::with_truncation), whatever the text. Its subtraction is of unsigned integers: a
        ``max_length`` below the special tokens' count wraps around and passes."""
        added = self.num_special_tokens_to_add(pair=False)
        effective = max_length - added
        if not stride_fits(max_length, stride, added):
            raise ValueError(
                f"stride={stride} is larger than max_length={max_length} less the special tokens added "
                f"({effective}); choose a smaller stride"
            )

    def _encode_plain(
        self, text: Any, texts: list[str], call: dict[str, Any], options: dict[str, Any]
    ) -> BatchEncoding:
        """``tok(texts)``: ids, token type ids and attention masks only, without transformers' per-token loop."""
        plain = self.encode_texts(texts, call)
        types = self.special_tokens_types() if options["add_special_tokens"] else None
        encoded = (
            [self.build_inputs_with_special_tokens(ids) for ids in plain] if options["add_special_tokens"] else plain
        )
        longest = max(map(len, encoded), default=0)
        if longest > self.model_max_length:
            self._eventual_warn_about_too_long_sequence(
                next(ids for ids in encoded if len(ids) == longest), options["max_length"], options["verbose"]
            )
        data: dict[str, Any] = {"input_ids": encoded}
        if self._wants("token_type_ids", options["return_token_type_ids"]):
            if types is None:
                data["token_type_ids"] = [[0] * len(ids) for ids in encoded]
            else:  # the template's own (Command-R's types the tokens after the text 1)
                data["token_type_ids"] = [[*types[0], *[types[1]] * len(ids), *types[2]] for ids in plain]
        if self._wants("attention_mask", options["return_attention_mask"]):
            data["attention_mask"] = [[1] * len(ids) for ids in encoded]
        tensors = options["return_tensors"]
        # One Encoding per row, made when first read (BatchEncoding's annotation names tokenizers' Encoding).
        rows: Any = RowEncodings(self, [(text,) for text in texts], call, options, None, list(range(len(texts))))
        if isinstance(text, str):
            data = {key: value[0] for key, value in data.items()}
            return BatchEncoding(
                data, encoding=rows, tensor_type=tensors, prepend_batch_axis=tensors is not None, n_sequences=1
            )
        return BatchEncoding(
            data, encoding=rows if texts else None, tensor_type=tensors, n_sequences=1 if texts else None
        )

    def encode_texts(self, texts: list[str], call: dict[str, Any]) -> list[list[int]]:
        """Each text's :meth:`encode_text` ids; a big batch is shared out to forked processes, one per CPU (see
        :func:`~hf_bpe.processes.fork_processes`; ``TOKENIZERS_PARALLELISM=false`` keeps it in this one), as
        the Rust backend encodes a batch on all of them.

        >>> import hf_bpe, tempfile
        >>> directory = tempfile.mkdtemp()
        >>> _ = hf_bpe.train_from_iterator(["hug pug hug"], vocab_size=260).save(directory)
        >>> tok = hf_bpe.BPETokenizer.from_pretrained(directory)
        >>> texts = ["hug pug"] * 100_000  # 700,000 characters: shared out on a machine of two CPUs or more
        >>> ids = tok.encode_texts(texts, {})
        >>> ids[0], ids[-1], ids == [tok.encode_text(text) for text in texts]
        ([257, 220, 258], [257, 220, 258], True)
        """
        total = sum(map(len, texts))
        encode = self._ids_of_text
        # Fewer characters than two processes' worth: one process, whatever the CPUs and memory (not asked of the
        # system at every call: a third of a short text's time).
        processes = 1
        if total >= 2 * FORK_MIN_CHARS and len(texts) > 1:
            processes = min(fork_processes(), int(total / (FORK_MIN_CHARS * (1 + resident_gib()))), len(texts))
        if processes < 2:
            return [encode(text, **call) for text in texts]
        # What every text needs derived (the added tokens' pattern: Gemma's 6,415 take 0.1 s), derived here once
        # before the fork, not again in every child; and so are a model's tables made at its first word (SymbolBPE's
        # pairs of characters: Gemma-3's 0.3 s; the byte-level encoder's cuts: Llama-3's 0.35 s).
        encode("", **call)
        self.make_tables()
        stripe = total // (processes * STRIPES_PER_PROCESS) + 1
        shares: list[list[int]] = [[] for _ in range(processes)]
        turn = size = 0
        for index, text in enumerate(texts):
            shares[turn].append(index)
            size += len(text)
            if size >= stripe:
                turn, size = (turn + 1) % processes, 0

        def job(share: list[int]) -> Callable[[], list[list[int]]]:
            return lambda: [encode(texts[index], **call) for index in share]

        encoded: list[list[int]] = [[] for _ in texts]
        for share, share_ids in zip(shares, run_forked([job(s) for s in shares], "hf_bpe encoding"), strict=True):
            for index, ids in zip(share, share_ids, strict=True):
                encoded[index] = ids
        return encoded

    def make_tables(self) -> None:
        """Make now the tables the model makes at its first word (before :meth:`encode_texts` forks): none here; a
        pipeline's model makes its own."""

    def _ids_of_text(self, text: str, **call: Any) -> list[int]:
        """:meth:`encode_text`'s ids; where an added token strips white space or matches single words only, those
        of :meth:`encode_text_with_offsets`, which cuts the text around added tokens here (:meth:`_added_spans`)
        where a subclass's own ``encode_text`` may not."""
        if type(self).encode_text is not EncodingRowsTokenizer.encode_text and self._strips_added_tokens():
            return self.encode_text_with_offsets(text, **call)[0]
        return self.encode_text(text, **call)

    def _wants(self, name: str, asked: bool | None) -> bool:
        return name in self.model_input_names if asked is None else bool(asked)

    def _encode_sequence(
        self,
        sequence: str | list[str],
        type_id: int,
        call: dict[str, Any],
        offsets: bool,
        known: list[int] | None,
        full: bool = False,
    ) -> Encoding:
        """One sequence as a row: a text, or pre-split words each encoded on its own (offsets within each word,
        as the Rust backend gives them for pre-tokenized input); ``known``: the text's ids, already encoded;
        ``full``: with offsets, tokens and word ids (:meth:`_full_sequence`)."""
        if full:
            return self._full_sequence(sequence, type_id, call)
        if known is not None:
            return Encoding(known, [type_id] * len(known))
        ids: list[int] = []
        spans: list[tuple[int, int]] = []
        for part in [sequence] if isinstance(sequence, str) else sequence:
            if offsets:
                part_ids, part_spans = self.encode_text_with_offsets(part, **call)
                spans += part_spans
            else:
                part_ids = self._ids_of_text(part, **call)
            ids += part_ids
        return Encoding(ids, [type_id] * len(ids), offsets=spans if offsets else None)

    def _full_sequence(self, sequence: str | list[str], type_id: int, call: dict[str, Any]) -> Encoding:
        """A sequence's row with everything ``tokenizers``' ``Encoding`` holds: the words of a text are its
        pre-tokens, an added token one of them (``PreTokenizedString::into_encoding`` numbers the splits); the
        words of pre-split input are the given words (``encode_single_sequence`` passes each one's index)."""
        split = bool(call.get("split_special_tokens"))
        options = {key: value for key, value in call.items() if key != "split_special_tokens"}
        ids: list[int] = []
        spans: list[tuple[int, int]] = []
        tokens: list[str] = []
        words: list[int | None] = []
        parts = [sequence] if isinstance(sequence, str) else sequence
        for index, part in enumerate(parts):
            part_ids, part_spans = self.encode_text_with_offsets(part, **call)
            part_tokens, part_words = self._tokens_and_words(part, split, options)
            if len(part_tokens) != len(part_ids):
                raise RuntimeError(
                    f"{type(self).__name__} named {len(part_tokens)} tokens for {len(part_ids)} ids in {part!r:.60}"
                )
            ids += part_ids
            spans += part_spans
            tokens += part_tokens
            words += part_words if isinstance(sequence, str) else [index] * len(part_ids)
        return Encoding(ids, [type_id] * len(ids), offsets=spans, tokens=tokens, words=words)

    def _tokens_and_words(self, text: str, split: bool, options: dict[str, Any]) -> tuple[list[str], list[int | None]]:
        """Each token's name in an ``Encoding`` (:meth:`stretch_tokens`; an added token as the text it took) and
        its pre-token's index in ``text`` (:meth:`stretch_words`)."""
        tokens: list[str] = []
        words: list[int | None] = []
        done = 0
        for start, end, token in self._added_spans(text, split):
            if token is not None:
                tokens.append(text[start:end])
                words.append(done)
                done += 1
                continue
            tokens += self.stretch_tokens(text, start, end, **options)
            local, count = self.stretch_words(text, start, end, **options)
            words += [done + word for word in local]
            done += count
        return tokens, words

    def stretch_words(self, text: str, start: int, end: int, **options: Any) -> tuple[list[int], int]:
        """Each token of ``text[start:end]`` (a stretch between added tokens), the index of the pre-token it comes
        from, and how many pre-tokens the stretch has (a subclass gives them: its pre-tokenizer cuts them).

        Raises:
            NotImplementedError: naming the class, which does not give word ids.
        """
        raise NotImplementedError(f"{type(self).__name__} does not give word ids (word_ids, word_to_tokens, ...)")

    def _encode_item(
        self,
        item: tuple[Any, ...],
        call: dict[str, Any],
        offsets: bool,
        options: dict[str, Any],
        known: list[list[int]] | None = None,
        full: bool = False,
    ) -> Encoding:
        """One text or pair as the Rust backend's ``Tokenizer.encode`` makes it: each sequence encoded (unless
        ``known`` gives each one's ids), then truncated, then given its special tokens (``TemplateProcessing``),
        the pair merged into one row; ``full``: a row with tokens, word ids and sequence ranges too."""
        # Tokenizer::encode types each sequence by its index; the post-processor retypes the kept rows below.
        parts = [
            self._encode_sequence(
                sequence,
                index,
                call,
                offsets,
                None if known is None else known[index],
                full,
            )
            for index, sequence in enumerate(item)
        ]
        first, pair = parts[0], parts[1] if len(parts) > 1 else None
        add_special_tokens = options["add_special_tokens"]
        max_length = options["max_length"]
        strategy = options["truncation_strategy"]
        if strategy != TruncationStrategy.DO_NOT_TRUNCATE and max_length is not None:
            added = self.num_special_tokens_to_add(pair=pair is not None) if add_special_tokens else 0
            stride, side = options["stride"], self.truncation_side
            truncate_encodings(first, pair, max_length, stride, strategy.value, side, added=added)
        if offsets or full:
            for part in parts:
                for window in (part, *part.overflowing):
                    window.offsets = self.processed_offsets(window.ids, window.offsets)
        types = self.special_tokens_types(pair=pair is not None)
        if types is None:
            types = ([], 0, [], [], self.pair_type_id, [])
        around = self.special_tokens_template(pair=pair is not None) if add_special_tokens else None
        return post_process(parts, around, types, self._names, retypes_windows=self.retypes_windows, ranges=full)

    def _names(self, ids: list[int]) -> list[str]:
        return cast("list[str]", self.convert_ids_to_tokens(ids))

    def _batch_encoding(
        self,
        encodings: list[Encoding],
        batched: bool,
        offsets: bool,
        options: dict[str, Any],
        items: list[tuple[Any, ...]] | None = None,
        call: dict[str, Any] | None = None,
    ) -> BatchEncoding:
        """Pad as the Rust backend pads (every row, overflowing windows included, to the longest first row or to
        ``max_length``), then lay the rows out as ``TokenizersBackend._encode_plus`` does, with an ``Encoding`` per
        row (:class:`RowEncodings`, made from ``items`` when first read)."""
        target = self._padding_target(encodings, options)
        if target is not None:
            self._pad_rows(encodings, target, options)
        overflowing = options["return_overflowing_tokens"]
        rows: list[Encoding] = []
        mapping: list[int] = []
        for sample, encoding in enumerate(encodings):
            windows = [encoding, *encoding.overflowing] if overflowing else [encoding]
            rows += windows
            mapping += [sample] * len(windows)
        data: dict[str, Any] = {"input_ids": [row.ids for row in rows]}
        if self._wants("token_type_ids", options["return_token_type_ids"]):
            data["token_type_ids"] = [row.type_ids for row in rows]
        if self._wants("attention_mask", options["return_attention_mask"]):
            data["attention_mask"] = [row.attention_mask for row in rows]
        if options["return_special_tokens_mask"]:
            data["special_tokens_mask"] = [row.special_tokens_mask for row in rows]
        if offsets:
            data["offset_mapping"] = [row.offsets for row in rows]
        if options["return_length"]:
            data["length"] = [len(row.ids) for row in rows]
        if overflowing:
            data["overflow_to_sample_mapping"] = mapping
        for row in rows:
            self._eventual_warn_about_too_long_sequence(row.ids, options["max_length"], options["verbose"])
        tensors = options["return_tensors"]
        lazy: Any = None
        n_sequences = None
        if items is not None and call is not None and rows:
            lazy = RowEncodings(self, items, call, options, target, mapping)
            n_sequences = 2 if len(items[0]) > 1 else 1
        if not batched and tensors is None and not overflowing:
            # TokenizersBackend drops the batch axis of list values only ("length" stays a one-item list).
            data = {key: value[0] if value and isinstance(value[0], list) else value for key, value in data.items()}
            return BatchEncoding(data, encoding=lazy, n_sequences=n_sequences)
        return BatchEncoding(data, encoding=lazy, tensor_type=tensors, n_sequences=n_sequences)

    def _padding_target(self, encodings: list[Encoding], options: dict[str, Any]) -> int | None:
        """The length the call pads every row to (None: no padding)."""
        strategy = options["padding_strategy"]
        if strategy == PaddingStrategy.DO_NOT_PAD:
            return None
        fixed = options["max_length"] if strategy == PaddingStrategy.MAX_LENGTH else None
        return padding_length(encodings, fixed, options["pad_to_multiple_of"])

    def _pad_rows(self, encodings: list[Encoding], target: int, options: dict[str, Any]) -> None:
        side = options["padding_side"] or self.padding_side
        pad_token = str(self.pad_token) if self.pad_token is not None else ""
        for encoding in encodings:
            encoding.pad(target, self.pad_token_id, self.pad_token_type_id, pad_token, side)


class RowEncodings(Sequence[Encoding]):
    """A call's ``Encoding`` per row of its ``BatchEncoding`` (overflowing windows included), each sample's made
    when one of its rows is first read: encoded again by the same call with everything (tokens, word ids,
    sequence ranges), truncated and padded as the call's rows were, so that what a row says does not depend on
    whether the call asked for offsets. It pickles as the plain list of its rows."""

    def __init__(
        self,
        tokenizer: EncodingRowsTokenizer,
        items: list[tuple[Any, ...]],
        call: dict[str, Any],
        options: dict[str, Any],
        target: int | None,
        mapping: list[int],
    ) -> None:
        self._tokenizer = tokenizer
        self._items = items
        self._call = call
        self._options = options
        self._target = target
        self._mapping = mapping  # each row's sample
        self._rows: list[tuple[int, int]] = []  # each row's (sample, window), when first read
        self._made: dict[int, list[Encoding]] = {}

    def __len__(self) -> int:
        return len(self._mapping)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._mapping)))]
        if not self._rows:
            for sample in self._mapping:
                window = self._rows[-1][1] + 1 if self._rows and self._rows[-1][0] == sample else 0
                self._rows.append((sample, window))
        sample, window = self._rows[index]
        if sample not in self._made:
            tokenizer = self._tokenizer
            with collector_paused():
                row = tokenizer._encode_item(self._items[sample], self._call, True, self._options, full=True)
                if self._target is not None:
                    tokenizer._pad_rows([row], self._target, self._options)
            self._made[sample] = [row, *row.overflowing]
        return self._made[sample][window]

    def __reduce__(self) -> tuple[Any, ...]:
        return list, (list(self),)


def _batch(text: Any, is_split_into_words: bool) -> tuple[bool, list[Any]]:
    """Whether ``text`` is a batch, and its items (one text: a batch of one), as TokenizersBackend._encode_plus
    tells them apart (pre-split words: a list of lists).

    Raises:
        TypeError: naming what is neither text nor what transformers takes (pairs, pre-split words, ids).
    """
    if not isinstance(text, (str, list, tuple)):
        raise TypeError(f"expected a string or a list of strings to encode, got {type(text).__name__}: {text!r:.60}")
    if is_split_into_words:
        batched = isinstance(text, (list, tuple)) and bool(text) and isinstance(text[0], (list, tuple))
    else:
        batched = isinstance(text, (list, tuple))
    texts = list(text) if batched else [text]
    for index, item in enumerate(texts):
        if not isinstance(item, (str, list, tuple, int)):
            raise TypeError(
                f"item {index} of the batch is {type(item).__name__}: {item!r:.60}; expected a string to encode"
            )
    return batched, texts


def _inputs_ours(texts: list[Any], text_pair: Any, batched: bool, is_split_into_words: bool) -> bool:
    """Whether the inputs are texts, pairs of texts or pre-split words, which the rows encode themselves (ids and
    anything else go through transformers' own path)."""
    if is_split_into_words:
        item_ok = (lambda t: _is_words(t) or _is_words_pair(t)) if batched else _is_words
        pairs_ok = text_pair is None or (_is_words(text_pair) if not batched else isinstance(text_pair, list))
    else:
        item_ok = lambda t: isinstance(t, str) or _is_text_pair(t)  # noqa: E731
        pairs_ok = text_pair is None or isinstance(text_pair, (str, list, tuple))
    return pairs_ok and all(map(item_ok, texts))


def _items(
    text: Any, texts: list[Any], text_pair: Any, batched: bool, sequence_ok: Callable[[Any], bool]
) -> list[tuple[Any, ...]]:
    """One tuple per row: its sequence, or its two; as TokenizersBackend._encode_plus reads its inputs (an empty
    ``text_pair`` counts as none).

    Raises:
        TypeError, ValueError: naming a ``text_pair`` that does not go with ``text``.
    """
    items: list[tuple[Any, ...]]
    if batched:
        if isinstance(text_pair, str):
            raise TypeError("when encoding a batch of texts, text_pair must be a list of the same length")
        if text_pair is not None and len(text_pair) != len(texts):
            raise ValueError(f"text has {len(texts)} items but text_pair has {len(text_pair)}; give one pair each")
        if text_pair is not None:
            items = [(first, second) for first, second in zip(texts, text_pair, strict=True)]
        else:
            items = [(item,) if sequence_ok(item) else tuple(item) for item in texts]
    else:
        items = [(text, text_pair)] if text_pair else [(text,)]
    if text_pair is not None and not all(map(sequence_ok, (item[1] for item in items if len(item) > 1))):
        raise TypeError(f"text_pair holds {text_pair!r:.60}; give strings (or lists of words with is_split_into_words)")
    return items


def _is_str(item: Any) -> bool:
    return isinstance(item, str)


def _is_words(item: Any) -> bool:
    return isinstance(item, (list, tuple)) and all(isinstance(word, str) for word in item)


def _is_words_pair(item: Any) -> bool:
    return isinstance(item, (list, tuple)) and len(item) == 2 and all(map(_is_words, item))


class AddedTokenMatcher:
    """What a tokenizer derives from its added tokens (a pattern matching every one whole, longest first; whether
    any strips), derived again when they change (:meth:`changed`).

    It holds only what can be derived again, so it pickles as nothing: a tokenizer's pickle, and ``datasets``'
    fingerprint of it (which hashes the tokenizer's ``__dict__``), do not depend on whether it was used.
    """

    def __init__(self) -> None:
        self._version = 0
        self._derived: dict[str, tuple[int, Any]] = {}

    def changed(self) -> None:
        """The added tokens changed: everything derived from them is stale."""
        self._version += 1

    def cached(self, name: str, derive: Callable[[], Any]) -> Any:
        """``derive()``, kept under ``name`` until the added tokens change."""
        found = self._derived.get(name)
        if found is not None and found[0] == self._version:
            return found[1]
        value = derive()
        self._derived[name] = (self._version, value)
        return value

    def pattern(self, tokens: dict[str, int]) -> regex.Pattern[str] | None:
        """A pattern matching any of ``tokens`` (the tokenizer's added tokens, or those of them it matches in the
        raw text: each class gives the one kind) whole, longest first."""
        return self.cached("pattern", lambda: whole_tokens_pattern(tokens))

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]


def _is_text_pair(item: Any) -> bool:
    return isinstance(item, (list, tuple)) and len(item) == 2 and all(isinstance(part, str) for part in item)
