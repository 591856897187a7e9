"""Regenerate ``hf_bpe/pipeline/_regex/unicode_classes.py`` by asking the reference engines how they classify every code
point.

The split patterns of the presets use ``\\p{L}``, ``\\p{Lu}``, ``\\p{Ll}``, ``\\p{Lt}``, ``\\p{Lm}``, ``\\p{Lo}``,
``\\p{M}``, ``\\p{N}``, ``\\p{P}``, ``\\p{S}`` and ``\\s``; users' own patterns may also use ``\\w`` and ``\\d``.
The ``regex`` module follows a newer Unicode than the engines inside ``tokenizers`` (Oniguruma) and tiktoken (Rust
``regex``), so code points assigned since then would split differently. This script records each engine's own
classes, as code-point ranges:

* ``tokenizers``: ``Split(Regex(CLASS), "removed")`` over a string of every code point; what is removed is the
  class.
* tiktoken: an ``Encoding`` whose split pattern is ``CLASS`` encodes only what the pattern matches (tiktoken
  drops the text between matches), so decoding gives the class.

The two engines agree on every class but ``\\w`` (tokenizers 0.23.3, tiktoken 0.14.0: both Unicode 15); where they
differ, tiktoken's class is stored too (``TIKTOKEN_CLASSES``) and the differing code points are printed.
Oniguruma's own classes (``[\\w]``, which is not ``\\w``; ``\\h``; ``\\p{Punct}``; the POSIX brackets: the dialect's
``ONIGURUMA_CLASSES``) are asked of ``tokenizers`` only.

Usage: ``python scripts/generate_unicode_tables.py`` (takes about a minute; needs ``tokenizers`` and ``tiktoken``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import tiktoken
import tokenizers
from tokenizers import Regex, pre_tokenizers

from hf_bpe.pipeline._regex.dialect import CLASS_NAMES, ONIGURUMA_CLASSES, oniguruma_spelling

OUTPUT = Path(__file__).resolve().parent.parent / "hf_bpe" / "pipeline" / "_regex" / "unicode_classes.py"
#: The class names, as patterns spell them in ``\p{...}`` (``s``, ``w``, ``d`` stand for ``\s``, ``\w``, ``\d``).
CLASSES = CLASS_NAMES
CODE_POINTS = [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]
ALL_TEXT = "".join(map(chr, CODE_POINTS))


def escape(name: str) -> str:
    return f"\\{name}" if name in ("s", "w", "d") else rf"\p{{{name}}}"


def tokenizers_class(name: str) -> set[int]:
    # Runs of the class, removed: far fewer pieces than one a character, and the same class.
    split = pre_tokenizers.Split(Regex(f"(?:{oniguruma_spelling(name)})+"), "removed")
    kept = "".join(piece for piece, _ in split.pre_tokenize_str(ALL_TEXT))
    return set(CODE_POINTS) - set(map(ord, kept))


def tiktoken_class(name: str) -> set[int]:
    encoding = tiktoken.Encoding(
        f"class-{name}", pat_str=escape(name), mergeable_ranks={bytes([b]): b for b in range(256)}, special_tokens={}
    )
    matched = encoding.decode_bytes(encoding.encode_ordinary(ALL_TEXT)).decode("utf-8")
    return set(map(ord, matched))


def to_ranges(code_points: set[int]) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for cp in sorted(code_points):
        if ranges and cp == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    return ranges


def render_ranges(name: str, ranges: list[tuple[int, int]]) -> list[str]:
    lines = [f"    {name!r}: ("]
    row: list[str] = []
    for first, last in ranges:
        row.append(f"(0x{first:X}, 0x{last:X}),")
        if len(row) == 6:
            lines.append("        " + " ".join(row))
            row = []
    if row:
        lines.append("        " + " ".join(row))
    lines.append("    ),")
    return lines


def render(reference: dict[str, set[int]], tiktoken_only: dict[str, set[int]]) -> str:
    lines = [
        '"""Code-point classes of the reference split engines (generated; do not edit).',
        "",
        f"Made by scripts/generate_unicode_tables.py from tokenizers {tokenizers.__version__} (Oniguruma) and",
        f"tiktoken {tiktoken.__version__} (Rust regex). Each table lists inclusive ``(first, last)`` code-point",
        "ranges; ``s``, ``w``, ``d`` are ``\\\\s``, ``\\\\w``, ``\\\\d``. ``CLASSES`` are tokenizers';",
        "``TIKTOKEN_CLASSES`` holds tiktoken's where they differ.",
        '"""',
        "",
        "CLASSES: dict[str, tuple[tuple[int, int], ...]] = {",
    ]
    for name in CLASSES:
        lines += render_ranges(name, to_ranges(reference[name]))
    for name in ONIGURUMA_CLASSES:
        lines += render_ranges(name, to_ranges(reference[name]))
    lines.append("}")
    lines.append("TIKTOKEN_CLASSES: dict[str, tuple[tuple[int, int], ...]] = {")
    for name, code_points in tiktoken_only.items():
        lines += render_ranges(name, to_ranges(code_points))
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> int:
    reference: dict[str, set[int]] = {}
    tiktoken_only: dict[str, set[int]] = {}
    for name in CLASSES:
        reference[name] = tokenizers_class(name)
        other = tiktoken_class(name)
        if other != reference[name]:
            tiktoken_only[name] = other
            differing = [f"U+{cp:04X}" for cp in sorted(other ^ reference[name])]
            print(f"{escape(name):7} {len(reference[name]):7} code points; tiktoken differs at {', '.join(differing)}")
        else:
            print(f"{escape(name):7} {len(reference[name]):7} code points, the same in both engines")
    for name in ONIGURUMA_CLASSES:
        reference[name] = tokenizers_class(name)
        print(f"{oniguruma_spelling(name):11} {len(reference[name]):7} code points, tokenizers only")
    OUTPUT.write_text(render(reference, tiktoken_only), encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
