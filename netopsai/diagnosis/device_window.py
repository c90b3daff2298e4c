"""A device's asked window (issue 25 item 1): what began and ended on it inside the window.

A device diagnosis checks what is wrong as the window ends; a fault that came and went (an
alarm raised and cleared, ports that went down and came back, a reload) is not open any more
and no check confirms it. Without this, "what happened to spine2 between 09:00 and 10:00?"
over a BGP clear or a link that bounced was answered "looks healthy". Here those events are
named with their start and end: asked about a past window (or "what happened", "timeline"),
they are the answer, a timeline; asked about now, the device's state now leads and what came
and went in the last hours follows it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from netopsai.backends.rows import AlarmRecord, StatusRow
from netopsai.common.localtime import events
from netopsai.common.words import plain
from netopsai.copilot.evidence import rows_of
from netopsai.diagnosis.answer import span
from netopsai.diagnosis.base import Diagnosis, Finding
from netopsai.diagnosis.context import Context
from netopsai.diagnosis.episodes import KIND_LABEL, closed, told

HISTORY = re.compile(r"\bwhat happened\b|\bwhat went on\b|\btimeline\b|\bhistory\b|\bevents?\b"
                     r"|\bwhat (?:was|went) wrong\b", re.I)
PORTS_SHOWN = 4


def said(window: Any, zone: str = "UTC") -> str:
    """The window as the answer says it, in the network's zone: 'the last 6h', '2025-11-04
    16:55–17:15 UTC'."""
    return span(window, zone) if isinstance(window, dict) else f"the last {window}"


def alarms_of(ctx: Context, name: str) -> list[tuple[str, AlarmRecord]]:
    """The device's alarms (its own, and its neighbours' facing it) that were raised and
    cleared in the window read, a device's own alarm first, then by start."""
    rows = [(eid, r) for eid, r in ctx.alarms.values() if name in (r.get("device"), r.get("peer"))]
    return closed(rows)


def port_changes(ctx: Context, name: str) -> tuple[str, list[StatusRow]]:
    """The device's ports that changed state in the window and are up at its end (the state
    history of the oper_status read), with that evidence's id."""
    for e in ctx.evidence:
        if (e.tool == "telemetry" and not e.errors and e.args.get("metric") == "oper_status"
                and name in (e.args.get("devices") or [])):
            rows = [r for r in rows_of(e, StatusRow)
                    if r.get("device") == name and int(r.get("transitions") or 0)
                    and r.get("state_at_end") == "up"]
            return e.id, rows
    return "", []


def _ports_text(rows: list[StatusRow], zone: str = "UTC") -> str:
    shown = "; ".join(f"{r['interface']} {events(r.get('events') or '', zone)}".strip()
                      for r in rows[:PORTS_SHOWN])
    more = len(rows) - PORTS_SHOWN
    return (f"{len(rows)} port{'s' if len(rows) != 1 else ''} went down and came back "
            f"({shown}{f'; and {more} more' if more > 0 else ''})")


def timeline(ctx: Context, name: str) -> Finding | None:
    """'DEVICE_REBOOT on X 2025-11-04 17:00–17:04 UTC; …; 17 ports went down and came back
    (…)': everything that came and went on the device in the window, cited."""
    eps = alarms_of(ctx, name)
    eid, ports = port_changes(ctx, name)
    parts = [told(eps, ctx.zone)] if eps else []
    if ports:  # after alarms that said it, the state history only backs them up
        parts.append(f"its ports' state history agrees ({len(ports)} went down and came back)"
                     if eps else _ports_text(ports, ctx.zone))
    if not parts:
        return None
    cites = [*dict.fromkeys(e for e, _ in eps[:3])] + ([eid] if ports and eid else [])
    return Finding("; ".join(parts), cites)


def came_and_went(ctx: Context, d: Diagnosis, name: str, window_said: str) -> None:
    """Over a diagnosis that found nothing open on the device: a timeline when the question is
    about a past window or asks what happened (the event of the window is the answer, said as
    over: relation 'past'); asked about now, 'healthy now' keeps the lead and the events of the
    last hours follow it."""
    t = timeline(ctx, name)
    if t is None or d.label not in ("none", "inconclusive"):
        return
    eps = alarms_of(ctx, name)
    if ctx.at or HISTORY.search(ctx.question or ""):
        first: Mapping[str, Any] = eps[0][1] if eps else {}
        _, ports = port_changes(ctx, name)
        bounced = "link.flapping" if any(int(r.get("flaps") or 0) > 1 for r in ports) else "link.down"
        d.label = KIND_LABEL.get(str(first.get("kind")), bounced) if eps else bounced
        d.device = name
        own = first.get("interface") if first.get("device") == name else None
        d.interface = own or (ports[0]["interface"] if not eps and len(ports) == 1 else None)
        d.confidence, d.relation = 0.75, "past"
        d.answer = Finding(f"What happened to {name}: came and went in {window_said} — {t.text}",
                           t.cites)
        d.because = [Finding(f"nothing is open on {name} at the window's end: {plain(d.label)} "
                             "began and ended inside it (above)", t.cites)]
        d.next_steps = [f"Nothing is open on {name} now: check why it happened (the log lines "
                        "around the start, a change just before it) before it comes back."]
        return
    d.answer = Finding(f"{name} now: no fault open — earlier in {window_said}, cleared since: "
                       f"{t.text}", t.cites)
    d.secondary = [Finding(f"came and went on {name} in {window_said}: {t.text}", t.cites),
                   *d.secondary]
