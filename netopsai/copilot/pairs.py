"""One pair's check (batch checks through the copilot: `Copilot.check_pairs`, and the batch
runner's workers), the copilot's connectivity diagnosis in cheap mode: a traceroute through
the tool; only when it fails (or some equal-cost paths or hops lose traffic) the diagnosis
engine runs on it, exactly as `ask` would (same evidence, same engine, same incident memory),
so a row's cause and device are the copilot's answer for that pair. What stays cheap: tool
requests that many pairs make alike (the open alarms, an address's owner, changes and alarms
on the same devices) are run once per batch and shared."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from netopsai.backends.base import Backends
from netopsai.backends.rows import Hop
from netopsai.copilot.evidence import Evidence, Ledger, facts_of, rows_of
from netopsai.diagnosis.base import Diagnosis
from netopsai.diagnosis.context import normal_args
from netopsai.diagnosis.engine import diagnose
from netopsai.diagnosis.memory import IncidentMemory, default_memory
from netopsai.diagnosis.taxonomy import Taxonomy, load_taxonomy
from netopsai.tools.facts import TraceFacts
from netopsai.tools.registry import run_tool

STOPS = ("!N", "!H", "!X", "!F", "*")


class Pair(Protocol):
    """A pair to check, as the batch's parser reads it (netopsai.copilot.batch.parse.Pair)."""

    @property
    def line(self) -> int: ...
    @property
    def src(self) -> str: ...
    @property
    def dst(self) -> str: ...


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
    status: str = ""  # reachable | degraded | unreachable | error: derived, see __post_init__

    def __post_init__(self) -> None:
        # degraded: delivered, but a fault was found on its paths (some ECMP paths fail, loss)
        self.status = ("error" if self.error else "unreachable" if not self.reachable
                       else "degraded" if self.cause else "reachable")


class _LockedMemory:
    """Incident memory searched by one diagnosis at a time (its index is not thread-safe)."""

    def __init__(self, inner: IncidentMemory) -> None:
        self.inner, self._lock = inner, threading.Lock()

    def search(self, symptoms: str, k: int = 5) -> Any:
        with self._lock:
            return self.inner.search(symptoms, k=k)


class SharedEvidence:
    """The batch's tool results: a request already answered for another pair (same tool, same
    arguments) is served from here, renumbered for the asking pair; failures are not kept."""

    def __init__(self, backends: Backends) -> None:
        self.backends = backends
        self._lock = threading.Lock()
        self._keys: dict[str, threading.Lock] = {}
        self._cache: dict[str, Evidence] = {}
        self._memory: tuple[IncidentMemory | None] | None = None
        self._taxonomy: Taxonomy | None = None
        self.fetched = 0  # tool calls actually run for the diagnoses (the bench reports it)

    def run(self, tool: str, args: dict[str, Any], eid: str) -> Evidence:
        key = tool + repr(sorted(normal_args(tool, args).items()))
        with self._lock:
            key_lock = self._keys.setdefault(key, threading.Lock())
        with key_lock:  # concurrent pairs asking the same wait for the one fetch
            ev = self._cache.get(key)
            if ev is None:
                ev = run_tool(tool, args, self.backends, eid)
                self.fetched += 1
                if not ev.errors:
                    self._cache[key] = ev
        return ev.model_copy(update={"id": eid})

    def memory(self) -> IncidentMemory | None:
        """The copilot's incident memory (None when there is none), opened once per batch."""
        with self._lock:
            if self._memory is None:
                mem = default_memory()
                self._memory = (cast(IncidentMemory, _LockedMemory(mem)) if mem else None,)
            return self._memory[0]

    def taxonomy(self) -> Taxonomy:
        """The taxonomy `ask` loads per question, read once per batch (parsing it was most of
        a diagnosis' time)."""
        with self._lock:
            if self._taxonomy is None:
                self._taxonomy = load_taxonomy()
            return self._taxonomy

    def diagnose(self, ev: Evidence) -> tuple[Diagnosis, list[Evidence]]:
        """The engine on this pair's trace, as the copilot's `diagnose` node runs it."""
        ledger = Ledger.following([ev])

        def run(tool: str, args: dict[str, Any]) -> Evidence:
            return self.run(tool, args, ledger.mint())

        src, dst = ev.args.get("src"), ev.args.get("dst")
        out = diagnose(None, evidence=[ev], run=run, memory=self.memory(),
                       taxonomy=self.taxonomy(), question=f"{src} cannot reach {dst}")
        return out.diagnosis, out.evidence


def trace(backends: Backends, pair: Pair) -> Evidence:
    """The pair's trace, the first evidence of its own ledger (numbered like a turn's: E1); its
    diagnosis, if any, continues that ledger (SharedEvidence.diagnose)."""
    return run_tool("traceroute", {"src": pair.src, "dst": pair.dst}, backends, Ledger().mint())


def needs_diagnosis(ev: Evidence) -> bool:
    """Unreached, or reached while other ECMP members fail or some hop loses probes."""
    f = facts_of(ev, TraceFacts)
    return not f.get("reached") or bool(f.get("failing")) or any(h.get("loss_pct") for h in rows_of(ev, Hop))


def quick_result(pair: Pair, ev: Evidence) -> PairResult:
    """A pair that needs no diagnosis: a tool error or a healthy path."""
    if ev.errors:
        return PairResult(pair.line, pair.src, pair.dst, False, 0, None, None, None, ev.errors[0],
                          [], ev.errors[0])
    f = facts_of(ev, TraceFacts)
    return reached_result(pair, int(f.get("hops") or 0), f.get("good_paths"), f.get("ecmp_paths"), ev.id)


def reached_result(pair: Pair, hops: int, good: object, ecmp: object, trace_id: str) -> PairResult:
    """A healthy pair's row: reached in `hops`, `good` of `ecmp` paths delivering (the batch's
    workers build it from the paths backend's trace too, without the tool's Evidence)."""
    return PairResult(pair.line, pair.src, pair.dst, True, hops, None, None, None,
                      f"reached in {hops} hops; {good} of {ecmp} ECMP paths deliver",
                      [f"traceroute {trace_id}"])


def diagnosed_result(pair: Pair, ev: Evidence, shared: SharedEvidence) -> PairResult:
    f = facts_of(ev, TraceFacts)
    d, used = shared.diagnose(ev)
    at, hop = _failing_at(ev) if d.label != "none" else (None, None)
    reason = "; ".join(x.text for x in d.because[:2]) or f.get("reason") or ""
    # group by the device at fault: a dead ToR's pairs stop at each of its hosts, or upstream
    return PairResult(pair.line, pair.src, pair.dst, bool(f.get("reached")), int(f.get("hops") or 0),
                      hop, d.device or at, None if d.label == "none" else d.label, reason,
                      [f"{e.tool} {e.id}" for e in used if not e.errors], stopped_at=at,
                      interface=d.interface)


def _failing_at(ev: Evidence) -> tuple[str | None, int | None]:
    """(device, hop) where the trace shows the failure: its stop, else the failing ECMP
    member's device, else the first lossy hop."""
    f, rows = facts_of(ev, TraceFacts), rows_of(ev, Hop)
    if not f.get("reached"):
        hop = next((r["hop"] for r in rows if str(r.get("status", "")).startswith(STOPS)), None)
        return f.get("stopped_at"), hop
    failing = f.get("failing")
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
    return diagnosed_result(pair, ev, shared)
