"""The transformers class for SentencePiece-style BPE ``tokenizer.json`` files: Gemma 1/2/3, Mistral-7B, Llama-2,
Yi, InternLM2, Baichuan2, ChatGLM3.

:class:`SentencePieceBPETokenizer` is a ``PreTrainedTokenizer`` (transformers v5's ``PythonBackend``) that runs the
file's pipeline with hf_bpe's twins of its components: added tokens matched whole in the raw text, each stretch
between them normalized (``Replace``, ``Prepend``, ...) with every character's span kept, cut by the
pre-tokenizer, encoded by :class:`~hf_bpe.models.bpe.symbols.SymbolBPE` (byte fallback, fused unknowns), put
between the template's special tokens, and decoded by the file's decoder chain. Its ids, offsets and decodes are
the Rust backend's for the same file.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Any

from hf_bpe.atomic import write_files
from hf_bpe.models.bpe.symbol_files import SymbolBpeJson, read_symbol_bpe_json, symbol_bpe_json
from hf_bpe.models.directory import TOKENIZER_FILE
from hf_bpe.transformers._import import quiet_transformers_import
from hf_bpe.transformers.bpe import VocabularyFilesTokenizer, file_key
from hf_bpe.transformers.rows import EncodingRowsTokenizer, Template, added_tokens_decoder

with quiet_transformers_import():
    from transformers import PretrainedConfig


class SentencePieceBPETokenizerConfig(PretrainedConfig):
    """Stands for "a model using hf_bpe's SentencePiece-style BPE tokenizer" in transformers' registries."""

    model_type = "hf_bpe_sentencepiece_bpe"


class SentencePieceBPETokenizer(VocabularyFilesTokenizer, EncodingRowsTokenizer):
    """A SentencePiece-style BPE ``tokenizer.json`` (byte fallback, ``▁`` for spaces) for transformers.

    Args:
        tokenizer_file: the ``tokenizer.json``.
        clean_up_tokenization_spaces: off by default, as the Rust backend loading the file alone.
        kwargs: transformers' (special-token roles, ``model_max_length``, ...).

    Raises:
        ValueError: naming the file and the JSON path of what hf_bpe does not implement.
    """

    vocab_files_names = {"tokenizer_file": TOKENIZER_FILE}  # noqa: RUF012 (transformers' API)
    model_input_names = ["input_ids", "attention_mask"]  # noqa: RUF012

    def __init__(
        self,
        tokenizer_file: str | os.PathLike[str] | None = None,
        clean_up_tokenization_spaces: bool = False,
        **kwargs: Any,
    ) -> None:
        if tokenizer_file is None:
            where = kwargs.get("name_or_path") or "the directory"
            raise ValueError(f"{where}: no {TOKENIZER_FILE} there; {type(self).__name__} reads one")
        self.file: SymbolBpeJson = _loaded(file_key(tokenizer_file))
        self.encoder = self.file.model.vocab
        self.decoder = {token_id: token for token, token_id in self.encoder.items()}
        self.template = self.file.template
        if "added_tokens_decoder" not in kwargs:
            kwargs["added_tokens_decoder"] = added_tokens_decoder(self.file.added_tokens)
        kwargs.pop("backend", None)
        super().__init__(
            tokenizer_file=tokenizer_file, clean_up_tokenization_spaces=clean_up_tokenization_spaces, **kwargs
        )

    # -- encoding -----------------------------------------------------------------------------------------------

    def _tokenize(self, text: str, **kwargs: Any) -> list[str]:
        """The tokens of text with no added tokens in it (transformers' own path matches those)."""
        return [self.decoder[token_id] for token_id in self.encode_ordinary(text)]

    def encode_ordinary(self, text: str, **options: Any) -> list[int]:
        """The ids of text with no added tokens in it (no offsets: ``tok(texts)``'s path)."""
        normalized, spans = self.file.normalizer.normalize(text, [(i, i + 1) for i in range(len(text))])
        tokenize = self.file.model.tokenize
        return [token_id for piece, _ in self.file.pre_tokenizer.pre_tokenize(normalized, spans)
                for token_id, _ in tokenize(piece)]  # fmt: skip

    def encode_ordinary_with_offsets(self, text: str, **options: Any) -> tuple[list[int], list[tuple[int, int]]]:
        """The ids of text with no added tokens in it, and each token's ``(start, end)`` character span: the
        normalizer's spans followed through the pre-tokenizer to each UTF-8 byte a token covers."""
        normalized, spans = self.file.normalizer.normalize(text, [(i, i + 1) for i in range(len(text))])
        ids: list[int] = []
        offsets: list[tuple[int, int]] = []
        for piece, piece_spans in self.file.pre_tokenizer.pre_tokenize(normalized, spans):
            owner = [span for char, span in zip(piece, piece_spans, strict=True) for _ in char.encode("utf-8")]
            byte = 0
            for token_id, size in self.file.model.tokenize(piece):
                ids.append(token_id)
                offsets.append((owner[byte][0], owner[byte + size - 1][1]))
                byte += size
        return ids, offsets

    def special_tokens_template(self, pair: bool = False) -> Template:
        """The file's template (none where it has none)."""
        return self.template.around(pair=pair) if self.template is not None else ([], [], [], [])

    # -- decoding -----------------------------------------------------------------------------------------------

    def convert_tokens_to_string(self, tokens: list[str]) -> str:
        return self.file.decoder.decode(tokens)

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
        """Write ``tokenizer.json``: the file's pipeline with this tokenizer's added tokens."""
        name = f"{filename_prefix}-{TOKENIZER_FILE}" if filename_prefix else TOKENIZER_FILE
        entries = [
            {"id": token_id, **{key: getattr(token, key) for key in _ADDED_TOKEN_FIELDS}}
            for token_id, token in sorted(self._added_tokens_decoder.items())
        ]
        write_files(save_directory, {name: symbol_bpe_json(self.file, entries)})
        return (os.path.join(save_directory, name),)


_ADDED_TOKEN_FIELDS = ("content", "single_word", "lstrip", "rstrip", "normalized", "special")


@functools.lru_cache(maxsize=4)
def _loaded(key: tuple[str, int, int]) -> SymbolBpeJson:
    """``tokenizer.json``, read once per file version (Gemma's 580,000 merges take seconds)."""
    return read_symbol_bpe_json(key[0])
