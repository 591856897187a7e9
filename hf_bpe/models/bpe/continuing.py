"""The tokenizer a training run continues from: its vocabulary, merges, special tokens, roles and pre-tokenizer.

:func:`read_base` reads a directory: hf_bpe's own (``vocab.json`` + ``merges.txt`` + ``tokenizer_config.json``),
GPT-2's files (``vocab.json`` + ``merges.txt`` alone: a token no merge makes and no byte spells, such as
``<|endoftext|>``, is a special token, with GPT-2's roles), a converted tiktoken vocabulary (``hf-bpe convert
tiktoken``), or any directory whose ``tokenizer.json`` holds a byte-level BPE model (its added tokens become special
tokens at their ids; ``tokenizer_config.json``, when there, names their roles). A base whose ids have a gap, or that
has an ordinary (non-special) added token, is refused with a message naming it: nothing is ever renumbered. The
merge loop that continues is :func:`hf_bpe.models.bpe.trainer.continue_bpe`; reading the files is
:mod:`hf_bpe.models.bpe.files`' job.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hf_bpe.models.bpe.files import (
    CHAR_TOKENIZER_CLASS,
    MERGES_FILE,
    VOCAB_FILE,
    read_merges,
    read_tokenizer_json,
    read_vocab,
)
from hf_bpe.models.bpe.options import Merges, Vocab
from hf_bpe.models.directory import SPECIAL_TOKEN_ROLES, TOKENIZER_CONFIG_FILE, TOKENIZER_FILE, special_token_roles
from hf_bpe.pipeline.byte_level import BYTE_ALPHABET
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer


@dataclasses.dataclass(frozen=True)
class BaseTokenizer:
    """A byte-level BPE tokenizer to continue training from.

    Attributes:
        vocab: token to id (special tokens included).
        merges: the merges in rank order.
        special_tokens: the special tokens, in id order.
        roles: which special token is ``bos_token``, ``eos_token``, ``unk_token``, ``pad_token``.
        pre_tokenizer: how it cuts text (normalizer, splits, prefix space), without special tokens.
        source: where it was read from.
    """

    vocab: Vocab
    merges: Merges
    special_tokens: tuple[str, ...]
    roles: dict[str, str | None]
    pre_tokenizer: PreTokenizer
    source: str = ""


def read_base(directory: str | os.PathLike[str]) -> BaseTokenizer:
    """Read the tokenizer in ``directory`` as a base to continue training from (see the module docstring).

    Raises:
        FileNotFoundError: if the directory has neither ``vocab.json`` + ``merges.txt`` nor ``tokenizer.json``.
        ValueError: naming the file and what is wrong: not byte-level BPE, char-level, an ordinary added token, an
            added token whose id is another token's, a gap in the ids.

    >>> import hf_bpe, tempfile
    >>> directory = tempfile.mkdtemp()
    >>> _ = hf_bpe.train_from_iterator(["hug pug hug"], vocab_size=260, special_tokens=["<s>"]).save(directory)
    >>> base = read_base(directory)
    >>> base.special_tokens, base.merges[:2], len(base.vocab)
    (('<s>',), [('u', 'g'), ('h', 'ug')], 260)
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory}: no such directory; --continue-from takes a tokenizer directory")
    config_path = directory / TOKENIZER_CONFIG_FILE
    config: dict[str, Any] = {}
    if config_path.is_file():
        try:
            config = json.loads(config_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise ValueError(f"{config_path}: not valid JSON (line {e.lineno}: {e.msg})") from e
    if config.get("tokenizer_class") == CHAR_TOKENIZER_CLASS:
        raise ValueError(f"{directory}: a char-level BPE tokenizer; training continues byte-level BPE only")
    files = (directory / VOCAB_FILE).is_file() and (directory / MERGES_FILE).is_file()
    ours = files and isinstance(config.get("pre_tokenizer"), dict)
    if ours or (files and not (directory / TOKENIZER_FILE).is_file()):
        vocab = read_vocab(directory / VOCAB_FILE)
        merges = read_merges(directory / MERGES_FILE, vocab)
        settings = {**(config.get("pre_tokenizer") or {}), "add_prefix_space": bool(config.get("add_prefix_space"))}
        named = [_content(config.get(role)) for role in SPECIAL_TOKEN_ROLES]
        named += [_content(token) for token in config.get("extra_special_tokens") or []]
        specials = {token for token in named if token is not None and token in vocab}
        if not config:
            # GPT-2's bare files: a token no merge makes and no byte spells was added, as <|endoftext|> was.
            made = {left + right for left, right in merges} | set(BYTE_ALPHABET)
            specials = {token for token in vocab if token not in made}
        source = directory / VOCAB_FILE
    elif (directory / TOKENIZER_FILE).is_file():
        source = directory / TOKENIZER_FILE
        found = read_tokenizer_json(source)
        vocab, merges = dict(found.vocab), list(found.merges)
        settings = {**found.pre_tokenizer, "add_prefix_space": found.add_prefix_space}
        specials = set()
        owner = {token_id: token for token, token_id in vocab.items()}
        for entry in found.added_tokens:
            content, token_id = str(entry.get("content", "")), entry.get("id")
            if type(token_id) is not int:
                raise ValueError(f"{source}: added token {content!r} has id {token_id!r}; ids are integers")
            if not entry.get("special"):
                raise ValueError(
                    f"{source}: added token {content!r} (id {token_id}) is not special; hf_bpe keeps a base's special "
                    "tokens only, and continuing would change how it is matched"
                )
            clash = owner.get(token_id, content) != content or vocab.get(content, token_id) != token_id
            if clash:
                raise ValueError(
                    f"{source}: added token {content!r} has id {token_id!r}, which is token "
                    f"{owner.get(token_id, vocab.get(content))!r}'s; the file is inconsistent"
                )
            vocab[content] = token_id
            owner[token_id] = content
            specials.add(content)
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
    roles = {role: _content(config.get(role)) for role in SPECIAL_TOKEN_ROLES}
    roles = {role: token if token in specials else None for role, token in roles.items()}
    if not any(roles.values()):
        roles = special_token_roles(ordered)
    return BaseTokenizer(vocab, merges, ordered, roles, pre_tokenizer.for_encoding(), str(source))


def as_base(base: str | os.PathLike[str] | BaseTokenizer) -> BaseTokenizer:
    """``base`` itself if it is read already, else :func:`read_base` of the directory."""
    return base if isinstance(base, BaseTokenizer) else read_base(base)


def _content(token: Any) -> str | None:
    """A special token as ``tokenizer_config.json`` spells it: a string or an ``AddedToken`` object."""
    if isinstance(token, Mapping):
        token = token.get("content")
    return token if isinstance(token, str) else None
