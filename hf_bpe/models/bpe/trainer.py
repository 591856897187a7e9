"""Pre-token counts in, ordered merges and a vocabulary out: the BPE trainer, in the steps of ``do_train``.

:func:`train_bpe` takes the steps as the reference numbers them: special tokens, alphabet, words, pair count, merges,
result. The merge loops are their own modules, one per kind of word: :mod:`hf_bpe.models.bpe._merge_loop` (plain
words: byte-level, or characters without affixes) and :mod:`hf_bpe.models.bpe._affixed_loop` (``##b``, ``a</w>``).
This module owns the training rules and nothing else (no files, no printing; progress goes through a callback).
It reproduces ``tokenizers``' ``BpeTrainer::do_train`` (``tokenizers/src/models/bpe/trainer.rs``) rule for rule:

* ids: special tokens first, in the given order; then the alphabet (the initial alphabet plus every character
  of the pre-tokens, cut to ``limit_alphabet``) sorted by code point; for char-level BPE, then the new affixed
  symbols (``t</w>``, ``##b``) in order of first appearance, word by word, each word left to right; then merged
  tokens in creation order. Characters left out of the alphabet are dropped from the words, so their neighbours
  become adjacent.
* pair counts over overlapping windows of each word; the most frequent pair is merged first, ties going to the
  smaller ``(left id, right id)``; a merge whose token already exists keeps the old id.
* the queue is lazy and each queue entry carries the set of words it was made for: a popped entry whose stored
  count is stale is pushed back with the current count (same words); a merge is applied only to the popped
  entry's words; after each merge, pairs that gained occurrences get a new entry for the words where they did.
  The merged pair's own count is not lowered (the reference only updates neighbours), and a pair merged twice
  (possible only when the merge result already existed) keeps its last position in ``merges.txt``.
* entries of the same pair and count pop in the order of the reference's queue, ``dary_heap``'s
  ``OctonaryHeap`` (see :mod:`hf_bpe.models.bpe._affixed_loop`).
* ``max_token_length``: a new pair is counted only if its token would be *shorter* than the limit; the initial
  two-symbol pairs are always counted. Length is per occurrence, as the reference's Word keeps it: every initial
  symbol spans 1 however it is spelled (a byte-level character, ``a</w>``, ``##b``, a special token), a merged
  one the sum of its parts, even where the token already exists with another length.
* stop when the vocabulary is full, when the best count is below ``min_frequency``, or when no pair is left.

The reference's words, and so its affixed symbols' ids and its queue's pushes, come in hash-map order, which
changes from run to run; ours come in one of the orders it can take (the order of ``counts``), so results agree
wherever the reference's do not depend on that order.

Two deliberate differences, both bugs of the reference's:

* it keeps pair counts in 32-bit integers, which wrap above 2**31 (tokenizers#2058); here they are Python
  integers and always right.
* with affixes and ``max_token_length`` a pair count can go below zero (an occurrence too long to be counted is
  uncounted again when a neighbour merges; tokenizers#2320), which the reference reads as a huge unsigned count,
  merging a pair that does not occur; here it is below every positive count.

Continuing (:func:`continue_bpe`): the merge loop starts from a base vocabulary and its merges, each pre-token
first encoded as the base encodes it, with exact pair counts and one queue entry per pair. Training corpus C to N
tokens with the reference and continuing on C to M gives exactly the reference trained on C to M (every id and
merge), for byte-level BPE with any special tokens, ``min_frequency`` and ``max_token_length``. The queue quirks
above cannot make them differ there, because none of them is ever triggered by byte-level training:

* a pair's occurrences are in more than one queue entry (so a merge applies to some of its words, and the pair is
  merged a second time later) only if one of its tokens is made by two different merges. In byte-level training a
  token's string is built inside its own span of the word, where no merge crossed the span's edges (else the token
  could not form), so by the same merges in the same order in every word: its last merge is always the same one,
  made once, for all its words at once.
* the merged pair's own count, left as it was, matters only if the pair occurs again, which needs one of its tokens
  made again: the same argument.
* a merge that makes an existing special token (``"Ġthe"`` as a special token) keeps the special token's id; the
  special token never occurs in the words before, so it behaves as a new token would, in both runs.

So the state the reference has after N merges (words, the counts of every pair that occurs, one entry per pair
covering all its words) is the state continuing rebuilds, and both merge on alike. One rule makes the rebuilt state
match where it otherwise would not: with ``max_token_length``, the reference counts every pair of two initial
symbols at the start but never counts a pair of longer tokens at or above the limit, so continuing does not count
such a pair at the start either (:func:`merge_words`' ``continued``). Char-level BPE with affixes (``##b``, ``a</w>``)
can make one token from two pairs (``h`` + ``##ug`` and ``hu`` + ``##g``), so the quirks matter there; continuing
is byte-level only. Tested against ``tokenizers`` in ``tests/test_continue.py``, random corpora built to hit the
quirks included.

Counting pre-tokens is :mod:`hf_bpe.counting.counting`'s job; file formats are :mod:`hf_bpe.models.bpe.files`'.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import tempfile
from array import array
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, MutableMapping, Sequence
from itertools import islice, repeat
from typing import Any, BinaryIO

from hf_bpe.collector import collector_paused
from hf_bpe.models.bpe._affixed_loop import merge_affixed
from hf_bpe.models.bpe._merge_loop import merge_plain
from hf_bpe.models.bpe.at_scale import CompactWords
from hf_bpe.models.bpe.options import STOP_MIN_FREQUENCY as STOP_MIN_FREQUENCY  # re-exported for the trainers
from hf_bpe.models.bpe.options import STOP_NO_PAIRS as STOP_NO_PAIRS
from hf_bpe.models.bpe.options import STOP_VOCAB_SIZE as STOP_VOCAB_SIZE
from hf_bpe.models.bpe.options import BpeOptions, CharLevel, Merges, Vocab
from hf_bpe.models.bpe.result import TrainResult
from hf_bpe.models.options import check_count
from hf_bpe.pipeline.byte_level import BYTE_ALPHABET
from hf_bpe.processes import run_forked

#: From this many distinct words on, the initial pair count is shared with a child process (see ``workers``).
PARALLEL_MIN_WORDS = 10_000

#: From this many distinct words on, plain words are kept in one flat buffer (:class:`CompactWords`: 2 bytes a
#: symbol instead of a Python string of some 60 bytes more each) and merged by
#: :func:`~hf_bpe.models.bpe.at_scale.merge_tracked`, which keeps a count, a word list and a queue entry only for the
#: pairs that can still be merged; below it the memory is small anyway. On a million synthetic Zipf pre-tokens
#: (``scripts/bench_scale.py``) the merge phase takes 89 bytes a pre-token instead of 336, in the same time. Below,
#: reading and writing a word in the buffer (some 0.5 us a word a merge touches) is what the list loop saves: the
#: loop at scale's merge phase takes 1.1-1.4x its time on the stdlib, 2 MB English, 1 MB Japanese (vocab 8,000)
#: and 1.2x on 200,000 synthetic pre-tokens (vocab 16,000; 152 bytes each instead of 516), issue 40.
COMPACT_MIN_WORDS = 500_000

# The largest id a 2-byte symbol holds: below the UTF-16 surrogates, so that UTF-16 spells every id as one unit.
_NARROW_IDS = 0xD800


ProgressCallback = Callable[[int, int], None]
"""Called as ``progress(merges_done, merges_wanted)`` while merging. One that also has a ``stage`` method (such as
:class:`hf_bpe.progress.StageCallback`) is told of the initial pair count too, as ``progress.stage("pairs",
words_done, words)``."""

#: Words counted between two progress reports of the initial pair count.
_REPORT_WORDS = 1 << 16


def first_tokens(tokens: Iterable[str]) -> tuple[Vocab, list[str]]:
    """The vocabulary before any merge, and its tokens by id: ``tokens`` in order, each once."""
    vocab: Vocab = {}
    ordered: list[str] = []  # id -> token
    for token in tokens:
        if token not in vocab:
            vocab[token] = len(ordered)
            ordered.append(token)
    return vocab, ordered


def train_bpe(
    counts: Mapping[str, int],
    *,
    options: BpeOptions | None = None,
    initial_alphabet: Iterable[str] = BYTE_ALPHABET,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    alphabet_tie_preference: Collection[str] = (),
    consume_counts: bool = False,
    **keywords: Any,
) -> TrainResult:
    """Learn BPE merges from pre-token counts, exactly as ``tokenizers``' ``BpeTrainer`` does.

    Args:
        counts: pre-token to count, spelled in the alphabet of the tokens (byte-level for byte-level BPE).
        options: what to train (:class:`~hf_bpe.models.bpe.options.BpeOptions`; ``limit_alphabet``'s ties:
            :func:`_alphabet`; ``max_token_length``: the module docstring; of ``char_level``, its affixes only),
            taken as handed over.
        initial_alphabet: characters always in the alphabet (default: the 256 byte-level characters).
        workers: processes for the initial pair count (default: the CPU count; used from
            :data:`PARALLEL_MIN_WORDS` words); the result is the same for any number.
        progress: called as ``progress(merges_done, merges_wanted)`` during merging.
        alphabet_tie_preference: characters kept first among those tied at the ``limit_alphabet`` cut (tests give
            a reference run's vocabulary here to reproduce that run's hash order).
        consume_counts: empty ``counts`` (a dict the caller owns and no longer needs) once its words are read, so
            that the merge phase has its memory (a tenth of the peak on 1.2 GB of source code).
        keywords: ``options``' fields, laid over them (:func:`trainer_options`); ``BpeTrainer``'s affix names
            ``end_of_word_suffix`` and ``continuing_subword_prefix`` are taken too.

    Returns:
        The vocabulary, merges and why training stopped.

    Raises:
        ValueError: on a bad option (as :class:`~hf_bpe.models.bpe.options.BpeOptions`) or ``workers``.
        TypeError: naming a keyword that is no option.

    >>> result = train_bpe({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, vocab_size=259)
    >>> result.merges, result.stop_reason
    ([('u', 'g'), ('u', 'n'), ('h', 'ug')], 'vocab_size')
    """
    options = trainer_options(options, keywords)
    check_count("workers", workers, 1, optional=True)
    vocab_size, special_tokens, char_level = options.vocab_size, options.special_tokens, options.char_level
    # 1. The special tokens, then 2. the alphabet (BpeTrainer::compute_alphabet), in the vocabulary.
    seen = _characters(counts)
    alphabet = _alphabet(counts, seen, set(initial_alphabet), options.limit_alphabet, alphabet_tie_preference)
    vocab, tokens = first_tokens([*special_tokens, *sorted(alphabet)])
    # 3. The words as symbol strings (BpeTrainer::tokenize_words).
    affixes = char_level.affixes if char_level is not None else ("", "")
    words, word_counts = _words(counts, vocab, tokens, alphabet | seen, max(vocab_size, len(tokens)), affixes)
    # How many initial symbols each token spans, for max_token_length: one for the alphabet; a special token's
    # length for a special token (outside char-level affixes it can only reach a word as a merge result equal to
    # it, made of that many characters). With affixes, lengths belong to occurrences (_affixed_loop).
    lengths = [len(token) if token in special_tokens else 1 for token in tokens]
    if consume_counts and isinstance(counts, MutableMapping):
        counts.clear()
    # 4. The pair count and 5. the merges (BpeTrainer::count_pairs, then the loop), then the result.
    with collector_paused():
        merges, learned, stop = merge_words(
            words, word_counts, vocab, tokens, lengths, vocab_size=vocab_size, min_frequency=options.min_frequency,
            max_token_length=options.max_token_length, prefix=affixes[1], progress=progress,
            workers=workers or os.cpu_count() or 1, affixed=any(affixes),
        )  # fmt: skip
    return TrainResult(vocab, merges, stop, learned, tuple(special_tokens))


#: ``BpeTrainer``'s names for char-level BPE's affixes, which :func:`train_bpe` takes as keywords too.
AFFIXES = ("end_of_word_suffix", "continuing_subword_prefix")


def trainer_options(options: BpeOptions | None, keywords: dict[str, Any]) -> BpeOptions:
    """What :func:`train_bpe` trains with: ``options`` as handed over when no keyword is given, else the one
    :class:`~hf_bpe.models.bpe.options.BpeOptions` that lays ``keywords`` (its fields, or :data:`AFFIXES`, which
    become ``char_level``'s) over ``options`` (default: the defaults). The one conversion of a keyword caller's
    options (``keywords`` is emptied of the affixes).

    Raises:
        ValueError, TypeError: as :meth:`~hf_bpe.models.bpe.options.BpeOptions.of`.

    >>> given = BpeOptions(vocab_size=300)
    >>> trainer_options(given, {}) is given
    True
    >>> trainer_options(None, {"continuing_subword_prefix": "##"}).char_level
    CharLevel(end_of_word_suffix=None, continuing_subword_prefix='##', lowercase=False)
    """
    affixes = {name: keywords.pop(name) for name in AFFIXES if name in keywords}
    if any(value is not None for value in affixes.values()):
        # Affixes alone make char-level words without the default "</w>" (BpeTrainer's affixes are both None).
        given = keywords.get("char_level") or (options.char_level if options is not None else None)
        keywords["char_level"] = dataclasses.replace(given or CharLevel(end_of_word_suffix=None), **affixes)
    return BpeOptions.of(options, keywords, "train_bpe")


def merge_words(
    words: list[str] | CompactWords,
    word_counts: Sequence[int],
    vocab: Vocab,
    tokens: list[str],
    lengths: list[int],
    *,
    vocab_size: int,
    min_frequency: int,
    max_token_length: int | None,
    progress: ProgressCallback | None,
    workers: int,
    prefix: str = "",
    affixed: bool = False,
    continued: bool = False,
) -> tuple[Merges, int, str]:
    """Count the pairs of ``words`` (symbol strings: :mod:`hf_bpe.models.bpe._merge_loop`) and merge them until
    ``vocab_size``: steps 4 and 5 of :func:`train_bpe`, and the loop :func:`~hf_bpe.models.bpe.continuing.
    continue_bpe` continues with. ``words`` change and ``vocab``, ``tokens`` and ``lengths`` (symbols a token spans)
    grow in place.

    Args:
        affixed: the words are char-level BPE's, with affixed symbols (``prefix``: the continuing-subword prefix);
            they take :func:`~hf_bpe.models.bpe._affixed_loop.merge_affixed`, plain words
            :func:`~hf_bpe.models.bpe._merge_loop.merge_plain`.
        continued: the words start as a base's encoding, so a pair of merged tokens is not counted when its token
            would reach ``max_token_length``: the reference counts such a pair only when it is of two initial
            symbols, and starting from the alphabet it would never have counted the others. A list of
            :data:`COMPACT_MIN_WORDS` words or more is moved into compact words (the list is emptied).
        vocab_size, min_frequency, max_token_length, progress, workers: as :func:`train_bpe`.

    Returns:
        The merges as ``merges.txt`` lists them, how many were made, and why training stopped.
    """
    if continued and isinstance(words, list) and len(words) >= COMPACT_MIN_WORDS:
        words, word_counts = _packed(words, word_counts, vocab_size, len(tokens))
    stage = getattr(progress, "stage", None)
    pairs_progress = None if stage is None else functools.partial(stage, "pairs")
    pair_counts, found_in = _count_pairs(words, word_counts, workers=workers, progress=pairs_progress)
    if continued and max_token_length is not None:
        for pair in [p for p in found_in if lengths[ord(p[0])] + lengths[ord(p[1])] >= max_token_length]:
            if lengths[ord(pair[0])] > 1 or lengths[ord(pair[1])] > 1:
                del pair_counts[pair], found_in[pair]
    if affixed:
        if not isinstance(words, list):
            raise TypeError("affixed words are a list of symbol strings, never compact words")
        merges, stop = merge_affixed(
            words, word_counts, vocab, tokens, pair_counts, found_in, vocab_size=vocab_size,
            min_frequency=min_frequency, max_token_length=max_token_length, prefix=prefix, progress=progress,
        )  # fmt: skip
    else:
        merges, stop = merge_plain(
            words, word_counts, vocab, tokens, lengths, pair_counts, found_in, vocab_size=vocab_size,
            min_frequency=min_frequency, max_token_length=max_token_length, progress=progress,
            recount_progress=pairs_progress,
        )  # fmt: skip
    return _merges_in_order(merges, tokens, stop)


def _words(
    counts: Mapping[str, int],
    vocab: dict[str, int],
    tokens: list[str],
    characters: set[str],
    size: int,
    affixes: tuple[str, str],
) -> tuple[list[str] | CompactWords, Sequence[int]]:
    """The words as symbol strings (``BpeTrainer::tokenize_words``) and their counts, for a vocabulary of ``size``
    at most and ``affixes`` (end-of-word suffix, continuing-subword prefix; empty: none). Characters outside the
    vocabulary are dropped. Words of fewer than two symbols have no pair and never change, so they are left out."""
    if any(affixes):
        return _affixed_words(counts, vocab, tokens, *affixes)
    return _plain_words(counts, vocab, characters, wide=size > _NARROW_IDS)


def _alphabet(
    counts: Mapping[str, int],
    seen: set[str],
    initial: set[str],
    limit_alphabet: int | None,
    tie_preference: Collection[str],
) -> set[str]:
    """The alphabet (BpeTrainer::compute_alphabet): the characters seen and the initial ones, cut to the
    ``limit_alphabet`` most frequent, the initial ones counting as the most frequent of all.

    With the full byte alphabet as initial alphabet and a limit below 256, the reference picks among equally
    "frequent" characters in hash order, so it is not deterministic; here the characters most frequent in the text
    are kept, then the lowest code points. ``tie_preference``: characters kept first among those tied at the cut.
    """
    alphabet = seen | initial
    if limit_alphabet is None or len(alphabet) <= limit_alphabet:
        return alphabet
    frequency: dict[str, int] = dict.fromkeys(seen, 0)
    for word, count in counts.items():
        for char in word:
            frequency[char] += count
    # Rarest first; initial characters go last (the reference: infinitely frequent), and among them the rarer in the
    # text, then higher code points, go first (the reference leaves that order to hash iteration).
    preferred = set(tie_preference)
    ranked = sorted(alphabet, key=lambda c: (c in initial, frequency.get(c, 0), c in preferred, -ord(c)))
    return set(ranked[len(alphabet) - limit_alphabet :])


def _characters(counts: Mapping[str, int]) -> set[str]:
    """Every character of the pre-tokens (joined some at a time: all at once would be a copy of them all)."""
    seen: set[str] = set()
    keys = iter(counts)
    while chunk := list(islice(keys, 1 << 16)):
        seen.update("".join(chunk))
    return seen


def _plain_words(
    counts: Mapping[str, int], vocab: Vocab, chars: set[str], *, wide: bool
) -> tuple[list[str] | CompactWords, Sequence[int]]:
    """Words as symbol strings (:mod:`hf_bpe.models.bpe._merge_loop`; characters outside the vocabulary dropped),
    with their counts: a list, or from :data:`COMPACT_MIN_WORDS` pre-tokens on a :class:`CompactWords` (``wide``: 4-byte
    symbols), made word by word so that the strings never all exist at once."""
    table = {ord(char): chr(vocab[char]) if char in vocab else None for char in chars}
    if len(counts) < COMPACT_MIN_WORDS or not _compact_fits(counts.values(), max(map(len, counts), default=0)):
        return symbol_words(counts, lambda word: word.translate(table))
    compact = CompactWords.from_pairs(_spelled_words(counts, lambda word: word.translate(table)), wide=wide)
    return compact, compact.counts


def _compact_fits(word_counts: Iterable[int], longest: int) -> bool:
    """Whether every pair count of words this long at most, counting ``word_counts``, fits the 64 bits compact words
    keep a count in: a pair occurs fewer than ``longest`` times a word. Past that (no corpus comes near) the words
    stay Python strings and ints, exact at any size."""
    return sum(word_counts) * max(longest - 1, 1) < 1 << 64


def symbol_words(counts: Mapping[str, int], spell: Callable[[str], str]) -> tuple[list[str], list[int]]:
    """The words of ``counts`` spelled as symbol strings by ``spell``, with their counts; words of fewer than two
    symbols have no pair and never change, so they are left out.

    Raises:
        ValueError: on a negative count.
    """
    words: list[str] = []
    word_counts: list[int] = []
    for symbols, count in _spelled_words(counts, spell):
        words.append(symbols)
        word_counts.append(count)
    return words, word_counts


def _spelled_words(counts: Mapping[str, int], spell: Callable[[str], str]) -> Iterator[tuple[str, int]]:
    """:func:`symbol_words`' words one at a time."""
    for word, count in counts.items():
        if count < 0:
            raise ValueError(f"pre-token {word!r} has count {count}; counts must be non-negative")
        if len(word) < 2:
            continue
        symbols = spell(word)
        if len(symbols) > 1:
            yield symbols, count


def _affixed_words(
    counts: Mapping[str, int], vocab: Vocab, tokens: list[str], suffix: str, prefix: str
) -> tuple[list[str], list[int]]:
    """Words as symbol strings (:mod:`hf_bpe.models.bpe._merge_loop`) for char-level BPE: every character but the
    first carries ``prefix``, the last one ``suffix`` (first and last by position in the word, also where a
    character is dropped, as BpeTrainer::tokenize_words has it).

    New affixed symbols (``"t</w>"``, ``"##b"``) are numbered right after the alphabet in order of first
    appearance: word by word in the order of ``counts``, each word's characters left to right. That is what
    BpeTrainer::tokenize_words does, except that its words come in hash-map order (which changes from run to run);
    ours are one of the orders it can take, so the ids agree wherever its result does not depend on that order.
    """
    spelled: list[tuple[list[str], int]] = []
    for word, count in counts.items():
        if count < 0:
            raise ValueError(f"pre-token {word!r} has count {count}; counts must be non-negative")
        symbols = []
        last = len(word) - 1
        for position, char in enumerate(word):
            if char not in vocab:
                continue
            symbols.append(f"{prefix if position else ''}{char}{suffix if position == last else ''}")
        spelled.append((symbols, count))
    for symbols, _ in spelled:
        for symbol in symbols:
            if symbol not in vocab:
                vocab[symbol] = len(tokens)
                tokens.append(symbol)
    words = ["".join([chr(vocab[symbol]) for symbol in symbols]) for symbols, _ in spelled if len(symbols) > 1]
    word_counts = [count for symbols, count in spelled if len(symbols) > 1]
    return words, word_counts


def _count_pairs(
    words: Sequence[str] | CompactWords,
    word_counts: Sequence[int],
    *,
    workers: int,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[defaultdict[str, int], defaultdict[str, array[int]]]:
    """Initial pair counts, and the words each pair occurs in (BpeTrainer::count_pairs), in increasing order.

    With two or more ``workers`` and at least :data:`PARALLEL_MIN_WORDS` words, a child process counts the second
    half of the words while this one counts the first (the reference counts in parallel too); counts add up and
    the child's words follow the parent's, so the result is the same. ``progress(words_done, words)`` reports
    this process's part (the child's goes at the same pace).
    """
    here = _count_pair_range if progress is None else functools.partial(_count_pair_range, progress=progress)
    if workers < 2 or len(words) < PARALLEL_MIN_WORDS:
        return here(words, word_counts, 0, len(words))
    half = len(words) // 2
    with tempfile.TemporaryFile() as spill:
        jobs: list[Callable[[], Any]] = [
            functools.partial(_count_pairs_spilled, words, word_counts, half, len(words), spill),
            functools.partial(here, words, word_counts, 0, half),
        ]
        (counted, found), (pair_counts, where) = run_forked(jobs, "hf_bpe pair count")
        for pair, count in counted.items():
            pair_counts[pair] += count
        spill.seek(0)
        for pair, size in found:
            where[pair].fromfile(spill, size)
    return pair_counts, where


def _count_pairs_spilled(
    words: Sequence[str] | CompactWords, word_counts: Sequence[int], start: int, stop: int, spill: BinaryIO
) -> tuple[defaultdict[str, int], list[tuple[str, int]]]:
    """:func:`_count_pair_range`, the words of each pair written to ``spill`` one after the other instead of
    returned: pickled back they would be in the parent's memory twice at once (the pickle's bytes and the arrays
    made from them). Returns the counts, and each pair with how many words it has in ``spill``."""
    counted, found = _count_pair_range(words, word_counts, start, stop)
    sizes = []
    for pair, indices in found.items():
        indices.tofile(spill)
        sizes.append((pair, len(indices)))
    spill.flush()
    return counted, sizes


def _count_pair_range(
    words: Sequence[str] | CompactWords,
    word_counts: Sequence[int],
    start: int,
    stop: int,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[defaultdict[str, int], defaultdict[str, array[int]]]:
    """:func:`_count_pairs` for ``words[start:stop]``.

    The loops over a word's pairs run in C (``map``, ``Counter.update``, a ``deque`` that consumes): only the
    pairs of words seen more than once are counted in Python. defaultdicts: a missing pair counts 0 (the
    reference's ``entry().or_default()``) without a method call. A pair's words are an array of ints, each word
    once (``dict.fromkeys`` of its pairs): a set of ints takes ten times the memory.
    """
    pair_counts: defaultdict[str, int] = defaultdict(int)
    where: defaultdict[str, array[int]] = defaultdict(functools.partial(array, "i"))
    seen_once: Counter[str] = Counter()  # pairs of the words seen once
    batch: list[str] = []
    join = str.__add__
    add_word = array.append
    words_of = where.__getitem__
    consume = deque[object](maxlen=0).extend
    read = words.read(start, stop) if isinstance(words, CompactWords) else islice(words, start, stop)
    for index, word in zip(range(start, stop), read, strict=True):
        pairs = list(map(join, word[:-1], word[1:]))
        count = word_counts[index]
        if count == 1:
            batch += pairs
            if len(batch) >= 1 << 16:
                seen_once.update(batch)
                batch.clear()
        else:
            for pair in pairs:
                pair_counts[pair] += count
        consume(map(add_word, map(words_of, dict.fromkeys(pairs)), repeat(index)))
        if not index % _REPORT_WORDS and progress is not None:
            progress(index - start, stop - start)
    seen_once.update(batch)
    for pair, count in seen_once.items():
        pair_counts[pair] += count
    if progress is not None:
        progress(stop - start, stop - start)
    return pair_counts, where


def _packed(
    words: list[str], word_counts: Sequence[int], vocab_size: int, tokens: int
) -> tuple[list[str] | CompactWords, Sequence[int]]:
    """``words`` moved into :class:`CompactWords` (the list emptied), unless a count is too large for them."""
    if not _compact_fits(word_counts, max(map(len, words), default=0)):
        return words, word_counts
    packed = CompactWords.pack(words, word_counts, wide=max(vocab_size, tokens) > _NARROW_IDS)
    words.clear()
    return packed, packed.counts


def _merges_in_order(merges: list[str], tokens: list[str], stop: str) -> tuple[Merges, int, str]:
    """The merges as ``merges.txt`` lists them, how many were made, and ``stop``. The reference keeps merges in a
    map from pair to (rank, id): a pair merged twice keeps its last rank."""
    learned = len(merges)
    final_rank = {pair: rank for rank, pair in enumerate(merges)}
    if len(final_rank) < learned:
        merges = [pair for rank, pair in enumerate(merges) if final_rank[pair] == rank]
    ordered = [(tokens[ord(pair[0])], tokens[ord(pair[1])]) for pair in merges]
    return ordered, learned, stop
