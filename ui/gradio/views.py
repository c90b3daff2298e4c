"""What the web app shows beside an answer, built from evidence dicts (as `Copilot.answer`
returns them): linked citations, the evidence rows, the traceroute path and telemetry plots.
Pure functions, no gradio, so they are tested without a server."""

from __future__ import annotations

import html
import re
from datetime import datetime
from typing import Any
from urllib.parse import quote

import pandas as pd

from netopsai.backends.rows import Hop, PortCounters, PortStatus, figure
from netopsai.common.zones import zone_of
from netopsai.copilot.evidence import CITATION, cell_text
from netopsai.copilot.payload import EvidenceDump, dump_facts, dump_rows
from netopsai.tools.facts import CounterFacts, PortStateFacts, TraceFacts
from netopsai.ui.gradio.evhead import evidence_header

MAX_ROWS = 50  # rows a page of an evidence table shows; later pages open on demand
MAX_PAGES = 20  # beyond this many pages, the panel says how to get the whole table
MAX_PORTS = 8  # a timeline with more lines than this is unreadable
_WARM = ["#dc2626", "#ea580c", "#b91c1c", "#d97706", "#be185d", "#9a3412", "#f43f5e", "#a16207"]
_COOL = ["#2563eb", "#16a34a", "#0891b2", "#7c3aed", "#0d9488", "#4f46e5", "#65a30d", "#475569"]
_OK, _WARN, _BAD, _GREY = "#16a34a", "#d97706", "#dc2626", "#6b7280"
GOOD = ("ok", "reached")
# a hop's verdict first (status, loss, delay), then where it is: a 1440 px screen's side panel
# shows loss_pct without scrolling sideways
HOP_COLUMNS = ["hop", "device", "status", "loss_pct", "rtt_ms", "ip", "interface"]


def anchor(evidence_id: str) -> str:
    return f"ev-{evidence_id}"


_REF_DEF = re.compile(r"^(\s*)\[([^\]\n]+)\]:", re.M)


def inert(markdown: str) -> str:
    """Text from evidence or a model, unable to load anything once rendered: no HTML (`<` shown
    as text) and no link or image (`[x](url)`, `![x](url)`, `[x][ref]`, `[ref]: url` keep their
    characters but lose their meaning). Our own citation links are added after this."""
    text = markdown.replace("<", "&lt;").replace("](", "]\\(").replace("][", "]\\[")
    return _REF_DEF.sub(lambda m: f"{m.group(1)}\\[{m.group(2)}]:", text)


_LINKABLE = re.compile(r"\\?" + CITATION.pattern)  # inert() escapes the second of "[E3][E4]"


def link_citations(answer: str, known: set[str]) -> str:
    """[E1] -> a link to the evidence panel's entry, so a citation shows the rows behind it."""
    def link(m: re.Match[str]) -> str:
        eid = m.group(1)
        return f"[\\[{eid}\\]](#{anchor(eid)})" if eid in known else m.group(0)
    return _LINKABLE.sub(link, answer)


def device_href(name: str) -> str:
    """The device page's address, relative to the app (`?device=NAME`)."""
    return f"?device={quote(name, safe='')}"


_NAME = re.compile(r"(?<![\w.\-/=\[])[A-Za-z0-9][A-Za-z0-9_.\-]*[A-Za-z0-9](?![\w\-]|\]\()")


def ask_href(question: str) -> str:
    """An in-app link that asks `question` in the chat's thread (the page's click handler,
    app.IN_APP_CLICKS, fills the box and submits: no new tab, no reload)."""
    return f"#ask={quote(question, safe='')}"


def link_devices(markdown: str, names: set[str], hosts: set[str] | frozenset[str] = frozenset()) -> str:
    """Each known device name outside code spans becomes a link to its page, each host name a
    link asking its details in the thread. Run after `inert` (the names come from our
    inventory, the text around them may not)."""
    def link(m: re.Match[str]) -> str:
        name = m.group(0)
        if name in hosts:
            return f"[{name}]({ask_href(f'details of {name}')})"
        return f"[{name}]({device_href(name)})" if name in names else name
    parts = markdown.split("`")
    return "`".join(_NAME.sub(link, p) if i % 2 == 0 else p for i, p in enumerate(parts))


def split_details(answer: str, rows_too: bool = True) -> tuple[str, str]:
    """(what the chat shows, what it folds away): the evidence list always goes below; a
    diagnosis's row tables too, so its conclusion is what fills the screen (`rows_too`). A
    lookup's rows are its answer and stay."""
    below = ("Rows of [", "### Evidence") if rows_too else ("### Evidence",)
    paras = answer.split("\n\n")
    at = next((i for i, p in enumerate(paras) if p.lstrip().startswith(below)), len(paras))
    return "\n\n".join(paras[:at]).strip(), "\n\n".join(paras[at:]).strip()


def _cell(v: Any) -> str:
    return html.escape(cell_text(v))


def _first(cols: list[str]) -> list[str]:
    """The column an on-call reads first (a hop's status: !X, *) right after the device, so a
    narrow panel shows it without scrolling."""
    if "status" in cols and "device" in cols:
        cols = [c for c in cols if c != "status"]
        cols.insert(cols.index("device") + 1, "status")
    return cols


# prose columns wrap between words; every other cell (names, addresses, ports) stays whole
PROSE = {"summary", "message", "description", "why", "reason", "events", "text", "detail"}


def _table(cols: list[str], rows: list[dict[str, Any]]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    kind = [' class="np-text"' if c in PROSE else "" for c in cols]
    body = "".join("<tr>" + "".join(f"<td{k}>{_cell(r.get(c))}</td>" for c, k in zip(cols, kind, strict=True))
                   + "</tr>" for r in rows)
    return f'<div class="np-scroll"><table class="np-rows"><tr>{head}</tr>{body}</table></div>'


def rows_table(columns: list[str], rows: list[dict[str, Any]], limit: int = MAX_ROWS) -> str:
    """Every row, a page at a time: the first page open, each further page a fold of its own
    (up to MAX_PAGES; the rest are counted, never dropped without a word)."""
    if not rows:
        return "<p><i>no rows</i></p>"
    cols = _first(columns or list(rows[0]))
    out = [_table(cols, rows[:limit])]
    shown = min(len(rows), limit * MAX_PAGES)
    for start in range(limit, shown, limit):
        end = min(start + limit, len(rows))
        out.append(f'<details class="np-page"><summary>rows {start + 1}–{end} of {len(rows)}'
                   f"</summary>{_table(cols, rows[start:end])}</details>")
    if shown < len(rows):
        out.append(f"<p><i>{len(rows) - shown} more rows: <code>netopsai tool … --format csv"
                   f"</code> prints them all</i></p>")
    return "".join(out)


def _columns(ev: EvidenceDump) -> list[str]:
    """A traceroute's hops with their verdict first (HOP_COLUMNS), like the path panel. A port
    state table's `events` (bare UTC times, what the diagnosis parses) is left out when its
    `changes` (the same events in the asked zone, named) is there: every time shown carries its
    zone (issue 25 item 5); the row, the CSV and the citations keep it."""
    cols = list(ev.get("columns") or [])
    if "changes" in cols:
        cols = [c for c in cols if c != "events"]
    if ev.get("tool") != "traceroute":
        return cols
    return [c for c in HOP_COLUMNS if c in cols] + [c for c in cols if c not in HOP_COLUMNS]


def evidence_html(evidence: list[EvidenceDump], current: set[str] | None = None,
                  zone: str = "UTC") -> str:
    """Every evidence of the conversation: this turn's first, in order and open, then earlier
    turns' newest first. Each entry carries the anchor the answer's citations link to, under a
    header in words (evhead: tool, scope, window in the network's `zone`)."""
    if not evidence:
        return "<p><i>Evidence behind the answers shows here.</i></p>"
    current = current if current is not None else {e["id"] for e in evidence}
    # annotated: mypy reads the sum of the two lists as list[Any], and every key below unchecked
    ordered: list[EvidenceDump] = [e for e in evidence if e["id"] in current] + \
        [e for e in reversed(evidence) if e["id"] not in current]
    out = []
    for ev in ordered:
        errors = "".join(f'<p style="color:{_BAD}">error: {html.escape(e)}</p>'
                         for e in ev.get("errors") or [])
        is_open = " open" if ev["id"] in current else ""
        out.append(
            f'<details id="{anchor(ev["id"])}" class="np-ev"{is_open}><summary><b>[{ev["id"]}] '
            f'{html.escape(evidence_header(ev, zone))}</b></summary>'
            f'<p>{html.escape(ev.get("summary", ""))}</p>{errors}'
            f'{rows_table(_columns(ev), ev.get("rows", []))}</details>')
    return "\n".join(out)


def _node(label: str, colour: str, title: str = "") -> str:
    return (f'<span title="{html.escape(title)}" style="display:inline-block;padding:2px 8px;'
            f'margin:2px;border:2px solid {colour};border-radius:6px;white-space:nowrap">'
            f"{html.escape(label)}</span>")


def _path_nodes(rows: list[Hop]) -> list[tuple[str, str, str]]:
    """(label, colour, tooltip) per device: red where the trace stops (!X, !H, !N, *, !F-mtu),
    amber where a hop loses packets. A device answering twice (the hop that rejects) shows
    once, with its worst status."""
    nodes: list[tuple[str, str, str]] = []
    for r in rows:
        status = str(r.get("status") or "ok")
        bad = status not in GOOD
        name = str(r.get("device") or r.get("ip") or "*")
        label = ("* no answer" if name == "*" else f"{name} {status}") if bad else name
        colour = _BAD if bad else (_WARN if (r.get("loss_pct") or 0) > 0 else _OK)
        tip = f"hop {r.get('hop')} {r.get('ip') or ''} {r.get('interface') or ''} {r.get('rtt_ms') or ''} ms"
        if nodes and nodes[-1][0].split()[0] == name:
            if bad:
                nodes[-1] = (label, colour, tip)
            continue
        nodes.append((label, colour, tip))
    return nodes


def path_html(ev: EvidenceDump) -> str:
    """A traceroute as a chain of devices coloured by status, then its full hop table."""
    args, facts = ev.get("args", {}), dump_facts(ev, TraceFacts)
    reached = bool(facts.get("reached"))
    chain = [_node(str(args.get("src", "source")), _GREY, "source")]
    chain += [_node(*n) for n in _path_nodes(dump_rows(ev, Hop))]
    chain.append(_node(str(args.get("dst", "destination")), _OK if reached else _GREY,
                       "destination reached" if reached else "destination not reached"))
    arrow = ' <span style="color:#9ca3af">&rarr;</span> '
    verdict = ("reached the destination" if reached else
               f"did NOT reach the destination: {facts.get('reason') or 'stopped'}")
    return (f'<div class="np-path"><p><b>[{ev["id"]}] traceroute {html.escape(str(args.get("src")))} '
            f'&rarr; {html.escape(str(args.get("dst")))}</b>: {html.escape(verdict)}</p>'
            f'<div>{arrow.join(chain)}</div>'
            f'{rows_table(HOP_COLUMNS, ev.get("rows", []))}</div>')


def trace_of(evidence: list[EvidenceDump]) -> EvidenceDump | None:
    """The turn's first traceroute (the one a diagnosis starts from)."""
    return next((e for e in evidence if e["tool"] == "traceroute" and e.get("rows")), None)


def _ts(text: str) -> pd.Timestamp:
    return pd.Timestamp(datetime.fromisoformat(text.replace("Z", "+00:00")))


BAND = 1.5  # one band per port: down at its floor, up 1 above it, half a band of gap between


def status_timeline(ev: EvidenceDump) -> pd.DataFrame:
    """Port up (1) / down (0) over the window as a step line per port: each transition is two
    points at the same time, the old state then the new. `band` draws each port in a band of
    its own (the first port on top), so eight 0/1 lines never sit on one another."""
    window = ev.get("window") or {}
    start, end = _ts(window["start"]), _ts(window["end"])
    points: list[dict[str, Any]] = []
    rows = dump_rows(ev, PortStatus)[:MAX_PORTS]
    for i, r in enumerate(rows):
        port = f"{r['device']} {r['interface']}"
        floor = (len(rows) - 1 - i) * BAND
        state = 1 if r.get("state_at_start") == "up" else 0
        steps = [(start, state)]
        for item in filter(None, (x.strip() for x in str(r.get("events") or "").split(";"))):
            stamp, new = item.rsplit(" ", 1)
            at = pd.Timestamp(stamp, tz="UTC")
            steps += [(at, state), (at, 1 if new == "up" else 0)]
            state = 1 if new == "up" else 0
        steps.append((end, 1 if r.get("state_at_end") == "up" else 0))
        points += [{"time": t, "up": u, "port": port, "band": floor + u} for t, u in steps]
    return pd.DataFrame(points, columns=["time", "up", "port", "band"])


def counter_bars(ev: EvidenceDump) -> pd.DataFrame:
    """Counter telemetry (errors, discards, utilisation, rx power): the worst ports' headline
    value (the first numeric column) as bars; status answers with no changed port show the
    port counts instead."""
    rows = dump_rows(ev, PortCounters)
    if rows and "state_at_start" not in rows[0]:
        key = next(k for k in rows[0] if k not in ("device", "interface"))
        return pd.DataFrame([{"port": f"{r['device']} {r['interface']}", "value": figure(r, key),
                              "measure": key} for r in rows[:20]])
    if "metric" in ev.get("facts", {}):  # a counter query where no port crossed its threshold
        counter = dump_facts(ev, CounterFacts)
        flagged = counter.get("flagged") or 0
        return pd.DataFrame([{"port": k, "value": v, "measure": "ports"} for k, v in
                             (("flagged", flagged), ("not flagged", (counter.get("ports") or 0) - flagged))])
    facts = dump_facts(ev, PortStateFacts)
    counts = [("up throughout", facts.get("up_throughout")), ("changed state", facts.get("changed")),
              ("down at end", facts.get("down_now"))]
    return pd.DataFrame([{"port": k, "value": v or 0, "measure": "ports"} for k, v in counts])


def telemetry_plot(evidence: list[EvidenceDump]) -> tuple[str, pd.DataFrame] | None:
    """("timeline", frame) for port status history with transitions, ("bars", frame) for counters
    and status summaries, None when the turn has no telemetry."""
    ev = next((e for e in evidence if e["tool"] == "telemetry" and not e.get("errors")), None)
    if ev is None:
        return None
    rows = ev.get("rows", [])
    if rows and "state_at_start" in rows[0] and ev.get("window"):
        return "timeline", status_timeline(ev)
    return "bars", counter_bars(ev)


def port_colours(timeline: pd.DataFrame) -> dict[str, str]:
    """Warm colours for ports down at the end, cool ones for the rest. Also what makes the plot
    redraw its legend: gradio 6.31 re-renders a LinePlot on a new color_map but only swaps the
    data on a new value (the legend keeps the last device's ports), so the map is set by a
    second event once the new value is in place."""
    last = timeline.groupby("port", sort=False)["up"].last()
    down = iter(_WARM)
    up = iter(_COOL)
    return {str(p): next(down) if v == 0 else next(up) for p, v in last.items()}


def for_browser(timeline: pd.DataFrame, browser_zone: str) -> pd.DataFrame:
    """The plot draws each time as wall time in the browser's zone (and a naive time as UTC):
    give it the instant whose wall time there is the network zone's wall time, so its axis reads
    like the tables. An unknown browser zone leaves the frame as it is (right in a UTC browser)."""
    tz = zone_of(browser_zone) if browser_zone else None
    if tz is None or timeline.empty:
        return timeline
    out = timeline.copy()
    out["time"] = pd.to_datetime([t.to_pydatetime().replace(tzinfo=tz) for t in timeline["time"]],
                                 utc=True)
    return out


def network_wall_time(frame: pd.DataFrame, zone: str) -> pd.DataFrame:
    """A timeline's UTC times as the network zone's wall time (naive), what for_browser takes."""
    out = frame.copy()
    tz = zone_of(zone) if zone and zone != "UTC" else None
    times = pd.to_datetime(out["time"], utc=True)
    out["time"] = (times.dt.tz_convert(tz) if tz else times).dt.tz_localize(None)
    return out
