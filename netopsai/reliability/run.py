"""The report for a window over a store: the one call the CLI, the web app, the Slack digest and
the bench share (they differ only in how they show it)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from netopsai.common.timewin import parse_window
from netopsai.config.network import ReliabilitySettings
from netopsai.reliability.compute import build_report, check_by
from netopsai.reliability.model import Report
from netopsai.reliability.reader import read_history
from netopsai.store.inventory import StoreInventory
from netopsai.tools.alarm_cases.topology import Topology


def reliability_report(engine: Engine, window: Any = "30d", by: str = "pod",
                       cfg: ReliabilitySettings | None = None, zone: str = "UTC") -> Report:
    """Checks `by` and the window (one-line NetopsErrors) before reading anything; the window
    ends at the network's clock (the lab's, for the lab)."""
    check_by(by)
    inventory = StoreInventory(engine)
    w = parse_window(window, inventory.clock(), default="30d", zone=zone)
    cfg = cfg or ReliabilitySettings()
    history = read_history(engine, w, cfg.loss_per_5min)
    report = build_report(history, cfg, by, Topology(inventory))
    report.zone = zone  # the window was read in it; the digest and the table say times in it
    return report
