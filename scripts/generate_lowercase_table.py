"""Regenerate ``hf_bpe/pipeline/_tables/lowercase.py`` by asking ``tokenizers`` how it lowercases every code point.

``tokenizers``' ``Lowercase`` normalizer lowercases character by character with Rust's Unicode tables;
Python's ``str.lower()`` follows its own Unicode version and lowers a word-final ``Σ`` to ``ς``. The table lists
the code points where ``tokenizers.normalizers.Lowercase().normalize_str(chr(cp))`` is not ``chr(cp).lower()``,
each with the reference's lowercase, plus ``Σ`` (always ``σ`` to the reference);
:func:`hf_bpe.pipeline.normalizers.lowercase` applies it before ``str.lower()``. The script checks that every entry is
already lowercase to Python (so the ``str.lower()`` after it leaves it alone) and that the whole table reproduces the
reference on every code point.

Usage: ``python scripts/generate_lowercase_table.py`` (takes a few seconds; needs ``tokenizers``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import tokenizers
from tokenizers import normalizers

OUTPUT = Path(__file__).resolve().parent.parent / "hf_bpe" / "_lowercase_table.py"
SURROGATES = range(0xD800, 0xE000)
CAPITAL_SIGMA = 0x3A3


def differences() -> dict[int, str]:
    """Code point to the reference's lowercase, where it differs from Python's (and capital sigma)."""
    lower = normalizers.Lowercase()
    table: dict[int, str] = {}
    for cp in range(sys.maxunicode + 1):
        if cp in SURROGATES:
            continue
        theirs = lower.normalize_str(chr(cp))
        if theirs != chr(cp).lower() or cp == CAPITAL_SIGMA:
            if theirs.lower() != theirs:
                raise SystemExit(f"U+{cp:04X} lowers to {theirs!r}, which str.lower() would change again")
            table[cp] = theirs
    return table


def escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}" for c in text)


def render(table: dict[int, str]) -> str:
    lines = [
        '"""Where ``tokenizers``\' Lowercase normalizer and Python\'s ``str.lower()`` differ (generated; do not edit).',
        "",
        f"Made by scripts/generate_lowercase_table.py from tokenizers {tokenizers.__version__} on Python "
        f"{sys.version_info.major}.{sys.version_info.minor}:",
        "code point to the reference's lowercase of that character alone.",
        '"""',
        "",
        "LOWERCASE: dict[int, str] = {",
    ]
    for cp, value in table.items():
        python = " ".join(f"U+{ord(c):04X}" for c in chr(cp).lower())
        lines.append(f'    0x{cp:X}: "{escaped(value)}",  # str.lower(): {python}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> None:
    table = differences()
    OUTPUT.write_text(render(table), encoding="utf-8")
    print(f"{len(table)} code points written to {OUTPUT}")


if __name__ == "__main__":
    main()
