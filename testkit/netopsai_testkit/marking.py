"""A parser for the parsing workers' tests whose lazy part leaves a file behind, in whichever
process warms it. It lives in the installed kit, not in a test module: the workers are spawned,
and a spawned child imports what it unpickles by name (the suite's `tests` package is not on its
path under pytest's importlib mode)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class MarkingParser:
    mark: str

    def __call__(self, data: bytes, sender: str, received_at: datetime) -> Any:
        raise ValueError("not used")

    def warm(self) -> None:
        Path(self.mark).write_text("warm")
