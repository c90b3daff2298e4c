"""The conclusion's two facts an on-call asks for right after "what and where": how much traffic
it hurts (a partial outage is not the same page as a total one) and since when. Both come from
evidence already gathered, each cited; neither is guessed when the evidence is silent."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from netopsai.backends.rows import AlarmRecord, ChangeRecord, DeviceDetail, Hop, PortCounters, StatusRow
from netopsai.common.errors import NetopsError
from netopsai.common.timewin import iso
from netopsai.common.words import count
from netopsai.copilot.evidence import rows_of
from netopsai.diagnosis.base import Diagnosis, Finding
from netopsai.diagnosis.context import Context, trace_of
from netopsai.tools.port_answers.zoned import stamp, zone


def impact(ctx: Context) -> Finding | None:
    """From the flow's main traceroute: every equal-cost path failing, some of them (with the
    share), or the destination reached but losing probes."""
    m = ctx.main
    if m is None:
        return None
    f = trace_of(m)
    good, paths = f.get("good_paths"), f.get("ecmp_paths")
    if isinstance(paths, int) and isinstance(good, int) and paths > 0:
        if good == 0:
            return Finding(f"total: none of the {count(paths, 'equal-cost path')} delivers, the "
                           f"pair cannot communicate", [m.id])
        if good < paths:
            bad = paths - good
            return Finding(f"partial: {good} of {paths} equal-cost paths deliver; flows hashed "
                           f"onto the other {bad} ({100 * bad / paths:.0f}%) fail", [m.id])
    if not f.get("reached"):
        return Finding("total: the destination is not reached", [m.id])
    loss = max((float(r.get("loss_pct") or 0) for r in rows_of(m, Hop)[-1:]), default=0.0)
    if loss > 0:
        return Finding(f"degraded: the destination answers but {loss:g}% of probes are lost",
                       [m.id])
    return None


def since(ctx: Context, d: Diagnosis) -> Finding | None:
    """The start the history shows: a change on the device (its start), else the earliest open
    alarm there, else for a PFC storm the alarm or sample that shows its start, else the port
    going down in its state history; when the evidence in hand has none of these (a follow-up
    reading a shorter window), the device's last day of changes and alarms is read for it.
    "Not shown" only when none of them has it, saying where it was looked for."""
    if not d.device:
        return None
    found = _from_evidence(ctx, d)
    if found is None and d.label == "link.pfc_storm" and d.interface:
        found = storm_since(ctx, d)
    if found is None:
        found = _from_history(ctx, d)
    if found is not None:
        return found
    looked = [*ctx.change_ids, *ctx.alarm_ids]  # the history reads included
    if looked:  # say that it is unknown, and where it was looked for
        also = "changes and open alarms" if d.label in CONFIG_LABELS else "open alarms"
        return Finding(f"not shown: no change record or open alarm on {d.device} in the window, "
                       f"and none in its last {SINCE_LOOKBACK} of {also}", looked)
    return None


def shown(ctx: Context, value: Any) -> str:
    """A start as the on-call reads it (issue 25 item 5): in the network's zone, named
    ('2026-11-27 00:10:00 PST'); ISO marked Z in UTC ('2026-11-27T08:10:00Z'). The rows it comes
    from (ISO, or telemetry's 'YYYY-MM-DD HH:MM:SS', both UTC) stay as they are."""
    text = str(value or "")
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
        tz = zone(ctx.zone)
    except (ValueError, NetopsError):
        return text  # not a time (or a zone the config checks would have refused): as written
    if ctx.zone.upper() in ("UTC", "Z", "ETC/UTC"):
        return iso(t)
    return stamp(iso(t).replace("T", " ").removesuffix("Z"), tz)


CONFIG_LABELS = ("config.acl_block", "config.mtu_mismatch", "routing.blackhole")
SINCE_LOOKBACK = "24h"  # how far back a Since missing from the evidence in hand is looked for


def _from_evidence(ctx: Context, d: Diagnosis) -> Finding | None:
    on = ctx.changes_on(d.device)
    if on:
        eid, c = on[0]
        return Finding(f"{shown(ctx, c['start'])}, when change {c['ticket']} began on "
                       f"{c['device']}", [eid])
    if d.label == "device.reboot" and d.device:
        booted = _booted(ctx, d.device)
        if booted is not None:
            return booted
    raised = [(eid, r) for eid, r in ctx.alarms.values()
              if r.get("device") == d.device and r.get("state") == "open"]
    if raised:  # the port's own alarm before a session's over it, raised at the same moment
        eid, r = min(raised, key=lambda x: (str(x[1].get("raised_at")),
                                            x[1].get("interface") != d.interface))
        return Finding(f"{shown(ctx, r.get('raised_at'))}, when {r.get('kind')} was raised on "
                       f"{d.device}", [eid])
    facing = [(eid, r) for eid, r in ctx.alarms.values()
              if r.get("peer") == d.device and r.get("state") == "open"
              and d.label != "link.pfc_storm"]  # a storm's watchdog: storm_since says it better
    if facing:  # a silent device (a dead host): its neighbours saw it go
        eid, r = min(facing, key=lambda x: str(x[1].get("raised_at")))
        return Finding(f"{shown(ctx, r.get('raised_at'))}, when {r.get('kind')} was raised on {r['device']} "
                       f"{r.get('interface') or ''} facing {d.device}".replace("  ", " "), [eid])
    return _went_down(ctx, d)


def _booted(ctx: Context, device: str) -> Finding | None:
    """A reboot starts when the device booted (its inventory row, read by the reboot check)."""
    for e in ctx.evidence:
        if e.tool == "metadata" and not e.errors and e.args.get("name") == device and e.rows \
                and rows_of(e, DeviceDetail)[0].get("booted_at"):
            r = rows_of(e, DeviceDetail)[0]
            return Finding(f"{shown(ctx, r['booted_at'])}, when {device} booted (uptime {r.get('uptime')})",
                           [e.id])
    return None


def _went_down(ctx: Context, d: Diagnosis) -> Finding | None:
    """The port's first 'down' in the state history read (telemetry oper_status events)."""
    for e in ctx.evidence:
        if e.tool != "telemetry" or e.errors or e.args.get("metric") != "oper_status":
            continue
        for r in rows_of(e, StatusRow):
            events = str(r.get("events") or "")
            if r.get("device") == d.device and (not d.interface or r.get("interface") == d.interface) \
                    and " down" in events:
                at = events.split(" down", 1)[0].split("; ")[-1]
                return Finding(f"{shown(ctx, at)}, when {d.device} {r.get('interface')} went down",
                               [e.id])
    return None


def _from_history(ctx: Context, d: Diagnosis) -> Finding | None:
    """The device's open alarms over the last day and, for a configuration fault (which raises
    no alarm), its changes (a read each, only when the evidence in hand has no start): the onset
    is kept whatever window a follow-up question read."""
    if d.label in CONFIG_LABELS:
        ch = ctx.call("changelog", {"devices": [d.device], "window": SINCE_LOOKBACK})
        if ch.id and not ch.errors and ch.rows:
            r = rows_of(ch, ChangeRecord)[0]  # the latest
            return Finding(f"{shown(ctx, r['start'])}, when change {r['ticket']} began on {r['device']} (its "
                           f"latest change record in the last {SINCE_LOOKBACK})", [ch.id])
    al = ctx.call("alarms", {"devices": [d.device], "state": "open", "window": SINCE_LOOKBACK})
    if al.id and not al.errors and al.rows:
        a = min(rows_of(al, AlarmRecord), key=lambda x: str(x.get("raised_at")))
        return Finding(f"{shown(ctx, a.get('raised_at'))}, when {a.get('kind')} was raised on "
                       f"{d.device}", [al.id])
    return None


def storm_since(ctx: Context, d: Diagnosis) -> Finding | None:
    """A PFC storm's start: the watchdog alarm on the port facing the storming one (a host NIC
    storms, its rail leaf's watchdog fires; the host raises nothing), found through the link in
    the inventory; else the first 5-minute sample at storm rate (diagnosis/pfc_trace.py)."""
    from netopsai.config.roce import roce_settings
    from netopsai.diagnosis.pfc_trace import far_end, first_over, watchdog_facing

    assert d.device and d.interface
    facing, nb = far_end(ctx.call, d.device, d.interface)
    wd = watchdog_facing(list(ctx.alarms.values()), d.device, d.interface, facing)
    if wd is not None:
        eid, a = wd
        toward = f", facing {d.device} {d.interface}" if a["device"] != d.device else ""
        return Finding(f"{shown(ctx, a['raised_at'])}, when the PFC watchdog on {a['device']} "
                       f"{a.get('interface')}{toward} fired", [eid, *nb])
    pfc = next((e for e in ctx.evidence if e.tool == "telemetry" and not e.errors
                and e.args.get("metric") == "pfc" and e.rows), None)
    if pfc is None:
        return None
    ports = [(d.device, d.interface), *([facing] if facing else [])]
    row = next((r for p in ports for r in rows_of(pfc, PortCounters)
                if (r["device"], r["interface"]) == p), None)
    if row is None:
        return None
    found = first_over(ctx.call, row["device"], row["interface"], pfc.window,
                       roce_settings().storm_per_5min, row, [pfc.id], ctx.zone)
    return Finding(found[0], [*found[1], *nb]) if found else None
