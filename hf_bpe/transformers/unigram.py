"""The transformers class for Unigram tokenizers trained by ``hf-bpe train --model unigram``.

:class:`UnigramTokenizer` reads the ``tokenizer.json`` that training writes (a ``Unigram`` model behind
``SentencePieceUnigramTokenizer``'s recipe) and encodes as ``tokenizers`` does: special tokens are cut out of
the text first, every other stretch is normalized (``Nmt``, ``NFKC``, runs of spaces made one), cut before each
``▁`` with a ``▁`` in front, and each word is cut by Viterbi (:mod:`hf_bpe.models.unigram.encoder`). Decoding
is the ``Metaspace`` decoder's: ``▁`` becomes a space, except in the first token, where it is dropped. Offsets
map tokens back to the original text through the normalizers' alignments (:func:`aligned_words`).
"""

from __future__ import annotations

import os
from typing import Any

from hf_bpe.atomic import write_files
from hf_bpe.models.directory import TOKENIZER_FILE
from hf_bpe.models.unigram.encoder import UnigramEncoder
from hf_bpe.models.unigram.files import read_unigram_json, tokenizer_json
from hf_bpe.pipeline import sentencepiece as recipe
from hf_bpe.pipeline.normalizers import NMT_TABLE
from hf_bpe.transformers._import import quiet_transformers_import
from hf_bpe.transformers.rows import EncodingRowsTokenizer

with quiet_transformers_import():
    from transformers import PretrainedConfig

Span = tuple[int, int]


class UnigramTokenizerConfig(PretrainedConfig):
    """Stands for "a model using hf_bpe's Unigram tokenizer" in transformers' registries (see
    :mod:`hf_bpe.transformers.auto`)."""

    model_type = "hf_bpe_unigram"


def aligned_words(text: str, base: int = 0) -> list[tuple[str, list[Span]]]:
    """The recipe's words of ``text``, each with its characters' spans in ``text`` (plus ``base``).

    >>> [(word, spans[0], spans[-1]) for word, spans in aligned_words("ab  c")]
    [('▁ab', (0, 1), (1, 2)), ('▁c', (3, 4), (4, 5))]
    """
    kept: list[str] = []
    spans: list[Span] = []
    for index, char in enumerate(text):
        mapped = char.translate(NMT_TABLE)
        if mapped:
            kept.append(mapped)
            spans.append((base + index, base + index + 1))
    normalized, spans = recipe.nfkc_aligned("".join(kept), spans)
    # A run of spaces becomes one space, aligned to the run's last (tokenizers' ``Replace``).
    chars: list[str] = []
    char_spans: list[Span] = []
    for char, span in zip(normalized, spans, strict=True):
        if char == " " and chars and chars[-1] == " ":
            char_spans[-1] = span
            continue
        chars.append(char)
        char_spans.append(span)
    if not chars:
        return []
    chars = [recipe.METASPACE if char == " " else char for char in chars]
    if chars[0] != recipe.METASPACE:
        chars.insert(0, recipe.METASPACE)
        char_spans.insert(0, char_spans[0])
    words: list[tuple[str, list[Span]]] = []
    begin = 0
    for index in range(1, len(chars) + 1):
        if index == len(chars) or chars[index] == recipe.METASPACE:
            words.append(("".join(chars[begin:index]), char_spans[begin:index]))
            begin = index
    return words


class UnigramTokenizer(EncodingRowsTokenizer):
    """Unigram (SentencePiece-style) tokenizer for transformers, identical in its ids to ``tokenizers``' model.

    Args:
        tokenizer_file: path to the Unigram ``tokenizer.json``.
        unk_token: the unknown token (the model's own, by default).
        clean_up_tokenization_spaces: off, as the Rust backend has it for these files.

    >>> import tempfile
    >>> from hf_bpe.models.unigram.files import write_unigram_dir
    >>> directory = tempfile.mkdtemp()
    >>> pieces = [("<unk>", 0.0), ("▁", -2.0), ("▁hug", -1.0), ("s", -3.0)]
    >>> _ = write_unigram_dir(directory, pieces, 0, [])
    >>> tok = UnigramTokenizer.from_pretrained(directory)
    >>> tok("hugs")["input_ids"], tok.decode(tok("hugs")["input_ids"])
    ([2, 3], 'hugs')
    """

    vocab_files_names = {"tokenizer_file": TOKENIZER_FILE}  # noqa: RUF012 (transformers' API)
    model_input_names = ["input_ids", "attention_mask"]  # noqa: RUF012
    # Pre-split words are encoded here, each word on its own with offsets within it (the Rust backend's
    # pre-tokenized input); transformers' own path gives no offsets.
    encodes_split_words = True

    def __init__(
        self,
        tokenizer_file: str | os.PathLike[str],
        unk_token: Any = None,
        clean_up_tokenization_spaces: bool = False,
        **kwargs: Any,
    ) -> None:
        pieces, unk_id, specials = read_unigram_json(tokenizer_file)
        self.pieces = pieces
        self.unk_id = unk_id
        self.encoder = UnigramEncoder(pieces, unk_id)
        self.piece_ids = dict(self.encoder.ids)
        self._model_specials = specials
        if unk_token is None and unk_id is not None:
            unk_token = pieces[unk_id][0]
        kwargs.setdefault("extra_special_tokens", [t for t in specials if t not in kwargs.values() and t != unk_token])
        super().__init__(unk_token=unk_token, clean_up_tokenization_spaces=clean_up_tokenization_spaces, **kwargs)

    @property
    def vocab_size(self) -> int:
        return len(self.pieces)

    def get_vocab(self) -> dict[str, int]:
        return {**self.piece_ids, **self.added_tokens_encoder}

    def _tokenize(self, text: str, **kwargs: Any) -> list[str]:
        """The tokens (surface strings; a fused run of unknown characters is one) of text without special tokens."""
        return [token for _, token in self.encoder.encode(text)]

    def tokenize(
        self, text: str, pair: str | None = None, add_special_tokens: bool = False, **kwargs: Any
    ) -> list[str]:
        """``TokenizersBackend.tokenize``: the tokens of the Rust backend's ``Encoding`` (an unknown stretch as its
        text, an added token that strips with the white space it took); see
        :meth:`~hf_bpe.transformers.rows.EncodingRowsTokenizer.encoding_tokens`."""
        return self.encoding_tokens(text, pair, add_special_tokens, **kwargs)

    def stretch_tokens(self, text: str, start: int, end: int, **options: Any) -> list[str]:
        """The tokens of a stretch between added tokens: pieces, and each unknown stretch as its text."""
        return [token for _, token in self.encoder.encode(text[start:end])]

    def _convert_token_to_id(self, token: str) -> int:
        found = self.piece_ids.get(token, self.unk_id)
        if found is None:
            raise KeyError(f"token {token!r} is not in the vocabulary and there is no unk token")
        return found

    def _convert_id_to_token(self, index: int) -> str:
        if not 0 <= index < len(self.pieces):
            raise IndexError(f"id {index} is not in the vocabulary (size {len(self.pieces)})")
        return self.pieces[index][0]

    def convert_tokens_to_string(self, tokens: list[str]) -> str:
        """The ``Metaspace`` decoder: ``▁`` is a space, except in the first token, where it is dropped."""
        return "".join(
            token.replace(recipe.METASPACE, "") if index == 0 else token.replace(recipe.METASPACE, " ")
            for index, token in enumerate(tokens)
        )

    def encode_ordinary(self, text: str, **options: Any) -> list[int]:
        """The ids of text without special tokens (the recipe, then Viterbi on each word)."""
        return [token_id for token_id, _ in self.encoder.encode(text)]

    def encode_ordinary_with_offsets(self, text: str, **options: Any) -> tuple[list[int], list[Span]]:
        """The ids of text without special tokens and each token's span in ``text``, through the normalizers'
        alignments (:func:`aligned_words`).

        >>> import tempfile
        >>> from hf_bpe.models.unigram.files import write_unigram_dir
        >>> directory = tempfile.mkdtemp()
        >>> _ = write_unigram_dir(directory, [("<unk>", 0.0), ("▁", -2.0), ("▁hug", -1.0), ("s", -3.0)], 0, [])
        >>> UnigramTokenizer.from_pretrained(directory).encode_ordinary_with_offsets("hugs")
        ([2, 3], [(0, 3), (3, 4)])
        """
        ids: list[int] = []
        offsets: list[Span] = []
        for word, spans in aligned_words(text):
            index = 0
            for token_id, piece in self.encoder.encode_word(word):
                ids.append(token_id)
                offsets.append((spans[index][0], spans[index + len(piece) - 1][1]))
                index += len(piece)
        return ids, offsets

    def stretch_words(self, text: str, start: int, end: int, **options: Any) -> tuple[list[int], int]:
        """Each token's word (a ``▁``-led piece, Metaspace's pre-token) in a stretch between added tokens, and how
        many words it has."""
        words = [word for word, _ in aligned_words(text[start:end])]
        encode = self.encoder.encode_word
        return [index for index, word in enumerate(words) for _ in encode(word)], len(words)

    def save_vocabulary(self, save_directory: str, filename_prefix: str | None = None) -> tuple[str, ...]:
        """Write ``tokenizer.json`` (the model, its normalizers, pre-tokenizer, decoder and special tokens)."""
        prefix = f"{filename_prefix}-" if filename_prefix else ""
        specials = [token for token in self._added_tokens_encoder if token in self.piece_ids]
        files = {prefix + TOKENIZER_FILE: tokenizer_json(self.pieces, self.unk_id, specials)}
        write_files(save_directory, files)
        return tuple(os.path.join(save_directory, name) for name in files)
