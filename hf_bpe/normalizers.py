"""Text normalizers as ``tokenizers`` applies them, character for character.

This module owns how text is normalized before it is split (today: lowercasing for char-level BPE); splitting
and counting are :mod:`hf_bpe.counting`'s job.

``tokenizers``' ``Lowercase`` normalizer lowercases each character on its own with Rust's Unicode tables. Python's
``str.lower()`` differs in two ways: it lowers a word-final ``Σ`` to ``ς`` (the reference: always ``σ``), and it
follows an older Unicode, so some 55 recently encoded capitals (U+1C89, U+A7CB, U+10D50-U+10D65,
U+16EA0-U+16EB8, ...) stay as they are. ``hf_bpe/_lowercase_table.py``, generated from the reference by
``scripts/generate_lowercase_table.py``, lists those characters with the reference's lowercase.
(``İ``, U+0130, lowers to two code points, ``i`` and U+0307, in both.)
"""

from __future__ import annotations

from hf_bpe._lowercase_table import LOWERCASE

# Each entry is already lowercase to Python, so str.lower() after the table leaves it alone.
_TABLE = {cp: lowered for cp, lowered in LOWERCASE.items()}


def lowercase(text: str) -> str:
    """Lowercase ``text`` as ``tokenizers.normalizers.Lowercase`` does.

    >>> lowercase("ΟΔΟΣ İstanbul")
    'οδοσ i̇stanbul'
    >>> "ΟΔΟΣ".lower()
    'οδος'
    """
    if text.isascii():
        return text.lower()
    return text.translate(_TABLE).lower()
