"""The transformers class for any ``tokenizer.json``: :class:`PipelineTokenizer` runs the file's own pipeline.

It is a ``PreTrainedTokenizer`` (transformers v5's ``PythonBackend``) over hf_bpe's twins of the file's components
(:class:`~hf_bpe.pipeline.pipeline.Pipeline`): added tokens matched whole in the raw text, each stretch between them
normalized with every character's span kept, cut by the pre-tokenizer, encoded by the file's model (BPE on
characters with byte fallback, WordPiece, Unigram, WordLevel), put between the post-processor's special tokens, and
decoded by the file's decoder chain. Its ids, offsets and decodes are the Rust backend's for the same file. Every
other class of hf_bpe's is this one under the name of its files: byte-level BPE files (GPT-2, Llama-3, Qwen, ...) load
in :class:`~hf_bpe.transformers.bpe.BPETokenizer` (GPT-2's classic arguments), SentencePiece-style BPE files hf_bpe
saved in :class:`SentencePieceBPETokenizer`, and :class:`~hf_bpe.transformers.wordpiece.WordPieceTokenizer` (over the
``tokenizer.json`` a ``vocab.txt`` makes), :class:`~hf_bpe.transformers.unigram.UnigramTokenizer` and
:class:`~hf_bpe.transformers.char_bpe.CharBPETokenizer` are this class too.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hf_bpe.atomic import write_files
from hf_bpe.models.directory import TOKENIZER_FILE
from hf_bpe.pipeline.pipeline import Pipeline
from hf_bpe.pipeline.processors import Types
from hf_bpe.tokenizer.serialization import (
    PipelineJson,
    normalized_added,
    normalized_content,
    pipeline_json,
    read_pipeline_json,
)
from hf_bpe.transformers._import import quiet_transformers_import
from hf_bpe.transformers.rows import (
    ADDED_TOKEN_FIELDS,
    EncodingRowsTokenizer,
    Template,
    added_tokens_decoder,
    file_defaults,
)
from hf_bpe.transformers.vocabulary import VocabularyFilesTokenizer, file_key

with quiet_transformers_import():
    from transformers import PretrainedConfig


class PipelineTokenizerConfig(PretrainedConfig):
    """Stands for "a model using hf_bpe's tokenizer of any ``tokenizer.json``" in transformers' registries."""

    model_type = "hf_bpe_pipeline"


class PipelineTokenizer(VocabularyFilesTokenizer, EncodingRowsTokenizer):
    """Any ``tokenizer.json`` hf_bpe implements every component of, for transformers.

    Args:
        tokenizer_file: the ``tokenizer.json``; its ``truncation`` and ``padding`` sections give defaults
            (``padding_side``, ``pad_token``, ...) as transformers takes them
            (:func:`~hf_bpe.transformers.rows.file_defaults`).
        clean_up_tokenization_spaces: off by default, as the Rust backend loading the file alone.
        kwargs: transformers' (special-token roles, ``model_max_length``, ...).

    Raises:
        ValueError: naming the file and the JSON path of what hf_bpe does not implement, or of a truncation or
            padding section transformers cannot load either.
    """

    vocab_files_names = {"tokenizer_file": TOKENIZER_FILE}  # noqa: RUF012 (transformers' API)
    encodes_split_words = True
    model_input_names = ["input_ids", "attention_mask"]  # noqa: RUF012
    file: PipelineJson

    def __init__(
        self,
        tokenizer_file: str | os.PathLike[str] | None = None,
        clean_up_tokenization_spaces: bool = False,
        **kwargs: Any,
    ) -> None:
        # A trained file (train_new_from_iterator's), as TokenizersBackend takes its tokenizer_object.
        read = kwargs.pop("tokenizer_object", None)
        if read is None and tokenizer_file is None:
            where = kwargs.get("name_or_path") or "the directory"
            raise ValueError(f"{where}: no {TOKENIZER_FILE} there; {type(self).__name__} reads one")
        self._use_file(read if read is not None else loaded_file(file_key(str(tokenizer_file))))
        self._file_roles(kwargs)
        if "added_tokens_decoder" not in kwargs:
            kwargs["added_tokens_decoder"] = added_tokens_decoder(self.file.added_tokens)
        added = self.num_special_tokens_to_add(pair=False)
        file_defaults(
            kwargs, self.file.truncation, self.file.padding, added=added, path=tokenizer_file or TOKENIZER_FILE
        )
        kwargs.pop("backend", None)
        super().__init__(
            tokenizer_file=tokenizer_file, clean_up_tokenization_spaces=clean_up_tokenization_spaces, **kwargs
        )

    def _use_file(self, read: PipelineJson) -> None:
        """Take a read ``tokenizer.json`` as this tokenizer's pipeline and vocabulary (before transformers' own
        ``__init__``, which asks for both)."""
        self.file = read
        self.encoder = read.vocab
        self.decoder = dict(zip(self.encoder.values(), self.encoder, strict=True))
        self.pair_type_id = read.pipeline.post_processor.pair_type_id
        self.retypes_windows = read.pipeline.post_processor.retypes_windows

    def _file_roles(self, kwargs: dict[str, Any]) -> None:
        """Special-token roles the file gives where ``kwargs`` (transformers') give none: none here (the file's
        added tokens are handed over as they are)."""

    # -- encoding -----------------------------------------------------------------------------------------------

    def _tokenize(self, text: str, **kwargs: Any) -> list[str]:
        """The tokens of text with no added tokens in it (transformers' own path matches those)."""
        return [self.decoder[token_id] for token_id in self.encode_ordinary(text)]

    def make_tables(self) -> None:
        """Make now the tables the pipeline's model makes at its first word (before a batch is shared out to forked
        processes: :meth:`~hf_bpe.transformers.rows.EncodingRowsTokenizer.encode_texts`)."""
        self.pipeline.make_tables()

    def _pipeline_for(self, options: Mapping[str, Any]) -> Pipeline:
        """The pipeline a call with ``options`` (the class's ``call_options``) runs: :attr:`pipeline` here; a
        subclass with per-call options gives the pipeline they make (``BPETokenizer``'s ``add_prefix_space``)."""
        return self.pipeline

    def tokenize(
        self, text: str, pair: str | None = None, add_special_tokens: bool = False, **kwargs: Any
    ) -> list[str]:
        """``TokenizersBackend.tokenize``: the tokens of the Rust backend's ``Encoding`` (a Unigram file's unknown
        stretch as its text, an added token that strips with the white space it took); see
        :meth:`~hf_bpe.transformers.rows.EncodingRowsTokenizer.encoding_tokens`."""
        return self.encoding_tokens(text, pair, add_special_tokens, **kwargs)

    def stretch_tokens(self, text: str, start: int, end: int, **options: Any) -> list[str]:
        """The tokens of a stretch between added tokens as the file's model names them
        (:meth:`~hf_bpe.pipeline.pipeline.Pipeline.encode_words`: a Unigram model's unknown stretch is the text it
        covers, an added token matched in the normalized text that text, any other token its vocabulary entry)."""
        out: list[str] = []
        for ids, _, names in self._pipeline_for(options).encode_words(text[start:end], start):
            out += names if names is not None else [self.decoder[token_id] for token_id in ids]
        return out

    def stretch_words(self, text: str, start: int, end: int, **options: Any) -> tuple[list[int], int]:
        """Each token's pre-token in a stretch between added tokens (an added token matched in the normalized text
        is one), and how many pre-tokens it has."""
        pieces = self._pipeline_for(options).encode_words(text[start:end], start)
        return [word for word, (ids, _, _) in enumerate(pieces) for _ in ids], len(pieces)

    def encode_ordinary(self, text: str, **options: Any) -> list[int]:
        """The ids of text with no added tokens in it (no offsets: ``tok(texts)``'s path)."""
        return self._pipeline_for(options).encode(text)

    def encode_ordinary_with_offsets(self, text: str, **options: Any) -> tuple[list[int], list[tuple[int, int]]]:
        """The ids of text with no added tokens in it, and each token's ``(start, end)`` character span."""
        return self._pipeline_for(options).encode_with_offsets(text)

    def encode_parts(self, text: str, parts: list[str], **options: Any) -> list[int]:
        """The ids of ``text`` cut into ``parts`` around its added tokens, every stretch encoded in one call
        (:meth:`~hf_bpe.pipeline.pipeline.Pipeline.encode_parts`)."""
        return self._pipeline_for(options).encode_parts(parts, self._added_tokens_encoder)

    def encode_spans(self, text: str, spans: list[tuple[int, int, str | None]], **options: Any) -> list[int]:
        """The ids of ``text`` cut into ``spans`` around its added tokens, every stretch encoded in one call
        (:meth:`~hf_bpe.pipeline.pipeline.Pipeline.encode_spans`)."""
        return self._pipeline_for(options).encode_spans(text, spans, self._added_tokens_encoder)

    def encode_stretch(self, text: str, start: int, end: int, **options: Any) -> list[int]:
        """The ids of ``text[start:end]``, a stretch between added tokens, knowing where it starts."""
        return self._pipeline_for(options).encode(text[start:end], start)

    def encode_stretch_with_offsets(
        self, text: str, start: int, end: int, **options: Any
    ) -> tuple[list[int], list[tuple[int, int]]]:
        """:meth:`encode_stretch` with each token's ``(start, end)`` in ``text``."""
        return self._pipeline_for(options).encode_with_offsets(text[start:end], start)

    def special_tokens_template(self, pair: bool = False) -> Template:
        """The post-processor's special tokens around each sequence."""
        return self.pipeline.post_processor.around(pair=pair)

    def raw_added_tokens(self) -> dict[str, int]:
        """The added tokens matched in the raw text: all but the ``normalized`` ones, which the pipeline matches in
        the normalized text."""

        def raw() -> dict[str, int]:
            decoder = self._added_tokens_decoder
            if not any(token.normalized for token in decoder.values()):
                return self._added_tokens_encoder
            return {token.content: i for i, token in decoder.items() if not token.normalized}

        return self._added_matcher.cached("raw", raw)

    def added_token_names(self) -> dict[int, str]:
        """Each added token's name in decoding and :meth:`convert_ids_to_tokens`: a ``normalized`` token's content
        normalized (``AddedVocabulary``'s normalized cache: Llama-2's ``"a b"`` is ``"▁a▁b"``), another's content."""

        def names() -> dict[int, str]:
            normalizer = self.file.pipeline.normalizer
            return {
                token_id: normalized_content(normalizer, token.content) if token.normalized else token.content
                for token_id, token in self._added_tokens_decoder.items()
            }

        return self._added_matcher.cached("names", names)

    def convert_ids_to_tokens(  # one signature for transformers' two overloads
        self, ids: int | list[int], skip_special_tokens: bool = False
    ) -> Any:
        """The tokens of ``ids`` as the Rust backend names them (an added token by :meth:`added_token_names`)."""
        names = self.added_token_names()
        if isinstance(ids, int):
            return names[ids] if ids in names else self._convert_id_to_token(ids)
        skipped = set(self.all_special_ids) if skip_special_tokens else set()  # as both backends skip them
        return [names[i] if i in names else self._convert_id_to_token(i) for i in map(int, ids) if i not in skipped]

    @property
    def pipeline(self) -> Pipeline:
        """The file's pipeline, matching in the normalized text the added tokens that are ``normalized`` now: the
        file's, and any added since (``AddedVocabulary::add_tokens`` normalizes such a token's content when it is
        added; transformers' ``add_tokens`` makes a text one)."""
        matcher = self.__dict__.get("_added_matcher")
        if matcher is None:  # in the constructor, before there are added tokens of this tokenizer's own
            return self.file.pipeline
        return matcher.cached("pipeline", self._normalized_pipeline)

    def _normalized_pipeline(self) -> Pipeline:
        def flags(entries: Iterable[Mapping[str, Any]]) -> list[tuple[Any, ...]]:
            return [tuple(entry.get(key) for key in ("id", *ADDED_TOKEN_FIELDS)) for entry in entries]

        normalized = self.added_token_entries(normalized_only=True)
        if flags(normalized) == flags(entry for entry in self.file.added_tokens if entry.get("normalized")):
            return self.file.pipeline  # the file's own, read with it
        matched, token_flags = normalized_added(normalized, self.file.pipeline.normalizer)
        return dataclasses.replace(self.file.pipeline, normalized_added=matched, normalized_flags=token_flags)

    def special_tokens_types(self, pair: bool = False) -> Types | None:
        """The type ids the post-processor gives its special tokens and the sequences."""
        return self.pipeline.post_processor.types(pair=pair)

    def processed_offsets(self, ids: list[int], offsets: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """A sequence's offsets as the post-processor leaves them (``trim_offsets``)."""
        if not self.pipeline.post_processor.trim_offsets:
            return offsets
        return self.pipeline.post_processor.trimmed(self.convert_ids_to_tokens(ids), offsets)

    # -- decoding -----------------------------------------------------------------------------------------------

    def convert_tokens_to_string(self, tokens: list[str]) -> str:
        return self.pipeline.decode(tokens)

    def _decode(
        self,
        token_ids: int | Sequence[int],
        skip_special_tokens: bool = False,
        clean_up_tokenization_spaces: bool | None = None,
        **kwargs: Any,
    ) -> str:
        return self.decode_by_tokens(token_ids, skip_special_tokens, clean_up_tokenization_spaces)

    # -- saving ---------------------------------------------------------------------------------------------------

    def save_vocabulary(self, save_directory: str, filename_prefix: str | None = None) -> tuple[str, ...]:
        """Write ``tokenizer.json``: the file's pipeline with this tokenizer's added tokens (and the file's truncation
        and padding sections, as the Rust backend writes them before its first call)."""
        name = f"{filename_prefix}-{TOKENIZER_FILE}" if filename_prefix else TOKENIZER_FILE
        write_files(save_directory, {name: pipeline_json(self.file, self.added_token_entries())})
        return (os.path.join(save_directory, name),)

    def train_new_from_iterator(
        self,
        text_iterator: Any,
        vocab_size: int,
        length: int | None = None,
        new_special_tokens: list[Any] | None = None,
        special_tokens_map: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> PipelineTokenizer:
        """Train a new tokenizer like this one with hf_bpe's trainers: what the Rust backend's
        ``TokenizersBackend.train_new_from_iterator`` gives for the same file and texts
        (:func:`~hf_bpe.transformers.retraining.retrain`: the file's normalizer, pre-tokenizer and decoder kept, the
        post-processor's ids renumbered, special tokens first).

        Args:
            text_iterator: strings, or batches (lists) of strings; each string is one sequence.
            vocab_size: the new vocabulary's size, special tokens included.
            length: ignored (the number of items, for transformers' progress bar).
            new_special_tokens: special tokens (strings or ``AddedToken``) to add after this tokenizer's own.
            special_tokens_map: renames of special tokens (old text to new text).
            kwargs: the ``tokenizers`` trainer's options hf_bpe implements
                (:data:`~hf_bpe.transformers.retraining.TRAINER_OPTIONS`).

        Raises:
            ValueError: naming a model (WordLevel) or an option hf_bpe does not train with; a post-processor's special
                token missing from the new vocabulary.
        """
        from hf_bpe.transformers.retraining import rebuilt_settings, retrain

        renames = special_tokens_map or {}
        trained = retrain(
            self.file,
            self.added_token_entries(),
            text_iterator,
            vocab_size,
            new_special_tokens=new_special_tokens,
            renames=renames,
            options=kwargs,
        )
        return self._trained_tokenizer(trained, rebuilt_settings(self, trained, renames, new_special_tokens))

    def _trained_tokenizer(self, trained: Any, settings: dict[str, Any]) -> PipelineTokenizer:
        """The tokenizer of this class over the trained file (a :class:`~hf_bpe.transformers.retraining.Retrained`)
        with the rebuilt ``settings``, as ``TokenizersBackend`` takes its ``tokenizer_object``."""
        from hf_bpe.transformers.retraining import trained_file

        read = trained_file(trained, settings["added_tokens_decoder"], owner=type(self).__name__)
        return type(self)(tokenizer_object=read, **settings)


class SentencePieceBPETokenizer(PipelineTokenizer):
    """A SentencePiece-style BPE ``tokenizer.json`` (Gemma, Mistral-7B, Llama-2, Yi, ...): :class:`PipelineTokenizer`
    under the name hf_bpe saved such files with."""


class SentencePieceBPETokenizerConfig(PretrainedConfig):
    """Stands for "a model using hf_bpe's SentencePiece-style BPE tokenizer" in transformers' registries."""

    model_type = "hf_bpe_sentencepiece_bpe"


@functools.lru_cache(maxsize=4)
def loaded_file(key: tuple[str, int, int]) -> PipelineJson:
    """``tokenizer.json``, read once per file version (Gemma's 580,000 merges take seconds)."""
    return read_pipeline_json(key[0])
