"""The assembled tokenizer, ``tokenizers.Tokenizer``'s twin: added tokens, pipeline, post-processor, truncation and
padding, under ``tokenizers``' Python names.

:class:`Tokenizer` reads a ``tokenizer.json`` into hf_bpe's twins (:func:`~hf_bpe.tokenizer.serialization.
read_pipeline_json`) and encodes as ``TokenizerImpl::encode`` does: the added tokens matched in the raw text first
(:func:`~hf_bpe.pipeline.added_tokens.added_token_spans`), each stretch between them through the
:class:`~hf_bpe.pipeline.pipeline.Pipeline`, then ``post_process``: truncation
(:func:`~hf_bpe.pipeline.encoding.truncate_encodings`), the post-processor
(:func:`~hf_bpe.pipeline.processors.post_process`) and padding, into :class:`~hf_bpe.pipeline.encoding.Encoding`
rows. Added tokens can be added as ``AddedVocabulary::add_tokens`` adds them, and the whole written back as
``Tokenizer.to_str`` writes it (:func:`~hf_bpe.tokenizer.serialization.tokenizer_text`). The rules themselves live
in those lower modules, shared with the transformers classes
(:mod:`hf_bpe.transformers.rows`); this module only assembles them. It imports neither transformers nor tokenizers.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
from collections.abc import Sequence
from typing import Any

from hf_bpe.models.sentencepiece.convert import from_sentencepiece_model
from hf_bpe.pipeline.added_tokens import AddedToken, added_token_spans, split_around, whole_tokens_pattern
from hf_bpe.pipeline.decoders import DecoderSequence
from hf_bpe.pipeline.encoding import STRATEGIES, Encoding, padding_length, stride_fits, truncate_encodings
from hf_bpe.pipeline.normalizers import NormalizerSequence
from hf_bpe.pipeline.pre_tokenizers import PreTokenizerSequence
from hf_bpe.pipeline.processors import post_process
from hf_bpe.tokenizer.serialization import (
    PipelineJson,
    collector_paused,
    normalized_added,
    normalized_content,
    parse_json,
    pipeline_from_data,
    read_pipeline_json,
    tokenizer_text,
)

#: What an ``encode_batch`` item may be: a text, a pair of texts, pre-split words or a pair of them.
EncodeInput = Any
Span = tuple[int, int]
DIRECTIONS = ("left", "right")
#: What names a text read by :meth:`Tokenizer.from_str` in errors.
STRING = "<string>"


class Tokenizer:
    """``tokenizers.Tokenizer`` over hf_bpe's twins of a ``tokenizer.json``'s components.

    >>> import json, tempfile
    >>> path = tempfile.mkdtemp() + "/tokenizer.json"
    >>> _ = open(path, "w").write(json.dumps({"model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hi": 1,
    ...     "you": 2}, "unk_token": "[UNK]"}, "pre_tokenizer": {"type": "Whitespace"},
    ...     "added_tokens": [{"id": 3, "content": "[SEP]", "single_word": False, "lstrip": False, "rstrip": False,
    ...     "normalized": False, "special": True}]}))
    >>> tok = Tokenizer.from_file(path)
    >>> encoding = tok.encode("hi you[SEP]there")
    >>> encoding.ids, encoding.tokens, encoding.offsets, encoding.word_ids
    ([1, 2, 3, 0], ['hi', 'you', '[SEP]', '[UNK]'], [(0, 2), (3, 6), (6, 11), (11, 16)], [0, 1, 2, 3])
    >>> tok.decode(encoding.ids), tok.decode(encoding.ids, skip_special_tokens=False)
    ('hi you [UNK]', 'hi you [SEP] [UNK]')
    """

    def __init__(self, read: PipelineJson) -> None:
        self.file = read
        self.pipeline = read.pipeline
        self._vocab = dict(read.vocab)
        self._model_names = {token_id: token for token, token_id in self._vocab.items()}
        self._added: dict[int, AddedToken] = {
            int(entry["id"]): AddedToken(**{key: value for key, value in entry.items() if key != "id"})
            for entry in read.added_tokens
        }
        # AddedVocabulary's special_tokens_set: a token once added as special stays special.
        self._special = {token.content for token in self._added.values() if token.special}
        # AddedVocabulary's normalized_cache: what a ``normalized`` token's content becomes when normalized, where
        # that differs; decoding names the token so (and a stale entry stays when the token is added again).
        self._decoded: dict[int, str] = {}
        for token_id, token in self._added.items():
            self._cache_normalized(token_id, token)
        self._refresh_added(normalize=False)
        self._truncation: dict[str, Any] | None = None
        self._padding: dict[str, Any] | None = None
        if read.truncation is not None:
            self.enable_truncation(**read.truncation)
        if read.padding is not None:
            self._padding = dict(read.padding)

    def _refresh_added(self, normalize: bool = True) -> None:
        """What follows from the added tokens (``AddedVocabulary::refresh_added_tokens``): the tokens not
        ``normalized`` cut the raw text, the others the normalized text (the pipeline matches those by their
        normalized content, :attr:`Pipeline.normalized_added`); ``normalize``: recompute those contents."""
        self._added_ids = {token.content: token_id for token_id, token in self._added.items()}
        raw = [token.content for token in self._added.values() if not token.normalized]
        self._raw_pattern = whole_tokens_pattern(raw)
        self._strips = any(token.lstrip or token.rstrip or token.single_word for token in self._added.values())
        if normalize:
            matched, flags = normalized_added(self._added_entries(), self.pipeline.normalizer)
            self.pipeline = dataclasses.replace(self.pipeline, normalized_added=matched, normalized_flags=flags)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Tokenizer:
        """The tokenizer a ``tokenizer.json`` describes (``Tokenizer.from_file``).

        Raises:
            FileNotFoundError: if there is no such file.
            ValueError: naming the file and the JSON path of what hf_bpe does not implement (an
                :class:`~hf_bpe.pipeline.tokenizer_json.UnsupportedComponent`), or of what ``tokenizers`` cannot
                read either.
        """
        with collector_paused():
            return cls(read_pipeline_json(path, owner="Tokenizer"))

    @classmethod
    def from_str(cls, json: str) -> Tokenizer:
        """The tokenizer a ``tokenizer.json``'s text describes (``Tokenizer.from_str``).

        Raises:
            ValueError: as :meth:`from_file`, naming ``<string>`` for the file.
        """
        with collector_paused():
            return cls(pipeline_from_data(parse_json(json, STRING), STRING, owner="Tokenizer"))

    @classmethod
    def from_sentencepiece(cls, path: str | os.PathLike[str]) -> Tokenizer:
        """The tokenizer of a SentencePiece ``tokenizer.model``: the ``tokenizer.json`` transformers converts it
        into (:func:`~hf_bpe.models.sentencepiece.convert.from_sentencepiece_model`), which encodes as
        ``SentencePieceProcessor.encode`` does.

        Raises:
            ValueError: naming the file and the byte offset of what is not a ModelProto, or the field and value of
                what the conversion cannot express.
        """
        # Through the file's text, as transformers' Rust backend takes the converted tokenizer: a score then holds
        # the value serde_json reads back from its shortest form, which is not always the float32 it was.
        return cls.from_str(json.dumps(from_sentencepiece_model(path)))

    def to_str(self, pretty: bool = False) -> str:
        """This tokenizer as ``tokenizer.json`` text, as ``Tokenizer.to_str`` writes it: the added tokens by id,
        the truncation and padding as set now, each stage as ``tokenizers`` writes back what it read, the model's
        vocabulary by id."""
        return tokenizer_text(self.file, self._added_entries(), self._truncation, self._padding, pretty=pretty)

    def save(self, path: str | os.PathLike[str], pretty: bool = True) -> None:
        """Write :meth:`to_str` to ``path`` (``Tokenizer.save``; pretty-printed unless ``pretty`` is false)."""
        text = self.to_str(pretty)
        with open(path, "w", encoding="utf-8") as file:
            file.write(text)

    def _added_entries(self) -> list[dict[str, Any]]:
        return [{"id": token_id, **dataclasses.asdict(self._added[token_id])} for token_id in sorted(self._added)]

    def _cache_normalized(self, token_id: int, token: AddedToken) -> None:
        if token.normalized:
            content = token.content
            normalized = normalized_content(self.pipeline.normalizer, content)
            if normalized != content:
                self._decoded[token_id] = normalized

    # -- added tokens -----------------------------------------------------------------------------------------------

    def add_tokens(self, tokens: Sequence[str | Any]) -> int:
        """Add ``tokens`` (texts, or ``AddedToken``s of hf_bpe, ``tokenizers`` or transformers) to the vocabulary,
        as ``Tokenizer.add_tokens`` does: a text is a token matched in the normalized text, not special; a token
        the vocabulary has keeps its id, another takes the next id after the model's and the added tokens'; an
        empty token, or one added before with the same flags, is skipped. Returns how many were not skipped.

        Raises:
            TypeError: naming an item that is neither a text nor an added token.
        """
        return self._add([_added_token(token, special=False) for token in tokens])

    def add_special_tokens(self, tokens: Sequence[str | Any]) -> int:
        """:meth:`add_tokens` of special tokens (``Tokenizer.add_special_tokens``): a text is matched in the raw
        text; an ``AddedToken`` keeps its flags but is marked special. Special tokens are left out of decoding
        with ``skip_special_tokens``."""
        return self._add([_added_token(token, special=True) for token in tokens])

    def _add(self, tokens: list[AddedToken]) -> int:
        """``AddedVocabulary::add_tokens``."""
        highest = max(self._added, default=None)
        size = len(self._vocab)
        next_id = size if highest is None or (highest < size and size) else highest + 1
        added = 0
        for token in tokens:
            known = self._added_ids.get(token.content)
            if not token.content or (known is not None and self._added.get(known) == token):
                continue
            added += 1
            token_id = self.token_to_id(token.content)
            if token_id is None:
                token_id, next_id = next_id, next_id + 1
            self._cache_normalized(token_id, token)
            self._added[token_id] = token
            self._added_ids[token.content] = token_id
            if token.special:
                self._special.add(token.content)
        self._refresh_added()
        return added

    # -- the stages, to inspect -----------------------------------------------------------------------------------

    @property
    def normalizer(self) -> NormalizerSequence | None:
        """The normalizer, with ``tokenizers``' ``normalize_str(text)`` (None: the file has none)."""
        return self.pipeline.normalizer if self.file.sections.get("normalizer") is not None else None

    @property
    def pre_tokenizer(self) -> PreTokenizerSequence | None:
        """The pre-tokenizer, with ``tokenizers``' ``pre_tokenize_str(text)``: each piece and its offsets (None: the
        file has none)."""
        return self.pipeline.pre_tokenizer if self.file.sections.get("pre_tokenizer") is not None else None

    @property
    def decoder(self) -> DecoderSequence | None:
        """The decoder, with ``tokenizers``' ``decode(tokens)`` (None: the file has none)."""
        return self.pipeline.decoder if self.file.sections.get("decoder") is not None else None

    # -- the vocabulary -------------------------------------------------------------------------------------------

    def token_to_id(self, token: str) -> int | None:
        """The id of ``token``: an added token's, else the model's (None: neither has it)."""
        found = self._added_ids.get(token)
        return found if found is not None else self._vocab.get(token)

    def id_to_token(self, id: int) -> str | None:
        """The token of ``id``: an added token's content, else the model's (None: neither has it)."""
        added = self._added.get(id)
        return added.content if added is not None else self._model_names.get(id)

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        """Token to id: the model's, and (``with_added_tokens``) the added tokens'."""
        vocab = dict(self._vocab)
        if with_added_tokens:
            vocab.update(self._added_ids)
        return vocab

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        """How many tokens :meth:`get_vocab` holds (``TokenizerImpl::get_vocab_size``)."""
        return len(self.get_vocab(with_added_tokens)) if with_added_tokens else len(self._vocab)

    def get_added_tokens_decoder(self) -> dict[int, AddedToken]:
        """Each added token by its id (``Tokenizer.get_added_tokens_decoder``), ids in increasing order."""
        return {token_id: self._added[token_id] for token_id in sorted(self._added)}

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        """How many special tokens the post-processor adds to a sequence or (``is_pair``) a pair."""
        return sum(map(len, self.pipeline.post_processor.around(pair=is_pair)))

    def _names(self, ids: list[int]) -> list[str]:
        return [self.id_to_token(token_id) or "" for token_id in ids]

    # -- truncation and padding -------------------------------------------------------------------------------------

    def enable_truncation(
        self, max_length: int, stride: int = 0, strategy: str = "longest_first", direction: str = "right"
    ) -> None:
        """Truncate every encoding to ``max_length`` tokens, the rest into overflowing windows overlapping by
        ``stride`` (``Tokenizer.enable_truncation``).

        Raises:
            ValueError: naming an unknown ``strategy`` or ``direction``, or a ``stride`` that leaves no room in
                ``max_length`` less the special tokens added to one sequence (``TokenizerImpl::with_truncation``).
        """
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy={strategy!r}: use one of {list(STRATEGIES)}")
        if direction not in DIRECTIONS:
            raise ValueError(f"direction={direction!r}: use one of {list(DIRECTIONS)}")
        added = self.num_special_tokens_to_add(False)
        if not stride_fits(max_length, stride, added):
            raise ValueError(
                f"stride={stride} is larger than max_length={max_length} less the {added} special tokens the "
                "post-processor adds; choose a smaller stride"
            )
        self._truncation = {"max_length": max_length, "stride": stride, "strategy": strategy, "direction": direction}

    def no_truncation(self) -> None:
        """Truncate nothing."""
        self._truncation = None

    @property
    def truncation(self) -> dict[str, Any] | None:
        """The truncation's settings (None: off), as :meth:`enable_truncation` takes them."""
        return None if self._truncation is None else dict(self._truncation)

    def enable_padding(
        self,
        direction: str = "right",
        pad_id: int = 0,
        pad_type_id: int = 0,
        pad_token: str = "[PAD]",
        length: int | None = None,
        pad_to_multiple_of: int | None = None,
    ) -> None:
        """Pad every encoding to ``length`` (None: a batch's longest), rounded up to a multiple of
        ``pad_to_multiple_of`` (``Tokenizer.enable_padding``).

        Raises:
            ValueError: naming an unknown ``direction``.
        """
        if direction not in DIRECTIONS:
            raise ValueError(f"direction={direction!r}: use one of {list(DIRECTIONS)}")
        self._padding = {
            "length": length,
            "pad_to_multiple_of": pad_to_multiple_of,
            "pad_id": pad_id,
            "pad_token": pad_token,
            "pad_type_id": pad_type_id,
            "direction": direction,
        }

    def no_padding(self) -> None:
        """Pad nothing."""
        self._padding = None

    @property
    def padding(self) -> dict[str, Any] | None:
        """The padding's settings (None: off), as :meth:`enable_padding` takes them."""
        return None if self._padding is None else dict(self._padding)

    def _pad(self, encodings: list[Encoding]) -> None:
        """``pad_encodings``: every row (and its windows) to the padding's length."""
        params = self._padding
        if params is None:
            return
        target = padding_length(encodings, params["length"], params["pad_to_multiple_of"])
        if target is None:
            return
        for encoding in encodings:
            encoding.pad(target, params["pad_id"], params["pad_type_id"], params["pad_token"], params["direction"])

    # -- encoding ---------------------------------------------------------------------------------------------------

    def encode(
        self,
        sequence: str | Sequence[str],
        pair: str | Sequence[str] | None = None,
        is_pretokenized: bool = False,
        add_special_tokens: bool = True,
    ) -> Encoding:
        """The :class:`~hf_bpe.pipeline.encoding.Encoding` of a text or (``pair``) a pair of texts; with
        ``is_pretokenized``, of lists of words, each word encoded on its own (``Tokenizer.encode``).

        Raises:
            TypeError: naming an input that is not text (or, with ``is_pretokenized``, not a list of words).
        """
        sequences = [sequence] if pair is None else [sequence, pair]
        for value in sequences:
            _check_sequence(value, is_pretokenized)
        parts = [self._encode_sequence(value, index, is_pretokenized) for index, value in enumerate(sequences)]
        row = self._post_process(parts, add_special_tokens)
        self._pad([row])
        return row

    def encode_batch(
        self, input: Sequence[EncodeInput], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> list[Encoding]:
        """:meth:`encode` of each item (a text or a pair of texts; with ``is_pretokenized``, a list of words or a
        pair of them), then padded together (``Tokenizer.encode_batch``).

        Raises:
            TypeError: naming an item that is none of those.
        """
        rows = [self.encode(*_sequences(item, is_pretokenized), is_pretokenized, add_special_tokens) for item in input]
        self._pad(rows)
        return rows

    def post_process(
        self, encoding: Encoding, pair: Encoding | None = None, add_special_tokens: bool = True
    ) -> Encoding:
        """What :meth:`encode` does after encoding each sequence, on encodings given (``Tokenizer.post_process``):
        truncation, the post-processor (its special tokens with ``add_special_tokens``), padding. The encodings
        given are left as they are."""
        parts = [copy.deepcopy(encoding)] if pair is None else [copy.deepcopy(encoding), copy.deepcopy(pair)]
        row = self._post_process(parts, add_special_tokens)
        self._pad([row])
        return row

    def _post_process(self, parts: list[Encoding], add_special_tokens: bool) -> Encoding:
        """``TokenizerImpl::post_process`` before padding: truncation, then the post-processor."""
        processor = self.pipeline.post_processor
        is_pair = len(parts) > 1
        if self._truncation is not None:
            added = self.num_special_tokens_to_add(is_pair) if add_special_tokens else 0
            params = self._truncation
            first, second = parts[0], parts[1] if is_pair else None
            truncate_encodings(
                first, second, params["max_length"], params["stride"], params["strategy"], params["direction"],
                added=added,
            )  # fmt: skip
        if processor.trim_offsets:
            for part in parts:
                for window in (part, *part.overflowing):
                    window.offsets = processor.trimmed(window.tokens or [], window.offsets)
        around = processor.around(pair=is_pair) if add_special_tokens else None
        types = processor.types(pair=is_pair)
        # PostProcessor::process marks each sequence's range, its windows' too; without a post-processor,
        # default_process marks a pair's kept rows only.
        ranges = self.file.sections.get("post_processor") is not None
        if not ranges and is_pair:
            for index, part in enumerate(parts):
                part.set_sequence_id(index)
        return post_process(parts, around, types, self._names, retypes_windows=processor.retypes_windows, ranges=ranges)

    def _encode_sequence(self, sequence: str | Sequence[str], type_id: int, is_pretokenized: bool) -> Encoding:
        """One sequence (``encode_single_sequence``): a text, its words its pre-tokens; or pre-split words, each
        encoded on its own (offsets within it), each token's word the given word's index."""
        ids: list[int] = []
        offsets: list[Span] = []
        tokens: list[str] = []
        words: list[int | None] = []
        for index, part in enumerate([sequence] if isinstance(sequence, str) else sequence):
            part_ids, part_offsets, part_tokens, part_words = self._encode_text(part)
            ids += part_ids
            offsets += part_offsets
            tokens += part_tokens
            words += [index] * len(part_ids) if is_pretokenized else part_words
        return Encoding(ids, [type_id] * len(ids), offsets=offsets, tokens=tokens, words=words)

    def _encode_text(self, text: str) -> tuple[list[int], list[Span], list[str], list[int | None]]:
        """The ids, offsets, tokens and word ids of one text: an added token matched in the raw text is one word,
        named by the text it took (``AddedVocabulary::split_with_indices``); each stretch between them goes
        through the pipeline, one word per pre-token."""
        ids: list[int] = []
        offsets: list[Span] = []
        tokens: list[str] = []
        words: list[int | None] = []
        word = 0
        for start, end, token in self._added_spans(text):
            if token is not None:
                ids.append(self._added_ids[token])
                offsets.append((start, end))
                tokens.append(text[start:end])
                words.append(word)
                word += 1
                continue
            for piece_ids, piece_offsets, names in self.pipeline.encode_words(text[start:end], start):
                ids += piece_ids
                offsets += piece_offsets
                tokens += names if names is not None else [self._model_names[i] for i in piece_ids]
                words += [word] * len(piece_ids)
                word += 1
        return ids, offsets, tokens, words

    def encode_ids(self, text: str) -> list[int]:
        """``encode(text, add_special_tokens=False).ids``, made without the rest of an ``Encoding`` (offsets, tokens,
        words) and without this tokenizer's truncation and padding (settings for model inputs): what counting a sample
        needs (``hf-bpe report``'s figures, ``hf-bpe trim``'s token use), in a ninth of the time. The added tokens cut
        the raw text as :meth:`encode` cuts it, the pipeline encodes the rest (its span-free path where the file
        allows it).

        >>> import json
        >>> from hf_bpe.models.bpe.files import byte_level_document
        >>> from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
        >>> from hf_bpe.pipeline.tokenizer_json import special_token_entry
        >>> document = byte_level_document({"a": 0, "b": 1, "ab": 2, "Ġ": 3, "<s>": 4}, [("a", "b")], PreTokenizer(),
        ...     added_tokens=[{**special_token_entry(4, "<s>"), "lstrip": True}])
        >>> tokenizer = Tokenizer.from_str(json.dumps(document))
        >>> tokenizer.encode_ids("ab <s>ab b"), tokenizer.encode("ab <s>ab b", add_special_tokens=False).ids
        ([2, 4, 2, 3, 1], [2, 4, 2, 3, 1])
        """
        return self.pipeline.encode_spans(text, self._added_spans(text), self._added_ids)

    def _added_spans(self, text: str) -> list[tuple[int, int, str | None]]:
        """``text`` cut around the added tokens matched in the raw text, with their flags."""
        if self._raw_pattern is None or not self._strips:
            return list(split_around(text, self._raw_pattern))
        added, ids = self._added, self._added_ids
        return added_token_spans(text, self._raw_pattern, lambda token: added[ids[token]])

    # -- decoding ---------------------------------------------------------------------------------------------------

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """The text of ``ids`` as ``Tokenizer::decode`` gives it: each id's token (an added token's content, or
        for a ``normalized`` one its content normalized; an id neither knows is left out), the special ones left
        out with ``skip_special_tokens`` (judged by that name), through the decoder (none: joined by spaces)."""
        tokens = []
        decoded = self._decoded
        for token_id in ids:
            token = decoded[token_id] if token_id in decoded else self.id_to_token(token_id)
            if token is None or (skip_special_tokens and token in self._special):
                continue
            tokens.append(token)
        return self.pipeline.decode(tokens)

    def decode_batch(self, sequences: Sequence[Sequence[int]], skip_special_tokens: bool = True) -> list[str]:
        """:meth:`decode` of each list of ids."""
        return [self.decode(ids, skip_special_tokens) for ids in sequences]


def _check_sequence(value: Any, is_pretokenized: bool) -> None:
    """Refuse what ``encode`` cannot take as one sequence.

    Raises:
        TypeError: naming the value.
    """
    if is_pretokenized:
        if not (isinstance(value, (list, tuple)) and all(isinstance(word, str) for word in value)):
            raise TypeError(
                f"expected a list of words (is_pretokenized=True), got {type(value).__name__}: {value!r:.60}"
            )
    elif not isinstance(value, str):
        raise TypeError(f"expected a string to encode, got {type(value).__name__}: {value!r:.60}")


def _sequences(item: EncodeInput, is_pretokenized: bool) -> tuple[Any, Any]:
    """An ``encode_batch`` item as ``(sequence, pair or None)``, as the binding reads ``EncodeInput``: a text, or
    two texts; pre-tokenized, a list of words, or two lists of them.

    Raises:
        TypeError: naming an item that is none of those.
    """
    if is_pretokenized:
        if isinstance(item, (list, tuple)) and all(isinstance(word, str) for word in item):
            return item, None
        is_pair = isinstance(item, (list, tuple)) and len(item) == 2 and all(isinstance(p, (list, tuple)) for p in item)
    else:
        if isinstance(item, str):
            return item, None
        is_pair = isinstance(item, (list, tuple)) and len(item) == 2 and all(isinstance(p, str) for p in item)
    if not is_pair:
        raise TypeError(f"an encode_batch item that is neither a sequence nor a pair of them: {item!r:.60}")
    return item[0], item[1]


def _added_token(token: Any, special: bool) -> AddedToken:
    """An ``add_tokens`` item as an :class:`~hf_bpe.pipeline.added_tokens.AddedToken`: a text with the binding's
    defaults (``normalized`` unless special), an added token of any library with its flags (marked special by
    ``add_special_tokens``).

    Raises:
        TypeError: naming an item that is neither.
    """
    if isinstance(token, str):
        return AddedToken(token, normalized=not special, special=special)
    if special and not isinstance(token, AddedToken) and hasattr(token, "special"):
        # As the binding does: the caller's token is marked special, and an unset ``normalized`` follows it.
        token.special = True
    try:
        flags = {name: getattr(token, name) for name in ("single_word", "lstrip", "rstrip", "normalized", "special")}
        content = token.content
    except AttributeError:
        raise TypeError(f"expected a text or an AddedToken to add, got {type(token).__name__}: {token!r:.60}") from None
    if not isinstance(content, str):
        raise TypeError(f"an AddedToken whose content is not text: {content!r:.60}")
    return AddedToken(
        content,
        **{**{name: bool(value) for name, value in flags.items()}, "special": special or bool(flags["special"])},
    )
