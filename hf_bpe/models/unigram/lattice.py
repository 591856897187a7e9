"""The lattice of one word under a Unigram model: Viterbi, forward-backward marginals, the two best paths.

A *model* here is a list of pieces with log-probability scores and an optional unknown id; its lattice over a
word has a node for every piece that occurs at every position, and, where no one-character piece starts, a node
for the unknown id with the score ``min_score - 10`` (``K_UNK_PENALTY``). This module follows
``tokenizers/src/models/unigram/lattice.rs`` and ``Unigram::populate_nodes`` (``model.rs``) step for step,
including the order in which nodes are visited and sums are made, so that ties and rounding come out as there:
nodes are inserted by start position, then by length (the trie's ``common_prefix_search``), the unknown node
last; a best path keeps the first of equal candidates.

Training (:mod:`.trainer`) uses the marginals, the Viterbi path and :meth:`UnigramModel.nbest2`; encoding text
(:mod:`.encoder`) has its own loop, as the reference's ``encode_optimized`` has.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import math
from collections import Counter
from collections.abc import Sequence
from itertools import compress

#: ``K_UNK_PENALTY`` in ``model.rs``: the unknown node scores this much below the model's lowest score.
UNK_PENALTY = 10.0

# A node: (start, end, id, score), positions in characters.
Node = tuple[int, int, int, float]


def log_sum_exp(x: float, y: float) -> float:
    """``log(exp(x) + exp(y))`` as ``lattice.rs``'s ``log_sum_exp`` computes it (not in init mode).

    >>> round(log_sum_exp(0.0, 0.0), 6)
    0.693147
    >>> log_sum_exp(0.0, -60.0)
    0.0
    """
    if x > y:
        vmin, vmax = y, x
    else:
        vmin, vmax = x, y
    if vmax > vmin + 50.0:
        return vmax
    return vmax + math.log(math.exp(vmin - vmax) + 1.0)


class UnigramModel:
    """Pieces with scores, looked up as ``Unigram::from`` builds them (the last of equal pieces wins its id).

    Args:
        pieces: ``(piece, score)`` in id order; a NaN score (the trainer's ``<UNK>``) is left out of
            ``min_score``.
        unk_id: the id of the unknown piece, or None.

    >>> model = UnigramModel([("<unk>", 0.0), ("a", -1.0), ("b", -1.0), ("ab", -1.5)], unk_id=0)
    >>> [model.pieces[i][0] for i in model.viterbi("abc")]
    ['ab', '<unk>']
    """

    def __init__(self, pieces: Sequence[tuple[str, float]], unk_id: int | None = 0) -> None:
        self.pieces = list(pieces)
        self.unk_id = unk_id
        self.ids: dict[str, int] = {}
        min_score = math.inf
        for index, (piece, score) in enumerate(self.pieces):
            self.ids[piece] = index
            if score < min_score:
                min_score = score
        self.scores = [score for _, score in self.pieces]
        self.min_score = min_score
        self.unk_score = min_score - UNK_PENALTY
        self.bos_id = len(self.pieces) + 1
        self.eos_id = len(self.pieces) + 2

    @functools.cached_property
    def trie(self) -> dict[str, int]:
        """Every prefix of a piece, to the piece's id or -1 (a prefix only): one lookup per candidate substring,
        and the end of a run of lookups where the reference's trie has no more children. Made when first needed:
        the trainer's models between two cuts of its lattices (:class:`WordLattices`) never need it."""
        trie: dict[str, int] = {}
        for piece in self.ids:
            for end in range(1, len(piece)):
                trie.setdefault(piece[:end], -1)
        trie.update(self.ids)
        return trie

    @property
    def prefixes(self) -> set[str]:
        """Every prefix of every piece (pieces included)."""
        return set(self.trie)

    def nodes(self, word: str) -> list[Node]:
        """The lattice's nodes, in the reference's insertion order (start, then length, the unknown node last)."""
        get = self.trie.get
        scores = self.scores
        unk_id = self.unk_id
        unk_score = self.unk_score
        n = len(word)
        nodes: list[Node] = []
        add = nodes.append
        for start in range(n):
            single = False
            for end in range(start + 1, n + 1):
                piece_id = get(word[start:end])
                if piece_id is None:
                    break
                if piece_id >= 0:
                    add((start, end, piece_id, scores[piece_id]))
                    if end == start + 1:
                        single = True
            if unk_id is not None and not single:
                # No one-character piece here: the unknown node, after the longer pieces (as the reference).
                add((start, start + 1, unk_id, unk_score))
        return nodes

    def populate_marginal(self, word: str, freq: float, expected: list[float]) -> float:
        """Add ``freq`` times each piece's expected count in ``word`` to ``expected``; return ``freq * log Z``.

        ``Lattice::populate_marginal``: alpha of a node is the log-sum over the nodes ending where it starts (in
        their insertion order), beta the log-sum over the nodes starting where it ends; a node's share is
        ``exp(alpha + score + beta - Z)``.

        Hot loop: one piece on purpose, the first round's E-step (:func:`populate_marginal` and
        :class:`WordLattices` serve the others): the lattice is made and summed at once, faster than cutting it
        apart for one use; the forward and backward passes share its flat lists, and log_sum_exp is inlined.
        """
        # One pass builds the nodes (flat lists, in insertion order) and alpha at once: the nodes ending at a
        # position are inserted in the order of their starts, which is the order this pass meets them, and alpha of
        # a start is complete when the pass reaches it. log_sum_exp is written out (a call per node pair was a
        # seventh of training time).
        get = self.trie.get
        scores = self.scores
        unk_id = self.unk_id
        unk_score = self.unk_score
        exp = math.exp
        log = math.log
        n = len(word)
        node_start: list[int] = []
        node_end: list[int] = []
        node_id: list[int] = []
        node_score: list[float] = []
        add_start = node_start.append
        add_end = node_end.append
        add_id = node_id.append
        add_score = node_score.append
        first = [0] * (n + 1)
        alpha = [0.0] * (n + 1)
        reached = [False] * (n + 1)
        for start in range(n):
            first[start] = len(node_end)
            here = alpha[start]
            single = False
            for end in range(start + 1, n + 1):
                piece_id = get(word[start:end])
                if piece_id is None:
                    break
                if piece_id < 0:
                    continue
                score = scores[piece_id]
                add_start(start)
                add_end(end)
                add_id(piece_id)
                add_score(score)
                value = score + here
                if reached[end]:
                    acc = alpha[end]
                    if acc > value:
                        alpha[end] = acc if acc > value + 50.0 else acc + log(exp(value - acc) + 1.0)
                    else:
                        alpha[end] = value if value > acc + 50.0 else value + log(exp(acc - value) + 1.0)
                else:
                    alpha[end] = value
                    reached[end] = True
                if end == start + 1:
                    single = True
            if unk_id is not None and not single:
                end = start + 1
                add_start(start)
                add_end(end)
                add_id(unk_id)
                add_score(unk_score)
                value = unk_score + here
                if reached[end]:
                    acc = alpha[end]
                    if acc > value:
                        alpha[end] = acc if acc > value + 50.0 else acc + log(exp(value - acc) + 1.0)
                    else:
                        alpha[end] = value if value > acc + 50.0 else value + log(exp(acc - value) + 1.0)
                else:
                    alpha[end] = value
                    reached[end] = True
        first[n] = len(node_end)
        beta = [0.0] * (n + 1)
        for start in range(n - 1, -1, -1):
            low_index = first[start]
            high_index = first[start + 1]
            if low_index == high_index:
                continue
            acc = node_score[low_index] + beta[node_end[low_index]]
            for index in range(low_index + 1, high_index):
                value = node_score[index] + beta[node_end[index]]
                if acc > value:
                    acc = acc if acc > value + 50.0 else acc + log(exp(value - acc) + 1.0)
                else:
                    acc = value if value > acc + 50.0 else value + log(exp(acc - value) + 1.0)
            beta[start] = acc
        z = alpha[n]
        for start, end, piece_id, score in zip(node_start, node_end, node_id, node_score, strict=True):
            expected[piece_id] += freq * exp(alpha[start] + score + beta[end] - z)
        return freq * z

    def _viterbi_nodes(self, word: str) -> tuple[list[Node], list[list[int]], list[float], list[int]]:
        """``Lattice::viterbi``'s pass: each node's best score from the start (with its own) and best previous node.

        Returns the nodes, the node indices ending at each position, their backtrace scores and previous nodes
        (-1 for the start); the end node is at index ``len(nodes)``.
        """
        n = len(word)
        nodes = self.nodes(word)
        ending: list[list[int]] = [[] for _ in range(n + 1)]
        starting: list[list[int]] = [[] for _ in range(n + 1)]
        for index, node in enumerate(nodes):
            ending[node[1]].append(index)
            starting[node[0]].append(index)
        eos = len(nodes)
        bos = eos + 1
        starting[n].append(eos)
        ending[0].append(bos)
        backtrace = [0.0] * (len(nodes) + 2)
        previous = [-1] * (len(nodes) + 2)
        scores = [node[3] for node in nodes] + [0.0, 0.0]
        for pos in range(n + 1):
            for right in starting[pos]:
                best_score = 0.0
                best = -1
                for left in ending[pos]:
                    score = backtrace[left] + scores[right]
                    if best < 0 or score > best_score:
                        best = left
                        best_score = score
                previous[right] = best
                backtrace[right] = best_score
        return nodes, ending, backtrace, previous

    def viterbi(self, word: str) -> list[int]:
        """The ids of the best segmentation of ``word`` (``Lattice::viterbi``; the first of equal paths wins).

        The nodes are made and scored in one pass by start position: the nodes ending where a node starts all
        start earlier, so they are complete, and in insertion order, when it is scored.
        """
        get = self.trie.get
        scores = self.scores
        unk_id = self.unk_id
        unk_score = self.unk_score
        n = len(word)
        # Node 0 is the start node; the lists hold each node's best score from the start, previous node and id.
        ending: list[list[int]] = [[] for _ in range(n + 1)]
        ending[0].append(0)
        backtrace = [0.0]
        previous = [-1]
        node_id = [-1]
        for start in range(n):
            lefts = ending[start]
            single = False
            for end in range(start + 1, n + 1):
                piece_id = get(word[start:end])
                if piece_id is None:
                    break
                if piece_id < 0:
                    continue
                if end == start + 1:
                    single = True
                score = scores[piece_id]
                best = -1
                best_score = 0.0
                for left in lefts:
                    candidate = backtrace[left] + score
                    if best < 0 or candidate > best_score:
                        best = left
                        best_score = candidate
                ending[end].append(len(node_id))
                backtrace.append(best_score)
                previous.append(best)
                node_id.append(piece_id)
            if unk_id is not None and not single:
                best = -1
                best_score = 0.0
                for left in lefts:
                    candidate = backtrace[left] + unk_score
                    if best < 0 or candidate > best_score:
                        best = left
                        best_score = candidate
                ending[start + 1].append(len(node_id))
                backtrace.append(best_score)
                previous.append(best)
                node_id.append(unk_id)
        best = -1
        best_score = 0.0
        for left in ending[n]:
            candidate = backtrace[left] + 0.0
            if best < 0 or candidate > best_score:
                best = left
                best_score = candidate
        path = []
        node = best
        while node > 0:
            path.append(node_id[node])
            node = previous[node]
        path.reverse()
        return path

    def nbest2(self, word: str) -> list[list[int]]:
        """The ids of the best and second-best segmentations (``Lattice::nbest(2)``: A* from the end node).

        A hypothesis's priority is its suffix score plus the Viterbi score of its first node; a path is complete
        when the start node comes out of the agenda. Returns one path if there is only one.
        """
        nodes, ending, backtrace, _ = self._viterbi_nodes(word)
        eos = len(nodes)
        bos = eos + 1
        scores = [node[3] for node in nodes] + [0.0, 0.0]
        starts = [node[0] for node in nodes] + [len(word), 0]
        # A hypothesis: (node, next hypothesis, gx); the agenda holds (-fx, order, hypothesis).
        order = itertools.count()
        agenda: list[tuple[float, int, tuple[int, object, float]]] = [(-0.0, next(order), (eos, None, 0.0))]
        found: list[list[int]] = []
        while agenda:
            _, _, top = heapq.heappop(agenda)
            node, _, gx = top
            if node == bos:
                path = []
                hypothesis = top[1]
                while hypothesis is not None and hypothesis[1] is not None:  # type: ignore[index]
                    path.append(nodes[hypothesis[0]][2])  # type: ignore[index]
                    hypothesis = hypothesis[1]  # type: ignore[index]
                found.append(path)
                if len(found) == 2:
                    return found
            else:
                for left in ending[starts[node]]:
                    heapq.heappush(agenda, (-(backtrace[left] + gx), next(order), (left, top, scores[left] + gx)))
        return found


#: The score :class:`WordLattices` gives a dropped piece's nodes until they are cut out: so low that they change no
#: sum (``log_sum_exp`` returns the other term exactly, ``exp`` gives 0.0) and are on no best path, yet finite, so
#: two of them make no NaN.
DROPPED = -1e300

# A word's lattice as WordLattices keeps it: each node's start, end and slot in the forward pass's order (by end,
# then by start: the insertion order of the nodes ending at a position), then in the backward pass's order (starts
# from the last, each start's nodes in insertion order).
Lattice = tuple[list[int], list[int], list[int], list[int], list[int], list[int]]


def _lattice(back_starts: list[int], back_ends: list[int], back_slots: list[int]) -> Lattice:
    """The lattice of nodes given in the backward pass's order, with the forward pass's order made (a node's
    ``(end, start)`` is its own: one piece per substring, an unknown node only where no one-character piece is)."""
    forward = sorted(zip(back_ends, back_starts, back_slots, strict=True))
    ends, starts, slots = (list(values) for values in zip(*forward, strict=True)) if forward else ([], [], [])
    return starts, ends, slots, back_starts, back_ends, back_slots


def cut(model: UnigramModel, word: str, unk_slot: int) -> Lattice:
    """The word's lattice under ``model`` (the nodes of :meth:`UnigramModel.nodes`), a piece's slot its id, an
    unknown node's ``unk_slot``: ``populate_nodes``, with an unknown node wherever no one-character piece starts
    (the trainer always has an unknown id). The starts are met from the last, the backward pass's order.

    >>> cut(UnigramModel([("<UNK>", math.nan), ("a", -1.0), ("ab", -2.0)], 0), "ab", 3)[:3]
    ([0, 0, 1], [1, 2, 2], [1, 2, 3])
    """
    get = model.trie.get
    starts: list[int] = []
    ends: list[int] = []
    slots: list[int] = []
    n = len(word)
    for start in range(n - 1, -1, -1):
        single = False
        for end in range(start + 1, n + 1):
            piece_id = get(word[start:end])
            if piece_id is None:
                break
            if piece_id >= 0:
                starts.append(start)
                ends.append(end)
                slots.append(piece_id)
                if end == start + 1:
                    single = True
        if not single:
            starts.append(start)
            ends.append(start + 1)
            slots.append(unk_slot)
    return _lattice(starts, ends, slots)


def populate_marginal(lattice: Lattice, scores: Sequence[float], freq: float, expected: list[float]) -> float:
    """Add ``freq`` times each node's expected count in a word's lattice to ``expected[slot]``; return
    ``freq * log Z``.

    ``Lattice::populate_marginal``: alpha of a node is the log-sum over the nodes ending where it starts (in their
    insertion order), beta the log-sum over the nodes starting where it ends; a node's share is
    ``exp(alpha + score + beta - Z)``; ``scores[slot]`` is a node's score.

    Hot loop: one piece on purpose, the E-step's inner loop (every word, every EM round): the reference's sums in
    its order. Each pass meets a position's nodes together (the forward pass by end, the backward pass by start),
    so ``log_sum_exp`` (written out: a call per node pair was a seventh of training time) runs in a local, stored
    when the next position begins, and a position's first node is its sum, as the reference's init mode; the
    marginals' pass takes the forward order, in which a piece's nodes (all of one length) come by start, as the
    reference adds them.
    """
    starts, ends, slots, back_starts, back_ends, back_slots = lattice
    exp = math.exp
    log = math.log
    n = ends[-1] if ends else 0  # the last node starts at the last character
    alpha = [0.0] * (n + 1)
    position = 0
    acc = 0.0
    for start, end, slot in zip(starts, ends, slots, strict=True):
        if end != position:
            alpha[position] = acc
            position = end
            acc = scores[slot] + alpha[start]
            continue
        value = scores[slot] + alpha[start]
        if acc > value:
            if acc <= value + 50.0:
                acc += log(exp(value - acc) + 1.0)
        else:
            acc = value if value > acc + 50.0 else value + log(exp(acc - value) + 1.0)
    alpha[position] = acc
    beta = [0.0] * (n + 1)
    position = n
    acc = 0.0
    for start, end, slot in zip(back_starts, back_ends, back_slots, strict=True):
        if start != position:
            beta[position] = acc
            position = start
            acc = scores[slot] + beta[end]
            continue
        value = scores[slot] + beta[end]
        if acc > value:
            if acc <= value + 50.0:
                acc += log(exp(value - acc) + 1.0)
        else:
            acc = value if value > acc + 50.0 else value + log(exp(acc - value) + 1.0)
    beta[position] = acc
    z = alpha[n]
    for start, end, slot in zip(starts, ends, slots, strict=True):
        expected[slot] += freq * exp(alpha[start] + scores[slot] + beta[end] - z)
    return freq * z


class WordLattices:
    """Every training word's lattice, cut once and kept from one EM round to the next by the pieces' *slots*.

    The trainer only ever drops pieces (``run_m_step``, ``prune_sentence_pieces``), so a word's nodes under a later
    model are its nodes under the model it was cut with whose pieces are left, in the same insertion order, plus an
    unknown node after its start's others wherever a character has lost its piece. The reference rebuilds each
    lattice from its trie every round (``populate_nodes`` in ``run_e_step``); here a node names its piece by slot
    (its id in the first model) and :meth:`use` points the slots at a model's scores, :data:`DROPPED` for a
    dropped piece, whose nodes then change no sum and are on no best path. They are cut out (:meth:`_kept`) once
    half the nodes are dropped ones, and at once from the words holding a character that has lost its piece
    (its unknown node must appear): the live nodes meet the same sums in the same order either way, so the floats
    are the reference's whatever the lattices' history.

    Args:
        seed: the first model (its unknown id is the trainer's ``<UNK>``).
        words: the training words, in the trainer's order.
        lattices: the words' lattices under ``seed`` (:func:`cut`), if cut already (the trainer cuts them in
            shares, in several processes).

    >>> lattices = WordLattices(UnigramModel([("<UNK>", math.nan), ("a", -1.0), ("ab", -2.0)], 0), ["ab"])
    >>> lattices.lattices[0][:3]  # "a", "ab" from 0; "b" is unknown (slot 3, past the seed's pieces)
    ([0, 0, 1], [1, 2, 2], [1, 2, 3])
    """

    def __init__(self, seed: UnigramModel, words: Sequence[str], lattices: Sequence[Lattice] | None = None) -> None:
        # The last of equal pieces takes the slot, as the model's trie keeps it.
        self.slot_of = dict(seed.ids)
        self.unk_slot = len(seed.pieces)
        self.words = list(words)
        self.model = seed
        self.scores: list[float] = []
        self.slot_ids: list[int] = []
        self._live_slots: list[bool] = []
        self._counts: Counter[int] = Counter()
        self.lattices = list(lattices) if lattices is not None else [self._cut(seed, word) for word in self.words]
        # The words that hold each character with a piece (when the piece goes, their unknown nodes must appear).
        self._holding: dict[int, list[int]] = {}
        for index, word in enumerate(self.words):
            for char in set(word):
                if char in self.slot_of:
                    self._holding.setdefault(self.slot_of[char], []).append(index)
        self._count()
        self.use(seed)

    def _cut(self, seed: UnigramModel, word: str) -> Lattice:
        return cut(seed, word, self.unk_slot)

    def use(self, model: UnigramModel) -> None:
        """Score the slots as ``model`` (a subset of the first model's pieces, its unknown id the same), add the
        unknown nodes of the characters whose pieces have gone, and cut the dropped pieces' nodes out of the
        lattices when many have gone."""
        scores = [DROPPED] * (self.unk_slot + 1)
        slot_ids = [-1] * (self.unk_slot + 1)
        slot_of = self.slot_of
        for index, (piece, score) in enumerate(model.pieces):
            slot = slot_of[piece]
            scores[slot] = score
            slot_ids[slot] = index
        scores[self.unk_slot] = model.unk_score
        slot_ids[self.unk_slot] = -1 if model.unk_id is None else model.unk_id
        self.model = model
        self.scores = scores
        self.slot_ids = slot_ids
        self._live_slots = [score != DROPPED for score in scores]
        lost = {slot for slot in self._holding if scores[slot] == DROPPED}
        holding = {index for slot in lost for index in self._holding.pop(slot)}
        for index in sorted(holding):
            self.lattices[index] = self._kept(self.lattices[index], lost)
        # A dropped node costs a pass about half a live one, and cutting it out (in this process only, not shared)
        # more than a pass: japanese 8000's one cut at a fifth dropped (0.45 s + 0.32 s for the pieces' lattices)
        # cost more than the rounds left saved. The lattices are cut when half their nodes have gone.
        dropped = sum(count for slot, count in self._counts.items() if scores[slot] == DROPPED)
        if dropped * 2 > self._counts.total():
            self.lattices = [self._kept(lattice, set()) for lattice in self.lattices]
            self._count()

    def _count(self) -> None:
        """Count the lattices' nodes by slot."""
        self._counts = Counter(itertools.chain.from_iterable(lattice[2] for lattice in self.lattices))

    def _kept(self, lattice: Lattice, lost: set[int]) -> Lattice:
        """The lattice without its dropped nodes, and with an unknown node after each start's others where the
        piece of its character is in ``lost`` (``populate_nodes`` adds one where no one-character piece starts)."""
        live = self._live_slots.__getitem__
        starts, ends, slots, back_starts, back_ends, back_slots = lattice
        mask = list(map(live, slots))
        if all(mask):
            return lattice
        back_mask = list(map(live, back_slots))
        unknown = (
            [
                start
                for start, end, slot in zip(back_starts, back_ends, back_slots, strict=True)
                if slot in lost and end == start + 1
            ]
            if lost
            else []
        )
        if not unknown:
            return (
                list(compress(starts, mask)),
                list(compress(ends, mask)),
                list(compress(slots, mask)),
                list(compress(back_starts, back_mask)),
                list(compress(back_ends, back_mask)),
                list(compress(back_slots, back_mask)),
            )
        # Each unknown node last among its start's nodes: a stable sort of the backward order, the unknown nodes a
        # half after their start's others.
        starts = list(compress(back_starts, back_mask))
        ends = list(compress(back_ends, back_mask))
        slots = list(compress(back_slots, back_mask))
        keys = [start * -2 for start in starts] + [start * -2 + 1 for start in unknown]
        starts += unknown
        ends += [start + 1 for start in unknown]
        slots += [self.unk_slot] * len(unknown)
        order = sorted(range(len(keys)), key=keys.__getitem__)
        return _lattice([starts[i] for i in order], [ends[i] for i in order], [slots[i] for i in order])

    def by_id(self, expected: Sequence[float]) -> list[float]:
        """Sums by slot (:func:`populate_marginal` over :attr:`lattices`) to sums by the model's ids (:meth:`use`);
        the unknown id's is the unknown nodes' sum (the trainer ignores it)."""
        model = self.model
        slot_of = self.slot_of
        by_id = [expected[slot_of[piece]] for piece, _ in model.pieces]
        if model.unk_id is not None:
            by_id[model.unk_id] = expected[self.unk_slot]
        return by_id

    def _backtrace(self, index: int) -> tuple[list[int], list[float], list[int]]:
        """``Lattice::viterbi``'s pass over word ``index``: node 0 is the start node, node i + 1 the lattice's
        node i (forward order); returns ``first`` (the nodes ending at a position ``pos``, in insertion order, are
        ``first[pos]`` to ``first[pos + 1] - 1``: they come by end), and each node's best score from the start
        (with its own) and best previous node (the first of equal candidates). A dropped node is on no best path:
        its score is :data:`DROPPED` and every position has a live node ending there."""
        starts, ends, slots = self.lattices[index][:3]
        scores = self.scores
        n = ends[-1] if ends else 0  # the last node starts at the last character
        first = [0] * (n + 2)
        first[1] = 1
        position = 0
        backtrace = [0.0] * (len(starts) + 1)
        previous = [-1] * (len(starts) + 1)
        for node, (start, end, slot) in enumerate(zip(starts, ends, slots, strict=True), 1):
            if end != position:
                position = end
                first[end] = node
            first[end + 1] = node + 1
            score = scores[slot]
            best = first[start]
            best_score = backtrace[best] + score
            for left in range(best + 1, first[start + 1]):
                candidate = backtrace[left] + score
                if candidate > best_score:
                    best = left
                    best_score = candidate
            backtrace[node] = best_score
            previous[node] = best
        return first, backtrace, previous

    def viterbi(self, index: int) -> list[int]:
        """:meth:`UnigramModel.viterbi` of word ``index`` under the model of :meth:`use`: the ids of its best
        segmentation (``Lattice::viterbi``; the first of equal paths wins)."""
        first, backtrace, previous = self._backtrace(index)
        slots = self.lattices[index][2]
        n = len(first) - 2
        best = first[n]
        best_score = backtrace[best] + 0.0
        for left in range(best + 1, first[n + 1]):
            candidate = backtrace[left] + 0.0
            if candidate > best_score:
                best = left
                best_score = candidate
        slot_ids = self.slot_ids
        path = []
        while best > 0:
            path.append(slot_ids[slots[best - 1]])
            best = previous[best]
        path.reverse()
        return path
