"""The reliability report, pure over a History (reader.py): the window's alarms grouped into cases
by the alarms tool's own correlation (tools/alarm_cases), then bad minutes per scope and repeat
offenders here, time to repair and noise in repair.py."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from netopsai.common.errors import unknown
from netopsai.config.network import ReliabilitySettings
from netopsai.reliability.model import SCOPES, Report, definitions
from netopsai.reliability.reader import History
from netopsai.reliability.repair import case_rows, noise, ttr_stats
from netopsai.tools.alarm_cases.correlate import Case, compression, correlate
from netopsai.tools.alarm_cases.topology import Topology
from netopsai.tools.alarms import CORRELATE_MIN

OFFENDERS_SHOWN = 10  # per kind
Span = tuple[int, int]  # minutes from the window's start, [first, last + 1)


@dataclass
class CaseInfo:
    """One case with what the report needs of it."""

    case: Case
    first: datetime
    closed: datetime | None  # None while any alarm of it is open
    bad: bool  # of a severity or impact that makes its minutes bad
    scopes: dict[str, set[str]] = field(default_factory=dict)  # pod|site|zone -> names
    devices: set[str] = field(default_factory=set)
    links: set[int] = field(default_factory=set)
    optics: set[str] = field(default_factory=set)  # device:interface

    @property
    def category(self) -> str:
        return str(self.case.root.get("category") or "other")


def check_by(by: str) -> str:
    if by not in SCOPES:
        raise unknown("scope (--by)", by, SCOPES)
    return by


def build_report(h: History, cfg: ReliabilitySettings, by: str, topo: Topology) -> Report:
    check_by(by)
    cases = correlate(h.alarms, topo, timedelta(minutes=CORRELATE_MIN))
    infos = [_info(c, h, cfg) for c in cases]
    rows = case_rows(infos, h)
    report = Report(window=h.window.as_json(), by=by, definitions=definitions(cfg, by, CORRELATE_MIN),
                    scopes=bad_minutes(h, infos, cfg, by), offenders=offenders(infos, h.links),
                    cases=rows, ttr=ttr_stats(rows), noise=noise(infos, h.window))
    report.totals = {"alarms": len(h.alarms), "cases": len(infos),
                     "bad_cases": sum(i.bad for i in infos),
                     "open_cases": sum(i.closed is None for i in infos),
                     "compression": compression(len(h.alarms), cases),
                     "window_minutes": _minutes(h.window.start, h.window.end),
                     "bad_minutes": sum(r["bad_minutes"] for r in report.scopes)}
    return report


def _info(c: Case, h: History, cfg: ReliabilitySettings) -> CaseInfo:
    members = c.members
    cleared = [a["cleared_at"] for a in members]
    closed = None if c.open or any(t is None for t in cleared) else max(cleared)
    bad = any(a.get("severity") in cfg.severities or a.get("impact") in cfg.impacts
              or (a.get("traffic_lost") and "traffic_lost" in cfg.impacts) for a in members)
    sites = set(c.impact.get("dcs") or ())
    info = CaseInfo(case=c, first=min(a["raised_at"] for a in members), closed=closed, bad=bad,
                    scopes={"pod": set(c.impact.get("pods") or ()), "site": sites,
                            "zone": {h.regions.get(s, s) for s in sites}})
    info.devices = {a["device"] for a in members} | {c.impact.get("root_device") or c.root["device"]}
    info.links = {int(a["link_id"]) for a in members if a.get("link_id")}
    info.optics = {f"{a['device']}:{a['interface']}" for a in members
                   if a.get("category") == "optics" and a.get("interface")}
    return info


def _minutes(start: datetime, end: datetime) -> int:
    return -(-int((end - start).total_seconds()) // 60)


def _span(h: History, start: datetime, end: datetime | None) -> Span | None:
    """The minutes of the window [start, end] touches (at least one), None when outside it."""
    w = h.window
    s, e = max(start, w.start), min(end or w.end, w.end)
    if e < s:
        return None
    first = int((s - w.start).total_seconds()) // 60
    return first, max(first + 1, _minutes(w.start, e))


def _total(spans: Iterable[Span]) -> int:
    """Minutes covered by the union of the spans."""
    total, reach = 0, -1
    for a, b in sorted(spans):
        if b > reach:
            total += b - max(a, reach)
            reach = b
    return total


def _flapping(h: History, cfg: ReliabilitySettings) -> dict[str, list[Span]]:
    """device -> spans in which one of its ports flapped: flap_transitions or more changes of
    state within flap_window_minutes (from the ports' transitions), or a LINK_FLAP alarm."""
    ports: dict[tuple[str, str], list[datetime]] = defaultdict(list)
    for dev, port, at in h.transitions:
        ports[(dev, port)].append(at)
    out: dict[str, list[Span]] = defaultdict(list)
    limit = timedelta(minutes=cfg.flap_window_minutes)
    for (dev, _), times in ports.items():
        times.sort()
        i = 0
        for j, t in enumerate(times):
            while t - times[i] > limit:
                i += 1
            if j - i + 1 >= cfg.flap_transitions and (span := _span(h, times[i], t)):
                out[dev].append(span)
    for a in h.alarms:
        if a["kind"] == "LINK_FLAP" and (span := _span(h, a["raised_at"], a["cleared_at"])):
            out[a["device"]].append(span)
    return out


def _lossy(h: History) -> dict[str, list[Span]]:
    """device -> the 5-minute samples in which one of its ports lost packets past the threshold."""
    out: dict[str, list[Span]] = defaultdict(list)
    for dev, _, at in h.lossy:
        if span := _span(h, at - timedelta(minutes=5), at):
            out[dev].append(span)
    return out


def _probe_span(h: History, start: datetime, end: datetime) -> Span | None:
    """[start, end) in whole minutes of the window (at least one), None when none of it is in
    the window: probes of one run share a time, so back-to-back probes every 5 minutes are 5
    minutes each, not 6 by touching."""
    w = h.window
    s, e = max(start, w.start), min(end, w.end)
    if e <= s:
        return None
    first = int((s - w.start).total_seconds()) // 60
    return first, max(first + 1, int((e - w.start).total_seconds()) // 60)


def _probes(h: History, cfg: ReliabilitySettings, by: str) -> dict[str, list[Span]]:
    """scope -> spans in which a pair with an end in it was unreachable by a recorded probe:
    from the probe until the pair's next probe, at most probe_interval_minutes (a probe stands
    for the interval it was taken in; a pair no longer probed does not stay bad for ever)."""
    cap = timedelta(minutes=cfg.probe_interval_minutes)
    out: dict[str, list[Span]] = defaultdict(list)
    for o in h.outages:
        end = o.at + cap if o.next_at is None else min(o.next_at, o.at + cap)
        if not (span := _probe_span(h, o.at, end)):
            continue
        where = (o.pods if by == "pod" else o.sites if by == "site"
                 else {h.regions.get(site, site) for site in o.sites})
        for scope in where:
            out[scope].append(span)
    return out


def _device_scope(h: History, device: str, by: str) -> str | None:
    site, pod = h.places.get(device, (None, None))
    if by == "pod":
        return pod
    return h.regions.get(site, site) if by == "zone" and site else site


def _by_scope(h: History, per_device: dict[str, list[Span]], by: str) -> dict[str, list[Span]]:
    out: dict[str, list[Span]] = defaultdict(list)
    for dev, spans in per_device.items():
        if where := _device_scope(h, dev, by):
            out[where] += spans
    return out


def bad_minutes(h: History, infos: list[CaseInfo], cfg: ReliabilitySettings,
                by: str) -> list[dict[str, Any]]:
    """Per scope (every one the inventory knows, bad or not): bad minutes and why."""
    case_spans: dict[str, list[Span]] = defaultdict(list)
    case_count: dict[str, int] = defaultdict(int)
    for info in infos:
        span = _span(h, info.first, info.closed) if info.bad else None
        for name in info.scopes[by] if span else ():
            case_spans[name].append(span)  # type: ignore[arg-type]
            case_count[name] += 1
    flap_spans, loss_spans = _by_scope(h, _flapping(h, cfg), by), _by_scope(h, _lossy(h), by)
    probe_spans = _probes(h, cfg, by)
    known = {"pod": set(h.pods), "site": set(h.regions), "zone": set(h.regions.values())}[by]
    window = _minutes(h.window.start, h.window.end)
    rows: list[dict[str, Any]] = []
    for scope in sorted(known | set(case_spans) | set(flap_spans) | set(loss_spans)
                        | set(probe_spans)):
        # one minute bad for several reasons counts once: the union of every reason's spans
        bad = _total(case_spans[scope] + flap_spans[scope] + loss_spans[scope] + probe_spans[scope])
        rows.append({"scope": scope, "bad_minutes": bad, "case_minutes": _total(case_spans[scope]),
                     "flap_minutes": _total(flap_spans[scope]),
                     "loss_minutes": _total(loss_spans[scope]),
                     "probe_minutes": _total(probe_spans[scope]), "bad_cases": case_count[scope],
                     "bad_percent": round(100 * bad / window, 3) if window else 0.0})
    rows.sort(key=lambda r: (-r["bad_minutes"], r["scope"]))
    return rows


def offenders(infos: list[CaseInfo], links: dict[int, str]) -> list[dict[str, Any]]:
    """Devices, links and optics two or more cases concern, the most cases first."""
    found: dict[tuple[str, str], list[CaseInfo]] = defaultdict(list)
    for info in infos:
        root = str(info.case.impact.get("root_device") or info.case.root["device"])
        found[("device", root)].append(info)
        for lk in info.links:
            found[("link", links.get(lk, f"link {lk}"))].append(info)
        for port in info.optics:
            found[("optics", port)].append(info)
    rows = []
    for kind in ("device", "link", "optics"):
        mine = [(name, cs) for (k, name), cs in found.items() if k == kind and len(cs) >= 2]
        mine.sort(key=lambda x: (-len(x[1]), x[0]))
        for name, cs in mine[:OFFENDERS_SHOWN]:
            cs = sorted(cs, key=lambda i: i.first)
            rows.append({"kind": kind, "name": name, "cases": len(cs),
                         "case_ids": " ".join(i.case.id for i in cs),
                         "case_list": "; ".join(f"{i.case.id} {i.case.root['kind']} "
                                                f"{i.first:%Y-%m-%d %H:%M}" for i in cs)})
    return rows
