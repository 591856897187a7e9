"""The one place that reads and writes tokenizer files: ``vocab.json``, ``merges.txt`` and whole output directories.

Formats are GPT-2's, as ``tokenizers`` writes them with ``model.save``: ``vocab.json`` is one JSON object from
token to id, ordered by id; ``merges.txt`` starts with ``#version: 0.2`` and has one merge per line, its two
parts separated by a single space, in the order they were learned. Tokens are spelled with the byte-level
alphabet (or plain characters for char-level BPE, see :class:`CharLevel`), so they never contain a space or a
newline. A complete output directory adds ``tokenizer_config.json`` (the transformers class, special-token
roles) and ``tokenizer.json`` (the same vocabulary for the ``tokenizers`` library and transformers' Rust backend).

Reading validates and names the file and line of anything wrong. Writing is atomic: every file is first
written beside its target under a temporary name and only then renamed over it, all files of a directory
together, so an error or Ctrl-C never leaves a half-written or mixed directory behind.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hf_bpe.atomic import write_files
from hf_bpe.models.bpe.options import CharLevel, MergePairs, Merges, Vocab
from hf_bpe.models.directory import (
    TOKENIZER_CONFIG_FILE,
    TOKENIZER_FILE,
    replaced_files,
    special_token_roles,
)
from hf_bpe.pipeline.byte_level import byte_level_json
from hf_bpe.pipeline.decoders import decoder_from_json
from hf_bpe.pipeline.normalizers import normalizer_from_json
from hf_bpe.pipeline.pre_tokenizers import PRESETS, PreTokenizer, pre_tokenizer_from_json
from hf_bpe.pipeline.processors import TemplateProcessing, post_processor_from_json, template_of
from hf_bpe.pipeline.tokenizer_json import (
    NO_TEMPLATE,
    dumps,
    only_types,
    refuse_unsupported,
    special_added_tokens,
    special_token_entry,
    tokenizer_document,
    value_at,
    with_model_type,
)
from hf_bpe.pipeline.tokenizer_json import unsupported as unsupported_component
from hf_bpe.utf8 import decode_utf8

MERGES_HEADER = "#version: 0.2"
VOCAB_FILE = "vocab.json"
MERGES_FILE = "merges.txt"
#: The transformers class that ``tokenizer_config.json`` names (``hf_bpe.transformers.bpe.BPETokenizer``).
TOKENIZER_CLASS = "BPETokenizer"
#: The class for char-level directories (``hf_bpe.transformers.char_bpe.CharBPETokenizer``).
CHAR_TOKENIZER_CLASS = "CharBPETokenizer"


def read_vocab(path: str | os.PathLike[str]) -> Vocab:
    """Read a ``vocab.json``.

    Raises:
        FileNotFoundError: if there is no such file.
        ValueError: if it is not a JSON object from strings to distinct non-negative integers.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "vocab.json"
    >>> _ = path.write_text('{"a": 0, "b": 1, "ab": 2}', encoding="utf-8")
    >>> read_vocab(path)
    {'a': 0, 'b': 1, 'ab': 2}
    """
    path = Path(path)
    text = _read_text(path)
    try:
        vocab = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from e
    if not isinstance(vocab, dict):
        raise ValueError(f"{path}: expected a JSON object from token to id, found {type(vocab).__name__}")
    owner: dict[int, str] = {}
    for token, token_id in vocab.items():
        if type(token_id) is not int or token_id < 0:
            raise ValueError(f"{path}: token {token!r} has id {token_id!r}; ids must be non-negative integers")
        if token_id in owner:
            raise ValueError(f"{path}: tokens {owner[token_id]!r} and {token!r} both have id {token_id}")
        owner[token_id] = token
    return vocab


def read_merges(path: str | os.PathLike[str], vocab: Mapping[str, int] | None = None) -> Merges:
    """Read a ``merges.txt``, with or without its ``#version`` header, with ``\\n`` or ``\\r\\n`` line endings.

    Args:
        path: the file.
        vocab: when given, each part and each merged token must be in it.

    Raises:
        FileNotFoundError: if there is no such file.
        ValueError: naming the file and the 1-based line number of a malformed merge.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "merges.txt"
    >>> _ = path.write_text("#version: 0.2\\na b\\nab c\\n", encoding="utf-8")
    >>> read_merges(path)
    [('a', 'b'), ('ab', 'c')]
    """
    path = Path(path)
    merges: Merges = []
    for number, line in enumerate(_read_text(path).split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line or (number == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise ValueError(f"{path}:{number}: expected two tokens separated by one space, found {line!r}")
        left, right = parts
        if vocab is not None:
            for token in (left, right, left + right):
                if token not in vocab:
                    raise ValueError(f"{path}:{number}: {token!r} (from merge {line!r}) is not in the vocabulary")
        merges.append((left, right))
    return merges


#: The sections of a ``tokenizer.json``'s model that continuing training rewrites; every other part of the file is
#: written back as it was read (:class:`KeptPipeline`).
REWRITTEN_MODEL_KEYS = ("vocab", "merges")


@dataclasses.dataclass(frozen=True)
class KeptPipeline:
    """A ``tokenizer.json``'s whole pipeline but its vocabulary and merges, kept to be written back around a
    continued vocabulary (:func:`continued_tokenizer_json`): normalizer, pre-tokenizer, post-processor, decoder, the
    model's other settings (``ignore_merges``, ``dropout``, ...), every added token with its flags and id, and
    whatever else the file holds (``truncation``, ``padding``, ``version``).

    Attributes:
        document: the file as read, with ``model.vocab`` and ``model.merges`` set to None (their places kept, so the
            keys come back in the file's order).
        added_only: the contents of the added tokens that are not in ``model.vocab`` (Qwen's and Llama-3's special
            tokens, which the Rust backend's added vocabulary alone holds).
        merges_as_pairs: whether the file writes merges as ``["a", "b"]`` pairs (else as ``"a b"`` strings).
        config: the ``tokenizer_config.json`` beside it (``{}`` without one).
    """

    document: Mapping[str, Any]
    added_only: frozenset[str]
    merges_as_pairs: bool
    config: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def ignore_merges(self) -> bool:
        """The model's ``ignore_merges``: a pre-token in the vocabulary whole is that one token."""
        return bool(self.document["model"].get("ignore_merges"))

    @property
    def added_tokens(self) -> list[dict[str, Any]]:
        """The file's ``added_tokens`` entries, as written."""
        return list(self.document.get("added_tokens") or [])

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> KeptPipeline:
        """The pipeline of a parsed ``tokenizer.json`` holding a BPE model."""
        model = data["model"]
        vocab = model.get("vocab") or {}
        added = data.get("added_tokens") or []
        merges = model.get("merges") or []
        document = {**data, "model": {**model, **dict.fromkeys(REWRITTEN_MODEL_KEYS)}}
        return cls(
            document,
            frozenset(str(entry.get("content")) for entry in added if entry.get("content") not in vocab),
            not merges or not isinstance(merges[0], str),
        )


@dataclasses.dataclass(frozen=True)
class TokenizerJson:
    """What :func:`read_tokenizer_json` takes from a byte-level BPE ``tokenizer.json``.

    Attributes:
        vocab: the model's vocabulary.
        merges: the model's merges, in rank order (a list from :func:`read_tokenizer_json`, a
            :class:`MergePairs` from :func:`tokenizer_json_from_data`).
        add_prefix_space: the ``ByteLevel`` pre-tokenizer's setting.
        added_tokens: the ``added_tokens`` entries as written (``content``, ``id``, ``special``, ``lstrip``, ...).
        pre_tokenizer: the normalizer and splits, as ``tokenizer_config.json`` records them
            (:meth:`~hf_bpe.pipeline.pre_tokenizers.PreTokenizer.model_settings`).
        ignore_merges: the model's ``ignore_merges`` (a pre-token in the vocabulary is one token).
        template: the post-processor's ``TemplateProcessing`` (the special tokens put around each sequence), or
            None where it adds none.
        pipeline: everything else in the file, to write it back around a continued vocabulary.
    """

    vocab: Vocab
    merges: Sequence[tuple[str, str]]
    add_prefix_space: bool
    added_tokens: list[dict[str, object]]
    pre_tokenizer: dict[str, object] = dataclasses.field(default_factory=dict)
    ignore_merges: bool = False
    template: TemplateProcessing | None = None
    pipeline: KeptPipeline | None = None


def fast_path_settings(
    data: Mapping[str, Any], model: Mapping[str, Any], path: str | os.PathLike[str]
) -> tuple[PreTokenizer, TemplateProcessing | None]:
    """The pre-tokenizer and template :class:`~hf_bpe.transformers.bpe.BPETokenizer`'s fast path takes of a parsed
    BPE ``tokenizer.json`` (``model`` its model section, ``path`` naming it): every check
    :func:`read_tokenizer_json` makes of a file, in its order, so that deciding which class reads a file
    (:func:`hf_bpe.tokenizer.directory.json_class`) and reading it agree.

    Raises:
        ValueError: naming the file and the setting the fast path does not take.
    """
    try:
        pre_tokenizer = PreTokenizer.from_tokenizer_json(gapless_splits(data))
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise ValueError(
            f"{path}: {e}; BPETokenizer reads byte-level BPE (ByteLevel, or Split steps and ByteLevel) only; load "
            "this file with transformers' TokenizersBackend instead"
        ) from e
    model_settings = {
        "continuing_subword_prefix": model.get("continuing_subword_prefix"),
        "end_of_word_suffix": model.get("end_of_word_suffix"),
        "byte_fallback": model.get("byte_fallback"),
    }
    for name, value in model_settings.items():
        if value:
            raise unsupported_component(path, f"model.{name}", value, name.replace("_", " "), "BPETokenizer")
    refuse_unsupported(
        data,
        path,
        "BPETokenizer",
        post_processor=only_types(
            "ByteLevel", settings={"trim_offsets": False}, accept=lambda part: part.get("type") == "TemplateProcessing"
        ),
        decoder=only_types("ByteLevel"),
        truncation_and_padding=True,
    )
    try:
        template = template_of(data.get("post_processor"))
    except ValueError as e:
        where, _, why = str(e).partition(": ")
        value = value_at(data.get("post_processor"), where)
        raise unsupported_component(path, where, value, f"a template with {why}", "BPETokenizer") from None
    return pre_tokenizer, template


def read_tokenizer_json(path: str | os.PathLike[str]) -> TokenizerJson:
    """Read the vocabulary, merges and pre-tokenizer of a byte-level BPE ``tokenizer.json`` (as ``tokenizers`` and
    transformers' Rust backend save it); merges may be ``"a b"`` strings or ``["a", "b"]`` pairs. The pre-tokenizer
    is GPT-2's ``ByteLevel`` or ``Split`` steps before ``ByteLevel(use_regex=False)``, with no normalizer or NFC,
    NFKC or Lowercase (:meth:`hf_bpe.pipeline.pre_tokenizers.PreTokenizer.from_tokenizer_json`). A ``Split`` that
    keeps only its matches (``"Removed"``, inverted: OLMo-2's) is read as the ``"Isolated"`` one it equals where its
    pattern leaves no character unmatched (:func:`gapless_splits`).

    Raises:
        FileNotFoundError: if there is no such file.
        ValueError: naming the file and the setting, if it is not JSON or not byte-level BPE hf_bpe can express
            (another model, another normalizer or pre-tokenizer, an affix, byte fallback or ``ignore_merges``).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tokenizer.json"
    >>> model = {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}
    >>> pre = {"type": "ByteLevel", "add_prefix_space": True, "use_regex": True}
    >>> _ = path.write_text(json.dumps({"model": model, "pre_tokenizer": pre, "added_tokens": []}), encoding="utf-8")
    >>> found = read_tokenizer_json(path)
    >>> found.merges, found.add_prefix_space
    ([('a', 'b')], True)
    """
    path = Path(path)
    data, _ = read_bpe_json(path, FAST_PATH_READER)
    found = tokenizer_json_from_data(data, path)
    return dataclasses.replace(found, merges=list(found.merges))


#: Who reads what, in the error naming a file whose model is not BPE.
FAST_PATH_READER = "BPETokenizer reads byte-level BPE"


def tokenizer_json_from_data(
    data: Mapping[str, Any], path: Path, vocab_and_merges: tuple[Vocab, Sequence[tuple[str, str]]] | None = None
) -> TokenizerJson:
    """:func:`read_tokenizer_json` of a parsed file (``path`` names it in errors), its merges as :class:`MergePairs`
    (or as ``vocab_and_merges`` give them, read from the same model by the caller); ``data`` is not changed.

    Raises:
        ValueError: as :func:`read_tokenizer_json`.
    """
    model = bpe_model(data, path, FAST_PATH_READER)
    pre_tokenizer, template = fast_path_settings(data, model, path)
    vocab, merges = vocab_and_merges or model_vocab_and_pairs(model, path)
    added = data.get("added_tokens") or []
    settings = pre_tokenizer.model_settings()
    return TokenizerJson(
        vocab,
        merges,
        pre_tokenizer.add_prefix_space,
        list(added),
        settings,
        ignore_merges=bool(model.get("ignore_merges")),
        template=template,
        pipeline=KeptPipeline.of(data),
    )


#: Split patterns that match every character wherever it stands: each has alternatives for letters
#: (``\p{L}+``), numbers (``\p{N}``), everything else but white space (``[^\s\p{L}\p{N}]+``) and, last, any
#: white space (``\s+``). Keeping only their matches (a ``Split`` ``"Removed"`` and inverted) drops nothing, so it
#: cuts as ``"Isolated"`` does (tested against ``tokenizers`` on every code point in
#: ``tests/models/bpe/test_continue_real.py``).
GAPLESS_SPLIT_PATTERNS = frozenset(PRESETS[name].splits[0] for name in ("gpt2", "llama3", "o200k", "qwen2"))


def gapless_splits(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """``data`` with each ``Split`` step that keeps only the matches of a :data:`GAPLESS_SPLIT_PATTERNS` pattern
    (``behavior`` ``"Removed"``, ``invert`` true, as OLMo-2's file writes cl100k's split) read as the ``"Isolated"``
    step it equals; ``data`` itself where there is none. The file is not changed.

    >>> step = {"type": "Split", "pattern": {"Regex": PRESETS["llama3"].splits[0]}, "behavior": "Removed",
    ...         "invert": True}
    >>> gapless_splits({"pre_tokenizer": step})["pre_tokenizer"]["behavior"]
    'Isolated'
    """
    pre = data.get("pre_tokenizer")
    if not isinstance(pre, dict):
        return data
    sequence = pre.get("type") == "Sequence" and isinstance(pre.get("pretokenizers"), list)
    steps = pre["pretokenizers"] if sequence else [pre]
    read = [
        {**step, "behavior": "Isolated", "invert": False}
        if isinstance(step, dict)
        and step.get("type") == "Split"
        and step.get("behavior") == "Removed"
        and step.get("invert") is True
        and isinstance(step.get("pattern"), dict)
        and step["pattern"].get("Regex") in GAPLESS_SPLIT_PATTERNS
        else step
        for step in steps
    ]
    if read == steps:
        return data
    return {**data, "pre_tokenizer": {**pre, "pretokenizers": read} if sequence else read[0]}


def read_bpe_json(path: Path, reader: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A ``tokenizer.json`` and its ``model`` section, which must be BPE (``reader`` says who reads what).

    Raises:
        ValueError: naming the file, if it is not JSON or its model is not BPE.
    """
    try:
        data = with_model_type(json.loads(_read_text(path)))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from e
    return data, bpe_model(data, path, reader)


def bpe_model(data: Any, path: Path, reader: str) -> dict[str, Any]:
    """A parsed ``tokenizer.json``'s ``model`` section, which must be BPE (``reader`` says who reads what).

    Raises:
        ValueError: naming the file, if its model is not BPE.
    """
    model = data.get("model") if isinstance(data, dict) else None
    if not isinstance(model, dict) or model.get("type") != "BPE":
        found = model.get("type") if isinstance(model, dict) else None
        raise ValueError(f"{path}: model type is {found!r}; {reader} (model type 'BPE') only")
    return model


def model_vocab_and_merges(model: Mapping[str, Any], path: Path) -> tuple[Vocab, Merges]:
    """A BPE ``model`` section's vocabulary and merges (``"a b"`` strings or ``["a", "b"]`` pairs).

    Raises:
        ValueError: naming the file and the entry that is not well formed.
    """
    vocab, merges = model_vocab_and_pairs(model, path)
    return vocab, list(merges)


def model_vocab_and_pairs(model: Mapping[str, Any], path: Path) -> tuple[Vocab, MergePairs]:
    """:func:`model_vocab_and_merges`, the merges as :class:`MergePairs` (no tuple made per merge).

    Raises:
        ValueError: naming the file and the entry that is not well formed.
    """
    vocab = model.get("vocab")
    # Checked in C (a type per id, the least id): Gemma's 262,000 ids.
    if not isinstance(vocab, dict) or not set(map(type, vocab.values())) <= {int} or min(vocab.values(), default=0) < 0:
        raise ValueError(f"{path}: model.vocab must be an object from token to non-negative integer id")
    raw = model.get("merges") or []
    merges = _well_formed_merges(raw)
    if merges is not None:
        return dict(vocab), merges
    for number, merge in enumerate(raw, start=1):
        parts = merge.split(" ") if isinstance(merge, str) else merge
        if not isinstance(parts, list) or len(parts) != 2 or not all(isinstance(p, str) and p for p in parts):
            raise ValueError(f'{path}: merge {number} is {merge!r}; expected "left right" or ["left", "right"]')
        if type(merge) is not type(raw[0]):
            # tokenizers' MergeType is one untagged enum for the whole list: all strings or all pairs.
            kind = "strings" if isinstance(raw[0], str) else "pairs"
            raise ValueError(f"{path}: merge {number} is {merge!r}, but the merges before it are {kind}: one kind only")
    raise ValueError(f"{path}: model.merges must be a list of merges")  # not reached: the loop names the culprit


def _well_formed_merges(raw: Any) -> MergePairs | None:
    """``raw`` as :class:`MergePairs`, read in C where every merge is well formed ("a b" strings, or ["a", "b"]
    lists, one kind throughout); None otherwise, for :func:`model_vocab_and_pairs`'s loop to name the first that
    is not."""
    if not isinstance(raw, list) or not raw:
        return None if raw else MergePairs([], [])
    kinds = set(map(type, raw))
    if kinds == {str}:
        # One space each (counted without splitting): joined by spaces, the parts alternate left, right.
        if set(map(str.count, raw, itertools.repeat(" "))) != {1}:
            return None
        parts = " ".join(raw).split(" ")
    elif kinds == {list}:
        if set(map(len, raw)) != {2}:
            return None
        parts = list(itertools.chain.from_iterable(raw))
        if set(map(type, parts)) != {str}:
            return None
    else:
        return None
    if "" in parts:  # a space first or last, or an empty string
        return None
    return MergePairs(parts[0::2], parts[1::2])


def format_vocab(vocab: Mapping[str, int]) -> str:
    """``vocab.json``'s text: tokens ordered by id, non-ASCII kept as is, as ``tokenizers`` writes it."""
    ordered = dict(sorted(vocab.items(), key=lambda item: item[1]))
    return json.dumps(ordered, ensure_ascii=False, separators=(",", ":"))


def format_merges(merges: Merges) -> str:
    """``merges.txt``'s text: the header, then one ``left right`` line per merge.

    >>> print(format_merges([("a", "b"), ("ab", "c")]), end="")
    #version: 0.2
    a b
    ab c
    """
    return "".join([MERGES_HEADER, "\n", *(f"{left} {right}\n" for left, right in merges)])


def write_vocab(path: str | os.PathLike[str], vocab: Mapping[str, int]) -> None:
    """Write ``vocab.json`` atomically."""
    write_files(Path(path).parent, {Path(path).name: format_vocab(vocab)})


def write_merges(path: str | os.PathLike[str], merges: Merges) -> None:
    """Write ``merges.txt`` atomically."""
    write_files(Path(path).parent, {Path(path).name: format_merges(merges)})


def tokenizer_config(
    special_tokens: Sequence[str],
    roles: Mapping[str, str | None] | None = None,
    *,
    pre_tokenizer: PreTokenizer | None = None,
    add_prefix_space: bool = False,
    char_level: CharLevel | None = None,
) -> dict[str, object]:
    """The ``tokenizer_config.json`` contents that make transformers load the files with :data:`TOKENIZER_CLASS`.

    Every special token is a special token of the loaded tokenizer: those with a role under the role's name,
    the rest as ``extra_special_tokens``. A byte-level tokenizer records its pre-tokenizer (``pre_tokenizer``:
    splits, normalizer, engine and preset name; ``add_prefix_space`` beside it, as transformers names it), which
    :class:`hf_bpe.transformers.bpe.BPETokenizer` takes back as arguments.
    """
    named = special_token_roles(special_tokens, roles)
    extra = [token for token in special_tokens if token not in named.values()]
    if char_level is not None:
        return {
            "tokenizer_class": CHAR_TOKENIZER_CLASS,
            **named,
            "extra_special_tokens": extra,
            "end_of_word_suffix": char_level.end_of_word_suffix,
            "continuing_subword_prefix": char_level.continuing_subword_prefix,
            "lowercase": char_level.lowercase,
            "clean_up_tokenization_spaces": False,
        }
    pre_tokenizer = pre_tokenizer or PreTokenizer(add_prefix_space=add_prefix_space)
    return {
        "tokenizer_class": TOKENIZER_CLASS,
        **named,
        "extra_special_tokens": extra,
        "add_prefix_space": pre_tokenizer.add_prefix_space,
        "pre_tokenizer": pre_tokenizer.model_settings(),
        "errors": "replace",
        "clean_up_tokenization_spaces": False,
    }


def tokenizer_json(
    vocab: Mapping[str, int],
    merges: Merges,
    special_tokens: Sequence[str],
    *,
    pre_tokenizer: PreTokenizer | None = None,
    add_prefix_space: bool = False,
    char_level: CharLevel | None = None,
    unk_token: str | None = None,
    ignore_merges: bool = False,
    template: TemplateProcessing | None = None,
    added_tokens: list[dict[str, Any]] | None = None,
    truncation: Mapping[str, Any] | None = None,
    padding: Mapping[str, Any] | None = None,
) -> str:
    """``tokenizer.json`` for the same vocabulary, as ``tokenizers`` writes it (``Tokenizer.to_str()``, byte for
    byte; the tests hold the two side by side).

    It lets transformers' Rust backend (``TokenizersBackend``) load the directory when hf_bpe is not installed,
    with the same ids: the pre-tokenizer's normalizer and splits are
    :class:`~hf_bpe.pipeline.pre_tokenizers.PreTokenizer`'s ``tokenizer.json`` form; ``ignore_merges`` and
    ``template`` (the special tokens around each sequence) as a file read by :func:`read_tokenizer_json` had them.
    ``added_tokens``: the ``added_tokens`` entries to write (default: each of ``special_tokens`` as
    ``Tokenizer.add_special_tokens`` adds it); ``truncation`` and ``padding``: those sections, in the file's form.
    """
    added = special_added_tokens(special_tokens, vocab) if added_tokens is None else added_tokens
    if char_level is not None:
        document = char_level_document(
            vocab, merges, char_level, pre_tokenizer=pre_tokenizer, unk_token=unk_token, added_tokens=added,
            truncation=truncation, padding=padding,
        )  # fmt: skip
        return dumps(document)
    document = byte_level_document(
        vocab,
        merges,
        pre_tokenizer or PreTokenizer(add_prefix_space=add_prefix_space),
        ignore_merges=ignore_merges,
        template=template,
        added_tokens=added,
        truncation=truncation,
        padding=padding,
    )
    return dumps(document)


def byte_level_document(
    vocab: Mapping[str, int],
    merges: Merges,
    pre_tokenizer: PreTokenizer,
    *,
    ignore_merges: bool = False,
    template: TemplateProcessing | None = None,
    added_tokens: list[dict[str, Any]] | None = None,
    truncation: Mapping[str, Any] | None = None,
    padding: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The document of a byte-level :func:`tokenizer_json`, parsed (the pre-tokenizer's normalizer and cut, BPE,
    ``ByteLevel`` post-processor (then ``template``) and decoder): what :class:`~hf_bpe.transformers.bpe.BPETokenizer`
    runs as its pipeline is what it writes."""
    post_processor = byte_level_json(trim_offsets=False)
    if template is not None:
        post_processor = {"type": "Sequence", "processors": [post_processor, template.to_json()]}
    return tokenizer_document(
        bpe_model_json(vocab, merges, ignore_merges=ignore_merges),
        added_tokens=added_tokens or [],
        normalizer=pre_tokenizer.normalizer_json(),
        pre_tokenizer=pre_tokenizer.pre_tokenizer_json(),
        post_processor=post_processor,
        decoder=byte_level_json(),
        truncation=truncation,
        padding=padding,
    )


def char_level_document(
    vocab: Mapping[str, int],
    merges: Merges,
    char_level: CharLevel,
    *,
    pre_tokenizer: PreTokenizer | None = None,
    unk_token: str | None = None,
    added_tokens: list[dict[str, Any]] | None = None,
    truncation: Mapping[str, Any] | None = None,
    padding: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The document of a char-level :func:`tokenizer_json`, parsed (``Lowercase`` when so, ``WhitespaceSplit``, BPE
    with the affixes, ``BPEDecoder``): what :class:`~hf_bpe.transformers.char_bpe.CharBPETokenizer` runs as its
    pipeline is what it writes. ``pre_tokenizer``: the char-level cut training used, written as it is (default:
    ``char_level``'s, built here).

    Raises:
        ValueError: for a byte-level ``pre_tokenizer``, or one that does not lowercase when ``char_level`` does.
    """
    if pre_tokenizer is None:
        pre_tokenizer = PreTokenizer.char_level(lowercase=char_level.lowercase)
    elif pre_tokenizer.byte_level or (char_level.lowercase and pre_tokenizer.normalizer != "lowercase"):
        raise ValueError(
            f"pre_tokenizer {pre_tokenizer!r} is not the char-level cut {char_level!r} asks for; give "
            "PreTokenizer.char_level(lowercase=...) or none"
        )
    model = bpe_model_json(
        vocab,
        merges,
        unk_token=unk_token or None,
        continuing_subword_prefix=char_level.continuing_subword_prefix or None,
        end_of_word_suffix=char_level.end_of_word_suffix or None,
    )
    return tokenizer_document(
        model,
        added_tokens=added_tokens or [],
        normalizer=pre_tokenizer.normalizer_json(),
        pre_tokenizer=pre_tokenizer.pre_tokenizer_json(),
        post_processor=None,
        decoder={"type": "BPEDecoder", "suffix": char_level.end_of_word_suffix or ""},
        truncation=truncation,
        padding=padding,
    )


def bpe_model_json(
    vocab: Mapping[str, int],
    merges: Merges,
    *,
    unk_token: str | None = None,
    continuing_subword_prefix: str | None = None,
    end_of_word_suffix: str | None = None,
    ignore_merges: bool = False,
) -> dict[str, Any]:
    """The ``model`` section of a BPE ``tokenizer.json``: the vocabulary ordered by id, merges as pairs."""
    return {
        "type": "BPE",
        "dropout": None,
        "unk_token": unk_token,
        "continuing_subword_prefix": continuing_subword_prefix,
        "end_of_word_suffix": end_of_word_suffix,
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": ignore_merges,
        "vocab": dict(sorted(vocab.items(), key=lambda item: item[1])),
        "merges": [[left, right] for left, right in merges],
    }


def write_tokenizer_dir(
    directory: str | os.PathLike[str],
    vocab: Mapping[str, int],
    merges: Merges,
    *,
    special_tokens: Sequence[str] = (),
    roles: Mapping[str, str | None] | None = None,
    pre_tokenizer: PreTokenizer | None = None,
    add_prefix_space: bool = False,
    char_level: CharLevel | None = None,
    ignore_merges: bool = False,
    force: bool = False,
) -> list[Path]:
    """Write a complete tokenizer directory, all files or none.

    The files: ``vocab.json`` and ``merges.txt`` (GPT-2's format, byte-identical to what ``tokenizers``
    writes), ``tokenizer_config.json`` (for transformers) and ``tokenizer.json`` (for the Rust backend).
    ``pre_tokenizer`` (default: GPT-2's, with ``add_prefix_space``; char-level: ``char_level``'s) says how text is cut,
    written as handed over; ``ignore_merges`` is the BPE
    model's (a pre-token in the vocabulary whole is that token: tiktoken's rule). Other files in the
    directory stay, except those that would change the loaded tokenizer (:data:`FOREIGN_TOKENIZER_FILES`): they
    are refused, or removed with the write when ``force`` is set.

    Returns:
        The paths written.

    Raises:
        FileExistsError: if the directory holds files of another tokenizer and ``force`` is not set.
    """
    if pre_tokenizer is None and char_level is None:
        pre_tokenizer = PreTokenizer(add_prefix_space=add_prefix_space)  # char-level's is char_level_document's
    config = tokenizer_config(special_tokens, roles, pre_tokenizer=pre_tokenizer, char_level=char_level)
    unk = special_token_roles(special_tokens, roles)["unk_token"]
    files = {
        VOCAB_FILE: format_vocab(vocab),
        MERGES_FILE: format_merges(merges),
        TOKENIZER_CONFIG_FILE: json.dumps(config, ensure_ascii=False, indent=2) + "\n",
        TOKENIZER_FILE: tokenizer_json(
            vocab,
            merges,
            special_tokens,
            pre_tokenizer=pre_tokenizer,
            char_level=char_level,
            unk_token=unk,
            ignore_merges=ignore_merges,
        ),
    }
    write_files(directory, files, remove=replaced_files(directory, files, force=force))
    return [Path(directory) / name for name in files]


def continued_tokenizer_json(
    pipeline: KeptPipeline, vocab: Mapping[str, int], merges: Merges, new_special_tokens: Sequence[str] = ()
) -> str:
    """The ``tokenizer.json`` of a continued tokenizer: the base's file (``pipeline``) with its model's vocabulary
    and merges replaced by ``vocab`` and ``merges`` (the base's first, in their order and with their ids), and each
    of ``new_special_tokens`` added after the base's added tokens as a special token. Every other part is the base's
    as read, key for key.

    The model's vocabulary is :func:`continued_model_vocab`'s, ids ordered as ``tokenizers`` writes them. Merges are
    written in the base file's form (pairs, or ``"a b"`` strings).

    >>> pipeline = KeptPipeline.of({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": []},
    ...                             "added_tokens": [{"id": 2, "content": "<s>", "special": True}]})
    >>> data = json.loads(continued_tokenizer_json(pipeline, {"a": 0, "b": 1, "<s>": 2, "ab": 3}, [("a", "b")]))
    >>> data["model"]["vocab"], data["model"]["merges"], [entry["id"] for entry in data["added_tokens"]]
    ({'a': 0, 'b': 1, '<s>': 2, 'ab': 3}, [['a', 'b']], [2])
    """
    model = dict(pipeline.document["model"])
    model["vocab"] = continued_model_vocab(pipeline, vocab, merges)
    model["merges"] = [[left, right] if pipeline.merges_as_pairs else f"{left} {right}" for left, right in merges]
    added = pipeline.added_tokens + [special_token_entry(vocab[token], token) for token in new_special_tokens]
    document = {**pipeline.document, "model": model}
    if "added_tokens" in document or added:
        document["added_tokens"] = added
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def loaded_tokenizer_json(
    pipeline: KeptPipeline,
    vocab: Mapping[str, int],
    merges: Merges,
    *,
    added_tokens: list[dict[str, Any]],
    truncation: Mapping[str, Any] | None = None,
    padding: Mapping[str, Any] | None = None,
) -> str:
    """The ``tokenizer.json`` a tokenizer loaded from ``pipeline``'s file saves: the file's normalizer,
    pre-tokenizer, post-processor and decoder as their twins write them back (a ``Split`` ``"Removed"`` and inverted
    stays so; a ``null`` post-processor becomes a template adding nothing,
    :data:`~hf_bpe.pipeline.tokenizer_json.NO_TEMPLATE`), its model's settings, this ``vocab`` and
    ``merges``, and the added tokens, truncation and padding of now.

    That is what transformers' ``TokenizersBackend.save_pretrained`` writes for the same file (``Tokenizer::save``
    serializes the sections it deserialized; merges as pairs, the model's missing settings at their defaults).

    >>> pipeline = KeptPipeline.of({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]},
    ...     "post_processor": None, "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True}})
    >>> data = json.loads(loaded_tokenizer_json(pipeline, {"a": 0, "b": 1, "ab": 2}, [("a", "b")], added_tokens=[]))
    >>> data["post_processor"]["single"], data["decoder"]["use_regex"], data["model"]["merges"]
    ([{'Sequence': {'id': 'A', 'type_id': 0}}], True, [['a', 'b']])
    >>> data["model"]["ignore_merges"]
    False
    """
    read = pipeline.document
    settings = {key: value for key, value in read["model"].items() if key not in REWRITTEN_MODEL_KEYS}
    model = {**bpe_model_json(vocab, merges), **settings}
    model["vocab"], model["merges"] = dict(sorted(vocab.items(), key=lambda item: item[1])), [list(m) for m in merges]
    # Each section read into its twin and written back by it, as Tokenizer::save serializes what it deserialized.
    post_processor = post_processor_from_json(read.get("post_processor")).to_json()
    document = tokenizer_document(
        model,
        added_tokens=added_tokens,
        normalizer=normalizer_from_json(read.get("normalizer")).to_json(),
        pre_tokenizer=pre_tokenizer_from_json(read.get("pre_tokenizer")).to_json(),
        post_processor=dict(NO_TEMPLATE) if post_processor is None else post_processor,
        decoder=decoder_from_json(read.get("decoder")).to_json(),
        truncation=truncation,
        padding=padding,
    )
    return dumps(document)


def continued_model_vocab(pipeline: KeptPipeline, vocab: Mapping[str, int], merges: Merges) -> Vocab:
    """The model's vocabulary of a continued tokenizer, ordered by id: ``vocab``, but the base's added tokens its
    model did not hold that no model token comes after.

    An added token the model does not hold gets its id from ``tokenizers`` when the file is loaded, not from the
    file: the next id after the model's vocabulary, whatever ``added_tokens`` says (``AddedVocabulary::add_tokens``).
    Once new tokens follow it, only the model's vocabulary can keep its id (as Mistral's and OLMo's files hold their
    special tokens): it is matched whole before the model sees the text, so the model never produces it there.
    """
    made = {left + right for left, right in merges}
    top = max((token_id for token, token_id in vocab.items() if token not in pipeline.added_only), default=-1)
    kept = [
        (token, token_id)
        for token, token_id in vocab.items()
        if token not in pipeline.added_only or token_id < top or token in made
    ]
    return dict(sorted(kept, key=lambda item: item[1]))


def continued_config(
    pipeline: KeptPipeline,
    vocab: Mapping[str, int],
    new_special_tokens: Sequence[str],
    roles: Mapping[str, str | None] | None,
    pre_tokenizer: PreTokenizer,
) -> dict[str, Any]:
    """``tokenizer_config.json`` for a continued tokenizer whose ``tokenizer.json`` keeps its base's pipeline: the
    base's own config (its class, chat template, ...) when it had one, the roles given, the new special tokens
    (``extra_special_tokens``, and ``added_tokens_decoder`` where the base's config lists its added tokens there),
    and the pre-tokenizer as hf_bpe's directories record it (``hf-bpe report`` reads it).

    Its class is never :data:`TOKENIZER_CLASS`, which names a directory hf_bpe wrote from ``vocab.json`` and
    ``merges.txt`` alone: here the pipeline lives in ``tokenizer.json`` (transformers' Rust backend loads it as
    ``PreTrainedTokenizerFast``; ``hf_bpe.from_pretrained`` reads it into ``BPETokenizer``).
    """
    config: dict[str, Any] = json.loads(json.dumps(pipeline.config))  # a deep copy: the base's stays as read
    if config.get("tokenizer_class") in (None, TOKENIZER_CLASS, CHAR_TOKENIZER_CLASS):
        config["tokenizer_class"] = "PreTrainedTokenizerFast"
    config.update({role: token for role, token in (roles or {}).items() if token is not None})
    if new_special_tokens:
        key = "additional_special_tokens" if "additional_special_tokens" in config else "extra_special_tokens"
        listed = list(config.get(key) or [])
        config[key] = listed + [token for token in new_special_tokens if token not in listed]
        if isinstance(config.get("added_tokens_decoder"), dict):
            for token in new_special_tokens:
                config["added_tokens_decoder"][str(vocab[token])] = {
                    "content": token, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False,
                    "special": True,
                }  # fmt: skip
    config["add_prefix_space"] = pre_tokenizer.add_prefix_space
    config["pre_tokenizer"] = pre_tokenizer.model_settings()
    return config


def write_continued_dir(
    directory: str | os.PathLike[str],
    vocab: Mapping[str, int],
    merges: Merges,
    *,
    pipeline: KeptPipeline,
    special_tokens: Sequence[str] = (),
    roles: Mapping[str, str | None] | None = None,
    pre_tokenizer: PreTokenizer | None = None,
    force: bool = False,
) -> list[Path]:
    """Write a continued tokenizer whose base came from a ``tokenizer.json``, all files or none: ``tokenizer.json``
    with the base's whole pipeline (:func:`continued_tokenizer_json`), ``tokenizer_config.json``
    (:func:`continued_config`), and the model's ``vocab.json`` and ``merges.txt`` (GPT-2's format). The special
    tokens of ``special_tokens`` that are none of the base's added tokens are added after them. Other files: as
    :func:`write_tokenizer_dir`.

    Returns:
        The paths written.

    Raises:
        FileExistsError: if the directory holds files of another tokenizer and ``force`` is not set.
    """
    pre_tokenizer = pre_tokenizer or PreTokenizer()
    known = {str(entry.get("content")) for entry in pipeline.added_tokens}
    new = [token for token in special_tokens if token not in known]
    config = continued_config(pipeline, vocab, new, roles, pre_tokenizer)
    files = {
        VOCAB_FILE: format_vocab(continued_model_vocab(pipeline, vocab, merges)),
        MERGES_FILE: format_merges(merges),
        TOKENIZER_CONFIG_FILE: json.dumps(config, ensure_ascii=False, indent=2) + "\n",
        TOKENIZER_FILE: continued_tokenizer_json(pipeline, vocab, merges, new),
    }
    write_files(directory, files, remove=replaced_files(directory, files, force=force))
    return [Path(directory) / name for name in files]


def _read_text(path: Path) -> str:
    if path.is_dir():
        raise IsADirectoryError(f"{path}: is a directory, expected a file")
    try:
        data = path.read_bytes()
    except FileNotFoundError as e:
        raise FileNotFoundError(f"{path}: no such file") from e
    return decode_utf8(data, path)
