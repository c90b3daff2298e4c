"""Checks and symptoms of a lossless (RoCE) fabric, read from the RoCE telemetry (metrics pfc,
ecn) for flow and device questions: a PFC storm (one port's pause frames far above every other
port of the rail) and an ECMP collision (ECN marks on one uplink near line rate while its
sibling uplinks idle). Job questions have their own rules (job_rules.py).

Outside a RoCE fabric these checks make no tool call: they rule themselves out from the
evidence in hand (no RDMA NIC at the flow's ends or next to the device, no PFC watchdog)."""

from __future__ import annotations

from statistics import median
from typing import Any

from netopsai.backends.rows import DeviceDetail, Neighbor, PortCounters
from netopsai.common.roce import NIC_PREFIX, ROCE_METRICS
from netopsai.config.roce import roce_settings
from netopsai.copilot.evidence import Evidence, rows_of
from netopsai.diagnosis.base import Verdict, confirmed, rejected, unknown
from netopsai.diagnosis.context import ECMP, Context
from netopsai.diagnosis.registry import check, symptom
from netopsai.diagnosis.symptoms import ALARMED

ECN_PER_5MIN = ROCE_METRICS["ecn"].flag_per_5min  # ECN marks in 5 minutes that flag a port
WATCHDOG = {"PFC_WATCHDOG"}


def _rdma(name: Any) -> bool:
    return str(name or "").startswith(NIC_PREFIX)


def lossless(ctx: Context) -> bool:
    """Whether the question is about a RoCE fabric, from the evidence in hand: an RDMA NIC at
    a flow's end or on a link of the device, a GPU host in question, a PFC watchdog alarm."""
    if any(r["kind"] in WATCHDOG for _, r in ctx.alarms.values()):
        return True
    if any(_rdma(row.get("interface")) for _, row in ctx.owners.values()):
        return True
    if not ctx.focus:
        return False
    row = next((rows_of(e, DeviceDetail)[0] for e in ctx.evidence if e.tool == "metadata"
                and not e.errors and e.args.get("query") == "device"
                and e.args.get("name") == ctx.focus and e.rows), None)
    return (row is not None and row.get("role") == "gpu_host") or any(
        _rdma(r.get("interface")) or _rdma(r.get("neighbor_interface"))
        for e in ctx.evidence if e.tool == "metadata" and not e.errors
        and e.args.get("query") == "neighbors" and e.args.get("name") == ctx.focus
        for r in rows_of(e, Neighbor))


def scope_devices(ctx: Context) -> list[str]:
    """The devices read: the focus and its neighbours, or the flow's paths and endpoints."""
    if ctx.focus:
        return list(dict.fromkeys([ctx.focus, *ctx.neighbours()]))
    return sorted(d for d, level in ctx.pos.items() if level >= ECMP)


@symptom("pfc_alarm")
def pfc_alarm(ctx: Context) -> float:
    return ALARMED if ctx.alarms_of(WATCHDOG) else 0.0


@symptom("roce_fabric")
def roce_fabric(ctx: Context) -> float:
    """A lossless fabric: its own faults (storms, collisions) are worth a read."""
    return 0.3 if lossless(ctx) else 0.0


def _read(ctx: Context, metric: str, devices: list[str], top: int) -> Evidence:
    return ctx.call("telemetry", {"metric": metric, "devices": devices, "window": ctx.window,
                                  "top": top})


def _far_end(ctx: Context, device: str, ifname: str) -> tuple[Neighbor | None, str]:
    ev = ctx.call("metadata", {"query": "neighbors", "name": device})
    link = None if ev.errors else next((r for r in rows_of(ev, Neighbor) if r["interface"] == ifname),
                                       None)
    return link, ev.id


def _not_roce(ctx: Context, what: str) -> Verdict | None:
    if lossless(ctx):
        return None
    return rejected(f"no {what}: no RDMA NIC or PFC watchdog on {ctx.scope} (not a RoCE fabric)",
                    ctx.alarm_ids)


def _counters(ctx: Context, what: str, metric: str, said: str, top: int) -> Evidence | Verdict:
    """The scope's `metric` rows, worst first; or the verdict when there are none to judge by
    (not a RoCE fabric, or the counters could not be read)."""
    out = _not_roce(ctx, what)
    if out is not None:
        return out
    ev = _read(ctx, metric, scope_devices(ctx), top)
    if ev.errors or not ev.rows:
        return unknown(f"{said} counters could not be read on {ctx.scope}", [ev.id] if ev.id else [])
    return ev


@check("pfc_storm")
def pfc_storm(ctx: Context) -> Verdict:
    """The port with the most pause frames, far above the others read; the sender is that port
    when it sends more than it receives, else the far end of its link."""
    ev = _counters(ctx, "PFC storm", "pfc", "PFC", 20)
    if not isinstance(ev, Evidence):
        return ev
    rows = rows_of(ev, PortCounters)
    top, cfg = rows[0], roce_settings()  # thresholds: config.yaml `roce:`
    rest = [r["total"] for r in rows[1:] if r["total"] < top["total"] / 2] or [0.0]
    if top["max_per_5min"] < cfg.storm_per_5min or top["total"] < cfg.far_above * median(rest):
        return rejected(f"no PFC storm on {ctx.scope}: the most pause frames through one port are "
                        f"{top['max_per_5min']:.0f} per 5 minutes ({top['device']} "
                        f"{top['interface']})", [ev.id])
    return _storm(ctx, ev, top, median(rest))


def _storm(ctx: Context, ev: Evidence, top: PortCounters, usual: float) -> Verdict:
    dev, port, cites = top["device"], top["interface"], [ev.id]
    link, nid = _far_end(ctx, dev, port)
    cites += [nid] if link and nid else []
    peer = link["neighbor"] if link else None
    sends = top["pfc_tx"] >= top["pfc_rx"]
    wd = [eid for eid, r, _ in ctx.alarms_of(WATCHDOG) if {r["device"], r.get("peer")} & {dev, peer}]
    far = f"; {usual:.0f} is usual for the other ports read" if usual else ""
    if sends or link is None:
        text = (f"{dev} {port} sends PFC pause frames without pause ({top['pfc_tx']:.0f} in the "
                f"window, up to {top['max_per_5min']:.0f} per 5 minutes{far}): its peer "
                f"{peer or '?'} stops sending and the pauses spread over the rail")
        return confirmed(text, [*cites, *wd], dev, port, 0.9, peer, ctx.position(dev, peer))
    sender, s_port = link["neighbor"], link["neighbor_interface"]
    text = (f"{sender} {s_port} floods its link with PFC pause frames: {dev} {port} received "
            f"{top['pfc_rx']:.0f} in the window (up to {top['max_per_5min']:.0f} per 5 minutes"
            f"{far}), so {dev} stops sending on the lossless priority and pauses its own "
            "upstream ports in turn")
    return confirmed(text, [*cites, *wd], sender, s_port, 0.9, dev, ctx.position(sender, dev))


@check("ecmp_collision")
def ecmp_collision(ctx: Context) -> Verdict:
    """The port with the most ECN marks (flagged), on a switch whose one uplink runs near line
    rate while the median of its sibling uplinks idles."""
    ecn = _counters(ctx, "ECMP collision", "ecn", "ECN", 10)
    if not isinstance(ecn, Evidence):
        return ecn
    hot = rows_of(ecn, PortCounters)[0]
    if hot["max_per_5min"] < ECN_PER_5MIN or _rdma(hot["interface"]):
        return rejected(f"no port of {ctx.scope} marks ECN heavily (at most "
                        f"{hot['max_per_5min']:.0f} per 5 minutes)", [ecn.id])
    return _collision(ctx, ecn, hot)


def _collision(ctx: Context, ecn: Evidence, hot: PortCounters) -> Verdict:
    dev, port = hot["device"], hot["interface"]
    nb = ctx.call("metadata", {"query": "neighbors", "name": dev})
    util = ctx.call("telemetry", {"metric": "utilization", "devices": [dev],
                                  "window": ctx.window, "top": 1000})
    cites = [c for c in (ecn.id, nb.id, util.id) if c]
    if nb.errors or util.errors:
        return unknown(f"could not read {dev}'s uplinks and their utilisation", cites)
    uplinks = {r["interface"]: r["neighbor"] for r in rows_of(nb, Neighbor) if r["kind"] != "host"}
    ups = {r["interface"]: r for r in rows_of(util, PortCounters) if r["interface"] in uplinks}
    if port not in ups or len(ups) < 2:
        return rejected(f"{dev} {port} marks ECN but is not one of several uplinks", cites)
    load = ups[port]["last_pct"]
    rest = median(r["last_pct"] for name, r in ups.items() if name != port)
    cfg = roce_settings()
    if load < cfg.hot_pct or rest >= cfg.idle_pct:
        return rejected(f"{dev}'s uplinks share the load ({port} at {load:.0f}%, the others' "
                        f"median {rest:.0f}%): no collision", cites)
    alarms = [eid for eid, r, _ in ctx.alarms_of({"HIGH_UTILIZATION"}) if r["device"] == dev]
    text = (f"{dev} uplink {port} runs at {load:.0f}% at the end of the window with "
            f"{hot['total']:.0f} ECN marks, while the median of its {len(ups) - 1} sibling "
            f"uplinks is {rest:.0f}%: the flows hash onto one uplink")
    return confirmed(text, [*cites, *alarms], dev, port, 0.9, uplinks[port],
                     ctx.position(dev, uplinks[port]))
