"""What every pipeline component shares: text with spans, patterns read from JSON, and the refusal of what is not
implemented.

A component works on text with spans, as ``tokenizers``' ``NormalizedString`` does: ``spans[i]`` is the
``(start, end)`` of the original-text characters that character ``i`` comes from, so offsets survive every stage.
Reading a ``tokenizer.json`` section, a component raises :class:`UnknownComponent` at the JSON path of the first
thing it does not implement; the readers of whole files turn it into one line naming the file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import regex

from hf_bpe.pipeline._regex.dialect import exact_pattern

#: One character's place in the original text: ``(start, end)`` in characters.
Span = tuple[int, int]
#: A text with each character's span.
Spanned = tuple[str, list[Span]]


class UnknownComponent(ValueError):
    """A component (or a setting of one) these twins do not implement: ``path`` is its JSON path, ``value`` what
    the file has there, ``what`` a few words on it."""

    def __init__(self, path: str, value: Any, what: str) -> None:
        super().__init__(f"{path}: {what}")
        self.path, self.value, self.what = path, value, what


def pattern_from_json(data: Any, path: str) -> regex.Pattern[str]:
    """A ``{"String": s}`` or ``{"Regex": r}`` pattern, compiled: a string matched literally, a regex as
    Oniguruma reads it, with the reference's Unicode classes.

    >>> pattern_from_json({"Regex": r"\\p{L}+"}, "pattern").findall("ab1c")
    ['ab', 'c']
    """
    if isinstance(data, Mapping) and isinstance(data.get("String"), str):
        return regex.compile(regex.escape(data["String"]))
    if isinstance(data, Mapping) and isinstance(data.get("Regex"), str):
        try:
            return exact_pattern(data["Regex"])
        except (regex.error, ValueError) as e:
            raise UnknownComponent(f"{path}.Regex", data["Regex"], f"a pattern that does not compile ({e})") from e
    raise UnknownComponent(path, data, 'a pattern that is neither {"String": ...} nor {"Regex": ...}')


def kind_of(data: Any, path: str, what: str) -> str | None:
    """The ``type`` of a component's JSON object (None for a JSON null: no component).

    Raises:
        UnknownComponent: where ``data`` is not an object.
    """
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise UnknownComponent(path, data, f"a {what} that is not an object")
    kind = data.get("type")
    return kind if isinstance(kind, str) else repr(kind)


#: A default no JSON value equals: the field is required.
MISSING = object()


def bool_field(data: Mapping[str, Any], key: str, path: str, default: Any = MISSING) -> bool:
    """``data[key]``, a JSON boolean; missing, ``default`` (none: refused, as serde refuses a missing field)."""
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise UnknownComponent(f"{path}.{key}", data.get(key), "a setting that is not true or false")
    return value


def components_from_json(
    data: Any, path: str, what: str, key: str, readers: Mapping[str, Callable[[Mapping[str, Any], str], Any]]
) -> tuple[Any, ...]:
    """The twins a section describes, in order: none for a JSON null, every part of a ``Sequence`` (its list under
    ``key``, each part read the same way), else the one ``readers`` makes of its ``type``.

    Raises:
        UnknownComponent: at the JSON path of a ``type`` no reader takes, or of what a reader refuses.
    """
    kind = kind_of(data, path, what)
    if kind is None:
        return ()
    if kind == "Sequence":
        parts = data.get(key)
        if not isinstance(parts, list):
            raise UnknownComponent(f"{path}.{key}", parts, f"a Sequence whose {key} are not a list")
        return tuple(
            twin
            for index, part in enumerate(parts)
            for twin in components_from_json(part, f"{path}.{key}[{index}]", what, key, readers)
        )
    read = readers.get(kind)
    if read is None:
        raise UnknownComponent(f"{path}.type", kind, f"the {what} {kind!r}")
    return (read(data, path),)


def string_field(data: Mapping[str, Any], key: str, path: str, what: str) -> str:
    """``data[key]``, a string (else refused at ``path.key``)."""
    value = data.get(key)
    if not isinstance(value, str):
        raise UnknownComponent(f"{path}.{key}", value, f"{what} that is not a string")
    return value
