"""What a tokenizer buys on a sample of text: compression, vocabulary use, longest and unused tokens.

:func:`report` encodes sample files with each tokenizer directory (a byte-level one through its
``tokenizer.json``'s whole pipeline, :class:`hf_bpe.tokenizer.tokenizer.Tokenizer`, its kind decided as
:func:`hf_bpe.from_pretrained` decides it, so no transformers import; any other kind through the
:class:`Measurable` its caller's ``load`` gives) and measures, per file, per language (the files given the same
language, by default those of the same name stem) and overall: bytes per token, tokens per word (a word: a run of
non-white-space characters), tokens per byte and per line (a sentence, in parallel text), the share of the
vocabulary produced, the longest tokens and how many tokens never appear; and, over the languages, the gap between
the best- and the worst-served one (:class:`LanguageGap`: what parity-aware BPE narrows). :func:`format_report`
prints the table, :func:`format_comparison` a new tokenizer against a base one (``hf-bpe report BASE NEW``);
:func:`plot_report` draws compression against vocabulary size, token-length histograms and the per-language figures
(each tokenizer's gap in its legend) with matplotlib (an optional dependency: ``pip install 'hf-bpe[plot]'``).
Deciding what a directory holds is :mod:`hf_bpe.tokenizer.directory`'s job, reading its files
:mod:`hf_bpe.tokenizer.serialization`'s and :mod:`hf_bpe.models.bpe.files`'.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from hf_bpe.models.bpe.continuing import BaseTokenizer
from hf_bpe.models.bpe.files import (
    MERGES_FILE,
    VOCAB_FILE,
    byte_level_document,
    continued_tokenizer_json,
    read_merges,
    read_vocab,
)
from hf_bpe.models.bpe.options import Merges, Vocab
from hf_bpe.models.bpe.result import TrainResult
from hf_bpe.models.directory import GPT2_SPECIAL_TOKEN, TOKENIZER_FILE, named_special_tokens, read_tokenizer_config
from hf_bpe.pipeline.byte_level import from_byte_level
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
from hf_bpe.pipeline.tokenizer_json import special_added_tokens
from hf_bpe.tokenizer.directory import tokenizer_kind
from hf_bpe.tokenizer.serialization import pipeline_from_data
from hf_bpe.tokenizer.tokenizer import Tokenizer


@dataclasses.dataclass(frozen=True)
class SampleFigures:
    """One tokenizer on one sample (a file, or all files together)."""

    name: str
    bytes: int
    words: int
    tokens: int
    #: Distinct ids produced on this sample.
    used: int = 0
    #: Lines (a last one without its line end included): sentences, in parallel text of one sentence a line.
    lines: int = 0

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def tokens_per_byte(self) -> float:
        return self.tokens / self.bytes if self.bytes else 0.0

    @property
    def tokens_per_line(self) -> float:
        return self.tokens / self.lines if self.lines else 0.0

    @property
    def tokens_per_word(self) -> float:
        return self.tokens / self.words if self.words else 0.0


@dataclasses.dataclass(frozen=True)
class LanguageGap:
    """How much worse one tokenizer serves its worst-served language than its best-served one, by one measure
    (``"tokens_per_byte"``, or ``"tokens_per_line"``: on parallel text, the cost of the same sentences)."""

    measure: str
    best: str
    best_value: float
    worst: str
    worst_value: float
    #: ``worst_value / best_value``: 1.0 is parity.
    ratio: float


def language_gap(per_language: Sequence[SampleFigures], measure: str) -> LanguageGap | None:
    """The gap between the best- and the worst-served language by ``measure`` (a :class:`SampleFigures`
    property: fewer is better), None with fewer than two languages measured.

    >>> gap = language_gap([SampleFigures("en", 100, 20, 25, lines=2), SampleFigures("hi", 100, 20, 60, lines=2)],
    ...                    "tokens_per_byte")
    >>> gap.best, gap.worst, gap.ratio
    ('en', 'hi', 2.4)
    """
    measured = [(getattr(figures, measure), figures.name) for figures in per_language if figures.tokens]
    if len(measured) < 2:
        return None
    (best_value, best), (worst_value, worst) = min(measured), max(measured)
    return LanguageGap(measure, best, best_value, worst, worst_value, worst_value / best_value if best_value else 0.0)


@dataclasses.dataclass(frozen=True)
class TokenizerReport:
    """What :func:`report` found for one tokenizer directory."""

    directory: str
    vocab_size: int
    per_file: list[SampleFigures]
    overall: SampleFigures
    used: int
    longest: list[str]
    token_lengths: dict[int, int]
    per_language: list[SampleFigures] = dataclasses.field(default_factory=list)
    #: The gap between the best- and the worst-served language, by tokens per byte and by tokens per line (None
    #: with fewer than two languages).
    gaps: list[LanguageGap] = dataclasses.field(default_factory=list)

    @property
    def used_share(self) -> float:
        """The share of the vocabulary produced on the sample."""
        return self.used / self.vocab_size if self.vocab_size else 0.0

    def share(self, figures: SampleFigures) -> float:
        """The share of the vocabulary produced on one file's or one language's sample."""
        return figures.used / self.vocab_size if self.vocab_size else 0.0


def compression_sample(
    sources: Sequence[str | os.PathLike[str]], *, size: int = 1 << 20, errors: str = "replace"
) -> str:
    """Up to ``size`` bytes of text from the start of the files (an equal share of each; compressed files are read
    decompressed, standard input is skipped), cut at a line end where there is one: the sample ``hf-bpe train
    --continue-from`` measures compression on."""
    from hf_bpe.counting.sources import is_stream, open_binary

    readable = [source for source in sources if not is_stream(source)]
    share = size // max(len(readable), 1)
    parts = []
    for source in readable:
        with open_binary(source) as stream:
            data = stream.read(share)
        if len(data) == share and b"\n" in data:
            data = data[: data.rindex(b"\n") + 1]
        parts.append(data.decode("utf-8", errors))
    return "".join(parts)


def compression_before_after(
    base: BaseTokenizer, result: TrainResult, files: Sequence[str]
) -> tuple[int, float, float]:
    """What continuing a tokenizer bought: bytes per token of the ``base`` and of the continued ``result`` on a
    sample of the training ``files`` (the first megabyte, shared among them); returns the sample's size, before,
    after. Each is encoded by the pipeline of its ``tokenizer.json`` (:func:`continued_tokenizer`)."""
    text = compression_sample(files)
    figures = [
        measure(continued_tokenizer(base, vocab, merges, specials), text)
        for vocab, merges, specials in (
            (base.vocab, base.merges, base.special_tokens),
            (result.vocab, result.merges, result.special_tokens),
        )
    ]
    return figures[0].bytes, round(figures[0].bytes_per_token, 4), round(figures[1].bytes_per_token, 4)


def continued_tokenizer(base: BaseTokenizer, vocab: Vocab, merges: Merges, special_tokens: Sequence[str]) -> Tokenizer:
    """The tokenizer of ``vocab`` and ``merges`` continued from ``base``, as its ``tokenizer.json`` is written: the
    base file's whole pipeline (:func:`~hf_bpe.models.bpe.files.continued_tokenizer_json`) where the base was a
    ``tokenizer.json``, else the byte-level document of the base's pre-tokenizer
    (:func:`~hf_bpe.models.bpe.files.byte_level_document`); ``special_tokens`` matched whole."""
    if base.pipeline is not None:
        known = {str(entry.get("content")) for entry in base.pipeline.added_tokens}
        new = [token for token in special_tokens if token not in known]
        return Tokenizer.from_str(continued_tokenizer_json(base.pipeline, vocab, merges, new))
    added = special_added_tokens(special_tokens, vocab)
    ignore = base.ignore_merges
    document = byte_level_document(vocab, merges, base.pre_tokenizer, ignore_merges=ignore, added_tokens=added)
    return Tokenizer(pipeline_from_data(document, base.source or "<continued>"))


def measure(tokenizer: Tokenizer, text: str, name: str = "sample") -> SampleFigures:
    """Bytes, words and tokens of ``text`` encoded with ``tokenizer`` (no template tokens, nothing truncated).

    >>> import json
    >>> document = byte_level_document({"a": 0, "b": 1, "ab": 2, "Ġ": 3}, [("a", "b")], PreTokenizer())
    >>> measure(Tokenizer.from_str(json.dumps(document)), "ab ab").bytes_per_token
    1.6666666666666667
    """
    ids = tokenizer.encode_ids(text)
    return SampleFigures(name, len(text.encode("utf-8")), len(text.split()), len(ids), lines=_lines(text))


def _lines(text: str) -> int:
    """The lines of ``text``: its ``\n``s, and a last line without one."""
    return text.count("\n") + (bool(text) and not text.endswith("\n"))


def load_tokenizer(directory: str | os.PathLike[str]) -> Tokenizer:
    """The tokenizer of a byte-level BPE directory (or ``tokenizer.json``), as hf_bpe's classes read it: the
    directory's kind decided once (:func:`~hf_bpe.tokenizer.directory.tokenizer_kind`), its ``tokenizer.json`` run
    whole (:class:`~hf_bpe.tokenizer.tokenizer.Tokenizer`); a directory of ``vocab.json`` + ``merges.txt`` alone
    (GPT-2's files) as the byte-level document of its ``tokenizer_config.json``'s pre-tokenizer and special tokens
    (GPT-2's ``<|endoftext|>`` in the roles it does not name, as ``GPT2Tokenizer`` takes them).

    Raises:
        FileNotFoundError: naming ``directory`` where it does not exist, or holds no tokenizer or not all its files.
        ValueError: naming ``directory`` where it holds a tokenizer that is not byte-level BPE.
    """
    found = tokenizer_kind(directory)
    if found is None:
        raise FileNotFoundError(f"{directory}: no {TOKENIZER_FILE} there, and no {VOCAB_FILE} + {MERGES_FILE}")
    if not found.byte_level:
        raise ValueError(
            f"{directory}: a {found.label} tokenizer; report reads byte-level BPE here (hf-bpe report reads every kind)"
        )
    if found.missing:
        raise FileNotFoundError(f"{directory}: no {' or '.join(found.missing)} there")
    if found.is_file:
        return Tokenizer.from_file(found.path)
    if TOKENIZER_FILE in found.files:
        return Tokenizer.from_file(found.path / TOKENIZER_FILE)
    config = read_tokenizer_config(found.path)
    vocab = read_vocab(found.path / VOCAB_FILE)
    merges = read_merges(found.path / MERGES_FILE, vocab)
    settings = {**(config.get("pre_tokenizer") or {}), "add_prefix_space": bool(config.get("add_prefix_space"))}
    # GPT2Tokenizer's roles, as transformers gives them to BPETokenizer too: each as tokenizer_config.json names it,
    # else GPT-2's <|endoftext|> for unk, bos and eos where the vocabulary has it.
    gpt2 = (
        dict.fromkeys(("unk_token", "bos_token", "eos_token"), GPT2_SPECIAL_TOKEN)
        if GPT2_SPECIAL_TOKEN in vocab
        else {}
    )
    specials = [token for token in named_special_tokens({**gpt2, **config}) if token in vocab]
    document = byte_level_document(
        vocab, merges, PreTokenizer.from_settings(settings), added_tokens=special_added_tokens(specials, vocab)
    )
    return Tokenizer(pipeline_from_data(document, found.path / VOCAB_FILE))


@dataclasses.dataclass(frozen=True)
class Measurable:
    """What :func:`report` needs of a tokenizer, whatever its model: text to ids (no template tokens), each id's
    text in bytes (for token lengths), and the ids of special tokens (left out of the lengths)."""

    encode: Callable[[str], list[int]]
    token_bytes: Mapping[int, bytes]
    special_ids: frozenset[int]


def byte_level_measurable(directory: str | os.PathLike[str]) -> Measurable:
    """A byte-level BPE directory as :func:`report` measures it (through :func:`load_tokenizer`): its added tokens
    are the special ones."""
    tokenizer = load_tokenizer(directory)
    return Measurable(
        tokenizer.encode_ids,
        {token_id: from_byte_level(token) for token, token_id in tokenizer.get_vocab().items()},
        frozenset(tokenizer.get_added_tokens_decoder()),
    )


def report(
    directories: Sequence[str | os.PathLike[str]],
    samples: Sequence[str | os.PathLike[str]],
    *,
    languages: Sequence[str] | None = None,
    load: Callable[[str | os.PathLike[str]], Measurable] = byte_level_measurable,
) -> list[TokenizerReport]:
    """Encode every sample file with every tokenizer directory and measure what each buys.

    ``languages`` names each sample's language (default: its file name's stem, so ``ja.txt`` and ``ja.txt.gz`` in
    two folders are one language); files of one language are measured together as well. ``load`` reads a directory
    (default: byte-level BPE, without transformers); the command line passes one that reads every kind it writes.

    Raises:
        ValueError: if ``languages`` is not one name per sample.

    >>> import hf_bpe, tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "s.txt").write_text("hug pug hug\\n", encoding="utf-8")
    >>> _ = hf_bpe.train_from_files([root / "s.txt"], vocab_size=260, workers=1).save(root / "tok")
    >>> found = report([root / "tok"], [root / "s.txt"])[0]
    >>> found.overall.tokens, found.overall.words, found.used, found.per_language[0].name
    (5, 3, 5, 's')
    """
    if languages is None:
        languages = [Path(path).name.split(".")[0] for path in samples]
    if len(languages) != len(samples):
        raise ValueError(f"{len(languages)} language names for {len(samples)} sample files; give one per file")
    # The bytes as they are (read_text would turn CRLF and a lone CR into LF, and count other bytes than the file's).
    texts = {str(path): Path(path).read_bytes().decode("utf-8") for path in samples}
    language_of = dict(zip(texts, languages, strict=True))
    return [_report_one(directory, load(directory), texts, language_of) for directory in directories]


def _figures(name: str, texts: Sequence[str], ids: Sequence[Sequence[int]]) -> SampleFigures:
    """The figures of one sample: ``texts`` and the ids each encodes to."""
    used = set().union(*ids) if ids else set()
    return SampleFigures(
        name,
        sum(len(text.encode("utf-8")) for text in texts),
        sum(len(text.split()) for text in texts),
        sum(map(len, ids)),
        len(used),
        sum(map(_lines, texts)),
    )


def _report_one(
    directory: str | os.PathLike[str], measurable: Measurable, texts: Mapping[str, str], language_of: Mapping[str, str]
) -> TokenizerReport:
    """:func:`report` for one tokenizer."""
    encoded = {name: measurable.encode(text) for name, text in texts.items()}
    per_file = [_figures(name, [texts[name]], [encoded[name]]) for name in texts]
    per_language = [
        _figures(language, [texts[n] for n in texts if language_of[n] == language],
                 [encoded[n] for n in texts if language_of[n] == language])
        for language in dict.fromkeys(language_of.values())
    ]  # fmt: skip
    overall = _figures("all", list(texts.values()), list(encoded.values()))
    spelled = measurable.token_bytes
    lengths = {token_id: len(text) for token_id, text in spelled.items() if token_id not in measurable.special_ids}
    longest = sorted(lengths, key=lambda token_id: (-lengths[token_id], token_id))[:5]
    return TokenizerReport(
        directory=str(directory),
        vocab_size=len(spelled),
        per_file=per_file,
        overall=overall,
        used=overall.used,
        longest=[spelled[i].decode("utf-8", "replace") for i in longest],
        token_lengths=dict(Counter(lengths.values())),
        per_language=per_language,
        gaps=[gap for measure in GAP_MEASURES if (gap := language_gap(per_language, measure)) is not None],
    )


#: The measures :attr:`TokenizerReport.gaps` compares languages by.
GAP_MEASURES = ("tokens_per_byte", "tokens_per_line")


def format_report(reports: Sequence[TokenizerReport]) -> str:
    """The table ``hf-bpe report`` prints: one block per tokenizer, a line per sample file and the total."""
    lines = []
    for found in reports:
        lines.append(f"{found.directory}: {found.vocab_size} tokens")
        lines.append(
            f"  {'sample':40} {'bytes':>10} {'tokens':>10} {'bytes/token':>12} {'tokens/word':>12} {'vocab used':>11}"
            f" {'tokens/byte':>12} {'tokens/line':>12}"
        )
        languages = [dataclasses.replace(f, name=f"language: {f.name}") for f in _grouping(found)]
        for figures in [*found.per_file, *languages, found.overall]:
            lines.append(
                f"  {figures.name[-40:]:40} {figures.bytes:>10} {figures.tokens:>10} {figures.bytes_per_token:>12.3f} "
                f"{figures.tokens_per_word:>12.3f} {100 * found.share(figures):>9.1f} % "
                f"{figures.tokens_per_byte:>12.4f} {figures.tokens_per_line:>12.2f}"
            )
        lines += [f"  {format_gap(gap)}" for gap in found.gaps]
        lines.append(
            f"  vocabulary used on the sample: {found.used} of {found.vocab_size} ({100 * found.used_share:.1f} %); "
            f"never produced: {found.vocab_size - found.used}"
        )
        lines.append(f"  longest tokens: {', '.join(repr(token) for token in found.longest)}")
    return "\n".join(lines)


def format_gap(gap: LanguageGap) -> str:
    """One line: the best- and the worst-served language by one measure, and how far apart they are.

    >>> print(format_gap(LanguageGap("tokens_per_byte", "en", 0.25, "hi", 0.6, 2.4)))
    gap in tokens/byte: worst-served hi 0.6000, best-served en 0.2500: 2.40x
    """
    unit, digits = gap.measure.replace("_per_", "/"), 4 if gap.measure == "tokens_per_byte" else 2
    return (
        f"gap in {unit}: worst-served {gap.worst} {gap.worst_value:.{digits}f}, "
        f"best-served {gap.best} {gap.best_value:.{digits}f}: {gap.ratio:.2f}x"
    )


def _grouping(found: TokenizerReport) -> list[SampleFigures]:
    """The per-language figures worth a row: none where every language is one file (its row would repeat the
    file's)."""
    return found.per_language if len(found.per_language) < len(found.per_file) else []


def format_comparison(base: TokenizerReport, new: TokenizerReport) -> str:
    """The table ``hf-bpe report BASE NEW`` adds: per file, per language and overall, each one's bytes per token
    (and how much more text a token of ``new`` holds), tokens per word, and the share of its vocabulary used."""
    lines = [
        f"{new.directory} against {base.directory}:",
        f"  {'sample':32} {'bytes/token':>20} {'change':>8} {'tokens/word':>18} {'vocabulary used':>18}",
    ]
    rows = [
        *((b.name, b, n) for b, n in zip(base.per_file, new.per_file, strict=True)),
        *((f"language: {b.name}", b, n) for b, n in zip(_grouping(base), _grouping(new), strict=True)),
        ("all", base.overall, new.overall),
    ]
    for name, before, after in rows:
        change = 100 * (after.bytes_per_token / before.bytes_per_token - 1) if before.bytes_per_token else 0.0
        lines.append(
            f"  {name[-32:]:32} {before.bytes_per_token:>8.3f} -> {after.bytes_per_token:<8.3f} {change:>+7.1f}% "
            f"{before.tokens_per_word:>7.3f} -> {after.tokens_per_word:<7.3f} "
            f"{f'{100 * base.share(before):.1f}%':>7} -> {100 * new.share(after):.1f}%"
        )
    for before_gap, after_gap in zip(base.gaps, new.gaps, strict=False):
        unit = before_gap.measure.replace("_per_", "/")
        lines.append(
            f"  gap between the worst- and best-served language in {unit}: {before_gap.ratio:.2f}x "
            f"({before_gap.worst}/{before_gap.best}) -> {after_gap.ratio:.2f}x ({after_gap.worst}/{after_gap.best})"
        )
    return "\n".join(lines)


def plot_report(reports: Sequence[TokenizerReport], output: str | os.PathLike[str]) -> Path:
    """Draw bytes per token against vocabulary size, each tokenizer's token-length histogram, and per language the
    bytes per token and the share of the vocabulary used (a bar per tokenizer), into a PNG.

    Raises:
        ImportError: naming the extra to install when matplotlib is missing.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("plotting needs matplotlib: pip install matplotlib (or the hf-bpe 'plot' extra)") from e
    figure, ((left, right), (below_left, below_right)) = plt.subplots(2, 2, figsize=(11, 8.4))
    ordered = sorted(reports, key=lambda found: found.vocab_size)
    left.plot([f.vocab_size for f in ordered], [f.overall.bytes_per_token for f in ordered], marker="o")
    for found in ordered:
        left.annotate(Path(found.directory).name, (found.vocab_size, found.overall.bytes_per_token), fontsize=8)
    left.set_xlabel("vocabulary size")
    left.set_ylabel("bytes per token on the sample")
    left.set_title("compression")
    for found in ordered:
        sizes = sorted(found.token_lengths)
        right.plot(sizes, [found.token_lengths[size] for size in sizes], label=Path(found.directory).name)
    right.set_xlabel("token length (bytes)")
    right.set_ylabel("tokens")
    right.set_yscale("log")
    right.set_title("token lengths")
    right.legend(fontsize=8)
    _language_bars(below_left, reports, lambda found, f: f.bytes_per_token, "bytes per token")
    _language_bars(below_right, reports, lambda found, f: 100 * found.share(f), "vocabulary used (%)")
    figure.tight_layout()
    output = Path(output)
    figure.savefig(output, dpi=100)
    plt.close(figure)
    return output


def _language_bars(
    axes: Any, reports: Sequence[TokenizerReport], value: Callable[[TokenizerReport, SampleFigures], float], label: str
) -> None:
    """Bars of ``value`` per language, one per tokenizer side by side."""
    languages = [figures.name for figures in reports[0].per_language] if reports else []
    width = 0.8 / max(len(reports), 1)
    for number, found in enumerate(reports):
        positions = [i + number * width for i in range(len(languages))]
        gap = next((gap for gap in found.gaps if gap.measure == "tokens_per_byte"), None)
        name = Path(found.directory).name + ("" if gap is None else f" (worst/best language: {gap.ratio:.2f}x)")
        axes.bar(positions, [value(found, f) for f in found.per_language], width, label=name)
    axes.set_xticks([i + 0.4 - width / 2 for i in range(len(languages))], languages)
    axes.set_ylabel(label)
    axes.set_title(f"{label} per language")
    axes.legend(fontsize=8)
