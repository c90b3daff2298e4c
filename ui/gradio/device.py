"""The Device tab's content (issue 13, §Device page): one device's facts, interfaces with their
live state and changes in the window, neighbours, open alarms and cases, recent changes, log
lines and a port-state timeline. The reads are the copilot's (`Copilot.device`, here
copilot/device.py's read_device over the backends): its own tools, so the page shows exactly
what an answer would cite; this module only renders the DeviceView. Pure functions, no gradio."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Any, cast

import pandas as pd

from netopsai.backends.base import Backends
from netopsai.backends.rows import (
    AlarmRecord,
    ChangeRecord,
    DeviceDetail,
    EventRecord,
    FilterRule,
    InterfaceInfo,
    Neighbor,
    SnapshotInfo,
    StatusRow,
)
from netopsai.common.words import count
from netopsai.copilot.device import (
    EVENTS_SHOWN,
    DevicePanels,
    DeviceView,
    device_names,
    read_device,
    zone_info,
)
from netopsai.copilot.evidence import Evidence, cell_text, facts_of, rows_of
from netopsai.copilot.payload import EvidenceDump
from netopsai.tools.facts import AlarmFacts
from netopsai.ui.gradio.alarms import cases_frame
from netopsai.ui.gradio.device_snapshots import SNAPSHOT_COLUMNS, snapshots_frame
from netopsai.ui.gradio.timepick import local_time  # gradio is loaded by .alarms already
from netopsai.ui.gradio.views import MAX_PORTS, status_timeline

DASH = "—"  # an empty value: never "None" or "nan"
WINDOWS = ["1h", "6h", "24h", "7d"]
__all__ = ["EVENTS_SHOWN", "DevicePage", "device_names", "device_page", "when", "zone_info"]
_UP, _DOWN = "#16a34a", "#dc2626"
IFACE_COLUMNS = ["interface", "state", "admin", "last change", "in the window", "description",
                 "speed", "mtu", "ip"]
NEIGHBOUR_COLUMNS = ["interface", "neighbour", "neighbour port", "kind", "status", "circuit"]
ALARM_COLUMNS = ["raised", "severity", "kind", "interface", "peer", "message", "impact"]
CHANGE_COLUMNS = ["ticket", "start", "end", "kind", "summary", "author", "status"]
EVENT_COLUMNS = ["at", "interface", "source", "mnemonic", "message"]
TIMELINE_COLUMNS = ["time", "up", "port"]
FACTS = [("role", "role"), ("site", "site"), ("PoD", "pod"), ("rack", "rack"),
         ("vendor", "vendor"), ("model", "model"), ("OS", "os_version"), ("mgmt IP", "mgmt_ip"),
         ("loopback", "loopback"), ("ASN", "asn"), ("uptime", "uptime"), ("booted", "booted_at")]


def _empty(columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(columns=columns)


@dataclass
class DevicePage:
    """What the Device tab shows; `status` is one line: what is shown, or why nothing is."""

    name: str = ""
    status: str = ""
    facts: str = ""  # HTML, every value escaped
    interfaces: pd.DataFrame = field(default_factory=lambda: _empty(IFACE_COLUMNS))
    neighbours: pd.DataFrame = field(default_factory=lambda: _empty(NEIGHBOUR_COLUMNS))
    alarms: pd.DataFrame = field(default_factory=lambda: _empty(ALARM_COLUMNS))
    cases: pd.DataFrame = field(default_factory=lambda: cases_frame([]))
    changes: pd.DataFrame = field(default_factory=lambda: _empty(CHANGE_COLUMNS))
    events: pd.DataFrame = field(default_factory=lambda: _empty(EVENT_COLUMNS))
    timeline: pd.DataFrame = field(default_factory=lambda: _empty(TIMELINE_COLUMNS))
    snapshots: pd.DataFrame = field(default_factory=lambda: _empty(SNAPSHOT_COLUMNS))
    errors: list[str] = field(default_factory=list)


def text(v: Any) -> str:
    return DASH if v is None or v == "" else cell_text(v)


def when(value: Any, zone: tzinfo) -> str:
    """An ISO time (or telemetry's "YYYY-MM-DD HH:MM:SS", UTC) as wall time in the network's zone,
    marked with it as the alarms page marks it ('… 09:41 PST (17:41Z)', '… 08:10Z' in UTC): a
    bare time is read in the reader's own zone (issue 25 item 5)."""
    if value is None or value == "":
        return DASH
    try:
        t = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return cell_text(value)
    t = t.replace(tzinfo=UTC) if t.tzinfo is None else t
    return local_time(t, _zone_name(zone), seconds=bool(t.second))


def _zone_name(zone: tzinfo) -> str:
    return str(getattr(zone, "key", None) or datetime.now(zone).tzname() or "UTC")


def _table(rows: Sequence[Mapping[str, Any]], columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame([{c: text(r.get(c)) for c in columns} for r in rows], columns=columns)


def _speed(mbps: Any) -> str:
    if not mbps:
        return DASH
    return f"{mbps / 1000:g}G" if mbps >= 1000 else f"{mbps}M"


def _duration(seconds: Any) -> str:
    s = int(seconds or 0)
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 60}m" + (f"{s % 60:02d}s" if s % 60 else "")


def _transitions(port: StatusRow) -> list[tuple[str, str]]:
    """telemetry's "2025-11-04 19:20:00 down; …" as (time, new state) pairs."""
    items = (x.strip() for x in str(port.get("events") or "").split(";"))
    return [(stamp, state) for stamp, _, state in (x.rpartition(" ") for x in items if x)]


def _in_window(port: StatusRow | None) -> str:
    if port is None:  # the tool lists only ports that were not up throughout
        return "no change"
    n = int(port.get("transitions") or 0)
    changes = f"{n} change{'s' * (n != 1)}" if n else "no change"
    down = port.get("down_s") or 0
    return f"{changes}, down {_duration(down)}" if down else changes


def _last_change(port: StatusRow | None, zone: tzinfo) -> str:
    moves = _transitions(port) if port else []
    if not moves:
        return DASH
    stamp, state = moves[-1]
    return f"{state} at {when(stamp, zone)}"


def _natural(name: str) -> list[Any]:
    """Ethernet2 before Ethernet10: digit runs compare as numbers."""
    return [(0, int(x), "") if x.isdigit() else (1, 0, x) for x in re.split(r"(\d+)", name) if x]


def interfaces_frame(ifaces: list[InterfaceInfo], ports: dict[str, StatusRow],
                     zone: tzinfo) -> pd.DataFrame:
    """One row per interface, those down now first: the state now (the inventory's oper
    status), the last transition and what the window saw (telemetry)."""
    rows = [{"interface": i["name"], "state": text(i.get("oper_status")),
             "admin": text(i.get("admin_status")),
             "last change": _last_change(ports.get(i["name"]), zone),
             "in the window": _in_window(ports.get(i["name"])),
             "description": text(i.get("description")), "speed": _speed(i.get("speed_mbps")),
             "mtu": text(i.get("mtu")), "ip": text(i.get("ip"))} for i in ifaces]
    rows.sort(key=lambda r: (r["state"] == "up", _natural(r["interface"])))
    return pd.DataFrame(rows, columns=IFACE_COLUMNS)


def timeline_frame(tele: Evidence, ifaces: list[InterfaceInfo], name: str,
                   zone: tzinfo) -> pd.DataFrame:
    """status_timeline over the device's ports: down at the end first, then the most changed;
    quiet ports fill up to MAX_PORTS lines so a healthy device still shows its ports up. Times
    are the network zone's wall time (the plot has no zone of its own)."""
    if tele.errors or not tele.window:
        return _empty(TIMELINE_COLUMNS)
    moved = sorted(rows_of(tele, StatusRow),
                   key=lambda r: (r.get("state_at_end") == "up", -(r.get("transitions") or 0)))
    seen = {r["interface"] for r in moved}
    quiet = [{"device": name, "interface": i["name"], "state_at_start": "up", "state_at_end": "up"}
             for i in sorted(ifaces, key=lambda i: _natural(i["name"])) if i["name"] not in seen
             and i.get("oper_status") == "up" and i.get("speed_mbps")]  # an SVI has no telemetry
    # the timeline of an evidence record made of the moved ports then the quiet ones
    frame = status_timeline(cast(EvidenceDump, {"window": tele.window, "rows": [*moved, *quiet][:MAX_PORTS]}))
    frame["port"] = frame["port"].str.removeprefix(f"{name} ")
    frame["time"] = pd.to_datetime(frame["time"], utc=True).dt.tz_convert(zone).dt.tz_localize(None)
    return frame


def _filters_html(ev: Evidence, zone: tzinfo) -> str:
    if ev.errors:
        return ""
    rules = [f"{r.get('kind')} {r.get('name')} {r.get('action')} {r.get('src') or 'any'} → "
             f"{r.get('dst')}" + (f" since {when(r['since'], zone)}" if r.get("since") else "")
             for r in rows_of(ev, FilterRule)]
    body = "; ".join(html.escape(x) for x in rules) if rules else "none"
    colour = f' style="color:{_DOWN}"' if rules else ""
    return f"<p><small>traffic-dropping rules in force</small><br><b{colour}>{body}</b></p>"


def facts_html(dev: DeviceDetail, filters: Evidence, zone: tzinfo) -> str:
    """The device card: status first, then the inventory's facts and the rules that drop
    traffic. Every value is escaped: descriptions and names come from the network."""
    status = text(dev.get("status"))
    colour = _UP if status == "up" else _DOWN
    cells = [f'<div><small>{label}</small><br><b>'
             f'{html.escape(when(dev.get(k), zone) if k == "booted_at" else text(dev.get(k)))}'
             f"</b></div>" for label, k in FACTS]
    links = (f"{count(dev.get('interfaces') or 0, 'interface')}, "
             f"{count(dev.get('links_down') or 0, 'link')} down")
    return (f'<div class="np-device"><h3 style="margin:0 0 6px">{html.escape(text(dev.get("name")))} '
            f'<span style="color:{colour}">● {html.escape(status)}</span> '
            f"<small>{html.escape(links)}</small></h3>"
            '<div style="display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));'
            f'gap:4px 16px">{"".join(cells)}</div>{_filters_html(filters, zone)}</div>')


def neighbours_frame(rows: list[Neighbor]) -> pd.DataFrame:
    out = [{"interface": r.get("interface"), "neighbour": r.get("neighbor"),
            "neighbour port": r.get("neighbor_interface"), "kind": r.get("kind"),
            "status": r.get("status"),
            "circuit": " ".join(str(x) for x in (r.get("circuit_id"), r.get("provider")) if x)}
           for r in rows]
    out.sort(key=lambda r: r["status"] == "up")
    return _table(out, NEIGHBOUR_COLUMNS)


def _alarms_frame(rows: list[AlarmRecord], zone: tzinfo) -> pd.DataFrame:
    newest = sorted(rows, key=lambda r: r.get("raised_at") or "", reverse=True)
    return _table([{**r, "raised": when(r.get("raised_at"), zone)} for r in newest], ALARM_COLUMNS)


def _cases_frame(ev: Evidence, name: str, zone: tzinfo) -> pd.DataFrame:
    """The window's cases that involve the device (as root or member), their times zoned."""
    mine = [c for c in facts_of(ev, AlarmFacts).get("cases", []) if name in c.get("devices", [])]
    frame = cases_frame(mine)
    frame["first raised"] = [when(t, zone) for t in frame["first raised"]]
    return frame.astype(object).where(frame.notna(), DASH)


def _changes_frame(rows: list[ChangeRecord], zone: tzinfo) -> pd.DataFrame:
    newest = sorted(rows, key=lambda r: r.get("start") or "", reverse=True)
    return _table([{**r, "start": when(r.get("start"), zone), "end": when(r.get("end"), zone)}
                   for r in newest], CHANGE_COLUMNS)


def _events_frame(rows: list[EventRecord], zone: tzinfo) -> pd.DataFrame:
    newest = list(reversed(rows))  # the tool returns the latest, oldest first
    return _table([{**r, "at": when(r.get("at"), zone)} for r in newest], EVENT_COLUMNS)


def _status(page: DevicePage, tele: Evidence, zone: tzinfo) -> str:
    down = int((page.interfaces["state"] != "up").sum())
    w = tele.window or {}
    span = (f" · window {when(w.get('start'), zone)} .. {when(w.get('end'), zone)} {_zone_name(zone)}"
            if w else "")
    counts = (f"{down} of {count(len(page.interfaces), 'interface')} down · "
              f"{count(len(page.alarms), 'open alarm')} · {count(len(page.cases), 'case')} · "
              f"{count(len(page.changes), 'change record')} · {count(len(page.events), 'log line')}")
    return f"{page.name}: {counts}{span}"


def device_page(backends: Backends, name: str, window: str = "24h") -> DevicePage:
    """The page of one device. An unknown name (or a bad window) comes back as the tools'
    one-line error, with their suggestions; a tool that fails leaves its panel empty and
    says so in `errors`."""
    return render(read_device(backends, name, window))


def render(view: DeviceView) -> DevicePage:
    """The page for the copilot's DeviceView: an inventory device's panels, a device known
    only from its logs, or the one line that says why nothing is shown."""
    if view.inventory is not None:
        return _assemble(view.name, view.inventory, view.zone)
    if view.logged is not None:
        from netopsai.ui.gradio.device_logged import logged_page

        return logged_page(view.logged, view.zone)
    return DevicePage(name=view.name, status=view.status, errors=view.errors)


def _assemble(name: str, panels: DevicePanels, zone: tzinfo) -> DevicePage:
    p, evs = panels, panels.all()
    ports = {str(r["interface"]): r for r in rows_of(p.telemetry, StatusRow)}
    ifaces = rows_of(p.interfaces, InterfaceInfo)
    page = DevicePage(
        name=name, facts=facts_html(p.device, p.filters, zone),
        interfaces=interfaces_frame(ifaces, ports, zone),
        neighbours=neighbours_frame(rows_of(p.neighbours, Neighbor)),
        alarms=_alarms_frame(rows_of(p.open_alarms, AlarmRecord), zone),
        cases=_cases_frame(p.cases, name, zone),
        changes=_changes_frame(rows_of(p.changes, ChangeRecord), zone),
        events=_events_frame(rows_of(p.events, EventRecord), zone),
        timeline=timeline_frame(p.telemetry, ifaces, name, zone),
        snapshots=snapshots_frame(rows_of(p.snapshots, SnapshotInfo), lambda v: when(v, zone)),
        errors=[f"{e.tool}: {err}" for e in evs for err in e.errors])
    page.status = _status(page, p.telemetry, zone)
    return page
