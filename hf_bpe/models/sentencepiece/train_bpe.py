"""Training a SentencePiece BPE model as ``spm_train --model_type=bpe`` (sentencepiece 0.2.3) trains it, from word
counts, so that memory follows distinct words rather than sentences.

The steps are the reference's, named after its functions:

1. :func:`count_words` (``TrainerInterface::LoadSentences`` and ``SplitSentencesByWhitespace``): lines longer than
   ``max_sentence_length`` bytes, empty ones and ones holding U+2585 are skipped; each is normalized
   (``normalizer::Normalizer::Normalize``), meta pieces in it become U+001F, and it is cut into words before each
   ``▁`` (``SplitIntoWords``); the words are counted.
2. :func:`train_bpe`: the required characters by ``character_coverage`` (counted from the words, which partition
   the sentences), the rest replaced by U+2585; then ``bpe::Trainer::Train``'s merge loop, mirrored structure for
   structure (pair symbols cached by their two halves, positions kept in the reference's order, frequencies updated
   incrementally and a priority queue of (frequency, shorter, smaller piece)), so that even its quirks — overlapping
   pairs, pieces reached by two paths — come out the same; then ``TrainerInterface::Serialize``'s placing of the
   meta pieces. The result is a :class:`~.model_proto.ModelProto`; :mod:`.model_writer` writes its bytes.

Options are sentencepiece's, by its names and defaults (:class:`SentencePieceOptions`); one this module does not
implement is refused by name. Normalization (every rule: ``nmt_nfkc``, the default, ``nfkc``, ``nmt_nfkc_cf``,
``nfkc_cf``, ``identity``) is :mod:`.normalization`'s; the rules' character maps come from the installed
``sentencepiece`` package, ``identity`` needs none. Unicode scripts (``split_by_unicode_script``) come
from the ``regex`` module, limited to the scripts of Unicode 9.0 that sentencepiece's own table knows.
"""

from __future__ import annotations

import dataclasses
import functools
import heapq
import itertools
import os
import struct
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import regex

from hf_bpe.models.sentencepiece.model_proto import (
    ModelProto,
    ModelType,
    NormalizerSpec,
    Piece,
    PieceType,
    TrainerSpec,
)
from hf_bpe.models.sentencepiece.normalization import Normalizer, rule_charsmap

#: sentencepiece's meta characters: white space, the unknown character, the pretokenization boundary.
WS = "\u2581"
UNK_CHAR = "\u2585"
BOUNDARY = "\x1f"

_DEFAULTS = TrainerSpec()

#: TrainerSpec options this module implements (any value) and the ones it only accepts at their default.
_IMPLEMENTED = (
    "vocab_size",
    "character_coverage",
    "byte_fallback",
    "max_sentencepiece_length",
    "max_sentence_length",
    "split_by_whitespace",
    "split_by_unicode_script",
    "split_by_number",
    "split_digits",
    "treat_whitespace_as_suffix",
    "user_defined_symbols",
    "control_symbols",
    "required_chars",
    "unk_id",
    "bos_id",
    "eos_id",
    "pad_id",
    "unk_piece",
    "bos_piece",
    "eos_piece",
    "pad_piece",
    "unk_surface",
    "hard_vocab_limit",
    "num_threads",
    "vocabulary_output_piece_score",
    "shuffle_input_sentence",
)
_DEFAULT_ONLY = ("allow_whitespace_only_pieces", "input_sentence_size", "use_all_vocab", "auto_character_coverage")
#: TrainerSpec options only the Unigram trainer (:mod:`.train_unigram`) reads; refused for ``model_type="bpe"``.
_UNIGRAM_ONLY = ("seed_sentencepiece_size", "shrinking_factor", "num_sub_iterations")
_NORMALIZER_OPTIONS = ("normalization_rule_name", "add_dummy_prefix", "remove_extra_whitespaces")


@dataclasses.dataclass(frozen=True)
class SentencePieceOptions:
    """sentencepiece's training options as the model records them: its ``TrainerSpec`` and ``NormalizerSpec``."""

    trainer_spec: TrainerSpec
    normalizer_spec: NormalizerSpec

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> SentencePieceOptions:
        """Options from ``SentencePieceTrainer.train``'s keyword names; defaults are sentencepiece's.

        Raises:
            ValueError: naming an option this module does not implement, or a value sentencepiece refuses.

        >>> SentencePieceOptions.from_kwargs(vocab_size=100, normalization_rule_name="identity").trainer_spec.vocab_size
        100
        >>> SentencePieceOptions.from_kwargs(seed_sentencepiece_size=10)
        Traceback (most recent call last):
        ValueError: sentencepiece option seed_sentencepiece_size is not implemented by hf_bpe's BPE trainer
        """
        model_type = str(kwargs.get("model_type", "bpe")).lower()
        if model_type not in ("bpe", "unigram"):
            raise ValueError(f"sentencepiece option model_type={model_type!r}: hf_bpe trains 'bpe' and 'unigram' only")
        trainer: dict[str, Any] = {"model_type": ModelType.BPE if model_type == "bpe" else ModelType.UNIGRAM}
        normalizer: dict[str, Any] = {"name": "nmt_nfkc"}
        for key, value in kwargs.items():
            if key == "model_type":
                continue
            if key in _UNIGRAM_ONLY and model_type == "unigram":
                trainer[key] = _typed(key, value)
            elif key == "normalization_rule_name":
                normalizer["name"] = value
            elif key in _NORMALIZER_OPTIONS:
                normalizer[key] = bool(value)
            elif key in _IMPLEMENTED or key in _DEFAULT_ONLY:
                trainer[key] = _typed(key, value)
                if key in _DEFAULT_ONLY and trainer[key] != getattr(_DEFAULTS, key):
                    raise ValueError(
                        f"sentencepiece option {key}={value!r} is not implemented by hf_bpe (only its "
                        f"default, {getattr(_DEFAULTS, key)!r})"
                    )
            else:
                raise ValueError(
                    f"sentencepiece option {key} is not implemented by hf_bpe's {model_type.upper()} trainer"
                )
        normalizer["precompiled_charsmap"] = rule_charsmap(str(normalizer["name"]))
        options = cls(TrainerSpec(**trainer), NormalizerSpec(**normalizer))
        _verify(options.trainer_spec)
        return options


def _typed(key: str, value: Any) -> Any:
    """``value`` as the TrainerSpec field ``key`` holds it (floats as float32, lists as tuples)."""
    default = getattr(_DEFAULTS, key)
    if isinstance(default, tuple):
        return tuple(value.split(",") if isinstance(value, str) else value)
    if isinstance(default, bool):
        return value if isinstance(value, bool) else str(value).lower() in ("true", "1")
    if isinstance(default, float):
        return _float32(float(value))
    if isinstance(default, int):
        return int(value)
    return str(value)


def _float32(value: float) -> float:
    """``value`` rounded to a float32, as the proto's ``float`` fields hold it."""
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


def _verify(spec: TrainerSpec) -> None:
    """The ranges ``VerifySpec`` (trainer_interface.cc) checks."""
    checks = {
        "vocab_size": spec.vocab_size > 0,
        "character_coverage": 0.98 <= spec.character_coverage <= 1.0,
        "max_sentencepiece_length": 1 <= spec.max_sentencepiece_length <= 512,
        "shrinking_factor": 0.5 <= spec.shrinking_factor <= 0.95,
        "num_sub_iterations": 1 <= spec.num_sub_iterations <= 10,
        "num_threads": 1 <= spec.num_threads <= 1024,
        "max_sentence_length": 10 <= spec.max_sentence_length <= 1073741824,
        "unk_piece": spec.unk_piece != "",
        "bos_piece": spec.bos_piece != "",
        "eos_piece": spec.eos_piece != "",
        "pad_piece": spec.pad_piece != "",
    }
    for key, ok in checks.items():
        if not ok:
            raise ValueError(
                f"sentencepiece option {key}={getattr(spec, key)!r} is out of the range sentencepiece "
                f"accepts (its VerifySpec)"
            )


# -- meta pieces (TrainerInterface::InitMetaPieces) ---------------------------------------------------------------


def meta_pieces(spec: TrainerSpec) -> dict[int, tuple[str, PieceType]]:
    """The pieces placed before learning, by id: unk/bos/eos/pad, control and user-defined symbols, byte pieces.

    Raises:
        ValueError: naming the duplicate, out-of-range or missing piece, as ``InitMetaPieces`` refuses it.
    """
    pieces: dict[int, tuple[str, PieceType]] = {}
    has_unk = False
    for role in ("unk", "bos", "eos", "pad"):
        piece_id, piece = getattr(spec, f"{role}_id"), getattr(spec, f"{role}_piece")
        if piece_id < 0:
            continue
        if piece_id >= spec.vocab_size or piece_id in pieces or (has_unk and piece == spec.unk_piece):
            raise ValueError(f"sentencepiece option {role}_id={piece_id}: out of the vocabulary or already taken")
        has_unk = has_unk or piece == spec.unk_piece
        pieces[piece_id] = (piece, PieceType.UNKNOWN if piece == spec.unk_piece else PieceType.CONTROL)
    if not spec.byte_fallback and not has_unk:
        raise ValueError(f"sentencepiece option unk_id: {spec.unk_piece} must be defined (or byte_fallback set)")
    seen: set[str] = set()
    next_id = 0
    symbols = [(w, PieceType.CONTROL) for w in spec.control_symbols]
    symbols += [(w, PieceType.USER_DEFINED) for w in spec.user_defined_symbols]
    symbols += [(f"<0x{b:02X}>", PieceType.BYTE) for b in range(256)] if spec.byte_fallback else []
    for piece, kind in symbols:
        if piece in seen or piece == spec.unk_piece:
            raise ValueError(f"sentencepiece symbol {piece!r} is already defined (duplicated or the unk piece)")
        seen.add(piece)
        role_id = next(
            (
                getattr(spec, f"{r}_id")
                for r in ("bos", "eos", "pad")
                if piece == getattr(spec, f"{r}_piece") and getattr(spec, f"{r}_id") >= 0
            ),
            None,
        )
        if role_id is not None:
            pieces[role_id] = (piece, kind)
            continue
        while next_id in pieces:
            next_id += 1
        pieces[next_id] = (piece, kind)
    return pieces


# -- normalizing and counting (LoadSentences, Normalizer::Normalize, SplitIntoWords) ------------------------------


def replace_meta(text: str, matcher: regex.Pattern[str] | None) -> str:
    """``PrefixMatcher::GlobalReplace``: each meta piece in ``text`` (longest first) becomes U+001F."""
    return text if matcher is None else matcher.sub(BOUNDARY, text)


def meta_matcher(spec: TrainerSpec) -> regex.Pattern[str] | None:
    words = sorted({piece for piece, _ in meta_pieces(spec).values()}, key=lambda w: (-len(w), w))
    return regex.compile("|".join(regex.escape(w) for w in words)) if words else None


def split_into_words(text: str, *, treat_whitespace_as_suffix: bool = False) -> list[str]:
    """``SplitIntoWords``: cut before each ``▁`` (after each, with ``treat_whitespace_as_suffix``).

    >>> split_into_words("▁a▁▁b")
    ['▁a', '▁', '▁b']
    """
    if not text:
        return []
    if treat_whitespace_as_suffix:
        words = text.split(WS)
        out = [w + WS for w in words[:-1]]
        return [*out, words[-1]] if words[-1] else out
    words = text.split(WS)
    return ([words[0]] if words[0] else []) + [WS + w for w in words[1:]]


def count_words(lines: Iterable[str | bytes], options: SentencePieceOptions) -> Counter[str]:
    """The words ``spm_train`` trains on and their counts, from lines of text as it reads them (one per line).

    ``lines`` are lines without their ``\\n`` (as ``std::getline`` gives them), as ``str`` or ``bytes``; a line
    longer than ``max_sentence_length`` bytes is skipped, as is one holding U+2585. Counts from several sources add
    up (``Counter.update``).

    >>> options = SentencePieceOptions.from_kwargs(normalization_rule_name="identity")
    >>> sorted(count_words(["a b", "b <s>"], options).items())
    [('▁\\x1f', 1), ('▁a', 1), ('▁b', 2)]
    """
    spec = options.trainer_spec
    matcher = meta_matcher(spec)
    suffix = spec.treat_whitespace_as_suffix
    normalizer = Normalizer(options.normalizer_spec, suffix)
    counts: Counter[str] = Counter()
    lines = iter(lines)
    # A line met again within a block is normalized and cut once (a third of real text's lines repeat nearby:
    # blank-ish lines, code's closing lines, roff macros); the block bounds what this holds.
    while block := Counter(itertools.islice(lines, _BLOCK_LINES)):
        for line, times in block.items():
            raw = line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")
            if not raw or len(raw) > spec.max_sentence_length or UNK_CHAR.encode() in raw:
                continue
            sentence = replace_meta(normalizer.normalize(raw.decode("utf-8", "surrogateescape")), matcher)
            if not sentence:
                continue
            words = (
                split_into_words(sentence, treat_whitespace_as_suffix=suffix)
                if spec.split_by_whitespace
                else [sentence]
            )
            if times == 1:
                counts.update(words)
            else:
                for word in words:
                    counts[word] += times
    return counts


#: Lines :func:`count_words` reads at a time.
_BLOCK_LINES = 8192


def count_words_in_files(
    paths: list[str], options: SentencePieceOptions, *, processes: int | None = None
) -> Counter[str]:
    """:func:`count_words` of the lines of plain text files (one after the other, as ``spm_train`` reads them),
    counted in ``processes`` processes (default: :func:`~hf_bpe.processes.fork_processes`) over line-aligned byte
    ranges (:func:`hf_bpe.counting.counting.shard_ranges`) and summed: the counts are the same for any number of
    processes (they do not depend on order).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = path.write_bytes(b"a b\\nb\\n" * 50 + b"c")
    >>> options = SentencePieceOptions.from_kwargs(normalization_rule_name="identity")
    >>> sorted(count_words_in_files([str(path)], options, processes=2).items())
    [('▁a', 50), ('▁b', 100), ('▁c', 1)]
    """
    from hf_bpe.counting.counting import shard_ranges
    from hf_bpe.processes import fork_processes, run_forked

    sizes = [os.path.getsize(path) for path in paths]
    parts = max(1, min(processes or fork_processes(), sum(sizes) // 65536 + 1))
    shard = max(1, -(-sum(sizes) // parts))
    ranges = [
        (path, start, end)
        for path, size in zip(paths, sizes, strict=True)
        for start, end in shard_ranges(Path(path), size, shard)
    ]
    jobs = [functools.partial(_count_ranges, ranges[k::parts], options) for k in range(min(parts, len(ranges)))]
    counted = run_forked(jobs, "counting sentencepiece words") if len(jobs) > 1 else [job() for job in jobs]
    # The first part is the sum's start and each other one is dropped once added: no copy of a part's table.
    counts: Counter[str] = counted.pop(0) if counted else Counter()
    while counted:
        counts.update(counted.pop())
    return counts


def _count_ranges(ranges: list[tuple[str, int, int]], options: SentencePieceOptions) -> Counter[str]:
    """:func:`count_words` of the lines in each ``(file, start, end)`` (``start`` 0 or just after a ``\\n``)."""

    def lines() -> Iterator[bytes]:
        for path, start, end in ranges:
            with open(path, "rb") as stream:
                position = stream.seek(start)
                for line in stream:
                    if position >= end:
                        break
                    position += len(line)
                    yield line[:-1] if line.endswith(b"\n") else line

    return count_words(lines(), options)


# -- Unicode scripts (unicode_script::GetScript, its table of Unicode 9.0) ----------------------------------------

#: The scripts sentencepiece's table knows (Unicode 9.0); a character of any other script, or unassigned, is Common.
_SCRIPTS = [
    "Adlam",
    "Ahom",
    "Anatolian_Hieroglyphs",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "Bassa_Vah",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "Canadian_Aboriginal",
    "Carian",
    "Caucasian_Albanian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Duployan",
    "Egyptian_Hieroglyphs",
    "Elbasan",
    "Ethiopic",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "Hiragana",
    "Imperial_Aramaic",
    "Inherited",
    "Inscriptional_Pahlavi",
    "Inscriptional_Parthian",
    "Javanese",
    "Kaithi",
    "Kannada",
    "Katakana",
    "Kayah_Li",
    "Kharoshthi",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "Linear_A",
    "Linear_B",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "Meetei_Mayek",
    "Mende_Kikakui",
    "Meroitic_Cursive",
    "Meroitic_Hieroglyphs",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "New_Tai_Lue",
    "Newa",
    "Nko",
    "Ogham",
    "Ol_Chiki",
    "Old_Hungarian",
    "Old_Italic",
    "Old_North_Arabian",
    "Old_Permic",
    "Old_Persian",
    "Old_South_Arabian",
    "Old_Turkic",
    "Oriya",
    "Osage",
    "Osmanya",
    "Pahawh_Hmong",
    "Palmyrene",
    "Pau_Cin_Hau",
    "Phags_Pa",
    "Phoenician",
    "Psalter_Pahlavi",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "SignWriting",
    "Sinhala",
    "Sora_Sompeng",
    "Sundanese",
    "Syloti_Nagri",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "Tai_Le",
    "Tai_Tham",
    "Tai_Viet",
    "Takri",
    "Tamil",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Ugaritic",
    "Vai",
    "Warang_Citi",
    "Yi",
]
_SCRIPT_PATTERN = regex.compile("|".join(f"(?P<{name}>\\p{{Script={name}}})" for name in _SCRIPTS))
#: IsValidSentencePiece's "any script" (kAnyType), which matches every script.
_ANY = "any"


@cache
def _script(c: str) -> str:
    """The script ``IsValidSentencePiece`` compares: Hiragana, Katakana and U+30FC count as Han."""
    match = _SCRIPT_PATTERN.match(c)
    script = match.lastgroup if match is not None and match.lastgroup is not None else "Common"
    return "Han" if script in ("Hiragana", "Katakana") or c == "\u30fc" else script


def _is_decimal(c: str) -> bool:
    """``is_unicode_decimal_number``: ASCII and full-width digits."""
    return "0" <= c <= "9" or "\uff10" <= c <= "\uff19"


def is_valid_piece(piece: str, spec: TrainerSpec) -> bool:
    """``TrainerInterface::IsValidSentencePiece``: may ``piece`` be a learned piece?

    >>> is_valid_piece("▁ab", TrainerSpec()), is_valid_piece("a▁b", TrainerSpec()), is_valid_piece("a.", TrainerSpec())
    (True, False, False)
    """
    if not piece or len(piece) > spec.max_sentencepiece_length:
        return False
    last = len(piece) - 1
    prev = _ANY
    for pos, c in enumerate(piece):
        kind = _kind(c)
        if kind is _FORBIDDEN:
            return False
        if kind is _SPACE:
            if spec.treat_whitespace_as_suffix:
                if (spec.split_by_whitespace and pos < last) or (not spec.split_by_whitespace and pos == 0 < last):
                    return False
            elif (spec.split_by_whitespace and pos > 0) or (not spec.split_by_whitespace and 0 < pos == last):
                return False
            continue
        if kind is _DIGIT:
            script = "Common" if spec.split_by_number else _ANY
            if spec.split_digits and last > 0:
                return False
        else:
            script = prev if kind == "Inherited" else kind
        if spec.split_by_unicode_script and _ANY not in (script, prev) and prev != script:
            return False
        prev = script
    return True


#: What :func:`_kind` says of a character IsValidSentencePiece refuses anywhere, of ``▁``, of a decimal digit.
_FORBIDDEN, _SPACE, _DIGIT = "forbidden", "space", "digit"


@cache
def _kind(c: str) -> str:
    """What ``IsValidSentencePiece`` reads of ``c``, once per character: forbidden, the space, a decimal digit (of
    the Common script), or its script (:func:`_script`)."""
    if c in (UNK_CHAR, "\0", BOUNDARY, " ") or "\ud800" <= c <= "\udfff":
        return _FORBIDDEN
    if c == WS:
        return _SPACE
    if _is_decimal(c):
        return _DIGIT
    return _script(c)


# -- required characters (LoadSentences' character_coverage) ----------------------------------------------------


def required_chars(word_counts: Mapping[str, int], spec: TrainerSpec) -> dict[str, int]:
    """The characters always in the vocabulary, most frequent first, as ``character_coverage`` picks them.

    Raises:
        ValueError: where the words hold no character, or the vocabulary cannot hold them and the meta pieces.
    """
    counts: Counter[str] = Counter()
    items = iter(word_counts.items())
    while chunk := list(itertools.islice(items, _CHUNK_WORDS)):
        # A chunk's words of one count are counted together (one Counter over their joined text): most words occur
        # a few times. A chunk at a time: no list or text of all the words at once.
        by_count: dict[int, list[str]] = {}
        for word, count in chunk:
            by_count.setdefault(count, []).append(word)
        for count, words in by_count.items():
            for c, n in Counter("".join(words)).items():
                counts[c] += n * count
    for c in ("\0", *[c for c in counts if "\ud800" <= c <= "\udfff"]):
        counts.pop(c, None)
    total = sum(counts.values())
    if total <= 0:
        raise ValueError("sentencepiece training: the corpus holds no character (all chars count=0)")
    forced = {c for c in spec.required_chars if c != "\0"}
    order = sorted({*counts, *forced}, key=lambda c: (c not in forced, -counts.get(c, 0), c))
    chosen: dict[str, int] = {}
    covered = 0
    for c in order:
        # The reference computes the coverage as a float (trainer_interface.cc: `const float coverage`).
        if _float32(covered / total) >= spec.character_coverage:
            break
        covered += counts.get(c, 0)
        if c != BOUNDARY:
            chosen[c] = counts.get(c, 0)
    return chosen


def _training_words(
    word_counts: Mapping[str, int], chars: Mapping[str, int], consume: bool
) -> tuple[str, array[int], array[int]]:
    """The words with characters outside ``chars`` replaced by U+2585, merged, in ``Sorted`` order (most frequent
    first, then by code points): their text joined, where each starts in it (and the end) and their counts.
    ``consume``: ``word_counts`` is a dict the caller gives up (its words with such characters are replaced in
    place, and it is emptied as its words are read).

    The words go into one list per count (popped from the dict, whose table is then freed), each sorted by code
    points, taken from the highest count down: no tuple, key or second list per word. Only the joined text is
    returned: a word's own ``str`` costs ~60 bytes besides its characters, and the strings' memory (spread over
    the small-object allocator's arenas) is given back only once all of them are gone, before the merger's arrays
    are made (at a million words, the strings and the arrays at once were the trainer's peak).
    """
    merged: dict[str, int] = word_counts if consume and isinstance(word_counts, dict) else dict(word_counts)
    alphabet: set[str] = set()
    keys = iter(merged)
    while chunk := list(itertools.islice(keys, _CHUNK_WORDS)):  # joined a chunk at a time: no copy of all text
        alphabet.update("".join(chunk))
    unknown = "".join(sorted(c for c in alphabet if c not in chars))
    if unknown:
        table = dict.fromkeys(map(ord, unknown), UNK_CHAR)
        found = regex.compile("[" + regex.escape(unknown) + "]").search
        for word in [word for word in merged if found(word)]:
            count = merged.pop(word)
            replaced = word.translate(table)
            merged[replaced] = merged.get(replaced, 0) + count
    by_count: dict[int, list[str]] = {}
    while merged:
        word, count = merged.popitem()
        by_count.setdefault(count, []).append(word)
    merged.clear()  # an emptied dict keeps its table until cleared
    texts: list[str] = []
    lengths = array("q")
    counts = array("Q")  # uint64_t, as the reference's frequencies
    for count in sorted(by_count, reverse=True):
        same = by_count.pop(count)
        same.sort()
        texts.append("".join(same))
        lengths += array("q", map(len, same))
        counts += array("Q", [count]) * len(same)
        del same
    return "".join(texts), array("q", itertools.accumulate(lengths, initial=0)), counts


#: Words joined at a time, or characters turned into symbol ids at a time, where all at once are not needed.
_CHUNK_WORDS = 65536
_CHUNK_CHARS = 1 << 20


# -- the merge loop (bpe::Trainer::Train) --------------------------------------------------------------------------

_MASK = (1 << 64) - 1  # the reference's frequencies are uint64_t: a decrement below zero wraps


class _Merger:
    """``bpe::Trainer``'s state: each word as a list of symbol ids (-1 where a merge emptied a slot), and per symbol
    its piece, halves, frequency, flags and positions (the left slot's index in the flat array of every word's
    symbols, in the reference's order, stale ones kept: a position is live only while its left slot still holds
    the pair's left half and the next slot not emptied its right half)."""

    def __init__(self, text: str, starts: array[int], counts: array[int], spec: TrainerSpec) -> None:
        """The words in training order as :func:`_training_words` gives them: joined, where each starts, counts."""
        self.spec = spec
        self.counts = counts
        self.piece: list[str] = []
        self.length: list[int] = []
        # Per symbol: machine words and bytes (array, bytearray), not Python objects: merging makes hundreds of
        # thousands of pair symbols, and a tuple of halves (two ints of their own), a frequency int and four list
        # slots of flags cost ~200 bytes a symbol (at 99 MB of C, most of what merging adds to its memory).
        self.lefts = array("i")
        self.rights = array("i")
        self.freq = array("Q")  # uint64_t, as the reference's
        self.unk = bytearray()
        self.active = bytearray()
        self.pending = bytearray()
        self.recompute = bytearray()
        # Positions as 4-byte machine words (8 past 2**32 slots) and words as 4-byte symbol ids (array), not lists
        # of Python ints: a position is an int of its own (~36 bytes in a list), and they are most of the trainer's
        # memory. A position is the left slot alone: while that slot still holds the pair's left half, no merge
        # has touched it, so the right slot is still the next one not emptied (only a merge into the left slot
        # empties it); the word (its count, its ends) is found from the slot (a bisection of the words' starts),
        # and only for a live position.
        self.positions: list[array[int]] = []
        self.chars: dict[str, int] = {}
        # symbols_cache_ for pairs, keyed by ``left << 32 | right``; -1: the pair makes no valid piece
        self.pairs: dict[int, int] = {}
        self.pending_queue: list[int] = []
        self.heap: list[tuple[int, int, str, int, int]] = []
        #: The positions' array type: 4-byte slot indices while every slot has one.
        self.typecode = "I" if len(text) < 1 << 32 else "Q"
        # Every word's symbol ids in one flat array, word ``sid`` at ``starts[sid]:starts[sid + 1]``: an array per
        # word would cost ~120 bytes of its own (a million words: the trainer's peak). Made a slice of the text at
        # a time: no list of a Python int per character.
        self.symbols = array("i")
        for at in range(0, len(text), _CHUNK_CHARS):
            part = text[at : at + _CHUNK_CHARS]
            for c in dict.fromkeys(part):  # GetCharSymbol in order of first sight
                self._char(c)
            self.symbols += array("i", map(self.chars.__getitem__, part))
        self.starts = starts

    def _new(self, piece: str, length: int, halves: tuple[int, int]) -> int:
        ident = len(self.piece)
        self.piece.append(piece)
        self.length.append(length)
        self.lefts.append(halves[0])
        self.rights.append(halves[1])
        self.freq.append(0)
        self.unk.append(piece == UNK_CHAR)
        self.active.append(True)
        self.pending.append(False)
        self.recompute.append(True)
        self.positions.append(array(self.typecode))
        return ident

    def _char(self, c: str) -> int:
        """``GetCharSymbol``."""
        ident = self.chars.get(c)
        if ident is None:
            ident = self.chars[c] = self._new(c, 1, (-1, -1))
        return ident

    def _pair(self, left: int, right: int) -> int:
        """``GetPairSymbol``: the pair's symbol, made on first sight; -1 where the pair makes no valid piece."""
        if left < 0 or right < 0 or self.unk[left] or self.unk[right]:
            return -1
        ident = self.pairs.get(left << 32 | right)
        if ident is None:
            piece = self.piece[left] + self.piece[right]
            valid = is_valid_piece(piece, self.spec)
            ident = self._new(piece, self.length[left] + self.length[right], (left, right)) if valid else -1
            self.pairs[left << 32 | right] = ident
        return ident

    def _push(self, ident: int) -> None:
        # std::priority_queue's order (QueueEntryComparator): higher frequency, then fewer characters, then the
        # smaller piece; the symbol id only breaks what the reference leaves to its heap's layout.
        heapq.heappush(self.heap, (-self.freq[ident], self.length[ident], self.piece[ident], ident, ident))

    def _compute(self, ident: int) -> None:
        """``ComputeFreq``: frequencies are kept up to date; it only drops the positions of a pair now absent."""
        if self.recompute[ident]:
            if self.freq[ident] == 0:
                self.positions[ident] = array(self.typecode)
            self.recompute[ident] = False

    def _flush_pending(self) -> None:
        for ident in self.pending_queue:
            self.pending[ident] = False
            if self.active[ident]:
                self._compute(ident)
                self._push(ident)
        self.pending_queue.clear()

    def _accept(self, best: int) -> None:
        """``AcceptSymbol``: merge every live position of ``best``, updating its neighbours' pairs.

        ``ResetFreq`` and ``AddNewPair`` are inlined (the merge loop's hot path, most of training): a pair found in
        the cache is the one :meth:`_pair` would return (pairs with an unknown half never enter it); a miss goes
        through :meth:`_pair`, which makes the symbol exactly as the reference's ``GetPairSymbol`` does.
        """
        left_half, right_half = self.lefts[best], self.rights[best]
        symbols, starts, counts = self.symbols, self.starts, self.counts
        freq, recompute, positions = self.freq, self.recompute, self.positions
        pending, pending_queue, pairs_get, make_pair = self.pending, self.pending_queue, self.pairs.get, self._pair
        for left in self.positions[best]:
            if symbols[left] != left_half:
                continue  # stale, or taken by an overlapping merge of the same pair ("aaa")
            right = left + 1
            while symbols[right] < 0:  # within the word: its left slot untouched, the right one is not emptied
                right += 1
            if symbols[right] != right_half:
                continue
            sid = bisect_right(starts, left) - 1
            start, end, count = starts[sid], starts[sid + 1], counts[sid]
            previous = left - 1
            while previous >= start and symbols[previous] < 0:
                previous -= 1
            following = right + 1
            while following < end and symbols[following] < 0:
                following += 1
            before = symbols[previous] if previous >= start else -1  # the neighbours' symbols
            after = symbols[following] if following < end else -1
            if previous >= start:  # ResetFreq(previous, left)
                ident = pairs_get(before << 32 | left_half)
                if ident is None:
                    ident = make_pair(before, left_half)
                if ident >= 0 and ident != best:
                    freq[ident] = (freq[ident] - count) & _MASK
                    recompute[ident] = True
            if following < end:  # ResetFreq(right, following)
                ident = pairs_get(right_half << 32 | after)
                if ident is None:
                    ident = make_pair(right_half, after)
                if ident >= 0 and ident != best:
                    freq[ident] = (freq[ident] - count) & _MASK
                    recompute[ident] = True
            symbols[left], symbols[right] = best, -1
            if previous >= start:  # AddNewPair(previous, left)
                ident = pairs_get(before << 32 | best)
                if ident is None:
                    ident = make_pair(before, best)
                if ident >= 0:
                    positions[ident].append(previous)
                    freq[ident] = (freq[ident] + count) & _MASK
                    if not pending[ident]:
                        pending[ident] = True
                        pending_queue.append(ident)
            if following < end:  # AddNewPair(left, following)
                ident = pairs_get(best << 32 | after)
                if ident is None:
                    ident = make_pair(best, after)
                if ident >= 0:
                    positions[ident].append(left)
                    freq[ident] = (freq[ident] + count) & _MASK
                    if not pending[ident]:
                        pending[ident] = True
                        pending_queue.append(ident)
        self._retire(best)

    def _add_all(self) -> None:
        """``AddNewPair`` for each pair of neighbours of each word, word after word (the reference's first loop)."""
        positions, freq, pending, pending_queue = self.positions, self.freq, self.pending, self.pending_queue
        pairs_get, make_pair = self.pairs.get, self._pair
        symbols, starts = self.symbols, self.starts
        for sid, count in enumerate(self.counts):
            start = starts[sid]
            word = symbols[start : starts[sid + 1]]
            for i in range(1, len(word)):
                ident = pairs_get(word[i - 1] << 32 | word[i])
                if ident is None:
                    ident = make_pair(word[i - 1], word[i])
                if ident >= 0:
                    positions[ident].append(start + i - 1)
                    freq[ident] = (freq[ident] + count) & _MASK
                    if not pending[ident]:
                        pending[ident] = True
                        pending_queue.append(ident)

    def _retire(self, ident: int) -> None:
        """Remove ``ident`` from the cache so it is not selected again (a later sight of its halves makes anew)."""
        left, right = self.lefts[ident], self.rights[ident]
        self.pairs.pop(left << 32 | right, None)
        self.active[ident] = False
        self.positions[ident] = array(self.typecode)

    def _best(self) -> int:
        """The queue's top live symbol (``Train``'s inner loop), or -1 where the queue is empty."""
        heap = self.heap
        while heap:
            neg_freq, _, _, _, ident = heap[0]
            if not self.active[ident]:
                heapq.heappop(heap)
            elif self.recompute[ident]:
                heapq.heappop(heap)
                self._compute(ident)
                self._push(ident)
            elif -neg_freq != self.freq[ident]:
                heapq.heappop(heap)
            else:
                heapq.heappop(heap)
                return ident
        return -1

    def merge(self, max_merges: int) -> list[str]:
        """The learned pieces, in the order ``Train`` takes them (at most ``max_merges``)."""
        self._add_all()
        self._flush_pending()
        pieces: list[str] = []
        seen: set[str] = set()
        while len(pieces) < max_merges:
            best = self._best()
            if best < 0:
                break  # the reference: "No valid symbol found"
            piece = self.piece[best]
            if piece in seen:  # the same piece reached by another pair of halves ("aa"+"a", "a"+"aa")
                self._retire(best)
                continue
            seen.add(piece)
            pieces.append(piece)
            self._accept(best)
            self._flush_pending()
        return pieces


def train_bpe(
    word_counts: Mapping[str, int], options: SentencePieceOptions, *, consume_counts: bool = False
) -> ModelProto:
    """The model ``spm_train --model_type=bpe`` trains on the text ``word_counts`` was counted from.

    Args:
        word_counts: :func:`count_words`' counts (possibly summed over several sources).
        options: the training options.
        consume_counts: empty ``word_counts`` (a dict the caller no longer needs) once the words are read, so
            that merging has its memory.

    Raises:
        ValueError: as ``spm_train`` fails: a vocabulary too small for the required characters and meta pieces, or
            too large for what the corpus yields (with ``hard_vocab_limit``).

    >>> options = SentencePieceOptions.from_kwargs(vocab_size=9, normalization_rule_name="identity")
    >>> model = train_bpe(count_words(["abab ab"], options), options)
    >>> [p.piece for p in model.pieces]
    ['<unk>', '<s>', '</s>', 'ab', '▁ab', '▁abab', 'a', 'b', '▁']
    """
    spec = options.trainer_spec
    if spec.model_type != ModelType.BPE:
        raise ValueError(
            f"sentencepiece option model_type={spec.model_type!r}: train_bpe trains 'bpe' (see train_unigram)"
        )
    metas = meta_pieces(spec)
    chars = required_chars(word_counts, spec)
    if len(chars) + len(metas) > spec.vocab_size:
        raise ValueError(
            f"sentencepiece option vocab_size={spec.vocab_size} is smaller than the required characters and meta "
            f"pieces ({len(chars)} + {len(metas)}); increase it or decrease character_coverage"
        )
    merger = _Merger(*_training_words(word_counts, chars, consume_counts), spec)
    learned = merger.merge(spec.vocab_size - len(metas) - len(chars))
    learned += [c for c, _ in sorted(chars.items(), key=lambda item: (-item[1], item[0]))]
    # A learned piece's score is minus its rank (bpe_model_trainer.cc), as a float32.
    return serialize(((piece, _float32(-rank)) for rank, piece in enumerate(learned)), metas, options)


def serialize(
    learned: Iterable[tuple[str, float]], metas: dict[int, tuple[str, PieceType]], options: SentencePieceOptions
) -> ModelProto:
    """``TrainerInterface::Serialize``: meta pieces at their ids (score 0), the learned ``(piece, score)`` in the
    other slots, in order (both trainers' last step).

    Raises:
        ValueError: a learned piece that is also a meta piece, or (``hard_vocab_limit``) fewer pieces than
            ``vocab_size``.
    """
    spec = options.trainer_spec
    pieces: list[Piece] = []
    queue = iter(learned)
    for piece_id in range(spec.vocab_size):
        if piece_id in metas:
            pieces.append(Piece(metas[piece_id][0], 0.0, metas[piece_id][1]))
        elif (item := next(queue, None)) is not None:
            pieces.append(Piece(item[0], item[1]))
    if len({p.piece for p in pieces}) != len(pieces):
        raise ValueError("sentencepiece training: a learned piece is also a meta piece (is already defined)")
    if spec.hard_vocab_limit and len(pieces) != spec.vocab_size:
        raise ValueError(
            f"sentencepiece option vocab_size={spec.vocab_size} is too high for this corpus; set it to a value <= "
            f"{len(pieces)} (or hard_vocab_limit=False)"
        )
    if not spec.hard_vocab_limit:
        spec = dataclasses.replace(spec, vocab_size=len(pieces))
    return ModelProto(pieces=tuple(pieces), trainer_spec=spec, normalizer_spec=options.normalizer_spec)


def train_bpe_from_text(lines: Iterable[str | bytes], **kwargs: Any) -> bytes:
    """The ``.model`` bytes ``SentencePieceTrainer.train(model_type="bpe", **kwargs)`` writes for ``lines``.

    >>> import sentencepiece
    >>> model = train_bpe_from_text(["abab ab"], vocab_size=9, normalization_rule_name="identity")
    >>> sentencepiece.SentencePieceProcessor(model_proto=model).encode("abab")
    [5]
    """
    from hf_bpe.models.sentencepiece.model_writer import write_model_proto

    options = SentencePieceOptions.from_kwargs(**kwargs)
    return write_model_proto(train_bpe(count_words(lines, options), options))
