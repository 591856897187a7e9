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
from collections.abc import Callable, Iterable, Mapping
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


# -- writing ---------------------------------------------------------------------------------------------------------


def tokenizer_document(
    model: Mapping[str, Any],
    *,
    added_tokens: list[dict[str, Any]] | None = None,
    normalizer: Mapping[str, Any] | None = None,
    pre_tokenizer: Mapping[str, Any] | None = None,
    post_processor: Mapping[str, Any] | None = None,
    decoder: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A whole ``tokenizer.json`` (parsed), its sections in the order ``tokenizers`` writes them."""
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added_tokens or [],
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": post_processor,
        "decoder": decoder,
        "model": model,
    }


def special_added_tokens(tokens: Iterable[str], vocab: Mapping[str, int]) -> list[dict[str, Any]]:
    """The ``added_tokens`` section ``Tokenizer.add_special_tokens`` gives for ``tokens`` (special, matched on the
    raw text) over a model whose vocabulary is ``vocab``: a token the model has keeps its id; another takes the next
    id after the vocabulary's size and the tokens added so far (as ``AddedVocabulary`` numbers
    them). Listed by id, each token once.

    >>> added = special_added_tokens(["<s>", "b", "<s>", "</s>"], {"a": 0, "b": 1})
    >>> [(entry["id"], entry["content"]) for entry in added]
    [(1, 'b'), (2, '<s>'), (3, '</s>')]
    """
    ids: dict[str, int] = {}
    for token in tokens:
        if token not in ids:
            highest = max(ids.values(), default=-1)
            ids[token] = vocab[token] if token in vocab else highest + 1 if highest >= len(vocab) else len(vocab)
    return [
        {"id": token_id, "content": token, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True}
        for token, token_id in sorted(ids.items(), key=lambda item: item[1])
    ]  # fmt: skip


def dumps(document: Any) -> str:
    """``document`` as JSON text in the form ``tokenizers``' ``Tokenizer.to_str()`` gives (``serde_json``, compact):
    no spaces, text as it is (only ``"``, ``\\`` and control characters escaped), and numbers written as
    :func:`float_text` writes them.

    >>> dumps({"a": [1, 0.5, -1e-05, None, True], "é": "\\n"})
    '{"a":[1,0.5,-0.00001,null,true],"é":"\\\\n"}'
    """
    if isinstance(document, float):
        return float_text(document)
    if isinstance(document, Mapping):
        if _flat(document.values()):
            return json.dumps(document, ensure_ascii=False, separators=(",", ":"))
        return "{" + ",".join(f"{_string(key)}:{dumps(value)}" for key, value in document.items()) + "}"
    if isinstance(document, (list, tuple)):
        if _flat(document):
            return json.dumps(document, ensure_ascii=False, separators=(",", ":"))
        return "[" + ",".join(dumps(item) for item in document) + "]"
    return json.dumps(document, ensure_ascii=False)


def _flat(values: Iterable[Any]) -> bool:
    """Whether no value is a float or a container (so the whole can go to :func:`json.dumps` at once)."""
    return all(isinstance(value, (str, int, type(None))) for value in values)


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def float_text(value: float) -> str:
    """A float as ``serde_json`` writes it (the ``ryu`` shortest form): Python's ``repr`` digits, but positional
    down to 1e-5 (``repr`` turns to an exponent below 1e-4) and exponents without leading zeros.

    >>> [float_text(x) for x in (-3.0, 1e-05, -1.2345e-05, 1.5e-07, 1e16, 1e15, -0.1)]
    ['-3.0', '0.00001', '-0.000012345', '1.5e-7', '1e+16', '1000000000000000.0', '-0.1']
    """
    text = repr(value)
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    if int(exponent) == -5:
        sign = "-" if mantissa.startswith("-") else ""
        return f"{sign}0.0000{mantissa.lstrip('-').replace('.', '')}"
    return f"{mantissa}e{exponent[0]}{exponent[1:].lstrip('0')}"
