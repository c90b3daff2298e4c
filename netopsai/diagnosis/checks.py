"""Verification checks read from alarms and telemetry: links, BGP, DCI circuits (devices: checks_device).

A check takes the diagnosis Context, reads what it needs through `ctx.call` (cached: checks
share tool results) and returns a Verdict — confirmed / rejected / unknown — citing the
evidence that decided it and naming the device and interface it located."""

from __future__ import annotations

from typing import Any

from netopsai.backends.rows import AlarmRecord, Hop, Neighbor, StatusRow
from netopsai.common.localtime import stamp
from netopsai.copilot.evidence import rows_of
from netopsai.diagnosis.base import Verdict, confirmed, rejected, unknown
from netopsai.diagnosis.checks_device import down_devices
from netopsai.diagnosis.context import Context, trace_of
from netopsai.diagnosis.registry import check
from netopsai.diagnosis.symptoms import DCI, DOWN

ERRORS_PER_5MIN = 50  # healthy ports show a handful of errors a day; a bad optic hundreds
UTIL_PCT = 80.0
FLAPS = 2
Alarm = tuple[str, AlarmRecord, int]


# why a port is down, from what else its device reported about it (syslog rules' kinds)
REASONS = {"ADMIN_DOWN": "administratively shut", "ERR_DISABLED": "err-disabled",
           "TRANSCEIVER_REMOVED": "transceiver removed", "OPTICS_LOS": "optics: receive loss of "
           "signal", "OPTICS_LOL": "optics: loss of lock", "OPTICS_RX_LOW": "optics: rx power low",
           "LACP_MEMBER_DOWN": "LACP member down"}


def _where(r: AlarmRecord) -> str:
    return f"{r['device']}{' ' + port if (port := r.get('interface')) else ''}"


def _reason(ctx: Context, r: AlarmRecord) -> tuple[str, list[str]]:
    """' (administratively shut; ...)' and the evidence saying so, for an alarmed port."""
    same = [(eid, x) for eid, x in ctx.alarms.values() if x["kind"] in REASONS
            and x["device"] == r["device"] and x.get("interface") == r.get("interface")
            and (x["state"] == "open" or x.get("raised_at") == r.get("raised_at"))]
    why = list(dict.fromkeys(REASONS[x["kind"]] for _, x in same))
    return (f" ({'; '.join(why)})" if why else ""), [eid for eid, _ in same]


def _port_state(ctx: Context, device: str | None, ifname: str | None) -> tuple[str | None, str]:
    """The port's oper state at the end of the window ('up'/'down'; None if unreadable)."""
    args: dict[str, Any] = {"metric": "oper_status", "devices": [device], "window": ctx.window}
    if ifname:
        args["interface"] = ifname
    ev = ctx.call("telemetry", args)
    if ev.errors:
        return None, ev.id
    down = [r for r in rows_of(ev, StatusRow)
            if r["state_at_end"] == "down" and (not ifname or r["interface"] == ifname)]
    return ("down" if down else "up"), ev.id


def _down_port(ctx: Context, alarms: list[Alarm], what: str, confidence: float) -> Verdict:
    """Confirm the first alarmed port that telemetry shows down at the end of the window. A
    port facing a device already confirmed dead needs no telemetry: its links are down."""
    dead = ctx.verdicts.get("device_down")
    if dead is not None and dead.confirmed:
        for eid, r, pos in alarms:
            if dead.device in (r["device"], r.get("peer")):
                return confirmed(f"{what} on {_where(r)} (to {r.get('peer')}): open {r['kind']} "
                                 f"alarm since {stamp(r['raised_at'], ctx.zone)}, a link of "
                                 f"{dead.device}, which is down", [eid, *dead.cites], r["device"],
                                 r.get("interface"), confidence, r.get("peer"), pos)
    tried, unread = [], []
    for eid, r, pos in alarms[:3]:
        state, tid = _port_state(ctx, r["device"], r.get("interface"))
        if state is None:  # telemetry could not be read: that says nothing about the port
            unread.append(_where(r))
        if state == "down":
            why, more = _reason(ctx, r)
            return confirmed(f"{what}{why} on {_where(r)} (to {r.get('peer')}): open {r['kind']} "
                             f"alarm since {stamp(r['raised_at'], ctx.zone)}, and telemetry "
                             f"shows the port down at the end of the window", [eid, *more, tid], r["device"],
                             r.get("interface"), confidence, r.get("peer"), pos)
        tried += [eid, tid]
    if unread:
        return unknown(f"telemetry could not be read for the alarmed ports ({', '.join(unread)})",
                       [eid for eid, _, _ in alarms[:3]])
    if tried:
        return rejected(f"the alarmed ports ({', '.join(_where(r) for _, r, _ in alarms[:3])}) "
                        "are up again per telemetry", tried)
    return unknown("no port to test")


@check("link_down")
def link_down(ctx: Context) -> Verdict:
    alarms = [a for a in ctx.alarms_of(DOWN) if a[1]["category"] not in DCI]
    if alarms:
        return _down_port(ctx, alarms, "link down", 0.9)
    main = ctx.main
    # no alarm came: read the host port behind the !H itself
    if main is not None and str(ctx.stop_hop().get("status")) == "!H":
        for eid, row in ctx.owners.values():
            if row.get("tor") == trace_of(main).get("stopped_at") and row.get("tor_interface"):
                state, tid = _port_state(ctx, row["tor"], row["tor_interface"])
                if state == "down":
                    return confirmed(f"the host link {row['tor']} {row['tor_interface']} -> "
                                     f"{row['device']} is down; traceroute stops there with !H",
                                     [main.id, eid, tid], row["tor"], row["tor_interface"],
                                     0.85, row["device"], 4)
    return rejected(f"no open link-down alarm on {ctx.scope} or next to them",
                    ctx.alarm_ids)


@check("dci_link_down")
def dci_link_down(ctx: Context) -> Verdict:
    alarms = ctx.alarms_of(DOWN, "open", DCI)
    if alarms:
        return _down_port(ctx, alarms, "DCI/backbone link down", 0.9)
    closed = ctx.alarms_of(DOWN, "any", DCI)
    if closed:
        r = closed[0][1]
        return rejected(f"the DCI/backbone link alarms in the window are closed (e.g. {_where(r)} "
                        f"cleared at {stamp(r['cleared_at'], ctx.zone)}); no circuit is down now",
                        list(dict.fromkeys(eid for eid, _, _ in closed)))
    return rejected(f"no DCI or backbone link alarm on {ctx.scope} in the window", ctx.alarm_ids)


def _counter_check(ctx: Context, alarms: list[Alarm], metric: str, key: str, limit: float,
                   what: str) -> Verdict:
    """Confirm an alarmed port (or, with no alarm, the port where the trace's loss starts)
    whose counter crosses `limit`."""
    targets = [(r["device"], r.get("interface"), eid, pos, r.get("peer")) for eid, r, pos in alarms[:2]]
    if not targets:
        targets = [(d, None, "", 3, None) for d in _loss_devices(ctx)]
    cites: list[str] = []
    for dev, ifname, eid, pos, peer in targets:
        args: dict[str, Any] = {"metric": metric, "devices": [dev], "window": ctx.window, "top": 3}
        if ifname:
            args["interface"] = ifname
        ev = ctx.call("telemetry", args)
        cites += [c for c in (eid, ev.id) if c]
        worst = ev.rows[0] if ev.rows and not ev.errors else None
        if worst and float(worst.get(key) or 0) >= limit:
            return confirmed(f"{what} on {worst['device']} {worst['interface']}: {key} "
                             f"{worst[key]} in the window (threshold {limit})",
                             [c for c in (eid, ev.id) if c], worst["device"], worst["interface"],
                             0.85, peer, pos)
    if not targets:
        return rejected(f"no {what} alarm and no loss on {ctx.probes}", ctx.alarm_ids)
    return rejected(f"telemetry shows no {what} on the suspected ports", cites)


def _loss_devices(ctx: Context) -> list[str]:
    """The two ends of the hop where loss first appears on the main trace."""
    rows = rows_of(ctx.main, Hop) if ctx.main else []
    for prev, hop in zip(rows, rows[1:], strict=False):
        if hop.get("loss_pct") and not prev.get("loss_pct"):
            return [d for d in (prev.get("device"), hop.get("device")) if d]
    return []


@check("link_errors")
def link_errors(ctx: Context) -> Verdict:
    alarms = ctx.alarms_of({"INTERFACE_ERRORS", "OPTICS_RX_LOW"})
    return _counter_check(ctx, alarms, "errors", "max_per_5min", ERRORS_PER_5MIN, "input errors")


@check("link_congestion")
def link_congestion(ctx: Context) -> Verdict:
    alarms = ctx.alarms_of({"HIGH_UTILIZATION"})
    return _counter_check(ctx, alarms, "utilization", "max_pct", UTIL_PCT, "high utilisation")


@check("link_flapping")
def link_flapping(ctx: Context) -> Verdict:
    alarms = ctx.alarms_of({"LINK_FLAP"})
    return _counter_check(ctx, alarms, "flaps", "flaps", FLAPS, "flapping")


ADJACENCY = {"OSPF_DOWN", "ISIS_DOWN", "BFD_DOWN"}


@check("bgp_down")
def bgp_down(ctx: Context) -> Verdict:
    return _session_down(ctx, {"BGP_DOWN"}, "BGP")


@check("adjacency_down")
def adjacency_down(ctx: Context) -> Verdict:
    return _session_down(ctx, ADJACENCY, "OSPF/IS-IS/BFD")


def _session_down(ctx: Context, kinds: set[str], what: str) -> Verdict:
    """A routing session down while the link under it is up (a session over a dead link or to
    a dead peer is that fault's effect, not a cause)."""
    alarms = ctx.alarms_of(kinds)
    if not alarms:
        return rejected(f"no open {what} session-down alarm on {ctx.scope}", ctx.alarm_ids)
    dead = {d for d, _, _ in down_devices(ctx)}
    links = {frozenset((r["device"], r.get("peer"))) for _, r, _ in ctx.alarms_of(DOWN)}
    bare = [a for a in alarms if frozenset((a[1]["device"], a[1].get("peer"))) not in links
            and not {a[1]["device"], a[1].get("peer")} & dead]
    if not bare:
        return rejected(f"the {what} sessions are down because their links or peers are down "
                        "(link alarms explain them)", list(dict.fromkeys(e for e, _, _ in alarms)))
    eid, r, pos = bare[0]
    ev = ctx.call("metadata", {"query": "neighbors", "name": r["device"]})
    link = next((n for n in rows_of(ev, Neighbor) if n.get("neighbor") == r.get("peer")
                 and (not r.get("interface") or n["interface"] == r["interface"])), None)
    if ev.errors or link is None:
        return unknown(f"could not read the link from {r['device']} to {r.get('peer')}", [eid, ev.id])
    if link.get("status") != "up":
        return rejected(f"the link under the session {r['device']} - {r.get('peer')} is "
                        f"{link.get('status')}", [eid, ev.id])
    return confirmed(f"{what} session {r['device']} - {r.get('peer')} is down ({r['message']}) "
                     f"while the link {r['device']} {link['interface']} under it is up",
                     [eid, ev.id], r["device"], link["interface"], 0.85, r.get("peer"), pos)
