"""The public training API: text sources in, a :class:`~hf_bpe.models.bpe.trainer.TrainResult` out.

This module only joins the two steps: :mod:`hf_bpe.counting.counting` turns files, iterables or ``datasets`` columns
into pre-token counts, :func:`hf_bpe.models.bpe.trainer.train_bpe` turns counts into merges. How text is cut is one
:class:`~hf_bpe.pipeline.pre_tokenizers.PreTokenizer`, built here from the keywords (``pattern``, ``normalizer``,
``add_prefix_space``, ``char_level``, ...) or given whole (``pre_tokenizer``). Defaults are ``BpeTrainer``'s
(``vocab_size=30000``, ``min_frequency=0``) with the ByteLevel pre-tokenizer (``add_prefix_space=False``) and the
full byte alphabet as initial alphabet, so ``train_from_files(paths)`` gives what ``tokenizers`` gives for
``Tokenizer(BPE())`` trained on ``paths`` with those settings.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from hf_bpe.counting.counting import FileCounts, count_files, count_sequences, counting_settings, dataset_rows
from hf_bpe.counting.counts_dir import DEFAULT_BUCKETS, CountsDirectory, iter_counts, read_manifest, write_counts
from hf_bpe.models.bpe.continuing import BaseTokenizer, as_base, continue_bpe
from hf_bpe.models.bpe.options import BpeOptions, CharLevel
from hf_bpe.models.bpe.trainer import TrainResult, train_bpe
from hf_bpe.models.shortfall import TrainingWarning, caller_stacklevel
from hf_bpe.models.shortfall import shortfall as why_short
from hf_bpe.pipeline.byte_level import BYTE_ALPHABET
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
from hf_bpe.progress import Progress, ProgressOption, StageCallback, callback, with_progress

# Progress: called as ``progress(stage, done, total)``: stage ``"count"`` (bytes of files) or ``"sequences"`` (texts
# of an iterator; ``total`` is 0 when unknown), then stage ``"merge"`` (merges made, merges wanted). The front ends
# take ``progress=True`` (tqdm bars, the default), ``False`` or a callable (:func:`hf_bpe.progress.with_progress`).


def shortfall(
    result: TrainResult, vocab_size: int, min_frequency: int, *, names: Mapping[str, str] | None = None
) -> str | None:
    """Why ``result`` does not have ``vocab_size`` tokens, in a sentence, or None when it has them
    (:func:`hf_bpe.models.shortfall.shortfall` for a BPE result).

    ``names`` spells the options (``{"vocab_size": "--vocab-size"}`` on the command line).

    >>> result = train_bpe({"Ġhug": 3}, vocab_size=300)
    >>> print(shortfall(result, 300, 0).replace("; ", ";\\n"))
    the vocabulary has 259 of the 300 tokens asked for (stopped: no_pairs): no pair of tokens is left to merge;
    every pre-token is a single token already;
    train on more text for more tokens
    """
    return why_short(
        len(result.vocab),
        vocab_size,
        result.stop_reason,
        min_frequency=min_frequency,
        learned=result.merges_learned,
        names=names,
    )


def count_paths(paths: Iterable[str | os.PathLike[str]], progress: ProgressOption, **options: Any) -> FileCounts:
    """:func:`hf_bpe.counting.counting.count_files`, reporting bytes counted out of the files' total size."""
    paths = list(paths)
    total = sum(os.path.getsize(p) for p in paths if os.path.isfile(p))
    return count_files(paths, progress=_count_progress(progress, total), **options)


def _count_progress(progress: ProgressOption, total: int, stage: str = "count") -> Callable[[int], None]:
    """Turn counting's ``step`` callbacks into ``progress(stage, done, total)`` calls: ``"count"`` for bytes of
    files, ``"sequences"`` for an iterator's texts (its bar counts texts, not bytes)."""
    done = 0
    report = callback(progress)

    def step(amount: int) -> None:
        nonlocal done
        done += amount
        if report is not None:
            report(stage, done, total)

    return step


def pre_tokenizer_for(
    *,
    pre_tokenizer: PreTokenizer | None = None,
    pattern: str | None = None,
    normalizer: str | None = None,
    add_prefix_space: bool = False,
    special_tokens: Sequence[str] = (),
    exclude_special_tokens: bool = False,
    char_level: CharLevel | None = None,
    regex: str | None = None,
) -> PreTokenizer:
    """The pre-tokenizer the training keywords describe.

    ``pre_tokenizer``, when given, is taken whole (its ``add_prefix_space`` included; with ``char_level`` it must
    be a char-level cut that lowercases if ``char_level`` does); ``special_tokens`` and ``exclude_special_tokens``
    always come from their own keywords, since they are training options too.
    Otherwise ``pattern`` (a preset's name, or a regex that does not look like a name; GPT-2's by default) or
    ``regex`` (a split of your own, never read as a name), ``normalizer`` and ``add_prefix_space`` build it, or
    ``char_level`` does (words split on white space; its ``lowercase``).

    Raises:
        ValueError: for an unknown preset name, both ``pattern`` and ``regex``, a pattern or normalizer given
            with ``char_level`` or with ``pre_tokenizer``, or a bad pattern.

    >>> pre_tokenizer_for(pattern="qwen2").normalizer
    'nfc'
    >>> pre_tokenizer_for(regex="[a-z]+").splits
    ('[a-z]+',)
    >>> given = PreTokenizer.from_pattern("llama3")
    >>> pre_tokenizer_for(pre_tokenizer=given) is given  # handed on, not rebuilt
    True
    """
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens={special_tokens!r} is a string; pass a list of strings")
    if pattern is not None and regex is not None:
        raise ValueError("give pattern (a preset's name) or regex (a split of your own), not both")
    specials: dict[str, Any] = {
        "special_tokens": tuple(special_tokens),
        "exclude_special_tokens": bool(exclude_special_tokens),
    }
    if pre_tokenizer is not None:
        # A ready char-level cut goes with the char_level options it was built for (the front ends hand theirs on).
        cuts_characters = char_level is None or not (
            pre_tokenizer.byte_level or (char_level.lowercase and pre_tokenizer.normalizer != "lowercase")
        )
        if pattern is not None or regex is not None or normalizer is not None or not cuts_characters:
            raise ValueError("give either pre_tokenizer or pattern/regex/normalizer/char_level, not both")
        if (pre_tokenizer.special_tokens, pre_tokenizer.exclude_special_tokens) == tuple(specials.values()):
            return pre_tokenizer  # as handed over, not rebuilt
        return dataclasses.replace(pre_tokenizer, **specials)
    if char_level is not None:
        if pattern is not None or regex is not None or normalizer not in (None, "none", "lowercase"):
            raise ValueError("char-level BPE splits words on white space: it takes no pattern or normalizer")
        if add_prefix_space:
            raise ValueError("add_prefix_space applies to byte-level BPE only, not to char_level")
        return PreTokenizer.char_level(lowercase=char_level.lowercase or normalizer == "lowercase", **specials)
    prefix = bool(add_prefix_space)
    if regex is not None:
        return PreTokenizer.from_regex(regex, normalizer=normalizer, add_prefix_space=prefix, **specials)
    return PreTokenizer.from_pattern(pattern, normalizer=normalizer, add_prefix_space=prefix, **specials)


def continuing_cut(
    continue_from: str | os.PathLike[str] | BaseTokenizer,
    *,
    pre_tokenizer: PreTokenizer | None = None,
    pattern: str | None = None,
    normalizer: str | None = None,
    add_prefix_space: bool = False,
    char_level: CharLevel | None = None,
    limit_alphabet: int | None = None,
    special_tokens: Sequence[str] = (),
    exclude_special_tokens: bool = False,
) -> tuple[BaseTokenizer, PreTokenizer]:
    """The base to continue from, and how the corpus is cut for it: the base's pre-tokenizer, with its special
    tokens and the new ones (cut out first with ``exclude_special_tokens``).

    Raises:
        ValueError: for a pre-tokenizer keyword, ``char_level`` or ``limit_alphabet`` that would change the base.
    """
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens={special_tokens!r} is a string; pass a list of strings")
    base = as_base(continue_from)
    given: dict[str, object] = {
        "pattern": pattern,
        "normalizer": normalizer,
        "char_level": char_level,
        "limit_alphabet": limit_alphabet,
    }
    if pre_tokenizer is not None and pre_tokenizer.for_encoding() != base.pre_tokenizer:
        given["pre_tokenizer"] = pre_tokenizer
    if add_prefix_space and not base.pre_tokenizer.add_prefix_space:
        given["add_prefix_space"] = add_prefix_space
    named = [name for name, value in given.items() if value is not None]
    if named:
        raise ValueError(
            f"{named[0]} is given, but continuing training keeps the base's pre-tokenizer and alphabet "
            f"({base.source}); leave {named[0]} out"
        )
    for token in special_tokens:
        if token in base.vocab and token not in base.special_tokens:
            raise ValueError(
                f"new special token {token!r} is already token {base.vocab[token]} of the base ({base.source}), an "
                "ordinary token; choose another text for it"
            )
    specials = base.special_tokens + tuple(token for token in special_tokens if token not in base.special_tokens)
    cut = dataclasses.replace(
        base.pre_tokenizer, special_tokens=specials, exclude_special_tokens=bool(exclude_special_tokens)
    )
    return base, cut


def training_cut(
    continue_from: str | os.PathLike[str] | BaseTokenizer | None, options: BpeOptions, **cutting: Any
) -> tuple[BaseTokenizer | None, PreTokenizer]:
    """The base to continue from (None for a new tokenizer) and the pre-tokenizer that cuts the corpus for it:
    :func:`continuing_cut`, or :func:`pre_tokenizer_for` for a new tokenizer (``limit_alphabet`` matters only
    when continuing, which refuses it). ``cutting``: the pre-tokenizer keywords besides the options'."""
    common = {"special_tokens": options.special_tokens, "char_level": options.char_level, **cutting}
    if continue_from is not None:
        return continuing_cut(continue_from, limit_alphabet=options.limit_alphabet, **common)
    return None, pre_tokenizer_for(**common)


@with_progress
def train_from_counts(
    counts: Mapping[str, int],
    *,
    options: BpeOptions | None = None,
    add_prefix_space: bool = False,
    pattern: str | None = None,
    normalizer: str | None = None,
    pre_tokenizer: PreTokenizer | None = None,
    workers: int | None = None,
    progress: Progress | bool | None = True,
    continue_from: str | os.PathLike[str] | BaseTokenizer | None = None,
    consume_counts: bool = False,
    **model_options: Any,
) -> TrainResult:
    """Train on pre-token counts (byte-level spelling), e.g. from :mod:`hf_bpe.counting.counts_dir`.

    ``options`` / ``model_options``: :class:`~hf_bpe.models.bpe.options.BpeOptions`, or its fields as keywords. The
    pre-tokenizer keywords (``pattern``, ``normalizer``, ``add_prefix_space``, ``pre_tokenizer``) only record how
    the counts were made, for the tokenizer files. With ``char_level`` the counts are of words in their own
    characters, and the alphabet is the characters seen. ``workers``: see :func:`hf_bpe.models.bpe.trainer.train_bpe`.
    ``continue_from``: see :func:`train_from_files` (the counts must be cut with the base's pre-tokenizer).
    ``consume_counts``: empty ``counts`` once read (see :func:`~hf_bpe.models.bpe.trainer.train_bpe`); the front ends
    that count the text themselves set it.

    >>> train_from_counts({"Ġhug": 3, "Ġpug": 2}, vocab_size=258).merges
    [('u', 'g'), ('h', 'ug')]
    """
    options = BpeOptions.of(options, model_options, "train_from_counts")
    report = callback(progress)
    # The merges' bar, which also hears the initial pair count (stage "pairs") before them.
    merge_progress = None if report is None else StageCallback(report, "merge")
    base, cut = training_cut(
        continue_from, options, pre_tokenizer=pre_tokenizer, pattern=pattern, normalizer=normalizer,
        add_prefix_space=add_prefix_space,
    )  # fmt: skip
    kept: dict[str, Any]  # what the result keeps besides the pre-tokenizer: the base's roles, or char_level
    if base is not None:
        result = continue_bpe(
            counts,
            base.vocab,
            base.merges,
            options=options,  # as built by the front end, not built again
            special_tokens=base.special_tokens,
            workers=workers,
            progress=merge_progress,
            pipeline=base.pipeline,
        )
        kept = {"roles": base.roles}
    else:
        result = train_bpe(
            counts,
            options=options,  # as built by the front end, not built again
            initial_alphabet=BYTE_ALPHABET if cut.byte_level else (),
            workers=workers,
            progress=merge_progress,
            consume_counts=consume_counts,
        )
        kept = {"char_level": options.char_level}
    message = shortfall(result, options.vocab_size, options.min_frequency)
    if message is not None:
        warnings.warn(message, TrainingWarning, stacklevel=caller_stacklevel())
    return dataclasses.replace(result, pre_tokenizer=cut.for_encoding(), **kept)


@with_progress
def train_from_files(
    paths: Iterable[str | os.PathLike[str]],
    *,
    options: BpeOptions | None = None,
    add_prefix_space: bool = False,
    workers: int | None = None,
    exclude_special_tokens: bool = False,
    errors: str = "strict",
    pattern: str | None = None,
    normalizer: str | None = None,
    pre_tokenizer: PreTokenizer | None = None,
    progress: Progress | bool | None = True,
    continue_from: str | os.PathLike[str] | BaseTokenizer | None = None,
    **model_options: Any,
) -> TrainResult:
    """Train on text files, read line by line as ``Tokenizer.train(files, trainer)`` reads them.

    Args:
        paths: UTF-8 text files.
        options: what to train (:class:`~hf_bpe.models.bpe.options.BpeOptions`: ``vocab_size``, ``min_frequency``,
            ``special_tokens``, ``limit_alphabet``, ``max_token_length``, ``char_level``); its fields may also be
            given as keywords (``model_options``), which replace the ``options``' own.
        add_prefix_space: add a space before text that does not start with one (see
            :meth:`hf_bpe.pipeline.pre_tokenizers.PreTokenizer.pre_tokenize`).
        workers: processes for counting and for the initial pair count (default: the CPU count).
        exclude_special_tokens: cut special tokens out of the text before counting (the reference counts them as
            ordinary text, tokenizers#1616).
        errors: ``"strict"`` or ``"replace"`` for invalid UTF-8, see :func:`hf_bpe.counting.counting.count_files`.
        pattern: the split: a preset's name (``"gpt2"``, ``"llama3"``, ``"cl100k"``, ``"o200k"``, ``"qwen2"``,
            ``"deepseek-v3"``, see :data:`hf_bpe.pipeline.pre_tokenizers.PRESETS`) or a regex (default: GPT-2's).
        normalizer: ``"none"``, ``"nfc"``, ``"nfkc"`` or ``"lowercase"`` (default: the preset's, or none).
        pre_tokenizer: the whole pre-tokenizer at once, instead of the keywords above.
        progress: True (tqdm bars on stderr, the default), False, or ``progress(stage, done, total)``.
        continue_from: continue training this tokenizer (a directory, see
        :func:`hf_bpe.models.bpe.continuing.read_base`,
            or a :class:`~hf_bpe.models.bpe.continuing.BaseTokenizer`): its ids, merges, special tokens, their roles and
            its pre-tokenizer are kept, ``special_tokens`` are added after its tokens, and new merges follow its
            own (:func:`hf_bpe.models.bpe.continuing.continue_bpe`). The pre-tokenizer keywords, ``char_level`` and
            ``limit_alphabet`` are then the base's and cannot be given.

    Raises:
        FileNotFoundError: naming a missing file.
        ValueError: naming the file, line and byte offset of invalid UTF-8, or a bad option.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = path.write_text("hug pug hug\\n", encoding="utf-8")
    >>> train_from_files([path], vocab_size=258, workers=1).merges
    [('u', 'g'), ('h', 'ug')]
    """
    options = BpeOptions.of(options, model_options, "train_from_files")
    base, cut = training_cut(
        continue_from, options, pre_tokenizer=pre_tokenizer, pattern=pattern, normalizer=normalizer,
        add_prefix_space=add_prefix_space, exclude_special_tokens=exclude_special_tokens,
    )  # fmt: skip
    counted = count_paths(paths, progress, workers=workers, errors=errors, pre_tokenizer=cut)
    result = train_from_counts(
        counted.counts,
        options=options,
        pre_tokenizer=None if base else cut,  # as built, not built again
        workers=workers,
        progress=progress,
        continue_from=base,
        consume_counts=True,
    )
    return dataclasses.replace(result, replaced_lines=counted.replaced_lines)


@with_progress
def train_from_iterator(
    sequences: Iterable[str | Sequence[str]],
    *,
    options: BpeOptions | None = None,
    add_prefix_space: bool = False,
    exclude_special_tokens: bool = False,
    pattern: str | None = None,
    normalizer: str | None = None,
    pre_tokenizer: PreTokenizer | None = None,
    progress: Progress | bool | None = True,
    continue_from: str | os.PathLike[str] | BaseTokenizer | None = None,
    **model_options: Any,
) -> TrainResult:
    """Train on an iterable of strings or of batches (lists) of strings, as ``train_from_iterator`` does.

    Each string is one sequence, pre-tokenized whole: it is not cut into lines. Options as in
    :func:`train_from_files`.

    >>> train_from_iterator(["hug pug", ["hug"]], vocab_size=258).merges
    [('u', 'g'), ('h', 'ug')]
    """
    return _train_from_sequences(
        sequences,
        0,
        BpeOptions.of(options, model_options, "train_from_iterator"),
        add_prefix_space=add_prefix_space,
        exclude_special_tokens=exclude_special_tokens,
        pattern=pattern,
        normalizer=normalizer,
        pre_tokenizer=pre_tokenizer,
        progress=progress,
        continue_from=continue_from,
    )


def _train_from_sequences(
    sequences: Iterable[str | Sequence[str]],
    total: int,
    options: BpeOptions,
    *,
    progress: ProgressOption,
    continue_from: str | os.PathLike[str] | BaseTokenizer | None,
    **cutting: Any,
) -> TrainResult:
    """Count ``sequences`` (``total`` of them, 0 if unknown) cut as the keywords say, and train on the counts."""
    base, cut = training_cut(continue_from, options, **cutting)
    counts = count_sequences(sequences, pre_tokenizer=cut, progress=_count_progress(progress, total, "sequences"))
    return train_from_counts(
        counts,
        options=options,
        pre_tokenizer=None if base else cut,  # as built, not built again
        progress=progress,
        continue_from=base,
        consume_counts=True,
    )


@with_progress
def train_from_dataset(
    dataset: Any,
    column: str = "text",
    *,
    options: BpeOptions | None = None,
    add_prefix_space: bool = False,
    exclude_special_tokens: bool = False,
    pattern: str | None = None,
    normalizer: str | None = None,
    pre_tokenizer: PreTokenizer | None = None,
    progress: Progress | bool | None = True,
    continue_from: str | os.PathLike[str] | BaseTokenizer | None = None,
    **model_options: Any,
) -> TrainResult:
    """Train on a ``datasets.Dataset`` column, each row one sequence (as ``train_from_iterator`` over the rows).

    Raises:
        KeyError: if the dataset has no such column.

    >>> import datasets
    >>> train_from_dataset(datasets.Dataset.from_dict({"text": ["hug pug", "hug"]}), "text", vocab_size=258).merges
    [('u', 'g'), ('h', 'ug')]
    """
    return _train_from_sequences(
        dataset_rows(dataset, column),
        len(dataset),
        BpeOptions.of(options, model_options, "train_from_dataset"),
        add_prefix_space=add_prefix_space,
        exclude_special_tokens=exclude_special_tokens,
        pattern=pattern,
        normalizer=normalizer,
        pre_tokenizer=pre_tokenizer,
        progress=progress,
        continue_from=continue_from,
    )


@with_progress
def count_to_directory(
    paths: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    *,
    add_prefix_space: bool = False,
    special_tokens: Sequence[str] = (),
    exclude_special_tokens: bool = False,
    pattern: str | None = None,
    normalizer: str | None = None,
    pre_tokenizer: PreTokenizer | None = None,
    errors: str = "strict",
    engine: str = "local",
    workers: int | None = None,
    buckets: int = DEFAULT_BUCKETS,
    executor: str = "local",
    tasks: int | None = None,
    executor_options: Mapping[str, Any] | None = None,
    progress: Progress | bool | None = True,
) -> Path:
    """Count the pre-tokens of text files into a counts directory (:mod:`hf_bpe.counting.counts_dir`).

    Args:
        paths: the text files, read as :func:`train_from_files` reads them.
        output: the counts directory to write.
        add_prefix_space, special_tokens, exclude_special_tokens, pattern, normalizer, pre_tokenizer: how the text
            is cut, as in :func:`train_from_files` (``special_tokens`` matter with ``exclude_special_tokens``).
        errors: ``"strict"`` or ``"replace"`` for invalid UTF-8.
        engine: ``"local"`` (this machine's process pool) or ``"datatrove"`` (see :mod:`hf_bpe.counting.datatrove`).
        workers: processes (local engine) or tasks run at once (datatrove).
        buckets: how many bucket files to spread the counts over.
        executor: datatrove's executor: ``"local"``, ``"ray"`` or ``"slurm"``.
        tasks: datatrove tasks (default: 4 per worker).
        executor_options: passed to datatrove's executor (Slurm's ``partition``, ``time``...).
        progress: True (tqdm bars on stderr, the default), False, or a callable (bytes counted; datatrove's local
            and Ray executors too).

    Returns:
        The manifest's path.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = path.write_text("hug pug hug\\n", encoding="utf-8")
    >>> manifest = count_to_directory([path], path.parent / "counts", workers=1)
    >>> train_from_count_directory(manifest.parent, vocab_size=258).merges
    [('u', 'g'), ('h', 'ug')]
    """
    cut = pre_tokenizer_for(
        pre_tokenizer=pre_tokenizer,
        pattern=pattern,
        normalizer=normalizer,
        add_prefix_space=add_prefix_space,
        special_tokens=special_tokens,
        exclude_special_tokens=exclude_special_tokens,
    )
    if engine == "datatrove":
        from hf_bpe.counting.datatrove import count_with_datatrove

        return count_with_datatrove(
            paths,
            output,
            counting=cut,
            tasks=tasks,
            workers=workers or os.cpu_count() or 1,
            buckets=buckets,
            executor=executor,
            errors=errors,
            executor_options=dict(executor_options or {}),
            progress=callback(progress),
        )
    if engine != "local":
        raise ValueError(f"engine {engine!r}: choose 'local' or 'datatrove'")
    paths = list(paths)
    counted = count_paths(paths, progress, workers=workers, errors=errors, pre_tokenizer=cut)
    return write_counts(
        output,
        counted.counts,
        settings=counting_settings(cut, errors),
        buckets=buckets,
        sources=[str(Path(p).resolve()) for p in paths],
    )


def counted_cut(directory: str | os.PathLike[str]) -> PreTokenizer:
    """How a counts directory was cut (its manifest's pre-tokenizer), refused unless counted for byte-level BPE.

    Raises:
        FileNotFoundError: if the directory has no manifest (an unfinished or foreign directory).
        ValueError: naming a directory counted with BERT's recipe (WordPiece) or the SentencePiece recipe
            (Unigram), each with the front end that trains it.
    """
    recorded = PreTokenizer.from_settings(read_manifest(directory)["settings"])
    if recorded.bert is not None:
        raise ValueError(
            f"{directory}: counted with BERT's recipe for WordPiece; train it with --model wordpiece "
            "(hf_bpe.train_wordpiece_from_count_directory)"
        )
    if recorded.sentencepiece is not None:
        raise ValueError(
            f"{directory}: counted with the SentencePiece recipe for Unigram; train it with --model unigram "
            "(hf_bpe.models.unigram.training.train_unigram_from_count_directory)"
        )
    if not recorded.byte_level:
        raise ValueError(f"{directory}: not counted for byte-level BPE; count its text again")
    return recorded


def check_counted_like_base(directory: str | os.PathLike[str], recorded: PreTokenizer, base: BaseTokenizer) -> None:
    """Refuse continuing ``base`` from a counts directory cut otherwise (``recorded``: :func:`counted_cut`'s).

    Raises:
        ValueError: naming the directory, the base and how the directory was cut.
    """
    if recorded.for_encoding() != base.pre_tokenizer:
        raise ValueError(
            f"{directory} was counted with another pre-tokenizer than {base.source}'s (pattern "
            f"{recorded.preset or recorded.splits}, normalizer {recorded.normalizer}, add_prefix_space "
            f"{recorded.add_prefix_space}); count the text again with the base's"
        )


@with_progress
def train_from_count_directory(
    directory: str | os.PathLike[str],
    *,
    options: BpeOptions | None = None,
    workers: int | None = None,
    progress: Progress | bool | None = True,
    continue_from: str | os.PathLike[str] | BaseTokenizer | None = None,
    counted: PreTokenizer | None = None,
    **model_options: Any,
) -> TrainResult:
    """Train on a counts directory written by :func:`count_to_directory` (or ``hf-bpe count``).

    The pre-tokenizer (pattern, normalizer, prefix space, special tokens cut out) is the one recorded in the
    directory, and goes into the tokenizer files. With ``continue_from`` (see :func:`train_from_files`) it must be
    the base's. ``options`` / ``model_options``: as in :func:`train_from_files` (byte-level: a counts directory
    holds no char-level counts). ``counted``: the directory's pre-tokenizer as :func:`counted_cut` read it, for a
    caller that read it already (taken as it is, not read again).

    Raises:
        FileNotFoundError: if the directory has no manifest (an unfinished or foreign directory).
        ValueError: naming a corrupt file, or counts of another format version.
    """
    options = BpeOptions.of(options, model_options, "train_from_count_directory")
    if options.char_level is not None:
        raise ValueError(f"{directory}: a counts directory trains byte-level BPE; char_level is not supported there")
    recorded = counted if counted is not None else counted_cut(directory)
    if continue_from is not None:
        continue_from = as_base(continue_from)
        check_counted_like_base(directory, recorded, continue_from)
    # Without a base, the trainer reads the counts from disk as it goes (no table of them all beside its words).
    counts = CountsDirectory(directory) if continue_from is None else dict(iter_counts(directory))
    return train_from_counts(
        counts,
        options=options,
        pre_tokenizer=None if continue_from is not None else recorded,
        workers=workers,
        progress=progress,
        continue_from=continue_from,
        consume_counts=True,
    )


def train_sizes(train: Callable[[int], TrainResult], sizes: Iterable[int]) -> dict[int, TrainResult]:
    """Every size's result, from one run where that is exact: the largest size trained by ``train(size)``, each
    smaller one read off it (:func:`smaller_vocabulary`) or, where that is not exact, trained on its own.

    >>> results = train_sizes(lambda size: train_from_iterator(["hug pug hug pun bun"], vocab_size=size), [259, 262])
    >>> [len(results[size].merges) for size in (259, 262)]
    [3, 6]
    """
    ordered = sorted(set(sizes))
    largest = train(ordered[-1])
    smaller = {size: smaller_vocabulary(largest, size) or train(size) for size in ordered[:-1]}
    return {**smaller, ordered[-1]: largest}


def smaller_vocabulary(result: TrainResult, vocab_size: int) -> TrainResult | None:
    """What training the same counts to ``vocab_size`` gives, taken from a run to a larger size, or None where it
    cannot be read off that run.

    Merges are made one after the other, so a smaller run makes the first merges of a larger one and stops when its
    vocabulary is full. That is exact when every merge of the larger run made a new token, in id order (a merge
    whose result already existed, such as a special token spelled like a word, does not grow the vocabulary, and
    merges.txt keeps only its last position): then the smaller run's merges are the first ``vocab_size`` minus the
    alphabet and special tokens. Otherwise None: train that size on its own.

    >>> big = train_from_iterator(["hug pug hug pun bun"], vocab_size=262)
    >>> small = smaller_vocabulary(big, 259)
    >>> small.merges == train_from_iterator(["hug pug hug pun bun"], vocab_size=259).merges
    True
    """
    base = len(result.vocab) - len(result.merges)
    if [result.vocab[left + right] for left, right in result.merges] != list(range(base, len(result.vocab))):
        return None
    if vocab_size >= len(result.vocab):
        # The larger run stopped before filling its vocabulary (or exactly at it): so does the smaller one.
        return result if result.stop_reason != "vocab_size" or vocab_size == len(result.vocab) else None
    kept = max(vocab_size - base, 0)
    vocab = {token: token_id for token, token_id in result.vocab.items() if token_id < base + kept}
    return dataclasses.replace(
        result, vocab=vocab, merges=result.merges[:kept], stop_reason="vocab_size", merges_learned=kept
    )
