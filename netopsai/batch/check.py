"""One pair's check, the copilot's connectivity diagnosis in cheap mode: a traceroute through
the tool; only when it fails (or some equal-cost paths or hops lose traffic) the alarms and
changes evidence, fetched once for the whole batch and shared, goes to `diagnose`."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from netopsai.backends.base import Backends
from netopsai.batch.parse import Pair
from netopsai.diagnosis.connectivity import diagnose
from netopsai.evidence import Evidence
from netopsai.tools.registry import run_tool

WINDOW = "1h"  # the copilot's diagnosis window (netopsai.nodes.DIAG_WINDOW)
TRACE_ID, ALARMS_ID, CHANGES_ID = "E1", "E2", "E3"  # every pair's evidence, numbered like a turn's
STOPS = ("!N", "!H", "!X", "!F", "*")


@dataclass
class PairResult:
    line: int
    src: str
    dst: str
    reachable: bool
    hops: int
    failing_hop: int | None
    failing_device: str | None  # the device at fault (the diagnosis'), else where the trace fails
    cause: str | None  # a root-cause label (shared/specs/scenario.md); None when healthy
    reason: str
    evidence: list[str] = field(default_factory=list)  # "traceroute E1", "alarms E2" ...
    error: str | None = None
    stopped_at: str | None = None  # where the trace stops (a dead ToR's pairs stop at its hosts)
    interface: str | None = None  # the interface at fault, when the diagnosis names one


class SharedEvidence:
    """The batch's alarms and change records over one window, fetched on first need only."""

    def __init__(self, backends: Backends) -> None:
        self.backends = backends
        self._lock = threading.Lock()
        self._evidence: list[Evidence] | None = None

    def get(self) -> list[Evidence]:
        with self._lock:  # concurrent failing pairs wait for the one fetch
            if self._evidence is None:
                self._evidence = [
                    run_tool("alarms", {"window": WINDOW}, self.backends, ALARMS_ID),
                    run_tool("changelog", {"window": WINDOW}, self.backends, CHANGES_ID)]
            return self._evidence


def trace(backends: Backends, pair: Pair) -> Evidence:
    return run_tool("traceroute", {"src": pair.src, "dst": pair.dst}, backends, TRACE_ID)


def needs_diagnosis(ev: Evidence) -> bool:
    """Unreached, or reached while other ECMP members fail or some hop loses probes."""
    f = ev.facts
    return not f.get("reached") or bool(f.get("failing")) or any(h.get("loss_pct") for h in ev.rows)


def quick_result(pair: Pair, ev: Evidence) -> PairResult:
    """A pair that needs no diagnosis: a tool error or a healthy path."""
    if ev.errors:
        return PairResult(pair.line, pair.src, pair.dst, False, 0, None, None, None, ev.errors[0],
                          [], ev.errors[0])
    f = ev.facts
    return PairResult(pair.line, pair.src, pair.dst, True, int(f.get("hops") or 0), None, None,
                      None, f"reached in {f.get('hops')} hops; {f.get('good_paths')} of "
                      f"{f.get('ecmp_paths')} ECMP paths deliver", [f"traceroute {ev.id}"])


def diagnosed_result(pair: Pair, ev: Evidence, shared: list[Evidence]) -> PairResult:
    f = ev.facts
    d = diagnose([ev, *shared])
    at, hop = _failing_at(ev) if d.label != "none" else (None, None)
    used = [ev, *(e for e in shared if not e.errors)]
    reason = "; ".join(x.text for x in d.because[:2]) or f.get("reason") or ""
    # group by the device at fault: a dead ToR's pairs stop at each of its hosts, or upstream
    return PairResult(pair.line, pair.src, pair.dst, bool(f.get("reached")), int(f.get("hops") or 0),
                      hop, d.device or at, None if d.label == "none" else d.label, reason,
                      [f"{e.tool} {e.id}" for e in used], stopped_at=at, interface=d.interface)


def _failing_at(ev: Evidence) -> tuple[str | None, int | None]:
    """(device, hop) where the trace shows the failure: its stop, else the failing ECMP
    member's device, else the first lossy hop."""
    f, rows = ev.facts, ev.rows
    if not f.get("reached"):
        hop = next((r["hop"] for r in rows if str(r.get("status", "")).startswith(STOPS)), None)
        return f.get("stopped_at"), hop
    failing: dict[str, Any] | None = f.get("failing")
    if failing:
        hop = next((r["hop"] for r in rows if r.get("device") == failing["device"]), None)
        return failing["device"], hop
    lossy = next((r for r in rows if r.get("loss_pct")), None)
    return (lossy.get("device"), lossy["hop"]) if lossy else (None, None)


def check_pair(backends: Backends, shared: SharedEvidence, pair: Pair) -> PairResult:
    """Trace, then diagnose only if the trace shows a problem."""
    ev = trace(backends, pair)
    if ev.errors or not needs_diagnosis(ev):
        return quick_result(pair, ev)
    return diagnosed_result(pair, ev, shared.get())
