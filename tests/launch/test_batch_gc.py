"""`netopsai batch` imports its modules through launch/thin.py's long_lived_setup, as a standalone
ask sets its copilot up: no collection while SQLAlchemy, SQLModel, the tables and the diagnosis are
imported, what they left frozen, and the collector back on for the run — the batch's driver may be
a long-lived process's too, so a collector left off would be a leak (RESULTS "batch-speed-3")."""

from __future__ import annotations

import gc
import sys
import types
import weakref
from pathlib import Path
from typing import Any

import pytest

from netopsai.copilot import frontend
from netopsai.launch import fronts, thin


class Seen:
    """A stand-in for netopsai.batch: notes the collector's state when the command imports
    cli_main from it, and when cli_main runs."""

    def __init__(self) -> None:
        self.at_import: bool | None = None
        self.at_run: bool | None = None
        self.frozen_at_run = 0

    def module(self) -> types.ModuleType:
        seen = self

        class Batch(types.ModuleType):
            @property
            def cli_main(self) -> Any:
                seen.at_import = gc.isenabled()
                return seen.run

        return Batch("netopsai.batch")

    def run(self, *_: Any, **__: Any) -> list[Any]:
        self.at_run = gc.isenabled()
        self.frozen_at_run = gc.get_freeze_count()
        return []


def _batch(monkeypatch: pytest.MonkeyPatch, seen: Seen, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "netopsai.batch", seen.module())
    monkeypatch.setattr(frontend, "store_engine", lambda: None)
    fronts.batch_cmd(tmp_path / "pairs.txt", out=None, as_json=False, resume=False, concurrency=8,
                     source=None, summary=None, engine=fronts.EngineName.local, address=None,
                     record=False)


def test_batch_imports_without_the_collector_and_runs_with_it(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, gc_restored: None) -> None:
    gc.unfreeze()
    gc.enable()
    seen = Seen()
    _batch(monkeypatch, seen, tmp_path)
    assert seen.at_import is False
    assert seen.at_run is True
    assert seen.frozen_at_run > 0  # what the imports left is out of the run's collections
    assert gc.isenabled()
    assert gc.get_threshold()[0] == thin.STARTUP_GC_GEN0


def test_the_collector_still_collects_cycles_after_the_batch(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, gc_restored: None) -> None:
    gc.enable()
    _batch(monkeypatch, Seen(), tmp_path)

    class Node:
        other: Any = None

    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle: only the collector frees it
    gone = weakref.ref(a)
    del a, b
    gc.collect()
    assert gone() is None


def test_a_failed_import_leaves_the_collector_as_it_was(gc_restored: None) -> None:
    gc.enable()
    with pytest.raises(ImportError), thin.long_lived_setup():
        assert not gc.isenabled()
        raise ImportError("no module named sqlmodel")
    assert gc.isenabled()
    gc.disable()  # a process that runs without the collector keeps running without it
    with thin.long_lived_setup():
        pass
    assert not gc.isenabled()
