"""Text files or strings to a trained Unigram model: the recipe's word counts, then the trainer.

Files are read as ``Tokenizer::train_from_files`` reads them: line by line, cut at ``\\n`` only, each line with
its ending; an iterator's items are sequences as they are (``train_from_iterator``). Invalid UTF-8 stops with
its file, line and byte offset, or becomes U+FFFD with ``errors="replace"`` (the reference cannot read such a
file at all). Saving is :mod:`.files`' job.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable

from hf_bpe.models.unigram import recipe
from hf_bpe.models.unigram.trainer import Trace, UnigramOptions, UnigramResult, train_unigram


def read_text(path: str | os.PathLike[str], errors: str = "strict") -> str:
    """A file's text; invalid UTF-8 named by file, line and byte offset unless ``errors="replace"``.

    Raises:
        ValueError: invalid UTF-8 with ``errors="strict"``.
    """
    data = open(path, "rb").read()  # noqa: SIM115 (closed at once by refcounting; one read)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        if errors != "replace":
            line = data[: error.start].count(b"\n") + 1
            raise ValueError(
                f"{path}:{line}: invalid UTF-8 at byte offset {error.start} ({error.reason}); "
                "fix the file or train with --encoding-errors replace"
            ) from error
        return data.decode("utf-8", "replace")


def count_files(paths: Iterable[str | os.PathLike[str]], errors: str = "strict") -> Counter[str]:
    """The recipe's word counts over text files, read line by line."""
    counts: Counter[str] = Counter()
    for path in paths:
        counts.update(recipe.count_words(recipe.lines(read_text(path, errors))))
    return counts


def train_unigram_from_files(
    paths: Iterable[str | os.PathLike[str]],
    options: UnigramOptions,
    *,
    errors: str = "strict",
    trace: Trace | None = None,
) -> UnigramResult:
    """Train on text files as ``SentencePieceUnigramTokenizer.train(files, ...)`` does.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "course.txt"
    >>> _ = path.write_text("hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5)
    >>> result = train_unigram_from_files([path], UnigramOptions(vocab_size=12, unk_token="<unk>"))
    >>> len(result.pieces), result.pieces[0]
    (11, ('<unk>', 0.0))
    """
    return train_unigram(count_files(paths, errors), options, trace=trace)


def train_unigram_from_iterator(
    sequences: Iterable[str], options: UnigramOptions, *, trace: Trace | None = None
) -> UnigramResult:
    """Train on strings, each a sequence, as ``SentencePieceUnigramTokenizer.train_from_iterator`` does."""
    return train_unigram(recipe.count_words(sequences), options, trace=trace)
