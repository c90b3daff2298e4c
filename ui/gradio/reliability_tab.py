"""The Reliability tab: a window and a scope (PoD, site, zone), then the report's plots — bad
minutes per scope, time to close, alarms per case by day — its tables, its definitions and
CSV/JSON downloads. The report itself is netopsai.reliability's; the views are reliability.py.
Its times read in the network's zone in any browser, as the other tabs'; a link
`?tab=reliability&window=7d&by=site` opens it on that window and scope, and the address bar
follows the window and scope picked."""

from __future__ import annotations

import html
import os
import re
import threading
from typing import Any

import gradio as gr

from netopsai.common.errors import NetopsError
from netopsai.common.scratch import owned_scratch
from netopsai.config.network import ReliabilitySettings
from netopsai.reliability.export import to_csv, to_json
from netopsai.reliability.model import SCOPES
from netopsai.reliability.run import reliability_report
from netopsai.ui.gradio import reliability as rv
from netopsai.ui.gradio.alarms import store_of
from netopsai.ui.gradio.grid import GRID
from netopsai.ui.gradio.shell import BROWSER_ZONE, RELIABILITY, Shell, query_param, recolour
from netopsai.ui.gradio.timepick import zone_info
from netopsai.ui.gradio.views import for_browser


def _settings() -> ReliabilitySettings:
    """config `reliability:`; a broken config.yaml leaves the defaults (the other tabs say why)."""
    try:
        from netopsai.config.load import load_netconfig

        return load_netconfig().settings.reliability
    except NetopsError:
        return ReliabilitySettings()


def reliability_tab(shell: Shell, tab: gr.Tab | None = None) -> None:
    """Read when `tab` is selected (not on every page load: a month of history takes a moment),
    on Refresh and on a new window or scope, and on a page load whose URL names the tab."""
    zone = str(getattr(zone_info(shell.backends.zone), "key", None) or shell.backends.zone or "UTC")
    ui = _layout(zone)
    load = _Loader(shell, zone)
    browser_zone = gr.Textbox(visible=False, elem_id="rel-browser-zone")
    colours = gr.State({})  # set after the plots' values: gradio redraws a legend on a new map
    # whether the on-call (or the link) picked the scope: until then the tab picks the view that
    # shows the worst place (rv.default_scope) and says so
    chosen = gr.State(False)
    outputs = [ui[k] for k in OUTPUTS] + [colours, ui["by"], chosen]
    plots = [ui["scopes"], ui["ttr"], ui["noise"]]
    picked = [ui["window"], ui["by"], browser_zone]
    # user actions only (.input, not .change): the URL's load below sets the pickers itself
    events = [ui["refresh"].click, ui["window"].input]
    gr.on([tab.select, *events] if tab is not None else [shell.app.load, *events], load,
          [*picked, chosen], outputs).then(_legends, colours, plots).then(
        None, picked[:2], None, js=RELIABILITY_URL)
    ui["by"].input(load.picked, picked, outputs).then(_legends, colours, plots).then(
        None, picked[:2], None, js=RELIABILITY_URL)
    shell.app.load(load.from_url, browser_zone, [shell.tabs, ui["window"], browser_zone, *outputs],
                   js=BROWSER_ZONE).then(_legends, colours, plots)


# the address bar names the tab, window and scope shown, so a reload or a pasted link opens them
RELIABILITY_URL = """(win, by) => { const u = new URL(window.location.href); u.hash = '';
  for (const k of ['thread', 'device']) u.searchParams.delete(k);
  u.searchParams.set('tab', 'reliability'); u.searchParams.set('window', win || '30d');
  u.searchParams.set('by', by || 'pod'); window.history.replaceState(null, '', u.toString()); }"""


OUTPUTS = ["summary", "scopes", "ttr", "noise", "offenders", "ttr_table", "definitions", "csv",
           "json", "ttr_legend"]


def _layout(zone: str) -> dict[str, Any]:
    ui: dict[str, Any] = {}
    with gr.Row(equal_height=True):
        ui["window"] = gr.Dropdown(rv.WINDOWS, value="30d", label="window (to the network's clock)",
                                   allow_custom_value=True, elem_id="rel-window")
        ui["by"] = gr.Dropdown(list(SCOPES), value="pod", label="per", elem_id="rel-by")
        ui["refresh"] = gr.Button("Refresh", elem_id="rel-refresh", scale=0, min_width=110)
    ui["summary"] = gr.Markdown(elem_id="rel-summary")
    # no fixed heights: a fixed one clips the legend (as the chat's plots)
    ui["scopes"] = gr.BarPlot(x="scope", y="bad_minutes", color="where", sort="-y", y_lim=[0, None],
                              x_label_angle=-45, label="bad minutes per scope (worst first)",
                              x_title=rv.SCOPE_TITLE["pod"], y_title=rv.TITLES["bad_minutes"],
                              color_title="where",
                              elem_id="rel-bad-minutes")
    with gr.Row():  # side by side on a laptop; each a full row on a phone (min_width)
        with gr.Column(min_width=340, elem_id="rel-ttr-box"):
            ui["ttr"] = gr.BarPlot(x="bucket", y="cases", color="category", sort=rv.BUCKET_ORDER,
                                   label="time to close per case (detected → closed)",
                                   elem_id="rel-ttr", x_title=rv.TITLES["ttr_x"],
                                   y_title=rv.TITLES["ttr_y"], color_title="root category")
            # a phone's legend (app.CSS): the plot's own one-line legend is cut at its width
            ui["ttr_legend"] = gr.HTML(elem_id="rel-ttr-legend", padding=False)
        ui["noise"] = gr.LinePlot(x="time", y="alarms_per_case", color="series",
                                  label=f"noise: alarms per case by day ({zone})", x_title=f"day ({zone})",
                                  y_title=rv.TITLES["noise_y"], color_title="", min_width=340,
                                  elem_id="rel-noise")
    # a table on a laptop, a card per offender on a phone (rv.offenders_html, app.CSS)
    ui["offenders"] = gr.HTML(elem_id="rel-offenders", padding=False)
    # shares that hold on a phone: at 374 px the narrowest column is still 56 px, no sideways scroll
    ui["ttr_table"] = gr.Dataframe(label="time to repair: minutes from detection, p50/p90",
                                   interactive=False, max_height=360, elem_id="rel-ttr-table",
                                   column_widths=["22%", "28%", "20%", "15%", "15%"],
                                   elem_classes=GRID)
    with gr.Row():
        ui["csv"] = gr.DownloadButton("Download CSV", elem_id="rel-csv", scale=0, min_width=160)
        ui["json"] = gr.DownloadButton("Download JSON", elem_id="rel-json", scale=0, min_width=160)
    with gr.Accordion("definitions", open=False):
        ui["definitions"] = gr.Markdown(elem_id="rel-definitions")
    return ui


def _legends(drawn: dict[str, Any]) -> tuple[Any, ...]:
    """The plots' legends, and the bad-minutes plot's x axis titled by the scope shown."""
    if not drawn:
        return (gr.skip(),) * 3
    scopes, *rest = (recolour(cmap) for cmap in drawn["maps"])
    title = rv.SCOPE_TITLE.get(drawn["by"], drawn["by"])
    scopes = gr.update(**{**(scopes if isinstance(scopes, dict) else {}), "x_title": title})
    return (scopes, *rest)


class _Loader:
    """The report for the picked window and scope, as the tab's outputs; its exports are files
    in one folder per app, named by window and scope, each replaced whole (os.replace), so two
    people downloading at once never read a half-written file."""

    def __init__(self, shell: Shell, zone: str) -> None:
        self.engine, self.zone, self.cfg = store_of(shell.backends), zone, _settings()
        self.folder = owned_scratch(self, "netopsai-reliability-")

    def __call__(self, window: str, by: str, browser_zone: str = "", chosen: bool = False
                 ) -> tuple[Any, ...]:
        """The outputs, then the scope picker and whether it was picked. Not `chosen`: the view
        that shows the worst place (per site when bad cases lie outside every PoD)."""
        by = by or "pod"
        try:
            # not picked: read per PoD first, whatever the picker shows (an earlier default may
            # have moved it), and move to per site when that leaves bad cases out
            rep = reliability_report(self.engine, window or "30d", by if chosen else "pod",
                                     self.cfg, self.zone)
            moved = 0 if chosen else rv.outside_pods(rep)
            by = by if chosen else rv.default_scope(rep)
            if by != rep.by:
                rep = reliability_report(self.engine, window or "30d", by, self.cfg, self.zone)
        except NetopsError as exc:
            return (html.escape(str(exc)), *(gr.skip() for _ in range(len(OUTPUTS) + 1)), chosen)
        v = rv.view(rep, self.zone)
        text = v.summary
        if moved:
            text = (f"Shown per {by}: {moved} bad case{'s' if moved > 1 else ''} "
                    f"{'are' if moved > 1 else 'is'} on devices outside any PoD (borders, DCI, "
                    f"super-spines), which a per-PoD view leaves out.\n\n{text}")
        stem = re.sub(r"[^A-Za-z0-9]+", "_", f"reliability-{window}-{by}")
        files = [self._write(f"{stem}.csv", to_csv(rep)), self._write(f"{stem}.json", to_json(rep))]
        return (text, v.scopes, v.ttr, for_browser(v.noise, browser_zone), v.offenders_html,
                v.ttr_table, v.definitions, *files, v.ttr_legend, {"maps": v.colours(), "by": by},
                gr.update(value=by), chosen)

    def picked(self, window: str, by: str, browser_zone: str = "") -> tuple[Any, ...]:
        """The on-call picked a scope: that view, and it stays picked for this page."""
        return self(window, by, browser_zone, chosen=True)

    def from_url(self, browser_zone: str, request: gr.Request) -> tuple[Any, ...]:
        """`?tab=reliability[&window=7d][&by=site]`: select the tab, set its pickers and read;
        any other page load leaves every tab as it is and reads nothing."""
        if query_param(request, "tab") != RELIABILITY:
            return (gr.skip(), gr.skip(), browser_zone, *(gr.skip() for _ in range(len(OUTPUTS) + 3)))
        window = query_param(request, "window") or "30d"
        by = query_param(request, "by")  # a link that names a scope picked it
        *shown, picker, chosen = self(window, by or "pod", browser_zone, chosen=bool(by))
        # an unknown scope is the summary's one line; the picker keeps a valid choice
        keep = by and by not in SCOPES
        return (gr.Tabs(selected=RELIABILITY), gr.update(value=window), browser_zone, *shown,
                gr.skip() if keep else picker, chosen)

    def _write(self, name: str, text: str) -> str:
        tmp = self.folder / f".{name}.{os.getpid()}.{threading.get_ident()}"
        tmp.write_text(text)
        os.replace(tmp, self.folder / name)
        return str(self.folder / name)
