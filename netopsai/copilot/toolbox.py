"""What the graph's nodes use to reach the network: the backends, the tool registry and the
inventory vocabulary, with concurrent execution of one step's independent tool calls."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from netopsai.backends.base import Backends
from netopsai.copilot.evidence import Evidence, Ledger
from netopsai.planner import Vocabulary
from netopsai.tools.registry import ToolRunner, run_tool


@dataclass
class Toolbox:
    backends: Backends
    max_workers: int = 8
    _vocab: Vocabulary | None = None

    def vocab(self) -> Vocabulary:
        """Built once: the inventory's names change far less often than questions come."""
        if self._vocab is None:
            b = self.backends  # the events store: devices known only from their logs
            self._vocab = Vocabulary.from_inventory(b.inventory, b.alarms, b.domains)
        return self._vocab

    def clock(self) -> datetime:
        return self.backends.inventory.clock()

    def run(self, calls: Sequence[dict[str, Any]], ledger: Ledger) -> list[Evidence]:
        """Run independent calls concurrently; their ids, from the ledger, follow the calls' order."""
        ids = ledger.reserve(len(calls))

        def one(i: int, call: dict[str, Any]) -> Evidence:
            return run_tool(call["tool"], call.get("args", {}), self.backends, ids[i])

        if len(calls) <= 1:
            return [one(i, c) for i, c in enumerate(calls)]
        with ThreadPoolExecutor(max_workers=min(self.max_workers, len(calls))) as pool:
            return list(pool.map(one, range(len(calls)), calls))

    def runner(self, ledger: Ledger) -> Callable[[str, dict[str, Any]], Evidence]:
        """One call at a time, ids from `ledger`: what the diagnosis engine's checks call."""
        return ToolRunner(self.backends, ledger)

