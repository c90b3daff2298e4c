"""Port state answers that lead with what changed in the window.

A real switch has many ports down all the time (unused, never cabled, shut because nobody
configured them); sorted by time down they fill the answer and hide the one port that went
down. So each row gets a `change` (went down, came back, flapped, down and back …) and rows are
ordered: changes first (earliest first), then ports down all window with admin up (never up),
then ports administratively down. The summary says the same in that order."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import tzinfo
from typing import Any

from netopsai.common.words import count
from netopsai.tools.facts import PortStateFacts
from netopsai.tools.port_answers.zoned import events_in, stamp, transitions

ORDER = {"went down": 0, "flapped": 0, "down and back": 0, "came back": 0, "back and down again": 0,
         "never up": 1, "admin down": 2}
NAMED = 6  # ports a summary names per kind


def change(r: Mapping[str, Any]) -> str:
    """What happened to one port in the window, in an on-call's words. Any state but up
    (down, lowerLayerDown, notPresent, dormant …) carries no traffic: it counts as down."""
    start, end, n = r["state_at_start"] == "up", r["state_at_end"] == "up", r["transitions"]
    if not n:
        return "admin down" if r.get("admin_status") == "down" else "never up"
    if r["flaps"] >= 2:
        return "flapped"
    if start != end:
        return "came back" if end else "went down"
    return "down and back" if start else "back and down again"


def annotate(rows: list[dict[str, Any]], tz: tzinfo) -> list[dict[str, Any]]:
    """Each row with its `change` and `changes` (the events in `tz`, zone named), ordered
    changes first (by first transition), then never up, then admin down."""
    for r in rows:
        r["change"] = change(r)
        r["changes"] = events_in(str(r.get("events") or ""), tz)
    return sorted(rows, key=lambda r: (ORDER[r["change"]], _first(r), r["device"], r["interface"]))


def _first(r: Mapping[str, Any]) -> str:
    ts = transitions(str(r.get("events") or ""))
    return ts[0][0] if ts else ""


def _port(r: Mapping[str, Any], tz: tzinfo, state: str | None = None) -> str:
    """'leaf4 Hu0/0/0/1 at 09:41:20 PST (admin shut)': the time of its first `state`."""
    at = next((t for t, s in transitions(str(r.get("events") or "")) if state in (None, s)), None)
    shut = " (admin shut)" if r.get("admin_status") == "down" and r["state_at_end"] == "down" else ""
    return f"{r['device']} {r['interface']}" + (f" at {stamp(at, tz, with_date=False)}" if at else "") + shut


def _named(rows: list[dict[str, Any]], tz: tzinfo, state: str | None = None) -> str:
    shown = ", ".join(_port(r, tz, state) for r in rows[:NAMED])
    return shown + (f" and {len(rows) - NAMED} more" if len(rows) > NAMED else "")


def summary(rows: list[dict[str, Any]], total: int, scope: str, tz: tzinfo) -> tuple[str, PortStateFacts]:
    """The answer's sentence for annotated rows, and its facts."""
    by: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["change"], []).append(r)
    moved = [r for r in rows if r["transitions"]]
    went = by.get("went down", []) + by.get("back and down again", [])
    back = by.get("came back", [])
    round_trip = by.get("down and back", []) + by.get("flapped", [])
    parts = []
    if moved:
        parts.append(f"{count(len(moved), 'port')} changed state in the window")
        parts += [f"went down: {_named(went, tz, 'down')}"] if went else []
        parts += [f"came back up: {_named(back, tz, 'up')}"] if back else []
        parts += [f"went down and came back: {_named(round_trip, tz, 'down')}"] if round_trip else []
        parts.append(f"newly down at its end: {len(went)}" if went else "none newly down at its end")
    else:
        parts.append("no port changed state in the window")
    text = f"{count(total, 'port')} on {scope}: " + "; ".join(parts) + "."
    never, shut = by.get("never up", []), by.get("admin down", [])
    if never or shut:
        few = f" ({_named(never, tz)})" if never and not shut and len(never) <= NAMED else ""
        text += (f" Down all window, not changes: {len(shut)} administratively down, "
                 f"{len(never)} admin up but never up in the window{few}.")
    up = total - len(rows)
    text += f" {up} up throughout."
    down_now = [r for r in rows if r["state_at_end"] == "down"]
    facts = PortStateFacts(ports=total, up_throughout=up, changed=len(moved), down_now=len(down_now),
                           flapping=len(by.get("flapped", [])), went_down=len(went),
                           came_back=len(back), down_and_back=len(round_trip), newly_down=len(went),
                           admin_down=len(shut), never_up=len(never))
    return text, facts
