"""A running `serve` notices a changed store. The copilot reads the inventory's names once (the
planner's vocabulary: "is dc1-gpu1-004 a device?"), so after `lab init --spec ai`, an inventory
import or a discovery, a server started before would call devices that exist "not in the
inventory" until restarted. The watch reads the store's generation (lab.manage.generation: one
small query of the store's meta table) every few seconds and, when it changed, has the names
read again before the next question: the web app's and the owner's thin `ask` alike, as both
go through the same copilot."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from sqlalchemy import Engine

from netopsai.copilot.service import Copilot
from netopsai.lab.manage import generation

log = logging.getLogger(__name__)
PERIOD_S = 2.0


def forget_names(copilot: Copilot) -> None:
    """The copilot's vocabulary is read again at its next question (Toolbox builds it on use)."""
    copilot.toolbox._vocab = None  # the Toolbox's cache; it has no public way to drop it yet


class StoreWatch:
    """Calls `on_change` (by default: forget the copilot's names) when the store's generation
    changes; `check()` once, or `start()` a daemon thread that checks every `period` s."""

    def __init__(self, copilot: Copilot, engine: Engine, period: float = PERIOD_S,
                 on_change: list[Callable[[], None]] | None = None) -> None:
        self.copilot, self.engine, self.period = copilot, engine, period
        self.on_change = [lambda: forget_names(copilot), *(on_change or [])]
        self.seen = self._read()
        self._stop = threading.Event()

    def _read(self) -> str:
        try:
            return generation(self.engine)
        except Exception:  # a store that cannot be read now: the next check tries again
            log.debug("store generation not read", exc_info=True)
            return ""

    def check(self) -> bool:
        """True when the store changed since the last check (and the names were dropped)."""
        now = self._read()
        if not now or now == self.seen:
            return False
        self.seen = now
        log.info("the store's inventory changed (lab init, import or discovery): names read again")
        for hook in self.on_change:
            hook()
        return True

    def start(self) -> StoreWatch:
        threading.Thread(target=self._run, name="netopsai-store-watch", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self.check()
