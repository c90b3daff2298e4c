"""Windows the question implies but the text alone cannot give, resolved from the network
through callbacks the graph passes in (nodes.py): "since the maintenance window" starts at the
latest change record in scope; a question about what a device or port did, asked without a
window, about a device that logged nothing that recent (logs loaded after the fact), ends at its
latest event instead of the clock; any question about a device known only from its log lines
(planner/hostnames.py) reads its last day of them. A device stored under more than one name
(with and without a configured domain: config/domains.py) last logged under any of them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from netopsai.common.timewin import iso, parse_duration
from netopsai.planner.entities import Entities

ChangeStart = Callable[[Entities], "tuple[str, str] | None"]
LastSeen = Callable[[Entities], "datetime | None"]
Stored = Callable[[str], list[str]]  # every name a device is stored under (LoggedNames.stored)
# questions about what a device or port did, asked without a window: when the device logged
# nothing that recent (logs loaded after the fact), the window ends at its latest event instead
ANCHORED = {"telemetry.flaps": "1h", "telemetry.status": "1h", "interface.history": "24h",
            "diagnose.device": "6h"}
PROVISIONAL = "24h"  # any other question about a device known only from its log lines


def resolve_window(ent: Entities, intent: str, clock: datetime, change_start: ChangeStart | None,
                   last_seen: LastSeen | None, stored: Stored | None = None) -> list[str]:
    """Set ent.window where the question implies one; the notes that say so. `stored` gives
    the other names a device's lines are stored under: its latest line may be under any."""
    if ent.window is not None:
        return []
    if ent.since_change:
        return [_since_change(ent, clock, change_start)]
    seen = _every_spelling(last_seen, stored) if last_seen is not None else None
    if intent in ANCHORED and ent.devices and seen is not None:
        return _anchor(ent, clock, ANCHORED[intent], seen)
    if ent.provisional and seen is not None:  # known only from its logs, loaded or live:
        notes = _anchor(ent, clock, PROVISIONAL, seen)  # what it said last, whatever asked
        if ent.window is None:  # it logged within the day: that day, not a tool's last hour
            ent.window = PROVISIONAL
            notes.append(f"no window given: the last {PROVISIONAL} of its log lines")
        return notes
    return []


def _every_spelling(last_seen: LastSeen, stored: Stored | None) -> LastSeen:
    """last_seen over the question's devices under every name each is stored under (leaf1 and
    leaf1.dc.example.net are one device: its latest line may be under either)."""
    if stored is None:
        return last_seen

    def seen(ent: Entities) -> datetime | None:
        names = list(dict.fromkeys([*ent.devices, *(a for d in ent.devices for a in stored(d))]))
        return last_seen(replace(ent, devices=names))
    return seen


def _since_change(ent: Entities, clock: datetime, change_start: ChangeStart | None) -> str:
    """'since the maintenance window': from the start of the latest change record in scope."""
    found = change_start(ent) if change_start else None
    if found is None:
        return "no change record found to start \"since the change\" at; each tool's default window"
    ent.window = {"start": found[0], "end": iso(clock)}
    return f"the window starts at {found[1]}"


def _anchor(ent: Entities, clock: datetime, span: str, last_seen: LastSeen) -> list[str]:
    """The `span` up to the devices' latest event, when that is older than `span` itself."""
    latest = last_seen(ent)
    if latest is None or latest >= clock - parse_duration(span):
        return []
    ent.window = {"start": iso(latest - parse_duration(span)),
                  "end": iso(latest + timedelta(seconds=1))}
    return [f"no window given, and {', '.join(ent.devices)} logged nothing in the last {span}: "
            f"the window is the {span} up to its latest event ({iso(latest)})"]
