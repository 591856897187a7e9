"""The transformers class for char-level BPE (GPT-1 / Sennrich style), sibling of :class:`hf_bpe.BPETokenizer`.

:class:`CharBPETokenizer` loads the ``vocab.json`` + ``merges.txt`` that ``hf-bpe train --char-level`` writes. It is
:class:`~hf_bpe.transformers.pipeline.PipelineTokenizer` over the ``tokenizer.json`` it saves (as ``hf-bpe train
--char-level`` writes it: ``Lowercase`` when trained so, ``WhitespaceSplit``, a BPE model whose words carry the
end-of-word suffix and the continuing-subword prefix, ``BPEDecoder``), so its ids, offsets, words and decodes are the
Rust backend's for the same directory. What it adds is its classic arguments, the two vocabulary files it saves, and
a :class:`DroppedCharactersWarning` naming the characters a tokenizer without an unknown token drops.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from hf_bpe.models.bpe.files import MERGES_FILE, VOCAB_FILE, char_level_document, tokenizer_json
from hf_bpe.models.bpe.options import CharLevel
from hf_bpe.tokenizer.serialization import pipeline_from_data
from hf_bpe.transformers._import import quiet_transformers_import
from hf_bpe.transformers.pipeline import PipelineTokenizer
from hf_bpe.transformers.vocabulary import VocabularyFilesTokenizer

with quiet_transformers_import():
    from transformers import PretrainedConfig


class DroppedCharactersWarning(UserWarning):
    """A char-level tokenizer without an unknown token dropped characters it has not seen (as ``tokenizers`` does)."""


class CharBPETokenizerConfig(PretrainedConfig):
    """The stand-in of :class:`hf_bpe.transformers.bpe.BPETokenizerConfig` for hf_bpe's char-level tokenizer."""

    model_type = "hf_bpe_char"


Span = tuple[int, int]


class CharBPETokenizer(PipelineTokenizer):
    """Char-level BPE tokenizer with an end-of-word suffix, for transformers.

    Args:
        vocab_file: path to ``vocab.json``.
        merges_file: path to ``merges.txt``.
        end_of_word_suffix: the suffix on a word's last character (``"</w>"``), or None.
        continuing_subword_prefix: the prefix on a word's other characters (``"##"``), or None.
        lowercase: lowercase text before encoding.
        unk_token: what characters outside the vocabulary become (dropped when None, as in ``tokenizers``, with a
            :class:`DroppedCharactersWarning`); it must be in ``vocab.json``, as the Rust model needs it there.

    Raises:
        ValueError: naming ``vocab.json`` where ``unk_token`` is not in it, or a file that is missing or malformed.

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

    vocab_files_names = {"vocab_file": VOCAB_FILE, "merges_file": MERGES_FILE}  # noqa: RUF012 (transformers' API)

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
        self.char_level = CharLevel(end_of_word_suffix, continuing_subword_prefix, lowercase)
        unk = str(unk_token) if unk_token is not None else None
        if unk is not None and unk not in self.encoder:
            raise ValueError(
                f"{vocab_file}: unk_token {unk!r} is not in the vocabulary; the BPE model needs it there (the Rust "
                "model refuses to encode an unknown character otherwise): pass one of its tokens, or none"
            )
        # The pipeline is the tokenizer.json this class saves (hf-bpe train --char-level's), without added tokens:
        # transformers' own added tokens (tokenizer_config.json's) cut the text before it.
        document = char_level_document(self.encoder, self.merges, self.char_level, unk_token=unk)
        self._use_file(pipeline_from_data(document, vocab_file, owner=type(self).__name__))
        # Characters never dropped: white space (WhitespaceSplit removes it) and those whose every affixed spelling is
        # in the vocabulary; learned as texts show them (None: an unknown token, so nothing is ever dropped).
        self._kept: set[str] | None = None if unk is not None else set()
        kwargs.pop("tokenizer_file", None)
        super(PipelineTokenizer, self).__init__(
            end_of_word_suffix=end_of_word_suffix,
            continuing_subword_prefix=continuing_subword_prefix,
            lowercase=lowercase,
            unk_token=unk_token,
            clean_up_tokenization_spaces=clean_up_tokenization_spaces,
            **kwargs,
        )

    # -- the characters dropped without an unknown token ----------------------------------------------------------

    def _warn_dropped(self, stretches: list[str]) -> None:
        """Warn, naming them, of the characters of ``stretches`` (texts between added tokens) that the model drops:
        a word's symbol (the character with its affixes) outside the vocabulary, without an unknown token
        (``tokenizers``' BPE ``merge_word`` leaves it out). Text is never lost silently.

        The common case costs one ``set`` of the normalized text: characters known to be kept are skipped; only a
        text with others in it is cut into words (the pipeline's own cut: an added token matched in the normalized
        text is not a word)."""
        kept = self._kept
        if kept is None:
            return
        # A space between stretches keeps their words apart (WhitespaceSplit cuts there).
        unseen = set(self.file.pipeline.normalizer.normalize_str(" ".join(stretches))).difference(kept)
        if not unseen:
            return
        cut = self.file.pipeline.pre_tokenizer.pieces_str
        kept.update(char for char in unseen if not cut(char) or self._always_kept(char))
        if kept.issuperset(unseen):
            return
        words = [word for stretch in stretches for word, _, added in self.pipeline.pieces(stretch) if added is None]
        dropped = [char for word in words if not kept.issuperset(word) for char in self._dropped_in(word)]
        if dropped:
            shown = "".join(dict.fromkeys(dropped))
            warnings.warn(
                f"dropped {len(dropped)} character(s) not in the vocabulary ({shown[:20]!r}"
                f"{'...' if len(shown) > 20 else ''}): this char-level tokenizer has no unknown token (as in "
                "tokenizers); train with an unk token to keep their place",
                DroppedCharactersWarning,
                stacklevel=4,
            )

    def _spelled(self, char: str, first: bool, last: bool) -> str:
        """The model's symbol for ``char`` in a word: the prefix on all but the first, the suffix on the last."""
        prefix = self.char_level.continuing_subword_prefix or ""
        suffix = self.char_level.end_of_word_suffix or ""
        return f"{'' if first else prefix}{char}{suffix if last else ''}"

    def _always_kept(self, char: str) -> bool:
        """Whether every spelling of ``char`` (first, inner, last or whole word) is in the vocabulary."""
        vocab = self.encoder
        return all(self._spelled(char, first, last) in vocab for first in (True, False) for last in (True, False))

    def _dropped_in(self, word: str) -> list[str]:
        """The characters of a pre-token whose symbol is not in the vocabulary."""
        vocab, last = self.encoder, len(word) - 1
        return [char for i, char in enumerate(word) if self._spelled(char, i == 0, i == last) not in vocab]

    # -- every way text comes in: checked, then the pipeline's --------------------------------------------------

    def encode_ordinary(self, text: str, **options: Any) -> list[int]:
        self._warn_dropped([text])
        return super().encode_ordinary(text, **options)

    def encode_ordinary_with_offsets(self, text: str, **options: Any) -> tuple[list[int], list[Span]]:
        self._warn_dropped([text])
        return super().encode_ordinary_with_offsets(text, **options)

    def encode_parts(self, text: str, parts: list[str], **options: Any) -> list[int]:
        self._warn_dropped(parts[::2])
        return super().encode_parts(text, parts, **options)

    def encode_spans(self, text: str, spans: list[tuple[int, int, str | None]], **options: Any) -> list[int]:
        self._warn_dropped([text[start:end] for start, end, token in spans if token is None])
        return super().encode_spans(text, spans, **options)

    def encode_stretch(self, text: str, start: int, end: int, **options: Any) -> list[int]:
        self._warn_dropped([text[start:end]])
        return super().encode_stretch(text, start, end, **options)

    def encode_stretch_with_offsets(
        self, text: str, start: int, end: int, **options: Any
    ) -> tuple[list[int], list[Span]]:
        self._warn_dropped([text[start:end]])
        return super().encode_stretch_with_offsets(text, start, end, **options)

    def stretch_tokens(self, text: str, start: int, end: int, **options: Any) -> list[str]:
        self._warn_dropped([text[start:end]])
        return super().stretch_tokens(text, start, end, **options)

    # -- saving ---------------------------------------------------------------------------------------------------

    def save_vocabulary(self, save_directory: str, filename_prefix: str | None = None) -> tuple[str, ...]:
        """Write ``vocab.json``, ``merges.txt`` and ``tokenizer.json`` (:class:`VocabularyFilesTokenizer`'s)."""
        return VocabularyFilesTokenizer.save_vocabulary(self, save_directory, filename_prefix)

    def _tokenizer_json(self, special_tokens: list[str]) -> str:
        unk = str(self.unk_token) if self.unk_token is not None else None
        return tokenizer_json(self.encoder, self.merges, special_tokens, char_level=self.char_level, unk_token=unk)
