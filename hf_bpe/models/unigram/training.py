"""Text files, strings or counts directories to a trained Unigram model: the recipe's word counts, then the trainer.

The recipe is :class:`~hf_bpe.pipeline.sentencepiece.SentencePieceRecipe`, as the kind of
:class:`~hf_bpe.pipeline.pre_tokenizers.PreTokenizer` that names it (``PreTokenizer.sentencepiece_recipe()``), handed to
:mod:`hf_bpe.counting.counting`: files are read as ``Tokenizer::train_from_files`` reads them (line by line, cut at
``\\n`` only, each line with its ending, big files in parallel shards); an iterator's items are sequences as they
are (``train_from_iterator``). Invalid UTF-8 stops with its file, line and byte offset, or becomes U+FFFD with
``errors="replace"`` (the reference cannot read such a file at all). Counts directories (``hf-bpe count --model
unigram``, local or datatrove engine) record the recipe in their manifest. Saving is :mod:`.files`' job.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from hf_bpe.models.unigram.trainer import Trace, UnigramOptions, UnigramResult, train_unigram
from hf_bpe.pipeline import sentencepiece as recipe
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
from hf_bpe.progress import ProgressOption, callback, with_progress


def unigram_counting() -> PreTokenizer:
    """How Unigram cuts text for counting: the SentencePiece recipe, characters as they are.

    >>> from hf_bpe.counting.counting import count_sequences
    >>> count_sequences(["hug  pug", "hug"], pre_tokenizer=unigram_counting())
    Counter({'▁hug': 2, '▁pug': 1})
    """
    return PreTokenizer.sentencepiece_recipe()


def count_files(
    paths: Iterable[str | os.PathLike[str]],
    errors: str = "strict",
    *,
    workers: int | None = None,
    progress: ProgressOption = None,
) -> Counter[str]:
    """The recipe's word counts over text files, read line by line (:func:`hf_bpe.counting.counting.count_files`).

    Raises:
        ValueError: invalid UTF-8 with ``errors="strict"``, naming the file, line and byte offset.
    """
    from hf_bpe.models.bpe.training import count_paths

    return count_paths(paths, progress, pre_tokenizer=unigram_counting(), workers=workers, errors=errors).counts


@with_progress
def train_unigram_from_files(
    paths: Iterable[str | os.PathLike[str]],
    options: UnigramOptions,
    *,
    errors: str = "strict",
    workers: int | None = None,
    trace: Trace | None = None,
    progress: ProgressOption = True,
) -> UnigramResult:
    """Train on text files as ``SentencePieceUnigramTokenizer.train(files, ...)`` does, with tqdm bars on stderr
    while counting and for the rounds of EM and pruning (``progress=True``, the default; ``False`` for none, or a
    callable ``progress(stage, done, total)``).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "course.txt"
    >>> _ = path.write_text("hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5)
    >>> result = train_unigram_from_files([path], UnigramOptions(vocab_size=12, unk_token="<unk>"), workers=1)
    >>> len(result.pieces), result.pieces[0]
    (11, ('<unk>', 0.0))

    Raises:
        ValueError: if the files hold no text (naming them), or as :func:`~hf_bpe.models.unigram.trainer.train_unigram`.

    Warns:
        TrainingWarning: the vocabulary is smaller than ``options.vocab_size`` (the text has no more pieces).
    """
    paths = list(paths)
    counts = count_files(paths, errors, workers=workers, progress=progress)
    if not counts:
        names = ", ".join(str(path) for path in paths)
        raise ValueError(f"{names}: no text to train on (the files are empty)")
    return train_unigram(counts, options, trace=trace, progress=callback(progress))


@with_progress
def train_unigram_from_iterator(
    sequences: Iterable[str], options: UnigramOptions, *, trace: Trace | None = None, progress: ProgressOption = True
) -> UnigramResult:
    """Train on strings, each a sequence, as ``SentencePieceUnigramTokenizer.train_from_iterator`` does
    (``progress``: as :func:`train_unigram_from_files`)."""
    return train_unigram(recipe.count_words(sequences), options, trace=trace, progress=callback(progress))


def count_unigram_to_directory(
    paths: Sequence[str | os.PathLike[str]], output: str | os.PathLike[str], **options: Any
) -> Path:
    """Count the words of text files, cut by the SentencePiece recipe, into a counts directory (local or datatrove
    engine; options as :func:`hf_bpe.models.bpe.training.count_to_directory`). The manifest records the recipe.

    Returns:
        The manifest's path.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = path.write_text("hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5, encoding="utf-8")
    >>> manifest = count_unigram_to_directory([path], path.parent / "counts", workers=1)
    >>> options = UnigramOptions(vocab_size=12, unk_token="<unk>")
    >>> [piece for piece, _ in train_unigram_from_count_directory(manifest.parent, options).pieces][:4]
    ['<unk>', '▁pu', 'n', '▁hug']
    """
    from hf_bpe.models.bpe.training import count_to_directory

    return count_to_directory(paths, output, pre_tokenizer=unigram_counting(), **options)


@with_progress
def train_unigram_from_count_directory(
    directory: str | os.PathLike[str],
    options: UnigramOptions,
    *,
    trace: Trace | None = None,
    progress: ProgressOption = True,
) -> UnigramResult:
    """Train on a counts directory written by :func:`count_unigram_to_directory` (``hf-bpe count --model
    unigram``). The trainer sorts the words, so the directory's order of words (its buckets) does not matter.

    Raises:
        ValueError: if the directory was not counted with the SentencePiece recipe.
    """
    from hf_bpe.counting.counts_dir import iter_counts, read_manifest

    recorded = PreTokenizer.from_settings(read_manifest(directory)["settings"])
    if recorded.sentencepiece is None:
        kind = "BERT's recipe (WordPiece)" if recorded.bert is not None else "byte-level BPE's pre-tokenizer"
        raise ValueError(
            f"{directory}: counted with {kind}, not the SentencePiece recipe; recount with "
            "'hf-bpe count --model unigram'"
        )
    return train_unigram(dict(iter_counts(directory)), options, trace=trace, progress=callback(progress))
