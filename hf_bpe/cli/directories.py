"""The tokenizer directories the commands take: which of the four kinds hf-bpe writes a directory holds, and loading it.

A directory names its kind in ``tokenizer_config.json``'s ``tokenizer_class`` (byte-level BPE, char-level BPE,
WordPiece, Unigram); a directory without one (GPT-2's bare files, another tool's) is known by its files. Every
command that takes a tokenizer directory asks :func:`tokenizer_dir` for it, so a missing directory, a directory
of no known kind and a kind the command cannot apply to are refused here, in one line, by name. Loading is the
transformers classes' job (:mod:`hf_bpe.transformers`); this module only picks the class.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import json
import os
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from hf_bpe.cli.errors import UsageError
from hf_bpe.models.directory import read_tokenizer_config
from hf_bpe.models.pipeline_files import is_byte_level, read_json

#: ``tokenizer_class`` -> (what the kind is called in messages, the files its directory must hold).
KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "BPETokenizer": ("byte-level BPE", ("vocab.json", "merges.txt")),
    "CharBPETokenizer": ("char-level BPE", ("vocab.json", "merges.txt")),
    "WordPieceTokenizer": ("WordPiece", ("vocab.txt",)),
    "UnigramTokenizer": ("Unigram", ("tokenizer.json",)),
    "SentencePieceBPETokenizer": ("SentencePiece-style BPE", ("tokenizer.json",)),
    "PipelineTokenizer": ("tokenizer.json pipeline", ("tokenizer.json",)),
}
BYTE_LEVEL = "BPETokenizer"


@dataclasses.dataclass(frozen=True)
class TokenizerDir:
    """A tokenizer directory and its kind (a key of :data:`KINDS`)."""

    path: Path
    kind: str

    @property
    def kind_name(self) -> str:
        """The kind as messages name it (``"WordPiece"``)."""
        return KINDS[self.kind][0]

    def require(self, kinds: Collection[str], what: str, instead: str = "") -> None:
        """Refuse, by name, a kind ``what`` (a command, an option) does not apply to.

        Raises:
            UsageError: ``DIR is a WordPiece tokenizer; WHAT takes byte-level BPE only``, and ``instead``.
        """
        if self.kind not in kinds:
            allowed = " or ".join(KINDS[kind][0] for kind in kinds)
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

        return TokenizerDir(gpt2_files(), BYTE_LEVEL)
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
    kind = kind_of(directory)
    if kind is None and (directory / "tokenizer.json").is_file():
        read_json(directory / "tokenizer.json")  # a truncated file is named with its line and column, not missed
    if kind is None:
        wanted = "; ".join(f"{' + '.join(files)} ({label})" for label, files in dict(KINDS.values()).items())
        raise UsageError(f"{given}: not a tokenizer directory hf-bpe reads: it holds none of {wanted}")
    missing = [file for file in KINDS[kind][1] if not (directory / file).is_file()]
    if missing and not (kind == BYTE_LEVEL and (directory / "tokenizer.json").is_file()):
        raise UsageError(f"{given}: a {KINDS[kind][0]} tokenizer without its {missing[0]}; the directory is incomplete")
    return TokenizerDir(directory, kind)


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


def kind_named(directory: Path) -> str | None:
    """The kind ``tokenizer_config.json`` names (None: no such file, or another class)."""
    with contextlib.suppress(ValueError, OSError):
        named = read_tokenizer_config(directory).get("tokenizer_class")
        if named in KINDS:
            return str(named)
    return None


def kind_of(directory: Path) -> str | None:
    """The kind ``tokenizer_config.json`` names, else the one the files show (None: none of them)."""
    named = kind_named(directory)
    if named is not None:
        return named
    if (directory / "vocab.json").is_file() and (directory / "merges.txt").is_file():
        return BYTE_LEVEL  # GPT-2's bare files, or another tool's byte-level BPE (GPT2Tokenizer)
    if (directory / "vocab.txt").is_file():
        return "WordPieceTokenizer"
    with contextlib.suppress(ValueError, OSError, AttributeError):
        data = json.loads((directory / "tokenizer.json").read_text(encoding="utf-8"))
        model = data.get("model") or {}
        if model.get("type") == "BPE" and is_byte_level(data):
            return BYTE_LEVEL  # a tokenizer.json alone, as the Rust backend saves one
        if model.get("type") is not None:
            return "PipelineTokenizer"  # any other model's file (Gemma, BERT, T5, ...): its own pipeline
    return None


def load_tokenizer(found: TokenizerDir) -> Any:
    """hf_bpe's transformers class for the directory's kind, loaded from it."""
    from hf_bpe.transformers._import import quiet_transformers_import

    with quiet_transformers_import():
        if found.kind == "CharBPETokenizer":
            from hf_bpe.transformers.char_bpe import CharBPETokenizer as Class
        elif found.kind == "WordPieceTokenizer":
            from hf_bpe.transformers.wordpiece import WordPieceTokenizer as Class  # type: ignore[assignment]
        elif found.kind == "UnigramTokenizer":
            from hf_bpe.transformers.unigram import UnigramTokenizer as Class  # type: ignore[assignment]
        elif found.kind in ("SentencePieceBPETokenizer", "PipelineTokenizer") or (
            (found.path / "tokenizer.json").is_file() and kind_named(found.path) is None
        ):
            from hf_bpe.transformers.loading import from_pretrained

            # A model's own tokenizer.json: BPETokenizer where it reads the file, else PipelineTokenizer.
            return from_pretrained(found.path)
        else:
            from hf_bpe.transformers.bpe import BPETokenizer as Class  # type: ignore[assignment]
        return Class.from_pretrained(str(found.path))


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
