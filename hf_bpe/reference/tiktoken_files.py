"""Converting tiktoken rank files (``.tiktoken``) to GPT-2-format ``vocab.json`` + ``merges.txt``.

A tiktoken file lists every token as base64 bytes and a rank; the rank is both the token's id and its merge
priority. ``merges.txt`` instead lists the merges that build each token. This module recovers them: a token's
merge is the last step of byte-pair encoding its own bytes with only the tokens ranked below it, which leaves
exactly two parts; a token that step does not build (Llama-3's ``b'.:.:'``) gets every split of it into two
ranked tokens, and the directory ``ignore_merges``, as tiktoken takes a whole piece that is a rank.
:func:`convert_tiktoken` writes a whole tokenizer directory for a rank file and its split pattern;
:func:`export_tiktoken` goes the other way, and says where tiktoken's rule (merge by the rank of the merged bytes)
would not give the directory's merges. Reading and writing the GPT-2 files is :mod:`hf_bpe.models.bpe.files`' job.
"""

from __future__ import annotations

import base64
import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path

from hf_bpe.atomic import write_files
from hf_bpe.models.bpe.files import (
    CHAR_TOKENIZER_CLASS,
    MERGES_FILE,
    VOCAB_FILE,
    read_merges,
    read_tokenizer_json,
    read_vocab,
    write_tokenizer_dir,
)
from hf_bpe.models.bpe.options import Merges, Vocab
from hf_bpe.models.directory import (
    GPT2_SPECIAL_TOKEN,
    TOKENIZER_FILE,
    named_special_tokens,
    read_tokenizer_config,
)
from hf_bpe.pipeline.byte_level import BYTE_TO_UNICODE, from_byte_level
from hf_bpe.pipeline.pre_tokenizers import PRESETS, PreTokenizer


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


def _last_merge(token: bytes, ranks: dict[bytes, int]) -> tuple[bytes, bytes] | None:
    """The two parts BPE over lower-ranked tokens leaves of ``token`` (tiktoken's merge rule: lowest rank first), or
    None when it leaves more (Llama-3's ``b'.:.:'``: ``b':.'`` ranks below ``b'.:'``, leaving ``. :. :``)."""
    limit = ranks[token]
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 2:
        best_rank, best = None, -1
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and rank < limit and (best_rank is None or rank < best_rank):
                best_rank, best = rank, i
        if best_rank is None:
            return None
        parts[best : best + 2] = [parts[best] + parts[best + 1]]
    return (parts[0], parts[1]) if len(parts) == 2 else None


def _token_merges(token: bytes, ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """The merges that make ``token``: its last merge, or, for a token BPE over lower-ranked tokens does not build,
    every split of it into two ranked tokens (none: the token is only ever a whole pre-token).

    tiktoken (``CoreBPE::encode_ordinary``) looks a whole piece up before merging, which ``ignore_merges`` does, and
    its ``byte_pair_merge`` joins any two neighbouring parts whose bytes are ranked, at that rank, whatever the parts'
    own ranks; these splits, listed at the token's place, let the BPE model join them there too. They are ordered
    as transformers' ``TikTokenConverter.extract_vocab_merges_from_model`` orders them (by the parts' ranks).
    """
    last = _last_merge(token, ranks)
    if last is not None:
        return [last]
    splits = [(token[:i], token[i:]) for i in range(1, len(token)) if token[:i] in ranks and token[i:] in ranks]
    return sorted(splits, key=lambda pair: (ranks[pair[0]], ranks[pair[1]]))


def ranks_to_vocab_and_merges(
    ranks: dict[bytes, int], special_tokens: dict[str, int] | None = None
) -> tuple[Vocab, Merges]:
    """GPT-2-format vocabulary and merges for tiktoken ranks.

    Args:
        ranks: token bytes to rank (= id).
        special_tokens: special token text to id, added to the vocabulary as is.

    A token that BPE over lower-ranked tokens does not build gets every split of it into two ranked tokens, or no
    merge (:func:`_token_merges`): the tokenizer must then have ``ignore_merges``, as :func:`convert_tiktoken`'s has.

    Raises:
        ValueError: if a single byte is missing.

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
            merges.extend((_spell(left), _spell(right)) for left, right in _token_merges(token, ranks))
    for text, token_id in (special_tokens or {}).items():
        vocab[text] = token_id
    return vocab, merges


def convert_tiktoken(
    ranks_path: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    pattern: str,
    special_tokens: Mapping[str, int] | None = None,
    force: bool = False,
) -> list[Path]:
    """Write a complete tokenizer directory (``vocab.json``, ``merges.txt``, ``tokenizer_config.json``,
    ``tokenizer.json``) for a tiktoken rank file, all files or none.

    Args:
        ranks_path: the ``.tiktoken`` file.
        output: the directory to write.
        pattern: the split: a preset's name (``"cl100k"``, ``"o200k"``, ``"gpt2"``, ...), or a regex read as
            tiktoken reads it.
        special_tokens: special token text to id (their ids must not be ranks of the file).
        force: remove another tokenizer's files there (:func:`hf_bpe.models.directory.replaced_files`).

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
    # tiktoken's CoreBPE::encode_ordinary takes a piece that is a rank whole, before merging: ignore_merges.
    return write_tokenizer_dir(
        output, vocab, merges, special_tokens=ordered, pre_tokenizer=pre_tokenizer, ignore_merges=True, force=force
    )


@dataclasses.dataclass(frozen=True)
class TiktokenExport:
    """What :func:`export_tiktoken` wrote and whether tiktoken will encode as the directory does.

    Attributes:
        path: the rank file.
        ranks: how many tokens it ranks (special tokens are not ranks in tiktoken).
        special_tokens: the directory's special tokens and their ids, for ``tiktoken.Encoding(special_tokens=...)``.
        differing: ``(token, merges.txt's merge, tiktoken's merge)`` for each token whose merges, as tiktoken derives
            them from the ranks (the last step of byte-pair encoding the token with lower-ranked tokens only, or
            :func:`_token_merges`' splits where that leaves more than two parts), are not the ones ``merges.txt``
            lists; the first of each (None: no merge).
        same_order: whether ``merges.txt`` lists the merges in the order of their tokens' ranks.
    """

    path: Path
    ranks: int
    special_tokens: dict[str, int]
    differing: list[tuple[str, tuple[str, str] | None, tuple[str, str] | None]]
    same_order: bool

    @property
    def exact(self) -> bool:
        """Whether tiktoken with this file gives the directory's ids on every text: its implied merges are
        ``merges.txt``, in order (the converse of :func:`ranks_to_vocab_and_merges`)."""
        return not self.differing and self.same_order


def export_tiktoken(directory: str | os.PathLike[str], output: str | os.PathLike[str]) -> TiktokenExport:
    """Write a byte-level BPE directory's vocabulary as a tiktoken rank file (``base64-token rank`` lines).

    Each token's rank is its id. tiktoken merges by the rank of the merged bytes, not of the pair, so the file is
    checked: the merges tiktoken's rule implies (:func:`ranks_to_vocab_and_merges`, the converter whose output is
    tested to encode exactly as tiktoken) must be ``merges.txt``'s, token for token. Where one is not, the export
    is still written and :attr:`TiktokenExport.differing` names the tokens.

    Raises:
        FileNotFoundError: naming a missing file.
        ValueError: for a char-level directory, or a token that is not byte-level.
    """
    directory = Path(directory)
    config = read_tokenizer_config(directory)
    if config.get("tokenizer_class") == CHAR_TOKENIZER_CLASS:
        raise ValueError(f"{directory}: a char-level tokenizer has no byte-level ranks to export")
    if not (directory / VOCAB_FILE).is_file() and (directory / TOKENIZER_FILE).is_file():
        # A model's directory with its tokenizer.json alone (Llama-3, Qwen, ...): its model's vocabulary and
        # merges; its added tokens are the special tokens tiktoken is given.
        found = read_tokenizer_json(directory / TOKENIZER_FILE)
        vocab, merges = dict(found.vocab), list(found.merges)
        specials = {str(entry["content"]): int(entry["id"]) for entry in found.added_tokens}  # type: ignore[call-overload]
        vocab = {token: token_id for token, token_id in vocab.items() if token not in specials}
    else:
        vocab = read_vocab(directory / VOCAB_FILE)
        merges = read_merges(directory / MERGES_FILE, vocab)
        specials = {token: vocab[token] for token in named_special_tokens(config) if token in vocab}
        if GPT2_SPECIAL_TOKEN in vocab and not config:
            specials[GPT2_SPECIAL_TOKEN] = vocab[GPT2_SPECIAL_TOKEN]
    ranks: dict[bytes, int] = {}
    for token, token_id in vocab.items():
        if token not in specials:
            try:
                ranks[from_byte_level(token)] = token_id
            except ValueError as e:
                raise ValueError(f"{directory / VOCAB_FILE}: {e}; only byte-level vocabularies export") from e
    lines = sorted(ranks.items(), key=lambda item: item[1])
    text = "".join(f"{base64.b64encode(token).decode('ascii')} {rank}\n" for token, rank in lines)
    output = Path(output)
    write_files(output.parent, {output.name: text})
    implied = _implied_merges(ranks)
    listed: dict[str, list[tuple[str, str]]] = {}
    for left, right in merges:
        listed.setdefault(left + right, []).append((left, right))
    differing = [
        (token, _first(listed.get(token, [])), _first(pairs))
        for token, pairs in implied.items()
        if listed.get(token, []) != pairs
    ]
    by_rank = [_spell(token) for token, _rank in lines if implied.get(_spell(token))]
    same_order = by_rank == list(listed)
    return TiktokenExport(output, len(ranks), specials, differing, same_order)


def _implied_merges(ranks: dict[bytes, int]) -> dict[str, list[tuple[str, str]]]:
    """Each multi-byte token's merges as tiktoken's rule implies them (:func:`_token_merges`; none: tiktoken makes
    the token only from a whole pre-token)."""
    return {
        _spell(token): [(_spell(left), _spell(right)) for left, right in _token_merges(token, ranks)]
        for token in ranks
        if len(token) > 1
    }


def _first(pairs: list[tuple[str, str]]) -> tuple[str, str] | None:
    return pairs[0] if pairs else None
