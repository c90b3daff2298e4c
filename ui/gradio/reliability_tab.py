"""The Reliability tab: a window and a scope (PoD, site, zone), then the report's plots — bad
minutes per scope, time to close, alarms per case by day — its tables, its definitions and
CSV/JSON downloads. The report itself is netopsai.reliability's; the views are reliability.py."""

from __future__ import annotations

import tempfile
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


def reliability_tab(shell: Shell) -> None:
    with gr.Row(equal_height=True):
        window = gr.Dropdown(rv.WINDOWS, value="30d", label="window (to the network's clock)",
                             allow_custom_value=True, elem_id="rel-window")
        by = gr.Dropdown(list(SCOPES), value="pod", label="per", elem_id="rel-by")
        refresh = gr.Button("Refresh", elem_id="rel-refresh", scale=0, min_width=110)
    summary = gr.Markdown(elem_id="rel-summary")
    scopes = gr.BarPlot(x="scope", y="bad_minutes", color="where", sort="-y", y_lim=[0, None],
                        x_label_angle=-45, label="bad minutes per scope (worst first)",
                        elem_id="rel-bad-minutes")
    with gr.Row():
        ttr = gr.BarPlot(x="bucket", y="cases", color="category", sort=rv.BUCKET_ORDER,
                         label="time to close per case (detected → closed)", elem_id="rel-ttr")
        noise = gr.LinePlot(x="time", y="alarms_per_case", color="series",
                            label="noise: alarms per case by day (UTC)", elem_id="rel-noise")
    offenders = gr.Dataframe(label="repeat offenders (two or more cases)", interactive=False,
                             wrap=True, max_height=360, elem_id="rel-offenders")
    ttr_table = gr.Dataframe(label="time to repair: minutes from detection, p50/p90",
                             interactive=False, max_height=360, elem_id="rel-ttr-table")
    with gr.Row():
        csv_file = gr.DownloadButton("Download CSV", elem_id="rel-csv", scale=0, min_width=160)
        json_file = gr.DownloadButton("Download JSON", elem_id="rel-json", scale=0, min_width=160)
    with gr.Accordion("definitions", open=False):
        definitions = gr.Markdown(elem_id="rel-definitions")
    engine, zone, cfg = store_of(shell.backends), shell.backends.zone, _settings()

    def load(w: str, scope: str) -> tuple[Any, ...]:
        try:
            rep = reliability_report(engine, w or "30d", scope or "pod", cfg, zone)
        except NetopsError as exc:
            return (f"**{exc}**", *(gr.skip() for _ in range(9)))
        v = rv.view(rep)
        folder = Path(tempfile.mkdtemp(prefix="netopsai-reliability-"))
        (folder / "reliability.csv").write_text(to_csv(rep))
        (folder / "reliability.json").write_text(to_json(rep))
        return (v.summary, v.scopes, v.ttr, v.noise, v.offenders, v.ttr_table, v.definitions,
                str(folder / "reliability.csv"), str(folder / "reliability.json"), v.colours())

    def legends(maps: list[dict[str, str]]) -> tuple[Any, ...]:
        return tuple(recolour(cmap) for cmap in maps) if maps else (gr.skip(),) * 3

    colours = gr.State([])  # set after the plots' values: gradio redraws a legend on a new map
    outputs = [summary, scopes, ttr, noise, offenders, ttr_table, definitions, csv_file, json_file,
               colours]
    gr.on([shell.app.load, refresh.click, window.change, by.change], load, [window, by],
          outputs).then(legends, colours, [scopes, ttr, noise])
