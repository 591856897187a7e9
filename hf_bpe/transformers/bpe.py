"""The transformers tokenizer class for GPT-2-style byte-level BPE, on transformers v5's Python backend.

:class:`BPETokenizer` is :class:`~hf_bpe.transformers.pipeline.PipelineTokenizer` (a ``PreTrainedTokenizer``, v5's
``PythonBackend``) with GPT-2's classic arguments and files: it loads ``vocab.json`` + ``merges.txt`` (hf_bpe's or
GPT-2's own), a byte-level BPE ``tokenizer.json``, or a vocabulary and merges in memory, and runs the pipeline of the
``tokenizer.json`` it saves (a loaded file's own, where it is loaded with that file's settings), so its ids, offsets
and words are the Rust backend's. What it adds: ``add_prefix_space`` per call, ``add_bos_token``, ``errors`` in
decoding, ``vocab.json`` + ``merges.txt`` beside the ``tokenizer.json`` it saves, and training a new tokenizer like it
(``train_new_from_iterator``, also continuing this one).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from hf_bpe.atomic import write_files
from hf_bpe.models.bpe.encoder import BytePairEncoder
from hf_bpe.models.bpe.files import (
    MERGES_FILE,
    VOCAB_FILE,
    KeptPipeline,
    byte_level_document,
    loaded_tokenizer_json,
    read_merges,
    read_vocab,
    tokenizer_json,
    tokenizer_json_from_data,
)
from hf_bpe.models.directory import GPT2_SPECIAL_TOKEN
from hf_bpe.pipeline.decoders import byte_level_bytes
from hf_bpe.pipeline.pipeline import Pipeline
from hf_bpe.pipeline.pre_tokenizers import ByteLevel, PreTokenizer
from hf_bpe.pipeline.processors import TemplateProcessing, Types
from hf_bpe.pipeline.tokenizer_json import read_truncation_and_padding, truncation_and_padding_json
from hf_bpe.tokenizer.serialization import PipelineJson, pipeline_from_data, read_json
from hf_bpe.transformers._import import quiet_transformers_import
from hf_bpe.transformers.pipeline import PipelineTokenizer
from hf_bpe.transformers.retraining import (
    REBUILT_SETTINGS,
    add_like_rust,
    renamed_roles,
    renumbered_post_processor,
    special_token,
)
from hf_bpe.transformers.rows import Template, added_tokens_decoder, file_defaults
from hf_bpe.transformers.vocabulary import VocabularyFilesTokenizer, file_key

# Often hf_bpe's first import of transformers (the package itself leaves transformers alone until needed).
with quiet_transformers_import():
    from transformers import AddedToken, PretrainedConfig, PreTrainedTokenizer

#: The module ``save_pretrained`` writes beside the files after ``register_for_auto_class()``.
REMOTE_CODE_MODULE = """\
# Written by hf_bpe for AutoTokenizer.from_pretrained(..., trust_remote_code=True).
# The tokenizer class is hf_bpe's BPETokenizer, from the installed package.
try:
    from hf_bpe import BPETokenizer
except ImportError as error:
    raise ImportError("this tokenizer needs the hf_bpe package: pip install hf-bpe") from error

__all__ = ["BPETokenizer"]
"""


class BPETokenizerConfig(PretrainedConfig):
    """Stands for "a model using hf_bpe's tokenizer" in transformers' registries (see :mod:`hf_bpe.transformers.auto`);
    it
    configures nothing."""

    model_type = "hf_bpe"


#: The default of BPETokenizer's unk, bos and eos roles: GPT-2's ``<|endoftext|>`` where the vocabulary has it.
GPT2_ROLE: Any = type("Gpt2Role", (), {"__repr__": lambda self: "<GPT-2's <|endoftext|> if in the vocabulary>"})()


class BPETokenizer(PipelineTokenizer):
    """Byte-level BPE tokenizer for transformers, identical in its ids to GPT-2's tokenizer.

    It is :class:`~hf_bpe.transformers.pipeline.PipelineTokenizer` over the byte-level ``tokenizer.json`` it saves
    (a loaded file's own, where it is loaded with that file's settings), with GPT-2's classic arguments and files.

    Args:
        vocab_file: path to ``vocab.json``.
        merges_file: path to ``merges.txt``.
        errors: how ``decode`` treats invalid UTF-8 (as ``bytes.decode``).
        unk_token: the unknown token (default: GPT-2's ``<|endoftext|>`` if the vocabulary has it, else none).
        bos_token: the beginning-of-sequence token (default as ``unk_token``).
        eos_token: the end-of-sequence token (default as ``unk_token``).
        pad_token: (a keyword, as for transformers' ``PreTrainedTokenizerFast``) the padding token; not given, the
            ``tokenizer.json``'s ``padding`` section's where it names one, else none (GPT-2 has none). It stays out of
            the signature so that ``init_kwargs`` and the saved ``tokenizer_config.json`` hold it only where it was
            given or the file set it, as the Rust backend's do.
        add_prefix_space: add a space before the text, so the first word is encoded like any other (the rule of
            ``tokenizers``' ByteLevel: each stretch of text between added tokens that does not start with ``" "``);
            a call may give its own (``tok(text, add_prefix_space=True)``).
        pre_tokenizer: how text is cut, as ``tokenizer_config.json`` records it (``splits``, ``normalizer``,
            ``engine``; see :meth:`hf_bpe.pipeline.pre_tokenizers.PreTokenizer.model_settings`); default GPT-2's.
        add_bos_token: put ``bos_token`` in front of every sequence.
        clean_up_tokenization_spaces: off by default, so that ``decode(encode(s)) == s``.
        vocab: instead of files, the vocabulary (token to id, or ``(token, score)`` pairs in id order).
        merges: with ``vocab``, the merges in rank order (``(left, right)`` pairs or ``"left right"`` strings).
        tokenizer_file: without ``vocab.json`` + ``merges.txt``, a byte-level BPE ``tokenizer.json`` (as the Rust
            backend saves GPT-2, or a real model's: Llama-3, Qwen, DeepSeek-V3, Mistral-Nemo, GPT-OSS); its
            ``add_prefix_space``, ``ignore_merges`` and post-processor apply unless given, and its ``truncation`` and
            ``padding`` sections give defaults as transformers takes them
            (:func:`~hf_bpe.transformers.rows.file_defaults`).
        ignore_merges: a pre-token that is in the vocabulary whole is that one token (Llama-3's setting).
        post_processor: a ``TemplateProcessing`` in ``tokenizer.json``'s form: the special tokens put around each
            sequence (Llama-3's ``<|begin_of_text|>``); it takes the place of ``add_bos_token``.

    Raises:
        ValueError: if there are neither files nor ``vocab``/``merges``, or ``tokenizer.json`` is not byte-level
            BPE with GPT-2's split (naming the file and the setting).

    >>> import hf_bpe, tempfile
    >>> directory = tempfile.mkdtemp()
    >>> _ = hf_bpe.train_from_iterator(["hug pug hug"], vocab_size=260).save(directory)
    >>> tok = BPETokenizer.from_pretrained(directory)
    >>> tok("hug pug")["input_ids"], tok.decode(tok("hug pug")["input_ids"])
    ([257, 220, 258], 'hug pug')
    """

    vocab_files_names = {"vocab_file": VOCAB_FILE, "merges_file": MERGES_FILE}  # noqa: RUF012 (transformers' API)
    call_options = ("add_prefix_space",)

    def __init__(
        self,
        vocab_file: str | os.PathLike[str] | None = None,
        merges_file: str | os.PathLike[str] | None = None,
        errors: str = "replace",
        unk_token: Any = GPT2_ROLE,
        bos_token: Any = GPT2_ROLE,
        eos_token: Any = GPT2_ROLE,
        add_prefix_space: bool | None = None,
        add_bos_token: bool = False,
        clean_up_tokenization_spaces: bool = False,
        pre_tokenizer: dict[str, Any] | None = None,
        *,
        vocab: dict[str, int] | Sequence[tuple[str, float]] | None = None,
        merges: Sequence[tuple[str, str] | list[str] | str] | None = None,
        tokenizer_file: str | os.PathLike[str] | None = None,
        ignore_merges: bool | None = None,
        post_processor: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self._file_added_tokens: list[dict[str, Any]] = []
        self._file_sections: dict[str, Any] = {}
        self._file_pipeline: tuple[KeptPipeline, tuple[Any, ...]] | None = None
        loaded: _LoadedFiles | None = None
        if vocab is not None or merges is not None:
            self._set_vocabulary(vocab, merges)
        elif tokenizer_file is not None:
            # The whole pipeline: a directory the Rust backend saved holds vocab.json and merges.txt too, but only
            # tokenizer.json says how its text is split (Qwen's pattern, not GPT-2's).
            loaded = _loaded(file_key(tokenizer_file))
            self._take_file_settings(loaded, tokenizer_file, kwargs)
            # The file's settings, where the call gives none.
            add_prefix_space = loaded.add_prefix_space if add_prefix_space is None else add_prefix_space
            pre_tokenizer = loaded.pre_tokenizer if pre_tokenizer is None else pre_tokenizer
            ignore_merges = loaded.ignore_merges if ignore_merges is None else ignore_merges
            if post_processor is None and loaded.template is not None:
                post_processor = loaded.template.to_json()
        elif vocab_file is not None and merges_file is not None:
            loaded = _loaded(file_key(vocab_file), file_key(merges_file))
        else:
            raise _no_files(kwargs.get("name_or_path"), vocab_file, merges_file)
        add_prefix_space = bool(add_prefix_space)
        kwargs.pop("backend", None)  # a directory saved by the Rust backend says "tokenizers"; this class is Python
        self._cut = PreTokenizer.from_settings({**(pre_tokenizer or {}), "add_prefix_space": add_prefix_space})
        self.ignore_merges = bool(ignore_merges)
        self.template = TemplateProcessing.from_json(post_processor) if post_processor else None
        self.add_prefix_space = add_prefix_space
        if loaded is not None:
            self.encoder, self._merge_source, self._merge_list = dict(loaded.vocab), loaded.merges, None
            self._use_file(loaded.pipeline_json(self._basis(), tokenizer_file))
        else:
            self._use_file(_pipeline_of(self.encoder, self.merges, self._basis(), "vocab=/merges="))
        self.encoder = dict(self.encoder)  # this tokenizer's own: transformers' added tokens may join it
        self.errors = errors
        self.add_bos_token = add_bos_token
        self._prefix_for_call: bool | None = None
        # GPT-2's roles by default, where the vocabulary has its token: a file without it must not gain one (the
        # file's own tokenizer splits "<|endoftext|>" as text there).
        gpt2 = GPT2_SPECIAL_TOKEN if GPT2_SPECIAL_TOKEN in self.encoder else None
        unk_token, bos_token, eos_token = (
            gpt2 if role is GPT2_ROLE else role for role in (unk_token, bos_token, eos_token)
        )
        super(PipelineTokenizer, self).__init__(
            pre_tokenizer=self._cut.model_settings(),
            errors=errors,
            unk_token=unk_token,
            bos_token=bos_token,
            eos_token=eos_token,
            add_prefix_space=add_prefix_space,
            add_bos_token=add_bos_token,
            clean_up_tokenization_spaces=clean_up_tokenization_spaces,
            tokenizer_file=tokenizer_file,
            ignore_merges=ignore_merges,
            post_processor=post_processor,
            **kwargs,
        )
        if tokenizer_file is not None and loaded is not None and loaded.pipeline is not None:
            self._file_pipeline = (loaded.pipeline, loaded.basis)
        # A directory with vocab.json + merges.txt saves them again (GPT2Tokenizer reads them); a file alone does not.
        self._vocabulary_files = vocab_file is not None and merges_file is not None

    def _take_file_settings(
        self, loaded: _LoadedFiles, tokenizer_file: str | os.PathLike[str], kwargs: dict[str, Any]
    ) -> None:
        """Take a ``tokenizer.json``'s added tokens, and the defaults its truncation and padding sections give as
        transformers takes them (:func:`~hf_bpe.transformers.rows.file_defaults`; ``kwargs`` given win), keeping the
        sections for ``save_pretrained`` to write back."""
        self._file_added_tokens = loaded.added_tokens
        kwargs.setdefault("added_tokens_decoder", added_tokens_decoder(loaded.added_tokens))
        added = sum(map(len, loaded.template.around(pair=False))) if loaded.template is not None else 0
        file_defaults(kwargs, loaded.truncation, loaded.padding, added=added, path=tokenizer_file)
        self._file_sections = truncation_and_padding_json(loaded.truncation, loaded.padding)

    def _set_vocabulary(
        self,
        vocab: dict[str, int] | Sequence[tuple[str, float]] | None,
        merges: Sequence[tuple[str, str] | list[str] | str] | None,
        *,
        source: str = "vocab=/merges=",
    ) -> None:
        """Take a vocabulary and merges given in memory (transformers v5's ``vocab=``, ``merges=``): merges as
        ``(left, right)`` pairs or ``"left right"`` strings; the vocabulary as a dict, or as ``(token, score)``
        pairs in id order."""
        if isinstance(vocab, (list, tuple)):
            # transformers' vocab-scores form: (token, score) in id order.
            vocab = {str(entry[0]): token_id for token_id, entry in enumerate(vocab)}
        if not isinstance(vocab, dict) or merges is None:
            raise TypeError(
                f"{source}: give both vocab (a dict from token to id) and merges (a list of pairs), got "
                f"vocab={type(vocab).__name__}, merges={type(merges).__name__}"
            )
        pairs: list[tuple[str, str]] = []
        for number, merge in enumerate(merges, start=1):
            parts = merge.split(" ") if isinstance(merge, str) else list(merge)
            if len(parts) != 2 or not all(isinstance(part, str) and part for part in parts):
                raise ValueError(f"{source}: merge {number} is {merge!r}; expected ('left', 'right') or 'left right'")
            pairs.append((parts[0], parts[1]))
        self.encoder = dict(vocab)
        self.decoder = {token_id: token for token, token_id in self.encoder.items()}
        self.merges = pairs

    # -- encoding -----------------------------------------------------------------------------------------------

    def tokenize(
        self, text: str, pair: str | None = None, add_special_tokens: bool = False, **kwargs: Any
    ) -> list[str]:
        """The tokens of ``text``, added and special tokens matched whole.

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
            return super().tokenize(text, pair, add_special_tokens, **kwargs)
        finally:
            self._prefix_for_call = None

    def _pipeline_for(self, options: Mapping[str, Any]) -> Pipeline:
        """The pipeline with the call's ``add_prefix_space`` (or :meth:`tokenize`'s) on each ``ByteLevel`` step,
        made once per setting (until the added tokens change)."""
        prefix = options.get("add_prefix_space")
        if prefix is None:
            prefix = self._prefix_for_call
        if prefix is None or bool(prefix) == self.add_prefix_space:
            return self.pipeline
        return cast(Pipeline, self._added_matcher.cached("flipped", lambda: _prefixed(self.pipeline, bool(prefix))))

    @property
    def bpe(self) -> BytePairEncoder:
        """The BPE model's byte-level encoder (its caches, its tables), as the pipeline's span-free path runs it."""
        ids_of = self.file.pipeline.model.byte_level_ids()
        if ids_of is None:
            raise AttributeError(f"{type(self).__name__}'s model is not a plain byte-level BPE")
        return cast(BytePairEncoder, ids_of.__self__)

    def special_tokens_types(self, pair: bool = False) -> Types | None:
        """The type ids the template gives its special tokens and the sequences (None: no template)."""
        return self.template.types(pair=pair) if self.template is not None else None

    def special_tokens_template(self, pair: bool = False) -> Template:
        """The post-processor's template where there is one, else ``bos_token`` before each sequence where
        ``add_bos_token`` is on."""
        if self.template is not None:
            return self.template.around(pair=pair)
        bos = [self.bos_token_id] if self.add_bos_token and self.bos_token_id is not None else []
        return bos, [], bos, []

    # -- decoding -----------------------------------------------------------------------------------------------

    def convert_tokens_to_string(self, tokens: list[str]) -> str:
        # Added tokens too, as Tokenizer::decode hands every token to the decoder: a token outside the byte
        # alphabet stands for its own text (ByteLevel::decode_chain), one inside it for its bytes ("Wörld": W, 0xF6,
        # r, l, d, not UTF-8).
        return b"".join(map(byte_level_bytes, tokens)).decode("utf-8", self.errors)

    def _decode(
        self,
        token_ids: int | Sequence[int],
        skip_special_tokens: bool = False,
        clean_up_tokenization_spaces: bool | None = None,
        **kwargs: Any,
    ) -> str:
        ids = [token_ids] if isinstance(token_ids, int) else token_ids
        added = self._added_tokens_decoder
        special = self.skipped_ids() if skip_special_tokens else set()
        decoder = self.decoder
        data = bytearray()
        for token_id in ids:
            token_id = int(token_id)
            if token_id in special:
                continue
            if token_id in added:
                data += byte_level_bytes(added[token_id].content)  # see convert_tokens_to_string
            else:
                token = decoder.get(token_id)
                if token is None:
                    raise IndexError(f"id {token_id} is not in the vocabulary (size {len(self)})")
                data += byte_level_bytes(token)
        return self.cleaned(data.decode("utf-8", self.errors), clean_up_tokenization_spaces)

    # -- saving and pickling ------------------------------------------------------------------------------------

    save_vocabulary = VocabularyFilesTokenizer.save_vocabulary

    @property
    def pre_tokenization(self) -> PreTokenizer:
        """How this tokenizer cuts text (its ``add_prefix_space`` is the tokenizer's)."""
        return dataclasses.replace(self._cut, add_prefix_space=bool(self.add_prefix_space))

    def _tokenizer_json(self, special_tokens: list[str]) -> str:
        """``tokenizer.json`` for these files, with the truncation and padding sections of the file they came from
        (as the Rust backend writes them before its first call; see :func:`~hf_bpe.transformers.rows.file_defaults`).

        Loaded from a ``tokenizer.json`` and cutting, merging and post-processing as it says, the file's own sections
        are written back (:func:`~hf_bpe.models.bpe.files.loaded_tokenizer_json`), as ``TokenizersBackend`` saves
        them: rebuilt from the settings, a ``null`` post-processor would become ``ByteLevel`` and Qwen's decoder
        flags GPT-2's. Loaded with other settings (``add_prefix_space=True``), they are rebuilt from these.
        """
        if self._file_pipeline is not None and self._file_pipeline[1] == self._basis():
            return loaded_tokenizer_json(
                self._file_pipeline[0],
                self.encoder,
                self.merges,
                added_tokens=self.added_token_entries(),
                **self._file_sections,
            )
        return tokenizer_json(
            self.encoder,
            self.merges,
            special_tokens,
            pre_tokenizer=self.pre_tokenization,
            ignore_merges=self.ignore_merges,
            template=self.template,
            added_tokens=self.added_token_entries(),
            **self._file_sections,
        )

    def train_new_from_iterator(
        self,
        text_iterator: Any,
        vocab_size: int,
        length: int | None = None,
        new_special_tokens: list[Any] | None = None,
        special_tokens_map: dict[str, str] | None = None,
        continue_from: Any = None,
        **kwargs: Any,
    ) -> BPETokenizer:
        """Train a new tokenizer like this one with hf_bpe's trainer: the vocabulary, merges, added tokens and ids
        ``TokenizersBackend.train_new_from_iterator`` gives for the same tokenizer and texts.

        As the Rust backend does it: this tokenizer's special added tokens (renamed by ``special_tokens_map``) and
        then ``new_special_tokens`` go to the trainer, first in the vocabulary and counted in ``vocab_size``; its
        non-special added tokens are dropped, except those ``from_pretrained`` loaded (transformers' ``init_kwargs``
        keeps them), which come back after the vocabulary with any special-token role missing from it; the
        pre-tokenizer, normalizer, ``ignore_merges`` and post-processor (its ids renumbered) are kept. Trained from a
        tokenizer loaded from a ``tokenizer.json``, it saves that file's sections as the Rust backend's trained
        tokenizer saves them (the same files: ``tokenizer.json`` and ``tokenizer_config.json``).

        Args:
            text_iterator: strings, or batches (lists) of strings; each string is one sequence.
            vocab_size: the new vocabulary's size, special tokens and the 256 byte characters included.
            length: ignored (the number of items, for transformers' progress bar).
            new_special_tokens: special tokens (strings or ``AddedToken``) to add after this tokenizer's own.
            special_tokens_map: renames of special tokens (old text to new text).
            continue_from: ``True`` to continue training this tokenizer (every id, merge, special token and role
                kept; new merges after its own; see :func:`hf_bpe.models.bpe.continuing.continue_bpe`), or a directory
                to continue from, as in :func:`hf_bpe.train_from_iterator`.
            kwargs: ``min_frequency``, ``max_token_length``, ``limit_alphabet``, ``show_progress`` (or
                ``progress``), as in :func:`hf_bpe.train_from_iterator`.

        Raises:
            ValueError: a post-processor's special token is not in the new vocabulary (as the Rust backend).
        """
        from hf_bpe.models.bpe.training import train_from_iterator

        renames = special_tokens_map or {}
        if continue_from:
            return self._continued(text_iterator, vocab_size, new_special_tokens, renames, continue_from, kwargs)
        kwargs.setdefault("progress", kwargs.pop("show_progress", True))
        trained = self._trainer_special_tokens(renames, new_special_tokens)
        result = train_from_iterator(
            text_iterator,
            vocab_size=vocab_size,
            special_tokens=[token.content for token in trained],
            pre_tokenizer=self.pre_tokenization,
            **kwargs,
        )
        vocab = dict(result.vocab)
        # Tokenizer::train adds the trainer's special tokens (all at their ids in the new vocabulary) ...
        added: dict[int, AddedToken] = {}
        for token in trained:
            add_like_rust(added, vocab, token)
        post_processor = self._renumbered_template(renames, vocab)
        # ... then TokenizersBackend.__init__ adds what init_kwargs and the roles name that is not there yet.
        extra = [*(self.extra_special_tokens or []), *(new_special_tokens or [])]
        roles = self._renamed_roles(renames)
        for token in self._tokens_to_add(added, roles, extra):
            add_like_rust(added, vocab, token)
        settings: dict[str, Any] = {
            key: value for key, value in self.init_kwargs.items() if key not in _REBUILT_SETTINGS
        }
        settings.update({role: roles.get(role) for role in self.SPECIAL_TOKENS_ATTRIBUTES})
        if extra:
            settings["extra_special_tokens"] = extra
        new = type(self)(
            vocab=vocab, merges=result.merges, post_processor=post_processor, added_tokens_decoder=added, **settings
        )
        new._file_sections = dict(self._file_sections)
        kept = self._trained_pipeline(renames, vocab, added)
        if kept is not None:
            new._file_pipeline = (kept, new._basis())
        return new

    def _kept_pipeline(self) -> KeptPipeline | None:
        """The ``tokenizer.json`` pipeline this tokenizer saves back (None where it rebuilds the sections from its
        settings: made from ``vocab.json`` + ``merges.txt``, or loaded with settings other than the file's)."""
        if self._file_pipeline is None or self._file_pipeline[1] != self._basis():
            return None
        return self._file_pipeline[0]

    def _trained_pipeline(
        self, renames: dict[str, str], vocab: dict[str, int], added: dict[int, AddedToken]
    ) -> KeptPipeline | None:
        """The pipeline the trained tokenizer saves: this one's kept file but for the post-processor's ids and the
        model's ``unk_token``, renamed and renumbered as ``TokenizersBackend.train_new_from_iterator`` rewrites its
        ``tokenizer.json`` (the normalizer, pre-tokenizer, decoder and model settings go through as they are)."""
        kept = self._kept_pipeline()
        if kept is None:
            return None
        document = copy.deepcopy(dict(kept.document))
        model = document["model"]
        if model.get("unk_token") in renames:
            model["unk_token"] = renames[model["unk_token"]]
        document["post_processor"] = renumbered_post_processor(document.get("post_processor"), renames, vocab)
        added_only = frozenset(token.content for token in added.values() if token.content not in vocab)
        return dataclasses.replace(kept, document=document, added_only=added_only)

    def _trainer_special_tokens(
        self, renames: dict[str, str], new_special_tokens: list[Any] | None
    ) -> list[AddedToken]:
        """The special tokens ``TokenizersBackend.train_new_from_iterator`` gives the trainer: this tokenizer's
        special added tokens by id (renamed), then the new ones, each marked special (as tokenizers' Python trainers
        mark them); the trainer skips a repeat."""
        tokens = []
        for entry in self.added_token_entries():
            if entry["special"]:
                flags = {key: bool(entry[key]) for key in ("single_word", "lstrip", "rstrip", "normalized")}
                tokens.append(AddedToken(renames.get(entry["content"], entry["content"]), special=True, **flags))
        for token in new_special_tokens or []:
            tokens.append(special_token(token))
        return tokens

    def _renumbered_template(self, renames: dict[str, str], vocab: dict[str, int]) -> dict[str, Any] | None:
        """This tokenizer's post-processor with its special tokens renamed and their ids in ``vocab``, as
        ``TokenizersBackend.train_new_from_iterator`` rewrites ``post_processor["special_tokens"]``."""
        if self.template is None:
            return None
        template = self.template.to_json()
        if self._template_in_sequence():
            # The Rust backend renumbers only a post-processor with "special_tokens" at its top: inside a Sequence
            # (Llama-3's ByteLevel + TemplateProcessing) the old ids stay, and hf_bpe gives the same ids.
            return template
        return renumbered_post_processor(template, renames, vocab)

    def _template_in_sequence(self) -> bool:
        """Whether the ``tokenizer.json`` this tokenizer was loaded from (or trained from one) nests its
        post-processor in a Sequence."""
        kept = self._file_pipeline[0] if self._file_pipeline is not None else None
        if kept is not None:
            post_processor = kept.document.get("post_processor") or {}
        else:
            path = self.init_kwargs.get("tokenizer_file")
            if not path or not os.path.isfile(path):
                return False
            with open(path, encoding="utf-8") as file:
                post_processor = json.load(file).get("post_processor") or {}
        return isinstance(post_processor, dict) and post_processor.get("type") == "Sequence"

    def _renamed_roles(self, renames: dict[str, str]) -> dict[str, AddedToken]:
        """Each special-token role this tokenizer has, renamed, with its flags, marked special."""
        return renamed_roles(self, renames)

    def _tokens_to_add(
        self, added: dict[int, AddedToken], roles: dict[str, AddedToken], extra: list[Any]
    ) -> list[AddedToken]:
        """What ``TokenizersBackend.__init__`` adds to the trained tokenizer, in order: the added tokens
        ``from_pretrained`` put in ``init_kwargs`` (the loaded file's; none for a tokenizer built directly) that are
        not there as they are, then the roles and extra special tokens whose text is not an added token yet."""
        current = {_flags(token) for token in added.values()}
        loaded = self._file_added_tokens if "name_or_path" in self.init_kwargs else []
        tokens = [_entry_token(entry) for entry in sorted(loaded, key=lambda entry: int(entry.get("id", 0)))]
        tokens = [token for token in tokens if _flags(token) not in current]
        present = {token.content for token in added.values()} | {token.content for token in tokens}
        for token in [*roles.values(), *map(special_token, extra)]:
            if token.content not in present:
                tokens.append(token)
                present.add(token.content)
        return tokens

    def _continued(
        self,
        text_iterator: Any,
        vocab_size: int,
        new_special_tokens: list[Any] | None,
        renames: dict[str, str],
        continue_from: Any,
        kwargs: dict[str, Any],
    ) -> BPETokenizer:
        """``train_new_from_iterator(..., continue_from=...)``: hf_bpe's continued training (no Rust twin)."""
        from hf_bpe.models.bpe.training import train_from_iterator

        if renames:
            raise ValueError("special_tokens_map renames special tokens; continuing training keeps them: leave it out")
        specials = sorted(
            {token for token in self.all_special_tokens if token in self.encoder}, key=self.encoder.__getitem__
        )
        specials += [str(token) for token in new_special_tokens or [] if str(token) not in specials]
        roles = {
            role: str(getattr(self, role))
            for role in ("bos_token", "eos_token", "unk_token", "pad_token")
            if getattr(self, role) is not None
        }
        result = train_from_iterator(
            text_iterator,
            vocab_size=vocab_size,
            special_tokens=specials,
            continue_from=self._as_base() if continue_from is True else continue_from,
            **kwargs,
        )
        with tempfile.TemporaryDirectory(prefix="hf-bpe-new-") as directory:
            result.save(directory, roles=roles)
            new = type(self).from_pretrained(directory, errors=self.errors, add_bos_token=self.add_bos_token)
        # The added tokens this tokenizer was loaded with come back; those not in the new vocabulary go after it.
        vocab = new.get_vocab()
        for entry in self._file_added_tokens:
            token = _entry_token(entry)
            if token.content and token.content not in vocab:
                new.add_tokens([token], special_tokens=token.special)
        return new

    def _as_base(self) -> Any:
        """This tokenizer as a base to continue training from, read as a saved directory is: its vocabulary, merges,
        added tokens and roles, and what its ``tokenizer.json`` says beyond them (``ignore_merges``, a template
        adding a BOS), so the continued tokenizer keeps them."""
        from hf_bpe.models.bpe.continuing import read_base

        with tempfile.TemporaryDirectory(prefix="hf-bpe-base-") as directory:
            self.save_pretrained(directory)
            return dataclasses.replace(read_base(directory), source=str(self.name_or_path))

    def _basis(self) -> tuple[Any, ...]:
        """What the ``tokenizer.json`` sections follow from: the cut, ``ignore_merges`` and the template."""
        return (self.pre_tokenization, self.ignore_merges, self.template)

    def save_pretrained(self, save_directory: str | os.PathLike[str], *args: Any, **kwargs: Any) -> tuple[str, ...]:
        """transformers' ``save_pretrained``; after ``register_for_auto_class()`` it also writes the module file.

        transformers copies the class's module for ``trust_remote_code``; hf_bpe writes a two-line module that
        imports the class from the installed package instead, so a load gets this very class (and a clear
        error naming the package to install where hf_bpe is missing).
        """
        # The post-processor is tokenizer.json's to hold: in tokenizer_config.json it would reach the Rust backend's
        # TokenizersBackend.__init__ as a dict, which it refuses (TypeError), and it writes none there itself.
        post_processor = self.init_kwargs.pop("post_processor", None)
        try:
            saved = super().save_pretrained(save_directory, *args, **kwargs)
        finally:
            if post_processor is not None:
                self.init_kwargs["post_processor"] = post_processor
        if getattr(self, "_auto_class", None):
            module = os.path.join(save_directory, os.path.basename(__file__))
            write_files(save_directory, {os.path.basename(module): REMOTE_CODE_MODULE})
        return tuple(saved)


#: ``init_kwargs`` that ``train_new_from_iterator`` gives the new tokenizer anew (files, model, added tokens, roles).
_REBUILT_SETTINGS = REBUILT_SETTINGS | frozenset(PreTrainedTokenizer.SPECIAL_TOKENS_ATTRIBUTES)


def _prefixed(pipeline: Pipeline, add_prefix_space: bool) -> Pipeline:
    """``pipeline`` with ``add_prefix_space`` on each of its ``ByteLevel`` pre-tokenizer steps."""
    cut = pipeline.pre_tokenizer
    steps = tuple(
        dataclasses.replace(step, add_prefix_space=add_prefix_space) if isinstance(step, ByteLevel) else step
        for step in cut.steps
    )
    return dataclasses.replace(pipeline, pre_tokenizer=dataclasses.replace(cut, steps=steps))


def _entry_token(entry: dict[str, Any]) -> AddedToken:
    """A ``tokenizer.json`` ``added_tokens`` entry as an ``AddedToken``."""
    flags = {key: bool(entry.get(key)) for key in ("single_word", "lstrip", "rstrip", "normalized", "special")}
    return AddedToken(str(entry.get("content", "")), **flags)


def _flags(token: AddedToken) -> tuple[Any, ...]:
    """What makes two added tokens the same for ``TokenizersBackend.__init__`` (it compares their ``repr``)."""
    return tuple(getattr(token, key) for key in ("content", "single_word", "lstrip", "rstrip", "normalized", "special"))


def _no_files(
    where: str | None, vocab_file: str | os.PathLike[str] | None, merges_file: str | os.PathLike[str] | None
) -> ValueError:
    """The error for a directory with neither ``vocab.json`` + ``merges.txt`` nor ``tokenizer.json``."""
    found = f"only {VOCAB_FILE}" if vocab_file else f"only {MERGES_FILE}" if merges_file else "neither"
    return ValueError(
        f"{where or 'the directory'}: BPETokenizer needs vocab.json + merges.txt, or a byte-level BPE "
        f"tokenizer.json, and found {found}; or pass vocab= and merges= to build one in memory"
    )


@dataclasses.dataclass(frozen=True)
class _LoadedFiles:
    """A vocabulary and merges read once per file version, and the pipelines made of them per cut, ``ignore_merges``
    and template."""

    vocab: dict[str, int]
    merges: Sequence[tuple[str, str]]
    add_prefix_space: bool = False
    added_tokens: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    pre_tokenizer: dict[str, Any] | None = None
    ignore_merges: bool = False
    template: TemplateProcessing | None = None
    #: The ``truncation`` and ``padding`` sections as ``tokenizers``' Python binding gives them (None: absent).
    truncation: dict[str, Any] | None = None
    padding: dict[str, Any] | None = None
    #: The ``tokenizer.json`` as read, to save it back (None: read from ``vocab.json`` + ``merges.txt``).
    pipeline: KeptPipeline | None = None
    #: The ``tokenizer.json``'s own pipeline, run where a tokenizer takes the file's settings.
    read: PipelineJson | None = None
    _pipelines: dict[tuple[Any, ...], PipelineJson] = dataclasses.field(default_factory=dict)

    @property
    def basis(self) -> tuple[Any, ...]:
        """The file's own cut, ``ignore_merges`` and template (:meth:`BPETokenizer._basis` of a tokenizer loaded
        with the file's settings)."""
        cut = PreTokenizer.from_settings({**(self.pre_tokenizer or {}), "add_prefix_space": self.add_prefix_space})
        return (cut, self.ignore_merges, self.template)

    def pipeline_json(self, basis: tuple[Any, ...], source: Any) -> PipelineJson:
        """The pipeline for these files under a tokenizer's :meth:`BPETokenizer._basis`, made once per basis
        (building GPT-2's merge tables takes a tenth of a second; tokenizers share it and never change it): the
        file's own where the basis is the file's, else the ``tokenizer.json`` those settings write."""
        cut, ignore_merges, template = basis
        key = (cut, ignore_merges, None if template is None else json.dumps(template.to_json()))
        found = self._pipelines.get(key)
        if found is None:
            if self.read is not None and basis == self.basis:
                found = self.read
            else:
                found = _pipeline_of(self.vocab, self.merges, basis, source)
            self._pipelines[key] = found
        return found


def _pipeline_of(
    vocab: dict[str, int], merges: Sequence[tuple[str, str]], basis: tuple[Any, ...], source: Any
) -> PipelineJson:
    """The pipeline of the byte-level ``tokenizer.json`` a :class:`BPETokenizer` of this vocabulary, merges and
    :meth:`~BPETokenizer._basis` writes (:func:`~hf_bpe.models.bpe.files.byte_level_document`), without added
    tokens: transformers' own cut the text before it."""
    cut, ignore_merges, template = basis
    document = byte_level_document(vocab, list(merges), cut, ignore_merges=ignore_merges, template=template)
    return pipeline_from_data(document, str(source), owner="BPETokenizer")


@functools.lru_cache(maxsize=4)
def _loaded(*keys: tuple[str, int, int]) -> _LoadedFiles:
    """``vocab.json`` + ``merges.txt`` (two keys) or ``tokenizer.json`` (one), read once per file version.
    Instances copy the vocabulary and merges."""
    if len(keys) == 2:
        vocab = read_vocab(keys[0][0])
        return _LoadedFiles(vocab, read_merges(keys[1][0], vocab))
    # Parsed by read_json: within hf_bpe.from_pretrained, the parse that decided this class (parsing_once).
    data = read_json(keys[0][0])
    read = pipeline_from_data(data, keys[0][0], owner="BPETokenizer")
    found = tokenizer_json_from_data(data, Path(keys[0][0]), (read.vocab, read.merges))
    document = found.pipeline.document if found.pipeline is not None else {}
    truncation, padding = read_truncation_and_padding(document, keys[0][0])
    return _LoadedFiles(
        read.vocab,
        read.merges,
        found.add_prefix_space,
        found.added_tokens,
        found.pre_tokenizer,
        found.ignore_merges,
        found.template,
        truncation,
        padding,
        found.pipeline,
        read,
    )
