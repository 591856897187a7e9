"""The transformers class for char-level BPE (GPT-1 / Sennrich style), sibling of :class:`hf_bpe.BPETokenizer`.

:class:`CharBPETokenizer` loads the ``vocab.json`` + ``merges.txt`` that ``hf-bpe train --char-level`` writes and
encodes as ``tokenizers``' BPE model does behind a ``WhitespaceSplit`` pre-tokenizer (and ``Lowercase``, when
trained so): every word on its own, its last character carrying the end-of-word suffix (every other one the
continuing-subword prefix), merges applied by rank, characters outside the vocabulary as the unknown token.
Decoding turns the suffix back into spaces, as ``BPEDecoder`` does. File reading is :mod:`hf_bpe.models.bpe.files`' job.
Calls take the shared path (:class:`~hf_bpe.transformers.rows.EncodingRowsTokenizer`): each token's span in the
text and its word, so ``BatchEncoding``'s ``word_ids()``, ``tokens()``, offsets and ``sequence_ids()`` are the Rust
backend's.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from hf_bpe.models.bpe.encoder import merge_by_rank
from hf_bpe.models.bpe.files import tokenizer_json
from hf_bpe.models.bpe.options import CharLevel
from hf_bpe.pipeline import normalizers
from hf_bpe.pipeline.pre_tokenizers import WHITESPACE_SPLIT_PATTERN, SplitPattern
from hf_bpe.transformers._import import quiet_transformers_import
from hf_bpe.transformers.bpe import VocabularyFilesTokenizer
from hf_bpe.transformers.rows import EncodingRowsTokenizer

with quiet_transformers_import():
    from transformers import PretrainedConfig


class DroppedCharactersWarning(UserWarning):
    """A char-level tokenizer without an unknown token dropped characters it has not seen (as ``tokenizers`` does)."""


class CharBPETokenizerConfig(PretrainedConfig):
    """The stand-in of :class:`hf_bpe.transformers.bpe.BPETokenizerConfig` for hf_bpe's char-level tokenizer."""

    model_type = "hf_bpe_char"


Span = tuple[int, int]


class CharBPETokenizer(VocabularyFilesTokenizer, EncodingRowsTokenizer):
    """Char-level BPE tokenizer with an end-of-word suffix, for transformers.

    Args:
        vocab_file: path to ``vocab.json``.
        merges_file: path to ``merges.txt``.
        end_of_word_suffix: the suffix on a word's last character (``"</w>"``), or None.
        continuing_subword_prefix: the prefix on a word's other characters (``"##"``), or None.
        lowercase: lowercase text before encoding.
        unk_token: what characters outside the vocabulary become (dropped when None, as in ``tokenizers``).

    >>> import hf_bpe, tempfile
    >>> from hf_bpe.models.bpe.files import CharLevel
    >>> directory = tempfile.mkdtemp()
    >>> counts = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    >>> _ = hf_bpe.train_from_counts(counts, vocab_size=18, char_level=CharLevel()).save(directory)
    >>> tok = CharBPETokenizer.from_pretrained(directory)
    >>> tok.tokenize("lowest newer")
    ['lo', 'w', 'est</w>', 'new', 'e', 'r</w>']
    >>> tok.decode(tok("lowest newer")["input_ids"])
    'lowest newer'
    """

    # No per-call options (a byte-level BPE's add_prefix_space means nothing here); pre-split words are encoded here,
    # each on its own, as the Rust backend's pre-tokenized input.
    call_options = ()
    encodes_split_words = True

    def __init__(
        self,
        vocab_file: str | os.PathLike[str],
        merges_file: str | os.PathLike[str],
        end_of_word_suffix: str | None = "</w>",
        continuing_subword_prefix: str | None = None,
        lowercase: bool = False,
        unk_token: Any = None,
        clean_up_tokenization_spaces: bool = False,
        **kwargs: Any,
    ) -> None:
        self._load_files(vocab_file, merges_file, check_merges=not continuing_subword_prefix)
        # A pair listed twice takes its last rank, as in the Rust model.
        self.ranks = {pair: rank for rank, pair in enumerate(self.merges)}
        self.char_level = CharLevel(end_of_word_suffix, continuing_subword_prefix, lowercase)
        self._words = SplitPattern(WHITESPACE_SPLIT_PATTERN)
        super().__init__(
            end_of_word_suffix=end_of_word_suffix,
            continuing_subword_prefix=continuing_subword_prefix,
            lowercase=lowercase,
            unk_token=unk_token,
            clean_up_tokenization_spaces=clean_up_tokenization_spaces,
            **kwargs,
        )

    def _tokenize(self, text: str, **kwargs: Any) -> list[str]:
        """The text's tokens; without an unknown token, the characters not in the vocabulary are dropped, as
        ``tokenizers`` drops them, with a :class:`DroppedCharactersWarning` naming them (text is never lost
        silently)."""
        return [token for token, _, _ in self._pieces(text)]

    def encode_ordinary(self, text: str, **options: Any) -> list[int]:
        """The ids of text without added tokens (:meth:`_tokenize`'s tokens)."""
        return self._ids(self._pieces(text))

    def encode_ordinary_with_offsets(self, text: str, **options: Any) -> tuple[list[int], list[Span]]:
        """The ids of text without added tokens and each token's span in ``text``: from its first character to its
        last, as the Rust model's word offsets map back through ``Lowercase``'s alignments."""
        pieces = self._pieces(text)
        return self._ids(pieces), [span for _, span, _ in pieces]

    def _ids(self, pieces: list[tuple[str, Span, int]]) -> list[int]:
        """The pieces' ids: the vocabulary's, and an unknown token's where it is an added token only."""
        vocab = self.encoder
        added = self._convert_token_to_id_with_added_voc
        return [vocab[token] if token in vocab else added(token) for token, _, _ in pieces]

    def stretch_words(self, text: str, start: int, end: int, **options: Any) -> tuple[list[int], int]:
        """Each token's word (``WhitespaceSplit``'s pre-tokens) in a stretch between added tokens, and how many
        words the stretch has."""
        stretch = text[start:end]
        return [word for _, _, word in self._pieces(stretch)], len(self._words.findall(self._normalized(stretch)))

    def _normalized(self, text: str) -> str:
        return normalizers.lowercase(text) if self.char_level.lowercase else text

    def _pieces(self, text: str) -> list[tuple[str, Span, int]]:
        """Each token of ``text`` with its span in ``text`` and the index of its word: the text lowercased (when
        trained so) with each character's origin (``NormalizedString::lowercase``), cut by ``WhitespaceSplit``,
        each word merged by :meth:`_merge_word`."""
        spans = [(index, index + 1) for index in range(len(text))]
        normalized = text
        if self.char_level.lowercase:
            normalized, spans = normalizers.lowercase_aligned(text, spans)
        pieces: list[tuple[str, Span, int]] = []
        dropped: list[str] = []
        position = 0
        for index, word in enumerate(self._words.findall(normalized)):
            position = normalized.index(word, position)
            for token, (first, last) in self._merge_word(word, dropped):
                pieces.append((token, (spans[position + first][0], spans[position + last][1]), index))
            position += len(word)
        if dropped:
            shown = "".join(dict.fromkeys(dropped))
            warnings.warn(
                f"dropped {len(dropped)} character(s) not in the vocabulary ({shown[:20]!r}"
                f"{'...' if len(shown) > 20 else ''}): this char-level tokenizer has no unknown token (as in "
                "tokenizers); train with an unk token to keep their place",
                DroppedCharactersWarning,
                stacklevel=3,
            )
        return pieces

    def _merge_word(self, word: str, dropped: list[str]) -> list[tuple[str, Span]]:
        """The word's symbols (affixed, unknown ones as the unk token, or left out and added to ``dropped``
        without one), merged lowest rank first, leftmost first; each token with the positions of its first and
        last characters in ``word``."""
        suffix = self.char_level.end_of_word_suffix or ""
        prefix = self.char_level.continuing_subword_prefix or ""
        unk = str(self.unk_token) if self.unk_token is not None else None
        symbols: list[str] = []
        positions: list[int] = []
        last = len(word) - 1
        for position, char in enumerate(word):
            symbol = f"{prefix if position else ''}{char}{suffix if position == last else ''}"
            if symbol in self.encoder or unk is not None:
                symbols.append(symbol if symbol in self.encoder else str(unk))
                positions.append(position)
            else:
                dropped.append(char)
        tokens = merge_by_rank(list(symbols), self.ranks, self._join)
        # Each token is the join of the run of symbols it was merged from; the joins of a run's beginnings grow
        # strictly longer, so the run is the shortest one whose join is the token.
        out: list[tuple[str, Span]] = []
        start = 0
        for token in tokens:
            end, joined = start, symbols[start]
            while joined != token:
                end += 1
                joined = self._join(joined, symbols[end])
            out.append((token, (positions[start], positions[end])))
            start = end + 1
        return out

    def _join(self, left: str, right: str) -> str:
        """A merged symbol: the right part loses its continuing-subword prefix."""
        prefix = self.char_level.continuing_subword_prefix or ""
        return left + (right[len(prefix) :] if prefix and right.startswith(prefix) else right)

    def convert_tokens_to_string(self, tokens: list[str]) -> str:
        """``BPEDecoder``: the suffix becomes a space (nothing after the last token); with only a prefix, a token
        without it starts a new word (as WordPiece decoding does)."""
        suffix = self.char_level.end_of_word_suffix
        prefix = self.char_level.continuing_subword_prefix
        if suffix:
            last = len(tokens) - 1
            return "".join(token.replace(suffix, "" if i == last else " ") for i, token in enumerate(tokens))
        pieces = []
        for i, token in enumerate(tokens):
            if prefix and token.startswith(prefix):
                pieces.append(token[len(prefix) :])
            else:
                pieces.append((" " if i else "") + token)
        return "".join(pieces)

    def _tokenizer_json(self, special_tokens: list[str]) -> str:
        unk = str(self.unk_token) if self.unk_token is not None else None
        return tokenizer_json(self.encoder, self.merges, special_tokens, char_level=self.char_level, unk_token=unk)
