"""Post-processors as ``tokenizers`` applies them: the special tokens put around each encoded sequence.

A ``tokenizer.json``'s ``post_processor`` is applied after the model, to the ids of one sequence or a pair.
:class:`TemplateProcessing` is its twin for the templates real model files use: special tokens before and after
each sequence (Llama-3's ``<|begin_of_text|> $A``, Mistral's ``<s> $A``, BERT's ``[CLS] $A [SEP]``), each special
token and each sequence with a type id. A ``ByteLevel`` post-processor with ``trim_offsets`` off changes nothing
(the offsets are already the characters' own); :func:`template_of` reads the file's section, a ``Sequence`` of the
two included. :func:`post_processor_from_json` reads the section into twins (:class:`TemplateProcessing`,
:class:`BertProcessing`, :class:`RobertaProcessing`, :class:`ByteLevel`), which make the :class:`PostProcessor` the
rows apply and write the section back as ``tokenizers`` writes it (``to_json``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hf_bpe.pipeline.byte_level import byte_level_json
from hf_bpe.pipeline.component import UnknownComponent, kind_of
from hf_bpe.pipeline.encoding import Encoding
from hf_bpe.pipeline.normalizers import Shape, json_shape, sequence_json
from hf_bpe.pipeline.tokenizer_json import adds_nothing, value_at

#: ``(before A, after A, before B, after B)``: the special-token ids a template puts around each sequence.
Around = tuple[list[int], list[int], list[int], list[int]]


@dataclasses.dataclass(frozen=True)
class TemplateProcessing:
    """``tokenizers.processors.TemplateProcessing``: ``single`` and ``pair`` are the file's pieces
    (``{"SpecialToken": {"id": name, "type_id": n}}`` or ``{"Sequence": {"id": "A" or "B", "type_id": n}}``),
    ``special_tokens`` maps each name to its ``ids`` (one name may stand for several ids, as in the file).

    >>> bos = {"SpecialToken": {"id": "<s>", "type_id": 0}}
    >>> template = TemplateProcessing.from_json({"type": "TemplateProcessing",
    ...     "single": [bos, {"Sequence": {"id": "A", "type_id": 0}}],
    ...     "pair": [bos, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "<s>", "type_id": 1}},
    ...              {"Sequence": {"id": "B", "type_id": 1}}],
    ...     "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}})
    >>> template.around(), template.around(pair=True), template.types(pair=True)
    (([1], [], [], []), ([1], [], [1], []), ([0], 0, [], [1], 1, []))
    """

    single: tuple[Mapping[str, Any], ...]
    pair: tuple[Mapping[str, Any], ...]
    special_tokens: Mapping[str, Mapping[str, Any]]
    #: What :meth:`around` gives for a single sequence and for a pair, worked out (and checked) once.
    _arounds: tuple[tuple[Around, Types], tuple[Around, Types]] = dataclasses.field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        arounds = (self._split(self.single, "single"), self._split(self.pair, "pair"))
        object.__setattr__(self, "_arounds", arounds)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "post_processor") -> TemplateProcessing:
        """Read the file's ``TemplateProcessing`` object (at JSON path ``where``).

        Raises:
            ValueError: ``"PATH: what"`` for what does not fit (a piece of another kind, a special token the
                ``special_tokens`` map lacks, sequences out of order, type ids hf_bpe's rows cannot give).
        """
        try:
            return cls(tuple(data.get("single") or ()), tuple(data.get("pair") or ()), data.get("special_tokens") or {})
        except ValueError as e:
            raise ValueError(f"{where}.{e}") from None

    def to_json(self) -> dict[str, Any]:
        """The file's form, as ``tokenizers`` writes it: each piece's ``id`` before its ``type_id``, the special
        tokens by name (``Tokens``' ``ordered_map``), each with its ``id``, ``ids`` and ``tokens``."""
        return {
            "type": "TemplateProcessing",
            "single": [_piece_json(piece) for piece in self.single],
            "pair": [_piece_json(piece) for piece in self.pair],
            "special_tokens": {
                name: {
                    "id": entry.get("id", name),
                    "ids": list(entry.get("ids", ())),
                    "tokens": list(entry.get("tokens", ())),
                }
                for name, entry in sorted(self.special_tokens.items())
            },
        }

    def fields(self) -> dict[str, Any]:
        """What it makes of :class:`PostProcessor`'s fields: the ids and type ids around each sequence."""
        pair_types = self.types(pair=True)
        return {
            "single": self.around(),
            "pair": self.around(pair=True),
            "single_types": self.types(),
            "pair_types": pair_types,
            "pair_type_id": pair_types[4],
        }

    def around(self, pair: bool = False) -> Around:
        """The special-token ids before and after the first and the second sequence, for a single sequence or
        (``pair``) a pair."""
        return self._arounds[1 if pair else 0][0]

    def types(self, pair: bool = False) -> Types:
        """The type ids of :meth:`around`'s tokens, and of the sequences themselves."""
        return self._arounds[1 if pair else 0][1]

    def _ids(self, name: str, where: str) -> list[int]:
        entry = self.special_tokens.get(name)
        ids = entry.get("ids") if isinstance(entry, Mapping) else None
        if not isinstance(ids, list) or not all(type(i) is int and i >= 0 for i in ids):
            raise ValueError(f"{where}: a special token missing from its special_tokens map")
        return ids

    def _split(self, pieces: tuple[Mapping[str, Any], ...], where: str) -> tuple[Around, Types]:
        """``(before A, after A, before B, after B)`` of one template and the type id of each of those tokens and of
        each sequence, checked piece by piece. Special tokens between ``$A`` and ``$B`` go after A while typed as A,
        the rest before B (where they go matters for nothing but readability: each keeps its own type id)."""
        sequences = ["A"] if where == "single" else ["A", "B"]
        found: list[str] = []
        typed: list[tuple[int, list[int]]] = []  # (type id, ids) of each special token, in order
        marks: list[int] = []  # how many special tokens come before each sequence
        sequence_types: list[int] = []
        for index, piece in enumerate(pieces):
            at = f"{where}[{index}]"
            kind, body = next(iter(piece.items())) if isinstance(piece, Mapping) and len(piece) == 1 else ("", None)
            if not isinstance(body, Mapping) or kind not in ("SpecialToken", "Sequence"):
                raise ValueError(f"{at}: a piece that is neither a SpecialToken nor a Sequence")
            type_id = body.get("type_id")
            if type(type_id) is not int or type_id < 0:
                raise ValueError(f"{at}.{kind}.type_id: a type id that is not a non-negative integer")
            if kind == "Sequence":
                number = len(found)
                if number >= len(sequences) or body.get("id") != sequences[number]:
                    raise ValueError(
                        f"{at}.Sequence.id: sequences other than {' then '.join('$' + s for s in sequences)}"
                    )
                found.append(sequences[number])
                marks.append(len(typed))
                sequence_types.append(type_id)
                continue
            typed.append((type_id, self._ids(str(body.get("id")), f"{at}.SpecialToken.id")))
        if found != sequences:
            raise ValueError(f"{where}: sequences other than {' then '.join('$' + s for s in sequences)}")
        before = typed[: marks[0]]
        if where == "single":
            return _ids_and_types([before, typed[marks[0] :], [], []], [sequence_types[0], 0])
        between = typed[marks[0] : marks[1]]
        a_type = sequence_types[0]
        cut = next((n for n, (type_id, _) in enumerate(between) if type_id != a_type), len(between))
        parts = [before, between[:cut], between[cut:], typed[marks[1] :]]
        return _ids_and_types(parts, sequence_types)


def _piece_json(piece: Mapping[str, Any]) -> dict[str, Any]:
    """A template piece (checked by :meth:`TemplateProcessing._split`) with its fields in ``Piece``'s order."""
    ((kind, body),) = piece.items()
    return {kind: {"id": body["id"], "type_id": body["type_id"]}}


#: The type ids of a template's tokens: ``(before A, A's, after A, before B, B's, after B)``.
Types = tuple[list[int], int, list[int], list[int], int, list[int]]


def _ids_and_types(parts: list[list[tuple[int, list[int]]]], sequence_types: list[int]) -> tuple[Around, Types]:
    """The ids of the four runs of special tokens, and the type ids of every one and of the two sequences."""
    ids = [[token_id for _, token_ids in part for token_id in token_ids] for part in parts]
    types = [[type_id for type_id, token_ids in part for _ in token_ids] for part in parts]
    around: Around = (ids[0], ids[1], ids[2], ids[3])
    return around, (types[0], sequence_types[0], types[1], types[2], sequence_types[1], types[3])


def template_of(post_processor: Any, where: str = "post_processor") -> TemplateProcessing | None:
    """The ``TemplateProcessing`` in a file's ``post_processor`` section (alone or in a ``Sequence``), or None
    where there is none or it adds nothing (as transformers v5 saves GPT-2).

    Raises:
        ValueError: ``"PATH: why"`` where the template does not fit (see :meth:`TemplateProcessing.from_json`).
    """
    if not isinstance(post_processor, Mapping):
        return None
    if post_processor.get("type") == "Sequence":
        found = [
            template_of(part, f"{where}.processors[{index}]")
            for index, part in enumerate(post_processor.get("processors") or [])
        ]
        templates = [template for template in found if template is not None]
        if len(templates) > 1:
            raise ValueError(f"{where}.processors: {len(templates)} templates (hf_bpe applies one)")
        return templates[0] if templates else None
    if post_processor.get("type") != "TemplateProcessing" or adds_nothing(post_processor):
        return None
    return TemplateProcessing.from_json(post_processor, where)


# -- the post-processor as the rows apply it -------------------------------------------------------------------------

#: What :meth:`PostProcessor.trimmed` counts as a space: the byte-level alphabet's ``Ġ`` and Rust's
#: ``char::is_whitespace`` (Unicode's White_Space; Python's ``str.isspace`` adds U+001C-U+001F).
_SPACES = frozenset("\u0120\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | frozenset(
    map(chr, range(0x2000, 0x200B))
)
_NOTHING: Around = ([], [], [], [])


@dataclasses.dataclass(frozen=True)
class PostProcessor:
    """What a file's ``post_processor`` does, in the shape hf_bpe's rows apply: the special tokens around each
    sequence (``single``, ``pair``), the type id of a pair's second sequence and its special tokens
    (``RobertaProcessing`` types it 0), and whether the tokens' offsets lose their leading and trailing spaces
    (``trim_offsets`` of ``ByteLevel`` and ``RobertaProcessing``, with their ``add_prefix_space``).

    >>> processor = post_processor_from_json({"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]})
    >>> processor.around(), processor.around(pair=True), processor.pair_type_id
    (([2], [3], [], []), ([2], [3], [], [3]), 1)
    """

    single: Around = _NOTHING
    pair: Around = _NOTHING
    pair_type_id: int = 1
    #: The type ids of :meth:`around`'s tokens and the sequences' (:meth:`TemplateProcessing.types`).
    single_types: Types = ([], 0, [], [], 1, [])
    pair_types: Types = ([], 0, [], [], 1, [])
    trim_offsets: bool = False
    add_prefix_space: bool = True
    #: Whether adding special tokens types the overflowing windows too (``RobertaProcessing``: all 0); a template
    #: types the kept rows only, the windows keeping their sequence's index (``TemplateProcessing::apply_template``).
    retypes_windows: bool = False
    #: The twins read (:data:`_READERS`), which make the fields above and write the section back, and where they
    #: sat in the JSON (:func:`~hf_bpe.pipeline.normalizers.json_shape`).
    processors: tuple[Any, ...] = dataclasses.field(default=(), compare=False, repr=False)
    shape: Shape = dataclasses.field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any] | None:
        """The ``post_processor`` section as ``tokenizers`` writes it, from the twins read (none: null).

        >>> post_processor_from_json({"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]}).to_json()
        {'type': 'BertProcessing', 'sep': ['[SEP]', 3], 'cls': ['[CLS]', 2]}
        """
        return sequence_json(self.processors, self.shape, "processors")

    def around(self, pair: bool = False) -> Around:
        """The special-token ids before and after the first and the second sequence."""
        return self.pair if pair else self.single

    def types(self, pair: bool = False) -> Types:
        """The type ids of :meth:`around`'s tokens and of the sequences."""
        return self.pair_types if pair else self.single_types

    def trimmed(self, tokens: list[str], offsets: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """``offsets`` of one sequence's ``tokens`` (a window of it, after truncation) without the spaces each
        token starts or ends with, as ``byte_level::process_offsets`` trims them: the first token keeps the one
        space ``add_prefix_space`` may have put there."""
        if not self.trim_offsets:
            return offsets
        out = []
        for index, (token, (start, end)) in enumerate(zip(tokens, offsets, strict=True)):
            leading = _spaces(token)
            if leading:
                if (index == 0 or start == 0) and self.add_prefix_space and leading == 1:
                    leading = 0
                start = min(start + leading, end)
            trailing = _spaces(token[::-1])
            if trailing and end >= trailing:
                end = max(end - trailing, start)
            out.append((start, end))
        return out


def _spaces(token: str) -> int:
    """How many characters ``token`` starts with that are white space or the byte-level space."""
    count = 0
    for char in token:
        if char not in _SPACES:
            break
        count += 1
    return count


def post_processor_from_json(data: Any, path: str = "post_processor") -> PostProcessor:
    """The post-processor a ``tokenizer.json``'s ``post_processor`` section describes.

    Raises:
        UnknownComponent: naming the JSON path of a post-processor or setting not implemented here (two templates
            in one ``Sequence``, a template hf_bpe's rows cannot give).
    """
    kind = kind_of(data, path, "post-processor")
    if kind is None:
        return PostProcessor()
    parts = [(f"{path}.processors[{i}]", p) for i, p in enumerate(data.get("processors") or [])]
    if kind != "Sequence":
        parts = [(path, data)]
    fields: dict[str, Any] = {}
    twins = []
    for where, part in parts:
        kind = kind_of(part, where, "post-processor")
        read = _READERS.get(kind or "")
        if read is None:
            raise UnknownComponent(f"{where}.type", kind, f"the post-processor {kind!r}")
        twin = read(part, where)
        found = twin.fields()
        if "single" in fields and "single" in found:
            raise UnknownComponent(where, kind, "a second post-processor adding special tokens (hf_bpe applies one)")
        fields.update(found)
        twins.append(twin)
    return PostProcessor(**fields, processors=tuple(twins), shape=json_shape(data, "processors"))


@dataclasses.dataclass(frozen=True)
class BertProcessing:
    """``processors.BertProcessing``: ``cls $A sep`` and ``cls $A sep $B sep``, the second sequence and its ``sep``
    typed 1; each special token is ``(token, id)``."""

    sep: tuple[str, int]
    cls: tuple[str, int]

    def to_json(self) -> dict[str, Any]:
        """``BertProcessing``'s JSON as ``tokenizers`` writes it."""
        return {"type": "BertProcessing", "sep": list(self.sep), "cls": list(self.cls)}

    def fields(self) -> dict[str, Any]:
        """What it makes of :class:`PostProcessor`'s fields."""
        cls, sep = self.cls[1], self.sep[1]
        return {
            "single": ([cls], [sep], [], []),
            "pair": ([cls], [sep], [], [sep]),
            "single_types": ([0], 0, [0], [], 1, []),
            "pair_types": ([0], 0, [0], [], 1, [1]),
        }


@dataclasses.dataclass(frozen=True)
class RobertaProcessing:
    """``processors.RobertaProcessing``: ``cls $A sep`` and ``cls $A sep sep $B sep``, every token typed 0, and the
    offsets trimmed as ``ByteLevel``'s (``trim_offsets``, ``add_prefix_space``)."""

    sep: tuple[str, int]
    cls: tuple[str, int]
    trim_offsets: bool = True
    add_prefix_space: bool = True

    def to_json(self) -> dict[str, Any]:
        """``RobertaProcessing``'s JSON as ``tokenizers`` writes it."""
        return {
            "type": "RobertaProcessing",
            "sep": list(self.sep),
            "cls": list(self.cls),
            "trim_offsets": self.trim_offsets,
            "add_prefix_space": self.add_prefix_space,
        }

    def fields(self) -> dict[str, Any]:
        """What it makes of :class:`PostProcessor`'s fields."""
        cls, sep = self.cls[1], self.sep[1]
        # RobertaProcessing types every token of a pair 0, its second sequence's too.
        return {
            "single": ([cls], [sep], [], []),
            "pair": ([cls], [sep], [sep], [sep]),
            "single_types": ([0], 0, [0], [], 0, []),
            "pair_types": ([0], 0, [0], [0], 0, [0]),
            "pair_type_id": 0,
            "retypes_windows": True,
            "trim_offsets": self.trim_offsets,
            "add_prefix_space": self.add_prefix_space,
        }


@dataclasses.dataclass(frozen=True)
class ByteLevel:
    """``processors.ByteLevel``: the tokens' offsets without their spaces (``trim_offsets``; the first token keeps
    one ``add_prefix_space`` put there). ``use_regex`` is the pre-tokenizer's: kept only to be written back."""

    add_prefix_space: bool = True
    trim_offsets: bool = True
    use_regex: bool = True

    def to_json(self) -> dict[str, Any]:
        """``ByteLevel``'s JSON as ``tokenizers`` writes it."""
        return byte_level_json(
            add_prefix_space=self.add_prefix_space, trim_offsets=self.trim_offsets, use_regex=self.use_regex
        )

    def fields(self) -> dict[str, Any]:
        """What it makes of :class:`PostProcessor`'s fields."""
        return {"trim_offsets": self.trim_offsets, "add_prefix_space": self.add_prefix_space}


def _template_from_json(data: Mapping[str, Any], path: str) -> TemplateProcessing:
    try:
        return TemplateProcessing.from_json(data, path)
    except ValueError as e:
        where, _, why = str(e).partition(": ")
        raise UnknownComponent(where, value_at(data, where), f"a template with {why}") from None


def _token(data: Mapping[str, Any], key: str, path: str) -> tuple[str, int]:
    """The ``[token, id]`` at ``data[key]``."""
    value = data.get(key)
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and type(value[1]) is int):
        raise UnknownComponent(f"{path}.{key}", value, "a special token that is not [token, id]")
    return value[0], value[1]


def _sep_and_cls(data: Mapping[str, Any], path: str) -> tuple[tuple[str, int], tuple[str, int]]:
    return _token(data, "sep", path), _token(data, "cls", path)


def _trim_field(data: Mapping[str, Any], key: str, path: str) -> bool:
    value = data.get(key, True)
    if not isinstance(value, bool):
        raise UnknownComponent(f"{path}.{key}", value, f"a {key} that is not true or false")
    return value


#: How each post-processor is read from its JSON object (``Sequence`` aside): a twin, which makes the fields of
#: :class:`PostProcessor` (``fields()``) and writes its JSON back (``to_json()``).
_READERS: dict[str, Callable[[Mapping[str, Any], str], Any]] = {
    "TemplateProcessing": _template_from_json,
    "BertProcessing": lambda data, path: BertProcessing(*_sep_and_cls(data, path)),
    "RobertaProcessing": lambda data, path: RobertaProcessing(
        *_sep_and_cls(data, path), _trim_field(data, "trim_offsets", path), _trim_field(data, "add_prefix_space", path)
    ),
    "ByteLevel": lambda data, path: ByteLevel(
        _trim_field(data, "add_prefix_space", path),
        _trim_field(data, "trim_offsets", path),
        _trim_field(data, "use_regex", path),
    ),
}


# -- applying it to encoded sequences -----------------------------------------------------------------------------


def post_process(
    parts: Sequence[Encoding],
    around: Around | None,
    types: Types,
    names: Callable[[list[int]], list[str]],
    *,
    retypes_windows: bool = False,
    ranges: bool = True,
) -> Encoding:
    """A sequence or pair (truncated, with their overflowing windows) as the post-processor leaves it
    (``PostProcessor::process``): each sequence typed, put between its special tokens ``around`` (None: without
    special tokens) typed ``types`` (:meth:`PostProcessor.types`), a pair merged into one row. ``names`` gives the
    special tokens' names in the rows' ``tokens``; ``ranges``: each sequence (and each of its windows) marked with
    its sequence index (without a post-processor, ``tokenizers``' rows have the ranges too).

    >>> row = post_process([Encoding([7, 8], tokens=["a", "b"], words=[0, 1])], ([1], [2], [], []),
    ...     ([0], 0, [0], [], 1, []), lambda ids: [f"<{i}>" for i in ids])
    >>> row.ids, row.tokens, row.special_tokens_mask, row.sequence_ids
    ([1, 7, 8, 2], ['<1>', 'a', 'b', '<2>'], [1, 0, 0, 1], [None, 0, 0, None])
    """
    _type_sequences(parts, (types[1], types[4]), retypes_windows and around is not None)
    if ranges:
        for index, part in enumerate(parts):
            for window in (part, *part.overflowing):
                window.set_sequence_id(index)
    rows = list(parts)
    if around is not None:
        a_before, a_after, b_before, b_after = around
        rows[0] = _around(rows[0], a_before, a_after, types[1], names, types[0], types[2])
        if len(rows) > 1:
            rows[1] = _around(rows[1], b_before, b_after, types[4], names, types[3], types[5])
    return rows[0].merge_with(rows[1]) if len(rows) > 1 else rows[0]


def _type_sequences(parts: Sequence[Encoding], sequence_types: tuple[int, int], retypes_windows: bool) -> None:
    """Type each sequence's kept row as the post-processor does, with or without special tokens
    (``TemplateProcessing::apply_template`` sets the type ids of the kept row only); its overflowing windows keep
    the type id ``Tokenizer::encode`` gave the sequence, its index, unless the post-processor types them too
    (``RobertaProcessing`` adding special tokens)."""
    for index, part in enumerate(parts):
        type_id = sequence_types[index]
        windows = part.overflowing if retypes_windows else []
        for row in (part, *windows):
            if row.type_ids and row.type_ids[0] != type_id:  # a sequence's row is typed as one
                row.type_ids = [type_id] * len(row.ids)


def _around(
    row: Encoding,
    before: list[int],
    after: list[int],
    type_id: int,
    names: Callable[[list[int]], list[str]],
    before_types: list[int] | None = None,
    after_types: list[int] | None = None,
) -> Encoding:
    """``row`` (and each overflowing window) between special tokens (``TemplateProcessing``), typed ``type_id``
    unless given types of their own; the sequence's tokens keep theirs (:func:`_type_sequences`)."""
    if not before and not after:
        return row
    windows = [_around(window, before, after, type_id, names, before_types, after_types) for window in row.overflowing]
    n, m = len(before), len(after)
    # Encoding::merge of the template's pieces, in one go: the special tokens have no word and no sequence.
    return Encoding(
        [*before, *row.ids, *after],
        (before_types or [type_id] * n) + row.type_ids + (after_types or [type_id] * m),
        [1] * n + row.special_tokens_mask + [1] * m,
        [(0, 0)] * n + row.offsets + [(0, 0)] * m,
        [1] * n + row.attention_mask + [1] * m,
        windows,
        tokens=None if row.tokens is None else [*names(before), *row.tokens, *names(after)],
        words=None if row.words is None else [None] * n + row.words + [None] * m,
        sequence_ranges={index: (start + n, stop + n) for index, (start, stop) in row.sequence_ranges.items()},
    )
