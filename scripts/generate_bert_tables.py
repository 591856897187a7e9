"""Regenerate ``hf_bpe/pipeline/_tables/bert.py`` by asking ``tokenizers`` how BERT's recipe classifies
every code point.

``tokenizers``' ``BertNormalizer`` and ``BertPreTokenizer`` classify characters with the ``unicode_categories``
crate and Rust's ``char`` methods, whose Unicode versions differ from Python's ``unicodedata`` (older for the
categories, newer for lowercasing). This script records the reference's own answers, probing each code point:

* ``REMOVED``: ``clean_text`` drops ``c`` (``"a" + c + "a"`` normalizes to ``"aa"``; control, format, private use);
* ``WHITESPACE``: the pre-tokenizer splits on ``c`` (``"a" + c + "a"`` gives ``a``, ``a``);
* ``PUNCTUATION``: the pre-tokenizer isolates ``c`` (``"a" + c + "a"`` gives ``a``, ``c``, ``a``);
* ``NONSPACING``: ``strip_accents`` drops ``c`` (``c`` is its own NFD to Python, and strips to ``""``);
* ``LOWERCASE``: where Rust's ``char::to_lowercase`` differs from Python's ``str.lower`` of that one character;
* ``STRIP_ACCENTS``: where the reference's NFD differs from Python's, what ``strip_accents`` leaves of ``c``.

Usage: ``python scripts/generate_bert_tables.py`` (takes about half a minute; needs ``tokenizers``).
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

import tokenizers
from tokenizers import normalizers, pre_tokenizers

OUTPUT = Path(__file__).resolve().parent.parent / "hf_bpe" / "models" / "wordpiece" / "_bert_tables.py"
SURROGATES = range(0xD800, 0xE000)


def to_ranges(code_points: list[int]) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for cp in code_points:
        if ranges and cp == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    return ranges


def classify() -> tuple[dict[str, list[int]], dict[int, str], dict[int, str]]:
    clean = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=False, strip_accents=False, lowercase=False
    )
    strip = normalizers.BertNormalizer(
        clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=False
    )
    lower = normalizers.BertNormalizer(
        clean_text=False, handle_chinese_chars=False, strip_accents=False, lowercase=True
    )
    pre = pre_tokenizers.BertPreTokenizer()
    classes: dict[str, list[int]] = {"REMOVED": [], "WHITESPACE": [], "PUNCTUATION": [], "NONSPACING": []}
    lowercase: dict[int, str] = {}
    strip_accents: dict[int, str] = {}
    for cp in range(0x110000):
        if cp in SURROGATES:
            continue
        c = chr(cp)
        if clean.normalize_str("a" + c + "a") == "aa":
            classes["REMOVED"].append(cp)
        pieces = [piece for piece, _ in pre.pre_tokenize_str("a" + c + "a")]
        if pieces == ["a", "a"]:
            classes["WHITESPACE"].append(cp)
        elif pieces == ["a", c, "a"]:
            classes["PUNCTUATION"].append(cp)
        if unicodedata.normalize("NFD", c) == c and strip.normalize_str(c) == "":
            classes["NONSPACING"].append(cp)
        lowered = lower.normalize_str(c)
        if lowered != c.lower():
            lowercase[cp] = lowered
    nonspacing = set(classes["NONSPACING"])
    for cp in range(0x110000):
        c = chr(cp)
        if cp in SURROGATES or unicodedata.normalize("NFD", c) == c:
            continue
        stripped = strip.normalize_str(c)
        if stripped != "".join(x for x in unicodedata.normalize("NFD", c) if ord(x) not in nonspacing):
            strip_accents[cp] = stripped
    return classes, lowercase, strip_accents


def render(classes: dict[str, list[int]], lowercase: dict[int, str], strip_accents: dict[int, str]) -> str:
    lines = [
        '"""Code-point classes of tokenizers\' BertNormalizer and BertPreTokenizer (generated; do not edit).',
        "",
        f"Made by scripts/generate_bert_tables.py from tokenizers {tokenizers.__version__} (Python's unicodedata",
        f"{unicodedata.unidata_version}). Each ``*_RANGES`` table lists inclusive ``(first, last)`` code-point ranges;",
        "``LOWERCASE`` maps the characters whose reference lowercase differs from Python's ``str.lower``;",
        "``STRIP_ACCENTS`` those whose reference NFD differs from Python's, to what stripping accents leaves.",
        '"""',
        "",
    ]
    for name, code_points in classes.items():
        lines.append(f"{name}_RANGES: tuple[tuple[int, int], ...] = (")
        ranges = [f"(0x{a:X}, 0x{b:X})," for a, b in to_ranges(code_points)]
        for start in range(0, len(ranges), 5):
            lines.append("    " + " ".join(ranges[start : start + 5]))
        lines.append(")")
        lines.append("")
    lines.append("LOWERCASE: dict[int, str] = {")
    for cp, lowered in sorted(lowercase.items()):
        lines.append(f"    0x{cp:X}: {lowered!r},")
    lines.append("}")
    lines.append("")
    lines.append("STRIP_ACCENTS: dict[int, str] = {")
    for cp, stripped in sorted(strip_accents.items()):
        lines.append(f"    0x{cp:X}: {stripped!r},")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> int:
    classes, lowercase, strip_accents = classify()
    OUTPUT.write_text(render(classes, lowercase, strip_accents), encoding="utf-8")
    print(f"wrote {OUTPUT}: " + ", ".join(f"{name} {len(to_ranges(cps))} ranges" for name, cps in classes.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
