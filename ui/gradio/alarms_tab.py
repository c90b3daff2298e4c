"""The Alarms tab's layout and events: filters and a time picker folding into one line, tables
coloured by severity (pixel widths, words whole), auto-refresh, acknowledge / silence (kept in our
store, never on a device) and "diagnose this", which asks the Chat tab the alarm's (or case's)
diagnosis in one click, the alarm, its acknowledgement and its case's blast radius noted first.
The views (alarms.py) read through the alarms tool."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any

import gradio as gr

from netopsai.common.errors import NetopsError
from netopsai.common.timewin import parse_duration
from netopsai.copilot.doors import record_ack
from netopsai.tools.facts import AlarmCase
from netopsai.ui.gradio import alarms as av
from netopsai.ui.gradio.grid import GRID
from netopsai.ui.gradio.shell import CHAT, Shell
from netopsai.ui.gradio.timepick import ABSOLUTE, RELATIVE, local_time, time_picker, window_arg
from netopsai.ui.gradio.views import inert

# seconds between automatic re-reads; an environment knob so a test can watch one happen
REFRESH_S = float(os.environ.get("NETOPSAI_UI_ALARMS_REFRESH_S", "30"))
SILENCES = ["30m", "1h", "2h", "4h", "8h", "24h"]
NO_CASE = "_select a case to diagnose its suggested root cause_"


# the filters fold on a phone or a short screen when the tab first opens: the table is what the
# on-call came for, and the folded line still says what is selected
FOLD_FILTERS = """() => { if (window.npFiltersFolded) return; window.npFiltersFolded = true;
  if (window.innerWidth >= 700 && window.innerHeight >= 1000) return;
  let n = 0;
  const fold = () => {  // once the tab has drawn its first read (a click before is undone)
    const b = document.querySelector('#alarms-filters > button.label-wrap');
    const read = (document.querySelector('#alarms-summary') || {}).innerText;
    if (b && read && read.trim()) { if (b.classList.contains('open')) b.click(); return; }
    if (n++ < 100) setTimeout(fold, 100);
  };
  setTimeout(fold, 300); }"""


def alarms_tab(shell: Shell, tab: gr.Tab | None = None) -> None:
    ui: dict[str, Any] = {**_filters(shell.backends), **_tables()}
    if tab is not None:
        tab.select(None, None, None, js=FOLD_FILTERS)
    ui["rows"], ui["case_rows"] = gr.State({}), gr.State({})  # id -> row, for the selections
    ui["selected"], ui["selected_case"] = gr.State(None), gr.State(None)
    inputs = [ui[k] for k in ("site", "category", "severity", "state", "device", "show_silenced")]
    inputs += ui["picker"].inputs
    # a re-read leaves the selection alone (a timer tick racing a click must not undo it); an
    # action checks the selected alarm is still among the rows shown
    outputs = [ui[k] for k in ("summary", "clock", "open_note", "open_now", "recent_note", "recent",
                               "cases", "rows", "case_rows", "read", "filters")]
    _wire_reads(shell, ui, inputs, outputs)
    _wire_actions(shell, ui, inputs, outputs)


def _filters(backends: Any) -> dict[str, Any]:
    """The filters and the time picker in one row, folded under a line that says what they
    select (folded on a phone at load: the table is what the on-call came for); then one bar:
    the counts, the clock, Refresh and the two switches."""
    ui: dict[str, Any] = {}
    with gr.Accordion(filters_label(av.Filters(), RELATIVE, "24h", None, None), open=True,
                      elem_id="alarms-filters") as ui["filters"], gr.Row(equal_height=True):
        ui["site"] = gr.Dropdown(av.sites(backends), value="all", label="site", min_width=100,
                                 elem_id="alarms-site")
        ui["category"] = gr.Dropdown(av.CATEGORIES, value="all", label="category",
                                     min_width=110, elem_id="alarms-category")
        ui["severity"] = gr.Dropdown(av.SEVERITIES, value="all", label="severity",
                                     min_width=100, elem_id="alarms-severity")
        ui["state"] = gr.Dropdown(av.STATES, value="any", label="state (window's table)",
                                  min_width=110, elem_id="alarms-state")
        ui["device"] = gr.Textbox(label="device contains", placeholder="e.g. leaf-03, then Enter",
                                  min_width=150, elem_id="alarms-device")
        ui["picker"] = time_picker("alarms", row=False)
    with gr.Row(equal_height=False, elem_id="alarms-bar"):  # Refresh keeps its own height
        with gr.Column(scale=5, min_width=260):
            ui["summary"] = gr.Markdown(elem_id="alarms-summary")
            ui["clock"] = gr.Markdown(elem_id="alarms-clock")
        ui["refresh"] = gr.Button("Refresh", elem_id="alarms-refresh", size="sm", scale=0,
                                  min_width=90)
        ui["auto"] = gr.Checkbox(True, label=f"auto-refresh every {REFRESH_S:g} s", scale=0,
                                 min_width=190, elem_id="alarms-auto")
        ui["show_silenced"] = gr.Checkbox(False, label="show silenced", scale=0, min_width=150,
                                          elem_id="alarms-show-silenced")
    ui["timer"] = gr.Timer(REFRESH_S, active=True)
    return ui


def filters_label(f: av.Filters, mode: str, window: str | None, start: Any, end: Any) -> str:
    """The folded filters in words: 'Filters: critical alarms in dc2 · last 6h'."""
    when = (f"last {window or '24h'}" if mode != ABSOLUTE else
            f"{start or '…'} to {end or 'now'} (network zone)")
    return f"Filters: {f.words()} · {when}"


def _tables() -> dict[str, Any]:
    ui: dict[str, Any] = {"open_note": gr.Markdown(elem_id="alarms-open-note")}
    ui["open_now"] = gr.Dataframe(label="open alarms, most severe first (click a row to act on it)",
                                  show_label=False, interactive=False, wrap=True,
                                  column_widths=av.OPEN_WIDTHS,
                                  max_height=640, elem_id="alarms-open", elem_classes=GRID)
    ui.update(_action_panel())
    ui["recent_note"] = gr.Markdown(elem_id="alarms-recent-note")
    ui["recent"] = gr.Dataframe(label="alarms in the window (newest first)", interactive=False,
                                wrap=True, column_widths=av.WIDTHS, max_height=480,
                                elem_id="alarms-recent", elem_classes=GRID)
    ui["cases"] = gr.Dataframe(label="cases: the window's alarms grouped by topology (click one)",
                               interactive=False, wrap=True, max_height=360,
                               column_widths=av.CASE_WIDTHS, elem_id="alarms-cases",
                               elem_classes=GRID)
    with gr.Row(equal_height=True):
        ui["case_md"] = gr.Markdown(NO_CASE, elem_id="alarms-case-selected")
        ui["diagnose_case"] = gr.Button("Diagnose this case", elem_id="alarms-diagnose-case",
                                        scale=0, min_width=180)
    with gr.Accordion("What the alarms tool read (before the severity and device filters)",
                      open=False, elem_id="alarms-read-box"):
        ui["read"] = gr.Markdown(elem_id="alarms-read")
    return ui


def _wire_reads(shell: Shell, ui: dict[str, Any], inputs: list[Any], outputs: list[Any]) -> None:
    """Every filter, the picker, Refresh, page load and the timer re-read the alarms."""
    backends, zone = shell.backends, shell.backends.zone

    def reload(*values: Any) -> tuple[Any, ...]:
        return _reload(backends, zone, *values)

    triggers = [ui[k].change for k in ("site", "category", "severity", "state", "show_silenced")]
    gr.on([shell.app.load, ui["refresh"].click, ui["device"].submit, ui["device"].blur, *triggers,
           *ui["picker"].changes], reload, inputs, outputs)
    ui["timer"].tick(reload, inputs, outputs, show_progress="hidden")  # no flashing every tick
    ui["auto"].change(lambda on: gr.Timer(active=on), ui["auto"], ui["timer"])
    shell.app.load(_who_from_login, None, ui["who"])


def _wire_actions(shell: Shell, ui: dict[str, Any], inputs: list[Any], outputs: list[Any]) -> None:
    """Selecting a row, acknowledging / silencing it, and "diagnose this"."""
    backends, zone = shell.backends, shell.backends.zone
    engine, clock = av.store_of(backends), backends.inventory.clock

    def select(rows_now: dict[str, av.ShownAlarm], evt: gr.SelectData) -> tuple[Any, str, str]:
        alarm_id = (evt.row_value or [None])[0]
        row = rows_now.get(str(alarm_id))
        return (alarm_id if row else None), av.detail(row, zone), ""

    for table in (ui["open_now"], ui["recent"]):
        table.select(select, [ui["rows"]], [ui["selected"], ui["detail"], ui["status"]])
    ui["cases"].select(_select_case, [ui["case_rows"]], [ui["selected_case"], ui["case_md"]])
    for name in ("ack", "silence", "unack"):
        ui[name].click(lambda sel, rows, who, why, span, *values, _do=name: _act(
                           engine, backends, zone, _do, _shown(sel, rows), who, why, span, *values),
                       [ui["selected"], ui["rows"], ui["who"], ui["why"], ui["silence_for"], *inputs],
                       [ui["status"], ui["detail"], *outputs])
    chat = shell.chat if shell.chat is not None else gr.State([])
    asked = ui["diagnose"].click(
        lambda sel, rows, cases, history: _diagnose(rows.get(str(sel)), list(cases.values()),
                                                    history, clock(), zone),
        [ui["selected"], ui["rows"], ui["case_rows"], chat], [shell.tabs, shell.question, chat])
    asked_case = ui["diagnose_case"].click(
        lambda sel, cases, history: _diagnose_case(cases.get(str(sel)), history, clock(), zone),
        [ui["selected_case"], ui["case_rows"], chat], [shell.tabs, shell.question, chat])
    if shell.ask is not None:  # one click: the chat answers at once
        shell.ask(asked)
        shell.ask(asked_case)
    ui["open_now"].select(None, None, None, js=SHOW_ACTIONS)


# a row picked: its actions (acknowledge, silence, diagnose) come into view under the table
SHOW_ACTIONS = """() => { setTimeout(() => { const a = document.querySelector('#alarms-actions');
  if (a) a.scrollIntoView({block: 'nearest', behavior: 'smooth'}); }, 200); }"""


def _shown(selected: Any, rows: dict[str, av.ShownAlarm]) -> str | None:
    """The selected alarm's id while it is among the rows shown, else None."""
    return str(selected) if selected is not None and str(selected) in rows else None


def _action_panel() -> dict[str, Any]:
    """The selected alarm in full, who/why and the buttons (acks never reach a device)."""
    with gr.Group(elem_id="alarms-actions"):
        out: dict[str, Any] = {"detail": gr.Markdown(av.detail(None), elem_id="alarms-selected",
                                                     padding=True)}
        with gr.Row(equal_height=True):
            out["who"] = gr.Textbox(label="who", placeholder="your name", elem_id="alarms-who",
                                    scale=1)
            out["why"] = gr.Textbox(label="why", placeholder="e.g. fibre team on it, CHG-1042",
                                    elem_id="alarms-why", scale=3)
            out["silence_for"] = gr.Dropdown(SILENCES, value="2h", label="silence for",
                                             allow_custom_value=True, elem_id="alarms-silence-for",
                                             scale=1)
        with gr.Row():
            out["ack"] = gr.Button("Acknowledge", variant="primary", elem_id="alarms-ack")
            out["silence"] = gr.Button("Silence", elem_id="alarms-silence")
            out["unack"] = gr.Button("Take back", elem_id="alarms-unack")
            out["diagnose"] = gr.Button("Diagnose this", variant="secondary", elem_id="alarms-diagnose")
        out["status"] = gr.Markdown(elem_id="alarms-action-status", padding=True)
    return out


def _reload(backends: Any, zone: str, site: str, category: str, severity: str, state: str,
            device: str, show_silenced: bool, mode: str, window: str, start: Any,
            end: Any) -> tuple[Any, ...]:
    f = av.Filters(site or "all", category or "all", severity or "all", state or "any",
                   device or "", bool(show_silenced))
    net_clock = backends.inventory.clock()
    try:
        data = av.read_alarms(backends, f, window_arg(mode, window, start, end, net_clock, zone))
    except NetopsError as exc:
        data = av.AlarmsData(summary=f"**error:** {inert(str(exc))}", error=str(exc))
    clock = (f"<small>data read at {local_time(datetime.now(UTC), zone)} · network clock "
             f"{local_time(data.clock or net_clock, zone)}</small>")
    by_id = {str(r["id"]): r for r in data.rows + data.open_rows}
    open_note = av.empty_note(data, f, "open")
    if data.open_rows:
        open_note += " · most severe first; click a row to act on it"
    return (data.summary, clock, open_note,
            _table(data.open_rows, zone, av.OPEN_SHOWN), av.empty_note(data, f, "recent"),
            _table(data.rows, zone), gr.Dataframe(value=av.cases_frame(data.cases, zone),
                                                 visible=bool(data.cases)), by_id,
            {c["case"]: c for c in data.cases}, data.read,
            gr.Accordion(label=filters_label(f, mode, window, start, end)))


def _table(rows: list[av.ShownAlarm], zone: str, columns: list[str] = av.SHOWN) -> gr.Dataframe:
    """Hidden when empty: the note above it says so in words instead of bare headers."""
    return gr.Dataframe(value=av.styled(av.alarm_frame(rows, zone, columns)), visible=bool(rows))


def _select_case(cases: dict[str, AlarmCase], evt: gr.SelectData) -> tuple[Any, str]:
    case_id = (evt.row_value or [None])[0]
    c = cases.get(str(case_id))
    if not c:
        return None, NO_CASE
    where = " ".join(str(x) for x in (c["root_device"], c.get("root_interface")) if x)
    unknown = " (a device not in the inventory)" if c.get("unknown_device") else ""
    return case_id, inert(f"case **{c['case']}** selected: root {c['root_kind']} on {where}{unknown}")


def _act(engine: Any, backends: Any, zone: str, action: str, selected: str | None, who: str,
         why: str, span: str, *values: Any) -> tuple[Any, ...]:
    """Record the action on the selected alarm (None: none selected, or no longer among the rows
    shown), then re-read so every table and the detail show it."""
    try:
        if not selected:
            raise NetopsError("select an alarm first (click its row in a table)")
        now = backends.inventory.clock()
        until = now + parse_duration(span or "2h") if action == "silence" else None
        record_ack(backends, int(selected), action, who, why, now, until, engine)
        done = {"ack": "acknowledged", "silence": f"silenced for {span}", "unack": "taken back"}
        status = f"alarm #{selected} {done[action]} (stored here, not on the device)"
    except NetopsError as exc:
        status = f"**error:** {inert(str(exc))}"
    shown = _reload(backends, zone, *values)
    return (status, av.detail(shown[7].get(str(selected)), zone) if selected else gr.skip(), *shown)


def _diagnose(row: av.ShownAlarm | None, cases: list[AlarmCase], history: list[Any],
              clock: datetime, zone: str) -> tuple[Any, Any, Any]:
    """To the Chat tab with the alarm's diagnosis asked (the chat answers it at once), the alarm,
    its acknowledgement and its case's blast radius noted in the chat first."""
    if row is None:
        raise gr.Error("select an alarm first (click its row)", title="Diagnose this")
    note = av.diagnose_context(row, av.case_of(row, cases), zone)
    return (gr.Tabs(selected=CHAT), gr.Textbox(value=av.diagnosis_question(
        str(row.get("device") or ""), row.get("raised_at"), clock)),
        [*(history or []), {"role": "user", "content": note}])


def _diagnose_case(case: AlarmCase | None, history: list[Any], clock: datetime,
                   zone: str) -> tuple[Any, Any, Any]:
    if case is None:
        raise gr.Error("select a case first (click its row)", title="Diagnose this case")
    note = av.diagnose_context(None, case, zone)
    return (gr.Tabs(selected=CHAT), gr.Textbox(value=av.diagnosis_question(
        str(case.get("root_device") or ""), case.get("first_raised"), clock)),
        [*(history or []), {"role": "user", "content": note}])


def _who_from_login(request: gr.Request) -> Any:
    """With login on, the acting user is the logged-in one (not editable)."""
    name = getattr(request, "username", None)
    return gr.Textbox(value=name, interactive=False) if name else gr.skip()
