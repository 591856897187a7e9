"""Regenerate ``hf_bpe/pipeline/_regex/disagreements.py``: where the installed ``regex`` module's Unicode classes differ
from the reference engines' (``hf_bpe/pipeline/_regex/unicode_classes.py``).

hf_bpe splits with ``regex``'s own classes corrected by these code points (see ``hf_bpe/pipeline/pre_tokenizers.py``).
Finding them means classifying every code point once per class, about a second each; the file stores the result
for one ``regex`` version, which hf_bpe reads instead when that version is installed (any other version computes
them at first use). Run it after upgrading ``regex`` or regenerating the reference tables:

    python scripts/generate_regex_disagreements.py
"""

from __future__ import annotations

from pathlib import Path

import regex
from generate_unicode_tables import to_ranges  # this folder is on the path when the script runs

from hf_bpe.pipeline._regex.dialect import ALL_CLASS_NAMES, CLASS_NAMES, compute_disagreement

OUTPUT = Path(__file__).resolve().parent.parent / "hf_bpe" / "pipeline" / "_regex" / "disagreements.py"
ENGINES = ("tokenizers", "tiktoken")


def spelled(ranges: list[tuple[int, int]], indent: str) -> str:
    """The ranges as a tuple literal, five per line."""
    if not ranges:
        return "()"
    cells = [f"(0x{first:X}, 0x{last:X})," for first, last in ranges]
    lines = [" ".join(cells[i : i + 5]) for i in range(0, len(cells), 5)]
    return "(\n" + "".join(f"{indent}    {line}\n" for line in lines) + f"{indent})"


def main() -> None:
    out = [
        '"""Where the ``regex`` module\'s Unicode classes differ from the references\' (generated; do not edit).',
        "",
        f"Made by scripts/generate_regex_disagreements.py with regex {regex.__version__}, from the tables in",
        "``unicode_classes.py``. For each engine and class: ``(too_many, too_few)``, inclusive code-point ranges that",
        "``regex``'s class has and the engine's lacks, and the other way round; tiktoken's only where they are not",
        "tokenizers'.",
        '"""',
        "",
        f"REGEX_VERSION = {regex.__version__!r}",
        "",
        "DISAGREEMENTS: dict[str, dict[str, tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]]] = {",
    ]
    for engine in ENGINES:
        out.append(f"    {engine!r}: {{")
        for name in ALL_CLASS_NAMES if engine == "tokenizers" else CLASS_NAMES:
            _own, too_many, too_few = compute_disagreement(name, engine)
            if engine != "tokenizers" and compute_disagreement(name) == (_own, too_many, too_few):
                continue
            indent = " " * 12
            out.append(f"        {name!r}: (")
            out.append(f"{indent}{spelled(to_ranges(too_many), indent)},")
            out.append(f"{indent}{spelled(to_ranges(too_few), indent)},")
            out.append("        ),")
        out.append("    },")
    out.append("}")
    OUTPUT.write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"wrote {OUTPUT} (regex {regex.__version__})")


if __name__ == "__main__":
    main()
