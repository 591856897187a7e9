"""What the commands show while they work: progress bars on standard error (tqdm)."""

from __future__ import annotations

import sys
from typing import Any


class Progress:
    """tqdm bars for the library's ``progress(stage, done, total)`` callbacks: bytes while counting, then merges."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bars: dict[str, Any] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        from tqdm import tqdm

        if stage not in self.bars:
            self.close()
            if stage == "count":
                self.bars[stage] = tqdm(total=total, unit="B", unit_scale=True, desc="counting", file=sys.stderr)
            else:
                self.bars[stage] = tqdm(total=total, unit="merge", desc="merging", file=sys.stderr)
        bar = self.bars[stage]
        bar.update(done - bar.n)

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()
