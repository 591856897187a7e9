"""The one place that registers :class:`hf_bpe.tokenizer.BPETokenizer` with transformers' ``AutoTokenizer``.

transformers v5 resolves ``"tokenizer_class": "BPETokenizer"`` in ``tokenizer_config.json`` through the classes
registered with ``AutoTokenizer.register``, which keys them by a model config class. hf_bpe has no model, so a
small config class stands in for it. Importing ``hf_bpe`` calls :func:`register`; calling it again is harmless.
Without hf_bpe, the same directories load through their ``tokenizer.json`` (the Rust backend), with the same ids.
"""

from __future__ import annotations

from transformers import AutoConfig, AutoTokenizer, PretrainedConfig

from hf_bpe.char_tokenizer import CharBPETokenizer
from hf_bpe.tokenizer import BPETokenizer


class BPETokenizerConfig(PretrainedConfig):
    """Stands for "a model using hf_bpe's tokenizer" in transformers' registries; it configures nothing."""

    model_type = "hf_bpe"


class CharBPETokenizerConfig(PretrainedConfig):
    """The same stand-in for hf_bpe's char-level tokenizer."""

    model_type = "hf_bpe_char"


def register() -> None:
    """Make ``AutoTokenizer.from_pretrained`` return hf_bpe's classes for the ``tokenizer_class`` names they own."""
    AutoConfig.register(BPETokenizerConfig.model_type, BPETokenizerConfig, exist_ok=True)
    AutoTokenizer.register(BPETokenizerConfig, tokenizer_class=BPETokenizer, exist_ok=True)
    AutoConfig.register(CharBPETokenizerConfig.model_type, CharBPETokenizerConfig, exist_ok=True)
    AutoTokenizer.register(CharBPETokenizerConfig, tokenizer_class=CharBPETokenizer, exist_ok=True)
