"""``train_new_from_iterator`` for the classes over a ``tokenizer.json`` (WordPiece, Unigram, BPE files).

transformers v5's Rust ``TokenizersBackend.train_new_from_iterator`` empties the loaded tokenizer's model, keeps its
normalizer, pre-tokenizer and decoder, trains the model's ``tokenizers`` trainer on the texts (the tokenizer's special
added tokens first; a Unigram model's every added token), renumbers the post-processor's special tokens and builds
the same class again around the trained tokenizer. This module does the same steps with hf_bpe's own trainers
(:func:`~hf_bpe.models.bpe.trainer.train_bpe`, :func:`~hf_bpe.models.wordpiece.trainer.train_wordpiece`,
:func:`~hf_bpe.models.unigram.trainer.train_unigram`), counting words as ``Tokenizer::train`` does (the file's
normalizer and pre-tokenizer, no added tokens cut out). It gives back the trained ``tokenizer.json`` document and the
added tokens the trained tokenizer holds; building the class is the class's own job. A model it cannot train
(WordLevel) and a trainer option it does not implement are refused by name.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from hf_bpe.models.directory import TOKENIZER_FILE
from hf_bpe.pipeline.byte_level import BYTE_ALPHABET
from hf_bpe.pipeline.pipeline import Pipeline
from hf_bpe.tokenizer.serialization import PipelineJson, pipeline_from_data, pipeline_json
from hf_bpe.transformers._import import quiet_transformers_import

with quiet_transformers_import():
    from transformers import AddedToken

#: The ``tokenizers`` trainer options hf_bpe takes, by model type (``show_progress`` is only output).
TRAINER_OPTIONS: dict[str, frozenset[str]] = {
    "BPE": frozenset(
        {"min_frequency", "limit_alphabet", "max_token_length", "continuing_subword_prefix", "end_of_word_suffix"}
    ),
    "WordPiece": frozenset({"min_frequency", "limit_alphabet", "continuing_subword_prefix"}),
    "Unigram": frozenset({"shrinking_factor", "max_piece_length", "n_sub_iterations", "seed_size"}),
}
FLAGS = ("single_word", "lstrip", "rstrip", "normalized")


@dataclasses.dataclass(frozen=True)
class Retrained:
    """A trained ``tokenizer.json``, as ``TokenizersBackend.train_new_from_iterator`` holds it before it builds the
    class again.

    Attributes:
        document: the ``tokenizer.json`` document: the trained model, the kept normalizer, pre-tokenizer and decoder,
            the renumbered post-processor, and ``added_tokens`` as ``Tokenizer::train`` adds the trainer's.
        vocab: the trained model's vocabulary.
        added: the added tokens by id (the trainer's special tokens).
    """

    document: dict[str, Any]
    vocab: dict[str, int]
    added: dict[int, AddedToken]


def retrain(
    read: PipelineJson,
    entries: list[dict[str, Any]],
    texts: Iterable[Any],
    vocab_size: int,
    *,
    new_special_tokens: list[Any] | None,
    renames: Mapping[str, str],
    options: dict[str, Any],
) -> Retrained:
    """Train a new model for the tokenizer ``read`` holding the added tokens ``entries``, as
    ``TokenizersBackend.train_new_from_iterator`` does.

    Args:
        read: the tokenizer's file (its pipeline and sections).
        entries: its added tokens as ``tokenizer.json`` lists them (with ids and flags).
        texts: strings, or batches (lists) of strings; each string one sequence.
        vocab_size: the new model's size, its special tokens included.
        new_special_tokens: special tokens (strings or ``AddedToken``) for the trainer after the tokenizer's own.
        renames: special tokens renamed (old text to new).
        options: the trainer's options (``tokenizers``' names).

    Raises:
        ValueError: naming the model type hf_bpe does not train, or an option it does not implement; a
            post-processor's special token that is not in the new vocabulary (as the Rust backend).
    """
    document = json.loads(pipeline_json(read, entries))
    model = document["model"]
    kind = model.get("type")
    if kind not in TRAINER_OPTIONS:
        raise ValueError(
            f"train_new_from_iterator: a {kind} model is not trained by hf_bpe (it trains BPE, WordPiece and "
            "Unigram models); train it with transformers' Rust backend"
        )
    options = dict(options)
    options.pop("show_progress", None)
    unknown = sorted(set(options) - TRAINER_OPTIONS[kind])
    if unknown:
        raise ValueError(
            f"train_new_from_iterator: {', '.join(unknown)} not implemented for a {kind} model by hf_bpe; it takes "
            f"{', '.join(sorted(TRAINER_OPTIONS[kind]))}"
        )
    byte_level = _byte_level(document.get("pre_tokenizer"))
    if byte_level and kind != "BPE":  # refused before the texts are counted
        raise ValueError(
            f"train_new_from_iterator: a {kind} model behind a ByteLevel pre-tokenizer (its alphabet given to the "
            "trainer) is not implemented by hf_bpe"
        )
    if model.get("unk_token") in renames:
        model["unk_token"] = renames[model["unk_token"]]
    tokens = trainer_tokens(entries, renames, new_special_tokens, every_token=kind == "Unigram")
    counts = word_counts(read.pipeline, texts)
    trainer = {"BPE": _train_bpe, "WordPiece": _train_wordpiece, "Unigram": _train_unigram}[kind]
    vocab = trainer(model, counts, vocab_size, [token.content for token in tokens], byte_level, renames, options)
    added: dict[int, AddedToken] = {}
    for token in tokens:  # Tokenizer::train adds the trainer's special tokens
        add_like_rust(added, vocab, token)
    document["added_tokens"] = [{"id": token_id, **token_entry(token)} for token_id, token in sorted(added.items())]
    document["post_processor"] = renumbered_post_processor(document.get("post_processor"), renames, vocab)
    return Retrained(document, vocab, added)


def word_counts(pipeline: Pipeline, texts: Iterable[Any]) -> Counter[str]:
    """The pre-tokens of ``texts`` and their counts, as ``Tokenizer::train`` feeds its trainer: each sequence
    normalized and pre-tokenized whole, with no added token cut out (``do_normalize``, ``do_pre_tokenize``).

    Raises:
        TypeError: naming an item that is neither a string nor a batch of strings.
    """
    plain = dataclasses.replace(pipeline, normalized_added={}, normalized_flags={})
    if plain.pre_tokenizer.reads_spans:

        def cut(text: str) -> list[str]:
            return [piece for piece, _, _ in plain.pieces(text)]

    else:
        steps, pieces = plain.normalizer.str_steps(), plain.pre_tokenizer.pieces_str

        def cut(text: str) -> list[str]:
            for step in steps:
                text = step(text)
            return pieces(text)

    counts: Counter[str] = Counter()
    for index, item in enumerate(texts):
        batch = [item] if isinstance(item, str) else item
        if not isinstance(batch, (list, tuple)) or not all(isinstance(text, str) for text in batch):
            raise TypeError(f"text_iterator item {index} is a {type(item).__name__}: give strings or lists of strings")
        for text in batch:
            counts.update(cut(text))
    return counts


def trainer_tokens(
    entries: list[dict[str, Any]],
    renames: Mapping[str, str],
    new_special_tokens: list[Any] | None,
    *,
    every_token: bool,
) -> list[AddedToken]:
    """The special tokens ``TokenizersBackend.train_new_from_iterator`` gives the trainer: the tokenizer's special
    added tokens by id (all of them for a Unigram model, ``every_token``), renamed, then the new ones; each marked
    special, as ``tokenizers``' Python trainers mark them."""
    tokens = []
    for entry in entries:
        if entry.get("special") or every_token:
            content = renames.get(entry["content"], entry["content"])
            tokens.append(AddedToken(content, special=True, **{key: bool(entry.get(key)) for key in FLAGS}))
    return tokens + [special_token(token) for token in new_special_tokens or []]


def special_token(token: Any) -> AddedToken:
    """A new special token as ``tokenizers``' Python trainers take it: a string is ``AddedToken(s, special=True)``
    (not normalized); an ``AddedToken`` is marked special, its ``normalized`` kept only if it was special."""
    if isinstance(token, AddedToken):
        flags = {key: bool(getattr(token, key)) for key in ("single_word", "lstrip", "rstrip")}
        return AddedToken(token.content, special=True, normalized=bool(token.special and token.normalized), **flags)
    if not isinstance(token, str):
        raise TypeError(f"new_special_tokens: {token!r} is a {type(token).__name__}; give strings or AddedTokens")
    return AddedToken(token, special=True, normalized=False)


def token_entry(token: AddedToken) -> dict[str, Any]:
    """An added token as ``tokenizer.json``'s ``added_tokens`` lists it (without its id)."""
    return {"content": token.content, **{key: bool(getattr(token, key)) for key in (*FLAGS, "special")}}


def add_like_rust(added: dict[int, AddedToken], vocab: Mapping[str, int], token: AddedToken) -> None:
    """Add ``token`` to ``added`` (id to token) as ``AddedVocabulary::add_tokens`` does: a text already added is
    skipped, a text of the model's ``vocab`` takes its id, any other the id after both."""
    if not token.content or any(other.content == token.content for other in added.values()):
        return
    token_id = vocab.get(token.content)
    if token_id is None:
        token_id = max(len(vocab), max(added, default=-1) + 1)
    added[token_id] = token


def renumbered_post_processor(
    section: dict[str, Any] | None, renames: Mapping[str, str], vocab: Mapping[str, int]
) -> dict[str, Any] | None:
    """A post-processor as ``TokenizersBackend.train_new_from_iterator`` rewrites it: the tokens of its top-level
    ``special_tokens`` (a template's) and ``cls``/``sep`` (Bert's, Roberta's) renamed and given their new ids (a
    ``Sequence``'s parts are left as they are there).

    Raises:
        ValueError: naming a token that is not in the new vocabulary (the Rust backend refuses it too).
    """
    if section is None:
        return None
    section = copy.deepcopy(section)

    def new_id(token: str, where: str) -> int:
        if token not in vocab:
            raise ValueError(
                f"post_processor.{where}: {token!r} is not in the new vocabulary; name it in new_special_tokens or "
                "special_tokens_map"
            )
        return vocab[token]

    for key, entry in (section.get("special_tokens") or {}).items():
        tokens = [renames.get(token, token) for token in entry["tokens"]]
        ids = [new_id(token, f"special_tokens[{key!r}]") for token in tokens]
        section["special_tokens"][key] = {**entry, "tokens": tokens, "ids": ids}
    for key in ("cls", "sep"):
        if key in section:
            token = renames.get(section[key][0], section[key][0])
            section[key] = [token, new_id(token, key)]
    return section


def _byte_level(pre_tokenizer: Any) -> bool:
    """Whether transformers gives the trainer ByteLevel's alphabet: a ``ByteLevel`` pre-tokenizer, alone or in a
    ``Sequence``'s top level (``train_new_from_iterator``'s own test)."""
    if not isinstance(pre_tokenizer, dict):
        return False
    if pre_tokenizer.get("type") == "ByteLevel":
        return True
    parts = pre_tokenizer.get("pretokenizers") if pre_tokenizer.get("type") == "Sequence" else None
    return any(isinstance(part, dict) and part.get("type") == "ByteLevel" for part in parts or [])


def _train_bpe(
    model: dict[str, Any],
    counts: Counter[str],
    vocab_size: int,
    specials: list[str],
    byte_level: bool,
    renames: Mapping[str, str],
    options: dict[str, Any],
) -> dict[str, int]:
    """``BpeTrainer``: the model's affixes unless the options give others (transformers passes the model's), the
    256 byte characters first in a byte-level file's alphabet; the trained vocabulary and merges go in ``model``."""
    from hf_bpe.models.bpe.trainer import train_bpe

    for key in ("continuing_subword_prefix", "end_of_word_suffix"):
        if key not in options and model.get(key) is not None:
            options[key] = model[key]
    result = train_bpe(
        counts,
        vocab_size=vocab_size,
        special_tokens=_unique(specials),
        initial_alphabet=BYTE_ALPHABET if byte_level else (),
        **options,
    )
    for key in ("continuing_subword_prefix", "end_of_word_suffix"):  # BpeTrainer::train sets the model's
        if options.get(key) is not None:
            model[key] = options[key]
    vocab = dict(result.vocab)
    model["vocab"] = vocab
    model["merges"] = [[left, right] for left, right in result.merges]
    return vocab


def _train_wordpiece(
    model: dict[str, Any],
    counts: Counter[str],
    vocab_size: int,
    specials: list[str],
    byte_level: bool,
    renames: Mapping[str, str],
    options: dict[str, Any],
) -> dict[str, int]:
    """``WordPieceTrainer``: its own ``##`` unless the options give a prefix (transformers passes none; the model
    takes the trainer's, ``WordPieceTrainer::train``); the trained vocabulary goes in ``model``."""
    from hf_bpe.models.wordpiece.trainer import train_wordpiece

    prefix = options.pop("continuing_subword_prefix", "##")
    result = train_wordpiece(
        counts,
        vocab_size=vocab_size,
        special_tokens=_unique(specials),
        continuing_subword_prefix=prefix,
        unk_token=str(model.get("unk_token") or "[UNK]"),
        **options,
    )
    model["continuing_subword_prefix"] = prefix
    vocab = dict(result.vocab)
    model["vocab"] = vocab
    return vocab


def _train_unigram(
    model: dict[str, Any],
    counts: Counter[str],
    vocab_size: int,
    specials: list[str],
    byte_level: bool,
    renames: Mapping[str, str],
    options: dict[str, Any],
) -> dict[str, int]:
    """``UnigramTrainer``: the model's unknown piece (renamed) is its ``unk_token``, as transformers passes it; the
    trained pieces and ``unk_id`` go in ``model``."""
    from hf_bpe.models.unigram.trainer import UnigramOptions, train_unigram

    unk_token = None
    if model.get("unk_id") is not None:
        old = model["vocab"][model["unk_id"]][0]
        unk_token = renames.get(old, old)
    settings = UnigramOptions(vocab_size=vocab_size, special_tokens=_unique(specials), unk_token=unk_token, **options)
    result = train_unigram(counts, settings)
    model["vocab"] = [[piece, score] for piece, score in result.pieces]
    model["unk_id"] = result.unk_id
    return {piece: token_id for token_id, (piece, _) in enumerate(result.pieces)}


def _unique(tokens: list[str]) -> tuple[str, ...]:
    """``tokens`` without repeats (the trainers skip a token already in the vocabulary)."""
    return tuple(dict.fromkeys(tokens))


#: ``init_kwargs`` the trained tokenizer is given anew (files, model, added tokens, roles).
REBUILT_SETTINGS = frozenset(
    {
        "vocab_file",
        "merges_file",
        "tokenizer_file",
        "tokenizer_object",
        "vocab",
        "merges",
        "post_processor",
        "added_tokens_decoder",
        "extra_special_tokens",
        "backend",
    }
)


def rebuilt_settings(
    tokenizer: Any, trained: Retrained, renames: Mapping[str, str], new_special_tokens: list[Any] | None
) -> dict[str, Any]:
    """The keywords the trained tokenizer of ``tokenizer``'s class is built with, as
    ``TokenizersBackend.train_new_from_iterator`` builds it: ``tokenizer``'s ``init_kwargs``, its special-token
    roles renamed (with their flags), its extra special tokens and ``new_special_tokens``, and
    ``added_tokens_decoder``: the trainer's added tokens, then what ``TokenizersBackend.__init__`` adds (the added
    tokens ``from_pretrained`` loaded that are not there as they are, then the roles and extra special tokens whose
    text is not an added token yet)."""
    roles = renamed_roles(tokenizer, renames)
    extra = [*(tokenizer.extra_special_tokens or []), *(new_special_tokens or [])]
    added = dict(trained.added)
    for token in _tokens_to_add(tokenizer, added, [*roles.values(), *map(special_token, extra)]):
        add_like_rust(added, trained.vocab, token)
    settings = {key: value for key, value in tokenizer.init_kwargs.items() if key not in REBUILT_SETTINGS}
    settings.update({role: roles.get(role) for role in tokenizer.SPECIAL_TOKENS_ATTRIBUTES})
    if extra:
        settings["extra_special_tokens"] = extra
    settings["added_tokens_decoder"] = added
    return settings


def renamed_roles(tokenizer: Any, renames: Mapping[str, str]) -> dict[str, AddedToken]:
    """Each special-token role ``tokenizer`` has, renamed, with its flags, marked special (a string role:
    ``TokenizersBackend.__init__`` makes it ``AddedToken(s, special=True)``, not normalized)."""
    roles = {}
    for role in tokenizer.SPECIAL_TOKENS_ATTRIBUTES:
        value = getattr(tokenizer, role, None)
        if value is None:
            continue
        full = tokenizer._special_tokens_map.get(role)
        flags = {key: getattr(full, key) for key in FLAGS} if isinstance(full, AddedToken) else {"normalized": False}
        roles[role] = AddedToken(renames.get(str(value), str(value)), special=True, **flags)
    return roles


def _tokens_to_add(tokenizer: Any, added: dict[int, AddedToken], named: list[AddedToken]) -> list[AddedToken]:
    """What ``TokenizersBackend.__init__`` adds to the trained tokenizer, in order (see :func:`rebuilt_settings`)."""

    def flags(token: AddedToken) -> tuple[Any, ...]:  # TokenizersBackend.__init__ compares their repr
        return (token.content, *(getattr(token, key) for key in (*FLAGS, "special")))

    current = {flags(token) for token in added.values()}
    loaded = tokenizer.init_kwargs.get("added_tokens_decoder") if "name_or_path" in tokenizer.init_kwargs else None
    tokens = [token for _, token in sorted((loaded or {}).items()) if isinstance(token, AddedToken)]
    tokens = [token for token in tokens if flags(token) not in current]
    present = {token.content for token in added.values()} | {token.content for token in tokens}
    for token in named:
        if token.content not in present:
            tokens.append(token)
            present.add(token.content)
    return tokens


def trained_file(trained: Retrained, added: Mapping[int, AddedToken], owner: str) -> PipelineJson:
    """The trained ``tokenizer.json`` read, holding the added tokens ``added`` (id to token)."""
    entries = [{"id": token_id, **token_entry(token)} for token_id, token in sorted(added.items())]
    return pipeline_from_data({**trained.document, "added_tokens": entries}, TOKENIZER_FILE, owner=owner)
