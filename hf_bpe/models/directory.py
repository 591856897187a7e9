"""What every tokenizer directory hf_bpe writes shares, whatever its model: the file names transformers reads,
the special-token roles, and the files of another tokenizer that must not be left beside a new one.

Each model's own files (``vocab.json`` + ``merges.txt``, ``vocab.txt``, Unigram's ``tokenizer.json``) are its
package's ``files`` module's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from hf_bpe.utf8 import decode_utf8

TOKENIZER_CONFIG_FILE = "tokenizer_config.json"


TOKENIZER_FILE = "tokenizer.json"


#: GPT-2's one special token, which plays every role (bos, eos, unk) when no roles are given.
GPT2_SPECIAL_TOKEN = "<|endoftext|>"


SPECIAL_TOKEN_ROLES = ("bos_token", "eos_token", "unk_token", "pad_token")


def read_tokenizer_config(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """The directory's ``tokenizer_config.json`` as a dict; ``{}`` when there is none.

    Raises:
        ValueError: naming the file (and the line) when it is not a JSON object.
    """
    path = Path(directory) / TOKENIZER_CONFIG_FILE
    return read_json_object(path) if path.is_file() else {}


def read_json_object(path: Path) -> dict[str, Any]:
    """A JSON file holding one object, as a dict.

    Raises:
        ValueError: naming the file (and the line) when it is not UTF-8, not JSON or not an object.
    """
    try:
        data = json.loads(decode_utf8(path.read_bytes(), path))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not valid JSON (line {e.lineno}: {e.msg})") from e
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a JSON object but {type(data).__name__}")
    return data


def token_content(token: Any) -> str | None:
    """A special token as ``tokenizer_config.json`` spells it: a string, or an ``AddedToken`` object's content."""
    if isinstance(token, Mapping):
        token = token.get("content")
    return token if isinstance(token, str) else None


def named_special_tokens(config: Mapping[str, Any]) -> list[str]:
    """The tokens a ``tokenizer_config.json`` names as special: its roles' (bos, eos, unk, pad), then its
    ``extra_special_tokens``, in that order (repeats kept)."""
    named = [config.get(role) for role in SPECIAL_TOKEN_ROLES] + list(config.get("extra_special_tokens") or [])
    return [content for content in map(token_content, named) if content is not None]


#: Files that transformers' ``from_pretrained`` also reads from a tokenizer directory, which hf_bpe does not write:
#: left there by an earlier tokenizer, they would change what is loaded (other special tokens, added tokens, a
#: chat template), so writing a tokenizer directory refuses them, or removes them when told to.
FOREIGN_TOKENIZER_FILES = (
    "special_tokens_map.json",
    "added_tokens.json",
    "chat_template.jinja",
    "chat_template.json",
    "additional_chat_templates",
)


#: The model files of each kind hf_bpe writes (every kind also writes ``tokenizer.json`` and
#: ``tokenizer_config.json``): left beside a tokenizer of another kind, they would be read as the tokenizer
#: (``hf-bpe encode`` takes ``vocab.json`` + ``merges.txt`` for BPE), so they count as another tokenizer's files.
MODEL_FILES = {"bpe": ("vocab.json", "merges.txt"), "wordpiece": ("vocab.txt",), "unigram": ()}


def tokenizer_files(directory: str | os.PathLike[str]) -> list[Path]:
    """The files in ``directory`` that make a tokenizer, its own or another's: ``tokenizer.json``,
    ``tokenizer_config.json``, :data:`FOREIGN_TOKENIZER_FILES` and every kind's :data:`MODEL_FILES`.

    >>> import tempfile, pathlib
    >>> directory = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("notes.txt", "tokenizer.json", "chat_template.jinja"):
    ...     _ = (directory / name).write_text("{}")
    >>> [path.name for path in tokenizer_files(directory)]
    ['tokenizer.json', 'chat_template.jinja']
    """
    directory = Path(directory)
    models = [name for names in MODEL_FILES.values() for name in names]
    names = [TOKENIZER_FILE, TOKENIZER_CONFIG_FILE, *FOREIGN_TOKENIZER_FILES, *models]
    return [directory / name for name in names if os.path.lexists(directory / name)]


def stale_tokenizer_files(directory: str | os.PathLike[str], writing: Collection[str] = ()) -> list[Path]:
    """The files in ``directory`` that would be loaded along with (or instead of) a tokenizer hf_bpe writes there:
    the :func:`tokenizer_files` that are not among the names it is ``writing`` (a ``tokenizer_config.json`` left
    beside a new ``tokenizer.json`` would give it another tokenizer's class and roles).

    >>> import tempfile, pathlib
    >>> directory = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("added_tokens.json", "notes.txt", "vocab.json", "merges.txt"):
    ...     _ = (directory / name).write_text("{}")
    >>> [path.name for path in stale_tokenizer_files(directory, writing=["vocab.json", "merges.txt"])]
    ['added_tokens.json']
    >>> [path.name for path in stale_tokenizer_files(directory, writing=["vocab.txt"])]
    ['added_tokens.json', 'vocab.json', 'merges.txt']
    """
    return [path for path in tokenizer_files(directory) if path.name not in writing]


def check_no_stale_files(directory: str | os.PathLike[str], writing: Collection[str] = ()) -> None:
    """Refuse a directory with files from another tokenizer (see :func:`stale_tokenizer_files`).

    Raises:
        FileExistsError: naming the files, and how to have them removed.
    """
    stale = stale_tokenizer_files(directory, writing)
    if stale:
        names = ", ".join(path.name for path in stale)
        raise FileExistsError(
            f"{directory}: holds {names} from another tokenizer, which would be loaded with (or instead of) the new "
            "one; remove them, choose another directory, or pass --force (force=True) to have them removed"
        )


def replaced_files(directory: str | os.PathLike[str], writing: Collection[str], *, force: bool) -> list[str]:
    """The names of another tokenizer's files to remove in the same all-or-nothing write as the files ``writing``
    names (:func:`hf_bpe.atomic.write_files`' ``remove``): none are kept beside the new tokenizer.

    Raises:
        FileExistsError: if there are any and ``force`` is not set (nothing is removed then).
    """
    if not force:
        check_no_stale_files(directory, writing)
    return [path.name for path in stale_tokenizer_files(directory, writing)]


def special_token_roles(
    special_tokens: Sequence[str], roles: Mapping[str, str | None] | None = None
) -> dict[str, str | None]:
    """Which special token plays which role (``bos_token``, ``eos_token``, ``unk_token``, ``pad_token``).

    Roles given explicitly win. Without any, GPT-2's convention applies when ``<|endoftext|>`` is among the
    special tokens: it is bos, eos and unk (and there is no pad token).

    Raises:
        ValueError: if a role names a token that is not one of ``special_tokens``, or an unknown role.

    >>> special_token_roles(["<|endoftext|>"])
    {'bos_token': '<|endoftext|>', 'eos_token': '<|endoftext|>', 'unk_token': '<|endoftext|>', 'pad_token': None}
    >>> special_token_roles(["<s>", "</s>", "<pad>"], {"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>"})
    {'bos_token': '<s>', 'eos_token': '</s>', 'unk_token': None, 'pad_token': '<pad>'}
    """
    given = {role: token for role, token in (roles or {}).items() if token is not None}
    for role, token in given.items():
        if role not in SPECIAL_TOKEN_ROLES:
            raise ValueError(f"unknown special-token role {role!r}; choose from {', '.join(SPECIAL_TOKEN_ROLES)}")
        if token not in special_tokens:
            raise ValueError(
                f"{role} {token!r} is not one of the special tokens {list(special_tokens)}; add it to them"
            )
    if not given and GPT2_SPECIAL_TOKEN in special_tokens:
        given = dict.fromkeys(("bos_token", "eos_token", "unk_token"), GPT2_SPECIAL_TOKEN)
    return {role: given.get(role) for role in SPECIAL_TOKEN_ROLES}
