"""What a trainer says when its vocabulary is not the size asked for, for every model: the warning class, and the
sentence that says why (the Python API warns with it, the command line prints it in its own option names).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

#: hf_bpe's own directory: a warning points at the first frame outside it.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class TrainingWarning(UserWarning):
    """Training gave fewer (or more) tokens than asked for, or a tokenizer that loses text; the message says why."""


def caller_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` called here that points at the first frame outside hf_bpe (the
    user's call), through front ends, decorators and trainers alike."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE + os.sep):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


_WHY = {
    "min_frequency": "the most frequent pair left occurs fewer than {min_frequency_name} {min_frequency} times; lower "
    "it or train on more text",
    "no_pairs": "no pair of tokens is left to merge; every pre-token is a single token already; train on more text for "
    "more tokens",
    "no_pieces": "the text holds no more distinct pieces to keep; train on more text for more tokens",
}


def shortfall(
    size: int,
    vocab_size: int,
    stop_reason: str,
    *,
    min_frequency: int = 0,
    learned: int | None = None,
    names: Mapping[str, str] | None = None,
) -> str | None:
    """Why a vocabulary of ``size`` tokens is not the ``vocab_size`` asked for, in a sentence, or None when it is.

    Args:
        size: the trained vocabulary's size.
        vocab_size: the size asked for.
        stop_reason: why training stopped: ``"vocab_size"``, ``"min_frequency"``, ``"no_pairs"`` (BPE and
            WordPiece: nothing left to merge) or ``"no_pieces"`` (Unigram: no more distinct pieces).
        min_frequency: the option's value, named when it stopped training.
        learned: merges learned (BPE, WordPiece): none at all means an empty corpus.
        names: how the options are spelled (``{"vocab_size": "--vocab-size"}`` on the command line).

    >>> print(shortfall(259, 300, "no_pairs", learned=0))
    nothing to merge (is the corpus empty?); the vocabulary is the alphabet and special tokens (259 tokens)
    >>> print(shortfall(700, 1000, "no_pieces").replace(": ", ":\\n"))
    the vocabulary has 700 of the 1,000 tokens asked for (stopped:
    no_pieces):
    the text holds no more distinct pieces to keep; train on more text for more tokens
    >>> shortfall(1000, 1000, "vocab_size") is None
    True
    """
    named = {"vocab_size": "vocab_size", "min_frequency": "min_frequency", **(names or {})}
    if size > vocab_size:
        return (
            f"{named['vocab_size']} {vocab_size} is below the alphabet plus special tokens; the vocabulary has "
            f"{size} tokens (as tokenizers gives)" + (" and no merges" if learned is not None else "")
        )
    if learned == 0 and size < vocab_size:
        return (
            "nothing to merge (is the corpus empty?); "
            f"the vocabulary is the alphabet and special tokens ({size} tokens)"
        )
    if size >= vocab_size:
        return None
    start = f"the vocabulary has {size:,} of the {vocab_size:,} tokens asked for (stopped: {stop_reason}): "
    why = _WHY.get(stop_reason, "train on more text for more tokens")
    return start + why.format(min_frequency_name=named["min_frequency"], min_frequency=min_frequency)


def unknown_characters_dropped(names: Mapping[str, str] | None = None) -> str:
    """The warning for a char-level BPE tokenizer without an unknown token: it drops what it has not seen.

    >>> print(unknown_characters_dropped({"unk_token": "--unk-token"}).replace(" (", "\\n(").replace("; ", ";\\n"))
    char-level BPE without an unknown token drops every character it did not see in training when it encodes
    (as tokenizers does: "xylophone" may come back as "loon");
    give --unk-token to keep their place
    """
    option = {"unk_token": "unk_token", **(names or {})}["unk_token"]
    return (
        "char-level BPE without an unknown token drops every character it did not see in training when it encodes "
        f'(as tokenizers does: "xylophone" may come back as "loon"); give {option} to keep their place'
    )
