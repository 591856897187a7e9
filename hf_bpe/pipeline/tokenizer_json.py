"""What a ``tokenizer.json`` holds besides its model and pre-tokenizer, checked against what hf_bpe implements:
anything else is refused by its path in the JSON, never ignored.

A ``tokenizer.json`` is ``tokenizers``' whole pipeline as data (added tokens, normalizer, pre-tokenizer, model,
post-processor, decoder, truncation, padding). hf_bpe's classes implement a part of it; a file that uses more
would load and silently give other ids, offsets or text than its own tokenizer (a ``TemplateProcessing`` that adds
a BOS, ``dropout``, ``trim_offsets``, an added token matched after normalization). The readers of each model's
files (:mod:`hf_bpe.models.bpe.files`, :mod:`hf_bpe.models.unigram.files`) call :func:`refuse_unsupported` with
what their class does.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any


class UnsupportedComponent(ValueError):
    """A ``tokenizer.json`` uses a component or setting hf_bpe does not implement (its message names the file, the
    JSON path and the value)."""


def first_difference(found: Any, expected: Any, path: str) -> str | None:
    """The JSON path where ``found`` first differs from ``expected`` (None where they are equal).

    >>> first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}, "normalizer")
    'normalizer.a[1].b'
    """
    if isinstance(found, dict) and isinstance(expected, dict):
        for key in [*expected, *(key for key in found if key not in expected)]:
            where = first_difference(found.get(key), expected.get(key), f"{path}.{key}")
            if where is not None:
                return where
        return None
    if isinstance(found, list) and isinstance(expected, list) and len(found) == len(expected):
        for index, (item, wanted) in enumerate(zip(found, expected, strict=True)):
            where = first_difference(item, wanted, f"{path}[{index}]")
            if where is not None:
                return where
        return None
    return None if found == expected else path


def value_at(data: Any, path: str) -> Any:
    """The value at a path :func:`first_difference` gives (``None`` where there is none)."""
    for part in path.replace("[", ".[").split(".")[1:]:
        if part.startswith("["):
            index = int(part[1:-1])
            data = data[index] if isinstance(data, list) and index < len(data) else None
        else:
            data = data.get(part) if isinstance(data, dict) else None
    return data


def refuse_unsupported(
    data: Mapping[str, Any],
    path: str | os.PathLike[str],
    owner: str,
    *,
    post_processor: Callable[[Any], str | None],
    decoder: Callable[[Any], str | None],
    normalized_added_tokens: bool = False,
    dropout: bool = False,
) -> None:
    """Refuse what ``owner`` (a class name) does not implement of ``data``, a parsed ``tokenizer.json``: the
    ``truncation`` and ``padding`` sections, the model's ``dropout``, an added token matched on normalized text
    (``normalized`` with a normalizer, unless ``normalized_added_tokens``; ``dropout`` unless ``dropout``), and the
    post-processor and decoder
    ``post_processor``/``decoder`` refuse
    (each returns the path within it of what it does not take, or None).

    Raises:
        UnsupportedComponent: naming the file, the JSON path, the value and the way out.
    """

    def refuse(where: str, value: Any, what: str) -> UnsupportedComponent:
        return unsupported(path, where, value, what, owner)

    for section in ("truncation", "padding"):
        if data.get(section) is not None:
            raise refuse(section, data[section], f"a {section} section")
    model = data.get("model") or {}
    if model.get("dropout") and not dropout:
        raise refuse("model.dropout", model["dropout"], "BPE dropout")
    if changes_text(data.get("normalizer")) and not normalized_added_tokens:
        for index, token in enumerate(data.get("added_tokens") or []):
            if isinstance(token, dict) and token.get("normalized"):
                raise refuse(f"added_tokens[{index}].normalized", True, "an added token matched on normalized text")
    for section, check in (("post_processor", post_processor), ("decoder", decoder)):
        where = check(data.get(section))
        if where is not None:
            raise refuse(
                section + where, value_at(data.get(section), section + where), f"this {section.replace('_', '-')}"
            )


def changes_text(normalizer: Any) -> bool:
    """Whether a normalizer can change text (an empty ``Sequence`` cannot; DeepSeek's files have one).

    >>> changes_text({"type": "Sequence", "normalizers": []}), changes_text({"type": "NFC"})
    (False, True)
    """
    if normalizer is None:
        return False
    if isinstance(normalizer, dict) and normalizer.get("type") == "Sequence":
        return any(changes_text(part) for part in normalizer.get("normalizers") or [])
    return True


def refuse_other_sections(
    data: Mapping[str, Any], expected: Mapping[str, Any], path: str | os.PathLike[str], owner: str
) -> None:
    """Refuse a ``tokenizer.json`` whose sections named in ``expected`` (``normalizer``, ``pre_tokenizer``, ...)
    are not exactly those: ``owner`` implements that one recipe.

    Raises:
        UnsupportedComponent: naming the first JSON path that differs, and its value.
    """
    for section, wanted in expected.items():
        where = first_difference(data.get(section), wanted, section)
        if where is not None:
            what = f"not the {section.replace('_', '-')} {owner} implements ({json.dumps(wanted, ensure_ascii=False)})"
            raise unsupported(path, where, value_at(data.get(section), where), what, owner)


def unsupported(path: str | os.PathLike[str], where: str, value: Any, what: str, owner: str) -> UnsupportedComponent:
    """The refusal of ``value`` at JSON path ``where`` of the file ``path``: ``what`` it is, and the way out."""
    shown = json.dumps(value, ensure_ascii=False)
    shown = shown if len(shown) <= 100 else shown[:97] + "..."
    return UnsupportedComponent(
        f"{path}: {where} is {shown}: {what}, which {owner} does not implement; load this file with transformers' "
        "TokenizersBackend instead"
    )


def adds_nothing(component: Mapping[str, Any]) -> bool:
    """A ``TemplateProcessing`` that adds no token and gives a pair's second sequence type id 1: what every
    post-processor does by default (transformers v5 saves GPT-2's ``tokenizer.json`` with one).

    >>> adds_nothing({"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 0}}],
    ...   "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
    ...   "special_tokens": {}})
    True
    """
    return (
        component.get("type") == "TemplateProcessing"
        and component.get("single") == [{"Sequence": {"id": "A", "type_id": 0}}]
        and component.get("pair") == [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}]
        and not component.get("special_tokens")
    )


def only_types(
    *types: str,
    settings: Mapping[str, Any] | None = None,
    accept: Callable[[Mapping[str, Any]], bool] = lambda component: False,
) -> Callable[[Any], str | None]:
    """A check for :func:`refuse_unsupported`: the component is absent or of one of ``types`` with the given
    ``settings`` (a ``Sequence`` of such components too). Returns the path within it of the first thing it does
    not take; ``accept`` takes a component of another type that does what these do.

    >>> check = only_types("ByteLevel", settings={"trim_offsets": False})
    >>> check({"type": "Sequence", "processors": [{"type": "ByteLevel", "trim_offsets": True}]})
    '.processors[0].trim_offsets'
    """

    def check(component: Any) -> str | None:
        if component is None:
            return None
        if not isinstance(component, dict):
            return ""
        if component.get("type") == "Sequence":
            parts: Any = next((value for key, value in component.items() if key != "type"), [])
            key = next((key for key in component if key != "type"), "processors")
            for index, part in enumerate(parts if isinstance(parts, list) else []):
                where = check(part)
                if where is not None:
                    return f".{key}[{index}]{where}"
            return None
        if accept(component):
            return None
        if component.get("type") not in types:
            return ".type"
        for name, wanted in (settings or {}).items():
            if name in component and component[name] != wanted:
                return f".{name}"
        return None

    return check
