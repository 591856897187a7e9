"""How text is cut before any merge: one frozen :class:`PreTokenizer`, its presets, and its ``tokenizers`` form.

This module owns every rule that decides what a pre-token is:

* the normalizer (none, NFC, NFKC, lowercase), applied to each stretch of text between special tokens;
* the split: GPT-2's pattern, a preset of a modern model family (:data:`PRESETS`), a user's regex, or a sequence
  of regexes applied one after the other, each keeping the text between its matches as pieces of their own
  (``tokenizers``' ``Split(pattern, "isolated")``);
* the prefix space (the one place its rule is written, :meth:`PreTokenizer.pre_tokenize`);
* byte-level spelling, or char-level words split on white space;
* how special tokens cut the text when counting (``exclude_special_tokens``);
* how the pattern's syntax is read (:attr:`PreTokenizer.engine`), and the code-point classes of the reference
  engines (``_unicode_tables``, generated from both), which differ from the ``regex`` module's newer Unicode.

It turns itself into the settings that a counts manifest and ``tokenizer_config.json`` record (and back), and into
the ``tokenizers`` normalizer and pre-tokenizer that ``tokenizer.json`` holds and that reference training uses.
Counting, the trainer API, the encoder, the transformers classes, the exporters and ``verify`` take this object;
nothing else knows a pattern or the prefix-space rule. Byte spelling itself is :mod:`hf_bpe.pipeline.byte_level`'s.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, cast

import regex

from hf_bpe.pipeline._regex.dialect import Splitter, compiled, exact_pattern, oniguruma_pattern, splitters_of
from hf_bpe.pipeline.added_tokens import whole_tokens_pattern
from hf_bpe.pipeline.bert import BertRecipe, split_words
from hf_bpe.pipeline.bert import pre_tokenize as bert_pre_tokenize
from hf_bpe.pipeline.bert import split_words as bert_split_words
from hf_bpe.pipeline.byte_level import byte_level_json, to_byte_level
from hf_bpe.pipeline.component import (
    MISSING,
    Span,
    Spanned,
    UnknownComponent,
    bool_field,
    components_from_json,
    pattern_from_json,
)
from hf_bpe.pipeline.normalizers import (
    Lowercase,
    NormalizerSequence,
    Shape,
    UnicodeForm,
    json_shape,
    lowercase_aligned,
    pattern_json,
    pattern_source,
    sequence_json,
    unicode_aligned,
    unicode_normalize,
)
from hf_bpe.pipeline.normalizers import lowercase as _lowercase
from hf_bpe.pipeline.sentencepiece import SentencePieceRecipe, metaspace_json

#: GPT-2's pattern (``tokenizers``' ByteLevel pre-tokenizer, tiktoken's ``gpt2`` and ``r50k_base``): case-sensitive
#: English contractions, runs of letters, of numbers, of anything else (each with one optional leading space),
#: then white space, keeping the last space of a run for the word after it.
GPT2_SPLIT_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
#: ``tokenizers``' ``WhitespaceSplit``: maximal runs of non-white-space characters (char-level BPE).
WHITESPACE_SPLIT_PATTERN = r"\S+"

NORMALIZERS = ("none", "nfc", "nfkc", "lowercase")
ENGINES = ("tokenizers", "tiktoken")


@dataclasses.dataclass(frozen=True)
class Preset:
    """A model family's pre-tokenization: its splits, normalizer and syntax, and where they come from."""

    splits: tuple[str, ...]
    normalizer: str
    engine: str
    source: str


#: The presets. Each pattern is the model family's own, character for character; ``source`` names where it is
#: published and every deviation.
PRESETS: dict[str, Preset] = {
    "gpt2": Preset(
        (GPT2_SPLIT_PATTERN,),
        "none",
        "tokenizers",
        "GPT-2 (openai/gpt-2 encoder.py; tiktoken r50k_base/gpt2; tokenizers ByteLevel(use_regex=True)). "
        "tokenizer.json keeps ByteLevel(use_regex=True), whose built-in pattern is this one.",
    ),
    "llama3": Preset(
        (
            r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
            r"|\s+(?!\S)|\s+",
        ),
        "none",
        "tokenizers",
        "Llama 3 (meta-llama/Meta-Llama-3-8B tokenizer.json): cl100k_base's original pattern, without possessive "
        "quantifiers; no normalizer.",
    ),
    "cl100k": Preset(
        (
            r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$"""
            r"""|\s*[\r\n]|\s+(?!\S)|\s""",
        ),
        "none",
        "tiktoken",
        "GPT-3.5/GPT-4 cl100k_base (tiktoken_ext/openai_public.py, the current possessive form), read as tiktoken "
        "reads it: possessive quantifiers, '$' at the end of the text only. tokenizers' engine would read "
        "'\\p{N}{1,3}+' as '(\\p{N}{1,3})+' (so '2024123' would stay one piece, where tiktoken gives 202|412|3) "
        "and '$' as the end of a line, so tokenizer.json gets the same pattern spelled for it: atomic groups for "
        "possessive intervals, '\\z' for '$'.",
    ),
    "o200k": Preset(
        (
            r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
            r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
            r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        ),
        "none",
        "tiktoken",
        "GPT-4o o200k_base (tiktoken_ext/openai_public.py, its seven parts joined with '|'); no possessive "
        "quantifiers or anchors, so both engines read it alike.",
    ),
    "qwen2": Preset(
        (
            r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
            r"|\s+(?!\S)|\s+",
        ),
        "nfc",
        "tokenizers",
        "Qwen2/2.5/3 (transformers' tokenization_qwen2.py PRETOKENIZE_REGEX; Qwen/Qwen2-7B tokenizer.json): "
        "llama3's pattern with single digits, and NFC first. The pattern our founding document teaches.",
    ),
    "deepseek-v3": Preset(
        (
            r"\p{N}{1,3}",
            "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
            r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"""
            r"""| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
        ),
        "none",
        "tokenizers",
        "DeepSeek-V3/R1 (deepseek-ai/DeepSeek-V3 tokenizer.json): three isolated splits in sequence (digit "
        "groups, then CJK and kana runs, then the rest); no normalizer.",
    ),
}


def looks_like_a_name(text: str) -> bool:
    """Whether ``text`` reads as a preset's name (letters, digits, ``-``, ``_``) rather than as a regex.

    >>> looks_like_a_name("llama4"), looks_like_a_name(r"\\p{L}+|\\s+")
    (True, False)
    """
    return re.fullmatch(r"[A-Za-z0-9_-]+", text) is not None


_NORMALIZE = {
    "none": None,
    "nfc": functools.partial(unicode_normalize, "NFC"),
    "nfkc": functools.partial(unicode_normalize, "NFKC"),
    "lowercase": _lowercase,  # tokenizers' Lowercase: character by character, with its Unicode
}


@dataclasses.dataclass(frozen=True)
class PreTokenizer:
    """How text becomes pre-tokens: the one object counting, training, encoding and the files share.

    Args:
        splits: regexes applied in turn; each cuts every piece so far into its matches and the text between them
            (``Split(pattern, "isolated")``). GPT-2's pattern by default.
        normalizer: ``"none"``, ``"nfc"``, ``"nfkc"`` or ``"lowercase"``.
        add_prefix_space: add ``" "`` where text does not start with one (see :meth:`pre_tokenize`).
        byte_level: spell pre-tokens with the byte-level alphabet; false for char-level BPE (words split on
            white space, spelled with their own characters).
        engine: whose syntax the patterns follow: ``"tokenizers"`` (Oniguruma: ``X{1,3}+`` is ``(X{1,3})+``,
            ``$`` ends a line) or ``"tiktoken"`` (Rust ``regex``: ``X{1,3}+`` is possessive, ``$`` ends the text).
        special_tokens: with ``exclude_special_tokens``, strings cut out of the text before counting.
        exclude_special_tokens: if false (the reference's behaviour, tokenizers#1616), special tokens in training
            text are ordinary text; if true, they are cut out first, as the tokenizer does when it encodes.
        bert: WordPiece: BERT's normalizer and pre-tokenizer (:class:`~hf_bpe.pipeline.bert.BertRecipe`)
            instead of ``normalizer`` and ``splits`` (see :meth:`bert_recipe`).
        sentencepiece: Unigram: ``SentencePieceUnigramTokenizer``'s normalizer and Metaspace pre-tokenizer
            (:class:`~hf_bpe.pipeline.sentencepiece.SentencePieceRecipe`) instead of ``normalizer`` and ``splits``
            (see :meth:`sentencepiece_recipe`).

    Raises:
        ValueError: on an unknown normalizer or engine, a pattern that does not compile or can match the empty
            string, or a prefix space with char-level splitting.

    >>> PreTokenizer().pre_tokenize("Hello world's  end\\n")
    ['Hello', ' world', "'s", ' ', ' end', '\\n']
    >>> PreTokenizer.from_preset("llama3").pre_tokenize("I'VE 2024123 apples")
    ['I', "'VE", ' ', '202', '412', '3', ' apples']
    """

    splits: tuple[str, ...] = (GPT2_SPLIT_PATTERN,)
    normalizer: str = "none"
    add_prefix_space: bool = False
    byte_level: bool = True
    engine: str = "tokenizers"
    special_tokens: tuple[str, ...] = ()
    exclude_special_tokens: bool = False
    bert: BertRecipe | None = None
    sentencepiece: SentencePieceRecipe | None = None

    def __post_init__(self) -> None:
        if isinstance(self.splits, str) or not self.splits or not all(isinstance(p, str) for p in self.splits):
            raise ValueError(f"splits={self.splits!r}: give a non-empty tuple of regex strings")
        if isinstance(self.special_tokens, str):
            raise TypeError(f"special_tokens={self.special_tokens!r} is a string; pass a list of strings")
        object.__setattr__(self, "splits", tuple(self.splits))
        object.__setattr__(self, "special_tokens", tuple(self.special_tokens))
        if self.normalizer not in NORMALIZERS:
            raise ValueError(f"normalizer {self.normalizer!r}: choose one of {', '.join(NORMALIZERS)}")
        if self.engine not in ENGINES:
            raise ValueError(f"engine {self.engine!r}: choose one of {', '.join(ENGINES)}")
        if self.add_prefix_space and not self.byte_level:
            raise ValueError("add_prefix_space applies to byte-level BPE only (char-level splits on white space)")
        if self.bert is not None and (self.byte_level or self.normalizer != "none"):
            raise ValueError("BERT's recipe cuts characters with its own normalizer: use PreTokenizer.bert_recipe()")
        if self.sentencepiece is not None and (self.byte_level or self.normalizer != "none" or self.bert is not None):
            raise ValueError(
                "the SentencePiece recipe cuts characters with its own normalizer: "
                "use PreTokenizer.sentencepiece_recipe()"
            )
        for pattern in self.splits:
            compiled(pattern, self.engine)  # fails early, naming the pattern

    # -- construction ---------------------------------------------------------------------------------------------

    @classmethod
    def from_preset(cls, name: str, **overrides: Any) -> PreTokenizer:
        """The pre-tokenizer of a model family (:data:`PRESETS`); keyword arguments override its fields.

        Raises:
            ValueError: naming the unknown preset and the known ones.
        """
        preset = PRESETS.get(name)
        if preset is None:
            raise ValueError(
                f"unknown pre-tokenizer preset {name!r}; choose one of {', '.join(PRESETS)} "
                "(a regex of your own: PreTokenizer.from_regex)"
            )
        fields: dict[str, Any] = {"splits": preset.splits, "normalizer": preset.normalizer, "engine": preset.engine}
        fields.update({key: value for key, value in overrides.items() if value is not None})
        return cls(**fields)

    @classmethod
    def from_pattern(cls, pattern: str | None = None, *, normalizer: str | None = None, **fields: Any) -> PreTokenizer:
        """A preset's name or a regex (``None``: GPT-2's), as the API's ``pattern=`` takes it; ``normalizer``
        overrides the preset's (a custom regex has none unless given).

        A string that looks like a name (letters, digits, ``-`` and ``_`` only) must be a preset's: a mistyped
        name (``"llama4"``, ``"Llama3"``) would otherwise be a regex that matches nothing but itself. A regex that
        looks like a name is still possible through :meth:`from_regex`.

        Raises:
            ValueError: naming an unknown preset and the known ones.

        >>> PreTokenizer.from_pattern("qwen2").normalizer, PreTokenizer.from_pattern(r"\\w+|\\W").normalizer
        ('nfc', 'none')
        >>> PreTokenizer.from_pattern("llama4")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: unknown pre-tokenizer preset 'llama4'; choose one of gpt2, llama3, ... deepseek-v3 (a regex ...)
        """
        name = pattern or "gpt2"
        if name in PRESETS or looks_like_a_name(name):
            return cls.from_preset(name, normalizer=normalizer, **fields)
        return cls.from_regex(name, normalizer=normalizer, **fields)

    @classmethod
    def from_regex(cls, regex: str, *, normalizer: str | None = None, **fields: Any) -> PreTokenizer:
        """A split of your own: ``regex`` as ``tokenizers``' ``Split(regex, "isolated")``, never read as a preset's
        name; no normalizer unless ``normalizer`` is given.

        >>> PreTokenizer.from_regex("llama3").pre_tokenize("a llama3 b")
        ['a ', 'llama3', ' b']
        """
        return cls(splits=(regex,), normalizer=normalizer or "none", **fields)

    @classmethod
    def char_level(
        cls, *, lowercase: bool = False, special_tokens: Iterable[str] = (), exclude_special_tokens: bool = False
    ) -> PreTokenizer:
        """Char-level BPE (GPT-1 / Sennrich style): words split on white space, no byte mapping.

        >>> PreTokenizer.char_level(lowercase=True).sequence_pieces("Low lower  low")
        ['low', 'lower', 'low']
        """
        return cls(
            splits=(WHITESPACE_SPLIT_PATTERN,),
            normalizer="lowercase" if lowercase else "none",
            byte_level=False,
            special_tokens=tuple(special_tokens),
            exclude_special_tokens=exclude_special_tokens,
        )

    @classmethod
    def bert_recipe(
        cls,
        recipe: BertRecipe | None = None,
        *,
        special_tokens: Iterable[str] = (),
        exclude_special_tokens: bool = False,
    ) -> PreTokenizer:
        """WordPiece's cutting: ``tokenizers``' BertNormalizer and BertPreTokenizer (BERT's settings by default),
        words in their own characters.

        >>> PreTokenizer.bert_recipe().sequence_pieces("Héllo,  WORLD!")
        ['hello', ',', 'world', '!']
        """
        return cls(
            splits=(WHITESPACE_SPLIT_PATTERN,),
            byte_level=False,
            special_tokens=tuple(special_tokens),
            exclude_special_tokens=exclude_special_tokens,
            bert=recipe or BertRecipe(),
        )

    @classmethod
    def sentencepiece_recipe(
        cls,
        recipe: SentencePieceRecipe | None = None,
        *,
        special_tokens: Iterable[str] = (),
        exclude_special_tokens: bool = False,
    ) -> PreTokenizer:
        """Unigram's cutting: ``SentencePieceUnigramTokenizer``'s normalizer (Nmt, NFKC, runs of spaces made one)
        and ``Metaspace`` pre-tokenizer, words in their own characters.

        >>> PreTokenizer.sentencepiece_recipe().sequence_pieces("Héllo,  WORLD!\\n")
        ['▁Héllo,', '▁WORLD!', '▁']
        """
        return cls(
            splits=(WHITESPACE_SPLIT_PATTERN,),
            byte_level=False,
            special_tokens=tuple(special_tokens),
            exclude_special_tokens=exclude_special_tokens,
            sentencepiece=recipe or SentencePieceRecipe(),
        )

    @property
    def preset(self) -> str | None:
        """The preset these splits, normalizer and engine are, if any."""
        for name, preset in PRESETS.items():
            if (preset.splits, preset.normalizer, preset.engine) == (self.splits, self.normalizer, self.engine):
                return name
        return None

    @property
    def gpt2_form(self) -> bool:
        """Whether this is GPT-2's byte-level split, which ``tokenizer.json`` writes as
        ``ByteLevel(use_regex=True)`` and which adds the prefix space once per text, before splitting."""
        return self.byte_level and self.splits == (GPT2_SPLIT_PATTERN,) and self.engine == "tokenizers"

    # -- cutting text -----------------------------------------------------------------------------------------------

    def normalize(self, text: str) -> str:
        """``text`` through the normalizer."""
        if self.bert is not None:
            return self.bert.normalize(text)
        if self.sentencepiece is not None:
            return self.sentencepiece.normalize(text)
        normalize = _NORMALIZE[self.normalizer]
        return text if normalize is None else normalize(text)

    def pre_tokenize(self, text: str) -> list[str]:
        """Cut normalized text without special tokens into pre-tokens (raw text, not yet byte-level spelled).

        The prefix space follows ``tokenizers``' ByteLevel (``!starts_with(' ')``, not any white space): in GPT-2's
        form, ``ByteLevel(use_regex=True)`` adds it once, before splitting; after other splits,
        ``ByteLevel(use_regex=False)`` sits last in a ``Sequence`` and adds it to every piece that does not start
        with a space (``'s`` becomes `` 's``), which is what ``tokenizers`` does with that ``tokenizer.json``.
        """
        if not text:
            return []
        if self.bert is not None:
            return split_words(text)
        if self.sentencepiece is not None:
            return self.sentencepiece.pre_tokenize(text)
        splitters = splitters_of(self.splits, self.engine, self.byte_level)
        if self.gpt2_form:
            if self.add_prefix_space and text[0] != " ":
                text = " " + text
            return splitters[0](text)
        pieces = self._split(text)
        if self.add_prefix_space:
            pieces = [piece if piece[0] == " " else " " + piece for piece in pieces]
        return pieces

    def _split(self, text: str) -> list[str]:
        """``text`` cut by each split in turn (no prefix space)."""
        splitters = splitters_of(self.splits, self.engine, self.byte_level)
        pieces = splitters[0](text)
        for split in splitters[1:]:
            pieces = [part for piece in pieces for part in split(piece)]
        return pieces

    def normalize_with_spans(self, text: str, start: int = 0) -> tuple[str, list[Span]]:
        """``text`` through the normalizer, with the ``(start, end)`` span in ``text`` (shifted by ``start``) each
        output character comes from, as ``tokenizers``' ``NormalizedString`` aligns them (a character a normalizer
        makes several of gives each its span; a composed one takes its starter's).

        >>> PreTokenizer(normalizer="nfc").normalize_with_spans("e\u0301!", 10)
        ('é!', [(10, 11), (12, 13)])
        """
        spans = [(index, index + 1) for index in range(start, start + len(text))]
        if self.normalizer == "none":
            return text, spans
        if self.normalizer in ("nfc", "nfkc"):
            return unicode_aligned("NFKC" if self.normalizer == "nfkc" else "NFC", text, spans)
        if self.normalizer == "lowercase":
            return lowercase_aligned(text, spans)
        raise NotImplementedError(f"no character spans for the {self.normalizer!r} normalizer")

    def pre_tokenize_with_spans(
        self, text: str, spans: list[Span], *, add_prefix_space: bool | None = None
    ) -> list[tuple[str, list[Span]]]:
        """:meth:`pre_tokenize` of byte-level ``text`` (normalized), each pre-token with its characters' spans
        (from :meth:`normalize_with_spans`); a prefix space takes the span of the character it was put before.

        >>> PreTokenizer(add_prefix_space=True).pre_tokenize_with_spans("hi you", [(0, 1), (1, 2), (2, 3),
        ...     (3, 4), (4, 5), (5, 6)])
        [(' hi', [(0, 1), (0, 1), (1, 2)]), (' you', [(2, 3), (3, 4), (4, 5), (5, 6)])]
        """
        if not text:
            return []
        prefix = self.add_prefix_space if add_prefix_space is None else add_prefix_space
        if self.gpt2_form:
            if prefix and text[0] != " ":
                text, spans = " " + text, [spans[0], *spans]
            pieces = splitters_of(self.splits, self.engine, self.byte_level)[0](text)
        else:
            pieces = self._split(text)
        out: list[tuple[str, list[Span]]] = []
        at = 0
        for piece in pieces:
            piece_spans = spans[at : at + len(piece)]
            at += len(piece)
            if prefix and not self.gpt2_form and piece[0] != " ":
                piece, piece_spans = " " + piece, [piece_spans[0], *piece_spans]
            out.append((piece, piece_spans))
        return out

    def sequence_pieces(self, sequence: str) -> list[str]:
        """All pre-tokens of one training sequence (a line of a file, an item of an iterator), as
        ``Tokenizer.train`` cuts it: normalized whole, then pre-tokenized (with ``exclude_special_tokens``, special
        tokens are cut out first and each stretch between them is normalized and pre-tokenized on its own)."""
        special = _special_pattern(self.special_tokens) if self.exclude_special_tokens else None
        if special is None:
            return self.pre_tokenize(self.normalize(sequence))
        stretches = special.split(sequence)[::2]  # the pattern's one group puts each token between two stretches
        return [piece for part in stretches if part for piece in self.pre_tokenize(self.normalize(part))]

    # -- records ----------------------------------------------------------------------------------------------------

    def to_settings(self) -> dict[str, Any]:
        """The JSON-able settings a counts manifest and ``tokenizer_config.json`` record (see :meth:`from_settings`).

        >>> PreTokenizer.from_preset("qwen2").to_settings()["preset"]
        'qwen2'
        """
        settings = dataclasses.asdict(self)
        settings["splits"] = list(self.splits)
        settings["special_tokens"] = list(self.special_tokens)
        settings["preset"] = self.preset
        return settings

    def model_settings(self) -> dict[str, Any]:
        """What a tokenizer directory records in ``tokenizer_config.json``'s ``pre_tokenizer``: the splits,
        normalizer, engine and preset name (the prefix space is recorded beside it, as ``add_prefix_space``).

        >>> PreTokenizer.from_preset("qwen2").model_settings()["normalizer"]
        'nfc'
        """
        settings = self.to_settings()
        return {key: settings[key] for key in ("preset", "splits", "normalizer", "engine")}

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> PreTokenizer:
        """Rebuild from :meth:`to_settings`' output (unknown keys are ignored; counts directories of earlier
        versions, which recorded ``pattern`` and ``lowercase``, load too).

        >>> p = PreTokenizer.from_preset("deepseek-v3", add_prefix_space=True)
        >>> PreTokenizer.from_settings(p.to_settings()) == p
        True
        """
        fields = {f.name: settings[f.name] for f in dataclasses.fields(cls) if f.name in settings}
        if "splits" not in fields and "pattern" in settings:
            fields["splits"] = (settings["pattern"],)
        if "normalizer" not in fields and settings.get("lowercase"):
            fields["normalizer"] = "lowercase"
        fields["splits"] = tuple(fields.get("splits", (GPT2_SPLIT_PATTERN,)))
        if isinstance(fields.get("bert"), Mapping):
            fields["bert"] = BertRecipe(**fields["bert"])
        if isinstance(fields.get("sentencepiece"), Mapping):
            fields["sentencepiece"] = SentencePieceRecipe(**fields["sentencepiece"])
        fields["special_tokens"] = tuple(fields.get("special_tokens", ()))
        return cls(**fields)

    def for_encoding(self) -> PreTokenizer:
        """The same cutting without the training-only special-token settings (encoders match added tokens
        themselves)."""
        return dataclasses.replace(self, special_tokens=(), exclude_special_tokens=False)

    # -- the tokenizer.json form -----------------------------------------------------------------------------------

    def normalizer_twin(self) -> NormalizerSequence:
        """The ``normalizer`` stage this cutting runs, as the twin a ``tokenizer.json`` reads into (no part for
        ``"none"``): what :meth:`normalizer_json` writes.

        >>> PreTokenizer.from_preset("qwen2").normalizer_twin().normalize_str("ﬁ")
        'ﬁ'
        """
        if self.bert is not None:
            return NormalizerSequence((self.bert.normalizer,))
        if self.sentencepiece is not None:
            return self.sentencepiece.normalizer_twin()
        parts = {"none": (), "nfc": (UnicodeForm("NFC"),), "nfkc": (UnicodeForm("NFKC"),), "lowercase": (Lowercase(),)}
        return NormalizerSequence(parts[self.normalizer])

    def pre_tokenizer_twin(self) -> PreTokenizerSequence:
        """The ``pre_tokenizer`` stage this cutting runs, as its twin: ``ByteLevel(add_prefix_space,
        use_regex=True)`` in GPT-2's form, ``Split(p, "Isolated")`` for each pattern then ``ByteLevel(add_prefix_space,
        use_regex=False)`` otherwise, ``WhitespaceSplit`` for char-level (BERT's and SentencePiece's recipes:
        theirs). What :meth:`pre_tokenizer_json` writes.

        >>> [type(step).__name__ for step in PreTokenizer.from_preset("llama3").pre_tokenizer_twin().steps]
        ['Split', 'ByteLevel']
        """
        if self.bert is not None:
            return PreTokenizerSequence((BertPreTokenizer(),))
        if self.sentencepiece is not None:
            recipe = self.sentencepiece
            return PreTokenizerSequence((Metaspace(recipe.replacement, recipe.prepend_scheme, split_pieces=True),))
        if not self.byte_level:
            return PreTokenizerSequence((WhitespaceSplit(),))
        if self.gpt2_form:
            return PreTokenizerSequence((ByteLevel(add_prefix_space=self.add_prefix_space),))
        splits = []
        for pattern in self.splits:
            source = {"Regex": oniguruma_pattern(pattern, self.engine)}
            splits.append(Split(pattern_from_json(source, "pattern"), "Isolated", False, source))
        return PreTokenizerSequence((*splits, ByteLevel(add_prefix_space=self.add_prefix_space, use_regex=False)))

    def normalizer_json(self) -> dict[str, Any] | None:
        """The ``normalizer`` section of ``tokenizer.json`` (None for ``"none"``), as ``tokenizers`` writes it: its
        twin's (:meth:`normalizer_twin`)."""
        return self.normalizer_twin().to_json()

    def pre_tokenizer_json(self) -> dict[str, Any]:
        """The ``pre_tokenizer`` section of ``tokenizer.json``, as ``tokenizers`` writes it: its twin's
        (:meth:`pre_tokenizer_twin`)."""
        return cast("dict[str, Any]", self.pre_tokenizer_twin().to_json())  # every cutting has one part or more

    @classmethod
    def from_tokenizer_json(cls, data: Mapping[str, Any]) -> PreTokenizer:
        """Read the normalizer and pre-tokenizer of a ``tokenizer.json`` (parsed) holding a byte-level BPE.

        Raises:
            ValueError: naming the part this object cannot express.
        """
        normalizer = _normalizer_name(data.get("normalizer"))
        pre = data.get("pre_tokenizer")
        if pre is None:
            raise ValueError("tokenizer.json has no pre_tokenizer; a byte-level BPE needs ByteLevel")
        steps = pre["pretokenizers"] if pre.get("type") == "Sequence" else [pre]
        last = steps[-1]
        if last.get("type") != "ByteLevel":
            raise ValueError(f"tokenizer.json's pre_tokenizer ends with {last.get('type')!r}, not ByteLevel")
        prefix = bool(last.get("add_prefix_space", False))
        splits: list[str] = []
        for step in steps[:-1]:
            pattern = (step.get("pattern") or {}).get("Regex")
            if step.get("type") != "Split" or pattern is None or step.get("behavior") != "Isolated":
                raise ValueError(f"tokenizer.json's pre_tokenizer step {step!r} is not Split(Regex, 'isolated')")
            if step.get("invert"):
                raise ValueError("tokenizer.json's pre_tokenizer has an inverted Split, which hf_bpe does not support")
            splits.append(pattern)
        if last.get("use_regex", True):
            if splits:
                raise ValueError("tokenizer.json's ByteLevel(use_regex=True) after Split steps is not supported")
            splits = [GPT2_SPLIT_PATTERN]
        return cls(splits=tuple(splits), normalizer=normalizer, add_prefix_space=prefix)


def _normalizer_name(normalizer: Mapping[str, Any] | None) -> str:
    if normalizer is None:
        return "none"
    kind = normalizer.get("type")
    if kind == "Sequence" and not normalizer.get("normalizers"):
        return "none"  # an empty Sequence changes nothing (DeepSeek-V2/V3/R1's files have one)
    if kind == "Sequence" and len(normalizer.get("normalizers", [])) == 1:
        return _normalizer_name(normalizer["normalizers"][0])
    names = {"NFC": "nfc", "NFKC": "nfkc", "Lowercase": "lowercase"}
    if kind not in names:
        raise ValueError(f"tokenizer.json's normalizer {kind!r} is not supported (none, NFC, NFKC or Lowercase)")
    return names[kind]


@functools.cache
def _special_pattern(tokens: tuple[str, ...]) -> regex.Pattern[str] | None:
    return whole_tokens_pattern(t for t in tokens if t)


class SplitPattern:
    """One split pattern on its own, with the references' Unicode classes (kept for code written against
    hf_bpe 0.1; :class:`PreTokenizer` is the whole rule).

    Raises:
        ValueError: if the pattern does not compile or can match the empty string.

    >>> SplitPattern().findall("Hello world's  end\\n")
    ['Hello', ' world', "'s", ' ', ' end', '\\n']
    """

    def __init__(self, pattern: str = GPT2_SPLIT_PATTERN) -> None:
        self.pattern = pattern
        self._split = Splitter(*compiled(pattern, "tokenizers"), keep_gaps=False)

    def findall(self, text: str) -> list[str]:
        """The pattern's matches in ``text`` (text between them is dropped, as ``regex.findall`` does)."""
        return self._split(text)

    def __reduce__(self) -> tuple[type[SplitPattern], tuple[str]]:
        return (SplitPattern, (self.pattern,))

    def __repr__(self) -> str:
        return f"SplitPattern({self.pattern!r})"


# -- the twins of tokenizers' pre-tokenizers, with spans ----------------------------------------
# Each writes its JSON back as tokenizers' serde writes it (to_json); pre_tokenizer_from_json reads them.

BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


@dataclasses.dataclass(frozen=True)
class Split:
    """``pre_tokenizers.Split``: cut text around the matches of ``pattern`` (``invert``: around what lies between
    them), the matches ``Removed``, ``Isolated``, ``MergedWithPrevious``, ``MergedWithNext`` or ``Contiguous``.

    Each match is one delimiter: a pattern matching one character makes each character of a run a delimiter of
    its own, as ``tokenizers``' ``char`` and ``Fn(char) -> bool`` patterns do (``Punctuation``, ``Digits``).

    >>> cut = Split(regex.compile("-"), "MergedWithPrevious", False)
    >>> [piece for piece, _ in cut.split("a-b--c", [(i, i + 1) for i in range(6)])]
    ['a-', 'b-', '-', 'c']
    """

    pattern: regex.Pattern[str]
    behavior: str
    invert: bool
    #: The pattern's JSON as read (``{"String": ...}`` or ``{"Regex": ...}``): the compiled pattern is a
    #: translation of the Oniguruma one, not its text.
    source: Mapping[str, str] | None = dataclasses.field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """``Split``'s JSON as ``tokenizers`` writes it."""
        return {
            "type": "Split",
            "pattern": pattern_json(self.pattern, self.source),
            "behavior": self.behavior,
            "invert": self.invert,
        }

    def split(self, text: str, spans: list[Span]) -> list[Spanned]:
        pieces = self._isolated(text)
        if pieces is not None:
            out: list[Spanned] = []
            at = 0
            for piece in pieces:
                end = at + len(piece)
                out.append((piece, spans[at:end]))
                at = end
            return out
        return [(text[start:end], spans[start:end]) for start, end in self._kept(text) if end > start]

    def split_str(self, text: str) -> list[str]:
        """:meth:`split`'s pieces alone; text with no match is one piece, whatever the behavior, unless inverted
        (Gemma-3's ``" "`` after its normalizer made every space ``▁``: one search, no bookkeeping)."""
        pieces = self._isolated(text)
        if pieces is not None:
            return pieces
        if not self.invert and self.pattern.search(text) is None:
            return [text] if text else []
        return [text[start:end] for start, end in self._kept(text) if end > start]

    def _isolated(self, text: str) -> list[str] | None:
        """The pieces of an ``"Isolated"`` regex split (Llama-3's, Qwen's, DeepSeek's: the hot path of their files)
        by the pattern's :class:`~hf_bpe.pipeline._regex.dialect.Splitter`, ``findall`` in C with its ASCII and
        own-class forms, where it has one; None: cut by :meth:`_kept`. An empty match, where ``findall`` and the
        reference's ``find_iter`` part ways (:func:`_rust_matches`), sends the text to :meth:`_kept` too."""
        if self.behavior != "Isolated" or self.invert or self.source is None:
            return None
        splitter = _isolating_splitter(self.source.get("Regex"))
        if splitter is None:
            return None
        pieces = splitter(text)
        return None if "" in pieces else pieces

    def _kept(self, text: str) -> list[tuple[int, int]]:
        marked: list[tuple[int, int, bool]] = []  # (start, end, is a match) over the whole text
        last = 0
        for start, end in _rust_matches(self.pattern, text):
            if start > last:
                marked.append((last, start, self.invert))
            marked.append((start, end, not self.invert))
            last = end
        if last < len(text):
            marked.append((last, len(text), self.invert))
        return _behave(marked, self.behavior)


@functools.cache
def _isolating_splitter(pattern: str | None) -> Splitter | None:
    """The :class:`~hf_bpe.pipeline._regex.dialect.Splitter` of a ``Split`` step's ``{"Regex": pattern}`` (None: a
    string pattern, or one :func:`~hf_bpe.pipeline._regex.dialect.compiled` refuses, such as one that matches the
    empty string where it probes)."""
    if pattern is None:
        return None
    try:
        return Splitter(*compiled(pattern, "tokenizers"), keep_gaps=True)
    except ValueError:
        return None


def _rust_matches(pattern: regex.Pattern[str], text: str) -> Iterator[tuple[int, int]]:
    """The ``(start, end)`` of ``pattern``'s matches in ``text`` as the ``onig`` crate's ``find_iter`` finds them.

    An empty match cuts too (``impl Pattern for &Regex`` marks it), but ``FindMatches::next`` searches again one
    character after it and drops one that ends where the match before it ended: where ``regex``'s ``finditer``
    gives ``a*`` on ``"ab"`` as ``a``, an empty match at 1 and one at 2, the reference has ``a`` and the one at 2.

    >>> list(_rust_matches(regex.compile("a*|b"), "ab"))
    [(0, 1), (2, 2)]
    """
    last_end, last_match = 0, -1
    for match in pattern.finditer(text):  # while the matches are not empty, both engines walk alike
        start, end = match.span()
        if start == end:
            break
        yield start, end
        last_end = last_match = end
    else:
        return
    while last_end <= len(text):
        found = pattern.search(text, last_end)
        if found is None:
            return
        start, end = found.span()
        last_end = end + 1 if start == end else end
        if start == end == last_match:
            continue
        last_match = end
        yield start, end


def _behave(marked: list[tuple[int, int, bool]], behavior: str) -> list[tuple[int, int]]:
    """The pieces ``behavior`` makes of the text's stretches (``(start, end, is a match)``), as
    ``NormalizedString::split`` does."""
    if behavior == "Isolated":
        return [(start, end) for start, end, _ in marked]
    if behavior == "Removed":
        return [(start, end) for start, end, is_match in marked if not is_match]
    pieces: list[list[int]] = []
    previous = False
    if behavior == "MergedWithPrevious":
        for start, end, is_match in marked:
            if is_match and not previous and pieces:
                pieces[-1][1] = end
            else:
                pieces.append([start, end])
            previous = is_match
    elif behavior == "MergedWithNext":
        for start, end, is_match in reversed(marked):
            if is_match and not previous and pieces:
                pieces[-1][0] = start
            else:
                pieces.append([start, end])
            previous = is_match
        pieces.reverse()
    else:  # Contiguous
        for start, end, is_match in marked:
            if is_match == previous and pieces:
                pieces[-1][1] = end
            else:
                pieces.append([start, end])
            previous = is_match
    return [(start, end) for start, end in pieces]


@dataclasses.dataclass(frozen=True)
class PreTokenizerSequence:
    """``pre_tokenizers.Sequence``: each step cuts every piece the steps before it made (none: the text is one
    piece). A step is any twin with ``split(text, spans) -> pieces``.

    ``spans`` are the characters' places in the whole original text, not in the stretch between two added tokens:
    ``Metaspace(prepend_scheme="first")`` reads them to tell the text's first stretch from the others.

    >>> cut = PreTokenizerSequence((WhitespaceSplit(), Metaspace(prepend_scheme="first")))
    >>> cut.pre_tokenize("ab cd", [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)])
    [('▁ab', [(0, 1), (0, 1), (1, 2)]), ('cd', [(3, 4), (4, 5)])]
    """

    steps: tuple[Any, ...]
    #: Where the steps sat in the JSON read (:func:`~hf_bpe.pipeline.normalizers.json_shape`); None: as
    #: ``tokenizers`` writes steps made in code.
    shape: Shape = dataclasses.field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any] | None:
        """The ``pre_tokenizer`` section as ``tokenizers`` writes it (:func:`.normalizers.sequence_json`).

        >>> PreTokenizerSequence((Digits(), FixedLength(3))).to_json()["pretokenizers"][1]
        {'type': 'FixedLength', 'length': 3}
        """
        return sequence_json(self.steps, self.shape, "pretokenizers")

    def pre_tokenize(self, text: str, spans: list[Span]) -> list[Spanned]:
        pieces = [(text, spans)] if text else []
        for step in self.steps:
            pieces = [part for piece, piece_spans in pieces for part in step.split(piece, piece_spans)]
        return pieces

    @property
    def reads_spans(self) -> bool:
        """Whether a step's pieces depend on where the text is (``Metaspace(prepend_scheme="first")``): then only
        :meth:`pre_tokenize` knows, :meth:`pieces_str` does not."""
        return any(isinstance(step, Metaspace) and step.prepend_scheme == "first" for step in self.steps)

    def pre_tokenize_str(self, text: str) -> list[tuple[str, Span]]:
        """``tokenizers``' ``pre_tokenize_str``: each piece of ``text`` with its ``(start, end)`` in ``text``, in
        characters (the text taken as a whole text's start, as the reference takes it).

        >>> PreTokenizerSequence((WhitespaceSplit(), Metaspace())).pre_tokenize_str("ab  cd")
        [('▁ab', (0, 2)), ('▁cd', (4, 6))]
        """
        pieces = self.pre_tokenize(text, [(i, i + 1) for i in range(len(text))])
        return [(piece, (spans[0][0], spans[-1][1]) if spans else (0, 0)) for piece, spans in pieces]

    def pieces_str(self, text: str) -> list[str]:
        """:meth:`pre_tokenize`'s pieces alone, for a caller that wants no offsets, where not
        :attr:`reads_spans`: each step's own ``split_str`` where it has one, else its ``split`` on spans that stand
        for nothing (the other steps carry spans along, they never read them).

        Raises:
            ValueError: where :attr:`reads_spans`.
        """
        if self.reads_spans:
            raise ValueError('Metaspace(prepend_scheme="first") reads where the text is: pre_tokenize it with spans')
        pieces = [text] if text else []
        for step in self.steps:
            fast = getattr(step, "split_str", None)
            if fast is not None:
                pieces = [part for piece in pieces for part in fast(piece)]
            else:
                pieces = [part for piece in pieces for part, _ in step.split(piece, [(0, 0)] * len(piece))]
        return pieces


def _ranges_class(ranges: Iterable[tuple[int, int]]) -> str:
    """A character-set body listing inclusive code-point ``ranges``."""
    return "".join(f"\\U{a:08X}" if a == b else f"\\U{a:08X}-\\U{b:08X}" for a, b in ranges)


@functools.cache
def _char_pattern(name: str) -> regex.Pattern[str]:
    """One character of a class of Rust's ``char`` methods, as ``tokenizers`` 0.23.3 was built with them:
    ``"whitespace"`` (``char::is_whitespace``, a run of it), ``"punctuation"`` (``is_ascii_punctuation`` or the
    ``unicode_categories`` crate's ``is_punctuation``: ``$+<=>^`|~`` count), ``"numeric"`` (``char::is_numeric``)."""
    from hf_bpe.pipeline._tables import bert as tables  # the reference's classes, recorded for every code point

    if name == "whitespace":  # removed wherever it is cut, so a run is cut at once
        return regex.compile(f"[{_ranges_class(tables.WHITESPACE_RANGES)}]+")
    if name == "punctuation":
        return regex.compile(f"[{_ranges_class(tables.PUNCTUATION_RANGES)}]")
    # char::is_numeric is the general categories Nd, Nl and No of Rust's Unicode (17): Oniguruma's \p{N} (an
    # older Unicode) and the digits Unicode 17 added, which the reference splits off and Oniguruma does not know.
    numeric = exact_pattern(r"\p{N}").pattern
    return regex.compile(f"{numeric}|[\\U00011DE0-\\U00011DE9\\U00016FF4-\\U00016FF6]", flags=regex.VERSION1)


@dataclasses.dataclass(frozen=True)
class Metaspace:
    """``pre_tokenizers.Metaspace``: every ``" "`` becomes ``replacement``, one is put before a piece that does not
    start with it (``prepend_scheme``), and the piece is cut before each (``split_pieces``, JSON ``split``).

    ``prepend_scheme="first"`` puts it only before a piece that starts the original text (``spans[0][0] == 0``),
    as ``Metaspace::pre_tokenize`` checks ``offsets_original().0 == 0``: never after an added token, nor after
    characters the normalizer removed. The character put before takes the span of the piece's first character.

    >>> Metaspace().split("Hey  you", [(i, i + 1) for i in range(8)])  # doctest: +NORMALIZE_WHITESPACE
    [('▁Hey', [(0, 1), (0, 1), (1, 2), (2, 3)]), ('▁', [(3, 4)]),
     ('▁you', [(4, 5), (5, 6), (6, 7), (7, 8)])]
    """

    replacement: str = "\u2581"
    prepend_scheme: str = "always"
    split_pieces: bool = True

    def to_json(self) -> dict[str, Any]:
        """``Metaspace``'s JSON as ``tokenizers`` writes it (a legacy ``add_prefix_space`` as its scheme)."""
        return metaspace_json(self.replacement, self.prepend_scheme, self.split_pieces)

    def split(self, text: str, spans: list[Span]) -> list[Spanned]:
        text = text.replace(" ", self.replacement)
        if (
            text
            and not text.startswith(self.replacement)
            and (self.prepend_scheme == "always" or (self.prepend_scheme == "first" and spans[0][0] == 0))
        ):
            text, spans = self.replacement + text, [spans[0], *spans]
        if not self.split_pieces:
            return [(text, spans)] if text else []
        return Split(_literal(self.replacement), "MergedWithNext", False).split(text, spans)

    def split_str(self, text: str) -> list[str]:
        """:meth:`split`'s pieces alone, cut by ``str.split`` in C (each replacement starts a piece, as
        ``MergedWithNext`` merges it with what follows).

        Raises:
            ValueError: for ``prepend_scheme="first"``, which reads where the text is (its spans).
        """
        if self.prepend_scheme == "first":
            raise ValueError('Metaspace(prepend_scheme="first") reads where the text is: split it with spans')
        replacement = self.replacement
        text = text.replace(" ", replacement)
        if text and self.prepend_scheme == "always" and not text.startswith(replacement):
            text = replacement + text
        if not self.split_pieces:
            return [text] if text else []
        first, *rest = text.split(replacement)
        return ([first] if first else []) + [replacement + chunk for chunk in rest]


@functools.cache
def _literal(text: str) -> regex.Pattern[str]:
    return regex.compile(regex.escape(text))


@dataclasses.dataclass(frozen=True)
class ByteLevel:
    """``pre_tokenizers.ByteLevel``: a ``" "`` before each piece that does not start with one
    (``add_prefix_space``), GPT-2's split (``use_regex``), then each character spelled as its UTF-8 bytes in
    GPT-2's byte alphabet, each byte's character with the span of the character it comes from.

    ``trim_offsets`` is the post-processor's business (it trims token offsets): kept only to be written back.

    >>> ByteLevel(add_prefix_space=True).split("hé!", [(0, 1), (1, 2), (2, 3)])
    [('ĠhÃ©', [(0, 1), (0, 1), (1, 2), (1, 2)]), ('!', [(2, 3)])]
    """

    add_prefix_space: bool = True
    use_regex: bool = True
    trim_offsets: bool = dataclasses.field(default=True, compare=False)

    def to_json(self) -> dict[str, Any]:
        """``ByteLevel``'s JSON as ``tokenizers`` writes it."""
        return byte_level_json(
            add_prefix_space=self.add_prefix_space, trim_offsets=self.trim_offsets, use_regex=self.use_regex
        )

    def split_str(self, text: str) -> list[str]:
        """:meth:`split`'s pieces alone, spelled in the byte alphabet."""
        return [to_byte_level(piece) for piece in self.unspelled(text)]

    def unspelled(self, text: str) -> list[str]:
        """:meth:`split`'s pieces before they are spelled in the byte alphabet (the prefix space put, GPT-2's split
        made): the pipeline's span-free path spells only the pieces its cache has not met
        (:meth:`~hf_bpe.pipeline.pipeline.Pipeline.encode`)."""
        if not text:
            return []
        if self.add_prefix_space and text[0] != " ":
            text = " " + text
        return _gpt2_splitter()(text) if self.use_regex else [text]

    def split(self, text: str, spans: list[Span]) -> list[Spanned]:
        if not text:
            return []
        if self.add_prefix_space and not text.startswith(" "):
            text, spans = " " + text, [spans[0], *spans]
        if not self.use_regex:
            return [_spell_bytes(text, spans)]
        # PreTokenizer's own splitter of GPT-2's pattern (the same cut as Split(pattern, "Isolated"), with re's
        # fast path on ASCII text): the hot path of every byte-level file.
        pieces = _gpt2_splitter()(text)
        spelled = to_byte_level(text) if text.isascii() else None  # one byte per character: spelled at once
        out: list[Spanned] = []
        at = 0
        for piece in pieces:
            end = at + len(piece)
            out.append((spelled[at:end], spans[at:end]) if spelled else _spell_bytes(piece, spans[at:end]))
            at = end
        return out


@functools.cache
def _gpt2_splitter() -> Splitter:
    return Splitter(*compiled(GPT2_SPLIT_PATTERN, "tokenizers"), keep_gaps=True)


def _spell_bytes(text: str, spans: list[Span]) -> Spanned:
    """``text`` in the byte alphabet; each byte of a character takes the character's span (``ByteLevel``'s
    ``normalized.transform``, which inserts a character per byte after the first)."""
    spelled = to_byte_level(text)
    if len(spelled) == len(text):  # ASCII: one byte per character
        return spelled, spans
    return spelled, [span for char, span in zip(text, spans, strict=True) for _ in to_byte_level(char)]


@dataclasses.dataclass(frozen=True)
class Whitespace:
    r"""``pre_tokenizers.Whitespace``: the matches of ``\w+|[^\w\s]+``, the rest dropped.

    ``Whitespace::pre_tokenize`` compiles the pattern with Rust's ``regex`` crate, not Oniguruma, so its classes
    are that crate's (tiktoken's engine): ``\w`` has ZWJ and ZWNJ and no superscript digits.

    >>> [piece for piece, _ in Whitespace().split("Hi, you!", [(i, i + 1) for i in range(8)])]
    ['Hi', ',', 'you', '!']
    """

    def to_json(self) -> dict[str, Any]:
        """``Whitespace``'s JSON as ``tokenizers`` writes it: the type alone."""
        return {"type": "Whitespace"}

    def split(self, text: str, spans: list[Span]) -> list[Spanned]:
        return Split(exact_pattern(r"\w+|[^\w\s]+", "tiktoken"), "Removed", True).split(text, spans)


@dataclasses.dataclass(frozen=True)
class WhitespaceSplit:
    """``pre_tokenizers.WhitespaceSplit``: cut on Rust's white space (``char::is_whitespace``), dropped.

    >>> [piece for piece, _ in WhitespaceSplit().split("a b\\u3000c", [(i, i + 1) for i in range(5)])]
    ['a', 'b', 'c']
    """

    def to_json(self) -> dict[str, Any]:
        """``WhitespaceSplit``'s JSON as ``tokenizers`` writes it: the type alone."""
        return {"type": "WhitespaceSplit"}

    def split(self, text: str, spans: list[Span]) -> list[Spanned]:
        return Split(_char_pattern("whitespace"), "Removed", False).split(text, spans)


@dataclasses.dataclass(frozen=True)
class CharDelimiterSplit:
    """``pre_tokenizers.CharDelimiterSplit``: cut on one character, dropped.

    >>> [piece for piece, _ in CharDelimiterSplit("-").split("a--b", [(i, i + 1) for i in range(4)])]
    ['a', 'b']
    """

    delimiter: str

    def to_json(self) -> dict[str, Any]:
        """``CharDelimiterSplit``'s JSON as ``tokenizers`` writes it."""
        return {"type": "CharDelimiterSplit", "delimiter": self.delimiter}

    def split(self, text: str, spans: list[Span]) -> list[Spanned]:
        return Split(_literal(self.delimiter), "Removed", False).split(text, spans)


@dataclasses.dataclass(frozen=True)
class Punctuation:
    """``pre_tokenizers.Punctuation``: each punctuation character (``is_ascii_punctuation`` or a ``P*``
    category) a delimiter, kept as ``behavior`` says.

    >>> [piece for piece, _ in Punctuation().split("a+b?!", [(i, i + 1) for i in range(5)])]
    ['a', '+', 'b', '?', '!']
    """

    behavior: str = "Isolated"

    def to_json(self) -> dict[str, Any]:
        """``Punctuation``'s JSON as ``tokenizers`` writes it."""
        return {"type": "Punctuation", "behavior": self.behavior}

    def split(self, text: str, spans: list[Span]) -> list[Spanned]:
        return Split(_char_pattern("punctuation"), self.behavior, False).split(text, spans)


@dataclasses.dataclass(frozen=True)
class Digits:
    """``pre_tokenizers.Digits``: numbers (``char::is_numeric``: every ``N*`` category) apart from the rest, each
    digit on its own with ``individual_digits``.

    >>> [piece for piece, _ in Digits().split("a12½b", [(i, i + 1) for i in range(5)])]
    ['a', '12½', 'b']
    >>> [piece for piece, _ in Digits(individual_digits=True).split("a12", [(0, 1), (1, 2), (2, 3)])]
    ['a', '1', '2']
    """

    individual_digits: bool = False

    def to_json(self) -> dict[str, Any]:
        """``Digits``'s JSON as ``tokenizers`` writes it."""
        return {"type": "Digits", "individual_digits": self.individual_digits}

    def split(self, text: str, spans: list[Span]) -> list[Spanned]:
        behavior = "Isolated" if self.individual_digits else "Contiguous"
        return Split(_char_pattern("numeric"), behavior, False).split(text, spans)


@dataclasses.dataclass(frozen=True)
class BertPreTokenizer:
    """``pre_tokenizers.BertPreTokenizer``: cut on white space (dropped), then each punctuation character a
    piece of its own (:func:`hf_bpe.pipeline.bert.pre_tokenize`).

    >>> [piece for piece, _ in BertPreTokenizer().split("Hi, you!", [(i, i + 1) for i in range(8)])]
    ['Hi', ',', 'you', '!']
    """

    def to_json(self) -> dict[str, Any]:
        """``BertPreTokenizer``'s JSON as ``tokenizers`` writes it: the type alone."""
        return {"type": "BertPreTokenizer"}

    def split(self, text: str, spans: list[Span]) -> list[Spanned]:
        return [(piece, spans[start:end]) for piece, (start, end) in bert_pre_tokenize(text)]

    def split_str(self, text: str) -> list[str]:
        """:meth:`split`'s pieces alone."""
        return bert_split_words(text)


@dataclasses.dataclass(frozen=True)
class FixedLength:
    """``pre_tokenizers.FixedLength``: pieces of ``length`` characters (the last one shorter).

    >>> [piece for piece, _ in FixedLength(2).split("abcde", [(i, i + 1) for i in range(5)])]
    ['ab', 'cd', 'e']
    """

    length: int = 5

    def to_json(self) -> dict[str, Any]:
        """``FixedLength``'s JSON as ``tokenizers`` writes it."""
        return {"type": "FixedLength", "length": self.length}

    def split(self, text: str, spans: list[Span]) -> list[Spanned]:
        size = self.length
        return [(text[at : at + size], spans[at : at + size]) for at in range(0, len(text), size)]


def pre_tokenizer_from_json(data: Any, path: str = "pre_tokenizer") -> PreTokenizerSequence:
    """The pre-tokenizer a ``tokenizer.json``'s ``pre_tokenizer`` section describes (None: the text is one piece).

    >>> steps = pre_tokenizer_from_json({"type": "Split", "pattern": {"String": "-"}, "behavior": "Removed",
    ...     "invert": False})
    >>> [piece for piece, _ in steps.pre_tokenize("a-b", [(0, 1), (1, 2), (2, 3)])]
    ['a', 'b']

    Raises:
        UnknownComponent: naming the JSON path of a pre-tokenizer or setting not implemented here, or of a value
            the reference refuses to load.
    """
    steps = components_from_json(data, path, "pre-tokenizer", "pretokenizers", _READERS)
    return PreTokenizerSequence(steps, json_shape(data, "pretokenizers"))


def _char_field(data: Mapping[str, Any], key: str, path: str, what: str) -> str:
    """``data[key]``, one character (a Rust ``char``)."""
    value = data.get(key)
    if not isinstance(value, str) or len(value) != 1:
        raise UnknownComponent(f"{path}.{key}", value, f"{what} that is not one character")
    return value


def _behavior_field(data: Mapping[str, Any], path: str, default: Any = MISSING) -> str:
    behavior = data.get("behavior", default)
    if behavior not in BEHAVIORS:
        raise UnknownComponent(f"{path}.behavior", behavior, f"a split behavior other than {', '.join(BEHAVIORS)}")
    return str(behavior)


def _split_from_json(data: Mapping[str, Any], path: str) -> Split:
    behavior = _behavior_field(data, path)
    pattern = pattern_from_json(data.get("pattern"), f"{path}.pattern")
    return Split(pattern, behavior, bool_field(data, "invert", path), pattern_source(data["pattern"]))


PREPEND_SCHEMES = ("always", "first", "never")


def _metaspace_from_json(data: Mapping[str, Any], path: str) -> Metaspace:
    replacement = _char_field(data, "replacement", path, "a replacement")
    scheme = data.get("prepend_scheme", "always")
    if scheme not in PREPEND_SCHEMES:
        raise UnknownComponent(f"{path}.prepend_scheme", scheme, f"a prepend scheme other than {PREPEND_SCHEMES}")
    # Files of tokenizers < 0.19 have add_prefix_space instead; false means "never", and contradicting a
    # prepend_scheme is refused (Metaspace's Deserialize).
    legacy = data.get("add_prefix_space")
    if legacy is not None and not bool_field(data, "add_prefix_space", path) and scheme != "never":
        raise UnknownComponent(f"{path}.add_prefix_space", False, "add_prefix_space false with a prepend_scheme")
    split = data.get("split")
    return Metaspace(replacement, scheme, True if split is None else bool_field(data, "split", path))


def _byte_level_from_json(data: Mapping[str, Any], path: str) -> ByteLevel:
    trim_offsets = bool_field(data, "trim_offsets", path)  # the post-processor's, but required by the reference
    add_prefix_space = bool_field(data, "add_prefix_space", path)
    return ByteLevel(add_prefix_space, bool_field(data, "use_regex", path, True), trim_offsets)


def _fixed_length_from_json(data: Mapping[str, Any], path: str) -> FixedLength:
    length = data.get("length", 5)
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        # FixedLength(0) loads in the reference, then panics on the first text ("chunk size must be non-zero").
        raise UnknownComponent(f"{path}.length", length, "a length that is not a positive whole number")
    return FixedLength(length)


def _refuse_unicode_scripts(data: Mapping[str, Any], path: str) -> Any:
    raise UnknownComponent(
        f"{path}.type", "UnicodeScripts", "the pre-tokenizer 'UnicodeScripts' (it needs the reference's script tables)"
    )


#: How each pre-tokenizer is read from its JSON object (``Sequence`` aside).
_READERS: dict[str, Callable[[Mapping[str, Any], str], Any]] = {
    "Split": _split_from_json,
    "Metaspace": _metaspace_from_json,
    "ByteLevel": _byte_level_from_json,
    "Whitespace": lambda data, path: Whitespace(),
    "WhitespaceSplit": lambda data, path: WhitespaceSplit(),
    "BertPreTokenizer": lambda data, path: BertPreTokenizer(),
    "CharDelimiterSplit": lambda data, path: CharDelimiterSplit(_char_field(data, "delimiter", path, "a delimiter")),
    "Punctuation": lambda data, path: Punctuation(_behavior_field(data, path, "Isolated")),
    "Digits": lambda data, path: Digits(bool_field(data, "individual_digits", path)),
    "FixedLength": _fixed_length_from_json,
    "UnicodeScripts": _refuse_unicode_scripts,
}
