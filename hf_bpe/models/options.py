"""What every model's options share: the checks of counts and special tokens, and a front end's keywords laid
over a frozen options object (:class:`~hf_bpe.models.bpe.options.BpeOptions`,
:class:`~hf_bpe.models.wordpiece.options.WordPieceOptions`, :class:`~hf_bpe.models.unigram.trainer.UnigramOptions`).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

Options = TypeVar("Options")

#: The largest vocabulary hf_bpe trains: the merge loop spells each token id as one character.
MAX_VOCAB_SIZE = sys.maxunicode + 1


def with_keywords(kind: type[Options], options: Options | None, keywords: Mapping[str, Any], caller: str) -> Options:
    """``options`` (default: ``kind()``, the defaults) with the fields given as ``keywords`` replaced: what a
    front end that takes ``options=`` or its fields as keywords trains with.

    Raises:
        TypeError: naming ``caller``, the keyword that is no option, and the options there are.
    """
    names = [field.name for field in dataclasses.fields(kind)]  # type: ignore[arg-type]
    for name in keywords:
        if name not in names:
            raise TypeError(
                f"{caller}() got an unexpected keyword argument {name!r} ({kind.__name__}: {', '.join(names)})"
            )
    if options is not None and not keywords:
        return options  # the front end's options as handed over, not a copy
    return dataclasses.replace(options or kind(), **keywords)  # type: ignore[type-var]


def check_count(name: str, value: Any, least: int, *, optional: bool = False) -> None:
    """Refuse ``value`` unless it is an integer of at least ``least`` (or None, when ``optional``).

    Raises:
        ValueError: naming the option and the value.
    """
    if value is None and optional:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ValueError(f"{name}={value!r}: must be an integer of at least {least}")


def check_vocab_size(value: Any) -> None:
    """Refuse a ``vocab_size`` that is not an integer from 1 to :data:`MAX_VOCAB_SIZE`.

    Raises:
        ValueError: naming the value.
    """
    check_count("vocab_size", value, 1)
    if value > MAX_VOCAB_SIZE:
        raise ValueError(f"vocab_size={value}: hf_bpe trains vocabularies of at most {MAX_VOCAB_SIZE:,} tokens")


def check_special_tokens(tokens: Sequence[Any]) -> tuple[str, ...]:
    """``tokens`` as a tuple, refusing one string, and an empty, non-string or repeated special token.

    Raises:
        TypeError: ``tokens`` is one string.
        ValueError: naming the token.
    """
    if isinstance(tokens, str):
        raise TypeError(f"special_tokens={tokens!r} is a string; pass a list of strings")
    seen: set[str] = set()
    for token in tokens:
        if not isinstance(token, str) or not token:
            raise ValueError(f"special token {token!r}: special tokens must be non-empty strings")
        if token in seen:
            raise ValueError(f"special token {token!r} is given twice; list each special token once")
        seen.add(token)
    return tuple(tokens)
