"""WordPiece's files: ``vocab.txt`` (BERT's format), ``tokenizer_config.json`` and ``tokenizer.json``.

``vocab.txt`` holds one token a line, the line number (from 0) being its id, as ``tokenizers``'
``WordPiece::save`` writes it and transformers' ``load_vocab`` reads it. ``tokenizer.json`` is the
``BertWordPieceTokenizer`` recipe around the same vocabulary (BertNormalizer, BertPreTokenizer, WordPiece,
``[CLS] $A [SEP] $B:1 [SEP]:1``, the WordPiece decoder), so transformers' Rust backend loads the directory
without hf_bpe; ``tokenizer_config.json`` names :class:`hf_bpe.transformers.wordpiece.WordPieceTokenizer`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hf_bpe.atomic import write_files
from hf_bpe.models.directory import TOKENIZER_CONFIG_FILE, TOKENIZER_FILE, replaced_files
from hf_bpe.pipeline.bert import BertRecipe
from hf_bpe.pipeline.tokenizer_json import dumps, special_added_tokens, tokenizer_document
from hf_bpe.utf8 import invalid_utf8

if TYPE_CHECKING:
    from hf_bpe.models.wordpiece.result import WordPieceResult

#: BERT's vocabulary file.
VOCAB_TXT = "vocab.txt"
#: The transformers class ``tokenizer_config.json`` names.
WORDPIECE_TOKENIZER_CLASS = "WordPieceTokenizer"
#: BERT's special tokens by role.
BERT_ROLES = {
    "pad_token": "[PAD]",
    "unk_token": "[UNK]",
    "cls_token": "[CLS]",
    "sep_token": "[SEP]",
    "mask_token": "[MASK]",
}


def format_vocab_txt(vocab: Mapping[str, int]) -> str:
    """``vocab.txt``'s text: tokens in id order, one a line.

    Raises:
        ValueError: if the ids are not 0 to ``len(vocab) - 1``, or a token holds a line break.

    >>> format_vocab_txt({"[UNK]": 0, "a": 1, "##b": 2})
    '[UNK]\\na\\n##b\\n'
    """
    tokens = sorted(vocab, key=vocab.__getitem__)
    for expected, token in enumerate(tokens):
        if vocab[token] != expected:
            raise ValueError(f"token {token!r} has id {vocab[token]}; vocab.txt needs the ids 0 to {len(vocab) - 1}")
        if "\n" in token or "\r" in token:
            raise ValueError(f"token {token!r} (id {expected}) holds a line break; vocab.txt cannot store it")
    return "".join(token + "\n" for token in tokens)


def read_vocab_txt(path: str | os.PathLike[str]) -> dict[str, int]:
    """Read ``vocab.txt``: the token on line ``n`` (from 0) has id ``n`` (a token seen twice keeps the later id,
    as transformers' ``load_vocab`` has it).

    Raises:
        FileNotFoundError: naming the path.
        ValueError: naming the file and line, on invalid UTF-8.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError as e:
        raise FileNotFoundError(f"{path}: no such vocab.txt; pass the directory hf-bpe train wrote") from e
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{invalid_utf8(path, e, data)}; vocab.txt must be UTF-8") from e
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return {token: index for index, token in enumerate(lines)}


def wordpiece_config(
    special_tokens: Sequence[str],
    recipe: BertRecipe,
    *,
    unk_token: str = "[UNK]",
    continuing_subword_prefix: str = "##",
    max_input_chars_per_word: int = 100,
) -> dict[str, Any]:
    """``tokenizer_config.json``: the class, the recipe's settings and the special tokens' roles (BERT's names)."""
    roles = {role: token for role, token in BERT_ROLES.items() if token in special_tokens}
    if unk_token in special_tokens:
        roles["unk_token"] = unk_token
    extra = [token for token in special_tokens if token not in roles.values()]
    return {
        "tokenizer_class": WORDPIECE_TOKENIZER_CLASS,
        **roles,
        "extra_special_tokens": extra,
        "do_lower_case": recipe.lowercase,
        "strip_accents": recipe.strip_accents,
        "tokenize_chinese_chars": recipe.handle_chinese_chars,
        "clean_text": recipe.clean_text,
        "wordpieces_prefix": continuing_subword_prefix,
        "max_input_chars_per_word": max_input_chars_per_word,
        "clean_up_tokenization_spaces": False,
        # BERT's inputs: the Rust backend (loading without hf_bpe) returns token_type_ids only when told so.
        "model_input_names": ["input_ids", "token_type_ids", "attention_mask"],
    }


def wordpiece_tokenizer_json(
    vocab: Mapping[str, int], special_tokens: Sequence[str], recipe: BertRecipe, **settings: Any
) -> str:
    """``tokenizer.json``: ``tokenizers``' ``BertWordPieceTokenizer`` recipe around ``vocab``, as ``tokenizers``
    writes it (byte for byte), so the Rust backend reads it as its own; ``settings`` are
    :func:`wordpiece_document`'s."""
    return dumps(wordpiece_document(vocab, special_tokens, recipe, **settings))


def wordpiece_document(
    vocab: Mapping[str, int],
    special_tokens: Sequence[str],
    recipe: BertRecipe,
    *,
    unk_token: str = "[UNK]",
    continuing_subword_prefix: str = "##",
    max_input_chars_per_word: int = 100,
    cls_token: str | None = "[CLS]",
    sep_token: str | None = "[SEP]",
) -> dict[str, Any]:
    """The document of :func:`wordpiece_tokenizer_json`, parsed: what the transformers class runs as its pipeline
    (:class:`~hf_bpe.transformers.wordpiece.WordPieceTokenizer`) is what it writes. ``max_input_chars_per_word``:
    a longer word is the unknown token.

    ``cls_token`` or ``sep_token`` None (or not in ``vocab``): no post-processor."""
    model = {
        "type": "WordPiece",
        "unk_token": unk_token,
        "continuing_subword_prefix": continuing_subword_prefix,
        "max_input_chars_per_word": max_input_chars_per_word,
        "vocab": _by_id(vocab),
    }
    post_processor = None
    if cls_token in vocab and sep_token in vocab:
        post_processor = bert_template_json(
            str(cls_token), vocab[str(cls_token)], str(sep_token), vocab[str(sep_token)]
        )
    document = tokenizer_document(
        model,
        added_tokens=special_added_tokens(special_tokens, vocab),
        normalizer=recipe.to_json(),
        pre_tokenizer={"type": "BertPreTokenizer"},
        post_processor=post_processor,
        decoder={"type": "WordPiece", "prefix": continuing_subword_prefix, "cleanup": True},
    )
    return document


def _by_id(vocab: Mapping[str, int]) -> dict[str, int]:
    """``vocab`` in id order, as ``tokenizers`` writes a WordPiece vocabulary (a ``vocab.txt`` read is already)."""
    if list(vocab.values()) == list(range(len(vocab))):
        return dict(vocab)
    return dict(sorted(vocab.items(), key=lambda item: item[1]))


def bert_template_json(cls_token: str, cls_id: int, sep_token: str, sep_id: int) -> dict[str, Any]:
    """BERT's ``TemplateProcessing``: ``CLS $A SEP`` and ``CLS $A SEP $B:1 SEP:1``."""

    def special(token: str, type_id: int) -> dict[str, Any]:
        return {"SpecialToken": {"id": token, "type_id": type_id}}

    def sequence(name: str, type_id: int) -> dict[str, Any]:
        return {"Sequence": {"id": name, "type_id": type_id}}

    single = [special(cls_token, 0), sequence("A", 0), special(sep_token, 0)]
    pair = [*single, sequence("B", 1), special(sep_token, 1)]
    tokens = {token: {"id": token, "ids": [token_id], "tokens": [token]} for token, token_id in
              ((cls_token, cls_id), (sep_token, sep_id))}  # fmt: skip
    return {
        "type": "TemplateProcessing",
        "single": single,
        "pair": pair,
        "special_tokens": dict(sorted(tokens.items())),
    }


def write_wordpiece_dir(
    directory: str | os.PathLike[str], result: WordPieceResult, *, force: bool = False
) -> list[Path]:
    """Write ``vocab.txt``, ``tokenizer_config.json`` and ``tokenizer.json`` for a trained vocabulary, all or none.

    Another tokenizer's files in ``directory`` (another kind's model files, :data:`~hf_bpe.models.directory.
    FOREIGN_TOKENIZER_FILES`) are refused, or removed in the same write when ``force`` is set.

    Returns:
        The paths written.
    """
    options = {
        "unk_token": result.unk_token,
        "continuing_subword_prefix": result.continuing_subword_prefix,
        "max_input_chars_per_word": result.max_input_chars_per_word,
    }
    config = wordpiece_config(result.special_tokens, result.recipe, **options)  # type: ignore[arg-type]
    files = {
        VOCAB_TXT: format_vocab_txt(result.vocab),
        TOKENIZER_CONFIG_FILE: json.dumps(config, ensure_ascii=False, indent=2) + "\n",
        TOKENIZER_FILE: wordpiece_tokenizer_json(
            result.vocab,
            result.special_tokens,
            result.recipe,
            cls_token=config.get("cls_token"),
            sep_token=config.get("sep_token"),
            **options,
        ),
    }
    write_files(directory, files, remove=replaced_files(directory, files, force=force))
    return [Path(directory) / name for name in files]
