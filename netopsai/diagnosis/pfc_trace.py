"""Where PFC pauses come from, and since when (issue 15 §2): reads for the job diagnosis
(job_rules.py) and the Since of a storm (headline.py, job_rules.py).

How pauses travel: a port sends PAUSE when its receive buffer for the lossless priority fills
(a stuck NIC receive pipeline fills it for good). Its peer stops sending on that priority, so
the peer's queues toward it fill from the peer's *other* ingress ports, and the peer pauses
those in turn: the pauses go against the traffic, hop by hop, one switch further from the
origin each time, and each hop's counts are smaller (a switch pauses an ingress port only for
the share of its traffic bound for the stalled egress, and its buffers absorb some). So from a
port that receives pauses, the origin is found by walking to the sender (the link's far end),
then to that switch's port receiving the most pauses, and so on, while the pauses received keep
at least matching those sent; the device whose paused port sends more than any of its ports
receives started them. Bounded: MAX_HOPS hops, two reads each.

The Since of a storm: the PFC watchdog alarm raised on the port facing the storming one (the
switch's watchdog sees the storm a host NIC sends, the host raises nothing), else the first
5-minute sample where the port's pauses reached the storm threshold, found by a few reads of
shorter windows (a guess from the row's figures, then halving), each cited."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, cast

from netopsai.backends.rows import AlarmRecord, Neighbor, PortCounters
from netopsai.common.localtime import at, is_utc, stamp, tz_of
from netopsai.common.timewin import as_utc, iso
from netopsai.copilot.evidence import Evidence, rows_of

Call = Callable[[str, dict[str, Any]], Evidence]
MAX_HOPS = 4  # a rail fabric is leaf-spine-leaf: any port is 3 hops from any other
MAX_PROBES = 8  # reads to place a storm's first sample (2 when the storm holds its rate)
STEP = timedelta(minutes=5)
WATCHDOG = "PFC_WATCHDOG"


def far_end(call: Call, device: str, port: str) -> tuple[tuple[str, str] | None, list[str]]:
    """The device and port across (device, port)'s link, from the inventory's neighbours."""
    ev = call("metadata", {"query": "neighbors", "name": device})
    row = None if ev.errors else next((r for r in rows_of(ev, Neighbor) if r["interface"] == port), None)
    cites = [ev.id] if ev.id and not ev.errors else []
    if row is None or not row.get("neighbor"):
        return None, cites
    return (str(row["neighbor"]), str(row.get("neighbor_interface") or "")), cites


def watchdog_facing(alarms: list[tuple[str, AlarmRecord]], device: str, port: str,
                    facing: tuple[str, str] | None) -> tuple[str, AlarmRecord] | None:
    """The earliest PFC watchdog alarm raised on the port facing (device, port), else on that
    port itself: (its evidence id, the alarm)."""
    ends = [e for e in (facing, (device, port)) if e]
    for dev, ifn in ends:
        found = sorted(((eid, a) for eid, a in alarms if a.get("kind") == WATCHDOG
                        and a.get("device") == dev and a.get("interface") in (ifn, None)),
                       key=lambda x: str(x[1].get("raised_at")))
        if found:
            return found[0]
    return None


def _t(text: str) -> datetime:
    return as_utc(datetime.fromisoformat(str(text).replace("Z", "+00:00")))


def _marks(start: datetime, end: datetime) -> list[datetime]:
    """The 5-minute sample times in (start, end] (a sample covers the 5 minutes before it)."""
    first = start - timedelta(minutes=start.minute % 5, seconds=start.second,
                              microseconds=start.microsecond) + STEP
    n = int((end - first) / STEP) + 1 if end >= first else 0
    return [first + i * STEP for i in range(n)]


def first_over(call: Call, device: str, port: str, window: dict[str, Any] | None,
               threshold: float, row: PortCounters,
               row_cites: list[str], zone: str = "UTC") -> tuple[str, list[str]] | None:
    """(text, cites): the first 5-minute sample of the window in which the port's pauses reached
    `threshold`; None when it cannot be placed. `row`: the port's figures over the whole window
    (from the evidence `row_cites`); `zone`: the network's, the times said are in it."""
    if not window or not window.get("start") or not window.get("end"):
        return None
    start, end = _t(window["start"]), _t(window["end"])
    marks = _marks(start, end)
    if not marks or (row.get("max_per_5min") or 0) < threshold:
        return None
    steady = round((row.get("total") or 0) / max(row.get("max_per_5min") or 1, 1))
    guess = max(len(marks) - max(steady, 1), 0)  # a storm holding its rate to the window's end
    lo, hi, probes = 0, len(marks) - 1, [guess, guess - 1]
    seen: dict[int, Evidence] = {}
    while lo < hi and len(seen) < MAX_PROBES:
        i = probes.pop(0) if probes else (lo + hi) // 2
        if not lo <= i <= hi or i in seen:
            continue
        ev = call("telemetry", {"metric": "pfc", "devices": [device], "interface": port,
                                "window": {"start": iso(start), "end": iso(marks[i])}, "top": 1})
        if ev.errors or not ev.rows:
            return None
        seen[i] = ev
        if rows_of(ev, PortCounters)[0]["max_per_5min"] >= threshold:
            hi = i
        else:
            lo = i + 1
    if lo != hi:
        return None
    above = [seen[lo].id] if lo in seen else row_cites
    below = [seen[lo - 1].id] if lo - 1 in seen else []
    to = f"{marks[lo]:%H:%M}Z" if is_utc(tz_of(zone)) else at(marks[lo], zone, day=False)
    said = (f"{stamp(marks[lo] - STEP, zone)}, the start of the first 5-minute sample in which "
            f"{device} {port} passed {threshold:,.0f} pause frames (to {to})")
    if lo == 0:
        said += "; it was already there when the window began"
    return said, [c for c in below + above if c]


@dataclass
class Hop:
    device: str
    interface: str  # the port sending the pauses
    sender: PortCounters | None  # its figures over the window (None: its counters are missing)
    receiver: PortCounters  # the figures of the port it pauses (the walk's previous port)
    cites: list[str]

    @property
    def sent(self) -> float:
        return float(cast(PortCounters, self.sender or {}).get("max_per_5min") or 0)

    @property
    def received(self) -> float:
        return float(self.receiver.get("max_per_5min") or 0)


@dataclass
class Trail:
    start: PortCounters  # the figures of the port receiving pauses the walk began at
    hops: list[Hop] = field(default_factory=list)
    origin: Hop | None = None  # the sender of pauses it did not receive; None: not reached
    why: str = ""  # why the walk stopped short of an origin
    read: list[str] = field(default_factory=list)  # the evidence of every read made

    @property
    def cites(self) -> list[str]:
        return list(dict.fromkeys(self.read))

    def path(self) -> str:
        return " <- ".join([f"{self.start['device']} {self.start['interface']}",
                            *(f"{h.device} {h.interface}" for h in self.hops)])


def _rx(r: PortCounters) -> float:
    return float(r.get("pfc_rx") or 0)


def walk(call: Call, start: PortCounters, window: Any, hops: int | None = None) -> Trail:
    """From the port of `start` (a pfc row: it receives pauses) to where the pauses start."""
    trail, here = Trail(start), start
    hops = MAX_HOPS if hops is None else hops
    for _ in range(hops):
        peer, cites = far_end(call, here["device"], here["interface"])
        if peer is None:
            trail.read += cites
            trail.why = f"the far end of {here['device']} {here['interface']} is not in the inventory"
            return trail
        ev = call("telemetry", {"metric": "pfc", "devices": [peer[0]], "window": window,
                                "top": 1000})
        cites += [ev.id] if ev.id and not ev.errors else []
        trail.read += cites
        rows = {} if ev.errors else {r["interface"]: r for r in rows_of(ev, PortCounters)}
        sender = rows.get(peer[1])
        if sender is None:  # no counters: named from the receiving side
            trail.origin = Hop(peer[0], peer[1], None, here, cites)
            trail.hops.append(trail.origin)
            return trail
        if not sender.get("pfc_tx"):
            trail.why = (f"{peer[0]} {peer[1]}, across the link, counts no pause frames sent: "
                         "the two ends' counters disagree")
            return trail
        hop = Hop(peer[0], peer[1], sender, here, cites)
        trail.hops.append(hop)
        inbound = max((r for n, r in rows.items() if n != peer[1]), key=_rx, default=None)
        if inbound is None or _rx(inbound) < float(sender["pfc_tx"]):
            trail.origin = hop  # it sends more pauses than any of its ports receives
            return trail
        here = inbound
    trail.why = f"the walk stops at its bound of {hops} hops, the pauses still growing"
    return trail
