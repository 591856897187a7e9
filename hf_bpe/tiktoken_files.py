"""Converting tiktoken rank files (``.tiktoken``) to GPT-2-format ``vocab.json`` + ``merges.txt``.

A tiktoken file lists every token as base64 bytes and a rank; the rank is both the token's id and its merge
priority. ``merges.txt`` instead lists the merges that build each token. This module recovers them: a token's
merge is the last step of byte-pair encoding its own bytes with only the tokens ranked below it, which leaves
exactly two parts. :func:`convert_tiktoken` writes a whole tokenizer directory for a rank file and its split
pattern. Reading and writing the GPT-2 files is :mod:`hf_bpe.files`' job.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from pathlib import Path

from hf_bpe.byte_level import BYTE_TO_UNICODE
from hf_bpe.files import Merges, Vocab, write_tokenizer_dir
from hf_bpe.pretokenizer import PRESETS, PreTokenizer


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


def convert_tiktoken(
    ranks_path: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    pattern: str,
    special_tokens: Mapping[str, int] | None = None,
) -> list[Path]:
    """Write a complete tokenizer directory (``vocab.json``, ``merges.txt``, ``tokenizer_config.json``,
    ``tokenizer.json``) for a tiktoken rank file, all files or none.

    Args:
        ranks_path: the ``.tiktoken`` file.
        output: the directory to write.
        pattern: the split: a preset's name (``"cl100k"``, ``"o200k"``, ``"gpt2"``, ...), or a regex read as
            tiktoken reads it.
        special_tokens: special token text to id (their ids must not be ranks of the file).

    Returns:
        The paths written.

    Raises:
        ValueError: naming a special token whose id is already a rank, or a bad pattern or rank file.
    """
    pre_tokenizer = PreTokenizer.from_pattern(pattern, **({} if pattern in PRESETS else {"engine": "tiktoken"}))
    ranks = read_tiktoken_ranks(ranks_path)
    specials = dict(special_tokens or {})
    taken = set(ranks.values())
    for text, token_id in specials.items():
        if token_id in taken:
            raise ValueError(f"special token {text!r} has id {token_id}, which is already a rank of {ranks_path}")
    vocab, merges = ranks_to_vocab_and_merges(ranks, specials)
    ordered = sorted(specials, key=specials.__getitem__)
    return write_tokenizer_dir(output, vocab, merges, special_tokens=ordered, pre_tokenizer=pre_tokenizer)
