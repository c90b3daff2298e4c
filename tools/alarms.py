"""alarms: network alarms by category (incl. DCI and backbone), state, device, site, window."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Literal, cast

from pydantic import Field

from netopsai.backends.base import Backends
from netopsai.backends.rows import AlarmRow, SnapshotInfo
from netopsai.common.errors import NetopsError, UnknownName
from netopsai.common.timewin import Window, as_utc, iso
from netopsai.common.words import count
from netopsai.copilot.evidence import Evidence
from netopsai.tools.alarm_cases.correlate import compression, correlate
from netopsai.tools.alarm_cases.fallback import uncorrelated
from netopsai.tools.alarm_cases.topology import Topology
from netopsai.tools.base import WindowArgs, tool
from netopsai.tools.facts import AlarmCase, AlarmFacts, UnknownDevice

log = logging.getLogger("netopsai.tools")

Category = Literal["link", "device", "bgp", "dci", "backbone", "optics", "capacity", "routing"]
# what an on-call means by a category: "DCI link alarms" include the border-DCI backbone links
# (the same inter-DC path), "link alarms" every link's; each answer says what it counted
MEANS: dict[str, tuple[str, ...]] = {"dci": ("dci", "backbone"), "backbone": ("backbone", "dci"),
                                     "link": ("link", "dci", "backbone")}
WHAT = {"dci": "DCI circuits", "backbone": "border-DCI links", "link": "fabric and host links",
        "routing": "OSPF, IS-IS, BFD"}
CORRELATE_MIN = 5
MAX_CASES = 50  # cases listed in the facts; the rows carry every alarm's case
COLUMNS = ["id", "raised_at", "cleared_at", "state", "severity", "category", "kind", "device",
           "interface", "peer", "message", "impact"]


class AlarmsArgs(WindowArgs):
    category: Category | None = Field(default=None, description=(
        "link (every link, DCI and backbone included), device, bgp, dci (inter-DC circuits and "
        "the border-DCI backbone links), backbone (the same two), optics, capacity, routing "
        "(OSPF, IS-IS, BFD adjacencies)"))
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
    w = args.resolve(backends)
    provisional = _check_names(args, backends, w)
    cats = MEANS.get(args.category, (args.category,)) if args.category else ()
    rows = _read(backends, cats, args, w)
    open_ = [r for r in rows if r["state"] == "open"]
    lost = [r for r in rows if r["traffic_lost"]]
    what = f"{args.category} alarm" if args.category else "alarm"
    counted = "; counted: " + ", ".join(f"{c} ({WHAT[c]})" if c in WHAT else c for c in cats) \
        if cats else ""
    summary = (f"{count(len(rows), what)} in the window ({len(open_)} open, "
               f"{len(rows) - len(open_)} closed{counted})")
    if open_:
        summary += ": open " + "; ".join(f"{r['kind']} on {r['device']}"
                                         f"{' ' + r['interface'] if r['interface'] else ''}"
                                         for r in open_[:6])
    summary += f". {len(lost)} report traffic fully lost." if rows else "."
    if args.devices and not rows:
        summary += _none_for(args.devices, provisional, what, w)
    for cat, label in (("bgp", "BGP"), ("routing", "OSPF/IS-IS")):
        summary += _neighbours([r for r in rows if r.get("category") == cat], label)
    columns = [*COLUMNS, *(["peer_address"] if any(r.get("peer_address") for r in rows) else []),
               *(["group", "root"] if args.correlate else [])]
    facts = AlarmFacts(alarms=len(rows), open=len(open_), closed=len(rows) - len(open_),
                       traffic_lost=len(lost), devices=sorted({r["device"] for r in rows}),
                       categories=list(cats))
    if args.correlate:
        summary += " " + _cases(rows, backends, facts, w)
    summary += _strangers(rows, backends, facts, w)
    return Evidence(tool="alarms", summary=summary, columns=columns,
                    rows=[{c: r.get(c) for c in columns} for r in rows], window=w.as_json(),
                    facts=dict(facts))


def _neighbours(sessions: list[AlarmRow], label: str) -> str:
    """A session answer names each neighbour: its address (from the inventory's session or the
    message), its device and the link under it."""
    if not sessions:
        return ""
    return f" {label} neighbours: " + "; ".join(dict.fromkeys(
        f"{r.get('peer_address') or '?'} ({r.get('peer') or 'device unknown'}"
        f"{' via ' + r['device'] + ' ' + str(r['interface']) if r.get('interface') else ''})"
        for r in sessions[:8])) + (" ..." if len(sessions) > 8 else "") + "."


def _read(backends: Backends, cats: tuple[str | None, ...], args: AlarmsArgs,
          w: Window) -> list[AlarmRow]:
    """The rows of every category counted, newest first as one read returns them: the backend's
    records, which correlation labels with their case (AlarmRow's `group` and `root`)."""
    if len(cats) <= 1:
        return cast(list[AlarmRow], list(backends.alarms.alarms(
            cats[0] if cats else None, args.state, args.devices, args.site, w)))
    rows = [r for c in cats for r in backends.alarms.alarms(c, args.state, args.devices,
                                                             args.site, w)]
    return cast(list[AlarmRow], sorted(rows, key=lambda r: str(r["raised_at"]), reverse=True))


def _check_names(args: AlarmsArgs, backends: Backends, w: Window) -> list[str]:
    """The site and devices asked for must exist; a device the inventory lacks may still have
    alarms (a new switch logging before it is imported) or log lines (a provisional device,
    loaded from a server's files), and then it is read, not refused: "no alarms" is an answer
    about it. Only a name neither the inventory nor the logs know is an error. Returns the
    devices known only from their logs."""
    backends.inventory.check_names(None, args.site)
    try:
        backends.inventory.check_names(args.devices)
    except UnknownName:
        provisional = []
        for name in args.devices or []:
            try:
                backends.inventory.check_names([name])
            except UnknownName:
                if not (backends.alarms.alarms(None, "any", [name], None, w)
                        or _logged(backends, name)):
                    raise
                provisional.append(name)
        return provisional
    return []


_EVER = Window(start=datetime(1970, 1, 1, tzinfo=UTC), end=datetime(9999, 1, 1, tzinfo=UTC))


def _logged(backends: Backends, name: str) -> bool:
    """Whether the events store holds any line of `name` (at any time: logs are often loaded
    after the fact, and a device that logged is known whatever window is asked)."""
    try:
        rows, _ = backends.alarms.events([name], _EVER, limit=1)
    except Exception as exc:  # noqa: BLE001 - a store that cannot answer knows no such device
        log.warning("events of %s not read: %s", name, exc)
        return False
    return bool(rows)


def _none_for(devices: list[str], provisional: list[str], what: str, w: Window) -> str:
    """The sentence for asked devices that raised nothing in the window."""
    span = f"{iso(w.start)} – {iso(w.end)}"
    note = (f" ({', '.join(provisional)}: not in the inventory, known from its log lines)"
            if provisional else "")
    return f" No {what}s for {', '.join(devices)} in {span}{note}."


def _cases(rows: list[AlarmRow], backends: Backends, facts: AlarmFacts, w: Window) -> str:
    """Correlate (alarm_cases/): label each row with its case and whether it is the case's
    suggested root; the cases go to facts. Returns the summary's sentence. Correlation that
    fails lists each alarm as a case of its own, with a note: never no rows."""
    try:
        cases = correlate(rows, Topology(backends.inventory), timedelta(minutes=CORRELATE_MIN))
    except Exception as exc:  # noqa: BLE001 - one bad row or reader must not hide the alarms
        log.warning("alarm correlation failed: %s: %s", type(exc).__name__, exc)
        note = f"correlation failed ({type(exc).__name__}: {exc}): each alarm is listed on its own"
        cases, facts["note"] = uncorrelated(rows, note), note
    for c in cases:
        for a in c.members:
            a["group"], a["root"] = c.id, a is c.root
    ratio = compression(len(rows), cases)
    listed = [c.as_dict() for c in cases[:MAX_CASES]]
    facts["groups"], facts["compression"], facts["cases"] = len(cases), ratio, listed
    try:
        shots = _snapshots(listed, backends)
    except NetopsError as exc:  # the cases stand without their snapshots
        shots, facts["snapshots_error"] = [], str(exc)
    if "note" in facts:
        return f"Not grouped into cases: {facts['note']}."
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


def _snapshots(cases: list[AlarmCase], backends: Backends) -> list[str]:
    """Each case's device snapshots, taken when its alarms opened (netopsai.backends.snapshot),
    under `snapshots`; one phrase per snapshot for the summary. A case whose alarms came inside a
    device's snapshot rate limit has none of its own: the device's snapshot taken in the
    SNAPSHOT_NEAR minutes before its first alarm stands in, said as such."""
    by_device: dict[str, list[SnapshotInfo]] = {}
    said = []
    for case in cases:
        ids = set(case["member_ids"])
        for dev in case["devices"]:
            if dev not in by_device:
                by_device[dev] = _device_snapshots(dev, backends)
        own = [(dev, snap) for dev in case["devices"] for snap in by_device[dev]
               if snap["alarm_id"] in ids]
        near = [] if own else _near(case, by_device)
        case["snapshots"] = [{"id": snap["id"], "device": dev, "taken_at": snap["taken_at"],
                              "alarm": snap["alarm_id"]} for dev, snap in own or near]
        said += [f"snapshot {snap['id']} of {dev} at {snap['taken_at']} ({case['case']}"
                 f"{'' if own else ', taken just before'})" for dev, snap in own or near]
    return said


def _device_snapshots(device: str, backends: Backends) -> list[SnapshotInfo]:
    try:
        return list(backends.inventory.snapshots(device))
    except NetopsError:  # a device the inventory does not know has none
        return []


MAX_STRANGERS = 5  # devices not in the inventory named in the summary (facts list them all)


def _strangers(rows: list[AlarmRow], backends: Backends, facts: AlarmFacts,
               w: Window) -> str:
    """The alarms' devices the inventory does not know, each with the addresses its events came
    from (its sender: the device, a relay, the webhook), under facts `unknown_devices` and on
    their cases; the summary's sentence naming them."""
    devices = sorted({str(r["device"]) for r in rows if r.get("device")})
    try:
        topo = Topology(backends.inventory)
        topo.prefetch(set(devices))
        unknown = [d for d in devices if not topo.known(d)]
    except Exception as exc:  # noqa: BLE001 - the alarms stand without this note
        log.warning("alarm devices not checked against the inventory: %s", exc)
        return ""
    if not unknown:
        return ""
    listed: list[UnknownDevice] = []
    for dev in unknown:
        senders = _senders(dev, backends, w)
        cases = [c for c in facts.get("cases", []) if dev in c["devices"]]
        for c in cases:
            c["senders"] = senders
            if c.get("unknown_device") and senders:
                c["impact"]["summary"] += f" (sent from {', '.join(senders)})"
        listed.append(UnknownDevice(device=dev, senders=senders, cases=[c["case"] for c in cases]))
    facts["unknown_devices"] = listed
    said = "; ".join(f"{u['device']} (sent from {', '.join(u['senders']) or 'no stored event'}"
                     f"{'; case ' + ', '.join(u['cases']) if u['cases'] else ''})"
                     for u in listed[:MAX_STRANGERS])
    more = f" and {len(listed) - MAX_STRANGERS} more" if len(listed) > MAX_STRANGERS else ""
    return f" Not in the inventory: {said}{more}."


def _senders(device: str, backends: Backends, w: Window) -> list[str]:
    """Where the device's events in the window came from (their senders' addresses)."""
    try:
        events, _ = backends.alarms.events([device], w, limit=200)
    except Exception as exc:  # noqa: BLE001 - the device is still named, without its senders
        log.warning("events of %s not read: %s", device, exc)
        return []
    return sorted({str(e["host"]) for e in events if e.get("host")})


SNAPSHOT_NEAR = 10  # minutes: the snapshotter's default per-device rate limit


def _near(case: AlarmCase, by_device: dict[str, list[SnapshotInfo]]) -> list[tuple[str, SnapshotInfo]]:
    first = as_utc(datetime.fromisoformat(str(case["first_raised"]).replace("Z", "+00:00")))
    best: list[tuple[str, SnapshotInfo]] = []
    for dev in case["devices"]:
        for snap in by_device[dev]:  # newest first
            taken = as_utc(datetime.fromisoformat(str(snap["taken_at"]).replace("Z", "+00:00")))
            if first - timedelta(minutes=SNAPSHOT_NEAR) <= taken <= first:
                best.append((dev, snap))
                break
    return best
