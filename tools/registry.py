"""The tools' table and their runner, where callers have always found them. The table fills
itself on its first read (netopsai.common.registry): importing this module registers nothing and
nobody needs to have imported it first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from netopsai.backends.base import Backends
from netopsai.copilot.evidence import Evidence, Ledger
from netopsai.tools.base import REGISTRY, Tool, run_tool

__all__ = ["REGISTRY", "Tool", "ToolRunner", "run_tool"]


@dataclass
class ToolRunner:
    """One tool call at a time over `backends`, ids from `ledger`: what the diagnosis engine's
    checks call (Toolbox.runner hands one out). It lives with the tools, not the copilot, so the
    diagnosis makes its own without importing the room above it (issue 27 item 6). It carries
    the network's zone (ingest.timezone), the one the diagnosis shows its times in
    (diagnosis/context.py Context.zone)."""
    backends: Backends
    ledger: Ledger

    @property
    def zone(self) -> str:
        return self.backends.zone or "UTC"

    def __call__(self, tool: str, args: dict[str, Any]) -> Evidence:
        return run_tool(tool, args, self.backends, self.ledger.mint())
