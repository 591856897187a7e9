"""The tokenizer a training run continues from: its vocabulary, merges, special tokens, roles and pre-tokenizer.

:func:`read_base` reads a directory: hf_bpe's own (``vocab.json`` + ``merges.txt`` + ``tokenizer_config.json``),
GPT-2's files (``vocab.json`` + ``merges.txt`` alone: a token no merge makes and no byte spells, such as
``<|endoftext|>``, is a special token, with GPT-2's roles), a converted tiktoken vocabulary (``hf-bpe convert
tiktoken``), or any directory (or file) whose ``tokenizer.json`` holds a byte-level BPE model that
:class:`hf_bpe.transformers.bpe.BPETokenizer` reads: Llama-3.x, Qwen2/3, DeepSeek-V3, GPT-OSS, Mistral-Nemo, OLMo-2,
or one ``tokenizers`` trained. Such a base keeps its whole pipeline: the continued ``tokenizer.json`` is the base's
file with new tokens and merges after its own (:class:`ContinuedResult`, :func:`hf_bpe.models.bpe.files.
continued_tokenizer_json`): normalizer, pre-tokenizer, post-processor, decoder, every added token (special or not)
with its flags and id, ``ignore_merges``. Its added tokens are matched whole before any cutting, as the base
matches them; ``tokenizer_config.json``, when there, names their roles. A base whose ids have a gap is refused
with a message naming it: nothing is ever renumbered, and new tokens take the ids after the last one used (the
model's and the added tokens').

``ignore_merges`` (Llama-3.x, GPT-OSS, Mistral-Nemo): the base encodes a pre-token that is in its vocabulary as that
one token, whatever its merges would make of it. Such a word is one symbol in the counts continuing starts from:
it adds no pair, no new merge splits or joins it, and the continued tokenizer (which keeps ``ignore_merges``) still
encodes it as the base does, to the same id. A new token is made from the other words only (by merges of the
base's tokens, as the base's segmentation of them leaves them), and where a new merge spells a token the base
already has, the merge keeps that token's id and no new id is used. A word that becomes a new token whole is that
token in the continued tokenizer either way (its merges, or ``ignore_merges``' look-up).

The merge loop that continues is :func:`continue_bpe`, below; reading and writing the files is
:mod:`hf_bpe.models.bpe.files`' job.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hf_bpe.collector import collector_paused
from hf_bpe.models.bpe.encoder import BytePairEncoder
from hf_bpe.models.bpe.files import (
    CHAR_TOKENIZER_CLASS,
    MERGES_FILE,
    TOKENIZER_CLASS,
    VOCAB_FILE,
    KeptPipeline,
    read_merges,
    read_tokenizer_json,
    read_vocab,
    write_continued_dir,
)
from hf_bpe.models.bpe.options import BpeOptions, Merges, Vocab
from hf_bpe.models.bpe.trainer import ProgressCallback, TrainResult, merge_words, symbol_words
from hf_bpe.models.directory import (
    SPECIAL_TOKEN_ROLES,
    TOKENIZER_FILE,
    named_special_tokens,
    read_tokenizer_config,
    special_token_roles,
    token_content,
)
from hf_bpe.models.options import check_count
from hf_bpe.pipeline.byte_level import BYTE_ALPHABET, from_byte_level
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
from hf_bpe.pipeline.processors import template_of
from hf_bpe.progress import Progress


@dataclasses.dataclass(frozen=True)
class BaseTokenizer:
    """A byte-level BPE tokenizer to continue training from.

    Attributes:
        vocab: token to id: the model's tokens and every added token.
        merges: the merges in rank order.
        special_tokens: the tokens matched whole before the text is cut, in id order: the special tokens, and for a
            ``tokenizer.json`` base every added token, special or not (Qwen3's ``<tool_call>``), as the base
            matches them.
        roles: which special token is ``bos_token``, ``eos_token``, ``unk_token``, ``pad_token``.
        pre_tokenizer: how it cuts text (normalizer, splits, prefix space), without special tokens.
        source: where it was read from.
        pipeline: the base's whole ``tokenizer.json`` (None for one read from ``vocab.json`` + ``merges.txt``).
    """

    vocab: Vocab
    merges: Merges
    special_tokens: tuple[str, ...]
    roles: dict[str, str | None]
    pre_tokenizer: PreTokenizer
    source: str = ""
    pipeline: KeptPipeline | None = None

    @property
    def ignore_merges(self) -> bool:
        """Whether the base encodes a pre-token in its vocabulary as that one token (its model's setting)."""
        return self.pipeline is not None and self.pipeline.ignore_merges


def read_base(directory: str | os.PathLike[str]) -> BaseTokenizer:
    """Read the tokenizer in ``directory`` (or the ``tokenizer.json`` file ``directory`` names) as a base to continue
    training from (see the module docstring).

    Raises:
        FileNotFoundError: if the directory has neither ``vocab.json`` + ``merges.txt`` nor ``tokenizer.json``.
        ValueError: naming the file and what is wrong: not byte-level BPE, char-level, an added token whose id is
            another token's, a gap in the ids.

    >>> import hf_bpe, tempfile
    >>> directory = tempfile.mkdtemp()
    >>> _ = hf_bpe.train_from_iterator(["hug pug hug"], vocab_size=260, special_tokens=["<s>"]).save(directory)
    >>> base = read_base(directory)
    >>> base.special_tokens, base.merges[:2], len(base.vocab)
    (('<s>',), [('u', 'g'), ('h', 'ug')], 260)
    """
    directory = Path(directory)
    if directory.is_file() and (directory.suffix != ".json" or directory.name in NOT_TOKENIZER_JSON):
        raise ValueError(not_a_base(directory))
    named_file = directory.is_file() and directory.suffix == ".json"
    json_file = directory if named_file else directory / TOKENIZER_FILE
    if named_file:
        directory = directory.parent
    elif not directory.is_dir():
        raise FileNotFoundError(
            f"{directory}: no such directory; --continue-from takes a tokenizer directory or a tokenizer.json"
        )
    config = read_tokenizer_config(directory) if json_file.name == TOKENIZER_FILE else {}
    if config.get("tokenizer_class") == CHAR_TOKENIZER_CLASS:
        raise ValueError(f"{directory}: a char-level BPE tokenizer; training continues byte-level BPE only")
    files = not named_file and (directory / VOCAB_FILE).is_file() and (directory / MERGES_FILE).is_file()
    # hf_bpe's own directory: the files and tokenizer_config.json say all (its engine and preset name too).
    ours = files and isinstance(config.get("pre_tokenizer"), dict) and config.get("tokenizer_class") == TOKENIZER_CLASS
    pipeline = None
    if ours or (files and not json_file.is_file()):
        vocab = read_vocab(directory / VOCAB_FILE)
        merges = read_merges(directory / MERGES_FILE, vocab)
        settings = {**(config.get("pre_tokenizer") or {}), "add_prefix_space": bool(config.get("add_prefix_space"))}
        specials = {token for token in named_special_tokens(config) if token in vocab}
        if ours and json_file.is_file():
            vocab, specials, pipeline = _with_tokenizer_json(vocab, specials, json_file, config)
        if not config:
            # GPT-2's bare files: a token no merge makes and no byte spells was added, as <|endoftext|> was.
            made = {left + right for left, right in merges} | set(BYTE_ALPHABET)
            specials = {token for token in vocab if token not in made}
        source = directory / VOCAB_FILE
    elif json_file.is_file():
        source = json_file
        vocab, merges, settings, specials, pipeline = _read_tokenizer_json(json_file, config)
    else:
        raise FileNotFoundError(
            f"{directory}: no {VOCAB_FILE} + {MERGES_FILE} and no {TOKENIZER_FILE}; --continue-from takes a byte-level "
            "BPE tokenizer directory"
        )
    try:
        pre_tokenizer = PreTokenizer.from_settings(settings)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{directory}: its pre-tokenizer settings cannot be read: {e}") from e
    if not pre_tokenizer.byte_level:
        raise ValueError(f"{directory}: not a byte-level tokenizer; training continues byte-level BPE only")
    ordered = tuple(sorted(specials, key=vocab.__getitem__))
    roles = {role: token_content(config.get(role)) for role in SPECIAL_TOKEN_ROLES}
    roles = {role: token if token in specials else None for role, token in roles.items()}
    if not any(roles.values()) and source.name == VOCAB_FILE:
        # GPT2Tokenizer gives GPT-2's bare files <|endoftext|> as bos, eos and unk; a tokenizer.json has only the
        # roles its tokenizer_config.json names (TokenizersBackend loads a bare one with none), so none are invented.
        roles = special_token_roles(ordered)
    return BaseTokenizer(vocab, merges, ordered, roles, pre_tokenizer.for_encoding(), str(source), pipeline)


def _with_tokenizer_json(
    vocab: Vocab, specials: set[str], json_file: Path, config: Mapping[str, Any]
) -> tuple[Vocab, set[str], KeptPipeline | None]:
    """hf_bpe's own directory, with what its ``tokenizer.json`` says beyond ``vocab.json``: the added tokens the
    model's vocabulary does not hold (Llama-3's 256 special tokens, saved from a model's file), and the pipeline
    where it does more than the vocabulary and merges (``ignore_merges``, a template adding a BOS)."""
    full, _, _, added, pipeline = _read_tokenizer_json(json_file, config)
    if any(full.get(token, token_id) != token_id for token, token_id in vocab.items()):
        raise ValueError(
            f"{json_file}: its vocabulary is not the {VOCAB_FILE} beside it; the directory is inconsistent"
        )
    keeps = pipeline is not None and (
        pipeline.ignore_merges or template_of(pipeline.document.get("post_processor")) is not None
    )
    return {**vocab, **full}, specials | added, pipeline if keeps else None


#: The files of a tokenizer directory that are not its ``tokenizer.json`` (given by mistake for the directory).
NOT_TOKENIZER_JSON = frozenset(
    {VOCAB_FILE, "tokenizer_config.json", "added_tokens.json", "special_tokens_map.json", "chat_template.json"}
)


def not_a_base(path: Path) -> str:
    """The refusal of a file that is no tokenizer.json given as the base (``DIR/vocab.json``)."""
    return (
        f"{path}: a {path.name} file, not a tokenizer; continuing takes a tokenizer directory or a tokenizer.json "
        f"(give the directory: {path.parent})"
    )


#: How a reader's refusal ends: the way out for loading, not for training.
LOADING_ADVICE = "load this file with transformers' TokenizersBackend instead"

#: What a refusal met while reading a base to continue says instead.
CONTINUING_TAKES = (
    "training continues only a byte-level BPE tokenizer whose every part hf_bpe implements; train a new tokenizer "
    "on your text instead"
)


def _read_tokenizer_json(
    source: Path, config: Mapping[str, Any]
) -> tuple[Vocab, Merges, dict[str, Any], set[str], KeptPipeline | None]:
    """A ``tokenizer.json`` base: its vocabulary with every added token at its id, merges, pre-tokenizer settings,
    the added tokens (matched whole) and its pipeline, with ``config`` (the directory's ``tokenizer_config.json``).

    Raises:
        ValueError: naming the file and the added token whose id is not an integer or is another token's.
    """
    try:
        found = read_tokenizer_json(source)
    except ValueError as e:
        # The reader's way out (loading with TokenizersBackend) does not train: say what continuing takes instead.
        message = str(e).removesuffix(LOADING_ADVICE).rstrip("; ")
        if message != str(e):
            raise type(e)(f"{message}; {CONTINUING_TAKES}") from e
        raise
    vocab, merges = dict(found.vocab), list(found.merges)
    settings = {**found.pre_tokenizer, "add_prefix_space": found.add_prefix_space}
    added: set[str] = set()
    owner = {token_id: token for token, token_id in vocab.items()}
    for number, entry in enumerate(found.added_tokens):
        content, token_id = str(entry.get("content", "")), entry.get("id")
        if type(token_id) is not int or token_id < 0:
            raise ValueError(
                f"{source}: added_tokens[{number}] ({content!r}) has id {token_id!r}; ids are non-negative integers"
            )
        clash = owner.get(token_id, content) != content or vocab.get(content, token_id) != token_id
        if clash:
            raise ValueError(
                f"{source}: added_tokens[{number}] ({content!r}) has id {token_id!r}, which is token "
                f"{owner.get(token_id, vocab.get(content))!r}'s; the file is inconsistent"
            )
        vocab[content] = token_id
        owner[token_id] = content
        added.add(content)
    pipeline = None if found.pipeline is None else dataclasses.replace(found.pipeline, config=dict(config))
    return vocab, merges, settings, added, pipeline


def as_base(base: str | os.PathLike[str] | BaseTokenizer) -> BaseTokenizer:
    """``base`` itself if it is read already, else :func:`read_base` of the directory."""
    return base if isinstance(base, BaseTokenizer) else read_base(base)


def continue_bpe(
    counts: Mapping[str, int],
    vocab: Mapping[str, int],
    merges: Merges,
    *,
    options: BpeOptions | None = None,
    special_tokens: Sequence[str] = (),
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    pipeline: KeptPipeline | None = None,
    **keywords: Any,
) -> TrainResult:
    """Continue training a byte-level BPE vocabulary: its ids and merges kept, new merges learned after them.

    Each pre-token is first encoded as the base encodes it (:meth:`~hf_bpe.models.bpe.encoder.BytePairEncoder.
    merge_bytes`; ``ignore_merges``: see the module docstring); the merge loop then starts from those words with exact
    pair counts and one queue entry per pair, by the rules of :func:`train_bpe`. New special tokens take the ids after
    the base's last one, then merged tokens the next ids in creation order; a merge whose token is already in the
    vocabulary keeps that id. A new merge whose pair is one of the base's merges (possible only after such a merge)
    is not listed again. When the base was trained by ``tokenizers`` on the same counts, the result is what
    ``tokenizers`` gives training them to ``vocab_size`` directly (:mod:`hf_bpe.models.bpe.trainer`, "Continuing").

    Args:
        counts: pre-token to count, byte-level spelling, cut with the base's pre-tokenizer.
        vocab: the base's vocabulary, ids ``0`` to ``len(vocab) - 1`` with no gap, holding the 256 bytes.
        merges: the base's merges in rank order.
        options: what to train, taken as handed over (:class:`~hf_bpe.models.bpe.options.BpeOptions`):
            ``vocab_size`` is the size to reach, the base included (at least the base's size); ``special_tokens``
            the special tokens to add after the base's tokens (one already special in the base is skipped, one that
            is an ordinary token of the base is refused); ``min_frequency`` and ``max_token_length`` as in
            :func:`train_bpe` (a base token spans as many symbols as it has bytes). ``limit_alphabet`` and
            ``char_level`` do not apply: the base's alphabet is kept.
        special_tokens: which tokens of the base are special tokens (kept, with their ids).
        workers, progress: as in :func:`train_bpe`.
        pipeline: the base's ``tokenizer.json`` (:attr:`BaseTokenizer.pipeline`; None: none): its model's tokens and
            ``ignore_merges`` encode the words, and the result writes it back around the new vocabulary.
        keywords: ``options``' fields, laid over them (the one conversion of a keyword caller's options);
            ``new_special_tokens`` is ``special_tokens``' name here.

    Returns:
        A :class:`ContinuedResult`: the base's tokens and merges, the new ones after them (``merges_learned``).

    Raises:
        ValueError: on a ``vocab_size`` below the base's size, a base with a gap in its ids or without a byte, a
            new special token that is an ordinary token of the base, or a bad option (as :func:`train_bpe`).

    >>> from hf_bpe.models.bpe.trainer import train_bpe
    >>> counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    >>> base = train_bpe(counts, vocab_size=257)
    >>> base.merges, continue_bpe(counts, base.vocab, base.merges, vocab_size=259).merges
    ([('u', 'g')], [('u', 'g'), ('u', 'n'), ('h', 'ug')])
    """
    if "new_special_tokens" in keywords:
        keywords["special_tokens"] = keywords.pop("new_special_tokens")
    options = BpeOptions.of(options, keywords, "continue_bpe")
    check_count("workers", workers, 1, optional=True)
    vocab_size, new_special_tokens = options.vocab_size, options.special_tokens
    tokens = base_tokens(vocab)
    check_base(vocab, len(tokens), vocab_size, special_tokens)
    grown: Vocab = dict(vocab)
    specials = list(special_tokens)
    add_special_tokens(grown, tokens, specials, new_special_tokens)
    stage = getattr(progress, "stage", None)  # a StageCallback hears the base's encoding too (20 s on 1 GB)
    words, word_counts = _base_words(counts, vocab, merges, pipeline, None if stage is None else stage)
    # A base token spans as many initial symbols as it has bytes (the reference's Word lengths); a special token
    # its length, as in train_bpe.
    lengths = [len(token) for token in tokens]

    with collector_paused():
        new_merges, learned, stop = merge_words(
            words, word_counts, grown, tokens, lengths, vocab_size=vocab_size, min_frequency=options.min_frequency,
            max_token_length=options.max_token_length, progress=progress, workers=workers or os.cpu_count() or 1,
            continued=True,
        )  # fmt: skip
    ranked = set(merges)
    result_merges = list(merges) + [pair for pair in new_merges if pair not in ranked]
    return ContinuedResult(grown, result_merges, stop, learned, tuple(specials), pipeline=pipeline)


@dataclasses.dataclass(frozen=True)
class ContinuedResult(TrainResult):
    """What :func:`continue_bpe` gives: a :class:`~hf_bpe.models.bpe.result.TrainResult` that, continued from a
    ``tokenizer.json``, writes the base's whole pipeline back around the new vocabulary when saved.

    Attributes:
        pipeline: the base's ``tokenizer.json`` pipeline (None for a base read from ``vocab.json`` +
            ``merges.txt``: saved as any training result is).
    """

    pipeline: KeptPipeline | None = None

    def save(
        self, directory: str | os.PathLike[str], *, roles: Mapping[str, str | None] | None = None, force: bool = False
    ) -> list[Path]:
        """Write ``vocab.json``, ``merges.txt``, ``tokenizer_config.json`` and ``tokenizer.json``, all or none: as
        :meth:`TrainResult.save <hf_bpe.models.bpe.result.TrainResult.save>`, the base's pipeline kept in
        ``tokenizer.json`` (:func:`hf_bpe.models.bpe.files.write_continued_dir`) when there is one.

        Raises:
            FileExistsError: naming files of another tokenizer in ``directory``, without ``force``.
        """
        if self.pipeline is None:
            return super().save(directory, roles=roles, force=force)
        return write_continued_dir(
            directory,
            self.vocab,
            self.merges,
            pipeline=self.pipeline,
            special_tokens=self.special_tokens,
            roles=roles if roles is not None else self.roles,
            pre_tokenizer=self.pre_tokenizer,
            force=force,
        )


def check_base(vocab: Mapping[str, int], size: int, vocab_size: int, special_tokens: Sequence[str]) -> None:
    """Refuse a base that cannot be continued to ``vocab_size``: smaller than the base's ``size``, without all 256
    bytes, or naming a special token it does not have."""
    if vocab_size < size:
        raise ValueError(
            f"vocab_size={vocab_size} is below the base's {size} tokens; continuing keeps every token of the "
            f"base, so ask for {size} or more"
        )
    missing = [char for char in BYTE_ALPHABET if char not in vocab]
    if missing:
        raise ValueError(
            f"the base has no token for byte {from_byte_level(missing[0])!r} ({len(missing)} bytes missing); "
            "continuing needs a byte-level vocabulary holding all 256 bytes"
        )
    for token in special_tokens:
        if token not in vocab:
            raise ValueError(f"special token {token!r} is not in the base's vocabulary")


def add_special_tokens(vocab: Vocab, tokens: list[str], specials: list[str], new: Sequence[str]) -> None:
    """Give the ``new`` special tokens the next ids (in place); one already special is skipped, one that is an
    ordinary token of the base is refused (it would change how the base encodes text)."""
    for token in new:
        if token in vocab:
            if token in specials:
                continue
            raise ValueError(
                f"new special token {token!r} is already token {vocab[token]} of the base, an ordinary token; "
                "choose another text for it (a special token must not change how the base encodes text)"
            )
        vocab[token] = len(tokens)
        tokens.append(token)
        specials.append(token)


#: Words encoded with the base between two progress reports.
REPORT_WORDS = 1 << 14


def _base_words(
    counts: Mapping[str, int],
    vocab: Mapping[str, int],
    merges: Merges,
    pipeline: KeptPipeline | None,
    progress: Progress | None = None,
) -> tuple[list[str], list[int]]:
    """The words as the base encodes them (symbol strings of its ids), with their counts; its encoder (and cache)
    is gone when they are made. With a ``pipeline``, only its model's tokens encode (an added token the model does
    not hold is no word's spelling, for ``ignore_merges`` too), with its ``ignore_merges``. ``progress`` is called
    as ``progress("base", words_done, words)``."""
    ignore_merges = False
    if pipeline is not None:
        vocab = {token: token_id for token, token_id in vocab.items() if token not in pipeline.added_only}
        ignore_merges = pipeline.ignore_merges
    merge_bytes = BytePairEncoder(vocab, merges, ignore_merges=ignore_merges).merge_bytes
    done = 0

    def spell(word: str) -> str:
        nonlocal done
        done += 1
        if progress is not None and not done % REPORT_WORDS:
            progress("base", done, len(counts))
        return "".join(map(chr, merge_bytes(from_byte_level(word))))

    found = symbol_words(counts, spell)
    if progress is not None:
        progress("base", len(counts), len(counts))
    return found


def base_tokens(vocab: Mapping[str, int]) -> list[str]:
    """The base's tokens by id; refuses a gap in the ids (new tokens take the ids after the last one, and a gap
    would be filled by nothing or renumbered)."""
    tokens: list[str | None] = [None] * len(vocab)
    for token, token_id in vocab.items():
        if type(token_id) is not int or not 0 <= token_id < len(vocab) or tokens[token_id] is not None:
            used = sorted(vocab.values())
            gap = next((i for i, found in enumerate(used) if found != i), len(used))
            raise ValueError(
                f"the base's ids are not 0 to {len(vocab) - 1} without a gap (no token has id {gap}; the largest id "
                f"is {used[-1] if used else None}); hf_bpe continues only vocabularies whose ids have no gap, so "
                "that new tokens take the next ids without renumbering any"
            )
        tokens[token_id] = token
    return [token for token in tokens if token is not None]
