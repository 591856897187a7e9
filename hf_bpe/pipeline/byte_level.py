"""The byte-level alphabet, shared by the trainer, the encoders and the files.

This module owns GPT-2's byte↔unicode table, which spells each of the 256 byte values as one printable character
so that tokens can be stored as text in ``vocab.json`` and ``merges.txt``, and the conversions between text, bytes
and that spelling, and the ``ByteLevel`` component's ``tokenizer.json`` form. How text is cut into pre-tokens
before that is :mod:`hf_bpe.pipeline.pre_tokenizers`'s; counting, merging, file formats and the transformers class
live elsewhere.
"""

from __future__ import annotations

from typing import Any


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's table from byte values to the characters that spell them in vocab files.

    Bytes that are printable and not white space in Latin-1 stand for themselves; the other 68 are given the
    code points from U+0100 upward, in byte order.

    Returns:
        A dict from each of the 256 byte values to a one-character string.

    >>> table = bytes_to_unicode()
    >>> table[ord("a")], table[ord(" ")], table[ord("\\n")], table[0xFF]
    ('a', 'Ġ', 'Ċ', 'ÿ')
    """
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    table = {byte: chr(byte) for byte in printable}
    unprintable = (byte for byte in range(256) if byte not in table)
    for offset, byte in enumerate(unprintable):
        table[byte] = chr(0x100 + offset)
    return dict(sorted(table.items()))


BYTE_TO_UNICODE: dict[int, str] = bytes_to_unicode()
UNICODE_TO_BYTE: dict[str, int] = {char: byte for byte, char in BYTE_TO_UNICODE.items()}
#: The 256 characters of the byte-level alphabet, sorted by code point (``tokenizers``' ``ByteLevel.alphabet()``).
BYTE_ALPHABET: tuple[str, ...] = tuple(sorted(BYTE_TO_UNICODE.values()))

# str.translate tables: byte string (decoded as Latin-1) → byte-level spelling, and back.
_LATIN1_TO_BYTE_LEVEL = {byte: char for byte, char in BYTE_TO_UNICODE.items()}
_BYTE_LEVEL_TO_LATIN1 = {ord(char): byte for byte, char in BYTE_TO_UNICODE.items()}


def replace_surrogates(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD, as tiktoken does before encoding.

    A surrogate pair spelled as two code points becomes the character it encodes, again as in tiktoken
    (both go through UTF-16). Text without surrogates is returned as is.

    >>> replace_surrogates("a" + chr(0xD800) + "b"), replace_surrogates(chr(0xD83D) + chr(0xDE00))
    ('a�b', '😀')
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def to_byte_level(text: str) -> str:
    """Spell ``text``'s UTF-8 bytes with the byte-level alphabet.

    Lone surrogates are encoded as U+FFFD (see :func:`replace_surrogates`), so any Python string works.

    >>> to_byte_level(" héllo")
    'ĠhÃ©llo'
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = replace_surrogates(text).encode("utf-8")
    return data.decode("latin-1").translate(_LATIN1_TO_BYTE_LEVEL)


def from_byte_level(token: str) -> bytes:
    """The bytes a byte-level token stands for.

    Raises:
        ValueError: if ``token`` has a character outside the byte-level alphabet.

    >>> from_byte_level("ĠhÃ©llo").decode()
    ' héllo'
    """
    latin1 = token.translate(_BYTE_LEVEL_TO_LATIN1)
    try:
        return latin1.encode("latin-1")
    except UnicodeEncodeError as e:
        bad = token[e.start]
        raise ValueError(f"{token!r} has {bad!r} (U+{ord(bad):04X}), which is not a byte-level character") from e


def byte_level_json(
    *, add_prefix_space: bool = True, trim_offsets: bool = True, use_regex: bool = True
) -> dict[str, Any]:
    """``ByteLevel`` as ``tokenizer.json`` holds it: one object for the pre-tokenizer, the post-processor and the
    decoder (``tokenizers`` writes the three alike, defaults included)."""
    return {
        "type": "ByteLevel",
        "add_prefix_space": add_prefix_space,
        "trim_offsets": trim_offsets,
        "use_regex": use_regex,
    }
