"""Device diagnosis: "what is wrong with X?", "why is X dropping traffic?", "is X healthy?".

The flow diagnosis asks where a flow breaks; this one asks what is wrong with one device, with
the same taxonomy, checks and report. The device stands where a broken flow would stop, its
neighbours next to it (their link alarms facing it are its links'), and a few probes traced
through it stand in for the traffic an on-call would try: an ACL or a null route shows only in
traffic, never in an alarm. Every check of the taxonomy runs (a device question names no
symptom to narrow the search), within a larger tool budget than a flow's."""

from __future__ import annotations

from ipaddress import ip_address, ip_network
from typing import Any

from netopsai.backends.rows import DeviceDetail, FilterRule, HostInfo, SnapshotInfo
from netopsai.common.localtime import stamp
from netopsai.common.words import plain
from netopsai.copilot.evidence import rows_of
from netopsai.diagnosis.answer import frame
from netopsai.diagnosis.base import Diagnosis, Finding, Verdict
from netopsai.diagnosis.context import Context, asked_at
from netopsai.diagnosis.device_window import came_and_went, said
from netopsai.diagnosis.rank import Ranker
from netopsai.diagnosis.report import build, primary
from netopsai.diagnosis.search import Search
from netopsai.diagnosis.taxonomy import Taxonomy, load_taxonomy

DEVICE_WINDOW = "6h"  # alarms and changes: this morning's change is still in view
DEVICE_BUDGET = 24  # tool calls: the first round, the probes and every check's reads
MAX_PROBES = 6
PROBED_ROLES = {"leaf": "tor", "spine": "pod", "superspine": "site", "border": "site", "dci": "site"}


def device_calls(name: str, window: Any = None, at: str | None = None) -> list[dict[str, Any]]:
    """The first round, concurrent: the device, its links, its alarms and changes, every open
    alarm (its neighbours' view of it), its ports' state — over the question's window (a
    moment asked: the half hour around it), else alarms and changes of the last 6h and the
    ports' state of the last hour. The state history is read over the window asked: ports that
    went down and came back in it are its events (device_window.py)."""
    w, _ = asked_at(None, window, at, DEVICE_WINDOW)
    return [{"tool": "metadata", "args": {"query": "device", "name": name}},
            {"tool": "metadata", "args": {"query": "neighbors", "name": name}},
            {"tool": "alarms", "args": {"devices": [name], "state": "any", "window": w}},
            {"tool": "alarms", "args": {"state": "open", "window": w}},
            {"tool": "changelog", "args": {"devices": [name], "window": w}},
            {"tool": "telemetry", "args": {"metric": "oper_status", "devices": [name],
                                           "window": w if window or at else "1h"}}]


def _row(ctx: Context, name: str) -> DeviceDetail | None:
    return next((rows_of(e, DeviceDetail)[0] for e in ctx.evidence if e.tool == "metadata" and not e.errors
                 and e.args.get("query") == "device" and e.args.get("name") == name and e.rows),
                None)


def _sources(dev: DeviceDetail, hosts: list[HostInfo]) -> list[HostInfo]:
    """Hosts whose traffic crosses the device: behind the leaf, in the spine's PoD, in the
    site of a superspine, border or DCI router."""
    scope = PROBED_ROLES.get(str(dev.get("role")))
    key = {"tor": ("tor", dev["name"]), "pod": ("pod", dev.get("pod")),
           "site": ("site", dev.get("site"))}.get(scope or "")
    return [h for h in hosts if key and h.get(key[0]) == key[1]]


def _spread(src: HostInfo, hosts: list[HostInfo], dci: bool) -> list[HostInfo]:
    """One destination per other segment, nearest first (a DCI router carries inter-site
    traffic only)."""
    seen, out = {src.get("segment")}, []
    for h in sorted(hosts, key=lambda h: (h.get("site") != src.get("site"),
                                          h.get("pod") != src.get("pod"))):
        if h.get("segment") not in seen and h.get("tor") != src.get("tor") and (
                not dci or h.get("site") != src.get("site")):
            seen.add(h.get("segment"))
            out.append(h)
    return out


def _inside(ip: str, prefix: str) -> bool:
    try:
        return ip_address(ip) in ip_network(prefix, strict=False)
    except ValueError:
        return False


def probe(ctx: Context, name: str) -> None:
    """Trace a few flows through the device; their evidence joins the diagnosis. First toward
    what its configuration drops (ACL denies, null routes: the probe verifies that the rule
    really catches traffic), then one destination per segment, nearest first."""
    dev = _row(ctx, name)
    if dev is None or dev.get("role") == "host":
        return
    rules = ctx.call("metadata", {"query": "filters", "name": name})
    hosts = ctx.call("metadata", {"query": "hosts", "site": dev.get("site")})
    rows: list[HostInfo] = [] if hosts.errors else rows_of(hosts, HostInfo)
    srcs = _sources(dev, rows)
    if not srcs:
        return
    dropped = [r["dst"] for r in ([] if rules.errors else rows_of(rules, FilterRule))]
    if any(not any(_inside(h["ip"], p) for h in rows) for p in dropped):
        more = ctx.call("metadata", {"query": "hosts"})  # a rule about another site's prefix
        rows = rows if more.errors else rows_of(more, HostInfo)
    src = srcs[0]
    targeted = [h for p in dropped[:3] if (h := next(
        (x for x in rows if _inside(x["ip"], p) and x["ip"] != src["ip"]), None))]
    dsts = [*dict.fromkeys(h["ip"] for h in targeted),
            *(h["ip"] for h in _spread(src, rows, dev.get("role") == "dci"))]
    for dst in [d for d in dsts if d != src["ip"]][:MAX_PROBES]:  # at the moment asked
        ctx.call("traceroute", {"src": src["ip"], "dst": dst, **({"at": ctx.at} if ctx.at else {})})


def diagnose_device(ctx: Context, name: str, taxonomy: Taxonomy | None = None,
                    ranker: Ranker | None = None) -> Diagnosis:
    """Every check of the taxonomy against one device (ctx.focus), then the report."""
    tax = taxonomy or load_taxonomy()
    probe(ctx, name)
    s = Search(ctx, tax, ranker or Ranker())
    s.everything()
    d = build(ctx, s, tax, "search")
    top, _, _ = primary(s.found)
    own = [v for v in s.found if name in (v.device, v.peer)]
    if top is not None and name not in (top.device, top.peer) and own:
        _upstream(d, name, own[0])
    elif top is None or name not in (top.device, top.peer):
        _no_fault(ctx, d, name)
        came_and_went(ctx, d, name, said(ctx.window, ctx.zone))
    _snapshot(ctx, d, name)
    d.scope = name
    frame(ctx, d)
    return d


def _snapshot(ctx: Context, d: Diagnosis, name: str) -> None:
    """The device's state captured when an alarm opened on it, when there is one: what its
    ports and running config looked like then, cited (a real network's devices only)."""
    ev = ctx.call("metadata", {"query": "snapshots", "name": name})
    if ev.errors or not ev.rows or not ev.id:
        return
    r = rows_of(ev, SnapshotInfo)[0]
    why = f" when alarm {r['alarm_id']} opened" if r["alarm_id"] is not None else ""
    down = ", ".join(r["interfaces_down"][:6]) or "none"
    diff = "; ".join(r["config_diff"].splitlines()[:4])
    config = {"changed": f"its running config had changed since the snapshot before ({diff})",
              "unchanged": "its running config was unchanged"}.get(r["config"], "")
    d.secondary.append(Finding(f"{name}'s state captured at {r['taken_at']}{why}: ports down: "
                               f"{down}" + (f"; {config}" if config else ""), [ev.id]))


def _upstream(d: Diagnosis, name: str, own: Verdict) -> None:
    """The asked device's own confirmed fault shares a cause next to it (a dead neighbour under
    its down port): the cause is the answer, and the device's fault leads as its effect."""
    where = " ".join(x for x in (own.device, own.interface) if x)
    d.answer = Finding(f"Fault on {name}: yes — {plain(own.label)} at {where}, an effect of "
                       "the cause below", own.cites)
    d.next_steps = [*d.next_steps, f"{name} recovers with {d.device}: no action on {name} "
                    "itself beyond checking its port comes back up."]


def _no_fault(ctx: Context, d: Diagnosis, name: str) -> None:
    """Nothing confirmed on the device or its links: a recent change on it is the lead (said
    as a lead, not a cause); without one it looks healthy. Faults found next to it stay in
    view as secondary findings."""
    near = [Finding(f"near {name}, {d.label} at {d.device}: {f.text}", f.cites)
            for f in d.because[:1]] if d.label not in ("none", "inconclusive") else []
    changes = ctx.changes_on(name)
    d.device, d.interface, d.ticket = name, None, None
    if changes:
        eid, r = changes[0]
        d.label, d.confidence = "inconclusive", 0.4
        d.because = [Finding(f"the lead is change {r['ticket']} on it at {stamp(r['start'], ctx.zone)} "
                             f"(\"{r['summary']}\", {r['status']}): no alarm, port or probe "
                             f"through it shows a fault", [eid])]
        d.clean = [f for f in d.clean if eid not in f.cites]  # the lead is not "clean"
        d.next_steps = [f"Review change {r['ticket']} on {name}: diff the running configuration "
                        "against the one before it, and roll it back if it matches the symptoms.",
                        f"Trace the affected flow through {name} to see where it stops."]
    else:
        d.label, d.confidence = "none", 0.7
        d.because = [Finding(f"{name} looks healthy: no fault is confirmed by its alarms, changes, "
                             "ports or probes through it", [e.id for e in ctx.evidence
                                                            if not e.errors])]
        d.next_steps = [f"If users still see a problem, trace their flow: the fault may not be "
                        f"on {name}."]
    d.secondary = [*near, *d.secondary]
