"""alarms: network alarms by category (incl. DCI and backbone), state, device, site, window."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import Field

from netopsai.backends.base import Backends
from netopsai.evidence import Evidence
from netopsai.timewin import as_utc
from netopsai.tools.alarm_cases.correlate import compression, correlate
from netopsai.tools.alarm_cases.topology import Topology
from netopsai.tools.base import WindowArgs, as_table, tool
from netopsai.words import count

Category = Literal["link", "device", "bgp", "dci", "backbone", "optics", "capacity", "routing"]
CORRELATE_MIN = 5
MAX_CASES = 50  # cases listed in the facts; the rows carry every alarm's case
COLUMNS = ["id", "raised_at", "cleared_at", "state", "severity", "category", "kind", "device",
           "interface", "peer", "message", "impact"]


class AlarmsArgs(WindowArgs):
    category: Category | None = Field(default=None, description=(
        "link, device, bgp, dci (inter-DC circuits), backbone (border-DCI), optics, capacity, "
        "routing (OSPF, IS-IS, BFD adjacencies)"))
    state: Literal["open", "closed", "any"] = Field(default="any", description="Alarm state")
    devices: list[str] | None = Field(default=None, description="Only alarms on these devices")
    site: str | None = Field(default=None, description="Only this data centre, e.g. dc1")
    correlate: bool = Field(default=False, description=(
        "Group the alarms into cases by topology (both ends of a link or DCI circuit, a device "
        "outage and its neighbours' link/BGP alarms, BGP over a downed link, a burst of links "
        f"with one common end; within {CORRELATE_MIN} minutes): a 'group' column (case id) and a "
        "'root' column, and per case the suggested root-cause alarm and the blast radius"))


SHOWN = ["raised_at", "cleared_at", "state", "kind", "device", "interface", "peer",
         "peer_address", "message"]  # what an answer's table shows (the peer's address: BGP)


@tool("alarms", AlarmsArgs, SHOWN)
def alarms(args: AlarmsArgs, backends: Backends) -> Evidence:
    """Alarms active at any time in a window (raised before its end, not cleared before its
    start), by category, state, devices and site, with whether traffic was fully lost."""
    backends.inventory.check_names(args.devices, args.site)
    w = args.resolve(backends)
    rows = backends.alarms.alarms(args.category, args.state, args.devices, args.site, w)
    open_ = [r for r in rows if r["state"] == "open"]
    lost = [r for r in rows if r["traffic_lost"]]
    what = f"{args.category} alarm" if args.category else "alarm"
    summary = f"{count(len(rows), what)} in the window ({len(open_)} open, {len(rows) - len(open_)} closed)"
    if open_:
        summary += ": open " + "; ".join(f"{r['kind']} on {r['device']}"
                                         f"{' ' + r['interface'] if r['interface'] else ''}"
                                         for r in open_[:6])
    summary += f". {len(lost)} report traffic fully lost." if rows else "."
    sessions = [r for r in rows if r.get("category") == "bgp"]
    if sessions:  # a BGP answer names the neighbour: address, device and the link under it
        summary += " BGP neighbours: " + "; ".join(dict.fromkeys(
            f"{r.get('peer_address') or '?'} ({r.get('peer') or 'device unknown'}"
            f"{' via ' + r['device'] + ' ' + str(r['interface']) if r.get('interface') else ''})"
            for r in sessions[:8])) + (" ..." if len(sessions) > 8 else "") + "."
    columns = [*COLUMNS, *(["peer_address"] if any(r.get("peer_address") for r in rows) else []),
               *(["group", "root"] if args.correlate else [])]
    facts: dict[str, Any] = {"alarms": len(rows), "open": len(open_), "closed": len(rows) - len(open_),
                             "traffic_lost": len(lost), "devices": sorted({r["device"] for r in rows})}
    if args.correlate:
        summary += " " + _cases(as_table(rows), backends, facts)
    return Evidence(tool="alarms", summary=summary, columns=columns,
                    rows=[{c: r.get(c) for c in columns} for r in rows], window=w.as_json(),
                    facts=facts)


def _cases(rows: list[dict[str, Any]], backends: Backends, facts: dict[str, Any]) -> str:
    """Correlate (alarm_cases/): label each row with its case and whether it is the case's
    suggested root; the cases go to facts. Returns the summary's sentence."""
    cases = correlate(rows, Topology(backends.inventory), timedelta(minutes=CORRELATE_MIN))
    for c in cases:
        for a in c.members:
            a["group"], a["root"] = c.id, a is c.root
    ratio = compression(len(rows), cases)
    listed = [c.as_dict() for c in cases[:MAX_CASES]]
    shots = _snapshots(listed, backends)
    facts.update(groups=len(cases), compression=ratio, cases=listed)
    if not cases:
        return "No cases."
    multi = [c for c in cases if len(c.members) > 1][:3]
    text = f"They form {len(cases)} cases ({ratio:g} alarms per case)"
    if multi:
        text += ": " + "; ".join(
            f"{c.id} root {c.root['kind']} on {c.impact['root_device']} with "
            f"{len(c.members) - 1} more ({c.impact['summary']})" for c in multi)
    if shots:
        text += ". Device state captured when they opened: " + "; ".join(shots[:6])
    return text + "."


def _snapshots(cases: list[dict[str, Any]], backends: Backends) -> list[str]:
    """Each case's device snapshots, taken when its alarms opened (netopsai.backends.snapshot),
    under `snapshots`; one phrase per snapshot for the summary. A case whose alarms came inside a
    device's snapshot rate limit has none of its own: the device's snapshot taken in the
    SNAPSHOT_NEAR minutes before its first alarm stands in, said as such."""
    by_device: dict[str, list[Any]] = {}
    said = []
    for case in cases:
        ids = set(case["member_ids"])
        for dev in case["devices"]:
            if dev not in by_device:
                by_device[dev] = backends.inventory.snapshots(dev)
        own = [(dev, snap) for dev in case["devices"] for snap in by_device[dev]
               if snap["alarm_id"] in ids]
        near = [] if own else _near(case, by_device)
        case["snapshots"] = [{"id": snap["id"], "device": dev, "taken_at": snap["taken_at"],
                              "alarm": snap["alarm_id"]} for dev, snap in own or near]
        said += [f"snapshot {snap['id']} of {dev} at {snap['taken_at']} ({case['case']}"
                 f"{'' if own else ', taken just before'})" for dev, snap in own or near]
    return said


SNAPSHOT_NEAR = 10  # minutes: the snapshotter's default per-device rate limit


def _near(case: dict[str, Any], by_device: dict[str, list[Any]]) -> list[tuple[str, Any]]:
    first = as_utc(datetime.fromisoformat(str(case["first_raised"]).replace("Z", "+00:00")))
    best: list[tuple[str, Any]] = []
    for dev in case["devices"]:
        for snap in by_device[dev]:  # newest first
            taken = as_utc(datetime.fromisoformat(str(snap["taken_at"]).replace("Z", "+00:00")))
            if first - timedelta(minutes=SNAPSHOT_NEAR) <= taken <= first:
                best.append((dev, snap))
                break
    return best
