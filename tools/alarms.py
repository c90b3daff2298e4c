"""alarms: network alarms by category (incl. DCI and backbone), state, device, site, window."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from netopsai.backends.base import Backends
from netopsai.evidence import Evidence
from netopsai.tools.base import WindowArgs, tool

Category = Literal["link", "device", "bgp", "dci", "backbone", "optics", "capacity"]
COLUMNS = ["id", "raised_at", "cleared_at", "state", "severity", "category", "kind", "device",
           "interface", "message", "impact"]


class AlarmsArgs(WindowArgs):
    category: Category | None = Field(default=None, description=(
        "link, device, bgp, dci (inter-DC circuits), backbone (border-DCI), optics, capacity"))
    state: Literal["open", "closed", "any"] = Field(default="any", description="Alarm state")
    devices: list[str] | None = Field(default=None, description="Only alarms on these devices")
    site: str | None = Field(default=None, description="Only this data centre, e.g. dc1")


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
    return Evidence(tool="alarms", summary=summary, columns=COLUMNS,
                    rows=[{c: r.get(c) for c in COLUMNS} for r in rows], window=w.as_json(),
                    facts={"alarms": len(rows), "open": len(open_), "closed": len(rows) - len(open_),
                           "traffic_lost": len(lost),
                           "devices": sorted({r["device"] for r in rows})})
