"""The references' trainers, set up as hf_bpe's options ask: one place for ``hf-bpe verify`` and the tests.

hf_bpe is compared with ``tokenizers`` trained with the same options; the options are hf_bpe's
(:class:`~hf_bpe.models.bpe.options.BpeOptions`, :class:`~hf_bpe.models.wordpiece.options.WordPieceOptions`,
:class:`~hf_bpe.models.unigram.trainer.UnigramOptions`) and here become the reference's trainer and model. How the
reference cuts text is the caller's: the tests spell its normalizer and pre-tokenizer by hand, independently of
hf_bpe's, and ``verify`` takes them from the tokenizer files hf_bpe would write. ``tokenizers`` is imported when a
function is called.
"""

from __future__ import annotations

from typing import Any

from hf_bpe.models.bpe.options import BpeOptions
from hf_bpe.models.unigram.options import UnigramOptions
from hf_bpe.models.wordpiece.options import WordPieceOptions
from hf_bpe.pipeline.bert import BertRecipe
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
from hf_bpe.pipeline.tokenizer_json import dumps, tokenizer_document


def _affixes(options: BpeOptions) -> dict[str, Any]:
    """Char-level BPE's affixes as the reference's model and trainer take them (none for byte-level)."""
    char_level = options.char_level
    if char_level is None:
        return {}
    given = {
        "end_of_word_suffix": char_level.end_of_word_suffix,
        "continuing_subword_prefix": char_level.continuing_subword_prefix,
    }
    return {name: value for name, value in given.items() if value}


def bpe_trainer(options: BpeOptions | None = None, *, show_progress: bool = False, **keywords: Any) -> Any:
    """``BpeTrainer`` with ``options`` (or its fields as keywords): byte-level with the 256 byte characters as
    initial alphabet, char-level with its affixes and no initial alphabet.

    >>> bpe_trainer(vocab_size=300).vocab_size
    300
    """
    from tokenizers import pre_tokenizers, trainers

    options = BpeOptions.of(options, keywords, "bpe_trainer")
    optional: dict[str, Any] = {"max_token_length": options.max_token_length, "limit_alphabet": options.limit_alphabet}
    return trainers.BpeTrainer(
        vocab_size=options.vocab_size,
        min_frequency=options.min_frequency,
        special_tokens=list(options.special_tokens),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet() if options.char_level is None else [],
        show_progress=show_progress,
        **{name: value for name, value in optional.items() if value is not None},
        **_affixes(options),
    )


def bpe_tokenizer(options: BpeOptions | None = None, *, pre_tokenizer: Any = None, normalizer: Any = None) -> Any:
    """An empty ``Tokenizer(BPE(...))`` for ``options``, cutting text with ``pre_tokenizer`` and ``normalizer``
    (default: byte-level BPE's ``ByteLevel(add_prefix_space=False)``; char-level BPE's ``WhitespaceSplit``, and
    ``Lowercase`` when it lowercases)."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    options = options or BpeOptions()
    tokenizer = Tokenizer(models.BPE(**_affixes(options)))
    if options.char_level is None:
        tokenizer.pre_tokenizer = pre_tokenizer or pre_tokenizers.ByteLevel(add_prefix_space=False)
    else:
        tokenizer.pre_tokenizer = pre_tokenizer or pre_tokenizers.WhitespaceSplit()
        if normalizer is None and options.char_level.lowercase:
            normalizer = normalizers.Lowercase()
    if normalizer is not None:
        tokenizer.normalizer = normalizer
    return tokenizer


def reference_cut(pre_tokenizer: PreTokenizer) -> tuple[Any, Any]:
    """The ``tokenizers`` normalizer (None where there is none) and pre-tokenizer that the ``tokenizer.json`` hf_bpe
    writes for ``pre_tokenizer`` holds, as ``tokenizers`` reads them from that file's sections."""
    from tokenizers import Tokenizer

    document = tokenizer_document(
        {"type": "BPE", "vocab": {}, "merges": []},
        normalizer=pre_tokenizer.normalizer_json(),
        pre_tokenizer=pre_tokenizer.pre_tokenizer_json(),
    )
    tokenizer = Tokenizer.from_str(dumps(document))
    return tokenizer.normalizer, tokenizer.pre_tokenizer


def wordpiece_reference(
    options: WordPieceOptions | None = None, recipe: BertRecipe | None = None, *, show_progress: bool = False
) -> tuple[Any, Any]:
    """``tokenizers``' WordPiece behind BertWordPieceTokenizer's recipe, and its ``WordPieceTrainer``, for
    ``options`` (BERT's defaults) and ``recipe`` (BERT's, lowercasing)."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    options = options or WordPieceOptions()
    recipe = recipe or BertRecipe()
    tokenizer = Tokenizer(models.WordPiece(unk_token=options.unk_token))
    tokenizer.normalizer = normalizers.BertNormalizer(
        clean_text=recipe.clean_text,
        handle_chinese_chars=recipe.handle_chinese_chars,
        strip_accents=recipe.strip_accents,
        lowercase=recipe.lowercase,
    )
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(
        vocab_size=options.vocab_size,
        min_frequency=options.min_frequency,
        limit_alphabet=options.limit_alphabet,
        special_tokens=list(options.special_tokens),
        continuing_subword_prefix=options.continuing_subword_prefix,
        show_progress=show_progress,
    )
    return tokenizer, trainer


def unigram_reference(options: UnigramOptions, *, show_progress: bool = False) -> tuple[Any, Any]:
    """``tokenizers``' Unigram behind SentencePieceUnigramTokenizer's recipe (normalizers Nmt, NFKC, runs of spaces
    made one; Metaspace with ``▁``), and its ``UnigramTrainer`` for ``options``."""
    from tokenizers import Regex, Tokenizer, normalizers, pre_tokenizers, trainers
    from tokenizers.models import Unigram

    tokenizer = Tokenizer(Unigram())
    tokenizer.normalizer = normalizers.Sequence(
        [normalizers.Nmt(), normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")]
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    trainer = trainers.UnigramTrainer(
        vocab_size=options.vocab_size,
        special_tokens=list(options.special_tokens),
        unk_token=options.unk_token,
        shrinking_factor=options.shrinking_factor,
        max_piece_length=options.max_piece_length,
        n_sub_iterations=options.n_sub_iterations,
        show_progress=show_progress,
    )
    return tokenizer, trainer
