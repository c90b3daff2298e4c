"""The copilot benchmark's settings: lab, seeds, query classes and their targets (shared by the
runner, bench_copilot.py, and its report, copilot_report.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
SCALE = "medium"
LAB_SEED = 7
RNG_SEED = 20251104
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CLI_QUESTION = "who owns 10.1.3.20?"
FAULT_AT = "-25m"
# query class -> (title, target p50 in ms or None); the order is the order they run in.
CLASSES: dict[str, tuple[str, float | None]] = {
    "inventory": ("inventory", 150.0),
    "alarms": ("alarms", 150.0),
    "telemetry": ("telemetry", 150.0),
    "changes": ("changes", None),
    "trace": ("trace", None),
    "diagnosis": ("connectivity diagnosis, healthy lab", 1000.0),
    "analysis": ("analysis with the coder (sandbox)", 1000.0),
    "faulted": ("connectivity diagnosis, fault injected (1st ask after inject)", 1000.0),
}
REPEAT = ("faulted_again", "connectivity diagnosis, fault injected (same question again)", 1000.0)
COLD_TARGET_S = 2.5
TOKEN_TARGET = 6000
NODES = ("planner", "tools", "coder", "diagnose", "summarizer")
