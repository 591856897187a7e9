"""The one place that registers hf_bpe's tokenizer classes with transformers' ``AutoTokenizer``.

transformers v5 resolves ``"tokenizer_class": "BPETokenizer"`` in ``tokenizer_config.json`` through the classes
registered with ``AutoTokenizer.register``, which keys them by a model config class. hf_bpe has no model, so a
small config class, defined beside each tokenizer class, stands in for it. The classes registered are those of
:data:`hf_bpe.transformers.classes.CLASSES`. Without hf_bpe, the same directories load through their
``tokenizer.json`` (the Rust backend), with the same ids.

Training never needs transformers, and importing it takes seconds, so this module imports it only inside its
functions. Importing ``hf_bpe`` calls :func:`register_when_transformers_is_loaded`: it registers at once if
transformers' ``AutoTokenizer`` module is loaded already, and otherwise right after that module first loads,
whichever of ``hf_bpe`` and ``transformers`` the user imports first. Calling :func:`register` again is harmless.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

from hf_bpe.transformers._import import quiet_transformers_import
from hf_bpe.transformers.classes import CLASSES, config_class, tokenizer_class

#: The transformers module that holds ``AutoTokenizer`` and its registry; registering needs it loaded.
TOKENIZATION_AUTO = "transformers.models.auto.tokenization_auto"


def register() -> None:
    """Make ``AutoTokenizer.from_pretrained`` return hf_bpe's classes for the ``tokenizer_class`` names they own.

    Imports transformers (quietly) if it is not loaded yet.
    """
    with quiet_transformers_import():
        from transformers import AutoConfig, AutoTokenizer

        classes = [(config_class(name), tokenizer_class(name)) for name in CLASSES]
    for config, tokenizer in classes:
        AutoConfig.register(config.model_type, config, exist_ok=True)
        AutoTokenizer.register(config, tokenizer_class=tokenizer, exist_ok=True)


def register_when_transformers_is_loaded() -> None:
    """Call :func:`register` now if ``AutoTokenizer``'s module is loaded, else right after it loads.

    The hook is a finder at the front of ``sys.meta_path`` that answers for that one module only; transformers'
    lazy modules import it through the ordinary import system, so ``transformers.AutoTokenizer``,
    ``from transformers import AutoTokenizer`` and ``import transformers.models.auto`` all pass through it.
    """
    if TOKENIZATION_AUTO in sys.modules:
        register()
    elif not any(isinstance(finder, _RegisterAfterImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _RegisterAfterImport())


class _RegisterAfterImport(importlib.abc.MetaPathFinder):
    """Finds ``transformers.models.auto.tokenization_auto`` through the other finders, and has its loader call
    :func:`register` once the module has run; then leaves ``sys.meta_path``.
    """

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in (TOKENIZATION_AUTO, "transformers"):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _RegisteringLoader(spec.loader, self)
                return spec
        return None


class _RegisteringLoader(importlib.abc.Loader):
    """The real loader of ``tokenization_auto``, and :func:`register` right after its module has run."""

    def __init__(self, loader: importlib.abc.Loader, finder: _RegisterAfterImport) -> None:
        self._loader = loader
        self._finder = finder

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        if module.__name__ == "transformers":
            # Its first import advises installing PyTorch, which a tokenizer never needs: the same advice that
            # quiet_transformers_import silences when hf_bpe imports it, silenced when the user does.
            with quiet_transformers_import():
                self._loader.exec_module(module)
        else:
            self._loader.exec_module(module)
        # The module keeps its own loader (tracebacks and inspect read its source through it).
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        if module.__name__ != TOKENIZATION_AUTO:
            return
        if self._finder in sys.meta_path:
            sys.meta_path.remove(self._finder)
        register()

    def __getattr__(self, name: str) -> Any:
        # get_source, get_filename, is_package...: the real loader's.
        return getattr(self._loader, name)
