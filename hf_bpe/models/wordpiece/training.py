"""Train WordPiece from files, iterables of strings or ``datasets`` columns: count words, then train.

This module owns the glue: BERT's recipe (:class:`~hf_bpe.pipeline.bert.BertRecipe`), as the kind of
:class:`~hf_bpe.pipeline.pre_tokenizers.PreTokenizer` that names it (``PreTokenizer.bert_recipe``), handed to
:mod:`hf_bpe.counting.counting` (files line by line with their endings, in parallel shards, as ``Tokenizer.train`` reads
them), then :func:`~hf_bpe.models.wordpiece.trainer.train_wordpiece`. The defaults are those of ``tokenizers``'
``BertWordPieceTokenizer.train`` (:class:`~hf_bpe.models.wordpiece.options.WordPieceOptions`), with BERT's recipe
(lowercasing).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from hf_bpe.counting.counting import count_sequences, dataset_rows
from hf_bpe.models.bpe.trainer import ProgressCallback
from hf_bpe.models.wordpiece.options import WordPieceOptions
from hf_bpe.models.wordpiece.result import WordPieceResult
from hf_bpe.models.wordpiece.trainer import train_wordpiece
from hf_bpe.pipeline.bert import BertRecipe
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
from hf_bpe.progress import ProgressOption, callback, with_progress


def wordpiece_counting(recipe: BertRecipe) -> PreTokenizer:
    """How WordPiece cuts text for counting: BERT's recipe, characters as they are (no byte mapping).

    >>> from hf_bpe.counting.counting import count_sequences
    >>> count_sequences(["Héllo, hello"], pre_tokenizer=wordpiece_counting(BertRecipe()))
    Counter({'hello': 2, ',': 1})
    """
    return PreTokenizer.bert_recipe(recipe)


@with_progress
def train_wordpiece_from_files(
    paths: Iterable[str | os.PathLike[str]],
    *,
    options: WordPieceOptions | None = None,
    recipe: BertRecipe | None = None,
    workers: int | None = None,
    errors: str = "strict",
    progress: ProgressOption = True,
    **model_options: Any,
) -> WordPieceResult:
    """Train WordPiece on text files, each read line by line (``Tokenizer.train(files)``).

    Args:
        paths: the files.
        options: what to train (:class:`~hf_bpe.models.wordpiece.options.WordPieceOptions`, BERT's defaults:
            ``vocab_size``, ``scoring``, ``min_frequency``, ``limit_alphabet``, ``special_tokens``,
            ``continuing_subword_prefix``, ``unk_token``); its fields may also be given as keywords
            (``model_options``), which replace the ``options``' own.
        recipe: BERT's normalizer settings (default: BERT's, lowercasing).
        workers: processes for counting and the pair count.
        errors: ``"strict"`` or ``"replace"`` for invalid UTF-8.
        progress: True (tqdm bars on stderr while counting and merging, the default), False, or a callable
            ``progress(stage, done, total)``.

    Returns:
        The trained vocabulary.
    """
    from hf_bpe.models.bpe.training import count_paths

    options = WordPieceOptions.of(options, model_options, "train_wordpiece_from_files")
    recipe = recipe or BertRecipe()
    found = count_paths(paths, progress, pre_tokenizer=wordpiece_counting(recipe), workers=workers, errors=errors)
    result = train_wordpiece(
        found.counts, recipe=recipe, workers=workers, progress=merge_progress(progress), options=options
    )
    if found.replaced_lines:
        result = dataclasses.replace(result, replaced_lines=found.replaced_lines)
    return result


def merge_progress(progress: ProgressOption) -> ProgressCallback | None:
    """The trainer's ``progress(merges_done, merges_wanted)`` for a front end's ``progress``."""
    report = callback(progress)
    return None if report is None else (lambda done, total: report("merge", done, total))


@with_progress
def train_wordpiece_from_iterator(
    sequences: Iterable[str | Sequence[str]],
    *,
    options: WordPieceOptions | None = None,
    recipe: BertRecipe | None = None,
    workers: int | None = None,
    progress: ProgressOption = True,
    **model_options: Any,
) -> WordPieceResult:
    """Train WordPiece on an iterable of strings (or batches of strings), each one sequence
    (``Tokenizer.train_from_iterator``). Options as :func:`train_wordpiece_from_files`.

    >>> result = train_wordpiece_from_iterator(["hug pug pun bun hugs"] * 3, vocab_size=20)
    >>> len(result.vocab), result.vocab["[UNK]"], result.vocab["##u"]
    (20, 1, 12)
    """
    options = WordPieceOptions.of(options, model_options, "train_wordpiece_from_iterator")
    recipe = recipe or BertRecipe()
    counts = count_sequences(sequences, pre_tokenizer=wordpiece_counting(recipe))
    return train_wordpiece(counts, recipe=recipe, workers=workers, progress=merge_progress(progress), options=options)


def count_wordpiece_to_directory(
    paths: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    *,
    recipe: BertRecipe | None = None,
    **options: Any,
) -> Path:
    """Count the words of text files, cut by BERT's recipe, into a counts directory (local or datatrove engine;
    options as :func:`hf_bpe.models.bpe.training.count_to_directory`). The manifest records the recipe.

    Returns:
        The manifest's path.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = path.write_text("Hug pug, HUG\\n", encoding="utf-8")
    >>> manifest = count_wordpiece_to_directory([path], path.parent / "counts", workers=1)
    >>> sorted(train_wordpiece_from_count_directory(manifest.parent, vocab_size=20, min_frequency=0).vocab)[-3:]
    ['p', 'pug', 'u']
    """
    from hf_bpe.models.bpe.training import count_to_directory

    return count_to_directory(paths, output, pre_tokenizer=wordpiece_counting(recipe or BertRecipe()), **options)


@with_progress
def train_wordpiece_from_count_directory(
    directory: str | os.PathLike[str],
    *,
    options: WordPieceOptions | None = None,
    workers: int | None = None,
    progress: ProgressOption = True,
    **model_options: Any,
) -> WordPieceResult:
    """Train WordPiece on a counts directory written by :func:`count_wordpiece_to_directory` (or
    ``hf-bpe count --model wordpiece``), with the recipe it records. Options as
    :func:`train_wordpiece_from_files`. Likelihood scoring breaks ties in the directory's order of words (its
    buckets), not the text's.

    Raises:
        ValueError: if the directory was not counted with BERT's recipe (naming what it was counted with).
    """
    from hf_bpe.counting.counts_dir import iter_counts, read_manifest

    settings = read_manifest(directory)["settings"]
    bert = settings.get("bert")
    if not isinstance(bert, dict):
        kind = (
            "the SentencePiece recipe (Unigram)" if settings.get("sentencepiece") else "byte-level BPE's pre-tokenizer"
        )
        raise ValueError(
            f"{directory}: counted with {kind}, not BERT's recipe; recount with 'hf-bpe count --model wordpiece'"
        )
    options = WordPieceOptions.of(options, model_options, "train_wordpiece_from_count_directory")
    counts = dict(iter_counts(directory))
    return train_wordpiece(
        counts,
        recipe=BertRecipe(**bert),
        workers=workers,
        progress=merge_progress(progress),
        options=options,
    )


def train_wordpiece_from_dataset(
    dataset: Any, column: str, *, recipe: BertRecipe | None = None, **options: Any
) -> WordPieceResult:
    """Train WordPiece on a ``datasets.Dataset`` column, each row one sequence. Options as
    :func:`train_wordpiece_from_files`."""
    return train_wordpiece_from_iterator(dataset_rows(dataset, column), recipe=recipe, **options)
