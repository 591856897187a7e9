"""A trained Unigram model to a tokenizer directory: ``tokenizer.json`` and ``tokenizer_config.json``, and back.

``tokenizer.json`` is built with the ``tokenizers`` library itself (the recipe's normalizer, ``Metaspace``
pre-tokenizer and decoder, a ``Unigram`` model, the special tokens as added tokens), so transformers' Rust
backend loads the directory without hf_bpe; ``tokenizer_config.json`` names :data:`TOKENIZER_CLASS` for
transformers with hf_bpe. Writing is all-or-nothing (:func:`hf_bpe.atomic.write_files`).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hf_bpe.atomic import write_files
from hf_bpe.models.directory import TOKENIZER_CONFIG_FILE, TOKENIZER_FILE, replaced_files, special_token_roles
from hf_bpe.pipeline.decoders import Metaspace
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
from hf_bpe.pipeline.sentencepiece import SentencePieceRecipe
from hf_bpe.pipeline.tokenizer_json import (
    dumps,
    only_types,
    refuse_other_sections,
    refuse_unsupported,
    special_added_tokens,
    tokenizer_document,
)

#: The transformers class that ``tokenizer_config.json`` names (:class:`hf_bpe.transformers.unigram.UnigramTokenizer`).
TOKENIZER_CLASS = "UnigramTokenizer"


def tokenizer_json(
    pieces: Sequence[tuple[str, float]],
    unk_id: int | None,
    special_tokens: Sequence[str],
    pre_tokenizer: PreTokenizer | None = None,
) -> str:
    """``tokenizer.json`` text for the pieces, as ``SentencePieceUnigramTokenizer`` saves it after training (byte
    for byte).

    ``pre_tokenizer`` must be the SentencePiece recipe's kind (``PreTokenizer.sentencepiece_recipe()``, the
    default): its normalizer, pre-tokenizer and decoder are written.

    Raises:
        ValueError: a pre-tokenizer of another kind.
    """
    cut = pre_tokenizer or PreTokenizer.sentencepiece_recipe()
    if cut.sentencepiece is None:
        raise ValueError("a Unigram tokenizer.json takes the SentencePiece recipe: PreTokenizer.sentencepiece_recipe()")
    model = {
        "type": "Unigram",
        "unk_id": unk_id,
        "vocab": [[piece, score] for piece, score in pieces],
        "byte_fallback": False,
    }
    vocab = {piece: index for index, (piece, _) in enumerate(pieces)}
    document = tokenizer_document(
        model,
        added_tokens=special_added_tokens(special_tokens, vocab),
        **recipe_sections(cut, cut.sentencepiece),
    )
    return dumps(document)


def tokenizer_config(
    special_tokens: Sequence[str], unk_token: str | None, roles: Mapping[str, str | None] | None = None
) -> dict[str, Any]:
    """``tokenizer_config.json``: the class, the special tokens' roles (``unk_token`` is the model's)."""
    named = special_token_roles(
        special_tokens, {role: token for role, token in (roles or {}).items() if role != "unk_token"}
    )
    named["unk_token"] = unk_token
    extra = [token for token in special_tokens if token not in named.values()]
    return {
        "tokenizer_class": TOKENIZER_CLASS,
        **named,
        "extra_special_tokens": extra,
        "clean_up_tokenization_spaces": False,
    }


def write_unigram_dir(
    directory: str | os.PathLike[str],
    pieces: Sequence[tuple[str, float]],
    unk_id: int | None,
    special_tokens: Sequence[str],
    *,
    roles: Mapping[str, str | None] | None = None,
    force: bool = False,
) -> list[Path]:
    """Write ``tokenizer.json`` and ``tokenizer_config.json``, both or neither. Returns the paths.

    Another tokenizer's files in ``directory`` (another kind's model files, :data:`~hf_bpe.models.directory.
    FOREIGN_TOKENIZER_FILES`) are refused, or removed in the same write when ``force`` is set.
    """
    unk_token = pieces[unk_id][0] if unk_id is not None else None
    files = {
        TOKENIZER_FILE: tokenizer_json(pieces, unk_id, special_tokens),
        TOKENIZER_CONFIG_FILE: json.dumps(
            tokenizer_config(special_tokens, unk_token, roles), ensure_ascii=False, indent=2
        )
        + "\n",
    }
    write_files(directory, files, remove=replaced_files(directory, files, force=force))
    return [Path(directory) / name for name in files]


_U64 = (1 << 64) - 1


def serde_json_float(text: str) -> float:
    """A JSON number as ``serde_json`` (without ``float_roundtrip``) reads it, as ``tokenizers`` loads scores.

    It keeps at most the digits that fit a u64 significand, converts that to f64 and multiplies or divides by a
    power of ten -- two roundings, so about one score in five comes out one unit in the last place away from the
    correctly rounded value Python's ``float`` gives. Viterbi ties between such paths then go the other way, so
    hf_bpe reads ``tokenizer.json`` the same way.

    >>> serde_json_float("-10.606407463743526") == -10.606407463743526
    True
    >>> serde_json_float("-10.413266654746877"), float("-10.413266654746877")
    (-10.413266654746876, -10.413266654746877)
    """
    # The common case in C: no exponent, and digits that fit the u64 (every Unigram score tokenizers writes), read
    # as the loop below reads them; T5's 32,000 scores took half a second in the loop.
    head, _, tail = text.partition(".")
    digits = head.lstrip("-") + tail
    if len(digits) <= 20 and len(tail) <= 308 and "e" not in tail and "E" not in tail and digits.isdigit():
        significand = int(digits)
        if significand <= _U64:
            value = float(significand) / _POWERS_OF_TEN[len(tail)] if tail else float(significand)
            return -value if text[0] == "-" else value
    return _serde_json_float_digits(text)


#: ``float(f"1e{k}")`` for the exponents :func:`serde_json_float` divides by.
_POWERS_OF_TEN = [float(f"1e{k}") for k in range(309)]


def _serde_json_float_digits(text: str) -> float:
    """:func:`serde_json_float` digit by digit, as ``serde_json`` reads a number."""
    index = 0
    positive = True
    if text[0] == "-":
        positive, index = False, 1
    significand = 0
    exponent = 0
    full = False  # the next digit would overflow the u64: the rest are skipped (integer part: counted in exponent)
    while index < len(text) and text[index].isdigit():
        digit = ord(text[index]) - 48
        if not full and (significand > _U64 // 10 or (significand == _U64 // 10 and digit > _U64 % 10)):
            full = True
        if full:
            exponent += 1
        else:
            significand = significand * 10 + digit
        index += 1
    if index < len(text) and text[index] == ".":
        index += 1
        while index < len(text) and text[index].isdigit():
            digit = ord(text[index]) - 48
            if not full and (significand > _U64 // 10 or (significand == _U64 // 10 and digit > _U64 % 10)):
                full = True
            if not full:
                significand = significand * 10 + digit
                exponent -= 1
            index += 1
    if index < len(text) and text[index] in "eE":
        exponent += int(text[index + 1 :])
    value = float(significand)
    while True:
        if abs(exponent) <= 308:
            power = float(f"1e{abs(exponent)}")
            value = value * power if exponent >= 0 else value / power
            break
        if value == 0.0:
            break
        value /= 1e308
        exponent += 308
    return value if positive else -value


def recipe_decoder(recipe: SentencePieceRecipe) -> Metaspace:
    """The recipe's ``decoder``: the ``Metaspace`` twin with its pre-tokenizer's replacement and scheme."""
    return Metaspace(recipe.replacement, recipe.prepend_scheme, split=True)


def recipe_sections(cut: PreTokenizer, recipe: SentencePieceRecipe) -> dict[str, Any]:
    """The normalizer, pre-tokenizer and decoder sections of a SentencePiece recipe's cutting (``recipe`` is
    ``cut.sentencepiece``), as :func:`tokenizer_json` writes them."""
    return {
        "normalizer": cut.normalizer_json(),
        "pre_tokenizer": cut.pre_tokenizer_json(),
        "decoder": recipe_decoder(recipe).to_json(),
    }


@functools.cache
def _recipe_sections() -> dict[str, Any]:
    """:func:`recipe_sections` of the default recipe (what deciding a file's class compares it with)."""
    recipe = SentencePieceRecipe()
    return recipe_sections(PreTokenizer.sentencepiece_recipe(recipe), recipe)


def check_recipe_file(data: Mapping[str, Any], model: Mapping[str, Any], path: str | os.PathLike[str]) -> None:
    """Refuse a parsed ``tokenizer.json`` (``model`` its model section, ``path`` naming it) that is not of hf_bpe's
    Unigram recipe: another model, byte fallback, a post-processor, truncation or padding, or another normalizer,
    pre-tokenizer or decoder than the recipe's. What deciding which class
    reads a file (:func:`hf_bpe.tokenizer.directory.json_class`) asks.

    Raises:
        ValueError: naming the file and what is not the recipe's.
    """
    if model.get("type") != "Unigram":
        raise ValueError(f"{path}: the model is {model.get('type')!r}, not 'Unigram'; this class reads Unigram files")
    if model.get("byte_fallback"):
        raise ValueError(f"{path}: byte_fallback is not supported by hf_bpe's UnigramTokenizer")
    refuse_unsupported(data, path, "UnigramTokenizer", post_processor=only_types(), decoder=lambda _: None)
    refuse_other_sections(data, _recipe_sections(), path, "UnigramTokenizer")
