"""Faults that came and went (issue 25 item 1): the alarms on a flow that were raised and
cleared, named with their start and end. Asked about a past window, those inside it; asked
about now, those of the last hours (baseline_calls' RECENT read), so that a path healthy now
is never said healthy over what happened on it an hour ago."""

from __future__ import annotations

from netopsai.backends.rows import AlarmRecord
from netopsai.common.localtime import span
from netopsai.copilot.evidence import rows_of
from netopsai.diagnosis.base import Diagnosis, Finding
from netopsai.diagnosis.context import RECENT, Context

SHOWN = 3  # episodes named; the rest counted
# the taxonomy label an alarm's kind stands for, when it is the event of a window
KIND_LABEL = {"DEVICE_REBOOT": "device.reboot", "DEVICE_UNREACHABLE": "device.down",
              "LINK_DOWN": "link.down", "ADMIN_DOWN": "link.down", "OPTICS_LOS": "link.down",
              "ERR_DISABLED": "link.down", "LACP_MEMBER_DOWN": "link.down",
              "LINK_FLAP": "link.flapping", "INTERFACE_ERRORS": "link.errors",
              "OPTICS_RX_LOW": "link.errors", "HIGH_UTILIZATION": "link.congestion",
              "BGP_DOWN": "routing.bgp_down", "OSPF_DOWN": "routing.adjacency_down",
              "ISIS_DOWN": "routing.adjacency_down", "BFD_DOWN": "routing.adjacency_down",
              "PFC_WATCHDOG": "link.pfc_storm"}
FIRST = {"DEVICE_REBOOT": 0, "DEVICE_UNREACHABLE": 0}  # a device's own alarm before its links'


def closed(rows: list[tuple[str, AlarmRecord]]) -> list[tuple[str, AlarmRecord]]:
    out = [(eid, r) for eid, r in rows if r.get("state") == "closed" and r.get("cleared_at")
           and r.get("impact") != "none"]  # a fan or a PSU did not touch the traffic
    return sorted(out, key=lambda x: (FIRST.get(x[1]["kind"], 1), str(x[1]["raised_at"])))


def told(eps: list[tuple[str, AlarmRecord]], zone: str = "UTC") -> str:
    """'LINK_DOWN on leaf3 Ethernet1 2025-11-04 11:35–11:41 PST; …': each with its start and
    end in the network's zone, named (the alarm rows stay ISO UTC)."""
    def one(r: AlarmRecord) -> str:
        where = " ".join(x for x in (r["device"], r.get("interface")) if x)
        when = span(r["raised_at"], r["cleared_at"], zone, beside=False, seconds=False)
        return f"{r['kind']} on {where} {when}"
    more = len(eps) - SHOWN
    return "; ".join(one(r) for _, r in eps[:SHOWN]) + (f"; and {more} more" if more > 0 else "")


def episodes(ctx: Context) -> Finding | None:
    """The flow's closed alarms: inside the asked past window, else of the last hours."""
    if ctx.focus:
        return None
    if ctx.at:  # a past window: what began and ended in it
        rows = [(eid, r) for eid, r in ctx.alarms.values() if ctx.alarm_position(r) > 0]
        eps = closed(rows)
        return Finding(f"began and ended in the window: {told(eps, ctx.zone)}",
                       list(dict.fromkeys(e for e, _ in eps[:SHOWN]))) if eps else None
    rows = [(e.id, r) for e in ctx.recent for r in rows_of(e, AlarmRecord) if ctx.pos.get(r["device"])]
    eps = closed(list({r.get("id"): (eid, r) for eid, r in rows}.values()))
    if not eps:
        return None
    return Finding(f"earlier on this path (the last {RECENT}, cleared since): "
                   f"{told(eps, ctx.zone)}",
                   list(dict.fromkeys(e for e, _ in eps[:SHOWN])))


def past_cause(ctx: Context, d: Diagnosis) -> None:
    """Asked about a past window where nothing was open at its end: the flow's first fault
    that began and ended in it is the window's cause, said as over (relation 'past'; the
    answer's first line names it with its start and end)."""
    if not ctx.at or ctx.focus or d.label not in ("none", "inconclusive"):
        return
    rows = [(eid, r) for eid, r in ctx.alarms.values() if ctx.alarm_position(r) > 0]
    eps = closed(rows)
    if not eps or str(eps[0][1]["kind"]) not in KIND_LABEL:
        return
    eid, r = eps[0]
    d.label, d.device, d.interface = KIND_LABEL[str(r["kind"])], r["device"], r.get("interface")
    d.confidence, d.relation = 0.6, "past"
    d.because = [Finding(f"nothing on the flow's devices was open at the window's end: "
                         f"{r['kind']} on {r['device']} began and ended inside it (above)", [eid]),
                 *d.because]
