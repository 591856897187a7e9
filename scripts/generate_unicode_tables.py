"""Regenerate ``hf_bpe/_unicode_tables.py`` by asking ``tokenizers`` how it classifies every code point.

The split pattern uses ``\\p{L}``, ``\\p{N}`` and ``\\s``. The ``regex`` module follows a newer Unicode than the
regex engines inside ``tokenizers`` (Oniguruma) and tiktoken (Rust ``regex``), so code points assigned since
then would split differently. This script records the reference's own classes, as code-point ranges, by
pre-tokenizing probe strings with the reference's ByteLevel pre-tokenizer:

* ``"a" + c`` is one pre-token exactly when ``c`` is a letter to the reference;
* ``"1" + c`` is one pre-token exactly when ``c`` is a number;
* ``"\\t" + c + "\\t"`` is one pre-token exactly when ``c`` is white space.

Usage: ``python scripts/generate_unicode_tables.py`` (takes a few seconds; needs ``tokenizers``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import tokenizers
from tokenizers import pre_tokenizers

OUTPUT = Path(__file__).resolve().parent.parent / "hf_bpe" / "_unicode_tables.py"
SURROGATES = range(0xD800, 0xE000)


def to_ranges(code_points: list[int]) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for cp in code_points:
        if ranges and cp == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    return ranges


def classify() -> dict[str, list[int]]:
    pre = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    classes: dict[str, list[int]] = {"LETTER": [], "NUMBER": [], "WHITESPACE": []}
    for cp in range(0x110000):
        if cp in SURROGATES:
            continue
        c = chr(cp)
        if len(pre.pre_tokenize_str("a" + c)) == 1:
            classes["LETTER"].append(cp)
        elif len(pre.pre_tokenize_str("1" + c)) == 1:
            classes["NUMBER"].append(cp)
        elif len(pre.pre_tokenize_str("\t" + c + "\t")) == 1:
            classes["WHITESPACE"].append(cp)
    return classes


def render(classes: dict[str, list[int]]) -> str:
    lines = [
        '"""Code-point classes of the reference split engines (generated; do not edit).',
        "",
        f"Made by scripts/generate_unicode_tables.py from tokenizers {tokenizers.__version__}'s ByteLevel",
        "pre-tokenizer. Each table lists inclusive ``(first, last)`` code-point ranges.",
        '"""',
        "",
    ]
    for name, cps in classes.items():
        lines.append(f"{name}_RANGES: tuple[tuple[int, int], ...] = (")
        row: list[str] = []
        for first, last in to_ranges(cps):
            row.append(f"(0x{first:X}, 0x{last:X}),")
            if len(row) == 5:
                lines.append("    " + " ".join(row))
                row = []
        if row:
            lines.append("    " + " ".join(row))
        lines.append(")")
    return "\n".join(lines) + "\n"


def main() -> int:
    OUTPUT.write_text(render(classify()), encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
