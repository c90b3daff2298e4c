"""Symptom predicates: how plausible a hypothesis is from the evidence already in hand (no tool
calls), in [0, 1]. They order and prune the taxonomy search; checks decide."""

from __future__ import annotations

from netopsai.backends.rows import Hop
from netopsai.copilot.evidence import rows_of
from netopsai.diagnosis.context import Context, trace_of
from netopsai.diagnosis.registry import symptom

# shared/specs/scenario.md: dci.link_down is a DCI circuit or a backbone (border to DCI) link
DCI = {"dci", "backbone"}
# a port out of service, whatever took it out: the oper state, a shut, an err-disable
DOWN = {"LINK_DOWN", "ADMIN_DOWN", "ERR_DISABLED"}
ALARMED = 0.9  # an alarm about the flow: strong, but a stop code in the trace is direct


def _stop_status(ctx: Context, prefix: str) -> bool:
    return any(not trace_of(t).get("reached") and str(ctx.stop_hop(t).get("status", "")).startswith(prefix)
               for t in ctx.traces)


def _failing(ctx: Context, word: str) -> bool:
    return any(word in str(f.get("reason", "")) for t in ctx.traces if (f := trace_of(t).get("failing")))


def _open(ctx: Context, *kinds: str, dci: bool | None = False) -> float:
    cats = None
    rows = ctx.alarms_of(set(kinds), "open", cats)
    if dci is not None:
        rows = [x for x in rows if (x[1]["category"] in DCI) == dci]
    return ALARMED if rows else 0.0


@symptom("trace_filtered")
def trace_filtered(ctx: Context) -> float:
    return 1.0 if _stop_status(ctx, "!X") or _failing(ctx, "ACL") else 0.0


@symptom("trace_mtu")
def trace_mtu(ctx: Context) -> float:
    return 1.0 if _stop_status(ctx, "!F") or _failing(ctx, "MTU") else 0.0


@symptom("trace_silent")
def trace_silent(ctx: Context) -> float:
    return 0.9 if _stop_status(ctx, "*") or _failing(ctx, "null route") else 0.0


@symptom("trace_host_silent")
def trace_host_silent(ctx: Context) -> float:
    """No reply at the very end: the path reached the destination's ToR."""
    tors = {row.get("tor") for _, row in ctx.owners.values()}
    return 0.9 if _stop_status(ctx, "*") and ctx.main and trace_of(ctx.main).get("stopped_at") in tors \
        else 0.0


@symptom("trace_no_route")
def trace_no_route(ctx: Context) -> float:
    return 0.6 if _stop_status(ctx, "!N") else 0.0


@symptom("trace_source_cut")
def trace_source_cut(ctx: Context) -> float:
    """The probe cannot leave the source host: its link or its ToR is gone."""
    m = ctx.main
    return 0.6 if m and not trace_of(m).get("reached") and not trace_of(m).get("path_devices") else 0.0


@symptom("trace_host_unreachable")
def trace_host_unreachable(ctx: Context) -> float:
    return 0.8 if _stop_status(ctx, "!H") else 0.0


@symptom("trace_loss")
def trace_loss(ctx: Context) -> float:
    return 0.5 if any(h.get("loss_pct") for t in ctx.traces for h in rows_of(t, Hop)) else 0.0


@symptom("ecmp_degraded")
def ecmp_degraded(ctx: Context) -> float:
    m = ctx.main
    return 0.4 if m and trace_of(m).get("reached") and trace_of(m).get("failing") else 0.0


def _link_alarms(ctx: Context, dci: bool) -> float:
    """Strong for a link alarm of its own; weak when its device or far end is unreachable
    (then it is that device's symptom, worth ruling out but not a lead of its own)."""
    rows = [r for _, r, _ in ctx.alarms_of(DOWN) if (r["category"] in DCI) == dci]
    if not rows:
        return 0.0
    dead = {r["device"] for _, r, _ in ctx.alarms_of({"DEVICE_UNREACHABLE"})}
    return ALARMED if any(not {r["device"], r.get("peer")} & dead for r in rows) else 0.3


@symptom("link_down_alarm")
def link_down_alarm(ctx: Context) -> float:
    return _link_alarms(ctx, dci=False)


@symptom("dci_alarm")
def dci_alarm(ctx: Context) -> float:
    if _link_alarms(ctx, dci=True):
        return _link_alarms(ctx, dci=True)
    closed = ctx.alarms_of(DOWN, "any", DCI)
    return 0.2 if closed else 0.0  # closed circuit alarms: worth ruling out, visibly


@symptom("flap_alarm")
def flap_alarm(ctx: Context) -> float:
    return _open(ctx, "LINK_FLAP", dci=None)


@symptom("error_alarm")
def error_alarm(ctx: Context) -> float:
    return _open(ctx, "INTERFACE_ERRORS", dci=None)


@symptom("optics_alarm")
def optics_alarm(ctx: Context) -> float:
    return _open(ctx, "OPTICS_RX_LOW", dci=None)


@symptom("utilization_alarm")
def utilization_alarm(ctx: Context) -> float:
    return _open(ctx, "HIGH_UTILIZATION", dci=None)


@symptom("device_unreachable_alarm")
def device_unreachable_alarm(ctx: Context) -> float:
    return _open(ctx, "DEVICE_UNREACHABLE", dci=None)


@symptom("links_down_to_one_peer")
def links_down_to_one_peer(ctx: Context) -> float:
    """Several link alarms whose far end is the same device: that device may be down."""
    alive = ctx.reporting()
    peers = [r.get("peer") for _, r, _ in ctx.alarms_of({"LINK_DOWN"})
             if r.get("peer") and r["peer"] not in alive]
    return 0.5 if any(peers.count(p) >= 2 for p in peers) else 0.0


@symptom("reboot_alarm")
def reboot_alarm(ctx: Context) -> float:
    return ALARMED if ctx.alarms_of({"DEVICE_REBOOT"}, "any") else 0.0


@symptom("cleared_link_burst")
def cleared_link_burst(ctx: Context) -> float:
    closed = [r for _, r, _ in ctx.alarms_of({"LINK_DOWN"}, "any") if r["state"] == "closed"]
    peers = [r.get("peer") for r in closed]
    return 0.5 if any(peers.count(p) >= 2 for p in peers if p) else 0.0


@symptom("bgp_down_alarm")
def bgp_down_alarm(ctx: Context) -> float:
    return _sessions(ctx, {"BGP_DOWN"})


@symptom("adjacency_alarm")
def adjacency_alarm(ctx: Context) -> float:
    return _sessions(ctx, {"OSPF_DOWN", "ISIS_DOWN", "BFD_DOWN"})


def _sessions(ctx: Context, kinds: set[str]) -> float:
    """Strong only for a session whose link has no link-down alarm: a session over a dead link
    is that link's symptom, worth ruling out but not a lead of its own."""
    sessions = ctx.alarms_of(kinds)
    if not sessions:
        return 0.0
    links = {frozenset((r["device"], r.get("peer"))) for _, r, _ in ctx.alarms_of(DOWN)}
    bare = [r for _, r, _ in sessions if frozenset((r["device"], r.get("peer"))) not in links]
    return ALARMED if bare else 0.3


@symptom("change_on_flow")
def change_on_flow(ctx: Context) -> float:
    """A change record on a device of the flow: a reason to test config hypotheses, never a
    cause by itself (a harmless change must be ruled out, not blamed)."""
    return 0.2 if any(ctx.position(r["device"]) >= 2 for _, r in ctx.changes) else 0.0
