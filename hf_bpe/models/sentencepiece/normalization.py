"""SentencePiece's normalization as ``spm_train`` applies it to each sentence (``normalizer::Normalizer::Normalize``,
sentencepiece 0.2.3): the rule's precompiled character map, matched longest-first on the sentence's bytes, then the
white-space handling (extra spaces removed, the dummy prefix, spaces escaped as ``▁``).

The rules ``nmt_nfkc`` (sentencepiece's default), ``nfkc``, ``nmt_nfkc_cf`` and ``nfkc_cf`` are defined by the
charsmaps sentencepiece compiled into itself; hf_bpe carries no copy of them. :func:`rule_charsmap` takes the
rule's bytes from the installed ``sentencepiece`` package (an optional dependency) when a model is trained with
one; ``identity`` has no charsmap and needs nothing. Reading the charsmap's darts-clone trie is the pipeline's
(:class:`hf_bpe.pipeline.normalizers.Precompiled`); this module matches it as sentencepiece's own normalizer does,
which differs from tokenizers' ``Precompiled`` twin: the longest key at each byte, not the shortest key of each
grapheme.
"""

from __future__ import annotations

import dataclasses
import re
from functools import cache

import regex

from hf_bpe.models.sentencepiece.model_proto import NormalizerSpec, parse_model_proto
from hf_bpe.pipeline.normalizers import Precompiled

#: sentencepiece's white-space symbol (U+2581), what ``escape_whitespaces`` writes for a space.
WS = "\u2581"
#: The rules whose charsmap comes from sentencepiece, and the one without a charsmap.
CHARSMAP_RULES = ("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf")
RULES = (*CHARSMAP_RULES, "identity")

_EXTRA_SPACES = regex.compile(" {2,}")
_ESCAPED = regex.compile("[\udc80-\udcff]")
#: darts-clone's unit fields: a label (with the leaf flag, so that a value unit matches no byte), an offset.
_LABEL_MASK = (1 << 31) | 0xFF
_VALUE_MASK = (1 << 31) - 1
_LEAD_BYTES = (*range(0x01, 0x80), *range(0xC2, 0xF5))
_CONTINUATION_BYTES = tuple(range(0x80, 0xC0))


@cache
def rule_charsmap(rule: str) -> bytes:
    """The ``precompiled_charsmap`` ``spm_train`` writes for ``normalization_rule_name=rule`` (empty for identity).

    The bytes are sentencepiece's own (``normalizer::Builder::GetPrecompiledCharsMap``), read from the normalizer
    spec its ``SentencePieceNormalizer(rule_name=...)`` builds; cached per rule for the process.

    Raises:
        ValueError: naming a rule sentencepiece does not have.
        ModuleNotFoundError: naming the rule and ``pip install sentencepiece`` where that package is missing.

    >>> rule_charsmap("identity")
    b''
    >>> len(rule_charsmap("nmt_nfkc")) > 100_000
    True
    """
    if rule not in RULES:
        raise ValueError(f"sentencepiece option normalization_rule_name={rule!r} is not a rule ({', '.join(RULES)})")
    if rule == "identity":
        return b""
    try:
        import sentencepiece
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(
            f"sentencepiece option normalization_rule_name={rule!r}: the rule's character map is taken from the "
            "sentencepiece package, which is not installed: pip install 'hf-bpe[sentencepiece]' (or sentencepiece; "
            "the 'identity' rule needs nothing)",
            name=e.name,
        ) from e
    proto = sentencepiece.SentencePieceNormalizer(rule_name=rule).serialized_model_proto()
    return parse_model_proto(proto).normalizer_spec.precompiled_charsmap


@cache
def _charsmap_trie(charsmap: bytes) -> Precompiled:
    """The charsmap read once per process; refused where this module's white-space shortcut would not be exact."""
    trie = Precompiled.from_charsmap(charsmap)
    # Normalize drops only the leading spaces of each replacement; with no replacement holding two spaces in a row
    # that is exactly collapsing the spaces of the joined text, which is what Normalizer.normalize does.
    if b"  " in trie.replacements:
        raise ValueError("a sentencepiece charsmap with a replacement holding two spaces in a row is not implemented")
    return trie


@dataclasses.dataclass
class Normalizer:
    """``normalizer::Normalizer`` for one normalizer spec (and the trainer's ``treat_whitespace_as_suffix``).

    >>> Normalizer(NormalizerSpec(name="nmt_nfkc", precompiled_charsmap=rule_charsmap("nmt_nfkc"))).normalize(
    ...     "  ＨＥＬＬＯ\\u00a0 ﬁne\\u3000"
    ... )
    '▁HELLO▁fine'
    """

    spec: NormalizerSpec
    treat_whitespace_as_suffix: bool = False
    _trie: Precompiled | None = dataclasses.field(init=False, repr=False)
    _root: int = dataclasses.field(init=False, repr=False)
    _steps: dict[tuple[int, str], tuple[int, int] | None] = dataclasses.field(init=False, repr=False)
    _texts: dict[int, str] = dataclasses.field(init=False, repr=False)

    def __post_init__(self) -> None:
        charsmap = self.spec.precompiled_charsmap
        self._trie = _charsmap_trie(charsmap) if charsmap else None
        units = self._trie.units if self._trie is not None else (0,)
        self._root = (units[0] >> 10) << ((units[0] & (1 << 9)) >> 6)
        self._steps = {}
        self._texts = {}

    def normalize(self, text: str) -> str:
        """``Normalizer::Normalize`` of ``text``, whose lone surrogates ``\\udc80``-``\\udcff`` stand for malformed
        bytes (``surrogateescape``): each becomes U+FFFD, as ``NormalizePrefix`` consumes one byte of them."""
        spec = self.spec
        mapped, blank = self._map(text)
        if spec.remove_extra_whitespaces:
            if blank:  # "Ignores heading space": every prefix normalized to " " (or nothing to read at all)
                return ""
            mapped = _EXTRA_SPACES.sub(" ", mapped.lstrip(" "))
        elif not text:
            return ""
        space = WS if spec.escape_whitespaces else " "
        out = mapped.replace(" ", space)
        if spec.add_dummy_prefix and not self.treat_whitespace_as_suffix:
            out = space + out
        if spec.remove_extra_whitespaces:
            # The reference strips trailing escaped spaces, a literal U+2581 in the text included.
            while out.endswith(space):
                out = out[: -len(space)]
        if spec.add_dummy_prefix and self.treat_whitespace_as_suffix:
            out += space
        return out

    def _map(self, text: str) -> tuple[str, bool]:
        """The text with each prefix replaced as ``NormalizePrefix`` replaces it (the longest key of the charsmap
        that the text at that byte starts with, else the character itself), and whether every prefix became one
        space. Only where :func:`_key_starts` finds that a key may start is the trie walked."""
        if self._trie is None:
            mapped = text
            blank = not text.strip(" ")
        elif text.isascii() and (table := _ascii_table(self.spec.precompiled_charsmap)) is not None:
            # Each ASCII character is a whole key or none (no key goes on after one): str.translate in C does it.
            blank = all(c == " " or table.get(ord(c)) == " " for c in set(text))
            return text.translate(table), blank
        else:
            out: list[str] = []
            blank = True
            pos, n = 0, len(text)
            starts = _key_starts(self.spec.precompiled_charsmap)
            while pos < n:
                found = starts.search(text, pos)
                start = n if found is None else found.start()
                if start > pos:  # no key starts in between: each character stands for itself
                    out.append(text[pos:start])
                    blank = blank and not text[pos:start].strip(" ")
                    pos = start
                    continue
                end, value = self._longest(text, start)
                piece = text[start] if end < 0 else self._text(value)
                out.append(piece)
                blank = blank and piece == " "
                pos = start + 1 if end < 0 else end
            mapped = "".join(out)
        # A malformed byte (its surrogate escape) starts no key and is read as U+FFFD.
        return _ESCAPED.sub("\ufffd", mapped), blank

    def _longest(self, text: str, start: int) -> tuple[int, int]:
        """The end (in characters) and value of the longest key ``text[start:]`` starts with; (-1, -1) if none:
        the last of darts-clone's ``commonPrefixSearch`` results, walked a character at a time."""
        node, end, value = self._root, -1, -1
        for j in range(start, len(text)):
            step = self._step(node, text[j])
            if step is None:
                break
            node, leaf = step
            if leaf >= 0:
                end, value = j + 1, leaf
        return end, value

    def _step(self, node: int, char: str) -> tuple[int, int] | None:
        """The trie node after ``char``'s UTF-8 bytes from ``node`` and the value of the key ending there (-1: none);
        None where no key goes on that way. Cached per (node, character)."""
        key = (node, char)
        if key in self._steps:
            return self._steps[key]
        result: tuple[int, int] | None = None
        if not "\ud800" <= char <= "\udfff":  # a malformed byte or a surrogate starts no key (keys are UTF-8)
            result = _walk(self._trie.units if self._trie is not None else (), node, char.encode("utf-8"))
        self._steps[key] = result
        return result

    def _text(self, value: int) -> str:
        """The NUL-terminated replacement at byte ``value`` of the charsmap's texts."""
        text = self._texts.get(value)
        if text is None:
            assert self._trie is not None
            text = self._texts[value] = _replacement(self._trie.replacements, value)
        return text


def _offset(unit: int) -> int:
    return (unit >> 10) << ((unit & (1 << 9)) >> 6)


def _children(units: tuple[int, ...], node: int) -> dict[str, tuple[int, int]]:
    """Each character a key goes on with from ``node``: the node after it and the value of a key ending there (-1:
    none). The trie is walked over the bytes UTF-8 allows (NUL never: darts-clone's keys hold none)."""
    out: dict[str, tuple[int, int]] = {}
    stack: list[tuple[int, bytes, int]] = [(node, b"", 0)]
    while stack:
        parent, prefix, size = stack.pop()
        for byte in _CONTINUATION_BYTES if prefix else _LEAD_BYTES:
            child = parent ^ byte
            if child >= len(units) or units[child] & _LABEL_MASK != byte:
                continue
            unit = units[child]
            after = child ^ _offset(unit)
            key = prefix + bytes((byte,))
            total = size or (1 if byte < 0x80 else 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4)
            if len(key) < total:
                stack.append((after, key, total))
            else:  # a key's path is UTF-8 (the builder's keys are Unicode text)
                out[key.decode("utf-8")] = (after, units[after] & _VALUE_MASK if (unit >> 8) & 1 else -1)
    return out


@cache
def _key_starts(charsmap: bytes) -> re.Pattern[str]:
    """Where a key of ``charsmap`` may start: a character that is a key, or one that a longer key starts with
    followed by a character such a key goes on with. Elsewhere the text stands for itself, so only these places
    are walked (a fraction of the characters: most keys longer than one character end in combining marks)."""
    units = _charsmap_trie(charsmap).units
    first = _children(units, _offset(units[0]))
    keys = [char for char, (_, leaf) in first.items() if leaf >= 0]
    longer: list[str] = []
    seconds: set[str] = set()
    for char, (node, _) in first.items():
        following = _children(units, node)
        if following:
            longer.append(char)
            seconds.update(following)
    pattern = _char_class(keys)
    if longer:
        pattern += f"|{_char_class(longer)}(?={_char_class(sorted(seconds))})"
    # re, not regex: re's compiled character sets test a character in constant time, regex's went 1.6 s per MB.
    return re.compile(pattern)


@cache
def _ascii_table(charsmap: bytes) -> dict[int, str] | None:
    """What ``charsmap`` makes of each ASCII character that is a key (``str.translate``'s table: nmt_nfkc's
    control characters, the case-folding rules' capitals), or None where a longer key goes on from an ASCII
    character with another: then ASCII text must be walked. ASCII text holds no other key (one starting with a
    non-ASCII character, or going on with one, never matches there)."""
    trie = _charsmap_trie(charsmap)
    units = trie.units
    table: dict[int, str] = {}
    for char, (node, leaf) in _children(units, _offset(units[0])).items():
        if not char.isascii():
            continue
        if any(following.isascii() for following in _children(units, node)):
            return None  # a longer key may match in ASCII text (others go on with combining marks: never there)
        if leaf >= 0:
            table[ord(char)] = _replacement(trie.replacements, leaf)
    return table


def _replacement(data: bytes, value: int) -> str:
    """The NUL-terminated replacement text at byte ``value`` of a charsmap's texts."""
    end = data.find(b"\0", value)
    return data[value : len(data) if end < 0 else end].decode("utf-8")


def _char_class(chars: list[str]) -> str:
    """A character class of ``chars``: the ones of the Basic Multilingual Plane apart, where ``re`` tests a set in
    one look-up (a set holding a character above it is a list of ranges searched in turn), the others as ranges."""
    codes = sorted(map(ord, chars))
    ranges: list[list[int]] = []
    for code in codes:
        if ranges and ranges[-1][1] == code - 1 and (code > 0xFFFF) == (ranges[-1][0] > 0xFFFF):
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    classes = [
        # the astral set behind a one-range test, so that most characters never reach its list
        ("(?=[\\U00010000-\\U0010ffff])" if upper else "")
        + "["
        + "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in ranges if (low > 0xFFFF) == upper)
        + "]"
        for upper in (False, True)
        if any((low > 0xFFFF) == upper for low, _ in ranges)
    ]
    return f"(?:{'|'.join(classes)})" if classes else "(?!)"


def _walk(units: tuple[int, ...], node: int, data: bytes) -> tuple[int, int] | None:
    """darts-clone's ``commonPrefixSearch`` step over ``data``: the node reached and the value of a key ending
    exactly there (-1: none), or None where a byte has no child (a NUL byte never has one)."""
    leaf = -1
    for byte in data:
        if byte == 0:
            return None
        node ^= byte
        unit = units[node]
        if unit & ((1 << 31) | 0xFF) != byte:
            return None
        node ^= (unit >> 10) << ((unit & (1 << 9)) >> 6)
        leaf = units[node] & ((1 << 31) - 1) if (unit >> 8) & 1 else -1
    return node, leaf
