"""Post-processors as ``tokenizers`` applies them: the special tokens put around each encoded sequence.

A ``tokenizer.json``'s ``post_processor`` is applied after the model, to the ids of one sequence or a pair.
:class:`TemplateProcessing` is its twin for the templates real model files use: special tokens before and after
each sequence (Llama-3's ``<|begin_of_text|> $A``, Mistral's ``<s> $A``, BERT's ``[CLS] $A [SEP]``), each special
token and each sequence with a type id. A ``ByteLevel`` post-processor with ``trim_offsets`` off changes nothing
(the offsets are already the characters' own); :func:`template_of` reads the file's section, a ``Sequence`` of the
two included.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from hf_bpe.pipeline.tokenizer_json import adds_nothing

#: ``(before A, after A, before B, after B)``: the special-token ids a template puts around each sequence.
Around = tuple[list[int], list[int], list[int], list[int]]


@dataclasses.dataclass(frozen=True)
class TemplateProcessing:
    """``tokenizers.processors.TemplateProcessing``: ``single`` and ``pair`` are the file's pieces
    (``{"SpecialToken": {"id": name, "type_id": n}}`` or ``{"Sequence": {"id": "A" or "B", "type_id": n}}``),
    ``special_tokens`` maps each name to its ``ids`` (one name may stand for several ids, as in the file).

    Within the shape hf_bpe's rows take, where each sequence's special tokens share its type id, A's being 0 and
    B's 1 (every real file's; another is refused by :meth:`from_json` at the piece that breaks it).

    >>> bos = {"SpecialToken": {"id": "<s>", "type_id": 0}}
    >>> template = TemplateProcessing.from_json({"type": "TemplateProcessing",
    ...     "single": [bos, {"Sequence": {"id": "A", "type_id": 0}}],
    ...     "pair": [bos, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "<s>", "type_id": 1}},
    ...              {"Sequence": {"id": "B", "type_id": 1}}],
    ...     "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}})
    >>> template.around(), template.around(pair=True)
    (([1], [], [], []), ([1], [], [1], []))
    """

    single: tuple[Mapping[str, Any], ...]
    pair: tuple[Mapping[str, Any], ...]
    special_tokens: Mapping[str, Mapping[str, Any]]
    #: What :meth:`around` gives for a single sequence and for a pair, worked out (and checked) once.
    _arounds: tuple[Around, Around] = dataclasses.field(init=False, repr=False, compare=False)

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
        """The file's form."""
        return {
            "type": "TemplateProcessing",
            "single": [dict(piece) for piece in self.single],
            "pair": [dict(piece) for piece in self.pair],
            "special_tokens": {name: dict(entry) for name, entry in self.special_tokens.items()},
        }

    def around(self, pair: bool = False) -> Around:
        """The special-token ids before and after the first and the second sequence, for a single sequence or
        (``pair``) a pair."""
        return self._arounds[1 if pair else 0]

    def _ids(self, name: str, where: str) -> list[int]:
        entry = self.special_tokens.get(name)
        ids = entry.get("ids") if isinstance(entry, Mapping) else None
        if not isinstance(ids, list) or not all(type(i) is int and i >= 0 for i in ids):
            raise ValueError(f"{where}: a special token missing from its special_tokens map")
        return ids

    def _split(self, pieces: tuple[Mapping[str, Any], ...], where: str) -> Around:
        """``(before A, after A, before B, after B)`` of one template, checked piece by piece: the special tokens
        before ``$A`` and after it (up to those typed 1) have type id 0, the rest type id 1, as ``$B``."""
        sequences = ["A"] if where == "single" else ["A", "B"]
        found: list[str] = []
        typed: list[tuple[int, list[int]]] = []  # (type id, ids) of each special token, in order
        marks: list[int] = []  # how many special tokens come before each sequence
        for index, piece in enumerate(pieces):
            at = f"{where}[{index}]"
            kind, body = next(iter(piece.items())) if isinstance(piece, Mapping) and len(piece) == 1 else ("", None)
            if not isinstance(body, Mapping) or kind not in ("SpecialToken", "Sequence"):
                raise ValueError(f"{at}: a piece that is neither a SpecialToken nor a Sequence")
            if kind == "Sequence":
                number = len(found)
                if number >= len(sequences) or body.get("id") != sequences[number]:
                    raise ValueError(
                        f"{at}.Sequence.id: sequences other than {' then '.join('$' + s for s in sequences)}"
                    )
                if body.get("type_id") != number:
                    raise ValueError(
                        f"{at}.Sequence.type_id: ${sequences[number]} typed other than {number} (hf_bpe's rows type "
                        "$A 0 and $B 1)"
                    )
                found.append(sequences[number])
                marks.append(len(typed))
                continue
            type_id = body.get("type_id")
            if type_id not in (0, 1) or (where == "single" and type_id != 0):
                raise ValueError(
                    f"{at}.SpecialToken.type_id: a special token typed other than its sequence (hf_bpe's rows "
                    "type those around $A 0 and those around $B 1)"
                )
            typed.append((type_id, self._ids(str(body.get("id")), f"{at}.SpecialToken.id")))
        if found != sequences:
            raise ValueError(f"{where}: sequences other than {' then '.join('$' + s for s in sequences)}")
        types = [type_id for type_id, _ in typed]
        if types != sorted(types) or (where == "pair" and 1 in types[: marks[0]]):
            raise ValueError(
                f"{where}: special tokens typed 1 before some typed 0 (hf_bpe's rows type those around $A 0 "
                "and those around $B 1)"
            )
        a_before = [i for _, ids in typed[: marks[0]] for i in ids]
        if where == "single":
            return a_before, [i for _, ids in typed[marks[0] :] for i in ids], [], []
        between = typed[marks[0] : marks[1]]
        a_after = [i for type_id, ids in between if type_id == 0 for i in ids]
        b_before = [i for type_id, ids in between if type_id == 1 for i in ids]
        if any(type_id != 1 for type_id, _ in typed[marks[1] :]):
            raise ValueError(f"{where}: a special token after $B typed 0 (hf_bpe's rows type it 1)")
        return a_before, a_after, b_before, [i for _, ids in typed[marks[1] :] for i in ids]


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
