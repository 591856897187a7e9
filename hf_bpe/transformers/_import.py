"""Importing transformers quietly: a leaf module, imported by every class here and by :mod:`.auto`.

transformers advises installing PyTorch on its first import; hf_bpe needs no models, so the advice would only be
noise on every ``hf-bpe`` run.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

_NO_ADVISORY = "TRANSFORMERS_NO_ADVISORY_WARNINGS"


@contextlib.contextmanager
def quiet_transformers_import() -> Iterator[None]:
    """Silence transformers' advisories (``PyTorch was not found...``) while hf_bpe imports transformers.

    transformers gives that advice on its first import; hf_bpe needs no models, so it would only be noise on every
    ``hf-bpe`` run. The user's own setting of the variable, if any, is back as it was afterwards.
    """
    previous = os.environ.get(_NO_ADVISORY)
    os.environ[_NO_ADVISORY] = "1"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(_NO_ADVISORY, None)
        else:
            os.environ[_NO_ADVISORY] = previous
