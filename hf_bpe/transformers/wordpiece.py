"""The transformers class for WordPiece: BERT's tokenizer on transformers v5's Python backend.

:class:`WordPieceTokenizer` is a ``PreTrainedTokenizer`` (``PythonBackend``) that loads ``vocab.txt`` (hf_bpe's or
BERT's own) and gives the ids, offsets and decoded text of transformers' Rust ``BertTokenizer`` loaded from the
same file. It is :class:`~hf_bpe.transformers.pipeline.PipelineTokenizer` over the ``tokenizer.json`` it saves
(``tokenizers``' ``BertWordPieceTokenizer`` recipe: BertNormalizer, BertPreTokenizer, WordPiece and its decoder),
with BERT's classic arguments, ``[CLS] A [SEP] B [SEP]`` with ``token_type_ids`` as the roles are, and the Rust
backend's truncation of pairs.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from hf_bpe.atomic import write_files
from hf_bpe.models.directory import TOKENIZER_FILE
from hf_bpe.models.wordpiece.files import (
    VOCAB_TXT,
    format_vocab_txt,
    read_vocab_txt,
    wordpiece_document,
    wordpiece_tokenizer_json,
)
from hf_bpe.pipeline.bert import BertRecipe
from hf_bpe.pipeline.processors import Types
from hf_bpe.tokenizer.serialization import pipeline_from_data
from hf_bpe.transformers._import import quiet_transformers_import
from hf_bpe.transformers.pipeline import PipelineTokenizer
from hf_bpe.transformers.rows import Template

with quiet_transformers_import():
    from transformers import BatchEncoding, PretrainedConfig
    from transformers.tokenization_utils_base import TruncationStrategy

#: How deep this thread is in nested ``_encode_plus`` calls (transformers' batch path calls it per item).
_NESTING = threading.local()


class WordPieceTokenizerConfig(PretrainedConfig):
    """Stands for "a model using hf_bpe's WordPiece tokenizer" in transformers' registries (see
    :mod:`hf_bpe.transformers.auto`); it configures nothing."""

    model_type = "hf_bpe_wordpiece"


class WordPieceTokenizer(PipelineTokenizer):
    """BERT's WordPiece tokenizer for transformers, in Python.

    Args:
        vocab_file: path to ``vocab.txt``.
        do_lower_case: lowercase the text.
        unk_token: the unknown token.
        sep_token: the separator (ends each sequence).
        pad_token: the padding token.
        cls_token: the classifier token (starts the input).
        mask_token: the mask token.
        tokenize_chinese_chars: make each CJK ideograph a word of its own.
        strip_accents: drop accents; ``None`` follows ``do_lower_case``.
        clean_text: drop control characters, make all white space a space.
        wordpieces_prefix: the prefix of pieces that continue a word.
        max_input_chars_per_word: longer words are ``unk_token``.
        clean_up_tokenization_spaces: transformers' clean-up of decoded text (off, as in v5's BertTokenizer).
        vocab: instead of ``vocab_file``, the vocabulary in memory (token to id), as v5's ``BertTokenizer`` takes it.

    >>> import hf_bpe, tempfile
    >>> from hf_bpe.models.wordpiece.training import train_wordpiece_from_iterator
    >>> directory = tempfile.mkdtemp()
    >>> _ = train_wordpiece_from_iterator(["Hug, pug hugs pun!"] * 2, vocab_size=30).save(directory)
    >>> tok = WordPieceTokenizer.from_pretrained(directory)
    >>> tok.tokenize("Hugs, pugs!"), tok.decode(tok("Hugs, pugs!")["input_ids"])
    (['hugs', ',', 'pug', '##s', '!'], '[CLS] hugs, pugs! [SEP]')
    """

    vocab_files_names = {"vocab_file": VOCAB_TXT}  # noqa: RUF012 (transformers' API)
    model_input_names = ["input_ids", "token_type_ids", "attention_mask"]  # noqa: RUF012
    encodes_split_words = True

    def __init__(
        self,
        vocab_file: str | os.PathLike[str] | None = None,
        do_lower_case: bool = True,
        unk_token: Any = "[UNK]",
        sep_token: Any = "[SEP]",
        pad_token: Any = "[PAD]",
        cls_token: Any = "[CLS]",
        mask_token: Any = "[MASK]",
        tokenize_chinese_chars: bool = True,
        strip_accents: bool | None = None,
        clean_text: bool = True,
        wordpieces_prefix: str = "##",
        max_input_chars_per_word: int = 100,
        clean_up_tokenization_spaces: bool = False,
        *,
        vocab: dict[str, int] | Sequence[tuple[str, float]] | None = None,
        **kwargs: Any,
    ) -> None:
        if vocab is not None:
            if isinstance(vocab, (list, tuple)):
                # transformers' vocab-scores form (its extractor's, for models other than its own WordPiece):
                # (token, score) pairs in id order.
                vocab = {str(entry[0]): token_id for token_id, entry in enumerate(vocab)}
            if not isinstance(vocab, dict):
                raise TypeError(
                    f"vocab= must be a dict from token to id, or (token, score) pairs in id order; got "
                    f"{type(vocab).__name__}"
                )
            self.vocab = {str(token): int(token_id) for token, token_id in vocab.items()}
        elif vocab_file is not None:
            self.vocab = read_vocab_txt(vocab_file)
        else:
            where = kwargs.get("name_or_path") or "the directory"
            raise ValueError(f"{where}: WordPieceTokenizer needs vocab.txt; or pass vocab= (a dict from token to id)")
        kwargs.pop("merges", None)  # transformers' extractor passes merges to every model; WordPiece has none
        self.recipe = BertRecipe(clean_text, tokenize_chinese_chars, strip_accents, do_lower_case)
        self.do_lower_case = do_lower_case
        self.wordpieces_prefix = wordpieces_prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        # The pipeline is the tokenizer.json this class saves (BertWordPieceTokenizer's recipe), without a
        # post-processor: the special tokens around a sequence follow the roles (cls_token, sep_token) as they are.
        document = wordpiece_document(
            self.vocab,
            [],
            self.recipe,
            unk_token=str(unk_token),
            continuing_subword_prefix=wordpieces_prefix,
            max_input_chars_per_word=max_input_chars_per_word,
            cls_token=None,
            sep_token=None,
        )
        self._use_file(pipeline_from_data(document, vocab_file or VOCAB_TXT, owner=type(self).__name__))
        kwargs.setdefault("special_tokens_pattern", "cls_sep")
        kwargs.pop("tokenizer_file", None)
        super(PipelineTokenizer, self).__init__(
            do_lower_case=do_lower_case,
            unk_token=unk_token,
            sep_token=sep_token,
            pad_token=pad_token,
            cls_token=cls_token,
            mask_token=mask_token,
            tokenize_chinese_chars=tokenize_chinese_chars,
            strip_accents=strip_accents,
            clean_text=clean_text,
            wordpieces_prefix=wordpieces_prefix,
            max_input_chars_per_word=max_input_chars_per_word,
            clean_up_tokenization_spaces=clean_up_tokenization_spaces,
            **kwargs,
        )

    @property
    def vocab(self) -> dict[str, int]:
        """The vocabulary, token to id (``vocab.txt``'s)."""
        return self.encoder

    @vocab.setter
    def vocab(self, vocab: dict[str, int]) -> None:
        self.encoder = vocab

    @property
    def ids_to_tokens(self) -> dict[int, str]:
        """The vocabulary, id to token (as transformers' ``BertTokenizer`` names it)."""
        return self.decoder

    def special_tokens_types(self, pair: bool = False) -> Types:
        """BERT's types: ``[CLS] A [SEP]`` 0, ``B [SEP]`` 1."""
        before_a, after_a, before_b, after_b = self.special_tokens_template(pair=pair)
        return [0] * len(before_a), 0, [0] * len(after_a), [1] * len(before_b), 1, [1] * len(after_b)

    def special_tokens_template(self, pair: bool = False) -> Template:
        """``[CLS] A [SEP]`` and ``B [SEP]`` (BERT's ``TemplateProcessing``), as the roles are now."""
        cls = [self.cls_token_id] if self.cls_token_id is not None else []
        sep = [self.sep_token_id] if self.sep_token_id is not None else []
        return cls, sep, [], sep

    def _fallback_encode_plus(
        self, text: Any, text_pair: Any, is_split_into_words: bool, options: dict[str, Any], kwargs: dict[str, Any]
    ) -> BatchEncoding:
        """transformers' own path (ids, added tokens that strip), made to give the Rust backend's ``length`` and
        empty second text."""
        if isinstance(text, str) and text_pair == "" and not getattr(_NESTING, "depth", 0):
            # The Rust backend takes an empty second text of a single pair as no pair (in a batch, as a pair).
            text_pair = None
        # transformers' batch path calls _encode_plus once per item: only the outermost call fixes `length`.
        outermost = not getattr(_NESTING, "depth", 0)
        _NESTING.depth = getattr(_NESTING, "depth", 0) + 1
        try:
            encoded = super()._fallback_encode_plus(text, text_pair, is_split_into_words, options, kwargs)
        finally:
            _NESTING.depth -= 1
        single = isinstance(text, str) or (is_split_into_words and text and isinstance(text[0], str))
        length = encoded.get("length")
        if outermost and single and options["return_tensors"] is None and isinstance(length, int):
            # The Rust backend gives `length` as a one-item list for a single text.
            encoded["length"] = [length]
        return encoded

    def truncate_sequences(  # type: ignore[override]
        self,
        ids: list[int],
        pair_ids: list[int] | None = None,
        num_tokens_to_remove: int = 0,
        truncation_strategy: str | TruncationStrategy = "longest_first",
        stride: int = 0,
    ) -> tuple[list[int], list[int] | None, list[int]]:
        """transformers' ``truncate_sequences``, but a pair cut ``longest_first`` keeps the lengths the Rust backend
        keeps (``tokenizers``' ``truncate_encodings``): the shorter whole if the longer can take the cut, else
        half the room each, the odd token going to the second (transformers' Python path cuts one token at a time
        from the longer, the second on a tie)."""
        strategy = TruncationStrategy(truncation_strategy)
        if pair_ids is None or strategy != TruncationStrategy.LONGEST_FIRST or num_tokens_to_remove <= 0:
            return super().truncate_sequences(ids, pair_ids, num_tokens_to_remove, truncation_strategy, stride)
        room = len(ids) + len(pair_ids) - num_tokens_to_remove
        shorter, longer = sorted((len(ids), len(pair_ids)))
        longer = longer if shorter > room else max(shorter, room - shorter)
        if shorter + longer > room:
            shorter, longer = room // 2, room // 2 + room % 2
        first, second = (longer, shorter) if len(ids) > len(pair_ids) else (shorter, longer)

        def cut(values: list[int], keep: int) -> list[int]:
            if keep >= len(values):
                return values
            return values[len(values) - keep :] if self.truncation_side == "left" else values[:keep]

        return cut(ids, first), cut(pair_ids, second), []

    def prepare_for_model(  # type: ignore[override]
        self, ids: list[int], pair_ids: list[int] | None = None, add_special_tokens: bool = True, **kwargs: Any
    ) -> BatchEncoding:
        """transformers' ``prepare_for_model``; a pair without special tokens still gets ``token_type_ids`` 1 for
        its second sequence, as the Rust backend gives them (transformers' Python path gives all 0)."""
        if pair_ids is None or add_special_tokens:
            return super().prepare_for_model(ids, pair_ids=pair_ids, add_special_tokens=add_special_tokens, **kwargs)
        _NESTING.plain_pair = True
        try:
            return super().prepare_for_model(ids, pair_ids=pair_ids, add_special_tokens=True, **kwargs)
        finally:
            _NESTING.plain_pair = False

    def build_inputs_with_special_tokens(
        self, token_ids_0: list[int], token_ids_1: list[int] | None = None
    ) -> list[int]:
        if getattr(_NESTING, "plain_pair", False):
            return token_ids_0 + (token_ids_1 or [])
        return super().build_inputs_with_special_tokens(token_ids_0, token_ids_1)

    def get_special_tokens_mask(
        self, token_ids_0: list[int], token_ids_1: list[int] | None = None, already_has_special_tokens: bool = False
    ) -> list[int]:
        if getattr(_NESTING, "plain_pair", False) and not already_has_special_tokens:
            return [0] * (len(token_ids_0) + len(token_ids_1 or []))
        return super().get_special_tokens_mask(token_ids_0, token_ids_1, already_has_special_tokens)

    # -- training -------------------------------------------------------------------------------------------------

    def _trained_tokenizer(self, trained: Any, settings: dict[str, Any]) -> WordPieceTokenizer:
        """A new WordPiece tokenizer over the trained vocabulary, as the Rust ``BertTokenizer``'s
        ``train_new_from_iterator`` builds it (BERT's normalizer and pre-tokenizer kept, the special tokens first,
        ``[CLS] A [SEP]`` from the roles): its ``vocab.txt`` arguments, not the trained file."""
        return type(self)(vocab=trained.vocab, **settings)

    # -- saving ---------------------------------------------------------------------------------------------------

    def save_vocabulary(self, save_directory: str, filename_prefix: str | None = None) -> tuple[str, ...]:
        """Write ``vocab.txt`` and, for loading without hf_bpe, ``tokenizer.json``."""
        prefix = f"{filename_prefix}-" if filename_prefix else ""
        specials = [token for token in self._added_tokens_encoder if token in self.vocab]
        files = {
            prefix + VOCAB_TXT: format_vocab_txt(self.vocab),
            prefix + TOKENIZER_FILE: wordpiece_tokenizer_json(
                self.vocab,
                specials,
                self.recipe,
                unk_token=str(self.unk_token),
                continuing_subword_prefix=self.wordpieces_prefix,
                max_input_chars_per_word=self.max_input_chars_per_word,
                cls_token=str(self.cls_token) if self.cls_token is not None else None,
                sep_token=str(self.sep_token) if self.sep_token is not None else None,
            ),
        }
        write_files(save_directory, files)
        return tuple(os.path.join(save_directory, name) for name in files)
