"""Training a SentencePiece Unigram model as ``spm_train --model_type=unigram`` (sentencepiece 0.2.3, the default
model type) trains it with ``num_threads=1``, from counts, so that memory follows distinct words, not sentences.

The steps are ``unigram::Trainer::Train``'s (unigram_model_trainer.cc), named after its functions:

1. :func:`count_sentences` (``LoadSentences``): lines read, skipped and normalized as :func:`.train_bpe.count_words`
   does. The seed pieces come from a suffix array over *whole sentences* joined by NUL bytes, so the words alone do
   not decide them: a substring is a seed candidate where it is an internal node of that suffix tree, i.e. where its
   occurrences are followed by two different bytes. Inside a word the following byte is the word's; at a word's end
   it is the next word's first byte, or NUL at a sentence's end, where the byte after that NUL is the next
   sentence's first byte (or the end of the text). So each word is counted with what follows it
   (:class:`SentenceCounts`), sentences in the order ``LoadSentences`` leaves them (a line normalized to nothing is
   removed by swapping the last sentence into its place; that reordering is reproduced).
2. ``MakeSeedSentencePiecesFromCorpus`` (:func:`seed_pieces`): every character, then the internal nodes' strings
   that are valid pieces, scored by frequency times length, the best ``seed_sentencepiece_size`` kept.
3. ``TrainDiscretePruning``: EM sub-iterations (``RunEStep``'s forward-backward marginals, ``RunMStep``'s
   Bayesian digamma update) then ``PruneSentencePieces`` (the second-best segmentation of each piece by A*
   ``Lattice::NBest``, Viterbi frequencies, the likelihood loss), until at most 1.1 x ``vocab_size`` pieces remain;
   then ``PruneUnreachableSentencePieces`` and ``FinalizeSentencePieces``.

Every float the reference keeps as a C ``float`` is rounded to float32 after each operation, in the reference's
order (its node order, its sums), so the scores come out bit for bit; the trainer's model gives its unknown node id
0 (``ModelInterface::unk_id_``'s default), whose marginal lands on piece 0 as in the reference.

Not implemented, refused by name: ``split_by_whitespace=False`` (the E-step then sums over sentences in corpus
order), corpora over one 500 MB suffix-array chunk, seed files, and the options :mod:`.train_bpe` refuses.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import struct
from collections import Counter, deque
from collections.abc import Iterable, Mapping
from typing import Any

from hf_bpe.models.sentencepiece.model_proto import ModelProto, ModelType, TrainerSpec
from hf_bpe.models.sentencepiece.normalization import Normalizer
from hf_bpe.models.sentencepiece.train_bpe import (
    BOUNDARY,
    UNK_CHAR,
    SentencePieceOptions,
    is_valid_piece,
    meta_matcher,
    meta_pieces,
    replace_meta,
    required_chars,
    serialize,
    split_into_words,
)
from hf_bpe.models.unigram.trainer import digamma  # unigram_model_trainer.cc's Digamma, as trainer.rs ports it

_F32 = struct.Struct("<f")
#: The suffix array's chunk (``kMaxChunkBytes``): sentences are joined into buffers of this size.
MAX_CHUNK_BYTES = 500 * 1024 * 1024
#: What follows a sentence's NUL at the end of the text (no byte).
END = ""


def f32(value: float) -> float:
    """``value`` rounded to a C ``float``."""
    return float(_F32.unpack(_F32.pack(value))[0])


# -- counting (LoadSentences) ---------------------------------------------------------------------------------------


@dataclasses.dataclass
class SentenceCounts:
    """What the Unigram trainer needs of the sentences: each word with what follows it, counted.

    ``followed[(word, follower)]``: the follower is the next word's first character within a sentence, or, at a
    sentence's end, NUL followed by the next sentence's first character (NUL alone after the last sentence).
    """

    followed: Counter[tuple[str, str]] = dataclasses.field(default_factory=Counter)

    def word_counts(self) -> Counter[str]:
        """The words and their counts, as :func:`.train_bpe.count_words` gives them."""
        words: Counter[str] = Counter()
        for (word, _), count in self.followed.items():
            words[word] += count
        return words


@dataclasses.dataclass
class _Order:
    """``LoadSentences``' removal of sentences normalized to nothing (swap with the last, pop), reproduced from a
    bounded record: the sentences beside each removed one and the last (removed + 2) sentences. A sentence is
    ``(first char, last word)``."""

    index: int = 0
    empties: list[int] = dataclasses.field(default_factory=list)
    pinned: dict[int, tuple[str, str]] = dataclasses.field(default_factory=dict)
    tail: deque[tuple[int, tuple[str, str] | None]] = dataclasses.field(default_factory=deque)
    previous: tuple[str, str] | None = None

    def add(self, sentence: tuple[str, str] | None, counts: SentenceCounts) -> None:
        if sentence is None:
            self.empties.append(self.index)
            if self.previous is not None:
                self.pinned[self.index - 1] = self.previous
        else:
            if self.previous is not None:
                counts.followed[self.previous[1], "\0" + sentence[0]] += 1
            elif self.index > 0:
                self.pinned[self.index] = sentence  # after a removed one
        self.tail.append((self.index, sentence))
        while len(self.tail) > len(self.empties) + 2:
            self.tail.popleft()
        self.previous = sentence
        self.index += 1

    def finish(self, counts: SentenceCounts) -> None:
        """Undo the pairs the reordering breaks and count the ones it makes."""
        n, m = self.index, len(self.empties)
        size = n - m
        if size == 0:
            return
        record = dict(self.pinned)
        record.update((i, s) for i, s in self.tail if s is not None)
        # The pairs (i, i + 1) counted in corpus order whose right one is past the new end are gone: it moved into
        # a hole (or was removed).
        for i in range(size - 1, n - 1):
            left, right = record.get(i), record.get(i + 1)
            if left is not None and right is not None:
                counts.followed[left[1], "\0" + right[0]] -= 1
        holes = [e for e in self.empties if e < size]
        fillers = [s for i, s in reversed(self.tail) if i >= size and s is not None]
        final = dict(zip(holes, fillers, strict=True))
        final.update((i, s) for i, s in record.items() if i < size and i not in final)
        for j in sorted({j for e in holes for j in (e - 1, e) if 0 <= j < size - 1}):
            counts.followed[final[j][1], "\0" + final[j + 1][0]] += 1
        counts.followed[final[size - 1][1], "\0"] += 1
        counts.followed += Counter()  # drop the pairs counted down to zero


def count_sentences(lines: Iterable[str | bytes], options: SentencePieceOptions) -> SentenceCounts:
    """The words ``spm_train --model_type=unigram`` trains on, each with what follows it, from lines of text.

    Lines are read, skipped and normalized as :func:`.train_bpe.count_words` reads them.

    Raises:
        ValueError: where the sentences exceed one suffix-array chunk (500 MB), which hf_bpe does not reproduce.

    >>> options = SentencePieceOptions.from_kwargs(model_type="unigram", normalization_rule_name="identity")
    >>> sorted(count_sentences(["a b", "b"], options).followed.items())
    [(('▁a', '▁'), 1), (('▁b', '\\x00'), 1), (('▁b', '\\x00▁'), 1)]
    """
    spec = options.trainer_spec
    matcher = meta_matcher(spec)
    suffix = spec.treat_whitespace_as_suffix
    normalizer = Normalizer(options.normalizer_spec, suffix)
    counts = SentenceCounts()
    order = _Order()
    total = 0
    for line in lines:
        raw = line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")
        if not raw or len(raw) > spec.max_sentence_length or UNK_CHAR.encode() in raw:
            continue
        sentence = replace_meta(normalizer.normalize(raw.decode("utf-8", "surrogateescape")), matcher)
        if not sentence:
            order.add(None, counts)
            continue
        total += len(sentence.encode("utf-8", "surrogatepass")) + 1
        if total >= MAX_CHUNK_BYTES:
            raise ValueError(
                "sentencepiece Unigram training over more than one 500 MB suffix-array chunk of sentences is not "
                "implemented by hf_bpe; sample the corpus (input_sentence_size) or train BPE"
            )
        words = split_into_words(sentence, treat_whitespace_as_suffix=suffix)
        for word, following in itertools.pairwise(words):
            counts.followed[word, following[0]] += 1
        order.add((sentence[0], words[-1]), counts)
    order.finish(counts)
    return counts


# -- seed pieces (MakeSeedSentencePiecesFromCorpus) -----------------------------------------------------------------


def _lead(text: str) -> int:
    """The first UTF-8 byte of ``text`` (-1 for the end of the text): the suffix array branches on bytes."""
    return text[0].encode("utf-8", "surrogatepass")[0] if text else -1


def _replace_rare(text: str, chars: Mapping[str, int]) -> str:
    """``LoadSentences``: characters outside the required ones become U+2585."""
    return text if all(c in chars for c in text) else "".join(c if c in chars else UNK_CHAR for c in text)


def _candidates(followed: Mapping[tuple[str, str], int], spec: TrainerSpec) -> dict[str, int]:
    """The suffix tree's internal nodes that are valid pieces, with the frequency ``queue.Add`` sums for each.

    A string is an internal node (an LCP interval) where it occurs twice or more and not always before the same
    byte. A piece ``p`` gains the count of its node and of the node ``p`` + NUL (sentences ending with ``p``), whose
    trailing NUL the reference trims.
    """
    occurrences: Counter[str] = Counter()
    next_bytes: dict[str, set[int]] = {}
    at_end: Counter[str] = Counter()
    after_end: dict[str, set[int]] = {}
    valid: dict[str, bool] = {}
    longest = spec.max_sentencepiece_length
    for (word, follower), count in followed.items():
        size = len(word)
        for start in range(size):
            for stop in range(start + 2, min(start + longest, size) + 1):
                piece = word[start:stop]
                ok = valid.get(piece)
                if ok is None:
                    ok = valid[piece] = is_valid_piece(piece, spec)
                if not ok:
                    continue
                occurrences[piece] += count
                following = _lead(word[stop:]) if stop < size else (0 if follower[0] == "\0" else _lead(follower))
                next_bytes.setdefault(piece, set()).add(following)
                if stop == size and follower[0] == "\0":
                    at_end[piece] += count
                    after_end.setdefault(piece, set()).add(_lead(follower[1:]))
    found: dict[str, int] = {}
    for piece, count in occurrences.items():
        if count >= 2 and len(next_bytes[piece]) >= 2:
            found[piece] = count
    for piece, count in at_end.items():
        if count >= 2 and len(after_end[piece]) >= 2:
            found[piece] = found.get(piece, 0) + count
    return found


def _seed_order(item: tuple[str, float]) -> tuple[float, int, bytes]:
    """``BoundedPriorityQueue``'s order: higher score, then longer in bytes, then the smaller bytes."""
    key = item[0].encode("utf-8", "surrogatepass")
    return (-item[1], -len(key), key)


def _sorted(items: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """``Sorted`` (util.h): higher value first, then the smaller key (UTF-8 bytes order is code point order)."""
    return sorted(items, key=lambda item: (-item[1], item[0]))


def _to_log_prob(pieces: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """``ToLogProb``: each value's log minus the log of their (double) sum, as floats."""
    total = 0.0
    for _, value in pieces:
        total += value
    log_sum = math.log(total)
    return [(piece, f32(math.log(value) - log_sum)) for piece, value in pieces]


def seed_pieces(followed: Mapping[tuple[str, str], int], spec: TrainerSpec) -> list[tuple[str, float]]:
    """``MakeSeedSentencePiecesFromCorpus``: every character by count, then the best substrings by frequency
    times length, as log probabilities.

    Args:
        followed: :class:`SentenceCounts`' counts, rare characters already replaced by U+2585.
        spec: the trainer spec (``seed_sentencepiece_size``, ``max_sentencepiece_length``, ``vocab_size``, ...).
    """
    all_chars: Counter[str] = Counter()
    for (word, _), count in followed.items():
        for c in word:
            if c not in (UNK_CHAR, BOUNDARY):
                all_chars[c] += count
    seeds = [(c, f32(count)) for c, count in _sorted(all_chars.items())]
    size = spec.seed_sentencepiece_size or max(100000, spec.vocab_size * 8)
    scored = [
        (piece, f32(f32(count) * f32(len(piece))))  # CalculateScore with seed_piece_length_power 1
        for piece, count in _candidates(followed, spec).items()
    ]
    if len(scored) > 2 * 8 * size:  # MaybeGc after the chunk: keeps the best 8 x size
        scored = sorted(scored, key=_seed_order)[: 8 * size]
    seeds += sorted(scored, key=_seed_order)[:size]
    return _to_log_prob(seeds)


# -- the trainer's model and lattice (TrainerModel, Model::PopulateNodes, Lattice) ----------------------------------

#: ``kUnkPenalty``: the unknown node scores this much below the model's lowest score.
UNK_PENALTY = 10.0
#: A lattice node: (start, end, piece id, score), positions in characters.
Node = tuple[int, int, int, float]


class _Model:
    """``TrainerModel``: pieces with scores; its unknown node takes id 0 (``ModelInterface::unk_id_``'s default)."""

    def __init__(self, pieces: list[tuple[str, float]]) -> None:
        self.pieces = pieces
        self.ids = {piece: i for i, (piece, _) in enumerate(pieces)}
        self.longest = max(len(piece) for piece, _ in pieces)
        self.min_score = min(score for _, score in pieces)
        self.unk_score = f32(self.min_score - UNK_PENALTY)

    def nodes(self, word: str) -> list[list[Node]]:
        """``PopulateNodes``: the nodes starting at each position, shorter first (the trie's common prefix search),
        an unknown node last where no one-character piece starts."""
        ids, pieces = self.ids, self.pieces
        size = len(word)
        begins: list[list[Node]] = []
        for start in range(size):
            here: list[Node] = []
            for stop in range(start + 1, min(start + self.longest, size) + 1):
                ident = ids.get(word[start:stop])
                if ident is not None:
                    here.append((start, stop, ident, pieces[ident][1]))
            if not here or here[0][1] != start + 1:
                here.append((start, start + 1, 0, self.unk_score))
            begins.append(here)
        return begins


def _ends(begins: list[list[Node]]) -> list[list[Node]]:
    """Each position's nodes ending there, in insertion order (by start)."""
    ends: list[list[Node]] = [[] for _ in range(len(begins) + 1)]
    for here in begins:
        for node in here:
            ends[node[1]].append(node)
    return ends


def _log_sum_exp(x: float, y: float) -> float:
    """``LogSumExp`` (unigram_model.cc), not in init mode, in floats."""
    vmin, vmax = (x, y) if x < y else (y, x)
    if vmax > f32(vmin + 50.0):
        return vmax
    return f32(vmax + math.log1p(math.exp(f32(vmin - vmax))))


def add_marginals(begins: list[list[Node]], freq: float, expected: list[float]) -> None:
    """``Lattice::PopulateMarginal``: adds ``freq`` times each node's marginal to ``expected[id]``.

    The forward score of a node depends only on its start, the backward one only on its end, so they are kept by
    position; each is folded over the same nodes in the same order as ``ForwardAlgorithm`` and
    ``BackwardAlgorithm``.
    """
    size = len(begins)
    ends = _ends(begins)
    alpha = [0.0] * (size + 1)
    for pos in range(1, size + 1):
        nodes = ends[pos]
        acc = f32(nodes[0][3] + alpha[nodes[0][0]])
        for node in nodes[1:]:
            acc = _log_sum_exp(acc, f32(node[3] + alpha[node[0]]))
        alpha[pos] = acc
    beta = [0.0] * (size + 1)
    for pos in range(size - 1, -1, -1):
        nodes = begins[pos]
        acc = f32(nodes[0][3] + beta[nodes[0][1]])
        for node in nodes[1:]:
            acc = _log_sum_exp(acc, f32(node[3] + beta[node[1]]))
        beta[pos] = acc
    z = alpha[size]
    for here in begins:
        for start, stop, ident, score in here:
            marginal = math.exp(f32(f32(f32(alpha[start] + score) + beta[stop]) - z))
            expected[ident] = f32(expected[ident] + freq * marginal)


def viterbi(begins: list[list[Node]]) -> tuple[list[Node], float]:
    """``Lattice::Viterbi``: the best path (the first of equal candidates, in end-node order) and its score."""
    size = len(begins)
    ends = _ends(begins)
    best: dict[Node | None, tuple[float, Node | None]] = {None: (0.0, None)}  # None: BOS
    final: tuple[float, Node | None] = (0.0, None)
    for pos in range(size + 1):
        lefts: list[Node | None] = [None] if pos == 0 else list(ends[pos])
        rights: list[Node | None] = list(begins[pos]) if pos < size else [None]
        for right in rights:
            gain = right[3] if right is not None else 0.0
            chosen: tuple[float, Node | None] | None = None
            for left in lefts:
                score = f32(best[left][0] + gain)
                if chosen is None or score > chosen[0]:
                    chosen = (score, left)
            assert chosen is not None
            if right is None:
                final = chosen
            else:
                best[right] = chosen
    path: list[Node] = []
    node = final[1]
    while node is not None:
        path.append(node)
        node = best[node][1]
    return path[::-1], final[0]


# -- the two best paths (Lattice::NBest: A* over a std::priority_queue) --------------------------------------------

#: A hypothesis: (fx, gx, node, next); node None is BOS, "eos" the end.
_Hyp = tuple[float, float, Any, Any]


def _sift_up(heap: list[_Hyp], hole: int, value: _Hyp) -> None:
    """libstdc++'s ``__push_heap`` with ``fx`` less-than: ties stay where that algorithm leaves them."""
    parent = (hole - 1) // 2
    while hole > 0 and heap[parent][0] < value[0]:
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = value


def _push(heap: list[_Hyp], value: _Hyp) -> None:
    heap.append(value)
    _sift_up(heap, len(heap) - 1, value)


def _pop(heap: list[_Hyp]) -> _Hyp:
    """``std::pop_heap`` then ``pop_back`` (libstdc++'s ``__adjust_heap``), returning the top."""
    top = heap[0]
    value = heap.pop()
    length = len(heap)
    if length == 0:
        return top
    hole = child = 0
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if heap[child][0] < heap[child - 1][0]:
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    _sift_up(heap, hole, value)
    return top


def nbest2(begins: list[list[Node]]) -> list[list[Node]]:
    """``Lattice::NBest(2, false, 0)``: the best and second-best paths (one where there is only one)."""
    size = len(begins)
    ends = _ends(begins)
    path, total = viterbi(begins)
    backtrace = _backtrace_scores(begins, ends)
    heap: list[_Hyp] = []
    _push(heap, (total, 0.0, "eos", None))
    results: list[list[Node]] = []
    while heap:
        top = _pop(heap)
        node = top[2]
        if node is None:
            nodes: list[Node] = []
            hyp = top[3]
            while hyp is not None and hyp[3] is not None:
                nodes.append(hyp[2])
                hyp = hyp[3]
            results.append(nodes)
            if len(results) == 2:
                break
            continue
        pos = size if node == "eos" else node[0]
        for left in ends[pos] if pos > 0 else [None]:
            score, bt = (0.0, 0.0) if left is None else (left[3], backtrace[left])
            _push(heap, (f32(bt + top[1]), f32(score + top[1]), left, top))
    return results if results else [path]


def _backtrace_scores(begins: list[list[Node]], ends: list[list[Node]]) -> dict[Node, float]:
    """Each node's ``backtrace_score`` as ``Viterbi`` leaves it."""
    best: dict[Node, float] = {}
    for pos, here in enumerate(begins):
        for right in here:
            chosen: float | None = None
            for left in ends[pos] if pos > 0 else [None]:
                score = f32((0.0 if left is None else best[left]) + right[3])
                if chosen is None or score > chosen:
                    chosen = score
            best[right] = chosen if chosen is not None else 0.0
    return best


# -- EM and pruning (RunEStep, RunMStep, PruneSentencePieces, PruneUnreachableSentencePieces) ----------------------


def e_step(model: _Model, words: list[tuple[str, int]]) -> list[float]:
    """``RunEStep`` with one thread: the expected count of each piece, summed over the words in order."""
    expected = [0.0] * len(model.pieces)
    for word, count in words:
        add_marginals(model.nodes(word), f32(count), expected)
    return expected


def m_step(model: _Model, expected: list[float]) -> list[tuple[str, float]]:
    """``RunMStep``: pieces expected fewer than 0.5 times go; the rest score digamma(count) - digamma(sum)."""
    kept: list[tuple[str, float]] = []
    total = 0.0
    for (piece, _), freq in zip(model.pieces, expected, strict=True):
        if freq < 0.5:
            continue
        kept.append((piece, freq))
        total = f32(total + freq)
    log_sum = f32(digamma(total))
    return [(piece, f32(digamma(freq) - log_sum)) for piece, freq in kept]


def _viterbi_freqs(model: _Model, words: list[tuple[str, int]]) -> list[float]:
    freq = [0.0] * len(model.pieces)
    for word, count in words:
        for node in viterbi(model.nodes(word))[0]:
            freq[node[2]] = f32(freq[node[2]] + f32(count))
    return freq


def prune(model: _Model, words: list[tuple[str, int]], spec: TrainerSpec, desired: int) -> list[tuple[str, float]]:
    """``PruneSentencePieces``: keeps the pieces whose removal loses the most likelihood."""
    pieces = model.pieces
    always_keep = [True] * len(pieces)
    alternatives: list[list[int]] = [[] for _ in pieces]
    for i, (piece, _) in enumerate(pieces):
        nbests = nbest2(model.nodes(piece))
        if len(nbests) == 1:
            continue
        if len(nbests[0]) >= 2:
            always_keep[i] = False
        elif len(nbests[0]) == 1:
            alternatives[i] = [node[2] for node in nbests[1]]
    freq = _viterbi_freqs(model, words)
    total_double = 0.0
    for value in freq:
        total_double += value
    total = f32(total_double)
    log_sum = f32(math.log(total))
    kept: list[tuple[str, float]] = []
    candidates: list[tuple[int, float]] = []
    for i, item in enumerate(pieces):
        if freq[i] == 0 or not always_keep[i]:
            continue
        if not alternatives[i]:
            kept.append(item)
            continue
        logprob_sp = f32(math.log(freq[i]) - log_sum)
        logsum_alt = f32(math.log(f32(total + f32(freq[i] * f32(len(alternatives[i]) - 1)))))
        logprob_alt = 0.0
        for n in alternatives[i]:
            logprob_alt = f32(logprob_alt + (math.log(f32(freq[n] + freq[i])) - logsum_alt))
        share = f32(freq[i] / total)
        candidates.append((i, f32(share * f32(logprob_sp - logprob_alt))))
    pruned_size = max(desired, int(f32(spec.shrinking_factor * f32(len(pieces)))))
    for i, _ in sorted(candidates, key=lambda item: (-item[1], item[0])):
        if len(kept) == pruned_size:
            break
        kept.append(pieces[i])
    return kept


def prune_unreachable(model: _Model) -> list[tuple[str, float]]:
    """``PruneUnreachableSentencePieces``: a piece whose own string segments better without it goes."""
    kept: list[tuple[str, float]] = []
    for i, (piece, score) in enumerate(model.pieces):
        begins = model.nodes(piece)
        whole = next((k for k, node in enumerate(begins[0]) if node[2] == i and node[1] == len(piece)), None)
        if whole is None:
            continue
        begins[0][whole] = (0, len(piece), i, -math.inf)
        path, alternative = viterbi(begins)
        if path and alternative > score:
            continue
        kept.append((piece, score))
    return kept


# -- the whole training (Trainer::Train, FinalizeSentencePieces, Serialize) -----------------------------------------


def finalize(model: _Model, chars: Mapping[str, int], vocab: int) -> list[tuple[str, float]]:
    """``FinalizeSentencePieces``: the required characters (missing ones just above the lowest score), then the
    best-scored pieces, ``vocab`` in all, best first."""
    scores = dict(model.pieces)
    final: dict[str, float] = {}
    penalty = 0.0
    for c, _ in _sorted(chars.items()):
        if c in scores:
            final[c] = scores[c]
        else:
            final[c] = f32(model.min_score + penalty)
            penalty = f32(penalty + f32(0.0001))
    if vocab <= 0:
        return []
    for piece, score in _sorted(model.pieces):
        if piece in final:
            continue
        if len(final) == vocab:
            break
        final[piece] = score
    return _sorted(final.items())


def train_unigram(counts: SentenceCounts, options: SentencePieceOptions) -> ModelProto:
    """The model ``spm_train --model_type=unigram --num_threads=1`` trains on the text ``counts`` was counted from.

    Raises:
        ValueError: as ``spm_train`` fails (a vocabulary too small for the required characters and meta pieces, or
            too large for the corpus with ``hard_vocab_limit``), or naming an option hf_bpe does not implement.

    >>> options = SentencePieceOptions.from_kwargs(
    ...     model_type="unigram", vocab_size=8, normalization_rule_name="identity"
    ... )
    >>> model = train_unigram(count_sentences(["abab ab", "ab ab"], options), options)
    >>> [p.piece for p in model.pieces]
    ['<unk>', '<s>', '</s>', '▁ab', '▁', 'b', 'a', 'ab']
    """
    spec = options.trainer_spec
    if spec.model_type != ModelType.UNIGRAM:
        raise ValueError(f"sentencepiece option model_type={spec.model_type!r}: train_unigram trains 'unigram'")
    if not spec.split_by_whitespace:
        raise ValueError(
            "sentencepiece option split_by_whitespace=False is not implemented by hf_bpe's Unigram trainer (its E-step "
            "sums over sentences in corpus order)"
        )
    metas = meta_pieces(spec)
    chars = required_chars(counts.word_counts(), spec)
    if len(chars) + len(metas) > spec.vocab_size:
        raise ValueError(
            f"sentencepiece option vocab_size={spec.vocab_size} is smaller than the required characters and meta "
            f"pieces ({len(chars)} + {len(metas)}); increase it or decrease character_coverage"
        )
    followed: Counter[tuple[str, str]] = Counter()
    for (word, follower), count in counts.followed.items():
        followed[_replace_rare(word, chars), _replace_rare(follower, {**chars, "\0": 0})] += count
    model = _Model(seed_pieces(followed, spec))
    merged: Counter[str] = Counter()
    for (word, _), count in followed.items():
        merged[word] += count
    words = [(word, int(count)) for word, count in _sorted(merged.items())]
    desired = int(spec.vocab_size * 1.1)
    while True:
        for _ in range(spec.num_sub_iterations):
            model = _Model(m_step(model, e_step(model, words)))
        model = _Model(prune(model, words, spec, desired))
        if len(model.pieces) <= desired:
            break
    model = _Model(prune_unreachable(model))
    learned = finalize(model, chars, spec.vocab_size - len(metas))
    return serialize(learned, metas, options)


def train_unigram_from_text(lines: Iterable[str | bytes], **kwargs: Any) -> bytes:
    """The ``.model`` bytes ``SentencePieceTrainer.train(model_type="unigram", num_threads=1, **kwargs)`` writes.

    >>> import sentencepiece
    >>> model = train_unigram_from_text(["abab ab", "ab ab"], vocab_size=8, normalization_rule_name="identity")
    >>> sentencepiece.SentencePieceProcessor(model_proto=model).encode("abab", out_type=str)
    ['▁ab', 'ab']
    """
    from hf_bpe.models.sentencepiece.model_writer import write_model_proto

    options = SentencePieceOptions.from_kwargs(model_type="unigram", **kwargs)
    return write_model_proto(train_unigram(count_sentences(lines, options), options))
