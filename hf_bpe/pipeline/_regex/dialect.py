"""The references' regex dialect: a split pattern rewritten so that the ``regex`` module matches what
``tokenizers`` (Oniguruma) or tiktoken (``fancy-regex``) would.

The ``regex`` module knows a newer Unicode than both references, so each class escape (``\\p{L}``, ``\\s``, ...)
is spelled with the code points the reference's own table gives (:mod:`.unicode_classes`, with the differences
stored in :mod:`.disagreements`); a pattern also gets an ASCII form for ``re`` (the fast path on ASCII text) and a
guard, the characters on which its plain form and the reference's differ. :class:`Splitter` runs one pattern.
What the patterns are, and how a pre-tokenizer uses them, is :mod:`hf_bpe.pipeline.pre_tokenizers`'s.
"""

from __future__ import annotations

import array
import functools
import re
import sys
from collections.abc import Iterable, Iterator
from typing import Any

import regex

from hf_bpe.pipeline._regex import disagreements as _regex_disagreements


def _code_points(ranges: Iterable[tuple[int, int]]) -> str:
    """All code points of ``ranges`` as one string (built through UTF-32: 20x faster than ``chr`` per point)."""
    points = array.array("I")
    for first, last in ranges:
        points += array.array("I", range(first, last + 1))
    return points.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")


@functools.cache
def _all_code_points() -> str:
    return _code_points([(0, 0xD7FF), (0xE000, 0x10FFFF)])


def _escape_ranges(code_points: Iterable[int]) -> str:
    """A character-class body listing ``code_points`` as ``\\U........`` escapes and ranges."""
    ranges: list[list[int]] = []
    for cp in sorted(code_points):
        if ranges and cp == ranges[-1][1] + 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return "".join(f"\\U{a:08X}" if a == b else f"\\U{a:08X}-\\U{b:08X}" for a, b in ranges)


#: The classes both references' tables cover: ``\p{...}`` names, and ``s``, ``w``, ``d`` for ``\s``, ``\w``, ``\d``.
CLASS_NAMES = ("L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "N", "P", "S", "s", "w", "d")

#: The POSIX bracket names Oniguruma knows (``[[:alpha:]]``; ``\p{Alpha}`` is the same class but for ``punct``
#: and ``word``, see :data:`ONIGURUMA_CLASSES`).
POSIX_NAMES: tuple[str, ...] = ("alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print")
POSIX_NAMES += ("punct", "space", "upper", "xdigit", "word")

#: The classes only ``tokenizers``' table covers, each with Oniguruma's spelling (what the generator asks it) and
#: the ``regex`` module's (what :func:`_reference_class` corrects). Oniguruma reads a class differently in a set:
#: ``\w`` alone matches U+00B2, U+00B3, U+00B9 and U+00BC-U+00BE (its Latin-1 ctype table), ``[\w]`` does not
#: (its Unicode code ranges), so ``[w]`` is ``\w`` in a set (and ``[\p{Word}]``, ``[[:word:]]``). ``h`` is
#: Oniguruma's ``\h``, a hexadecimal digit (``regex``'s is horizontal space). ``Punct`` is ``\p{Punct}``, which
#: unlike ``[[:punct:]]`` leaves out the symbols.
ONIGURUMA_CLASSES: dict[str, tuple[str, str]] = {
    "[w]": (r"[\w]", r"\w"),
    "h": (r"\h", "[0-9A-Fa-f]"),
    "Punct": (r"\p{Punct}", r"\p{Punct}"),
    **{f"[:{name}:]": (f"[[:{name}:]]", f"[[:{name}:]]") for name in POSIX_NAMES},
}

#: Every class :mod:`.unicode_classes` holds for ``tokenizers``.
ALL_CLASS_NAMES = CLASS_NAMES + tuple(ONIGURUMA_CLASSES)


def _class_escape(name: str) -> str:
    """The ``regex`` module's spelling of class ``name`` (:data:`ALL_CLASS_NAMES`): ``\\p{L}``, ``\\s`` for ``s``."""
    if name in ONIGURUMA_CLASSES:
        return ONIGURUMA_CLASSES[name][1]
    return f"\\{name}" if name in ("s", "w", "d") else rf"\p{{{name}}}"


def oniguruma_spelling(name: str) -> str:
    """Oniguruma's spelling of class ``name`` (:data:`ALL_CLASS_NAMES`), alone as a whole pattern.

    >>> oniguruma_spelling("[w]"), oniguruma_spelling("Lu"), oniguruma_spelling("[:alpha:]")
    ('[\\\\w]', '\\\\p{Lu}', '[[:alpha:]]')
    """
    return ONIGURUMA_CLASSES[name][0] if name in ONIGURUMA_CLASSES else _class_escape(name)


@functools.cache
def _disagreement(name: str, engine: str = "tokenizers") -> tuple[str, frozenset[int], frozenset[int]]:
    """``(own, too_many, too_few)``: the ``regex`` module's own spelling of class ``name`` and the code points it
    has and the reference ``engine``'s class lacks, and the other way round.

    Read from ``_regex_disagreements.py`` when the installed ``regex`` is the version that file was made with
    (computing it takes about a second per class: every code point is classified); computed otherwise.
    """
    own = _class_escape(name)
    if regex.__version__ == _regex_disagreements.REGEX_VERSION:
        stored = _regex_disagreements.DISAGREEMENTS
        too_many, too_few = stored[engine].get(name) or stored["tokenizers"][name]
        return own, frozenset(_range_points(too_many)), frozenset(_range_points(too_few))
    return compute_disagreement(name, engine)


def _range_points(ranges: Iterable[tuple[int, int]]) -> Iterator[int]:
    for first, last in ranges:
        yield from range(first, last + 1)


def compute_disagreement(name: str, engine: str = "tokenizers") -> tuple[str, frozenset[int], frozenset[int]]:
    """:func:`_disagreement` computed in bulk: every code point classified by the installed ``regex`` and
    compared with the reference's table (what ``scripts/generate_regex_disagreements.py`` stores)."""
    from hf_bpe.pipeline._regex import unicode_classes as _unicode_tables  # 100 kB of tables, needed only here

    tables = _unicode_tables.TIKTOKEN_CLASSES if engine == "tiktoken" else {}
    reference = _code_points(tables.get(name) or _unicode_tables.CLASSES[name])
    own = _class_escape(name)
    current = set(regex.findall(own, _all_code_points()))
    wanted = set(reference)
    return own, frozenset(ord(c) for c in current - wanted), frozenset(ord(c) for c in wanted - current)


@functools.cache
def _reference_class(name: str, engine: str = "tokenizers") -> str:
    r"""A ``regex`` set body (VERSION1) matching exactly the class ``name`` of the reference ``engine``.

    It is the ``regex`` module's own property, fast to match, corrected by the code points on which its Unicode
    version and the reference's disagree (characters assigned since; for ``\w``, also the engines' definitions).
    """
    own, too_many, too_few = _disagreement(name, engine)
    body = own
    if too_many:
        body = f"[{own}--[{_escape_ranges(too_many)}]]"
    if too_few:
        body = f"{body}[{_escape_ranges(too_few)}]"
    return body


#: A class escape (``\\p{L}``, ``\\P{^L}``, ``\\w``, ``\\H``, ...), a POSIX bracket (``[:alpha:]``, ``[:^word:]``: a
#: class only inside a set), or any other escaped character (so that ``\\\\w`` is never read as ``\\w``).
_ESCAPE = regex.compile(r"\\(?:([pP])\{(\^?)(\w+)\}|([sSwWdDhH]))|\[:(\^?)(\w+):\]|\\.", flags=regex.DOTALL)


class UnsupportedConstruct(ValueError):
    """A pattern construct whose matches hf_bpe cannot make exactly the reference engine's: refused by name."""


def _class_of(match: regex.Match[str], in_set: bool, engine: str) -> tuple[str, bool] | None:
    """``(name, negated)``: the class (:data:`ALL_CLASS_NAMES`) an :data:`_ESCAPE` match stands for, read inside a
    set or not, as ``engine`` reads it; None where it is not a class the tables cover (left to ``regex``).

    Raises:
        UnsupportedConstruct: for a class ``engine`` does not read as Oniguruma does and hf_bpe has no table of.
    """
    if match.group(6) is not None:  # [:name:] outside a set is a set of its letters, as Oniguruma reads it
        if not in_set or match.start() == 0:
            return None
        name, negated = match.group(6), bool(match.group(5))
        if name not in POSIX_NAMES:
            raise UnsupportedConstruct(f"[:{name}:] is no POSIX bracket Oniguruma knows ({', '.join(POSIX_NAMES)})")
        key = f"[:{name}:]"
    elif match.group(4):  # \s, \w, \d, \h or their negations
        key, negated = match.group(4).lower(), match.group(4).isupper()
        key = "[w]" if key == "w" and in_set else key
    elif match.group(1):
        name, negated = match.group(3), (match.group(1) == "P") != bool(match.group(2))
        # Oniguruma's property names ignore case and "_" (\p{XDigit}, \p{xdigit}); a general category is kept.
        loose = name.lower().replace("_", "")
        if name in CLASS_NAMES:
            key = name
        elif loose == "word":
            key = "[w]" if in_set else "w"
        elif loose == "punct":
            key = "Punct"
        elif loose in POSIX_NAMES:
            key = f"[:{loose}:]"
        else:
            return None
    else:
        return None
    return _engine_class(key, match.group(), engine), negated


def _engine_class(key: str, spelled: str, engine: str) -> str:
    """Class ``key`` as ``engine`` has it: tiktoken's Rust ``regex`` reads ``\\w`` alike in and out of a set, and
    hf_bpe has no table of its other classes (``\\h`` is an error there, POSIX brackets ASCII-only)."""
    if engine != "tiktoken" or key in CLASS_NAMES:
        return key
    if key == "[w]":
        return "w"
    raise UnsupportedConstruct(f"{spelled} is not supported in a tiktoken pattern (hf_bpe has no table of it)")


def _atoms(pattern: str) -> list[tuple[str, str]]:
    """Cut a pattern into top-level ``(kind, text)`` tokens: ``"set"`` ``[...]``, ``"group"`` ``(...)``,
    ``"escape"``, ``"quantifier"``, ``"anchor"`` (unescaped ``^``/``$``), ``"char"``."""
    out: list[tuple[str, str]] = []
    i = 0
    n = len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\":
            match = _ESCAPE.match(pattern, i)
            end = match.end() if match else i + 2
            out.append(("escape", pattern[i:end]))
            i = end
        elif char == "[":
            end = _set_end(pattern, i)
            out.append(("set", pattern[i:end]))
            i = end
        elif char == "(":
            end = _group_end(pattern, i)
            out.append(("group", pattern[i:end]))
            i = end
        elif char == "{" and regex.match(r"\{\d+(?:,\d*)?\}", pattern[i:]):
            end = pattern.index("}", i) + 1
            if end < n and pattern[end] in "+?":
                end += 1
            out.append(("quantifier", pattern[i:end]))
            i = end
        elif char in "*+?":
            end = i + 1
            if end < n and pattern[end] in "+?":
                end += 1
            out.append(("quantifier", pattern[i:end]))
            i = end
        elif char in "^$":
            out.append(("anchor", char))
            i += 1
        else:
            out.append(("char", char))
            i += 1
    return out


def _set_end(pattern: str, start: int) -> int:
    """The index just past the set opening at ``start`` (nested sets and escapes inside it allowed)."""
    return _bracket_end(pattern, start, "[", "]")


def _group_end(pattern: str, start: int) -> int:
    """The index just past the group opening at ``start`` (nested groups, sets and escapes inside it allowed)."""
    return _bracket_end(pattern, start, "(", ")")


def _bracket_end(pattern: str, start: int, opening: str, closing: str) -> int:
    """The index just past the ``opening`` bracket at ``start`` and its nested ones; an escaped character
    counts for nothing, a set inside a group is skipped whole, and a ``]`` right after a set's ``[`` or ``[^`` is
    a literal."""
    depth = 0
    i = start
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "[" and opening == "(":
            i = _set_end(pattern, i)
            continue
        if char == opening:
            depth += 1
            if opening == "[":  # a "]" first in a set is a literal: step onto it, and the loop's step passes it
                i += 1 if pattern.startswith("[]", i) else 2 if pattern.startswith("[^]", i) else 0
        elif char == closing:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    what = "unterminated character set" if opening == "[" else "unbalanced parenthesis"
    raise ValueError(f"{what} at position {start} of {pattern!r}")


def _rewrite(pattern: str, engine: str, target: str, caseless: bool = False) -> str:
    """``pattern``, read as ``engine`` reads it, spelled for ``target``: ``"oniguruma"`` (``tokenizers``' engine),
    ``"python"`` (the ``regex`` module, VERSION1, with the references' Unicode classes), ``"python-own"`` (the
    same with ``regex``'s own classes, which agree with the references' on ASCII) or ``"ascii"`` (for ``re``, on
    ASCII text only: see :func:`_ascii_form`). For Python, capturing groups become non-capturing (``findall``
    must return whole matches). ``caseless``: the pattern is read case-insensitively (``(?i)`` around it)."""
    out: list[str] = []
    python = target != "oniguruma"
    for kind, text in _atoms(pattern):
        inner = _caseless_within(text, caseless) if kind == "group" else caseless
        if kind == "group" and regex.fullmatch(r"\(\?[a-zA-Z-]*\)", text):
            out.append(text)  # inline flags, to the end of the enclosing group in all three engines
            caseless = inner
        elif kind == "group":
            head = regex.match(r"\((?:\?(?:[:=!>]|<[=!]|[a-zA-Z-]*:|P?<\w+>))?", text)
            assert head is not None  # every group starts with "("
            opening = "(?:" if python and head.group() == "(" else head.group()
            out.append(opening + _rewrite(text[head.end() : -1], engine, target, inner) + ")")
        elif kind == "quantifier" and text.startswith("{") and text.endswith("}+") and out:
            # An interval followed by "+": possessive to tiktoken's engine (and to regex), but a greedy interval
            # repeated one or more times to Oniguruma.
            atom = out.pop()
            interval = text[:-1]
            out.append(f"(?>{atom}{interval})" if engine == "tiktoken" else f"(?:{atom}{interval})+")
        elif kind == "anchor":
            if engine == "tiktoken":  # Rust regex: the text's start or end (no multi-line mode)
                out.append(r"\A" if text == "^" else r"\Z" if python else r"\z")
            elif python:  # Oniguruma (Ruby syntax): a line's start or end
                out.append(r"(?:(?<=\n)|\A)" if text == "^" else r"(?=\n|\Z)")
            else:
                out.append(text)
        elif python and kind == "escape" and text in ("\\b", "\\B"):
            out.append(_word_boundary(text, engine) if target == "python" else text)
        elif target in ("python", "python-own") and kind in ("escape", "set"):
            out.append(_with_reference_classes(text, engine, own=target == "python-own", caseless=caseless))
        elif target == "ascii" and kind in ("escape", "set"):
            out.append(_ascii_set(text, engine, caseless))
        elif target == "ascii" and not text.isascii():
            raise _NoAsciiForm(text)
        else:
            out.append(text)
    return "".join(out)


def _with_reference_classes(text: str, engine: str, *, own: bool = False, caseless: bool = False) -> str:
    """An escape or a set (``text``) with each class escape and POSIX bracket replaced by ``engine``'s class (``own``:
    by ``regex``'s own spelling of it, which differs only where the guard looks: ``\\p{XDigit}`` is
    ``[[:xdigit:]]``, ``\\h`` is ``[0-9A-Fa-f]``).

    Read ``caseless``, a bare class keeps its case (Oniguruma does not fold ``\\p{Lu}``: ``(?-i:...)``), and a set
    holding a class with cased characters is refused: Oniguruma folds such a set (``[\\p{Lu}]``) by its own
    case-fold closure, which is not reproduced.

    Raises:
        UnsupportedConstruct: naming the class.
    """
    in_set = text.startswith("[")

    def replace(match: regex.Match[str]) -> str:
        found = _class_of(match, in_set, engine)
        if found is None:
            return match.group()
        name, negated = found
        if caseless and in_set and name not in _CASELESS_SAFE:
            raise UnsupportedConstruct(
                f"the set {text} matches the class {match.group()} case-insensitively (under (?i)), which the "
                "engines read differently (Oniguruma folds the case of a set's classes by its own case-fold closure; "
                "it matches a class alone by its case): write the class outside the set, or keep (?i: ...) "
                "around literals only, as the presets do: (?i:'s|'t|'re)"
            )
        body = _class_escape(name) if own else _reference_class(name, engine)
        spelled = f"[{'^' if negated else ''}{body}]"
        return f"(?-i:{spelled})" if caseless and not in_set else spelled

    return _ESCAPE.sub(replace, text)


#: The classes with no cased character, which Oniguruma reads alike with or without (?i) in a set.
_CASELESS_SAFE = frozenset({"s", "d", "[:digit:]", "[:space:]", "[:blank:]", "[:cntrl:]"})


def _word_boundary(text: str, engine: str) -> str:
    """``\\b`` or ``\\B`` as lookarounds on ``engine``'s ``\\w``: Oniguruma's word boundary reads ``\\w`` as it
    is alone (U+00B2 is a word character), and ``regex``'s own ``\\b`` its own ``\\w``."""
    word = f"[{_reference_class(_engine_class('w', text, engine), engine)}]"
    if text == "\\b":
        return f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))"
    return f"(?:(?<={word})(?={word})|(?<!{word})(?!{word}))"


def oniguruma_pattern(pattern: str, engine: str = "tokenizers") -> str:
    """``pattern`` as ``tokenizer.json`` must hold it for ``tokenizers`` to cut text as ``engine`` reads it.

    >>> oniguruma_pattern(r"\\p{N}{1,3}+|\\s++$", "tiktoken")
    '(?>\\\\p{N}{1,3})|\\\\s++\\\\z'
    >>> oniguruma_pattern(r"\\p{N}{1,3}+", "tokenizers")
    '\\\\p{N}{1,3}+'
    """
    return pattern if engine == "tokenizers" else _rewrite(pattern, engine, "oniguruma")


@functools.cache
def compiled(
    pattern: str, engine: str
) -> tuple[regex.Pattern[str], regex.Pattern[str], frozenset[str] | None, re.Pattern[str] | None]:
    """``(plain, exact, guard, ascii)``: ``pattern`` compiled as ``engine`` reads it; ``exact`` with the references'
    classes, ``plain`` with ``regex``'s own (about twice as fast), and ``guard`` the characters on which the two
    disagree (None: they agree on all). ``plain`` cuts any text with none of them (``isdisjoint``: 4x faster
    than a regex search for them) exactly as
    ``exact`` does: ASCII text, and nearly all real text (the disagreements are characters assigned in recent
    Unicode versions and, for ``\\w``, a few the engines define differently). ``ascii`` (see
    :func:`_ascii_form`) cuts ASCII text as ``exact`` does, with the standard library's ``re``: twice as fast
    again on English; None where the pattern has no such form."""
    try:
        plain = regex.compile(_rewrite(pattern, engine, "python-own"), flags=regex.VERSION1)
        exact = regex.compile(_rewrite(pattern, engine, "python"), flags=regex.VERSION1)
    except UnsupportedConstruct as e:
        raise UnsupportedConstruct(f"split pattern {pattern!r} is refused: {e}") from e
    except (regex.error, ValueError) as e:
        raise ValueError(f"split pattern {pattern!r} does not compile: {e}") from e
    for probe in ("", "a", " ", "1", "!", "a b\n", "\n\n"):
        if any(m.start() == m.end() for m in exact.finditer(probe)):
            raise ValueError(
                f"split pattern {pattern!r} can match the empty string (it does on {probe!r}); "
                "every alternative must consume at least one character"
            )
    return plain, exact, _guard(pattern, engine), _ascii_form(pattern, engine)


class _NoAsciiForm(Exception):
    """Raised inside :func:`_ascii_form` where a pattern's ASCII form could read differently from ``exact``."""


def _ascii_form(pattern: str, engine: str) -> re.Pattern[str] | None:
    """``pattern`` for ASCII text only, compiled by the standard library's ``re`` (twice as fast as ``regex``
    with Unicode classes on English text), or None where that could cut differently.

    Every class escape and every set becomes the set of ASCII characters it matches with the reference's
    classes (asked of the ``exact`` pattern's own spelling, one character at a time), so nothing depends on how
    the two modules read classes. A pattern is left without an ASCII form if it has a non-ASCII literal, a set in
    ``regex``'s own syntax read case-insensitively, or syntax ``re`` does not compile the same (it then raises, or is
    refused here: ``\\X``, ``\\R``, variable lookbehind, possessive quantifiers before Python 3.11)."""
    try:
        return re.compile(_rewrite(pattern, engine, "ascii"), flags=re.ASCII)
    except (_NoAsciiForm, re.error, ValueError):
        return None


def _ascii_set(text: str, engine: str, caseless: bool) -> str:
    """An escape or a set (``text``) as the set of the ASCII characters it matches with ``engine``'s classes.

    Read ``caseless``, it holds no class (:func:`_compiled` refuses those) and is kept as written, for ``re`` to
    fold as ``regex`` does (a set of literals, either module: ``[^a]`` matches neither ``a`` nor ``A``).

    Raises:
        _NoAsciiForm: if it is read ``caseless`` and is a set with ``regex``'s own syntax (nested sets, set
            operations).
    """
    if caseless and text.startswith("["):
        if regex.search(r".\[|--|&&|\|\||~~|\\[hHpP]", text):  # nested sets, POSIX brackets, classes re lacks
            raise _NoAsciiForm(text)
        return text
    if not regex.fullmatch(r"\\(?:[pPsSwWdDhH].*|[^a-zA-Z0-9])|\[.*", text, flags=regex.DOTALL):
        return text  # an anchor, a literal letter escape (\\n, \\t) or an assertion, kept for ``re`` to read
    try:
        one = regex.compile(_with_reference_classes(text, engine), flags=regex.VERSION1)
    except regex.error as e:
        raise _NoAsciiForm from e
    members = {code for code in range(128) if one.fullmatch(chr(code))}
    spelled = f"[{_escape_ranges(members)}]" if members else "[^\\x00-\\x7f]"
    return f"(?-i:{spelled})" if caseless else spelled  # a class alone keeps its case (see _with_reference_classes)


def _guard(pattern: str, engine: str) -> frozenset[str] | None:
    """Every character whose membership in a class ``pattern`` uses differs between the ``regex``
    module and the reference ``engine``."""
    differ: set[int] = set()
    for name in _classes_in(pattern, engine):
        _, too_many, too_few = _disagreement(name, engine)
        differ |= too_many | too_few
    return frozenset(map(chr, differ)) if differ else None


def _classes_in(pattern: str, engine: str) -> set[str]:
    """The classes (:data:`ALL_CLASS_NAMES`) ``pattern`` uses, each read where it stands (alone or in a set);
    ``\\b`` and ``\\B`` use ``\\w``.

    >>> sorted(_classes_in(r"\\w|[-\\w](?:\\b\\p{L})", "tokenizers"))
    ['L', '[w]', 'w']
    """
    names: set[str] = set()
    for kind, text in _atoms(pattern):
        if kind == "group":
            head = regex.match(r"\((?:\?(?:[:=!>]|<[=!]|[a-zA-Z-]*[:)]|P?<\w+>))?", text)
            assert head is not None  # every group starts with "("
            names |= _classes_in(text[head.end() : -1], engine)
        elif kind == "escape" and text in ("\\b", "\\B"):
            names.add(_engine_class("w", text, engine))
        elif kind in ("escape", "set"):
            for match in _ESCAPE.finditer(text):
                found = _class_of(match, kind == "set", engine)
                if found is not None:
                    names.add(found[0])
    return names


_FLAGS = regex.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])")


def _caseless_within(group: str, caseless: bool) -> bool:
    """Whether the inside of ``group`` is read case-insensitively (for bare flags, ``(?i)``, the rest of the
    enclosing group), ``caseless`` saying whether the text around it is.

    >>> _caseless_within("(?i:a)", False), _caseless_within("(?-i:a)", True), _caseless_within("(a)", True)
    (True, False, True)
    """
    flags = _FLAGS.match(group)
    if flags is None:
        return caseless
    return (caseless or "i" in flags.group(1)) and "i" not in (flags.group(2) or "")


@functools.cache
def splitters_of(splits: tuple[str, ...], engine: str, keep_gaps: bool = True) -> tuple[Any, ...]:
    """The splitters of ``splits``: isolated (``keep_gaps``, byte-level ``Split``s) or keeping only the matches
    (char-level's ``WhitespaceSplit``)."""
    return tuple(Splitter(*compiled(pattern, engine), keep_gaps=keep_gaps) for pattern in splits)


class Splitter:
    """One isolated split: the pattern's matches and the text between them, in order.

    ``findall`` in C is the fast path: ASCII text with the pattern's ASCII form in ``re``, other text with
    ``regex``'s own classes unless it holds a character on which they and the reference's differ. The text
    between matches is only looked for when the matches do not cover the text (every preset's pattern covers
    all text).
    """

    __slots__ = ("_ascii", "_exact", "_guard", "_keep_gaps", "_plain")

    def __init__(
        self,
        plain: regex.Pattern[str],
        exact: regex.Pattern[str],
        guard: frozenset[str] | None = None,
        ascii: re.Pattern[str] | None = None,
        *,
        keep_gaps: bool = True,
    ) -> None:
        self._plain = plain
        self._exact = exact
        self._guard = guard
        self._ascii = ascii
        self._keep_gaps = keep_gaps

    def __call__(self, text: str) -> list[str]:
        guard = self._guard
        pattern: re.Pattern[str] | regex.Pattern[str]
        if text.isascii():
            pattern = self._ascii or self._plain
        else:
            pattern = self._plain if guard is None or guard.isdisjoint(text) else self._exact
        pieces = pattern.findall(text)
        if not self._keep_gaps or sum(map(len, pieces)) == len(text):
            return pieces
        out: list[str] = []
        start = 0
        for match in pattern.finditer(text):
            if match.start() > start:
                out.append(text[start : match.start()])
            out.append(match.group())
            start = match.end()
        if start < len(text):
            out.append(text[start:])
        return out


@functools.cache
def exact_pattern(pattern: str, engine: str = "tokenizers") -> regex.Pattern[str]:
    """``pattern`` as ``engine`` reads it, with its Unicode classes, and no check of how it is used (a ``Split``
    step of a ``tokenizer.json`` may match the empty string; the ``Split`` twin treats such matches as the
    reference does)."""
    return regex.compile(_rewrite(pattern, engine, "python"), flags=regex.VERSION1)
