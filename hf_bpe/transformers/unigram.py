"""The transformers class for Unigram tokenizers trained by ``hf-bpe train --model unigram``.

:class:`UnigramTokenizer` reads the ``tokenizer.json`` that training writes (a ``Unigram`` model behind
``SentencePieceUnigramTokenizer``'s recipe: ``Nmt``, ``NFKC``, runs of spaces made one, ``Metaspace``) and is
:class:`~hf_bpe.transformers.pipeline.PipelineTokenizer` over it — the file's own pipeline, as for any
``tokenizer.json`` — under the name such directories are saved with, its unknown piece the ``unk_token`` and the
file's special tokens transformers' special tokens.
"""

from __future__ import annotations

from typing import Any

from hf_bpe.transformers._import import quiet_transformers_import
from hf_bpe.transformers.pipeline import PipelineTokenizer

with quiet_transformers_import():
    from transformers import PretrainedConfig


class UnigramTokenizerConfig(PretrainedConfig):
    """Stands for "a model using hf_bpe's Unigram tokenizer" in transformers' registries (see
    :mod:`hf_bpe.transformers.auto`)."""

    model_type = "hf_bpe_unigram"


class UnigramTokenizer(PipelineTokenizer):
    """Unigram (SentencePiece-style) tokenizer for transformers, identical in its ids to ``tokenizers``' model.

    Args:
        tokenizer_file: path to the Unigram ``tokenizer.json``.
        unk_token: the unknown token (the model's own, by default).
        clean_up_tokenization_spaces: off, as the Rust backend has it for these files.
        kwargs: transformers' (special-token roles, ``model_max_length``, ...).

    >>> import tempfile
    >>> from hf_bpe.models.unigram.files import write_unigram_dir
    >>> directory = tempfile.mkdtemp()
    >>> pieces = [("<unk>", 0.0), ("▁", -2.0), ("▁hug", -1.0), ("s", -3.0)]
    >>> _ = write_unigram_dir(directory, pieces, 0, [])
    >>> tok = UnigramTokenizer.from_pretrained(directory)
    >>> tok("hugs")["input_ids"], tok.decode(tok("hugs")["input_ids"]), tok.unk_token
    ([2, 3], 'hugs', '<unk>')
    """

    def _file_roles(self, kwargs: dict[str, Any]) -> None:
        """The model's unknown piece is the ``unk_token`` unless one is given (read from the file already loaded)."""
        model = self.file.pipeline.model
        if kwargs.get("unk_token") is None and getattr(model, "unk_id", None) is not None:
            kwargs["unk_token"] = model.pieces[model.unk_id][0]
