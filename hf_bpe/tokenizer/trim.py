"""Trimming a byte-level BPE tokenizer to a language: keep the tokens a sample of text uses, renumber them densely,
and say which embedding rows the model keeps.

:func:`trim` reads a ``tokenizer.json`` (a file, or a directory holding one), encodes the sample with it, and keeps

* every added token (special or not) and every token its post-processor names, and the 256 byte-alphabet tokens;
* then the tokens the sample's encoding uses, the most used first (ties: the lower id), each with the tokens that
  build it; then, while there is room, the original's other tokens by id (the earlier merges first), each with
  what builds it, leaving out tokens no merge path builds unless ``ignore_merges`` can still produce them. A token
  whose building tokens do not fit in what is left of ``vocab_size`` is passed over and smaller ones are tried,
  so the vocabulary is ``vocab_size`` or as close below it as whole closures allow.

*What builds a token*: the merges BPE applies to the token's own bytes. A token in an encoding covers bytes that BPE
merged among themselves only (a pair across its edges was never merged), so those merges are the ones BPE applies to
the token's bytes alone: the last one, ``(left, right)``, is found by merging the bytes with every merge except
those making the token, and ``left`` and ``right`` are built the same way. Keeping every token on that path keeps
every merge the original applied inside it, so wherever the original's encoding of a pre-token uses only kept tokens,
the trimmed tokenizer applies the same merges in the same order (the kept merges are the original's, in its order,
those whose three tokens are kept) and gives the same tokens.

*``ignore_merges``* (Llama-3): a pre-token that is a token whole is that token, merges or not. Such a file holds
tokens that its merges never build (they come only whole). Those are kept alone (nothing builds them) and the file
keeps ``ignore_merges``, so the trimmed tokenizer gives them where the original did, for a whole pre-token, and
nowhere else, as the original. A whole-word token the merges can build keeps what builds it, since the original
also gives it inside longer pre-tokens.

*New ids*: the kept tokens keep their original order (new id = rank of the old id among kept ones): the bytes and
the model's tokens first as the original ordered them, the added tokens after them in their own order, so
``old_ids`` (the old id of each new id) is increasing and ``new_embeddings = old_embeddings[old_ids]``.

*The trimmed file*: the original loaded as a :class:`~hf_bpe.tokenizer.tokenizer.Tokenizer`, its model changed
(the kept vocabulary and merges, every other model setting as it was), its added tokens' and post-processor's ids
renumbered (:func:`~hf_bpe.tokenizer.serialization.with_model`), and written back by the tokenizer's own writer
(``Tokenizer.save``'s form, :meth:`~hf_bpe.tokenizer.tokenizer.Tokenizer.to_str`): the file ``tokenizers`` itself
writes for the trimmed tokenizer. The file is read by the one reader of ``tokenizer.json``
(:func:`~hf_bpe.tokenizer.serialization.pipeline_from_data`), so any stage the Tokenizer reads may be there; the
sample is encoded by the original tokenizer, added tokens cut as ``Tokenizer.encode`` cuts them
(:meth:`~hf_bpe.tokenizer.tokenizer.Tokenizer.encode_ids`), so the tokens counted are those the Rust backend gives.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from hf_bpe.atomic import write_files
from hf_bpe.models.bpe.encoder import merge_by_rank
from hf_bpe.models.bpe.files import (
    MERGES_FILE,
    VOCAB_FILE,
    format_merges,
    format_vocab,
    read_bpe_json,
)
from hf_bpe.models.bpe.symbols import SymbolBPE
from hf_bpe.models.directory import (
    TOKENIZER_CONFIG_FILE,
    TOKENIZER_FILE,
    check_no_stale_files,
    read_json_object,
    replaced_files,
)
from hf_bpe.pipeline.byte_level import BYTE_ALPHABET
from hf_bpe.pipeline.processors import post_processor_from_json
from hf_bpe.progress import Progress, ProgressOption, callback, with_progress
from hf_bpe.tokenizer.serialization import is_byte_level, pipeline_from_data, with_model
from hf_bpe.tokenizer.tokenizer import Tokenizer
from hf_bpe.utf8 import decode_utf8

#: The old id -> new id table written beside the trimmed ``tokenizer.json``.
ID_MAP_FILE = "id_map.json"
#: Files of a tokenizer directory copied as they are (they name tokens by their text, not by id).
COPIED_FILES = ("special_tokens_map.json", "chat_template.jinja", "chat_template.json")


@dataclasses.dataclass(frozen=True)
class TrimResult:
    """What :func:`trim` wrote and chose.

    Attributes:
        output: the directory written.
        old_ids: the original id of each new id (new id = position): the embedding rows to keep, in order.
        must_keep: the tokens kept whatever the sample (added tokens, post-processor tokens, the byte alphabet).
        sample_tokens: distinct tokens of the original's encoding of the sample (added tokens included).
        from_sample: how many of those were kept.
        passed_over: sample tokens left out because they and what builds them did not fit.
        whole_only: kept tokens the merges cannot build (produced only whole, by ``ignore_merges``).
    """

    output: Path
    old_ids: list[int]
    must_keep: int
    sample_tokens: int
    from_sample: int
    passed_over: int
    whole_only: int

    @property
    def vocab_size(self) -> int:
        return len(self.old_ids)

    @property
    def id_map(self) -> dict[int, int]:
        """Old id -> new id, for every kept token."""
        return {old: new for new, old in enumerate(self.old_ids)}


@dataclasses.dataclass(frozen=True)
class Original:
    """The tokenizer being trimmed, loaded, with its model's vocabulary and merges."""

    path: Path
    directory: Path | None
    tokenizer: Tokenizer

    @property
    def model(self) -> SymbolBPE:
        model = self.tokenizer.file.pipeline.model
        assert isinstance(model, SymbolBPE)  # read_original reads byte-level BPE only
        return model

    @property
    def vocab(self) -> dict[str, int]:
        return self.tokenizer.file.vocab

    @property
    def merges(self) -> Sequence[tuple[str, str]]:
        return self.tokenizer.file.merges

    @property
    def ignore_merges(self) -> bool:
        return self.model.ignore_merges

    @property
    def added(self) -> dict[str, int]:
        return {str(entry["content"]): int(entry["id"]) for entry in self.tokenizer.file.added_tokens}

    @property
    def post_processor(self) -> dict[str, Any] | None:
        """The post-processor section as ``tokenizers`` writes it back (its twin's)."""
        return self.tokenizer.file.pipeline.post_processor.to_json()


def read_original(source: str | os.PathLike[str]) -> Original:
    """Read a byte-level BPE ``tokenizer.json`` (or a directory holding one) to trim.

    Raises:
        FileNotFoundError: naming ``source`` when there is no such file or no ``tokenizer.json`` in it.
        ValueError: naming the file when it is not byte-level BPE (trim keeps the byte alphabet, so that every
            text still encodes), or the JSON path of what hf_bpe's Tokenizer does not implement.
    """
    source = Path(source)
    directory = source if source.is_dir() else None
    path = source / TOKENIZER_FILE if directory else source
    if not path.is_file():
        where = f"{source}: no {TOKENIZER_FILE} there" if directory else f"{source}: no such file or directory"
        raise FileNotFoundError(f"{where}; trim takes a byte-level BPE tokenizer.json or a directory holding one")
    try:
        data, _model = read_bpe_json(path, "trim takes byte-level BPE")
        if not is_byte_level(data):
            raise ValueError(
                "it has no ByteLevel pre-tokenizer or decoder, or its model adds a continuing_subword_prefix or "
                "end_of_word_suffix"
            )
    except ValueError as e:
        reason = str(e).removeprefix(f"{path}: ")
        raise ValueError(
            f"{path}: not a byte-level BPE tokenizer (trim keeps the 256 byte tokens so that every text still "
            f"encodes, which only byte-level BPE has): {reason}"
        ) from e
    # The one reader of tokenizer.json: every stage the Tokenizer reads (a Roberta or Bert post-processor too),
    # what it does not implement refused by its JSON path.
    return Original(path, directory, Tokenizer(pipeline_from_data(data, path)))


#: Lines encoded between two progress reports of the sample's encoding.
REPORT_LINES = 2048


def count_sample(
    original: Original, samples: Sequence[str | os.PathLike[str]], *, progress: Progress | None = None
) -> Counter[int]:
    """How often each id occurs in the original's encoding of the sample files, a line at a time (its added tokens
    matched, no template tokens), as its ``tokenizer.json`` encodes them.

    Args:
        original: the tokenizer being trimmed.
        samples: the sample files.
        progress: called as ``progress("sample", lines_done, lines)`` while the sample is encoded (the silent
            part of a trim: 7 s on 20 MB).

    Raises:
        FileNotFoundError: naming a missing file.
        ValueError: naming the file, line and byte of invalid UTF-8.
    """
    from hf_bpe.counting.sources import open_binary

    texts = []
    for sample in samples:
        if not Path(sample).is_file():
            raise FileNotFoundError(f"{sample}: no such sample file")
        with open_binary(sample) as stream:
            texts.append(decode_utf8(stream.read(), sample).splitlines(keepends=True))
    total = sum(map(len, texts))
    counts: Counter[int] = Counter()
    encode = original.tokenizer.encode_ids
    done = 0
    for lines in texts:
        for start in range(0, len(lines), REPORT_LINES):
            for line in lines[start : start + REPORT_LINES]:
                counts.update(encode(line))
            done += len(lines[start : start + REPORT_LINES])
            if progress is not None:
                progress("sample", done, total)
    return counts


class _RanksWithout(Mapping[tuple[str, str], int]):
    """Merge ranks without the merges that make ``result``: BPE on ``result``'s bytes then stops one merge short."""

    def __init__(self, ranks: Mapping[tuple[str, str], int], result: str) -> None:
        self.ranks, self.result = ranks, result

    def __contains__(self, pair: object) -> bool:
        return pair in self.ranks and isinstance(pair, tuple) and pair[0] + pair[1] != self.result

    def __getitem__(self, pair: tuple[str, str]) -> int:
        if pair[0] + pair[1] == self.result:
            raise KeyError(pair)
        return self.ranks[pair]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return (pair for pair in self.ranks if pair[0] + pair[1] != self.result)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class Builds:
    """What builds each token: the tokens BPE makes on the way from its bytes to it (itself included).

    >>> from hf_bpe.models.bpe.encoder import merge_ranks
    >>> builds = Builds(merge_ranks({"a": 0, "b": 1, "ab": 2, "abb": 3}, [("a", "b"), ("ab", "b")]))
    >>> sorted(builds.closure("abb")), builds.last_merge("abb"), builds.closure("bb")
    (['a', 'ab', 'abb', 'b'], ('ab', 'b'), None)
    """

    def __init__(self, ranks: Mapping[tuple[str, str], int]) -> None:
        self.ranks = ranks
        self._closures: dict[str, frozenset[str] | None] = {}

    def last_merge(self, token: str) -> tuple[str, str] | None:
        """The merge BPE applies last to ``token``'s bytes to make it; None if BPE does not make it."""
        parts = merge_by_rank(list(token), _RanksWithout(self.ranks, token))
        if len(parts) == 2 and (parts[0], parts[1]) in self.ranks:
            return parts[0], parts[1]
        return None

    def closure(self, token: str) -> frozenset[str] | None:
        """``token`` and every token BPE makes on the way to it; None if BPE does not make it from its bytes."""
        if token in self._closures:
            return self._closures[token]
        found: frozenset[str] | None = frozenset((token,))
        if len(token) > 1:
            merge = self.last_merge(token)
            if merge is None:
                found = None
            else:
                left, right = (self.closure(part) for part in merge)
                found = None if left is None or right is None else left | right | {token}
        self._closures[token] = found
        return found


def must_keep_ids(original: Original) -> set[int]:
    """The ids kept whatever the sample: added tokens, the tokens the post-processor names (and
    ``tokenizer_config.json``'s ``added_tokens_decoder``), the model's unknown token, and the byte alphabet."""
    named = {*original.added.values(), *_processor_ids(original.post_processor)}
    if original.model.unk_token in original.vocab:
        named.add(original.vocab[original.model.unk_token])  # the trimmed model names it too
    if original.directory is not None and (original.directory / TOKENIZER_CONFIG_FILE).is_file():
        config = read_json_object(original.directory / TOKENIZER_CONFIG_FILE)
        named |= {int(token_id) for token_id in config.get("added_tokens_decoder") or {}}
    return named | {original.vocab[char] for char in BYTE_ALPHABET if char in original.vocab}


@dataclasses.dataclass(frozen=True)
class Choice:
    """The ids :func:`choose_ids` keeps, the sample tokens it passed over for room, and how many kept tokens are
    produced whole only (``ignore_merges``; no merge path builds them)."""

    kept: set[int]
    passed_over: int
    whole_only: int


def choose_ids(original: Original, counts: Mapping[int, int], vocab_size: int) -> Choice:
    """The ids to keep: see the module docstring.

    Raises:
        ValueError: if ``vocab_size`` is below the tokens every trim keeps.
    """
    kept = must_keep_ids(original)
    check_vocab_size(original, kept, vocab_size)
    id_to_token = {token_id: token for token, token_id in original.vocab.items()}
    builds = Builds({pair: rank for rank, pair in enumerate(original.merges)})  # a pair listed twice: its last rank
    used = sorted((i for i in counts if i in id_to_token), key=lambda i: (-counts[i], i))
    rest = (i for i in sorted(id_to_token) if i not in counts)
    kept_tokens = {id_to_token[i] for i in kept if i in id_to_token}
    passed_over = whole_only = 0
    for number, token_id in enumerate([*used, *rest]):
        if len(kept) >= vocab_size:
            break
        token = id_to_token[token_id]
        closure = builds.closure(token)
        whole = closure is None
        if whole and (original.ignore_merges or number < len(used)):
            closure = frozenset((token,))  # produced whole only (ignore_merges): nothing builds it
        if closure is None:
            continue  # no encoding can produce it: not worth a row
        missing = closure - kept_tokens
        if len(kept) + len(missing) > vocab_size:
            passed_over += number < len(used)
            continue
        whole_only += whole and bool(missing)
        kept_tokens |= missing
        kept |= {original.vocab[each] for each in missing}
    return Choice(kept, passed_over, whole_only)


def check_vocab_size(original: Original, must_keep: set[int], vocab_size: int) -> None:
    """Refuse a ``vocab_size`` below what every trim keeps, saying how much that is.

    Raises:
        ValueError: naming the size, what must be kept and the smallest size that works.
    """
    if vocab_size < len(must_keep):
        added = len(must_keep) - sum(char in original.vocab for char in BYTE_ALPHABET)
        raise ValueError(
            f"vocab size {vocab_size} is below the {len(must_keep)} tokens every trim keeps ({added} added and "
            f"post-processor tokens, 256 byte tokens); give at least {len(must_keep)}"
        )


def _processor_ids(section: Any) -> Iterator[int]:
    """The token ids a post-processor section names (TemplateProcessing's special tokens, Bert's and Roberta's
    ``sep``/``cls``), through ``Sequence``."""
    if not isinstance(section, dict):
        return
    for entry in (section.get("special_tokens") or {}).values():
        yield from entry.get("ids") or []
    for key in ("sep", "cls"):
        if isinstance(section.get(key), list) and len(section[key]) == 2:
            yield int(section[key][1])
    for part in section.get("processors") or []:
        yield from _processor_ids(part)


def _renumber_processor(section: Any, id_map: Mapping[int, int]) -> Any:
    """The post-processor section with its token ids renumbered by ``id_map``."""
    if not isinstance(section, dict):
        return section
    section = dict(section)
    if isinstance(section.get("special_tokens"), dict):
        section["special_tokens"] = {
            name: {**entry, "ids": [id_map[i] for i in entry.get("ids") or []]}
            for name, entry in section["special_tokens"].items()
        }
    for key in ("sep", "cls"):
        if isinstance(section.get(key), list) and len(section[key]) == 2:
            section[key] = [section[key][0], id_map[int(section[key][1])]]
    if isinstance(section.get("processors"), list):
        section["processors"] = [_renumber_processor(part, id_map) for part in section["processors"]]
    return section


def kept_merges(original: Original, kept_tokens: set[str] | Mapping[str, int]) -> list[tuple[str, str]]:
    """The original's merges whose three tokens are kept, in its order."""
    return [(a, b) for a, b in original.merges if a in kept_tokens and b in kept_tokens and a + b in kept_tokens]


def trimmed_tokenizer(original: Original, id_map: Mapping[int, int]) -> Tokenizer:
    """The original tokenizer with only the kept tokens: its model the kept vocabulary (renumbered) and the merges
    whose three tokens are kept, every other model setting as it was; the added tokens' and the post-processor's
    ids renumbered; every other stage as it was."""
    model = original.model
    vocab = {token: id_map[token_id] for token, token_id in original.vocab.items() if token_id in id_map}
    merges = kept_merges(original, vocab)
    trimmed = SymbolBPE(
        vocab,
        merges,
        unk_token=model.unk_token,
        continuing_subword_prefix=model.continuing_subword_prefix,
        end_of_word_suffix=model.end_of_word_suffix,
        fuse_unk=model.fuse_unk,
        byte_fallback=model.byte_fallback,
        ignore_merges=model.ignore_merges,
        dropout=model.dropout,
    )
    read = original.tokenizer.file
    added = [{**entry, "id": id_map[entry["id"]]} for entry in read.added_tokens]
    # Through the twin's JSON, then read back: the ids the post-processor adds are renumbered wherever they sit
    # (a template inside a Sequence too, Llama-3's), as the section tokenizers writes back names them.
    post_processor = post_processor_from_json(_renumber_processor(original.post_processor, id_map))
    return Tokenizer(with_model(read, trimmed, vocab, merges, added_tokens=added, post_processor=post_processor))


def _directory_files(
    original: Original, id_map: Mapping[int, int], kept_merges: list[tuple[str, str]]
) -> dict[str, str | bytes]:
    """The other files of a tokenizer directory, for the trimmed one: ``tokenizer_config.json`` and
    ``added_tokens.json`` with ids renumbered, ``vocab.json`` and ``merges.txt`` (when there) trimmed, the files
    naming tokens by text (:data:`COPIED_FILES`) as they are."""
    directory = original.directory
    if directory is None:
        return {}
    files: dict[str, str | bytes] = {}
    if (directory / TOKENIZER_CONFIG_FILE).is_file():
        config = read_json_object(directory / TOKENIZER_CONFIG_FILE)
        if isinstance(config.get("added_tokens_decoder"), dict):
            decoder = config["added_tokens_decoder"]
            config["added_tokens_decoder"] = {str(id_map[int(i)]): entry for i, entry in decoder.items()}
        files[TOKENIZER_CONFIG_FILE] = json.dumps(config, ensure_ascii=False, indent=2) + "\n"
    for name in (VOCAB_FILE, "added_tokens.json"):
        if (directory / name).is_file():
            ids = read_json_object(directory / name)
            kept = {token: id_map[token_id] for token, token_id in ids.items() if token_id in id_map}
            files[name] = format_vocab(kept) if name == VOCAB_FILE else json.dumps(kept, ensure_ascii=False)
    if (directory / MERGES_FILE).is_file():
        files[MERGES_FILE] = format_merges(kept_merges)
    for name in COPIED_FILES:
        if (directory / name).is_file():
            files[name] = (directory / name).read_bytes()
    return files


def _written_names(original: Original) -> set[str]:
    """The names of the files a trim of ``original`` writes (:func:`_directory_files`' and its own two)."""
    directory = original.directory
    names = {TOKENIZER_FILE, ID_MAP_FILE}
    if directory is not None:
        candidates = (TOKENIZER_CONFIG_FILE, VOCAB_FILE, "added_tokens.json", MERGES_FILE, *COPIED_FILES)
        names |= {name for name in candidates if (directory / name).is_file()}
    return names


@with_progress
def trim(
    source: str | os.PathLike[str],
    samples: Sequence[str | os.PathLike[str]],
    *,
    vocab_size: int,
    output: str | os.PathLike[str],
    force: bool = False,
    progress: ProgressOption = True,
) -> TrimResult:
    """Trim the byte-level BPE tokenizer ``source`` to the tokens the ``samples`` use; write ``output``.

    See the module docstring for what is kept and how ids are renumbered. ``output`` gets the trimmed
    ``tokenizer.json``, ``id_map.json`` (old id -> new id, every kept token) and, when ``source`` is a
    directory, its ``tokenizer_config.json`` (ids renumbered) and the other files that name tokens.

    Args:
        source: a ``tokenizer.json`` or a directory holding one.
        samples: UTF-8 text files (compressed ones are read decompressed) in the language to keep.
        vocab_size: the most tokens to keep, added tokens and the 256 bytes included.
        output: the directory to write (all files or none).
        force: remove another tokenizer's files there (``vocab.json``, ``tokenizer_config.json``, ... that the
            trimmed one does not write) in the same write; else they are refused, so no directory mixes two.
        progress: True (a tqdm bar on stderr while the sample is encoded, the default), False, or
            ``progress(stage, done, total)`` (stage ``"sample"``: lines).

    Raises:
        FileNotFoundError: naming a missing source or sample.
        ValueError: naming the file when ``source`` is not byte-level BPE, ``vocab_size`` when it is below what
            every trim keeps, ``output`` when it is the source's directory.
        FileExistsError: naming another tokenizer's files in ``output``, without ``force`` (before any work).

    >>> import hf_bpe, pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = hf_bpe.train_from_iterator(["hug pug hug bug", "дом дома"], vocab_size=290).save(root / "tok")
    >>> _ = (root / "ru.txt").write_text("дом дома\\n", encoding="utf-8")
    >>> found = trim(root / "tok", [root / "ru.txt"], vocab_size=266, output=root / "ru", progress=False)
    >>> found.vocab_size, found.must_keep, found.sample_tokens, found.from_sample, found.old_ids[-3:]
    (266, 256, 3, 3, [265, 267, 270])
    """
    original = read_original(source)
    if original.directory is not None and Path(output).resolve() == original.directory.resolve():
        raise ValueError(f"{output}: is the tokenizer being trimmed; write the trimmed one elsewhere")
    check_vocab_size(original, must_keep_ids(original), vocab_size)  # before the sample's encoding
    if not force:
        check_no_stale_files(output, _written_names(original))
    counts = count_sample(original, samples, progress=callback(progress))
    choice = choose_ids(original, counts, vocab_size)
    old_ids = sorted(choice.kept)
    id_map = {old: new for new, old in enumerate(old_ids)}
    trimmed = trimmed_tokenizer(original, id_map)
    files: dict[str, str | bytes] = {
        TOKENIZER_FILE: trimmed.to_str(pretty=True),  # what Tokenizer.save writes
        ID_MAP_FILE: json.dumps({str(old): new for old, new in id_map.items()}, indent=0) + "\n",
        **_directory_files(original, id_map, list(trimmed.file.merges)),
    }
    write_files(output, files, remove=replaced_files(output, files, force=force))
    return TrimResult(
        output=Path(output),
        old_ids=old_ids,
        must_keep=len(must_keep_ids(original)),
        sample_tokens=len(counts),
        from_sample=sum(token_id in id_map for token_id in counts),
        passed_over=choice.passed_over,
        whole_only=choice.whole_only,
    )


def embedding_hint(result: TrimResult) -> str:
    """How to slice a model's embedding matrix (and an untied output layer) for the trimmed tokenizer."""
    return (
        "keep the embedding rows of the kept tokens, in their new order (and the same rows of an untied output "
        "layer):\n"
        "  import json, torch\n"
        f"  id_map = {{int(old): new for old, new in json.load(open({str(result.output / ID_MAP_FILE)!r})).items()}}\n"
        "  old_ids_in_new_order = sorted(id_map, key=id_map.get)\n"
        "  new_embeddings = old_embeddings[torch.tensor(old_ids_in_new_order)]"
    )
