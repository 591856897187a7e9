"""The tokenizer directories the commands take: which kind a directory holds, and loading it.

What a directory holds, and which class reads it, is :func:`hf_bpe.tokenizer.directory.tokenizer_kind`'s decision,
the same :func:`hf_bpe.from_pretrained` takes. Every command that takes a tokenizer directory asks
:func:`tokenizer_dir` for it, so a missing directory, a directory of no known kind and a kind the command cannot
apply to are refused here, in one line, by name. Loading is the transformers classes' job
(:func:`hf_bpe.transformers.loading.load`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import os
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from hf_bpe.cli.errors import UsageError
from hf_bpe.tokenizer.directory import BYTE_LEVEL, KINDS, TokenizerKind, tokenizer_kind

__all__ = ["BYTE_LEVEL", "KINDS", "TokenizerDir", "kind_of", "load_tokenizer", "token_text", "tokenizer_dir"]


@dataclasses.dataclass(frozen=True)
class TokenizerDir:
    """A tokenizer directory and what it holds."""

    found: TokenizerKind

    @property
    def path(self) -> Path:
        """The directory."""
        return self.found.path

    @property
    def kind(self) -> str:
        """The kind, a key of :data:`KINDS`: :data:`BYTE_LEVEL` for any byte-level BPE, whichever class reads it."""
        return BYTE_LEVEL if self.found.byte_level else self.found.tokenizer_class

    @property
    def kind_name(self) -> str:
        """The kind as messages name it (``"WordPiece"``)."""
        return KINDS[self.kind].label

    def require(self, kinds: Collection[str], what: str, instead: str = "") -> None:
        """Refuse, by name, a kind ``what`` (a command, an option) does not apply to.

        Raises:
            UsageError: ``DIR is a WordPiece tokenizer; WHAT takes byte-level BPE only``, and ``instead``.
        """
        if self.kind not in kinds:
            allowed = " or ".join(KINDS[kind].label for kind in kinds)
            raise UsageError(
                f"{self.path} is a {self.kind_name} tokenizer; {what} takes {allowed} only"
                + (f" ({instead})" if instead else "")
            )


def tokenizer_dir(name: str, option: str = "", *, gpt2: bool = True) -> TokenizerDir:
    """The tokenizer directory ``name`` (``gpt2`` for GPT-2's cached files, when ``gpt2``), and its kind.

    A name that is no directory is refused at once, naming it (and a directory with a close name, if one is
    there); hf-bpe never looks a name up on the model hub. A directory that holds no kind hf-bpe reads, or lacks
    its kind's files, is a usage error.

    Args:
        name: the argument as given.
        option: the option that gave it (``--tokenizer``), for the message.
        gpt2: whether ``gpt2`` names GPT-2's tokenizer.

    Raises:
        FileNotFoundError: for a missing directory (NotADirectoryError: a file).
        ValueError: naming its ``tokenizer.json``, line and column, where that is not valid JSON.
        UsageError: for a directory without the files of any kind, or without its kind's.
    """
    if gpt2 and name == "gpt2" and not Path(name).is_dir():
        from hf_bpe.reference.gpt2 import gpt2_files

        return TokenizerDir(_kind(gpt2_files()))
    directory = Path(name).expanduser()
    given = f"{option} {name}" if option else name
    if directory.exists() and not directory.is_dir():
        raise NotADirectoryError(f"{given}: is a file, not a tokenizer directory")
    if not directory.is_dir():
        # Checked here, at once: a mistyped directory is never taken for a model hub name.
        or_gpt2 = " or gpt2" if gpt2 else ""
        raise FileNotFoundError(
            f"{given}: no such tokenizer directory"
            + (_near(name, directory) or f"; give a tokenizer directory{or_gpt2}")
        )
    found = tokenizer_kind(directory)
    if found is None:
        wanted = "; ".join(f"{' + '.join(kind.files)} ({kind.label})" for kind in KINDS.values())
        raise UsageError(f"{given}: not a tokenizer directory hf-bpe reads: it holds none of {wanted}")
    if found.missing:
        raise UsageError(
            f"{given}: a {found.label} tokenizer without its {found.missing[0]}; the directory is incomplete"
        )
    return TokenizerDir(found)


def _kind(directory: Path) -> TokenizerKind:
    """What ``directory`` holds, where it is known to hold a tokenizer."""
    found = tokenizer_kind(directory)
    if found is None:
        raise UsageError(f"{directory}: holds no tokenizer")
    return found


def _near(name: str, directory: Path) -> str:
    """`` (did you mean X?)`` for a directory beside the missing one with a close name, spelled as ``name`` is,
    else ``""``."""
    parent = directory.parent
    with contextlib.suppress(OSError):
        if parent.is_dir():
            names = [entry.name for entry in os.scandir(parent) if entry.is_dir()]
            close = difflib.get_close_matches(directory.name, names, n=1, cutoff=0.75)
            if close:
                given = name.rstrip("/")
                return f" (did you mean {given[: len(given) - len(directory.name)]}{close[0]}?)"
    return ""


def kind_of(directory: Path) -> str | None:
    """The kind (a key of :data:`KINDS`) a directory holds; None for a directory of no known kind, or none at all.

    Raises:
        ValueError: naming ``tokenizer_config.json`` or ``tokenizer.json`` where it is not a JSON object.
    """
    if not directory.is_dir():
        return None
    found = tokenizer_kind(directory)
    return None if found is None else TokenizerDir(found).kind


def load_tokenizer(found: TokenizerDir) -> Any:
    """hf_bpe's transformers class for what the directory holds, loaded from it."""
    from hf_bpe.transformers._import import quiet_transformers_import

    with quiet_transformers_import():
        from hf_bpe.transformers.loading import load

        return load(found.found)


def token_text(found: TokenizerDir, tokenizer: Any) -> Callable[[str], bytes]:
    """A token's text as bytes, without its kind's markers (byte-level spelling, ``</w>``, ``##``, ``▁``): what
    ``report`` measures token lengths in."""
    if found.kind == BYTE_LEVEL:
        from hf_bpe.pipeline.byte_level import from_byte_level

        return from_byte_level
    if found.kind == "CharBPETokenizer":
        suffix = tokenizer.char_level.end_of_word_suffix or ""
        prefix = tokenizer.char_level.continuing_subword_prefix or ""
        return lambda token: token.removeprefix(prefix).removesuffix(suffix).encode("utf-8")
    if found.kind == "WordPieceTokenizer":
        prefix = tokenizer.wordpieces_prefix
        return lambda token: token.removeprefix(prefix).encode("utf-8")
    return lambda token: _byte_token(token) or token.replace("\u2581", " ").encode("utf-8")


def _byte_token(token: str) -> bytes | None:
    """The byte of a byte-fallback token (``<0xE6>``), else None."""
    if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
        with contextlib.suppress(ValueError):
            return bytes([int(token[3:5], 16)])
    return None
