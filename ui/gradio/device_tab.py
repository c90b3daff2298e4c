"""The Device tab's layout and events; the content (device.py) reads through the copilot's tools.
Reached from a device picker, or as `?device=NAME` (a link in an answer: a full page load)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

import gradio as gr
import pandas as pd

from netopsai.ui.gradio.device import (
    NEIGHBOUR_COLUMNS,
    WINDOWS,
    DevicePage,
    device_page,
    when,
    zone_info,
)
from netopsai.ui.gradio.device_logged import picker_choices
from netopsai.ui.gradio.device_snapshots import snapshot_panel
from netopsai.ui.gradio.grid import GRID, px_widths
from netopsai.ui.gradio.shell import BROWSER_ZONE, DEVICE, Shell, query_param, recolour
from netopsai.ui.gradio.views import for_browser, port_colours

if TYPE_CHECKING:
    from pandas.io.formats.style import Styler

_UP, _DOWN, _GREY = "#16a34a", "#dc2626", "#6b7280"
DEFAULT_WINDOW = "24h"
NEIGHBOUR_COLUMN = NEIGHBOUR_COLUMNS.index("neighbour")


def state_colours(frame: pd.DataFrame, column: str) -> Styler:
    """`column` green when up, red otherwise: the Dataframe shows a Styler's colours and keeps
    its cells plain text (network text never becomes markup)."""
    def colour(v: Any) -> str:
        return f"color: {_UP if v == 'up' else _DOWN}; font-weight: 600"
    return frame.style.map(colour, subset=[column])


def _status_html(page: DevicePage) -> str:
    """One line: what the page shows, or (red) why it shows nothing; a tool that failed
    for one panel is named under it."""
    failed = not page.facts and bool(page.name)
    line = (f'<p id="device-line" style="margin:4px 0;color:{_DOWN if failed else _GREY}">'
            f"{html.escape(page.status)}</p>")
    more = "".join(f'<p style="margin:2px 0;color:{_DOWN}"><small>{html.escape(e)}</small></p>'
                   for e in page.errors if page.facts)
    return line + more


# column widths (% of the desktop table) so headers never break mid-word and long text wraps in
# its own column
WIDTHS = {
    "device-interfaces": [10, 6, 6, 15, 14, 25, 6, 6, 12],
    "device-neighbours": [15, 22, 15, 12, 12, 24],
    "device-alarms": [12, 7, 12, 10, 11, 38, 10],
    "device-cases": [5, 22, 7, 6, 11, 20, 29],
    "device-changes": [9, 13, 13, 7, 34, 14, 10],
    "device-events": [14, 10, 8, 22, 46],
    "device-snapshots": [4, 14, 5, 6, 14, 5, 5, 33, 14],
}


def _labelled(frame: pd.DataFrame | Styler, label: str, n: int) -> Any:
    """A table with its row count in the label; an empty one is hidden (the status line
    already says "0 open alarms"), so the page has no empty panels."""
    return gr.update(value=frame, label=f"{label} ({n})", visible=n > 0)


def _outputs(page: DevicePage) -> tuple[Any, ...]:
    """(status, body, facts, interfaces, neighbours, timeline, alarms, cases, changes, events,
    snapshots)."""
    shown = bool(page.facts)  # an unknown device or a bad window shows its one line only
    return (_status_html(page), gr.Column(visible=shown), page.facts,
            _labelled(state_colours(page.interfaces, "state"), "interfaces: state now, changes "
                      "in the window", len(page.interfaces)),
            _labelled(state_colours(page.neighbours, "status"), "links and neighbours "
                      "(click a neighbour to open its page)", len(page.neighbours)),
            gr.update(value=page.timeline, visible=len(page.timeline) > 0),
            _labelled(page.alarms, "open alarms on the device", len(page.alarms)),
            _labelled(page.cases, "cases in the window that involve the device", len(page.cases)),
            _labelled(page.changes, "change records (at least the last 7 days)", len(page.changes)),
            _labelled(page.events, "latest log lines in the window", len(page.events)),
            _labelled(page.snapshots, "snapshots taken when alarms opened", len(page.snapshots)))


def _table(elem_id: str, height: int = 320) -> gr.Dataframe:
    """Pixel widths (a phone scrolls the table sideways), words kept whole (grid.py)."""
    return gr.Dataframe(interactive=False, wrap=True, max_height=height, elem_id=elem_id,
                        show_row_numbers=False, column_widths=px_widths(WIDTHS[elem_id]),
                        elem_classes=GRID)


def _body(zone: str, backends: Any, picker: gr.Dropdown) -> list[Any]:
    """The panels under the picker, in _outputs' order after the status line (the opened
    snapshot under its table is device_snapshots')."""
    with gr.Column(visible=False, elem_id="device-body") as body:
        facts = gr.HTML(elem_id="device-facts")
        interfaces = _table("device-interfaces", 420)
        # full width: at half width the legend wraps and the plot clips its second row
        timeline = gr.LinePlot(x="time", y="up", color="port", y_lim=[-0.1, 1.1],
                               label=f"port state (1 up, 0 down; down ports first, at most 8); "
                               f"times in {zone}", x_title=f"time ({zone})", y_title="up",
                               elem_id="device-timeline")
        neighbours = _table("device-neighbours", 400)
        alarms = _table("device-alarms")
        cases = _table("device-cases")
        changes = _table("device-changes")
        events = _table("device-events")
        snapshots = _table("device-snapshots")
        snapshot_panel(backends, lambda v: when(v, zone_info(backends.zone)), snapshots, picker)
    return [body, facts, interfaces, neighbours, timeline, alarms, cases, changes, events, snapshots]


class _Events:
    """The tab's event functions over one set of backends."""

    def __init__(self, shell: Shell, picker: gr.Dropdown, outputs: list[Any]) -> None:
        self.backends, self.picker, self.outputs = shell.backends, picker, outputs

    def fill(self, name: str | None, win: str | None, browser_zone: str | None) -> tuple[Any, ...]:
        """The page's panels, the browser's zone (kept for later events) and the plot's colours."""
        page = device_page(self.backends, name or "", win or DEFAULT_WINDOW)
        page.timeline = for_browser(page.timeline, browser_zone or "")
        return (*_outputs(page), browser_zone or "", port_colours(page.timeline))

    def on_load(self, browser_zone: str, request: gr.Request) -> tuple[Any, ...]:
        """`?device=NAME`: open the tab on that device; otherwise leave every tab as it is. The
        picker's names are read again: devices known only from logs arrive with their lines."""
        name = query_param(request, "device")
        choices = picker_choices(self.backends)
        if not name:
            return (gr.skip(), gr.update(choices=choices), *(gr.skip() for _ in self.outputs),
                    browser_zone, gr.skip())
        return (gr.Tabs(selected=DEVICE), gr.update(choices=choices, value=name),
                *self.fill(name, DEFAULT_WINDOW, browser_zone))

    def follow(self, win: str, browser_zone: str, evt: gr.SelectData) -> tuple[Any, ...]:
        """A click on a neighbour's name opens that device's page (other cells do nothing)."""
        if not isinstance(evt.index, list) or evt.index[1] != NEIGHBOUR_COLUMN or not evt.value:
            return tuple(gr.skip() for _ in range(len(self.outputs) + 3))
        return (gr.update(value=evt.value), *self.fill(str(evt.value), win, browser_zone))


# the address bar names the device shown, so a reload or a pasted link opens the same page
DEVICE_URL = """(name) => { if (!name) return;
  const u = new URL(window.location.href); u.hash = '';
  u.searchParams.delete('thread'); u.searchParams.set('device', name);
  window.history.replaceState(null, '', u.toString()); }"""


def device_tab(shell: Shell) -> None:
    backends = shell.backends
    zone = str(getattr(zone_info(backends.zone), "key", None) or backends.zone or "UTC")
    with gr.Row():
        # inventory devices, then devices known only from their logs, marked so
        picker = gr.Dropdown(picker_choices(backends), value=None, label="device",
                             allow_custom_value=True, filterable=True, scale=3,
                             elem_id="device-picker")
        window = gr.Dropdown(WINDOWS, value=DEFAULT_WINDOW, label="window", allow_custom_value=True,
                             scale=1, elem_id="device-window")
        refresh = gr.Button("Refresh", scale=0, elem_id="device-refresh")
    status = gr.HTML(_status_html(device_page(backends, "")), elem_id="device-status")
    outputs = [status, *_body(zone, backends, picker)]
    browser_zone = gr.Textbox(visible=False, elem_id="device-browser-zone")
    colours = gr.State({})  # the timeline's color_map, set after its value (port_colours)
    ev = _Events(shell, picker, outputs)
    timeline, neighbours = (next(c for c in outputs if c.elem_id == eid)
                            for eid in ("device-timeline", "device-neighbours"))
    shell.app.load(ev.on_load, browser_zone, [shell.tabs, picker, *outputs, browser_zone, colours],
                   js=BROWSER_ZONE).then(recolour, colours, timeline)
    # user actions only (.input, not .change): the load above sets the picker itself
    gr.on([picker.input, window.input, refresh.click], ev.fill, [picker, window, browser_zone],
          [*outputs, browser_zone, colours]).then(recolour, colours, timeline).then(
        None, [picker], None, js=DEVICE_URL)
    neighbours.select(ev.follow, [window, browser_zone], [picker, *outputs, browser_zone, colours]
                      ).then(recolour, colours, timeline).then(None, [picker], None, js=DEVICE_URL)
