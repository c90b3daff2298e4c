"""events: what devices reported, as received — syslog lines, traps, alerts, understood or not —
on the device's clock, searchable by device, interface (in any of its names), message id and
text. The timeline behind alarms: "what happened to spine2 Hu0/0/0/8 between 10:15 and 10:25?"."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Literal

from pydantic import Field

from netopsai.backends.base import Backends
from netopsai.backends.rows import EventRecord
from netopsai.common.errors import UnknownName
from netopsai.common.textsafe import UNVERIFIED
from netopsai.common.timewin import Window
from netopsai.copilot.evidence import Evidence, cell_text
from netopsai.tools.base import WindowArgs, tool
from netopsai.tools.facts import EventFacts

COLUMNS = list(EventRecord.__annotations__)
SHOWN = ["at", "device", "interface", "mnemonic", "kind", "message"]  # what an answer's table shows


class EventsArgs(WindowArgs):
    devices: list[str] | None = Field(default=None, description="Device names, as the inventory "
                                      "or the log lines name them")
    interface: str | None = Field(default=None, description="One port, in any of its names "
                                  "(Hu0/0/0/8, HundredGigE0/0/0/8; its optics controller too)")
    mnemonic: str | None = Field(default=None, description="The vendor's message id or part of "
                                 "it, e.g. LINK-3-UPDOWN, ADJCHANGE, SNMP_TRAP_LINK_DOWN")
    text: str | None = Field(default=None, description="Words the message contains")
    source: Literal["syslog", "trap", "alertmanager"] | None = Field(
        default=None, description="Only events from this receiver")
    limit: int = Field(default=200, ge=1, le=5000, description="Latest events to return")


@tool("events", EventsArgs, SHOWN)
def events(args: EventsArgs, backends: Backends) -> Evidence:
    """Events devices reported (syslog, SNMP traps, Alertmanager), understood or not, in a time
    window on the device's clock: by device, interface, message id or text. Use for "what
    happened to X", a timeline of a port, or log lines an alarm does not cover."""
    w = args.resolve(backends)
    _check_devices(args.devices, w, backends)
    rows, total = backends.alarms.events(args.devices, w, interface=args.interface,
                                         mnemonic=args.mnemonic, text=args.text,
                                         source=args.source, limit=args.limit)
    about = " ".join(filter(None, [", ".join(args.devices or []) or "all devices",
                                   args.interface, args.mnemonic and f"message id ~{args.mnemonic}",
                                   args.text and f"text ~{args.text!r}"]))
    ids = Counter(r.get("mnemonic") or "(no id)" for r in rows)
    summary = f"{total} event{'s' * (total != 1)} for {about} in the window"
    ports = "" if args.interface else _by_port(rows, named=len(args.devices or []) != 1)
    if ports:  # which ports, first: "which ports flapped on X" is answered by this line
        summary += f", by port: {ports};"
    if rows:
        top = ", ".join(f"{k} x{n}" for k, n in ids.most_common(4))
        summary += (f" {rows[0]['at']} .. {rows[-1]['at']}: {top}; latest: "
                    f"\"{cell_text(rows[-1]['message'], 160)}\"")
    if total > len(rows):
        summary += f" (the latest {len(rows)} shown: narrow the window or the search for the rest)"
    # events whose sender may not speak for the device they name (netopsai.store.naming)
    unverified = sum(str(r.get("message", "")).startswith(UNVERIFIED) for r in rows)
    if unverified:
        summary += (f"; {unverified} {UNVERIFIED} (named a device from an address that is not "
                    "its own nor a relay: kept, raised nothing)")
    facts = EventFacts(events=total, shown=len(rows), by_mnemonic=dict(ids.most_common(10)),
                       devices=sorted({str(r.get("device")) for r in rows}), unverified=unverified)
    return Evidence(tool="events", summary=summary + ".", columns=COLUMNS,
                    rows=[dict(r) for r in rows], facts=dict(facts), window=w.as_json())


def _by_port(rows: list[EventRecord], named: bool, most: int = 6) -> str:
    """The ports the events were about, busiest first, with what they raised or cleared
    ("Ethernet12 (LINK_DOWN x4, OPTICS_LOS x1)"): which ports flapped, read from the lines;
    `named`: each with its device (the events of several devices)."""
    kinds: dict[str, Counter[str]] = {}
    for r in rows:
        if r.get("interface"):
            port = f"{r.get('device')} {r['interface']}" if named else str(r["interface"])
            kinds.setdefault(port, Counter())[str(r.get("kind") or r.get("mnemonic") or "line")] += 1
    busiest = sorted(kinds.items(), key=lambda kv: -sum(kv[1].values()))[:most]
    return ", ".join(f"{port} ({', '.join(f'{k} x{n}' for k, n in c.most_common(3))})"
                     for port, c in busiest) + (f" and {len(kinds) - most} more" if len(kinds) > most else "")


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# lines at any time make a device known: logs are loaded after the fact, and a device's other
# stored name (NAME.domain) may only have lines after the window asked about
LATER = datetime(9999, 1, 1, tzinfo=UTC)


def _check_devices(devices: list[str] | None, w: Window, backends: Backends) -> None:
    """Refuse, as changelog and alarms do, a device name that is nowhere: not in the inventory
    and naming no event ever (a device the inventory lacks may still log: a new switch, a
    sender kept under its own name; those are read, quiet windows included). A typo would
    otherwise answer "0 events"."""
    try:
        backends.inventory.check_names(devices)
    except UnknownName:
        for name in devices or []:
            try:
                backends.inventory.check_names([name])
            except UnknownName:  # with the closest names; run_tool retries another case
                if not backends.alarms.events([name], Window(start=EPOCH, end=LATER), limit=1)[1]:
                    raise  # it never logged: a typo, not a quiet device
