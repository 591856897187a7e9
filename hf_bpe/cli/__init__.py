"""The ``hf-bpe`` command."""

from hf_bpe.cli.main import main

__all__ = ["main"]
