"""The import paths hf_bpe's modules had before they moved into its packages, kept working in one table.

``from hf_bpe.tokenizer import BPETokenizer`` in a user's script, or a pickle that names ``hf_bpe.trainer``, still
finds its module: importing an old path imports the module's new home and makes the old name another name of the
same module object (so classes, and ``isinstance`` checks, stay one). New code uses the new paths.
"""

from __future__ import annotations

import importlib
import importlib.abc
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

#: Old module path -> where it lives now.
MOVED = {
    "hf_bpe._auto": "hf_bpe.transformers.auto",
    "hf_bpe._lowercase_table": "hf_bpe.pipeline._tables.lowercase",
    "hf_bpe._nfkc_table": "hf_bpe.pipeline._tables.nfkc",
    "hf_bpe._regex_disagreements": "hf_bpe.pipeline._regex.disagreements",
    "hf_bpe._unicode_tables": "hf_bpe.pipeline._regex.unicode_classes",
    "hf_bpe.base_tokenizer": "hf_bpe.models.bpe.continuing",
    "hf_bpe.bpe": "hf_bpe.models.bpe.encoder",
    "hf_bpe.byte_level": "hf_bpe.pipeline.byte_level",
    "hf_bpe.char_tokenizer": "hf_bpe.transformers.char_bpe",
    "hf_bpe.count_files": "hf_bpe.counting.counts_dir",
    "hf_bpe.distributed": "hf_bpe.counting.datatrove",
    "hf_bpe.encoding_rows": "hf_bpe.transformers.rows",
    "hf_bpe.files": "hf_bpe.models.bpe.files",
    "hf_bpe.gpt2": "hf_bpe.reference.gpt2",
    "hf_bpe.models.unigram.recipe": "hf_bpe.pipeline.sentencepiece",
    "hf_bpe.models.unigram.verify": "hf_bpe.reference.unigram_verify",
    "hf_bpe.models.wordpiece._bert_tables": "hf_bpe.pipeline._tables.bert",
    "hf_bpe.models.wordpiece.recipe": "hf_bpe.pipeline.bert",
    "hf_bpe.normalizers": "hf_bpe.pipeline.normalizers",
    "hf_bpe.openai_ranks": "hf_bpe.reference.openai_ranks",
    "hf_bpe.package_index": "hf_bpe.reference.package_index",
    "hf_bpe.pretokenizer": "hf_bpe.pipeline.pre_tokenizers",
    "hf_bpe.sources": "hf_bpe.counting.sources",
    "hf_bpe.tiktoken_files": "hf_bpe.reference.tiktoken_files",
    "hf_bpe.tokenizer": "hf_bpe.transformers.bpe",
    "hf_bpe.trainer": "hf_bpe.models.bpe.trainer",
    "hf_bpe.training": "hf_bpe.models.bpe.training",
    "hf_bpe.unigram_tokenizer": "hf_bpe.transformers.unigram",
    "hf_bpe.verify": "hf_bpe.reference.verify",
    "hf_bpe.wordpiece_tokenizer": "hf_bpe.transformers.wordpiece",
    "hf_bpe.transformers.sentencepiece_bpe": "hf_bpe.transformers.pipeline",
}


class MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers for the old paths in :data:`MOVED` only; every other import goes on to the other finders."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return ModuleSpec(fullname, self)

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        module = importlib.import_module(MOVED[spec.name])
        # The import system is about to give the module the old path's spec; it keeps its own (reload and
        # inspect read it), put back by exec_module.
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = module.__spec__.loader_state if module.__spec__ is not None else None


def install() -> None:
    """Put the finder on ``sys.meta_path`` once (importing ``hf_bpe`` calls it)."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())
