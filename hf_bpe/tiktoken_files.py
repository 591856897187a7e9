"""Converting tiktoken rank files (``.tiktoken``) to GPT-2-format ``vocab.json`` + ``merges.txt``.

A tiktoken file lists every token as base64 bytes and a rank; the rank is both the token's id and its merge
priority. ``merges.txt`` instead lists the merges that build each token. This module recovers them: a token's
merge is the last step of byte-pair encoding its own bytes with only the tokens ranked below it, which leaves
exactly two parts. Reading and writing the GPT-2 files is :mod:`hf_bpe.files`' job.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

from hf_bpe.byte_level import BYTE_TO_UNICODE
from hf_bpe.files import Merges, Vocab


def read_tiktoken_ranks(path: str | os.PathLike[str]) -> dict[bytes, int]:
    """Read a ``.tiktoken`` file: one ``base64-token rank`` line per token.

    Raises:
        ValueError: naming the file and 1-based line of a malformed line or a repeated token or rank.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.tiktoken"
    >>> _ = path.write_text("YQ== 0\\nYg== 1\\nYWI= 2\\n")
    >>> read_tiktoken_ranks(path)
    {b'a': 0, b'b': 1, b'ab': 2}
    """
    path = Path(path)
    ranks: dict[bytes, int] = {}
    seen: set[int] = set()
    for number, line in enumerate(path.read_bytes().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            encoded, rank_text = line.split()
            token = base64.b64decode(encoded, validate=True)
            rank = int(rank_text)
        except ValueError as e:
            raise ValueError(f"{path}:{number}: expected 'base64-token rank', found {line[:60]!r}") from e
        if token in ranks or rank in seen:
            raise ValueError(f"{path}:{number}: token {token!r} or rank {rank} appears twice")
        ranks[token] = rank
        seen.add(rank)
    return ranks


def _spell(token: bytes) -> str:
    return "".join(BYTE_TO_UNICODE[byte] for byte in token)


def _last_merge(token: bytes, ranks: dict[bytes, int]) -> tuple[bytes, bytes]:
    """The two parts BPE over lower-ranked tokens leaves of ``token`` (tiktoken's merge rule: lowest rank first)."""
    limit = ranks[token]
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 2:
        best_rank, best = None, -1
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and rank < limit and (best_rank is None or rank < best_rank):
                best_rank, best = rank, i
        if best_rank is None:
            break
        parts[best : best + 2] = [parts[best] + parts[best + 1]]
    if len(parts) != 2:
        raise ValueError(f"token {token!r} (rank {limit}) cannot be built from two lower-ranked tokens")
    return parts[0], parts[1]


def ranks_to_vocab_and_merges(
    ranks: dict[bytes, int], special_tokens: dict[str, int] | None = None
) -> tuple[Vocab, Merges]:
    """GPT-2-format vocabulary and merges for tiktoken ranks.

    Args:
        ranks: token bytes to rank (= id).
        special_tokens: special token text to id, added to the vocabulary as is.

    Raises:
        ValueError: if a single byte is missing or a token cannot be built from lower-ranked ones.

    >>> ranks = {bytes([b]): b for b in range(256)}
    >>> ranks.update({b"ab": 256, b" ab": 257})
    >>> vocab, merges = ranks_to_vocab_and_merges(ranks, {"<|endoftext|>": 258})
    >>> merges, vocab["Ġab"], vocab["<|endoftext|>"]
    ([('a', 'b'), ('Ġ', 'ab')], 257, 258)
    """
    missing = [byte for byte in range(256) if bytes([byte]) not in ranks]
    if missing:
        raise ValueError(f"the ranks lack single bytes {missing[:8]}; every byte must be a token")
    vocab: Vocab = {_spell(token): rank for token, rank in ranks.items()}
    merges: Merges = []
    for token, _rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) > 1:
            left, right = _last_merge(token, ranks)
            merges.append((_spell(left), _spell(right)))
    for text, token_id in (special_tokens or {}).items():
        vocab[text] = token_id
    return vocab, merges
