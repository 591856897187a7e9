"""What hf_bpe's transformers classes share beneath the pipeline: a vocabulary (``encoder``/``decoder``) and
merges, the token/id conversions, and saving ``vocab.json`` + ``merges.txt`` beside a ``tokenizer.json``
(:class:`VocabularyFilesTokenizer`); and a file's identity for the loaders' caches (:func:`file_key`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from hf_bpe.atomic import write_files
from hf_bpe.models.bpe.files import MERGES_FILE, VOCAB_FILE, format_merges, format_vocab, read_merges, read_vocab
from hf_bpe.models.directory import TOKENIZER_FILE
from hf_bpe.tokenizer.serialization import read_file
from hf_bpe.transformers._import import quiet_transformers_import

with quiet_transformers_import():
    from transformers import PreTrainedTokenizer


class VocabularyFilesTokenizer(PreTrainedTokenizer):
    """What hf_bpe's transformers classes share: a vocabulary (``encoder``/``decoder``) and ``merges`` read from
    ``vocab.json`` + ``merges.txt``, the token/id conversions, and saving those files plus a ``tokenizer.json``.
    """

    vocab_files_names = {"vocab_file": VOCAB_FILE, "merges_file": MERGES_FILE}  # noqa: RUF012 (transformers' API)
    model_input_names = ["input_ids", "attention_mask"]  # noqa: RUF012

    encoder: dict[str, int]
    decoder: dict[int, str]
    #: The merges as read (:attr:`merges` lists them when first asked for), and that list once made.
    _merge_source: Sequence[tuple[str, str]] = ()
    _merge_list: list[tuple[str, str]] | None = None

    @property
    def merges(self) -> list[tuple[str, str]]:
        """The merges in rank order, as ``(left, right)`` pairs: a ``tokenizer.json``'s listed on first use (no
        encoding needs them; their tuples took a fifth of Llama-3's load, see
        :class:`~hf_bpe.models.bpe.files.MergePairs`)."""
        if self._merge_list is None:
            self._merge_list = list(self._merge_source)
        return self._merge_list

    @merges.setter
    def merges(self, merges: list[tuple[str, str]]) -> None:
        self._merge_list = merges

    def _load_files(
        self, vocab_file: str | os.PathLike[str], merges_file: str | os.PathLike[str], *, check_merges: bool = True
    ) -> None:
        """Read the files; subclasses call it before ``super().__init__()``.

        ``check_merges`` checks that each merge's parts and result are in the vocabulary (not possible where a
        merge drops a continuing-subword prefix from its right part).
        """
        for name, path, other in ((VOCAB_FILE, vocab_file, merges_file), (MERGES_FILE, merges_file, vocab_file)):
            if path is None:  # from_pretrained found no such file in the directory
                where = f"{Path(other).parent}" if other is not None else "the tokenizer directory"
                # ValueError: transformers replaces an OSError's message with "Unable to load vocabulary".
                raise ValueError(f"{where}: no {name} there; a BPE tokenizer needs vocab.json and merges.txt")
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
        """Write ``vocab.json``, ``merges.txt`` and, for loading without hf_bpe, ``tokenizer.json``; loaded from a
        ``tokenizer.json`` without those two files beside it (or trained from such a tokenizer), that file alone, as
        ``TokenizersBackend`` saves it."""
        prefix = f"{filename_prefix}-" if filename_prefix else ""
        specials = [token for token in self._added_tokens_encoder if token in self.encoder]
        files = {prefix + TOKENIZER_FILE: self._tokenizer_json(specials)}
        if getattr(self, "_file_pipeline", None) is None or getattr(self, "_vocabulary_files", True):
            files = {prefix + VOCAB_FILE: format_vocab(self.encoder), prefix + MERGES_FILE: format_merges(self.merges)}
            files[prefix + TOKENIZER_FILE] = self._tokenizer_json(specials)
        write_files(save_directory, files)
        return tuple(os.path.join(save_directory, name) for name in files)

    def _save_pretrained(
        self,
        save_directory: str | os.PathLike[str],
        file_names: tuple[str, ...],
        legacy_format: bool | None = None,
        filename_prefix: str | None = None,
    ) -> tuple[str, ...]:
        """The files of :meth:`save_vocabulary`, without the legacy ``added_tokens.json``
        (``PreTrainedTokenizer._save_pretrained`` writes one): ``tokenizer.json`` and ``tokenizer_config.json``'s
        ``added_tokens_decoder`` hold the added tokens, and ``TokenizersBackend`` writes none for the same file."""
        return tuple(file_names) + self.save_vocabulary(str(save_directory), filename_prefix=filename_prefix)


def file_key(path: str | os.PathLike[str]) -> tuple[str, int, int]:
    """A file's identity for the loaders' caches (``_loaded``, ``loaded_file``): its path, size and content (its
    SHA-256 as an integer), so a changed file loads again even where its modification time did not change (a
    rewrite within the clock's tick)."""
    try:
        content, digest = read_file(path)
    except OSError:
        return (os.fspath(path), -1, -1)  # reading it will raise the error that names it
    return (os.path.realpath(path), len(content), int.from_bytes(digest, "big"))
