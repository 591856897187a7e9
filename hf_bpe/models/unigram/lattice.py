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

import heapq
import itertools
import math
from collections.abc import Sequence

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
        self.prefixes: set[str] = set()
        min_score = math.inf
        for index, (piece, score) in enumerate(self.pieces):
            self.ids[piece] = index
            if score < min_score:
                min_score = score
            for end in range(1, len(piece) + 1):
                self.prefixes.add(piece[:end])
        self.scores = [score for _, score in self.pieces]
        self.min_score = min_score
        self.unk_score = min_score - UNK_PENALTY
        self.bos_id = len(self.pieces) + 1
        self.eos_id = len(self.pieces) + 2

    def nodes(self, word: str) -> list[Node]:
        """The lattice's nodes, in the reference's insertion order (start, then length, the unknown node last)."""
        ids = self.ids
        prefixes = self.prefixes
        scores = self.scores
        unk_id = self.unk_id
        unk_score = self.unk_score
        n = len(word)
        nodes: list[Node] = []
        add = nodes.append
        for start in range(n):
            char = word[start]
            piece_id = ids.get(char)
            if piece_id is not None:
                add((start, start + 1, piece_id, scores[piece_id]))
            if char in prefixes:
                for end in range(start + 2, n + 1):
                    candidate = word[start:end]
                    if candidate not in prefixes:
                        break
                    piece_id = ids.get(candidate)
                    if piece_id is not None:
                        add((start, end, piece_id, scores[piece_id]))
            if unk_id is not None and char not in ids:
                # No one-character piece here: the unknown node, after the longer pieces (as the reference).
                add((start, start + 1, unk_id, unk_score))
        return nodes

    def populate_marginal(self, word: str, freq: float, expected: list[float]) -> float:
        """Add ``freq`` times each piece's expected count in ``word`` to ``expected``; return ``freq * log Z``.

        ``Lattice::populate_marginal``: alpha of a node is the log-sum over the nodes ending where it starts (in
        their insertion order), beta the log-sum over the nodes starting where it ends; a node's share is
        ``exp(alpha + score + beta - Z)``.
        """
        n = len(word)
        nodes = self.nodes(word)
        ending: list[list[Node]] = [[] for _ in range(n + 1)]
        starting: list[list[Node]] = [[] for _ in range(n + 1)]
        for node in nodes:
            ending[node[1]].append(node)
            starting[node[0]].append(node)
        exp = math.exp
        log = math.log
        # log_sum_exp written out in both loops (a call per node pair was a seventh of training time).
        alpha = [0.0] * (n + 1)
        for pos in range(1, n + 1):
            first = True
            acc = 0.0
            for start, _, _, score in ending[pos]:
                value = score + alpha[start]
                if first:
                    acc = value
                    first = False
                else:
                    low, high = (value, acc) if acc > value else (acc, value)
                    acc = high if high > low + 50.0 else high + log(exp(low - high) + 1.0)
            alpha[pos] = acc
        beta = [0.0] * (n + 1)
        for pos in range(n - 1, -1, -1):
            first = True
            acc = 0.0
            for _, end, _, score in starting[pos]:
                value = score + beta[end]
                if first:
                    acc = value
                    first = False
                else:
                    low, high = (value, acc) if acc > value else (acc, value)
                    acc = high if high > low + 50.0 else high + log(exp(low - high) + 1.0)
            beta[pos] = acc
        z = alpha[n]
        for start, end, piece_id, score in nodes:
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
        """The ids of the best segmentation of ``word`` (``Lattice::viterbi``; the first of equal paths wins)."""
        nodes, _, _, previous = self._viterbi_nodes(word)
        eos = len(nodes)
        path = []
        node = previous[eos]
        while node != eos + 1 and node >= 0:
            path.append(nodes[node][2])
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
