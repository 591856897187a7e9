"""What the commands show while they work: the library's progress bars on standard error (tqdm), on unless
``--no-progress``."""

from __future__ import annotations

from hf_bpe.progress import Bars as Progress

__all__ = ["Progress"]
