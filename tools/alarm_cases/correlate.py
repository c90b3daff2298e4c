"""Alarm correlation: the alarms of a window grouped into cases by the topology, so one fault
reads as one case rather than as the dozen alarms it raised.

Alarms join a case when one event explains them, each rule within `tol` of raised time:
- one link: both ends of a link, a DCI circuit seen from both sides, and the BGP sessions that
  ride the link (a BGP alarm carries the link under it, or names its peer), or, with no link
  of their own, went down within a second of one link on their device, or while one link of
  it was flapping (an IPv6 session);
- a device outage (unreachable, reload): every alarm on it and every alarm whose link ends on
  it, e.g. its neighbours' link and BGP alarms;
- a burst: `burst_min` or more links with one common end going down together, when no alarm
  of that device says why (a reload seen only by its neighbours);
- a session reset: `burst_min` or more BGP sessions of one device going down together with no
  link down under them (a `clear ip bgp`, a restarted routing process).
Each case names a suggested root-cause alarm (the outage, else the physical-layer alarm, else
the link, else the earliest), its members, and its impact: the data centres, PoDs and segments
affected (the blast radius) and whether traffic was lost.

An alarm on a device the inventory does not know (a new switch, a name only its log lines use)
has no topology to join: its device's alarms within `tol` of each other form a case of their
own (rule "unknown", the device named as unknown), and the rest correlate as if it were not
there — one stranger never hides or blocks the others' cases.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Generic

from netopsai.tools.alarm_cases.groups import Groups
from netopsai.tools.alarm_cases.topology import (
    OUTAGE_KINDS,
    Alarm,
    Topology,
    alarm_time,
    stamp_time,
)
from netopsai.tools.facts import AlarmCase, CaseImpact

LINK_KINDS = {"LINK_DOWN", "LINK_FLAP"}
PHYSICAL_KINDS = {"OPTICS_RX_LOW", "INTERFACE_ERRORS", "CRC_ERRORS"}
LINK_CATEGORIES = {"link", "dci", "backbone"}
SEVERITY = {"critical": 0, "major": 1, "minor": 2, "warning": 3, "info": 4}
TOL = timedelta(minutes=5)
SAME_MOMENT = timedelta(seconds=1)  # a session down this close to a link down rode that link
SESSION_CATEGORIES = {"bgp", "routing"}
BURST_MIN = 3
UNKNOWN = "unknown"  # the rule of a case on a device the inventory does not know


@dataclass
class Case(Generic[Alarm]):
    """One event: its suggested root-cause alarm, every alarm it explains, and its reach."""

    id: str
    root: Alarm
    members: list[Alarm]
    rule: str  # outage | burst | link | dci | single
    reason: str
    impact: CaseImpact = field(default_factory=CaseImpact)

    @property
    def open(self) -> bool:
        return any(a["state"] == "open" for a in self.members)

    def as_dict(self) -> AlarmCase:
        r = self.root
        return {"case": self.id, "rule": self.rule, "root_alarm": r.get("id"),
                "root_kind": r.get("kind"), "root_device": self.impact.get("root_device") or r.get("device"),
                "root_interface": r.get("interface"), "alarms": len(self.members),
                "member_ids": [a.get("id") for a in self.members],
                "devices": sorted({str(a.get("device")) for a in self.members}),
                "unknown_device": self.rule == UNKNOWN,
                "state": "open" if self.open else "closed",
                "first_raised": min(a["raised_at"] for a in self.members), "reason": self.reason,
                "impact": self.impact}


def correlate(rows: Sequence[Alarm], topo: Topology, tol: timedelta = TOL,
              burst_min: int = BURST_MIN) -> list[Case[Alarm]]:
    """The cases of these alarms, open ones first, then the largest. Rows are not modified."""
    alarms = sorted(rows, key=alarm_time)
    topo.prefetch({a["device"] for a in alarms})
    strangers = {a["device"] for a in alarms if not topo.known(a["device"])}
    cases = _topology_cases([a for a in alarms if a["device"] not in strangers], topo, tol,
                            burst_min)
    cases += unknown_cases([a for a in alarms if a["device"] in strangers], tol)
    cases.sort(key=lambda c: (not c.open, -len(c.members), alarm_time(c.root)))
    for i, c in enumerate(cases, 1):
        c.id = f"C{i}"
    return cases


def _topology_cases(alarms: list[Alarm], topo: Topology, tol: timedelta,
                    burst_min: int) -> list[Case[Alarm]]:
    times = [alarm_time(a) for a in alarms]
    ends = [topo.ends(a) for a in alarms]
    topo.prefetch(set().union(*ends) if ends else set())
    g = Groups(len(alarms))
    _by_link(alarms, times, g, tol)
    _by_same_moment(alarms, times, g)
    outages = _by_outage(alarms, times, ends, g, tol)
    inferred = _by_burst(alarms, times, ends, g, tol, burst_min, outages)
    _by_session_reset(alarms, times, g, tol, burst_min)
    return [_case(alarms, sorted(c), ends, inferred, topo) for c in g.components()]


def unknown_cases(alarms: Sequence[Alarm], tol: timedelta = TOL) -> list[Case[Alarm]]:
    """Alarms on devices the inventory does not know: per device, those raised within `tol` of
    the one before form one case, its device said to be unknown (what the topology would add,
    the reach, cannot be known)."""
    by_device: dict[str, list[Alarm]] = defaultdict(list)
    for a in sorted(alarms, key=alarm_time):
        by_device[a["device"]].append(a)
    out: list[Case] = []
    for device, items in by_device.items():
        runs = [[items[0]]]
        for prev, cur in zip(items, items[1:], strict=False):
            if alarm_time(cur) - alarm_time(prev) > tol:
                runs.append([])
            runs[-1].append(cur)
        for run in runs:
            root = min(run, key=_rank)
            impact = CaseImpact(dcs=[], pods=[], segments=[], devices=1, root_device=device,
                                traffic_lost=any(a.get("traffic_lost") for a in run),
                                summary=f"unknown: {device} is not in the inventory")
            out.append(Case("", root, run, UNKNOWN, (
                f"{root['kind']} on {device}, a device the inventory does not know: its "
                f"{len(run)} alarm(s) form a case of their own (no topology relates them to "
                "others; add the device to the inventory to correlate it)"), impact))
    return out


def compression(n_alarms: int, cases: Sequence[Case]) -> float:
    """Alarms per case: how much reading the cases saves over reading the alarms."""
    return round(n_alarms / len(cases), 2) if cases else 0.0


def _link_key(a: Alarm) -> Any:
    if a.get("link_id"):
        return ("link", a["link_id"])
    if a.get("peer") and (a["category"] in LINK_CATEGORIES | {"bgp"} or a.get("interface")):
        return ("pair", frozenset((a["device"], a["peer"])))
    return None


def _chain(idx: list[int], times: list[datetime], g: Groups, tol: timedelta) -> None:
    """Join alarms of one key whose raise times follow each other within tol."""
    idx = sorted(idx, key=lambda i: times[i])
    for prev, cur in zip(idx, idx[1:], strict=False):
        if times[cur] - times[prev] <= tol:
            g.union(prev, cur)


def _by_link(alarms: list[Alarm], times: list[datetime], g: Groups,
             tol: timedelta) -> None:
    keyed: dict[Any, list[int]] = defaultdict(list)
    for i, a in enumerate(alarms):
        key = _link_key(a)
        if key is not None:
            keyed[key].append(i)
    for idx in keyed.values():
        _chain(idx, times, g, tol)


def _by_same_moment(alarms: list[Alarm], times: list[datetime], g: Groups) -> None:
    """Sessions without a link of their own join the one link case of their device that went
    down within SAME_MOMENT of them, or was flapping then (a flap alarm stands for every Down
    from its raise to its clear); two such links: which one is not known, none is joined."""
    links: dict[str, list[int]] = defaultdict(list)
    for i, a in enumerate(alarms):
        if a["kind"] in LINK_KINDS:
            links[a["device"]].append(i)
    for i, a in enumerate(alarms):
        if a["category"] not in SESSION_CATEGORIES or a.get("link_id"):
            continue
        near = [j for j in links.get(a["device"], ()) if _down_then(alarms[j], times[j], times[i])]
        if near and len({g.find(j) for j in near}) == 1:
            g.union(near[0], i)


def _down_then(link: Alarm, raised: datetime, at: datetime) -> bool:
    """Whether the link alarm had its port go down within SAME_MOMENT of `at`."""
    if abs(raised - at) <= SAME_MOMENT:
        return True
    if link["kind"] != "LINK_FLAP" or at < raised:
        return False
    end = link.get("cleared_at")
    return end is None or at <= stamp_time(end) + SAME_MOMENT


def _by_outage(alarms: list[Alarm], times: list[datetime], ends: list[frozenset[str]],
               g: Groups, tol: timedelta) -> list[int]:
    outages = [i for i, a in enumerate(alarms) if a["kind"] in OUTAGE_KINDS]
    for o in outages:
        dev = alarms[o]["device"]
        for j, e in enumerate(ends):
            if j != o and dev in e and abs(times[j] - times[o]) <= tol:
                g.union(o, j)
    return outages


def _by_burst(alarms: list[Alarm], times: list[datetime], ends: list[frozenset[str]],
              g: Groups, tol: timedelta, burst_min: int, outages: list[int]) -> dict[int, str]:
    """Links with one common end going down together; returns {alarm index: that end} for the
    alarms of each burst (the device itself raised nothing: it was down)."""
    explained = {g.find(o) for o in outages}
    by_end: dict[str, list[int]] = defaultdict(list)
    for i, a in enumerate(alarms):
        if a["kind"] in LINK_KINDS and a["category"] in LINK_CATEGORIES and g.find(i) not in explained:
            for dev in ends[i]:
                by_end[dev].append(i)
    inferred: dict[int, str] = {}
    for dev, idx in by_end.items():
        for burst in _bursts(idx, times, tol):
            if len({_link_key(alarms[i]) for i in burst}) >= burst_min:
                for i in burst[1:]:
                    g.union(burst[0], i)
                inferred.update(dict.fromkeys(burst, dev))
    return inferred


def _by_session_reset(alarms: list[Alarm], times: list[datetime], g: Groups,
                      tol: timedelta, burst_min: int) -> None:
    """BGP sessions of one device down together, none explained by a link alarm."""
    with_link = {g.find(i) for i, a in enumerate(alarms) if a["kind"] in LINK_KINDS}
    by_device: dict[str, list[int]] = defaultdict(list)
    for i, a in enumerate(alarms):
        if a["category"] == "bgp" and g.find(i) not in with_link:
            by_device[a["device"]].append(i)
    for idx in by_device.values():
        for burst in _bursts(idx, times, tol):
            if len({alarms[i].get("peer") or alarms[i].get("interface") or i for i in burst}) >= burst_min:
                for i in burst[1:]:
                    g.union(burst[0], i)


def _bursts(idx: list[int], times: list[datetime], tol: timedelta) -> Iterable[list[int]]:
    """Runs of alarms each raised within tol of the run's first."""
    run: list[int] = []
    for i in sorted(idx, key=lambda i: times[i]):
        if run and times[i] - times[run[0]] > tol:
            yield run
            run = []
        run.append(i)
    if run:
        yield run


def _rank(a: Alarm) -> tuple[int, int, datetime]:
    kind = a["kind"]
    tier = (0 if kind in OUTAGE_KINDS else 1 if kind in PHYSICAL_KINDS else
            2 if kind in LINK_KINDS or a["category"] in LINK_CATEGORIES else
            3 if a["category"] == "bgp" else 4)
    return tier, SEVERITY.get(a.get("severity", ""), 5), alarm_time(a)


def _case(alarms: list[Alarm], idx: list[int], ends: list[frozenset[str]],
          inferred: dict[int, str], topo: Topology) -> Case[Alarm]:
    members = [alarms[i] for i in idx]
    common = next((inferred[i] for i in idx if i in inferred), None)
    if common:  # the silent device: its neighbours' alarms on links to it
        root = min((alarms[i] for i in idx if common in ends[i]), key=_rank)
    else:
        root = min(members, key=_rank)
    rule, reason = _why(root, members, common)
    impact = topo.impact(root, members, common)
    return Case(id="", root=root, members=members, rule=rule, reason=reason, impact=impact)


def _why(root: Alarm, members: list[Alarm], common: str | None) -> tuple[str, str]:
    others = len(members) - 1
    interface = root.get("interface")
    where = f"{root['device']}{' ' + interface if interface else ''}"
    if common:
        links = len({_link_key(a) for a in members})
        return "burst", (f"{links} links with one common end, {common}, went down together and "
                         f"{common} raised nothing itself: suspect {common} (reload or outage)")
    if root["kind"] in OUTAGE_KINDS:
        return "outage", (f"{root['kind']} on {root['device']} explains {others} alarm(s) on it "
                          f"and on links that end on it")
    if not others:
        return "single", f"{root['kind']} on {where}: no related alarm in the window"
    devices = sorted({a["device"] for a in members})
    bgp = sum(a["category"] == "bgp" for a in members)
    if bgp == len(members) and len(devices) == 1:
        return "sessions", (f"{bgp} BGP sessions of {root['device']} went down together with no "
                            "link down under them: a session reset (clear, routing process "
                            "restart or policy change) on it")
    rule = "dci" if root["category"] in ("dci", "backbone") else "link"
    text = f"{root['kind']} on {where}, reported from {' and '.join(devices)}"
    if bgp:
        text += f"; {bgp} BGP alarm(s) on sessions over this link follow from it"
    return rule, text
