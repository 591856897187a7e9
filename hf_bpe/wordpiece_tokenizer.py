"""The transformers class for WordPiece: BERT's tokenizer on transformers v5's Python backend.

:class:`WordPieceTokenizer` is a ``PreTrainedTokenizer`` (``PythonBackend``) that loads ``vocab.txt`` (hf_bpe's or
BERT's own) and gives the ids, offsets and decoded text of transformers' Rust ``BertTokenizer`` loaded from the
same file: BERT's normalizer and pre-tokenizer (:mod:`hf_bpe.models.wordpiece.recipe`), greedy
longest-match-first (:mod:`hf_bpe.models.wordpiece.encoder`), ``[CLS] A [SEP] B [SEP]`` with ``token_type_ids``,
and the WordPiece decoder. transformers does padding, truncation and the other outputs; offsets are computed here.
"""

from __future__ import annotations

import os
import threading
from typing import Any, cast

import regex

from hf_bpe._auto import quiet_transformers_import
from hf_bpe.files import TOKENIZER_FILE, write_files
from hf_bpe.models.wordpiece.encoder import WordPieceEncoder
from hf_bpe.models.wordpiece.files import VOCAB_TXT, format_vocab_txt, read_vocab_txt, wordpiece_tokenizer_json
from hf_bpe.models.wordpiece.recipe import BertRecipe
from hf_bpe.pretokenizer import split_around, whole_tokens_pattern

with quiet_transformers_import():
    from transformers import BatchEncoding, PretrainedConfig, PreTrainedTokenizer
    from transformers.tokenization_utils_base import PaddingStrategy, TruncationStrategy

#: How deep this thread is in nested ``_encode_plus`` calls (transformers' batch path calls it per item).
_NESTING = threading.local()

#: What the WordPiece decoder's cleanup takes out (``tokenizers``' ``decoders::wordpiece::cleanup``).
_CLEANUP = (
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" do not", " don't"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
)


#: Patterns matching each set of added tokens whole (longest first), as transformers' trie splits text.
_ADDED_PATTERNS: dict[tuple[str, ...], regex.Pattern[str] | None] = {}


def _added_pattern(tokens: tuple[str, ...]) -> regex.Pattern[str] | None:
    found = _ADDED_PATTERNS.get(tokens, False)
    if found is False:
        if len(_ADDED_PATTERNS) > 64:
            _ADDED_PATTERNS.clear()
        found = _ADDED_PATTERNS[tokens] = whole_tokens_pattern(tokens)
    return found


class WordPieceTokenizerConfig(PretrainedConfig):
    """Stands for "a model using hf_bpe's WordPiece tokenizer" in transformers' registries (see
    :mod:`hf_bpe._auto`); it configures nothing."""

    model_type = "hf_bpe_wordpiece"


class WordPieceTokenizer(PreTrainedTokenizer):
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

    def __init__(
        self,
        vocab_file: str | os.PathLike[str],
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
        **kwargs: Any,
    ) -> None:
        self.vocab = read_vocab_txt(vocab_file)
        self.ids_to_tokens = {token_id: token for token, token_id in self.vocab.items()}
        self.recipe = BertRecipe(clean_text, tokenize_chinese_chars, strip_accents, do_lower_case)
        self.do_lower_case = do_lower_case
        self.wordpieces_prefix = wordpieces_prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        self.encoder = WordPieceEncoder(
            self.vocab,
            unk_token=str(unk_token),
            continuing_subword_prefix=wordpieces_prefix,
            max_input_chars_per_word=max_input_chars_per_word,
        )
        kwargs.setdefault("special_tokens_pattern", "cls_sep")
        super().__init__(
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

    # -- the vocabulary -------------------------------------------------------------------------------------------

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def get_vocab(self) -> dict[str, int]:
        return {**self.vocab, **self.added_tokens_encoder}

    def _convert_token_to_id(self, token: str) -> int:
        found = self.vocab.get(token)
        return self.encoder.unk_id if found is None else found

    def _convert_id_to_token(self, index: int) -> str:
        token = self.ids_to_tokens.get(index)
        if token is None:
            raise IndexError(f"id {index} is not in the vocabulary (size {len(self.vocab)})")
        return token

    # -- encoding -------------------------------------------------------------------------------------------------

    def _tokenize(self, text: str, **kwargs: Any) -> list[str]:
        """Word pieces of ``text`` (no added-token matching; transformers' ``tokenize`` does that)."""
        tokens = self.ids_to_tokens
        return [tokens[token_id] for word in self.recipe.words(text) for token_id in self.encoder.encode_word(word)]

    def encode_text(self, text: str, *, split_special_tokens: bool = False) -> list[int]:
        """The ids of one text, added and special tokens matched whole (unless ``split_special_tokens``), as
        ``convert_tokens_to_ids(tokenize(text))`` gives them.

        Raises:
            TypeError: if ``text`` is not a string.
        """
        if not isinstance(text, str):
            raise TypeError(f"expected a string to encode, got {type(text).__name__}: {text!r:.60}")
        added = self._added_tokens_encoder
        pattern = None if split_special_tokens else _added_pattern(tuple(added))
        ids: list[int] = []
        encode = self.encoder.encode_word
        words = self.recipe.words
        for start, end, token in split_around(text, pattern):
            if token is not None:
                ids.append(added[token])
            else:
                for word in words(text[start:end]):
                    ids += encode(word)
        return ids

    def encode_with_offsets(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        """The ids of one text (added and special tokens matched whole, as ``tokenize`` does) and each token's
        ``(start, end)`` character span in ``text``, as the Rust backend reports them."""
        ids: list[int] = []
        offsets: list[tuple[int, int]] = []
        added = self._added_tokens_encoder
        position = 0
        parts = self.tokens_trie.split(text) if added and not self.split_special_tokens else [text]
        for part in parts:
            if part in added:
                ids.append(added[part])
                offsets.append((position, position + len(part)))
            else:
                for word, (start, end) in self.recipe.pieces(part):
                    normalized_length = len(word)
                    for token_id, piece_start, piece_end in self.encoder.encode_word_with_offsets(word):
                        ids.append(token_id)
                        if normalized_length == end - start:
                            offsets.append((position + start + piece_start, position + start + piece_end))
                        elif piece_start == 0 and piece_end == normalized_length:
                            offsets.append((position + start, position + end))
                        else:
                            offsets.append(self._piece_span(part, position, start, end, piece_start, piece_end))
            position += len(part)
        return ids, offsets

    def _piece_span(
        self, part: str, position: int, start: int, end: int, piece_start: int, piece_end: int
    ) -> tuple[int, int]:
        """The original span of characters ``piece_start:piece_end`` of the normalized word at ``start:end``,
        where normalizing changed its length: each normalized character maps to the original one it came from."""
        _, origins = self.recipe.normalize_with_origins(part[start:end])
        return (position + start + origins[piece_start], position + start + origins[piece_end - 1] + 1)

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
        if isinstance(text, str) and text_pair == "" and not getattr(_NESTING, "depth", 0):
            # The Rust backend takes an empty second text of a single pair as no pair (in a batch, as a pair).
            text_pair = None
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
        plain = (
            text_pair is None
            and not is_split_into_words
            and (isinstance(text, str) or (isinstance(text, (list, tuple)) and all(isinstance(t, str) for t in text)))
            and padding_strategy == PaddingStrategy.DO_NOT_PAD
            and truncation_strategy == TruncationStrategy.DO_NOT_TRUNCATE
            and not (return_overflowing_tokens or return_special_tokens_mask or return_length)
            and not any(value for key, value in kwargs.items() if key != "split_special_tokens")
            and not any(t.lstrip or t.rstrip or t.single_word for t in self._added_tokens_decoder.values())
        )
        if plain:
            # The common `tok(texts)`: ids straight from the encoder, without transformers' per-token Python loop.
            split = kwargs.get("split_special_tokens", self.split_special_tokens)
            rows = [
                self.encode_text(t, split_special_tokens=split) for t in ([text] if isinstance(text, str) else text)
            ]
            if add_special_tokens:
                rows = [self.build_inputs_with_special_tokens(ids) for ids in rows]
            data: dict[str, Any] = {"input_ids": rows}
            if return_token_type_ids or (return_token_type_ids is None and "token_type_ids" in self.model_input_names):
                data["token_type_ids"] = [[0] * len(ids) for ids in rows]
            if return_attention_mask or (return_attention_mask is None and "attention_mask" in self.model_input_names):
                data["attention_mask"] = [[1] * len(ids) for ids in rows]
            if isinstance(text, str):
                data = {key: value[0] for key, value in data.items()}
                return BatchEncoding(data, tensor_type=return_tensors, prepend_batch_axis=return_tensors is not None)
            return BatchEncoding(data, tensor_type=return_tensors)
        if not kwargs.pop("return_offsets_mapping", False):
            # transformers' batch path calls this method once per item: only the outermost call fixes `length`.
            outermost = not getattr(_NESTING, "depth", 0)
            _NESTING.depth = getattr(_NESTING, "depth", 0) + 1
            try:
                encoded = super()._encode_plus(
                    cast(Any, text), text_pair=text_pair, is_split_into_words=is_split_into_words, **options, **kwargs
                )
            finally:
                _NESTING.depth -= 1
            if not outermost:
                return encoded
            return self._length_as_rust(encoded, text, is_split_into_words, return_length, return_tensors)
        kwargs.pop("split_special_tokens", None)
        if is_split_into_words or return_overflowing_tokens or kwargs:
            raise NotImplementedError(
                "hf_bpe's WordPieceTokenizer returns offsets for strings and pairs of strings, without "
                "is_split_into_words or overflowing tokens; for those, load the directory's tokenizer.json with "
                "transformers' BertTokenizer"
            )
        encoded = self._with_offsets(text, text_pair, options)
        return self._length_as_rust(encoded, text, is_split_into_words, return_length, return_tensors)

    @staticmethod
    def _length_as_rust(
        encoded: BatchEncoding, text: Any, split: bool, return_length: bool, tensors: Any
    ) -> BatchEncoding:
        """The Rust backend gives ``length`` as a one-item list for a single text; so does this class."""
        single = isinstance(text, str) or (split and text and isinstance(text[0], str))
        if return_length and single and tensors is None and isinstance(encoded.get("length"), int):
            encoded["length"] = [encoded["length"]]
        return encoded

    def _with_offsets(self, text: Any, text_pair: Any, options: dict[str, Any]) -> BatchEncoding:
        """``return_offsets_mapping=True``: ids through :meth:`encode_with_offsets`, then transformers' own
        truncation, special tokens and padding on the ids, with the offsets cut and padded to match."""
        batched = not isinstance(text, str)
        texts = list(text) if batched else [text]
        if text_pair is None:
            pairs: list[Any] = [None] * len(texts)
            if batched and texts and all(isinstance(t, (list, tuple)) and len(t) == 2 for t in texts):
                texts, pairs = [t[0] for t in texts], [t[1] for t in texts]
        else:
            pairs = list(text_pair) if batched else [text_pair]
        rows: dict[str, list[Any]] = {}
        for first, second in zip(texts, pairs, strict=True):
            ids, offsets = self.encode_with_offsets(first)
            pair_ids, pair_offsets = self.encode_with_offsets(second) if second is not None else (None, None)
            encoded = self.prepare_for_model(
                ids,
                pair_ids=pair_ids,
                add_special_tokens=options["add_special_tokens"],
                padding=PaddingStrategy.DO_NOT_PAD.value,
                truncation=options["truncation_strategy"].value,
                max_length=options["max_length"],
                stride=options["stride"],
                return_attention_mask=False,
                return_token_type_ids=options["return_token_type_ids"],
                return_special_tokens_mask=options["return_special_tokens_mask"],
                return_length=options["return_length"],
                verbose=options["verbose"],
            )
            kept = self._kept_offsets(offsets, pair_offsets, options)
            for key, value in encoded.items():
                rows.setdefault(key, []).append(value)
            rows.setdefault("offset_mapping", []).append(kept)
        padded = self.pad(
            rows,
            padding=options["padding_strategy"].value,
            max_length=options["max_length"],
            pad_to_multiple_of=options["pad_to_multiple_of"],
            padding_side=options["padding_side"],
            return_attention_mask=options["return_attention_mask"],
        )
        data = dict(padded)
        side = options["padding_side"] or self.padding_side
        for row, (ids, offsets) in enumerate(zip(data["input_ids"], data["offset_mapping"], strict=True)):
            missing = [(0, 0)] * (len(ids) - len(offsets))
            data["offset_mapping"][row] = [*missing, *offsets] if side == "left" else [*offsets, *missing]
        if not batched:
            data = {key: value[0] for key, value in data.items()}
            tensors = options["return_tensors"]
            return BatchEncoding(data, tensor_type=tensors, prepend_batch_axis=tensors is not None)
        return BatchEncoding(data, tensor_type=options["return_tensors"])

    def _kept_offsets(
        self,
        offsets: list[tuple[int, int]],
        pair_offsets: list[tuple[int, int]] | None,
        options: dict[str, Any],
    ) -> list[tuple[int, int]]:
        """The offsets of what ``prepare_for_model`` kept: the same truncation run on the offsets themselves
        (``truncate_sequences`` only slices), ``(0, 0)`` for the special tokens around the sequences."""
        with_specials = options["add_special_tokens"]
        pair = pair_offsets is not None
        special = self.num_special_tokens_to_add(pair=pair) if with_specials else 0
        total = len(offsets) + len(pair_offsets or []) + special
        max_length = options["max_length"]
        strategy = options["truncation_strategy"]
        if strategy != TruncationStrategy.DO_NOT_TRUNCATE and max_length and total > max_length:
            cut, cut_pair, _ = self.truncate_sequences(
                cast(Any, offsets),
                pair_ids=cast(Any, pair_offsets),
                num_tokens_to_remove=total - max_length,
                truncation_strategy=strategy,
                stride=options["stride"],
            )
            offsets, pair_offsets = cast(Any, cut), cast(Any, cut_pair)
        if not with_specials:
            return [*offsets, *(pair_offsets or [])]
        if pair_offsets is None:
            return [(0, 0), *offsets, (0, 0)]
        return [(0, 0), *offsets, (0, 0), *pair_offsets, (0, 0)]

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

    # -- decoding -------------------------------------------------------------------------------------------------

    def convert_tokens_to_string(self, tokens: list[str]) -> str:
        """The WordPiece decoder: pieces with the prefix join the token before, others start a new word; then its
        cleanup of spaces before punctuation."""
        out = []
        prefix = self.wordpieces_prefix
        for index, token in enumerate(tokens):
            if index:
                token = token[len(prefix) :] if token.startswith(prefix) else " " + token
            for dirty, clean in _CLEANUP:
                token = token.replace(dirty, clean)
            out.append(token)
        return "".join(out)

    def _decode(
        self,
        token_ids: int | list[int],
        skip_special_tokens: bool = False,
        clean_up_tokenization_spaces: bool | None = None,
        **kwargs: Any,
    ) -> str:
        ids = [token_ids] if isinstance(token_ids, int) else token_ids
        special = set(self.all_special_ids) if skip_special_tokens else set()
        added = self._added_tokens_decoder
        tokens = []
        for token_id in ids:
            token_id = int(token_id)
            if token_id in special:
                continue
            tokens.append(added[token_id].content if token_id in added else self._convert_id_to_token(token_id))
        text = self.convert_tokens_to_string(tokens)
        clean = (
            self.clean_up_tokenization_spaces if clean_up_tokenization_spaces is None else clean_up_tokenization_spaces
        )
        return self.clean_up_tokenization(text) if clean else text

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
