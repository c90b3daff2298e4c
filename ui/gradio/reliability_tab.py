"""The Reliability tab: a window and a scope (PoD, site, zone), then the report's plots — bad
minutes per scope, time to close, alarms per case by day — its tables, its definitions and
CSV/JSON downloads. The report itself is netopsai.reliability's; the views are reliability.py."""

from __future__ import annotations

import html
import os
import re
import tempfile
import threading
from pathlib import Path
from typing import Any

import gradio as gr

from netopsai.config.network import ReliabilitySettings
from netopsai.errors import NetopsError
from netopsai.reliability.export import to_csv, to_json
from netopsai.reliability.model import SCOPES
from netopsai.reliability.run import reliability_report
from netopsai.ui.gradio import reliability as rv
from netopsai.ui.gradio.alarms import store_of
from netopsai.ui.gradio.shell import Shell, recolour


def _settings() -> ReliabilitySettings:
    """config `reliability:`; a broken config.yaml leaves the defaults (the other tabs say why)."""
    try:
        from netopsai.config.load import load_netconfig

        return load_netconfig().settings.reliability
    except NetopsError:
        return ReliabilitySettings()


def reliability_tab(shell: Shell, tab: gr.Tab | None = None) -> None:
    """Read when `tab` is selected (not on every page load: a month of history takes a moment),
    on Refresh and on a new window or scope."""
    ui = _layout()
    load = _Loader(shell)
    colours = gr.State([])  # set after the plots' values: gradio redraws a legend on a new map
    outputs = [ui[k] for k in OUTPUTS] + [colours]
    plots = [ui["scopes"], ui["ttr"], ui["noise"]]
    opened = tab.select if tab is not None else shell.app.load
    gr.on([opened, ui["refresh"].click, ui["window"].change, ui["by"].change], load,
          [ui["window"], ui["by"]], outputs).then(_legends, colours, plots)


OUTPUTS = ["summary", "scopes", "ttr", "noise", "offenders", "ttr_table", "definitions", "csv",
           "json"]


def _layout() -> dict[str, Any]:
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
                              elem_id="rel-bad-minutes")
    with gr.Row():
        ui["ttr"] = gr.BarPlot(x="bucket", y="cases", color="category", sort=rv.BUCKET_ORDER,
                               label="time to close per case (detected → closed)", elem_id="rel-ttr")
        ui["noise"] = gr.LinePlot(x="time", y="alarms_per_case", color="series",
                                  label="noise: alarms per case by day (UTC)", elem_id="rel-noise")
    ui["offenders"] = gr.Dataframe(label="repeat offenders (two or more cases)", interactive=False,
                                   wrap=True, max_height=360, elem_id="rel-offenders")
    ui["ttr_table"] = gr.Dataframe(label="time to repair: minutes from detection, p50/p90",
                                   interactive=False, max_height=360, elem_id="rel-ttr-table")
    with gr.Row():
        ui["csv"] = gr.DownloadButton("Download CSV", elem_id="rel-csv", scale=0, min_width=160)
        ui["json"] = gr.DownloadButton("Download JSON", elem_id="rel-json", scale=0, min_width=160)
    with gr.Accordion("definitions", open=False):
        ui["definitions"] = gr.Markdown(elem_id="rel-definitions")
    return ui


def _legends(maps: list[dict[str, str]]) -> tuple[Any, ...]:
    return tuple(recolour(cmap) for cmap in maps) if maps else (gr.skip(),) * 3


class _Loader:
    """The report for the picked window and scope, as the tab's outputs; its exports are files
    in one folder per app, named by window and scope, each replaced whole (os.replace), so two
    people downloading at once never read a half-written file."""

    def __init__(self, shell: Shell) -> None:
        self.engine, self.zone, self.cfg = store_of(shell.backends), shell.backends.zone, _settings()
        self.folder = Path(tempfile.mkdtemp(prefix="netopsai-reliability-"))

    def __call__(self, window: str, by: str) -> tuple[Any, ...]:
        try:
            rep = reliability_report(self.engine, window or "30d", by or "pod", self.cfg, self.zone)
        except NetopsError as exc:
            return (html.escape(str(exc)), *(gr.skip() for _ in range(len(OUTPUTS))))
        v = rv.view(rep)
        stem = re.sub(r"[^A-Za-z0-9]+", "_", f"reliability-{window}-{by}")
        files = [self._write(f"{stem}.csv", to_csv(rep)), self._write(f"{stem}.json", to_json(rep))]
        return (v.summary, v.scopes, v.ttr, v.noise, v.offenders, v.ttr_table, v.definitions,
                *files, v.colours())

    def _write(self, name: str, text: str) -> str:
        tmp = self.folder / f".{name}.{os.getpid()}.{threading.get_ident()}"
        tmp.write_text(text)
        os.replace(tmp, self.folder / name)
        return str(self.folder / name)
