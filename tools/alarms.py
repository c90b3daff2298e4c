"""alarms: network alarms by category (incl. DCI and backbone), state, device, site, window."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import Field

from netopsai.backends.base import Backends
from netopsai.evidence import Evidence
from netopsai.tools.base import WindowArgs, tool

Category = Literal["link", "device", "bgp", "dci", "backbone", "optics", "capacity"]
CORRELATE_MIN = 5
COLUMNS = ["id", "raised_at", "cleared_at", "state", "severity", "category", "kind", "device",
           "interface", "peer", "message", "impact"]


class AlarmsArgs(WindowArgs):
    category: Category | None = Field(default=None, description=(
        "link, device, bgp, dci (inter-DC circuits), backbone (border-DCI), optics, capacity"))
    state: Literal["open", "closed", "any"] = Field(default="any", description="Alarm state")
    devices: list[str] | None = Field(default=None, description="Only alarms on these devices")
    site: str | None = Field(default=None, description="Only this data centre, e.g. dc1")
    correlate: bool = Field(default=False, description=(
        "Group alarms that one event raised (both ends of a link, or one device, within "
        f"{CORRELATE_MIN} minutes) and add a 'group' column, so one fault is not read as many"))


@tool("alarms", AlarmsArgs)
def alarms(args: AlarmsArgs, backends: Backends) -> Evidence:
    """Alarms active at any time in a window (raised before its end, not cleared before its
    start), by category, state, devices and site, with whether traffic was fully lost."""
    backends.inventory.check_names(args.devices, args.site)
    w = args.resolve(backends)
    rows = backends.alarms.alarms(args.category, args.state, args.devices, args.site, w)
    open_ = [r for r in rows if r["state"] == "open"]
    lost = [r for r in rows if r["traffic_lost"]]
    what = f"{args.category} alarms" if args.category else "alarms"
    summary = f"{len(rows)} {what} in the window ({len(open_)} open, {len(rows) - len(open_)} closed)"
    if open_:
        summary += ": open " + "; ".join(f"{r['kind']} on {r['device']}"
                                         f"{' ' + r['interface'] if r['interface'] else ''}"
                                         for r in open_[:6])
    summary += f". {len(lost)} report traffic fully lost." if rows else "."
    columns = COLUMNS + (["group"] if args.correlate else [])
    facts = {"alarms": len(rows), "open": len(open_), "closed": len(rows) - len(open_),
             "traffic_lost": len(lost), "devices": sorted({r["device"] for r in rows})}
    if args.correlate:
        facts["groups"] = _correlate(rows)
        summary += f" They form {facts['groups']} correlated groups."
    return Evidence(tool="alarms", summary=summary, columns=columns,
                    rows=[{c: r.get(c) for c in columns} for r in rows], window=w.as_json(),
                    facts=facts)


def _correlate(rows: list[dict[str, Any]]) -> int:
    """Label each row with a group (G1, G2 ...): same link (or, without one, same device) and
    raised within CORRELATE_MIN minutes of the group's first alarm. Returns the group count."""
    open_groups: dict[str, tuple[str, datetime]] = {}
    n = 0
    for r in sorted(rows, key=lambda r: r["raised_at"]):
        key = f"link {r['link_id']}" if r.get("link_id") else f"device {r['device']}"
        at = datetime.fromisoformat(r["raised_at"].replace("Z", "+00:00"))
        group = open_groups.get(key)
        if group is None or at - group[1] > timedelta(minutes=CORRELATE_MIN):
            n += 1
            group = open_groups[key] = (f"G{n}", at)
        r["group"] = group[0]
    return n
