"""The ``train`` settings: the defaults, the ``--config`` presets (``configs/*.json``) and the command line merged
into one dict, and what the library takes built from it (the pre-tokenizer, the merging options, Unigram's options).

Checking a setting here is checking the command line: every refusal is a :class:`UsageError` (exit 2). The work
itself is the library's.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from hf_bpe.cli.errors import UsageError
from hf_bpe.models.bpe.options import BpeOptions
from hf_bpe.models.wordpiece.options import CONTINUING_SUBWORD_PREFIX, WordPieceOptions
from hf_bpe.models.wordpiece.result import MAX_INPUT_CHARS_PER_WORD

if TYPE_CHECKING:
    from hf_bpe.pipeline.pre_tokenizers import PreTokenizer


def field_defaults(kind: type, *, leave_out: tuple[str, ...] = ()) -> dict[str, Any]:
    """A model's options' defaults, field by field, as the command line and a config file spell them (a list for a
    tuple), so that they are written once: in the dataclass.

    >>> field_defaults(BpeOptions)["min_frequency"], field_defaults(BpeOptions)["special_tokens"]
    (0, [])
    """
    defaults = {field.name: field.default for field in dataclasses.fields(kind) if field.name not in leave_out}
    return {name: list(value) if isinstance(value, tuple) else value for name, value in defaults.items()}


#: Options of ``train`` a config file may set, and their defaults: BpeOptions' fields (BpeTrainer's defaults; its
#: ``char_level`` is the command line's affixes below), then how the text is read and cut, the roles, the model.
TRAIN_DEFAULTS: dict[str, Any] = {
    **field_defaults(BpeOptions, leave_out=("char_level",)),
    "add_prefix_space": False,
    "workers": None,
    "exclude_special_tokens": False,
    "bos_token": None,
    "eos_token": None,
    "unk_token": None,
    "pad_token": None,
    "encoding_errors": "strict",
    "char_level": False,
    "end_of_word_suffix": None,
    "continuing_subword_prefix": None,
    "lowercase": False,
    "pattern": None,
    "regex": None,
    "normalizer": None,
    "model": "bpe",
    "scoring": None,
    "strip_accents": None,
    "clean_text": True,
    "handle_chinese_chars": True,
    "max_input_chars_per_word": None,
}
#: --model wordpiece: BERT's defaults (tokenizers' BertWordPieceTokenizer.train: WordPieceOptions' fields, and
#: BERT's recipe's) where the option is not given.
WORDPIECE_DEFAULTS: dict[str, Any] = {
    **field_defaults(WordPieceOptions),
    "lowercase": True,
    "max_input_chars_per_word": MAX_INPUT_CHARS_PER_WORD,
}
#: A model's options (BpeOptions, WordPieceOptions, UnigramOptions).
Options = TypeVar("Options")
ROLES = ("bos_token", "eos_token", "unk_token", "pad_token")
#: Where ``--config NAME`` finds presets: the clone's ``configs/`` beside the package (a clone, an editable install)
#: and where a wheel installs them (its data files, ``share/hf-bpe/configs``).
CONFIG_DIRS = (Path(__file__).resolve().parents[2] / "configs", Path(sys.prefix) / "share" / "hf-bpe" / "configs")


def preset_names() -> list[str]:
    """The presets ``--config`` knows by name (``configs/*.json``).

    >>> preset_names()
    ['code', 'demo', 'gpt2', 'llama3', 'o200k', 'qwen2']
    """
    return sorted({path.stem for directory in CONFIG_DIRS for path in directory.glob("*.json")})


def _config_file(name: str) -> Path | None:
    """The preset file called ``name``, if one of :data:`CONFIG_DIRS` has it."""
    return next((d / f"{name}.json" for d in CONFIG_DIRS if (d / f"{name}.json").is_file()), None)


def read_config(path: str) -> dict[str, Any]:
    """Read and check a JSON preset for ``train``.

    Raises:
        UsageError: naming the file and the bad key or value.
    """
    file = Path(path)
    if not file.exists():
        file = _config_file(path) or file
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(
            f"--config {path}: no such file, and not a preset name ({', '.join(preset_names())})"
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"--config {path}: cannot read it ({e})") from None
    except json.JSONDecodeError as e:
        raise UsageError(f"--config {path}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    if not isinstance(data, dict):
        raise UsageError(f"--config {path}: expected a JSON object of options")
    config: dict[str, Any] = {}
    for key, value in data.items():
        if key.startswith("_") or key == "description":
            continue  # comments
        name = key.replace("-", "_")
        if name not in TRAIN_DEFAULTS:
            raise UsageError(f"--config {path}: unknown option {key!r}; known: {', '.join(TRAIN_DEFAULTS)}")
        if name == "pattern" and value not in (None, *preset_patterns()):
            raise UsageError(
                f"--config {path}: pattern {value!r} is no preset ({', '.join(preset_patterns())}); "
                "a split of your own is the key 'regex'"
            )
        if not _valid(name, value):
            raise UsageError(f"--config {path}: bad value {value!r} for {key!r}")
        config[name] = value
    if config.get("pattern") and config.get("regex"):
        raise UsageError(f"--config {path}: give 'pattern' (a preset) or 'regex' (your own split), not both")
    return config


def preset_patterns() -> list[str]:
    """The names ``--pattern`` and a config's ``pattern`` take."""
    from hf_bpe.pipeline.pre_tokenizers import PRESETS

    return list(PRESETS)


def _valid(name: str, value: Any) -> bool:
    default = TRAIN_DEFAULTS[name]
    if name == "special_tokens":
        return isinstance(value, list) and all(isinstance(t, str) and t for t in value)
    if name == "vocab_size" and isinstance(value, list):
        return bool(value) and all(_valid(name, size) for size in value)
    if isinstance(default, bool):
        return isinstance(value, bool)
    if name in ROLES:
        return value is None or isinstance(value, str)
    if name == "encoding_errors":
        return value in ("strict", "replace")
    if name in ("end_of_word_suffix", "continuing_subword_prefix", "regex"):
        return value is None or isinstance(value, str)
    if name == "pattern":
        from hf_bpe.pipeline.pre_tokenizers import PRESETS

        return value is None or value in PRESETS
    if name == "normalizer":
        from hf_bpe.pipeline.pre_tokenizers import NORMALIZERS

        return value is None or value in NORMALIZERS
    if name == "model":
        return value in ("bpe", "wordpiece", "unigram")
    if name == "scoring":
        return value in (None, "frequency", "likelihood")
    if name == "strip_accents":
        return value is None or isinstance(value, bool)
    if value is None:
        return default is None
    least = 0 if name in ("min_frequency", "limit_alphabet") else 1
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def settings_of(args: argparse.Namespace) -> dict[str, Any]:
    settings = dict(TRAIN_DEFAULTS)
    given = read_config(args.config) if args.config else {}
    if getattr(args, "pattern", None) or getattr(args, "regex", None):
        # The command line's split replaces the config's, whichever way either gives it.
        given.pop("pattern", None)
        given.pop("regex", None)
    for name in TRAIN_DEFAULTS:
        value = getattr(args, name, None)
        if value is not None:
            given[name] = value
    if given.get("model") == "wordpiece":
        settings.update(WORDPIECE_DEFAULTS)
    settings.update(given)
    # A role token that is not yet a special token becomes one (appended), so that --eos-token alone works.
    tokens = list(settings["special_tokens"])
    for role in ROLES:
        token = settings[role]
        if token is not None and token not in tokens:
            tokens.append(token)
    settings["special_tokens"] = tokens
    for token in tokens:
        if not token:
            raise UsageError(f"special token {token!r}: special tokens must be non-empty strings")
        if tokens.count(token) > 1:
            raise UsageError(f"special token {token!r} is given twice; list each special token once")
    # One size or several (a config may give a list too): the largest is trained, the others read off it.
    sizes = settings["vocab_size"]
    settings["vocab_sizes"] = sorted(set(sizes)) if isinstance(sizes, list) else [sizes]
    settings["vocab_size"] = settings["vocab_sizes"][-1]
    return settings


def char_level_of(settings: dict[str, Any]) -> Any:
    """The CharLevel settings asked for, or None for byte-level training."""
    from hf_bpe.models.bpe.options import CharLevel

    affixes = ("end_of_word_suffix", "continuing_subword_prefix", "lowercase")
    if not settings["char_level"]:
        given = [name for name in affixes if settings[name]]
        if given:
            raise UsageError(f"--{given[0].replace('_', '-')} needs --char-level")
        return None
    suffix = settings["end_of_word_suffix"]
    return CharLevel(
        end_of_word_suffix="</w>" if suffix is None else (suffix or None),
        continuing_subword_prefix=settings["continuing_subword_prefix"] or None,
        lowercase=bool(settings["lowercase"]),
    )


def pre_tokenizer_of(settings: dict[str, Any], options: BpeOptions | None = None) -> PreTokenizer:
    """The BPE pre-tokenizer the settings describe, built once before any work and handed on to what trains (a regex
    that does not compile or an option the kind of BPE does not take is a usage error). Its special tokens and
    char-level cut are the ``options``' (:func:`bpe_options`; the settings' where the command builds none), so that
    the library takes it as handed over (``pre_tokenizer_for`` returns a ready pre-tokenizer whose special tokens
    match, not a copy).

    Raises:
        UsageError: with the library's reason.
    """
    return cut(
        "--regex" if settings["regex"] else "--char-level" if settings["char_level"] else "--pattern",
        pattern=settings["pattern"],
        regex=settings["regex"],
        normalizer=settings["normalizer"],
        add_prefix_space=settings["add_prefix_space"],
        special_tokens=settings["special_tokens"] if options is None else options.special_tokens,
        exclude_special_tokens=settings["exclude_special_tokens"],
        char_level=char_level_of(settings) if options is None else options.char_level,
    )


def cut(option: str, **keywords: Any) -> PreTokenizer:
    """:func:`~hf_bpe.models.bpe.training.pre_tokenizer_for`, its ValueError a usage error naming ``option``."""
    from hf_bpe.models.bpe.training import pre_tokenizer_for

    with usage_errors(option):
        return pre_tokenizer_for(**keywords)


def options_of(kind: type[Options], settings: Mapping[str, Any], **derived: Any) -> Options:
    """A model's options (``BpeOptions``, ``WordPieceOptions``, ``UnigramOptions``) from the settings, field by
    field: each of the dataclass's fields the settings hold, then ``derived`` (what the command line spells
    otherwise, such as ``--char-level``'s affixes). A field the settings do not hold keeps the dataclass's default.
    The one place the command line becomes options; built once per command and handed on.

    Raises:
        UsageError: with the library's reason, in the command line's words.

    >>> options_of(BpeOptions, {"vocab_size": 300, "min_frequency": 2, "pattern": "gpt2"}).min_frequency
    2
    >>> options_of(BpeOptions, {"vocab_size": 0})
    Traceback (most recent call last):
    hf_bpe.cli.errors.UsageError: --vocab-size 0: must be an integer of at least 1
    """
    names = [field.name for field in dataclasses.fields(kind)]  # type: ignore[arg-type]
    fields = {name: settings[name] for name in names if name in settings}
    with usage_errors():
        return kind(**{**fields, **derived})


@contextlib.contextmanager
def usage_errors(option: str | None = None) -> Iterator[None]:
    """Where the library's refusals (ValueError, TypeError) of what the command line asked become usage errors:
    prefixed with ``option``, or spelled as the command line's option when the message starts ``name=``
    (``vocab_size=0: ...`` becomes ``--vocab-size 0: ...``).

    >>> with usage_errors("--regex"):
    ...     raise ValueError("bad pattern")
    Traceback (most recent call last):
    hf_bpe.cli.errors.UsageError: --regex: bad pattern
    """
    try:
        yield
    except (TypeError, ValueError) as e:
        message = str(e)
        name, equals, rest = message.partition("=")
        if option is not None:
            message = f"{option}: {message}"
        elif equals and name.isidentifier() and name.islower():
            message = f"--{name.replace('_', '-')} {rest}"
        raise UsageError(message) from None


def bpe_options(settings: dict[str, Any]) -> BpeOptions:
    """The :class:`~hf_bpe.models.bpe.options.BpeOptions` the settings ask for (the rest are about reading and
    cutting the text), built once per command.

    Raises:
        UsageError: with the library's reason, in the command line's words.
    """
    return options_of(BpeOptions, settings, char_level=char_level_of(settings))


def wordpiece_options(settings: dict[str, Any]) -> WordPieceOptions:
    """The :class:`~hf_bpe.models.wordpiece.options.WordPieceOptions` the settings ask for.

    Raises:
        UsageError: with the library's reason, in the command line's words.
    """
    prefix = settings["continuing_subword_prefix"] or CONTINUING_SUBWORD_PREFIX
    return options_of(WordPieceOptions, settings, continuing_subword_prefix=prefix)


def refuse_bpe_only(given: Mapping[str, Any], names: Sequence[str], model: str) -> None:
    """Refuse, naming the first, each of the BPE-only options ``names`` that ``given`` (the command line or the
    merged settings) sets: ``--model MODEL`` does not take it."""
    for name in names:
        if given.get(name):
            raise UsageError(f"--{name.replace('_', '-')} is a BPE option; --model {model} does not take it")


def unigram_options(args: argparse.Namespace, settings: dict[str, Any]) -> Any:
    """The Unigram trainer's options from the command line (BPE-only options refused by name); what is not given
    keeps ``UnigramOptions``' default (its ``vocab_size`` too: BPE's default is not Unigram's)."""
    from hf_bpe.models.unigram.options import UnigramOptions

    bpe_only = ("min_frequency", "max_token_length", "limit_alphabet", "char_level", "add_prefix_space")
    refuse_bpe_only(vars(args), (*bpe_only, "pattern", "regex", "normalizer"), "unigram")
    if len(settings["vocab_sizes"]) > 1:
        raise UsageError("--model unigram trains one --vocab-size at a time (its pruning depends on the size)")
    given = args.vocab_size is not None or (args.config and "vocab_size" in read_config(args.config))
    unk = settings["unk_token"]
    specials = settings["special_tokens"]
    if unk and unk not in (args.special_tokens or []):
        specials = [token for token in specials if token != unk]  # added for its role: Unigram puts it first
    fields = {
        "vocab_size": settings["vocab_size"] if given else None,
        "special_tokens": tuple(specials),
        "unk_token": unk,
        "shrinking_factor": args.shrinking_factor,
        "max_piece_length": args.max_piece_length,
        "n_sub_iterations": args.n_sub_iterations,
    }
    return options_of(UnigramOptions, {name: value for name, value in fields.items() if value is not None})
