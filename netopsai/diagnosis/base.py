"""The diagnosis engine's records: a check's Verdict, a visible Step of the search, and the
Diagnosis it ends with (what the summarizer renders and `ask --json` reports)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from netopsai.backends.rows import AlarmRecord

Status = Literal["confirmed", "rejected", "unknown"]
CONFIRMED: Status = "confirmed"
REJECTED: Status = "rejected"
UNKNOWN: Status = "unknown"


class RuledOut(TypedDict):
    """A hypothesis the search ruled out, and the evidence that did (its check's verdict)."""

    label: str
    text: str
    cites: list[str]
    check: str


class Ticket(TypedDict):
    """An escalation draft for an inconclusive diagnosis (ticket.py): for a human and a system."""

    markdown: str
    json: str


@dataclass
class Finding:
    text: str
    cites: list[str]


@dataclass
class Verdict:
    """What one check decided, the evidence that decided it, and where the fault is.
    `position` says how close the located fault is to the flow (4: where the trace stops,
    3: on the traced path or an endpoint, 2: on an equal-cost path, 1: next to the flow)."""

    status: Status
    text: str
    cites: list[str] = field(default_factory=list)
    device: str | None = None
    interface: str | None = None
    peer: str | None = None
    confidence: float = 0.0
    position: int = 0
    label: str = ""  # set by the engine: the taxonomy leaf the check verified
    check: str = ""

    @property
    def confirmed(self) -> bool:
        return self.status == CONFIRMED


def confirmed(text: str, cites: list[str], device: str | None, interface: str | None = None,
              confidence: float = 0.85, peer: str | None = None, position: int = 0) -> Verdict:
    return Verdict(CONFIRMED, text, cites, device, interface, peer, confidence, position)


def rejected(text: str, cites: list[str], device: str | None = None) -> Verdict:
    return Verdict(REJECTED, text, cites, device)


def unknown(text: str, cites: list[str] | None = None) -> Verdict:
    return Verdict(UNKNOWN, text, cites or [])


@dataclass
class Step:
    """One visible move of the search: a history match, a ranking, a check, a prune."""

    tier: str  # history | search | explore
    action: str  # recall | rank | check | prune | backtrack | conclude
    node: str
    text: str
    status: str = ""
    cites: list[str] = field(default_factory=list)


@dataclass
class Diagnosis:
    label: str
    device: str | None = None
    interface: str | None = None
    confidence: float = 0.0
    because: list[Finding] = field(default_factory=list)
    clean: list[Finding] = field(default_factory=list)
    reference: list[AlarmRecord] = field(default_factory=list)  # closed alarms, for context
    secondary: list[Finding] = field(default_factory=list)  # other confirmed faults / effects
    ruled_out: list[RuledOut] = field(default_factory=list)
    next_steps: list[str] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    ticket: Ticket | None = None  # an escalation draft when inconclusive
    tier: str = ""
    symptoms: str = ""  # the symptom text incident memory indexes
    checks_run: int = 0
    tool_calls: int = 0
    llm_calls: int = 0
    tokens: dict[str, int] = field(default_factory=lambda: {"prompt": 0, "completion": 0})
    scope: str | None = None  # the device a device diagnosis is about (None: a flow's)
    impact: Finding | None = None  # how much traffic it hurts (headline.impact)
    since: Finding | None = None  # when it started, as far as the evidence shows
    answer: Finding | None = None  # the question's own answer first: "Reachable: no — ..."
    still: Finding | None = None  # "is it still happening?": yes/no, the last occurrence
    windows: Finding | None = None  # the windows the diagnosis read, each cited
    relation: str = "cause"  # cause | nearby: a break the flow's paths route around | past: over

    def root_cause(self) -> dict[str, Any]:
        return {"label": self.label, "device": self.device, "interface": self.interface,
                "confidence": self.confidence}

    @property
    def citations(self) -> list[str]:
        heads = [f for f in (self.still, self.answer, self.impact, self.since, self.windows) if f]
        ids = [c for f in (*heads, *self.because, *self.secondary, *self.clean) for c in f.cites]
        ids += [c for r in self.ruled_out for c in r.get("cites", [])]
        return list(dict.fromkeys(ids))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Diagnosis:
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        for key in ("because", "clean", "secondary"):
            known[key] = [Finding(**x) for x in d.get(key) or []]
        for key in ("impact", "since", "answer", "still", "windows"):
            known[key] = Finding(**d[key]) if d.get(key) else None
        return cls(**known)
