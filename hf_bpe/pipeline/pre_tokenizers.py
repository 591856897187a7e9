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

import array
import dataclasses
import functools
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import regex

from hf_bpe.pipeline._regex import disagreements as _regex_disagreements
from hf_bpe.pipeline.bert import BertRecipe, split_words
from hf_bpe.pipeline.normalizers import Span, lowercase_aligned, normalize_aligned, unicode_normalize
from hf_bpe.pipeline.normalizers import lowercase as _lowercase
from hf_bpe.pipeline.sentencepiece import SentencePieceRecipe

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
            _compiled(pattern, self.engine)  # fails early, naming the pattern

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
        splitters = _splitters(self.splits, self.engine, self.byte_level)
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
        splitters = _splitters(self.splits, self.engine, self.byte_level)
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
            return normalize_aligned("NFKC" if self.normalizer == "nfkc" else "NFC", text, spans)
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
            pieces = _splitters(self.splits, self.engine, self.byte_level)[0](text)
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
        return [piece for part in special.split(sequence) if part for piece in self.pre_tokenize(self.normalize(part))]

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

    # -- the tokenizers library's form ------------------------------------------------------------------------------

    def tokenizers_normalizer(self) -> Any:
        """The ``tokenizers`` normalizer (None for ``"none"``)."""
        from tokenizers import normalizers

        if self.bert is not None:
            return normalizers.BertNormalizer(**dataclasses.asdict(self.bert))
        if self.sentencepiece is not None:
            return self.sentencepiece.tokenizers_normalizer()
        return {
            "none": None,
            "nfc": normalizers.NFC(),
            "nfkc": normalizers.NFKC(),
            "lowercase": normalizers.Lowercase(),
        }[self.normalizer]

    def tokenizers_pre_tokenizer(self) -> Any:
        """The ``tokenizers`` pre-tokenizer: ``ByteLevel(add_prefix_space, use_regex=True)`` in GPT-2's form,
        ``Sequence([Split(p, "isolated"), ..., ByteLevel(add_prefix_space, use_regex=False)])`` otherwise, and
        ``WhitespaceSplit()`` for char-level."""
        from tokenizers import Regex, pre_tokenizers

        if self.bert is not None:
            return pre_tokenizers.BertPreTokenizer()
        if self.sentencepiece is not None:
            return self.sentencepiece.tokenizers_pre_tokenizer()
        if not self.byte_level:
            return pre_tokenizers.WhitespaceSplit()
        if self.gpt2_form:
            return pre_tokenizers.ByteLevel(add_prefix_space=self.add_prefix_space, use_regex=True)
        splits = [pre_tokenizers.Split(Regex(oniguruma_pattern(p, self.engine)), "isolated") for p in self.splits]
        return pre_tokenizers.Sequence(
            [*splits, pre_tokenizers.ByteLevel(add_prefix_space=self.add_prefix_space, use_regex=False)]
        )

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


# -- special tokens ---------------------------------------------------------------------------------------------------


def whole_tokens_pattern(tokens: Iterable[str]) -> regex.Pattern[str] | None:
    """A pattern matching any of ``tokens`` whole, the longest where several start at one place (None: no tokens).

    >>> whole_tokens_pattern(["<s>", "<s><s>"]).findall("a<s><s><s>")
    ['<s><s>', '<s>']
    """
    trie: dict[str, Any] = {}
    for token in set(tokens):
        node = trie
        for char in token:
            node = node.setdefault(char, {})
        node[_END] = True
    return regex.compile(_trie_pattern(trie)) if trie else None


#: The key marking where a token ends in :func:`whole_tokens_pattern`'s trie (a key no single character equals).
_END = "end"


def _trie_pattern(node: dict[str, Any]) -> str:
    """The pattern of a trie of tokens: at each branch, the next characters as alternatives, and, where a token
    ends there, the rest optional. Greedy, it matches the longest token at a place, as an alternation of the
    tokens longest first does; but the regex engine follows one branch per character instead of trying every
    token at every position (Gemma's 6,000 added tokens: some 90 times faster)."""
    chain = ""
    while _END not in node and len(node) == 1:  # a run of single characters: no group needed
        char, node = next(iter(node.items()))
        chain += regex.escape(char)
    branches = [regex.escape(char) + _trie_pattern(child) for char, child in sorted(node.items()) if char != _END]
    if not branches:
        return chain
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return chain + (f"(?:{body})?" if _END in node else body)


def split_around(text: str, pattern: regex.Pattern[str] | None) -> Iterator[tuple[int, int, str | None]]:
    """``(start, end, token)`` spans covering ``text``: a whole match of ``pattern`` (``token`` is its text) or
    the non-empty text between matches (``token`` is None).

    >>> list(split_around("a<s>b", whole_tokens_pattern(["<s>"])))
    [(0, 1, None), (1, 4, '<s>'), (4, 5, None)]
    """
    start = 0
    for match in pattern.finditer(text) if pattern is not None else ():
        if match.start() > start:
            yield start, match.start(), None
        yield match.start(), match.end(), match.group()
        start = match.end()
    if start < len(text):
        yield start, len(text), None


# -- patterns: the references' syntax and Unicode ------------------------------------------------------------------


def _code_points(ranges: Iterable[tuple[int, int]]) -> str:
    """All code points of ``ranges`` as one string (built through UTF-32: 20x faster than ``chr`` per point)."""
    points = array.array("I")
    for first, last in ranges:
        points += array.array("I", range(first, last + 1))
    return points.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")


@functools.cache
def _all_code_points() -> str:
    return _code_points([(0, 0xD7FF), (0xE000, 0x10FFFF)])


def _escape_ranges(code_points: Iterable[int]) -> str:
    """A character-class body listing ``code_points`` as ``\\U........`` escapes and ranges."""
    ranges: list[list[int]] = []
    for cp in sorted(code_points):
        if ranges and cp == ranges[-1][1] + 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return "".join(f"\\U{a:08X}" if a == b else f"\\U{a:08X}-\\U{b:08X}" for a, b in ranges)


#: The classes the reference tables cover: ``\p{...}`` names, and ``s``, ``w``, ``d`` for ``\s``, ``\w``, ``\d``.
CLASS_NAMES = ("L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "N", "P", "S", "s", "w", "d")


def _class_escape(name: str) -> str:
    """The escape of class ``name`` (:data:`CLASS_NAMES`): ``\\p{L}``, or ``\\s`` for ``s``."""
    return f"\\{name}" if name in ("s", "w", "d") else rf"\p{{{name}}}"


def _class_name(match: regex.Match[str]) -> str:
    """The class an :data:`_ESCAPE` match names, negation aside (``\\S`` is ``s``, ``\\P{L}`` is ``L``)."""
    return (match.group(4) or "").lower() or match.group(3)


@functools.cache
def _disagreement(name: str, engine: str = "tokenizers") -> tuple[str, frozenset[int], frozenset[int]]:
    """``(own, too_many, too_few)``: the ``regex`` module's own spelling of class ``name`` and the code points it
    has and the reference ``engine``'s class lacks, and the other way round.

    Read from ``_regex_disagreements.py`` when the installed ``regex`` is the version that file was made with
    (computing it takes about a second per class: every code point is classified); computed otherwise.
    """
    own = _class_escape(name)
    if regex.__version__ == _regex_disagreements.REGEX_VERSION:
        stored = _regex_disagreements.DISAGREEMENTS
        too_many, too_few = stored[engine].get(name) or stored["tokenizers"][name]
        return own, frozenset(_range_points(too_many)), frozenset(_range_points(too_few))
    return compute_disagreement(name, engine)


def _range_points(ranges: Iterable[tuple[int, int]]) -> Iterator[int]:
    for first, last in ranges:
        yield from range(first, last + 1)


def compute_disagreement(name: str, engine: str = "tokenizers") -> tuple[str, frozenset[int], frozenset[int]]:
    """:func:`_disagreement` computed in bulk: every code point classified by the installed ``regex`` and
    compared with the reference's table (what ``scripts/generate_regex_disagreements.py`` stores)."""
    from hf_bpe.pipeline._regex import unicode_classes as _unicode_tables  # 100 kB of tables, needed only here

    tables = _unicode_tables.TIKTOKEN_CLASSES if engine == "tiktoken" else {}
    reference = _code_points(tables.get(name) or _unicode_tables.CLASSES[name])
    own = _class_escape(name)
    current = set(regex.findall(own, _all_code_points()))
    wanted = set(reference)
    return own, frozenset(ord(c) for c in current - wanted), frozenset(ord(c) for c in wanted - current)


@functools.cache
def _reference_class(name: str, engine: str = "tokenizers") -> str:
    r"""A ``regex`` set body (VERSION1) matching exactly the class ``name`` of the reference ``engine``.

    It is the ``regex`` module's own property, fast to match, corrected by the code points on which its Unicode
    version and the reference's disagree (characters assigned since; for ``\w``, also the engines' definitions).
    """
    own, too_many, too_few = _disagreement(name, engine)
    body = own
    if too_many:
        body = f"[{own}--[{_escape_ranges(too_many)}]]"
    if too_few:
        body = f"{body}[{_escape_ranges(too_few)}]"
    return body


_ESCAPE = regex.compile(r"\\(?:([pP])\{(\^?)(\w+)\}|([sSwWdD]))")


def _atoms(pattern: str) -> list[tuple[str, str]]:
    """Cut a pattern into top-level ``(kind, text)`` tokens: ``"set"`` ``[...]``, ``"group"`` ``(...)``,
    ``"escape"``, ``"quantifier"``, ``"anchor"`` (unescaped ``^``/``$``), ``"char"``."""
    out: list[tuple[str, str]] = []
    i = 0
    n = len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\":
            match = _ESCAPE.match(pattern, i)
            end = match.end() if match else i + 2
            out.append(("escape", pattern[i:end]))
            i = end
        elif char == "[":
            end = _set_end(pattern, i)
            out.append(("set", pattern[i:end]))
            i = end
        elif char == "(":
            end = _group_end(pattern, i)
            out.append(("group", pattern[i:end]))
            i = end
        elif char == "{" and regex.match(r"\{\d+(?:,\d*)?\}", pattern[i:]):
            end = pattern.index("}", i) + 1
            if end < n and pattern[end] in "+?":
                end += 1
            out.append(("quantifier", pattern[i:end]))
            i = end
        elif char in "*+?":
            end = i + 1
            if end < n and pattern[end] in "+?":
                end += 1
            out.append(("quantifier", pattern[i:end]))
            i = end
        elif char in "^$":
            out.append(("anchor", char))
            i += 1
        else:
            out.append(("char", char))
            i += 1
    return out


def _set_end(pattern: str, start: int) -> int:
    """The index just past the set opening at ``start`` (nested sets and escapes inside it allowed)."""
    return _bracket_end(pattern, start, "[", "]")


def _group_end(pattern: str, start: int) -> int:
    """The index just past the group opening at ``start`` (nested groups, sets and escapes inside it allowed)."""
    return _bracket_end(pattern, start, "(", ")")


def _bracket_end(pattern: str, start: int, opening: str, closing: str) -> int:
    """The index just past the ``opening`` bracket at ``start`` and its nested ones; an escaped character
    counts for nothing, a set inside a group is skipped whole, and a ``]`` right after a set's ``[`` or ``[^`` is
    a literal."""
    depth = 0
    i = start
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "[" and opening == "(":
            i = _set_end(pattern, i)
            continue
        if char == opening:
            depth += 1
            if opening == "[":  # a "]" first in a set is a literal: step onto it, and the loop's step passes it
                i += 1 if pattern.startswith("[]", i) else 2 if pattern.startswith("[^]", i) else 0
        elif char == closing:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    what = "unterminated character set" if opening == "[" else "unbalanced parenthesis"
    raise ValueError(f"{what} at position {start} of {pattern!r}")


def _rewrite(pattern: str, engine: str, target: str, caseless: bool = False) -> str:
    """``pattern``, read as ``engine`` reads it, spelled for ``target``: ``"oniguruma"`` (``tokenizers``' engine),
    ``"python"`` (the ``regex`` module, VERSION1, with the references' Unicode classes), ``"python-own"`` (the
    same with ``regex``'s own classes, which agree with the references' on ASCII) or ``"ascii"`` (for ``re``, on
    ASCII text only: see :func:`_ascii_form`). For Python, capturing groups become non-capturing (``findall``
    must return whole matches). ``caseless``: the pattern is read case-insensitively (``(?i)`` around it)."""
    out: list[str] = []
    python = target != "oniguruma"
    for kind, text in _atoms(pattern):
        inner = _caseless_within(text, caseless) if kind == "group" else caseless
        if kind == "group" and regex.fullmatch(r"\(\?[a-zA-Z-]*\)", text):
            out.append(text)  # inline flags, to the end of the enclosing group in all three engines
            caseless = inner
        elif kind == "group":
            head = regex.match(r"\((?:\?(?:[:=!>]|<[=!]|[a-zA-Z-]*:|P?<\w+>))?", text)
            assert head is not None  # every group starts with "("
            opening = "(?:" if python and head.group() == "(" else head.group()
            out.append(opening + _rewrite(text[head.end() : -1], engine, target, inner) + ")")
        elif kind == "quantifier" and text.startswith("{") and text.endswith("}+") and out:
            # An interval followed by "+": possessive to tiktoken's engine (and to regex), but a greedy interval
            # repeated one or more times to Oniguruma.
            atom = out.pop()
            interval = text[:-1]
            out.append(f"(?>{atom}{interval})" if engine == "tiktoken" else f"(?:{atom}{interval})+")
        elif kind == "anchor":
            if engine == "tiktoken":  # Rust regex: the text's start or end (no multi-line mode)
                out.append(r"\A" if text == "^" else r"\Z" if python else r"\z")
            elif python:  # Oniguruma (Ruby syntax): a line's start or end
                out.append(r"(?:(?<=\n)|\A)" if text == "^" else r"(?=\n|\Z)")
            else:
                out.append(text)
        elif target == "python" and kind in ("escape", "set"):
            out.append(_with_reference_classes(text, engine))
        elif target == "ascii" and kind in ("escape", "set"):
            out.append(_ascii_set(text, engine, caseless))
        elif target == "ascii" and not text.isascii():
            raise _NoAsciiForm(text)
        else:
            out.append(text)
    return "".join(out)


def _with_reference_classes(text: str, engine: str) -> str:
    """An escape or a set with ``\\p{...}``/``\\P{...}``/``\\s``/``\\w``/``\\d`` and their negations replaced by
    ``engine``'s classes."""

    def replace(match: regex.Match[str]) -> str:
        if match.group(4):  # \s, \w, \d or their negations
            name, negated = match.group(4).lower(), match.group(4).isupper()
        else:
            name, negated = match.group(3), (match.group(1) == "P") != bool(match.group(2))
        if name not in CLASS_NAMES:
            return match.group()
        return f"[{'^' if negated else ''}{_reference_class(name, engine)}]"

    return _ESCAPE.sub(replace, text)


def oniguruma_pattern(pattern: str, engine: str = "tokenizers") -> str:
    """``pattern`` as ``tokenizer.json`` must hold it for ``tokenizers`` to cut text as ``engine`` reads it.

    >>> oniguruma_pattern(r"\\p{N}{1,3}+|\\s++$", "tiktoken")
    '(?>\\\\p{N}{1,3})|\\\\s++\\\\z'
    >>> oniguruma_pattern(r"\\p{N}{1,3}+", "tokenizers")
    '\\\\p{N}{1,3}+'
    """
    return pattern if engine == "tokenizers" else _rewrite(pattern, engine, "oniguruma")


@functools.cache
def _compiled(
    pattern: str, engine: str
) -> tuple[regex.Pattern[str], regex.Pattern[str], frozenset[str] | None, re.Pattern[str] | None]:
    """``(plain, exact, guard, ascii)``: ``pattern`` compiled as ``engine`` reads it; ``exact`` with the references'
    classes, ``plain`` with ``regex``'s own (about twice as fast), and ``guard`` the characters on which the two
    disagree (None: they agree on all). ``plain`` cuts any text with none of them (``isdisjoint``: 4x faster
    than a regex search for them) exactly as
    ``exact`` does: ASCII text, and nearly all real text (the disagreements are characters assigned in recent
    Unicode versions and, for ``\\w``, a few the engines define differently). ``ascii`` (see
    :func:`_ascii_form`) cuts ASCII text as ``exact`` does, with the standard library's ``re``: twice as fast
    again on English; None where the pattern has no such form."""
    try:
        plain = regex.compile(_rewrite(pattern, engine, "python-own"), flags=regex.VERSION1)
        exact = regex.compile(_rewrite(pattern, engine, "python"), flags=regex.VERSION1)
    except (regex.error, ValueError) as e:
        raise ValueError(f"split pattern {pattern!r} does not compile: {e}") from e
    if _caseless_class(pattern):
        # Oniguruma folds the case of a class in a set ([\p{Lu}]) but not of a bare one (\p{Lu}); not reproduced.
        raise ValueError(
            f"split pattern {pattern!r} matches a Unicode class case-insensitively, which the engines read "
            "differently; keep (?i: ...) around literals only, as the presets do: (?i:'s|'t|'re)"
        )
    for probe in ("", "a", " ", "1", "!", "a b\n", "\n\n"):
        if any(m.start() == m.end() for m in exact.finditer(probe)):
            raise ValueError(
                f"split pattern {pattern!r} can match the empty string (it does on {probe!r}); "
                "every alternative must consume at least one character"
            )
    return plain, exact, _guard(pattern, engine), _ascii_form(pattern, engine)


class _NoAsciiForm(Exception):
    """Raised inside :func:`_ascii_form` where a pattern's ASCII form could read differently from ``exact``."""


def _ascii_form(pattern: str, engine: str) -> re.Pattern[str] | None:
    """``pattern`` for ASCII text only, compiled by the standard library's ``re`` (twice as fast as ``regex``
    with Unicode classes on English text), or None where that could cut differently.

    Every class escape and every set becomes the set of ASCII characters it matches with the reference's
    classes (asked of the ``exact`` pattern's own spelling, one character at a time), so nothing depends on how
    the two modules read classes. A pattern is left without an ASCII form if it has a non-ASCII literal, a set in
    ``regex``'s own syntax read case-insensitively, or syntax ``re`` does not compile the same (it then raises, or is
    refused here: ``\\X``, ``\\R``, variable lookbehind, possessive quantifiers before Python 3.11)."""
    try:
        return re.compile(_rewrite(pattern, engine, "ascii"), flags=re.ASCII)
    except (_NoAsciiForm, re.error, ValueError):
        return None


def _ascii_set(text: str, engine: str, caseless: bool) -> str:
    """An escape or a set (``text``) as the set of the ASCII characters it matches with ``engine``'s classes.

    Read ``caseless``, it holds no class (:func:`_compiled` refuses those) and is kept as written, for ``re`` to
    fold as ``regex`` does (a set of literals, either module: ``[^a]`` matches neither ``a`` nor ``A``).

    Raises:
        _NoAsciiForm: if it is read ``caseless`` and is a set with ``regex``'s own syntax (nested sets, set
            operations).
    """
    if caseless:
        if regex.search(r".\[|--|&&|\|\||~~", text):
            raise _NoAsciiForm(text)
        return text
    if not regex.fullmatch(r"\\(?:[pPsSwWdD].*|[^a-zA-Z0-9])|\[.*", text, flags=regex.DOTALL):
        return text  # an anchor, a literal letter escape (\\n, \\t) or an assertion, kept for ``re`` to read
    try:
        one = regex.compile(_with_reference_classes(text, engine), flags=regex.VERSION1)
    except regex.error as e:
        raise _NoAsciiForm from e
    members = {code for code in range(128) if one.fullmatch(chr(code))}
    return f"[{_escape_ranges(members)}]" if members else "[^\\x00-\\x7f]"


def _guard(pattern: str, engine: str) -> frozenset[str] | None:
    """Every character whose membership in a class ``pattern`` uses differs between the ``regex``
    module and the reference ``engine`` (classes are never matched case-insensitively: see :func:`_compiled`)."""
    differ: set[int] = set()
    for match in _ESCAPE.finditer(pattern):
        name = _class_name(match)
        if name in CLASS_NAMES:
            _, too_many, too_few = _disagreement(name, engine)
            differ |= too_many | too_few
    return frozenset(map(chr, differ)) if differ else None


_FLAGS = regex.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])")


def _caseless_within(group: str, caseless: bool) -> bool:
    """Whether the inside of ``group`` is read case-insensitively (for bare flags, ``(?i)``, the rest of the
    enclosing group), ``caseless`` saying whether the text around it is.

    >>> _caseless_within("(?i:a)", False), _caseless_within("(?-i:a)", True), _caseless_within("(a)", True)
    (True, False, True)
    """
    flags = _FLAGS.match(group)
    if flags is None:
        return caseless
    return (caseless or "i" in flags.group(1)) and "i" not in (flags.group(2) or "")


def _caseless_class(pattern: str, caseless: bool = False) -> bool:
    """Whether a Unicode class escape of ``pattern`` that holds cased characters (every class but ``\\s`` and
    ``\\d``) is matched case-insensitively (under ``(?i)`` or inside ``(?i:...)``).

    >>> _caseless_class(r"(?i:'s|'t)|\\p{L}+"), _caseless_class(r"(?i)\\p{Lu}"), _caseless_class(r"(?i:[\\p{Lu}x])")
    (False, True, True)
    """
    for kind, text in _atoms(pattern):
        flags = _FLAGS.match(text) if kind == "group" else None
        if flags is not None:
            inner = _caseless_within(text, caseless)
            if flags.group(3) == ")":  # (?i): from here to the end of the enclosing group
                caseless = inner
            elif _caseless_class(text[flags.end() : -1], inner):
                return True
        elif kind == "group":
            head = regex.match(r"\((?:\?(?:[=!>]|<[=!]|P?<\w+>))?", text)
            assert head is not None  # every group starts with "("
            if _caseless_class(text[head.end() : -1], caseless):
                return True
        elif caseless and kind in ("escape", "set"):
            for match in _ESCAPE.finditer(text):
                name = _class_name(match)
                if name in CLASS_NAMES and name not in ("s", "d"):
                    return True
    return False


@functools.cache
def _splitters(splits: tuple[str, ...], engine: str, keep_gaps: bool = True) -> tuple[Any, ...]:
    """The splitters of ``splits``: isolated (``keep_gaps``, byte-level ``Split``s) or keeping only the matches
    (char-level's ``WhitespaceSplit``)."""
    return tuple(_Splitter(*_compiled(pattern, engine), keep_gaps=keep_gaps) for pattern in splits)


class _Splitter:
    """One isolated split: the pattern's matches and the text between them, in order.

    ``findall`` in C is the fast path: ASCII text with the pattern's ASCII form in ``re``, other text with
    ``regex``'s own classes unless it holds a character on which they and the reference's differ. The text
    between matches is only looked for when the matches do not cover the text (every preset's pattern covers
    all text).
    """

    __slots__ = ("_ascii", "_exact", "_guard", "_keep_gaps", "_plain")

    def __init__(
        self,
        plain: regex.Pattern[str],
        exact: regex.Pattern[str],
        guard: frozenset[str] | None = None,
        ascii: re.Pattern[str] | None = None,
        *,
        keep_gaps: bool = True,
    ) -> None:
        self._plain = plain
        self._exact = exact
        self._guard = guard
        self._ascii = ascii
        self._keep_gaps = keep_gaps

    def __call__(self, text: str) -> list[str]:
        guard = self._guard
        pattern: re.Pattern[str] | regex.Pattern[str]
        if text.isascii():
            pattern = self._ascii or self._plain
        else:
            pattern = self._plain if guard is None or guard.isdisjoint(text) else self._exact
        pieces = pattern.findall(text)
        if not self._keep_gaps or sum(map(len, pieces)) == len(text):
            return pieces
        out: list[str] = []
        start = 0
        for match in pattern.finditer(text):
            if match.start() > start:
                out.append(text[start : match.start()])
            out.append(match.group())
            start = match.end()
        if start < len(text):
            out.append(text[start:])
        return out


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
        self._split = _Splitter(*_compiled(pattern, "tokenizers"), keep_gaps=False)

    def findall(self, text: str) -> list[str]:
        """The pattern's matches in ``text`` (text between them is dropped, as ``regex.findall`` does)."""
        return self._split(text)

    def __reduce__(self) -> tuple[type[SplitPattern], tuple[str]]:
        return (SplitPattern, (self.pattern,))

    def __repr__(self) -> str:
        return f"SplitPattern({self.pattern!r})"
