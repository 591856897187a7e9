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


def model_type(model: Any) -> Any:
    """A ``model`` section's type as ``tokenizers`` reads it: its ``"type"``; for a section without one (a file
    written before ``tokenizers`` tagged its models: LaTeX-OCR's), the first of BPE, WordPiece, WordLevel and
    Unigram whose fields it holds, the order ``ModelWrapper``'s deserializer tries them in (its untagged
    ``ModelUntagged``); None when none fits.

    >>> model_type({"vocab": {"a": 0}, "merges": []}), model_type({"vocab": {"a": 0}, "unk_token": "a"})
    ('BPE', 'WordLevel')
    """
    if not isinstance(model, Mapping):
        return None
    if "type" in model:
        return model["type"]
    vocab = model.get("vocab")
    if isinstance(vocab, list):
        return "Unigram"
    if not isinstance(vocab, Mapping):
        return None
    if "merges" in model:
        return "BPE"
    # WordPiece before WordLevel: a WordLevel section's fields are a part of a WordPiece one's (models/mod.rs).
    if all(key in model for key in ("unk_token", "continuing_subword_prefix", "max_input_chars_per_word")):
        return "WordPiece"
    return "WordLevel" if "unk_token" in model else None


def with_model_type(data: Any) -> Any:
    """A parsed ``tokenizer.json`` whose ``model`` section has its type, as :func:`model_type` reads it (the same
    object where it already had one, or where none fits, so that the reader names the missing type).

    >>> with_model_type({"model": {"vocab": {"a": 0}, "merges": []}})["model"]["type"]
    'BPE'
    """
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict) or "type" in data["model"]:
        return data
    kind = model_type(data["model"])
    return data if kind is None else {**data, "model": {"type": kind, **data["model"]}}


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
    truncation_and_padding: bool = False,
) -> None:
    """Refuse what ``owner`` (a class name) does not implement of ``data``, a parsed ``tokenizer.json``: the
    ``truncation`` and ``padding`` sections (unless ``truncation_and_padding``: then a section ``tokenizers`` cannot
    read is refused, see :func:`read_truncation_and_padding`), the model's ``dropout``, an added token matched on
    normalized text (``normalized`` with a normalizer, unless ``normalized_added_tokens``; ``dropout`` unless
    ``dropout``), and the post-processor and decoder ``post_processor``/``decoder`` refuse (each returns the path
    within it of what it does not take, or None).

    Raises:
        UnsupportedComponent: naming the file, the JSON path, the value and the way out.
        ValueError: naming the file and the JSON path of a truncation or padding section ``tokenizers`` cannot read.
    """

    def refuse(where: str, value: Any, what: str) -> UnsupportedComponent:
        return unsupported(path, where, value, what, owner)

    if truncation_and_padding:
        read_truncation_and_padding(data, path)
    else:
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


def read_truncation_and_padding(
    data: Mapping[str, Any], path: str | os.PathLike[str]
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """A ``tokenizer.json``'s ``truncation`` and ``padding`` sections as ``tokenizers``' Python binding gives them
    (``Tokenizer.truncation``, ``Tokenizer.padding``: what transformers reads), None for a section that is absent.

    The binding spells directions and strategies in lower case (``"left"``, ``"longest_first"``) and gives a
    padding's strategy as its ``length`` (a ``Fixed`` one's, or None for ``BatchLongest``). Each field is checked as
    ``serde`` reads it into ``TruncationParams``/``PaddingParams``: a truncation's ``direction`` may be left out
    (``"Right"``), as may a padding's ``pad_to_multiple_of`` (null); other keys are ignored.

    Raises:
        ValueError: naming the file, the JSON path and the value of what ``tokenizers`` cannot read either (a
            missing field, another direction or strategy, a number that is not a non-negative integer).

    >>> read_truncation_and_padding({"truncation": {"max_length": 8, "strategy": "OnlyFirst", "stride": 0}}, "t.json")
    ({'max_length': 8, 'stride': 0, 'strategy': 'only_first', 'direction': 'right'}, None)
    >>> try:
    ...     read_truncation_and_padding({"padding": {"strategy": "Longest"}}, "t.json")
    ... except ValueError as e:
    ...     print(str(e).partition(", so")[0])
    t.json: padding.strategy is "Longest": not "BatchLongest" or {"Fixed": length}
    """
    return _section(data, "truncation", _TRUNCATION_FIELDS, path), _section(data, "padding", _PADDING_FIELDS, path)


def truncation_and_padding_json(
    truncation: Mapping[str, Any] | None, padding: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The ``truncation`` and ``padding`` sections of a ``tokenizer.json`` as ``tokenizers`` writes them (``serde``'s
    field order and spelling), from :func:`read_truncation_and_padding`'s form.

    >>> truncation_and_padding_json({"max_length": 8, "stride": 0, "strategy": "only_first", "direction": "right"},
    ...                             None)["truncation"]
    {'direction': 'Right', 'max_length': 8, 'strategy': 'OnlyFirst', 'stride': 0}
    """
    file_spelling = {binding: spelled for table in (_DIRECTIONS, _STRATEGIES) for spelled, binding in table.items()}
    return {
        "truncation": None
        if truncation is None
        else {
            "direction": file_spelling[truncation["direction"]],
            "max_length": truncation["max_length"],
            "strategy": file_spelling[truncation["strategy"]],
            "stride": truncation["stride"],
        },
        "padding": None
        if padding is None
        else {
            "strategy": "BatchLongest" if padding["length"] is None else {"Fixed": padding["length"]},
            "direction": file_spelling[padding["direction"]],
            **{key: padding[key] for key in ("pad_to_multiple_of", "pad_id", "pad_type_id", "pad_token")},
        },
    }


def _section(
    data: Mapping[str, Any], name: str, fields: Mapping[str, _Field], path: str | os.PathLike[str]
) -> dict[str, Any] | None:
    """One section read field by field (:func:`read_truncation_and_padding`)."""
    section = data.get(name)
    if section is None:
        return None
    if not isinstance(section, dict):
        raise _malformed(path, name, section, "an object")
    read = {}
    for key, (file_key, (reader, expected), default) in fields.items():
        where = f"{name}.{file_key}"
        if file_key not in section and default is _REQUIRED:
            raise ValueError(
                f"{path}: {where} is missing: tokenizers reads a {name} section only with its {file_key} "
                f"({expected}), so it cannot read this file either; add one"
            )
        value = section.get(file_key, default)
        try:
            read[key] = reader(value)
        except (ValueError, KeyError, TypeError):
            raise _malformed(path, where, value, expected) from None
    return read


def _malformed(path: str | os.PathLike[str], where: str, value: Any, expected: str) -> ValueError:
    shown = json.dumps(value, ensure_ascii=False)
    shown = shown if len(shown) <= 100 else shown[:97] + "..."
    return ValueError(
        f"{path}: {where} is {shown}: not {expected}, so tokenizers cannot read this file either; correct it"
    )


def _natural(limit: int) -> Callable[[Any], int]:
    """A reader of an integer from 0 to ``limit`` - 1 (a Rust ``usize`` or ``u32``; JSON's ``8.0`` is not one)."""

    def read(value: Any) -> int:
        if type(value) is not int or not 0 <= value < limit:
            raise ValueError(value)
        return value

    return read


def _padding_length(value: Any) -> int | None:
    """A ``PaddingStrategy`` as the binding's ``length``: ``"BatchLongest"`` None, ``{"Fixed": n}`` n."""
    if value == "BatchLongest" or value == {"BatchLongest": None}:
        return None
    if isinstance(value, dict) and list(value) == ["Fixed"]:
        return _natural(2**64)(value["Fixed"])
    raise ValueError(value)


def _variant(names: Mapping[str, str]) -> Callable[[Any], str]:
    """A reader of a Rust enum's unit variant (``"Left"``, or ``{"Left": null}`` as ``serde`` reads it too), as
    ``names`` spells it."""

    def read(value: Any) -> str:
        if isinstance(value, dict) and len(value) == 1 and None in value.values():
            value = next(iter(value))
        return names[value]

    return read


def _a_string(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(value)
    return value


#: How a field is read (its value as the binding spells it; ValueError, KeyError or TypeError where ``tokenizers``
#: cannot read it) and what it must be.
_Reader = tuple[Callable[[Any], Any], str]
#: A field of a section: its key in the file, its reader, and its value where the file leaves it out (or _REQUIRED).
_Field = tuple[str, _Reader, Any]
_REQUIRED = object()
_SIZE: _Reader = (_natural(2**64), "a non-negative integer")
_ID: _Reader = (_natural(2**32), "a non-negative integer below 2**32")
#: Each direction and truncation strategy as a file spells it, and as the binding does.
_DIRECTIONS = {"Left": "left", "Right": "right"}
_STRATEGIES = {"LongestFirst": "longest_first", "OnlyFirst": "only_first", "OnlySecond": "only_second"}
_DIRECTION: _Reader = (_variant(_DIRECTIONS), '"Left" or "Right"')
#: The binding's field names, each with the file's field it comes from.
_TRUNCATION_FIELDS: dict[str, _Field] = {
    "max_length": ("max_length", _SIZE, _REQUIRED),
    "stride": ("stride", _SIZE, _REQUIRED),
    "strategy": (
        "strategy",
        (
            _variant(_STRATEGIES),
            '"LongestFirst", "OnlyFirst" or "OnlySecond"',
        ),
        _REQUIRED,
    ),
    "direction": ("direction", _DIRECTION, "Right"),
}
_PADDING_FIELDS: dict[str, _Field] = {
    "length": ("strategy", (_padding_length, '"BatchLongest" or {"Fixed": length}'), _REQUIRED),
    "pad_to_multiple_of": (
        "pad_to_multiple_of",
        (lambda value: None if value is None else _SIZE[0](value), "null or a non-negative integer"),
        None,
    ),
    "pad_id": ("pad_id", _ID, _REQUIRED),
    "pad_token": ("pad_token", (_a_string, "a string"), _REQUIRED),
    "pad_type_id": ("pad_type_id", _ID, _REQUIRED),
    "direction": ("direction", _DIRECTION, _REQUIRED),
}


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
    truncation: Mapping[str, Any] | None = None,
    padding: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A whole ``tokenizer.json`` (parsed), its sections in the order ``tokenizers`` writes them (``truncation`` and
    ``padding`` in the file's form, :func:`truncation_and_padding_json`'s)."""
    return {
        "version": "1.0",
        "truncation": truncation,
        "padding": padding,
        "added_tokens": added_tokens or [],
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": post_processor,
        "decoder": decoder,
        "model": model,
    }


#: The post-processor transformers' ``TokenizersBackend`` sets where a file has none
#: (``update_post_processor``, without ``add_bos_token``/``add_eos_token``): a template adding nothing.
NO_TEMPLATE: Mapping[str, Any] = {
    "type": "TemplateProcessing",
    "single": [{"Sequence": {"id": "A", "type_id": 0}}],
    "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
    "special_tokens": {},
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
    return [special_token_entry(token_id, token) for token, token_id in sorted(ids.items(), key=lambda item: item[1])]


def special_token_entry(token_id: int, content: str) -> dict[str, Any]:
    """An ``added_tokens`` entry of a special token matched on the raw text, as ``AddedToken(content, special=True,
    normalized=False)`` is written."""
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": False, "special": True}  # fmt: skip


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


def pretty_dumps(document: Any, indent: str = "") -> str:
    """``document`` as JSON text in the form ``Tokenizer.to_str(pretty=True)`` and ``Tokenizer.save`` give
    (``serde_json``'s pretty printer): two spaces a level, ``": "`` after a key, an empty list or object as
    ``[]``/``{}``, text and numbers as :func:`dumps` writes them.

    >>> print(pretty_dumps({"a": [1, 0.5], "b": {}, "c": []}))
    {
      "a": [
        1,
        0.5
      ],
      "b": {},
      "c": []
    }
    """
    inner = indent + "  "
    if isinstance(document, Mapping) and document:
        items = (f"{inner}{_string(key)}: {pretty_dumps(value, inner)}" for key, value in document.items())
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(document, (list, tuple)) and document:
        return "[\n" + ",\n".join(f"{inner}{pretty_dumps(item, inner)}" for item in document) + f"\n{indent}]"
    return dumps(document)


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
