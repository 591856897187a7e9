"""The one place that registers :class:`hf_bpe.tokenizer.BPETokenizer` with transformers' ``AutoTokenizer``.

transformers v5 resolves ``"tokenizer_class": "BPETokenizer"`` in ``tokenizer_config.json`` through the classes
registered with ``AutoTokenizer.register``, which keys them by a model config class. hf_bpe has no model, so a
small config class stands in for it. Importing ``hf_bpe`` calls :func:`register`; calling it again is harmless.
Without hf_bpe, the same directories load through their ``tokenizer.json`` (the Rust backend), with the same ids.
"""

from __future__ import annotations

from transformers import AutoConfig, AutoTokenizer, PretrainedConfig

from hf_bpe.tokenizer import BPETokenizer


class BPETokenizerConfig(PretrainedConfig):
    """Stands for "a model using hf_bpe's tokenizer" in transformers' registries; it configures nothing."""

    model_type = "hf_bpe"


def register() -> None:
    """Make ``AutoTokenizer.from_pretrained`` return :class:`BPETokenizer` for ``tokenizer_class: BPETokenizer``."""
    AutoConfig.register(BPETokenizerConfig.model_type, BPETokenizerConfig, exist_ok=True)
    AutoTokenizer.register(BPETokenizerConfig, tokenizer_class=BPETokenizer, exist_ok=True)
