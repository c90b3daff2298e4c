"""The Alarms tab's views: open alarms, recent ones and their cases (alarms grouped by topology,
each with a suggested root cause and blast radius), read through the alarms tool so the web app
shows what the copilot would cite. Filtered by site, category, severity, state, device text and
a window; times in the network's zone with UTC beside them; each alarm's acknowledgement or
silence from our store (through the copilot's door, netopsai.copilot.doors). Pure: no gradio
here, so tests call them directly."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, get_args

import pandas as pd
from pandas.io.formats.style import Styler
from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.rows import AlarmRecord, AlarmRow
from netopsai.common.timewin import as_utc
from netopsai.common.words import count
from netopsai.copilot.doors import ack_states, acks_store, call_tool
from netopsai.copilot.evidence import facts_of, rows_of
from netopsai.tools.alarms import Category
from netopsai.tools.facts import AlarmCase, AlarmFacts
from netopsai.ui.gradio.timepick import describe, local_time
from netopsai.ui.gradio.views import inert

ALL = "all"
CATEGORIES = [ALL, *get_args(Category)]
SEVERITIES = [ALL, "critical", "major", "minor", "warning", "info"]
STATES = ["any", "open", "closed"]
SHOWN = ["id", "raised_at", "cleared_at", "state", "severity", "category", "kind", "device",
         "interface", "peer", "message", "ack", "impact"]
# the open table: no cleared/state (open by definition), how bad and who is on it before where
# (the device stays the 8th column, the raised time the 2nd)
OPEN_SHOWN = ["id", "raised_at", "severity", "impact", "category", "kind", "ack", "device",
              "interface", "peer", "message"]
# widths in pixels, not shares: a column keeps the width its words need, so no word breaks
# inside (the cells wrap between words only, alarms.css) and a phone scrolls the table sideways
# instead of squeezing it to a letter a line; at 1440 px each table fits without scrolling
_PX = {"id": 40, "raised_at": 92, "cleared_at": 92, "state": 54, "severity": 76, "impact": 80,
       "category": 80, "kind": 146, "device": 104, "interface": 140, "peer": 100, "ack": 96}
OPEN_MESSAGE_PX, RECENT_MESSAGE_PX = 258, 150  # 1,212 px in all: the table's width at 1440
# list[str | int]: gradio's type for column_widths (a list is invariant, so list[str] is refused)
WIDTHS: list[str | int] = [f"{_PX.get(c, RECENT_MESSAGE_PX)}px" for c in SHOWN]
OPEN_WIDTHS: list[str | int] = [f"{_PX.get(c, OPEN_MESSAGE_PX)}px" for c in OPEN_SHOWN]
CASE_WIDTHS: list[str | int] = ["56px", "230px", "62px", "62px", "96px", "352px", "352px"]
# one wording for one fact: the impact column, the summary and the cases say "traffic lost"
IMPACT_WORDS = {"traffic_lost": "traffic lost", "degraded": "degraded", "none": "none"}
CASE_COLUMNS = ["case", "suggested root cause", "alarms", "state", "first raised", "blast radius",
                "why"]
# (severity cell background, its text, the row's tint): white on red-700 / orange-700 is 6.5:1 /
# 5.2:1, dark text on amber and grey is above 10:1 (WCAG AA is 4.5:1); the text colour is set
# everywhere so a dark theme's light text never lands on a light tint
COLOURS = {"critical": ("#b91c1c", "#ffffff", "#fee2e2"), "major": ("#c2410c", "#ffffff", "#ffedd5"),
           "minor": ("#fcd34d", "#111827", "#fef9c3"), "warning": ("#d1d5db", "#111827", "#f3f4f6"),
           "info": ("#e5e7eb", "#111827", "#f9fafb")}

ACKED = "background-color: #dbeafe; color: #1e3a8a; font-weight: 600"  # blue-100 / blue-900: 9:1


@dataclass
class Filters:
    site: str = ALL
    category: str = ALL
    severity: str = ALL
    state: str = "any"  # of the window's table; the open table is open alarms by definition
    device: str = ""  # a part of the device's (or its peer's) name
    show_silenced: bool = False

    def words(self) -> str:
        """'critical link alarms on devices matching "leaf-03" in dc2' for an empty table's note."""
        parts = [p for p in (self.severity, self.category) if p and p != ALL]
        text = " ".join([*parts, "alarms"])
        if self.device.strip():
            text += f' on devices matching "{self.device.strip()}"'
        return text + (f" in {self.site}" if self.site and self.site != ALL else "")


class ShownAlarm(AlarmRow, total=False):
    """An alarm as the tab shows it: the tool's row with its acknowledgement or silence."""

    ack: str  # AckState.text in the network's zone, "" for none
    ack_state: str  # acked | silenced | ""


@dataclass
class AlarmsData:
    open_rows: list[ShownAlarm] = field(default_factory=list)
    rows: list[ShownAlarm] = field(default_factory=list)  # the window's, newest first
    cases: list[AlarmCase] = field(default_factory=list)
    summary: str = ""
    when: str = ""  # the window in words, zone and UTC
    clock: datetime | None = None  # the network's clock the window ends at
    hidden: int = 0  # silenced open alarms left out of the open table
    error: str | None = None
    read: str = ""  # the alarms tool's own summary, before the severity and device filters


def sites(backends: Backends) -> list[str]:
    return [ALL, *(s["site"] for s in backends.inventory.sites())]


def store_of(backends: Backends) -> Engine:
    """The store the inventory reads (acks live beside the alarms), else NETOPSAI_HOME's."""
    return acks_store(backends)


def _keep(row: AlarmRow, f: Filters) -> bool:
    text = f.device.strip().lower()
    if text and text not in f"{row.get('device') or ''} {row.get('peer') or ''}".lower():
        return False
    return f.severity in ("", ALL) or row.get("severity") == f.severity


def read_alarms(backends: Backends, f: Filters, window: str | dict[str, str],
                engine: Engine | None = None) -> AlarmsData:
    """Both tables' rows and the cases, each row with its `ack` text. A bad filter or window
    comes back as `error` (the tool's message), never an exception."""
    args: dict[str, Any] = {"window": window or "24h"}
    if f.site and f.site != ALL:
        args["site"] = f.site
    if f.category and f.category != ALL:
        args["category"] = f.category
    open_ev = call_tool(backends, "alarms", {**args, "state": "open"})
    recent = call_tool(backends, "alarms", {**args, "state": f.state or "any", "correlate": True})
    if recent.errors and not open_ev.errors:  # the cases failed: the alarms are still shown
        failed = recent.errors[0]
        recent = call_tool(backends, "alarms", {**args, "state": f.state or "any"})
        recent.facts.setdefault("note", f"cases not read: {failed}")
    errors = open_ev.errors or recent.errors
    if errors:
        return AlarmsData(summary=f"**error:** {inert(errors[0])}", error=errors[0])
    clock = backends.inventory.clock()
    open_rows = [r for r in rows_of(open_ev, ShownAlarm) if _keep(r, f)]
    rows = [r for r in rows_of(recent, ShownAlarm) if _keep(r, f)]
    state = ack_states(backends, [r["id"] for r in open_rows + rows], clock, engine)
    for r in open_rows + rows:
        st = state.get(int(r["id"]))
        r["ack"], r["ack_state"] = (st.text(backends.zone), st.state) if st else ("", "")
    shown = [r for r in open_rows if f.show_silenced or r["ack_state"] != "silenced"]
    ids = {r["id"] for r in rows}
    facts = facts_of(recent, AlarmFacts)
    cases = [c for c in facts.get("cases", []) if ids & set(c.get("member_ids", []))]
    acked = sum(1 for r in open_rows if r["ack_state"] == "acked")
    lost = sum(1 for r in open_rows if r.get("traffic_lost") or r.get("impact") == "traffic_lost")
    summary = (f"**{len(open_rows)} open** ({acked} acknowledged, {len(open_rows) - len(shown)} "
               f"silenced) · {lost} with {IMPACT_WORDS['traffic_lost']} · "
               f"{count(len(rows), 'alarm')} in the window · {count(len(cases), 'case')}"
               f"{_notes(facts)}")
    return AlarmsData(_worst(shown), _newest(rows), cases, summary,
                      describe(recent.window, window, backends.zone), clock,
                      len(open_rows) - len(shown), read=inert(recent.summary))


def _notes(facts: AlarmFacts) -> str:
    """What the on-call must not miss above the tables (network text made inert): devices the
    inventory does not know, with their senders, and cases that could not be built."""
    out = ""
    strangers = facts.get("unknown_devices") or []
    if strangers:
        out += "  \n**not in the inventory:** " + inert("; ".join(
            f"{u['device']} (sent from {', '.join(u['senders']) or 'no stored event'})"
            for u in strangers[:8]) + (f" and {len(strangers) - 8} more" if len(strangers) > 8 else ""))
    if facts.get("note"):
        out += f"  \n**note:** {inert(str(facts['note']))}"
    return out


def _newest(rows: list[ShownAlarm]) -> list[ShownAlarm]:
    return sorted(rows, key=lambda r: (r.get("raised_at") or "", r.get("id") or 0), reverse=True)


def _worst(rows: list[ShownAlarm]) -> list[ShownAlarm]:
    """Open alarms as an on-call reads them: the most severe first, newest first within."""
    rank = {s: i for i, s in enumerate(SEVERITIES[1:])}
    return sorted(_newest(rows), key=lambda r: rank.get(str(r.get("severity")), len(rank)))


def alarm_frame(rows: Sequence[ShownAlarm], zone: str | None = None,
                columns: list[str] = SHOWN) -> pd.DataFrame:
    """The table as shown: times in the network's zone (UTC beside), the impact in the words
    the summary uses, every column as text."""
    out = []
    for r in rows:
        row = {c: r.get(c) for c in columns}
        row["raised_at"] = local_time(r.get("raised_at"), zone)
        if "cleared_at" in row:
            row["cleared_at"] = local_time(r.get("cleared_at"), zone)
        if "impact" in row:
            row["impact"] = IMPACT_WORDS.get(str(r.get("impact")), r.get("impact"))
        out.append({c: "" if v is None else v for c, v in row.items()})
    return pd.DataFrame(out, columns=columns)


def styled(frame: pd.DataFrame) -> Styler:
    """Severity colours: the severity cell filled, the rest of the row tinted; an acknowledged
    or silenced alarm's ack cell in blue, so the handled ones stand apart."""
    def paint(row: pd.Series) -> list[str]:
        cell, text, tint = COLOURS.get(str(row.get("severity")), ("", "", ""))
        base = f"background-color: {tint}; color: #111827" if cell else ""
        out = [f"background-color: {cell}; color: {text}; font-weight: 600" if c == "severity" and cell
               else base for c in row.index]
        if row.get("ack"):
            out[list(row.index).index("ack")] = ACKED
        return out
    return frame.style.apply(paint, axis=1)


def empty_note(data: AlarmsData, f: Filters, which: str) -> str:
    """What an empty table means, in words ("no open alarms in dc2 for the last 24h"); a count
    and the silenced ones left out otherwise."""
    if data.error:
        return ""
    rows = data.open_rows if which == "open" else data.rows
    state = "open " if which == "open" else ("" if f.state in ("", "any") else f"{f.state} ")
    what = f"{state}{f.words()}"
    hidden = (f" ({data.hidden} silenced, hidden: tick 'show silenced')"
              if which == "open" and data.hidden else "")
    if not rows:
        return f"**no {what}** {data.when}{hidden}"
    return f"**{len(rows)}** {what} {data.when}{hidden}"


def cases_frame(cases: list[AlarmCase], zone: str | None = None) -> pd.DataFrame:
    """One row a case, open ones and the largest first (the tool's order)."""
    rows = [{"case": c["case"], "suggested root cause": f"{c['root_kind']} on {c['root_device']}"
             + (f" {c['root_interface']}" if c["root_interface"] else "")
             + (" (not in the inventory)" if c.get("unknown_device") else ""),
             "alarms": c["alarms"], "state": c["state"],
             "first raised": local_time(c["first_raised"], zone),
             "blast radius": c["impact"]["summary"], "why": c["reason"]} for c in cases]
    return pd.DataFrame(rows, columns=CASE_COLUMNS)


def alarms_and_cases(backends: Backends, site: str = ALL, category: str = ALL, window: str = "24h",
                     ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, str]:
    """(open alarms, the window's alarms, their cases, a summary) with the default filters."""
    data = read_alarms(backends, Filters(site=site, category=category, show_silenced=True), window)
    summary = data.summary + (f"  \n<small>window {data.when}</small>" if data.when else "")
    return (alarm_frame(data.open_rows, backends.zone), alarm_frame(data.rows, backends.zone),
            cases_frame(data.cases, backends.zone), summary)


def alarms_view(backends: Backends, site: str = ALL, category: str = ALL,
                window: str = "24h") -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """(open alarms, alarms active in the window, a one-paragraph summary)."""
    open_now, recent, _, summary = alarms_and_cases(backends, site, category, window)
    return open_now, recent, summary


def _since(raised: str | None, clock: datetime | None) -> str:
    """The planner reads the last 24h by default: an older alarm's question names its window."""
    if not raised or clock is None:
        return ""
    age = as_utc(clock) - as_utc(datetime.fromisoformat(raised.replace("Z", "+00:00")))
    return "" if age <= timedelta(hours=23) else f" in the last {age.days + 1}d"


def question_for(row: AlarmRecord, clock: datetime | None = None) -> str:
    """The question the offline planner answers best for an alarm: a port's history for an
    alarm on an interface, the device's diagnosis otherwise."""
    return _question(row.get("device") or "", row.get("interface") or "", row.get("raised_at"),
                     clock)


def _question(device: str, iface: str, raised: str | None, clock: datetime | None) -> str:
    since = _since(raised, clock)
    if iface:
        return f"what happened to {device} {iface}{since}"
    return f"what is wrong with {device}{since}?"


def diagnosis_question(device: str, raised: str | None, clock: datetime | None = None) -> str:
    """What "Diagnose this" asks: the device's diagnosis (the cause, its impact and since when,
    what else it explains), in a window that reaches back to the alarm."""
    return f"what is wrong with {device}{_since(raised, clock)}?"


def case_of(row: ShownAlarm, cases: list[AlarmCase]) -> AlarmCase | None:
    """The case an alarm belongs to (its blast radius), when the window's cases hold it."""
    return next((c for c in cases if row.get("id") in (c.get("member_ids") or [])), None)


def diagnose_context(row: ShownAlarm | None, case: AlarmCase | None,
                     zone: str | None = None) -> str:
    """The chat's note before the diagnosis: the alarm (or case) it starts from, who is on it,
    and the case's blast radius and root alarm (markdown, network text inert)."""
    parts = []
    if row:
        where = " ".join(str(row.get(k)) for k in ("device", "interface") if row.get(k))
        parts.append(f"alarm #{row['id']} {row.get('kind')} on {where} · {row.get('severity')} · "
                     f"raised {local_time(row.get('raised_at'), zone)} · "
                     f"{row.get('ack') or 'not acknowledged'}")
    if case:
        root = " ".join(str(x) for x in (case.get("root_device"), case.get("root_interface")) if x)
        parts.append(f"case {case['case']}: {count(int(case.get('alarms') or 0), 'alarm')}, suggested "
                     f"root {case.get('root_kind')} on {root}; blast radius: "
                     f"{(case.get('impact') or {}).get('summary') or 'not known'}")
    return inert("From the Alarms tab: " + "  \n".join(parts))


def case_question(case: AlarmCase, clock: datetime | None = None) -> str:
    """A case's question is its suggested root alarm's."""
    return _question(case.get("root_device") or "", case.get("root_interface") or "",
                     case.get("first_raised"), clock)


def detail(row: ShownAlarm | None, zone: str | None = None) -> str:
    """The selected alarm in full (markdown, network text made inert): nothing cut short."""
    if not row:
        return "_select an alarm in a table (click its row) to acknowledge, silence or diagnose it_"
    where = " ".join(str(row.get(k)) for k in ("device", "interface") if row.get(k))
    peer = f" → {row['peer']}" if row.get("peer") else ""
    ack = f"  \n**{row['ack']}**" if row.get("ack") else "  \nnot acknowledged"
    return inert(f"**#{row['id']} {row.get('kind')}** · {row.get('severity')} · "
                 f"{row.get('state')} · {where}{peer}  \nraised {local_time(row.get('raised_at'), zone)}"
                 f"{' · cleared ' + local_time(row.get('cleared_at'), zone) if row.get('cleared_at') else ''}"
                 f"  \n> {row.get('message') or ''}{ack}")
