"""The transformers tokenizer class: GPT-2-style byte-level BPE on transformers v5's Python backend.

:class:`BPETokenizer` is a ``PreTrainedTokenizer`` (v5's ``PythonBackend``) that loads ``vocab.json`` +
``merges.txt`` (hf_bpe's or GPT-2's own) and gives exactly GPT-2's ids. The BPE work is
:class:`hf_bpe.bpe.BytePairEncoder`'s; this module adapts it to transformers: special and added tokens, the
backend hooks, saving, pickling, and a fast path for the common ``tok(texts)`` call that skips transformers'
per-token Python loop (the generic path is several times slower than the Rust backend).
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Sequence
from typing import Any, cast

import regex

from hf_bpe._auto import quiet_transformers_import
from hf_bpe.bpe import BytePairEncoder
from hf_bpe.byte_level import from_byte_level, replace_surrogates
from hf_bpe.files import (
    GPT2_SPECIAL_TOKEN,
    MERGES_FILE,
    TOKENIZER_FILE,
    VOCAB_FILE,
    format_merges,
    format_vocab,
    read_merges,
    read_vocab,
    tokenizer_json,
    write_files,
)
from hf_bpe.pretokenizer import PreTokenizer, split_around, whole_tokens_pattern

# Often hf_bpe's first import of transformers (the package itself leaves transformers alone until needed).
with quiet_transformers_import():
    from transformers import BatchEncoding, PretrainedConfig, PreTrainedTokenizer
    from transformers.tokenization_utils_base import PaddingStrategy, TruncationStrategy

#: The module ``save_pretrained`` writes beside the files after ``register_for_auto_class()``.
REMOTE_CODE_MODULE = """\
# Written by hf_bpe for AutoTokenizer.from_pretrained(..., trust_remote_code=True).
# The tokenizer class is hf_bpe's BPETokenizer, from the installed package.
try:
    from hf_bpe.tokenizer import BPETokenizer
except ImportError as error:
    raise ImportError("this tokenizer needs the hf_bpe package: pip install hf-bpe") from error

__all__ = ["BPETokenizer"]
"""


class VocabularyFilesTokenizer(PreTrainedTokenizer):
    """What hf_bpe's transformers classes share: a vocabulary (``encoder``/``decoder``) and ``merges`` read from
    ``vocab.json`` + ``merges.txt``, the token/id conversions, and saving those files plus a ``tokenizer.json``.
    """

    vocab_files_names = {"vocab_file": VOCAB_FILE, "merges_file": MERGES_FILE}  # noqa: RUF012 (transformers' API)
    model_input_names = ["input_ids", "attention_mask"]  # noqa: RUF012

    encoder: dict[str, int]
    decoder: dict[int, str]
    merges: list[tuple[str, str]]

    def _load_files(
        self, vocab_file: str | os.PathLike[str], merges_file: str | os.PathLike[str], *, check_merges: bool = True
    ) -> None:
        """Read the files; subclasses call it before ``super().__init__()``.

        ``check_merges`` checks that each merge's parts and result are in the vocabulary (not possible where a
        merge drops a continuing-subword prefix from its right part).
        """
        self.encoder = read_vocab(vocab_file)
        self.decoder = {token_id: token for token, token_id in self.encoder.items()}
        self.merges = read_merges(merges_file, self.encoder if check_merges else None)

    @property
    def vocab_size(self) -> int:
        return len(self.encoder)

    def get_vocab(self) -> dict[str, int]:
        return {**self.encoder, **self.added_tokens_encoder}

    def _convert_token_to_id(self, token: str) -> int:
        found = self.encoder.get(token)
        if found is None:
            found = self.encoder.get(str(self.unk_token)) if self.unk_token is not None else None
        if found is None:
            raise KeyError(f"token {token!r} is not in the vocabulary and there is no unk_token")
        return found

    def _convert_id_to_token(self, index: int) -> str:
        token = self.decoder.get(index)
        if token is None:
            raise IndexError(f"id {index} is not in the vocabulary (size {len(self.encoder)})")
        return token

    def _tokenizer_json(self, special_tokens: list[str]) -> str:
        """``tokenizer.json`` for these files (each subclass knows its pre-tokenizer)."""
        raise NotImplementedError

    def save_vocabulary(self, save_directory: str, filename_prefix: str | None = None) -> tuple[str, ...]:
        """Write ``vocab.json``, ``merges.txt`` and, for loading without hf_bpe, ``tokenizer.json``."""
        prefix = f"{filename_prefix}-" if filename_prefix else ""
        specials = [token for token in self._added_tokens_encoder if token in self.encoder]
        files = {
            prefix + VOCAB_FILE: format_vocab(self.encoder),
            prefix + MERGES_FILE: format_merges(self.merges),
            prefix + TOKENIZER_FILE: self._tokenizer_json(specials),
        }
        write_files(save_directory, files)
        return tuple(os.path.join(save_directory, name) for name in files)


class BPETokenizerConfig(PretrainedConfig):
    """Stands for "a model using hf_bpe's tokenizer" in transformers' registries (see :mod:`hf_bpe._auto`); it
    configures nothing."""

    model_type = "hf_bpe"


class BPETokenizer(VocabularyFilesTokenizer):
    """Byte-level BPE tokenizer for transformers, identical in its ids to GPT-2's tokenizer.

    Args:
        vocab_file: path to ``vocab.json``.
        merges_file: path to ``merges.txt``.
        errors: how ``decode`` treats invalid UTF-8 (as ``bytes.decode``).
        unk_token: the unknown token (GPT-2: ``<|endoftext|>``).
        bos_token: the beginning-of-sequence token (GPT-2: ``<|endoftext|>``).
        eos_token: the end-of-sequence token (GPT-2: ``<|endoftext|>``).
        pad_token: the padding token (GPT-2 has none).
        add_prefix_space: add a space before the text, so the first word is encoded like any other (the rule of
            ``tokenizers``' ByteLevel: each stretch of text between added tokens that does not start with ``" "``;
            see :meth:`hf_bpe.pretokenizer.PreTokenizer.pre_tokenize`).
        pre_tokenizer: how text is cut, as ``tokenizer_config.json`` records it (``splits``, ``normalizer``,
            ``engine``; see :meth:`hf_bpe.pretokenizer.PreTokenizer.model_settings`); default GPT-2's.
        add_bos_token: put ``bos_token`` in front of every sequence.
        clean_up_tokenization_spaces: off by default, so that ``decode(encode(s)) == s``.

    >>> import hf_bpe, tempfile
    >>> directory = tempfile.mkdtemp()
    >>> _ = hf_bpe.train_from_iterator(["hug pug hug"], vocab_size=260).save(directory)
    >>> tok = BPETokenizer.from_pretrained(directory)
    >>> tok("hug pug")["input_ids"], tok.decode(tok("hug pug")["input_ids"])
    ([257, 220, 258], 'hug pug')
    """

    def __init__(
        self,
        vocab_file: str | os.PathLike[str],
        merges_file: str | os.PathLike[str],
        errors: str = "replace",
        unk_token: Any = GPT2_SPECIAL_TOKEN,
        bos_token: Any = GPT2_SPECIAL_TOKEN,
        eos_token: Any = GPT2_SPECIAL_TOKEN,
        pad_token: Any = None,
        add_prefix_space: bool = False,
        add_bos_token: bool = False,
        clean_up_tokenization_spaces: bool = False,
        pre_tokenizer: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self._load_files(vocab_file, merges_file)
        cut = PreTokenizer.from_settings({**(pre_tokenizer or {}), "add_prefix_space": bool(add_prefix_space)})
        self.bpe = BytePairEncoder(self.encoder, self.merges, pre_tokenizer=cut)
        self.errors = errors
        self.add_prefix_space = add_prefix_space
        self.add_bos_token = add_bos_token
        self._added_matcher = _AddedTokenMatcher()
        self._prefix_for_call: bool | None = None
        super().__init__(
            pre_tokenizer=cut.model_settings(),
            errors=errors,
            unk_token=unk_token,
            bos_token=bos_token,
            eos_token=eos_token,
            pad_token=pad_token,
            add_prefix_space=add_prefix_space,
            add_bos_token=add_bos_token,
            clean_up_tokenization_spaces=clean_up_tokenization_spaces,
            **kwargs,
        )

    # -- encoding -----------------------------------------------------------------------------------------------

    def tokenize(self, text: str, **kwargs: Any) -> list[str]:  # type: ignore[override]
        """The byte-level tokens of ``text``, added and special tokens matched whole.

        ``add_prefix_space`` (and ``is_split_into_words``, which implies it) applies to each stretch of text
        between added tokens, as in ``tokenizers``.

        Raises:
            TypeError: if ``text`` is not a string.
        """
        if not isinstance(text, str):
            raise TypeError(f"expected a string to tokenize, got {type(text).__name__}: {text!r:.60}")
        prefix = kwargs.pop("add_prefix_space", None)
        if kwargs.pop("is_split_into_words", False):
            prefix = True
        # transformers calls _tokenize without the call's options: they wait here for the length of the call.
        self._prefix_for_call = self.add_prefix_space if prefix is None else prefix
        try:
            return super().tokenize(text, **kwargs)
        finally:
            self._prefix_for_call = None

    def _tokenize(self, text: str, **kwargs: Any) -> list[str]:
        """Byte-level tokens of ``text`` (no special-token matching; transformers' slow path does that)."""
        prefix = self.add_prefix_space if self._prefix_for_call is None else self._prefix_for_call
        ids = self.bpe.encode_ordinary(replace_surrogates(text), add_prefix_space=prefix)
        return [self.decoder[token_id] for token_id in ids]

    def _fast_path_ok(self) -> bool:
        """Whether no added token needs transformers' own handling (lstrip/rstrip/single_word/normalized)."""
        return not any(
            token.lstrip or token.rstrip or token.single_word for token in self._added_tokens_decoder.values()
        )

    def encode_text(
        self, text: str, *, split_special_tokens: bool = False, add_prefix_space: bool | None = None
    ) -> list[int]:
        """The ids of one text, added and special tokens matched whole (unless ``split_special_tokens``).

        Raises:
            TypeError: if ``text`` is not a string.
        """
        if not isinstance(text, str):
            raise TypeError(f"expected a string to encode, got {type(text).__name__}: {text!r:.60}")
        text = replace_surrogates(text)
        prefix = self.add_prefix_space if add_prefix_space is None else add_prefix_space
        pattern = None if split_special_tokens else self._added_matcher.pattern(self._added_tokens_encoder)
        return self.bpe.encode_around(text, pattern, self._added_tokens_encoder, add_prefix_space=prefix)

    def encode_text_with_offsets(
        self, text: str, *, split_special_tokens: bool = False
    ) -> tuple[list[int], list[tuple[int, int]]]:
        """The ids of one text and each token's ``(start, end)`` character span in it, as the Rust backend gives
        them: a token holding part of a character's UTF-8 bytes spans that whole character.

        Raises:
            TypeError: if ``text`` is not a string.
        """
        if not isinstance(text, str):
            raise TypeError(f"expected a string to encode, got {type(text).__name__}: {text!r:.60}")
        text = replace_surrogates(text)
        pattern = None if split_special_tokens else self._added_matcher.pattern(self._added_tokens_encoder)
        added = self._added_tokens_encoder
        spans = [
            (start, end, None if token is None else added[token]) for start, end, token in split_around(text, pattern)
        ]
        ids: list[int] = []
        offsets: list[tuple[int, int]] = []
        decoder = self.decoder
        for begin, end, added_id in spans:
            if added_id is not None:
                ids.append(added_id)
                offsets.append((begin, end))
                continue
            position = begin
            for piece in self.bpe.pieces(text[begin:end], add_prefix_space=False):
                # The character each UTF-8 byte of the piece belongs to.
                owner = [position + k for k, char in enumerate(piece) for _ in range(len(char.encode("utf-8")))]
                byte = 0
                for token_id in self.bpe.encode_ordinary(piece):
                    size = len(from_byte_level(decoder[token_id]))
                    ids.append(token_id)
                    offsets.append((owner[byte], owner[byte + size - 1] + 1))
                    byte += size
                position += len(piece)
        return ids, offsets

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
        if not isinstance(text, (str, list, tuple)):
            raise TypeError(
                f"expected a string or a list of strings to encode, got {type(text).__name__}: {text!r:.60}"
            )
        texts = [text] if isinstance(text, str) else text
        for index, item in enumerate(texts):
            # Strings, pairs or pre-split words (lists), or ids (ints, already encoded) are what transformers takes.
            if not isinstance(item, (str, list, tuple, int)):
                raise TypeError(
                    f"item {index} of the batch is {type(item).__name__}: {item!r:.60}; expected a string to encode"
                )
        simple = (
            text_pair is None
            and not is_split_into_words
            and isinstance(texts, (list, tuple))
            and all(isinstance(t, str) for t in texts)
            and not any(
                value
                for key, value in kwargs.items()
                if key not in ("split_special_tokens", "add_prefix_space", "return_offsets_mapping")
            )
            and self._fast_path_ok()
        )
        # What transformers' own path needs, for the cases it handles (pairs, truncation, padding, ...).
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
        if not simple:
            return super()._encode_plus(
                cast(Any, text), text_pair=text_pair, is_split_into_words=is_split_into_words, **options, **kwargs
            )
        split = kwargs.get("split_special_tokens", self.split_special_tokens)
        prefix = kwargs.get("add_prefix_space")
        if kwargs.get("return_offsets_mapping"):
            return self._with_offsets(text, texts, split, prefix, options)
        encoded = [self.encode_text(t, split_special_tokens=split, add_prefix_space=prefix) for t in texts]
        plain = (
            padding_strategy == PaddingStrategy.DO_NOT_PAD
            and truncation_strategy == TruncationStrategy.DO_NOT_TRUNCATE
            and not return_overflowing_tokens
            and not return_special_tokens_mask
            and not return_length
            and not return_token_type_ids
        )
        if (
            return_overflowing_tokens
            and truncation_strategy != TruncationStrategy.DO_NOT_TRUNCATE
            and max_length is not None
            and self.truncation_side == "right"
        ):
            # transformers' Python path returns overflow as extra keys (and fails on a batch where only some
            # texts overflow); the Rust backend returns the windows as rows, which is what users rely on.
            return self._overflowing_rows(encoded, add_special_tokens, max_length, stride, options)
        if not plain:
            # transformers does truncation, padding and the extra outputs from ids.
            ids: Any = encoded[0] if isinstance(text, str) else encoded
            return super()._encode_plus(ids, **options)
        if add_special_tokens and self.add_bos_token and self.bos_token_id is not None:
            bos = [self.bos_token_id]
            encoded = [bos + ids for ids in encoded]
        data: dict[str, Any] = {"input_ids": encoded}
        if return_attention_mask is None:
            return_attention_mask = "attention_mask" in self.model_input_names
        if return_attention_mask:
            data["attention_mask"] = [[1] * len(ids) for ids in encoded]
        if isinstance(text, str):
            data = {key: value[0] for key, value in data.items()}
            return BatchEncoding(data, tensor_type=return_tensors, prepend_batch_axis=return_tensors is not None)
        return BatchEncoding(data, tensor_type=return_tensors)

    def _with_offsets(
        self, text: Any, texts: Sequence[str], split: bool, prefix: bool | None, options: dict[str, Any]
    ) -> BatchEncoding:
        """``tok(texts, return_offsets_mapping=True)`` for plain calls (no padding, truncation or extra outputs)."""
        plain = (
            all(
                options[key] in (None, False, PaddingStrategy.DO_NOT_PAD, TruncationStrategy.DO_NOT_TRUNCATE)
                for key in ("padding_strategy", "truncation_strategy", "return_overflowing_tokens", "return_length")
            )
            and not options["return_special_tokens_mask"]
        )
        if (
            not plain
            or (self.add_prefix_space if prefix is None else prefix)
            or self.num_special_tokens_to_add()
            or self.bpe.pre_tokenizer.normalizer != "none"
        ):
            raise NotImplementedError(
                "hf_bpe's BPETokenizer returns offsets only without padding, truncation, extra outputs, a prefix "
                "space, a normalizer or added bos tokens; for those, load the directory's tokenizer.json with the "
                "Rust backend (transformers' GPT2Tokenizer or TokenizersBackend)"
            )
        encoded = [self.encode_text_with_offsets(t, split_special_tokens=split) for t in texts]
        data: dict[str, Any] = {"input_ids": [ids for ids, _ in encoded]}
        if options["return_attention_mask"] is not False:
            data["attention_mask"] = [[1] * len(ids) for ids, _ in encoded]
        data["offset_mapping"] = [offsets for _, offsets in encoded]
        if isinstance(text, str):
            data = {key: value[0] for key, value in data.items()}
            tensors = options["return_tensors"]
            return BatchEncoding(data, tensor_type=tensors, prepend_batch_axis=tensors is not None)
        return BatchEncoding(data, tensor_type=options["return_tensors"])

    def _overflowing_rows(
        self, encoded: list[list[int]], add_special_tokens: bool, max_length: int, stride: int, options: dict[str, Any]
    ) -> BatchEncoding:
        """Each text's ids cut into windows of ``max_length`` (special tokens included) overlapping by ``stride``,
        one row each, with ``overflow_to_sample_mapping``, as the Rust backend returns them."""
        width = max_length - (self.num_special_tokens_to_add() if add_special_tokens else 0)
        if width <= 0 or stride >= width:
            raise ValueError(
                f"stride={stride} with max_length={max_length} leaves no room to advance: the stride must be "
                f"smaller than max_length minus the special tokens added ({width})"
            )
        rows: list[list[int]] = []
        mapping: list[int] = []
        for sample, ids in enumerate(encoded):
            start = 0
            while True:  # the windows of tokenizers' Encoding.truncate (right side)
                stop = min(start + width, len(ids))
                rows.append(ids[start:stop])
                mapping.append(sample)
                if stop >= len(ids):
                    break
                start += width - stride
        data: dict[str, Any] = {
            "input_ids": [self.build_inputs_with_special_tokens(row) if add_special_tokens else row for row in rows]
        }
        if options["return_token_type_ids"]:
            data["token_type_ids"] = [[0] * len(row) for row in data["input_ids"]]
        if options["return_special_tokens_mask"]:
            data["special_tokens_mask"] = [
                self.get_special_tokens_mask(row) if add_special_tokens else [0] * len(row) for row in rows
            ]
        padded = self.pad(
            data,
            padding=options["padding_strategy"].value,
            max_length=max_length,
            pad_to_multiple_of=options["pad_to_multiple_of"],
            padding_side=options["padding_side"],
            return_attention_mask=options["return_attention_mask"],
        )
        result = dict(padded)
        result["overflow_to_sample_mapping"] = mapping
        if options["return_length"]:
            result["length"] = [len(ids) for ids in result["input_ids"]]
        return BatchEncoding(result, tensor_type=options["return_tensors"])

    def build_inputs_with_special_tokens(
        self, token_ids_0: list[int], token_ids_1: list[int] | None = None
    ) -> list[int]:
        bos = [self.bos_token_id] if self.add_bos_token and self.bos_token_id is not None else []
        output = bos + token_ids_0
        if token_ids_1 is not None:
            output = output + bos + token_ids_1
        return output

    def get_special_tokens_mask(
        self, token_ids_0: list[int], token_ids_1: list[int] | None = None, already_has_special_tokens: bool = False
    ) -> list[int]:
        if already_has_special_tokens:
            special = set(self.all_special_ids)
            return [1 if token_id in special else 0 for token_id in token_ids_0]
        bos = [1] if self.add_bos_token and self.bos_token_id is not None else []
        mask = bos + [0] * len(token_ids_0)
        if token_ids_1 is not None:
            mask += bos + [0] * len(token_ids_1)
        return mask

    def num_special_tokens_to_add(self, pair: bool = False) -> int:
        return (2 if pair else 1) if self.add_bos_token and self.bos_token_id is not None else 0

    # -- decoding -----------------------------------------------------------------------------------------------

    def convert_tokens_to_string(self, tokens: list[str]) -> str:
        data = bytearray()
        added = self._added_tokens_encoder
        for token in tokens:
            data += token.encode("utf-8") if token in added else from_byte_level(token)
        return data.decode("utf-8", self.errors)

    def _decode(
        self,
        token_ids: int | Sequence[int],
        skip_special_tokens: bool = False,
        clean_up_tokenization_spaces: bool | None = None,
        **kwargs: Any,
    ) -> str:
        ids = [token_ids] if isinstance(token_ids, int) else token_ids
        added = self._added_tokens_decoder
        special = set(self.all_special_ids) if skip_special_tokens else set()
        decoder = self.decoder
        data = bytearray()
        for token_id in ids:
            token_id = int(token_id)
            if token_id in special:
                continue
            if token_id in added:
                data += added[token_id].content.encode("utf-8")
            else:
                token = decoder.get(token_id)
                if token is None:
                    raise IndexError(f"id {token_id} is not in the vocabulary (size {len(self)})")
                data += from_byte_level(token)
        text = data.decode("utf-8", self.errors)
        clean = (
            self.clean_up_tokenization_spaces if clean_up_tokenization_spaces is None else clean_up_tokenization_spaces
        )
        return self.clean_up_tokenization(text) if clean else text

    # -- saving and pickling ------------------------------------------------------------------------------------

    @property
    def pre_tokenization(self) -> PreTokenizer:
        """How this tokenizer cuts text (its ``add_prefix_space`` is the tokenizer's)."""
        return dataclasses.replace(self.bpe.pre_tokenizer, add_prefix_space=bool(self.add_prefix_space))

    def _tokenizer_json(self, special_tokens: list[str]) -> str:
        return tokenizer_json(self.encoder, self.merges, special_tokens, pre_tokenizer=self.pre_tokenization)

    def train_new_from_iterator(
        self,
        text_iterator: Any,
        vocab_size: int,
        length: int | None = None,
        new_special_tokens: list[str] | None = None,
        special_tokens_map: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> BPETokenizer:
        """Train a new tokenizer like this one (prefix space, special tokens and their roles) with hf_bpe's trainer.

        Args:
            text_iterator: strings, or batches (lists) of strings; each string is one sequence.
            vocab_size: the new vocabulary's size, special tokens and the 256 byte characters included.
            length: ignored (the number of items, for transformers' progress bar).
            new_special_tokens: special tokens to add after this tokenizer's own.
            special_tokens_map: renames of special tokens (old text to new text).
            kwargs: ``min_frequency``, ``max_token_length``, ``limit_alphabet``, as in
                :func:`hf_bpe.train_from_iterator`.
        """
        from hf_bpe.training import train_from_iterator

        renames = special_tokens_map or {}
        specials = sorted(
            {token for token in self.all_special_tokens if token in self.encoder}, key=self.encoder.__getitem__
        )
        specials = [renames.get(token, token) for token in specials]
        specials += [token for token in new_special_tokens or [] if token not in specials]
        roles = {
            role: renames.get(str(getattr(self, role)), str(getattr(self, role)))
            for role in ("bos_token", "eos_token", "unk_token", "pad_token")
            if getattr(self, role) is not None
        }
        result = train_from_iterator(
            text_iterator,
            vocab_size=vocab_size,
            special_tokens=specials,
            pre_tokenizer=self.pre_tokenization,
            **kwargs,
        )
        with tempfile.TemporaryDirectory(prefix="hf-bpe-new-") as directory:
            result.save(directory, roles=roles)
            return type(self).from_pretrained(directory, errors=self.errors, add_bos_token=self.add_bos_token)

    def save_pretrained(self, save_directory: str | os.PathLike[str], *args: Any, **kwargs: Any) -> tuple[str, ...]:
        """transformers' ``save_pretrained``; after ``register_for_auto_class()`` it also writes the module file.

        transformers copies the class's module for ``trust_remote_code``; hf_bpe writes a two-line module that
        imports the class from the installed package instead, so a load gets this very class (and a clear
        error naming the package to install where hf_bpe is missing).
        """
        saved = super().save_pretrained(save_directory, *args, **kwargs)
        if getattr(self, "_auto_class", None):
            module = os.path.join(save_directory, os.path.basename(__file__))
            write_files(save_directory, {os.path.basename(module): REMOTE_CODE_MODULE})
        return tuple(saved)


class _AddedTokenMatcher:
    """A pattern matching every added token whole, longest first, rebuilt when the added tokens change.

    It holds only what can be derived again, so it pickles as nothing: a tokenizer's pickle, and ``datasets``'
    fingerprint of it (which hashes the tokenizer's ``__dict__``), do not depend on whether it was used.
    """

    def __init__(self) -> None:
        self._key: tuple[str, ...] | None = None
        self._pattern: regex.Pattern[str] | None = None

    def pattern(self, tokens: dict[str, int]) -> regex.Pattern[str] | None:
        key = tuple(tokens)
        if key != self._key:
            self._pattern = whole_tokens_pattern(key)
            self._key = key
        return self._pattern

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]
