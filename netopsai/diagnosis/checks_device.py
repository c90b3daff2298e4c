"""Verification checks for whole devices: dead, or rebooted.

A device is down when live evidence says so: an open device-unreachable alarm, its neighbours'
ports facing it down, the flow stopping at one of those neighbours; and nothing shows it alive
(it answers a current traceroute, or raises alarms of its own after it went unreachable). The
inventory's status column is a record someone keeps, not live state: a `down` there
corroborates, an `up` there does not outweigh the live signs."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from netopsai.backends.rows import DeviceDetail, Hop
from netopsai.common.localtime import stamp
from netopsai.copilot.evidence import rows_of
from netopsai.diagnosis.base import Verdict, confirmed, rejected
from netopsai.diagnosis.context import Context, trace_of
from netopsai.diagnosis.registry import check

SELF_KINDS = {"DEVICE_UNREACHABLE", "LINK_DOWN"}  # what a dead device looks like from the NMS


def down_devices(ctx: Context) -> list[tuple[str, str, int]]:
    """(device, evidence id, position): DEVICE_UNREACHABLE alarms, then far ends of two or
    more link alarms that raised none of their own (a device reporting alarms is alive)."""
    out = [(r["device"], eid, pos) for eid, r, pos in ctx.alarms_of({"DEVICE_UNREACHABLE"})]
    peers: dict[str, list[str]] = {}
    for eid, r, _ in ctx.alarms_of({"LINK_DOWN"}):
        if (peer := r.get("peer")) and peer not in ctx.reporting():
            peers.setdefault(peer, []).append(eid)
    out += [(p, ids[0], max(ctx.position(p), 1)) for p, ids in peers.items()
            if len(ids) >= 2 and p not in {d for d, _, _ in out}]
    return out


def _time(text: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None


def _alive(ctx: Context, dev: str) -> tuple[str, str] | None:
    """(why, evidence id) when the device shows signs of life: a hop of a current traceroute
    answers from it, or it raised an alarm of its own after it was found unreachable."""
    for t in ctx.traces:
        if any(h.get("device") == dev and h.get("ip") and h.get("status") != "*"
               for h in rows_of(t, Hop)):
            return f"{dev} answers traceroute", t.id
    gone = [_time(r["raised_at"]) for _, r in ctx.alarms.values()
            if r["device"] == dev and r["kind"] == "DEVICE_UNREACHABLE" and r["state"] == "open"]
    since = min((g for g in gone if g is not None), default=None)
    for eid, r in ctx.alarms.values():
        at = _time(r["raised_at"])
        if r["device"] == dev and r["kind"] not in SELF_KINDS and since and at and at > since:
            return (f"{dev} raised {r['kind']} at {stamp(r['raised_at'], ctx.zone)}, after it went "
                    "unreachable", eid)
    return None


def _live_signs(ctx: Context, dev: str) -> tuple[list[str], list[str]]:
    """What live evidence says the device is dead: (phrases, evidence ids)."""
    said: list[str] = []
    cites: list[str] = []
    gone = [(eid, r) for eid, r in ctx.alarms.values() if r["device"] == dev
            and r["kind"] == "DEVICE_UNREACHABLE" and r["state"] == "open"]
    if gone:
        said.append(f"an open unreachable alarm since {stamp(gone[0][1]['raised_at'], ctx.zone)}")
        cites.append(gone[0][0])
    facing = [(eid, r) for eid, r in ctx.alarms.values() if r["kind"] == "LINK_DOWN"
              and r["state"] == "open" and r.get("peer") == dev and r["device"] != dev]
    if facing:
        ports = ", ".join(f"{r['device']} {r.get('interface') or ''}".strip() for _, r in facing[:4])
        said.append(f"its neighbours' ports facing it are down ({ports})")
        cites += [eid for eid, _ in facing]
    main = trace_of(ctx.main)
    stop = main.get("stopped_at") if ctx.main and not main.get("reached") else None
    if stop and stop in {r["device"] for _, r in facing}:
        said.append(f"the flow stops at {stop}, next to it")
        cites.append(ctx.main.id if ctx.main else "")
    return said, cites


def _live_verdict(ctx: Context, dev: str, pos: int, row: DeviceDetail | None,
                  mid: str) -> Verdict | None:
    """Confirmed from live signs alone: an unreachable alarm with its neighbours' ports down, or
    several neighbours' ports down with the flow stopping at one of them."""
    said, cites = _live_signs(ctx, dev)
    unreachable = any(s.startswith("an open unreachable") for s in said)
    if len(said) < 2 or not (unreachable or len(said) == 3):
        return None
    status = f"; the inventory still lists it {row.get('status')}, a record, not live state" \
        if row and row.get("status") else ""
    return confirmed(f"{dev} is down: {'; '.join(said)}; it answers no traceroute{status}",
                     [*cites, mid], dev, None, 0.85, None, pos)


@check("device_down")
def device_down(ctx: Context) -> Verdict:
    cites: list[str] = []
    why: list[str] = []
    for dev, eid, pos in down_devices(ctx)[:3]:
        alive = _alive(ctx, dev)
        if alive is not None:
            why.append(alive[0])
            cites += [eid, alive[1]]
            continue
        row, mid = ctx.device(dev)
        cites += [eid, mid]
        if row and row.get("status") == "down":
            return confirmed(f"{dev} is down: unreachable alarm or its neighbours' link alarms "
                             f"point at it, and the inventory shows it down with "
                             f"{row.get('links_down')} links down", [eid, mid], dev, None, 0.9,
                             None, pos)
        live = _live_verdict(ctx, dev, pos, row, mid)
        if live is not None:
            return live
        listed = cast(DeviceDetail, row or {}).get("status", "unknown")  # {}: no row read
        why.append(f"{dev} is listed {listed} and its neighbours' ports facing it are up")
    if cites:
        return rejected(f"the suspected devices are alive: {'; '.join(why)}", cites)
    return rejected("no device-unreachable alarm and no device that several link alarms point "
                    "at", ctx.alarm_ids)


@check("device_reboot")
def device_reboot(ctx: Context) -> Verdict:
    suspects = [(r["device"], eid, pos) for eid, r, pos in ctx.alarms_of({"DEVICE_REBOOT"}, "any")]
    closed = [(eid, r) for eid, r, _ in ctx.alarms_of({"LINK_DOWN"}, "any") if r["state"] == "closed"]
    suspects += [(p, eid, max(ctx.position(p), 1)) for eid, r in closed
                 if (p := r.get("peer")) and sum(1 for _, x in closed if x.get("peer") == p) >= 2]
    cites: list[str] = []
    for dev, eid, pos in list(dict.fromkeys(suspects))[:3]:
        row, mid = ctx.device(dev)
        cites += [eid, mid]
        booted, start = _booted(row), _window_start(ctx)
        if row is not None and booted is not None and start is not None and booted >= start:
            return confirmed(f"{dev} rebooted: booted at {stamp(row['booted_at'], ctx.zone)} (uptime "
                             f"{row.get('uptime')}), with a reload alarm or a burst of link alarms "
                             f"that cleared", [eid, mid], dev, None, 0.85, None, pos)
    if cites:
        return rejected("the suspected devices have not rebooted in the window (uptime)", cites)
    return rejected(f"no reload alarm and no burst of cleared link alarms on {ctx.scope}",
                    ctx.alarm_ids)


def _booted(row: DeviceDetail | None) -> datetime | None:
    text = cast(DeviceDetail, row or {}).get("booted_at")  # {}: no row, no boot time
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


def _window_start(ctx: Context) -> datetime | None:
    for e in ctx.evidence:
        if e.tool == "alarms" and e.window and e not in ctx.recent:
            return datetime.fromisoformat(e.window["start"].replace("Z", "+00:00"))
    return None
