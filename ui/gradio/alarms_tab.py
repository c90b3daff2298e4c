"""The Alarms tab's layout and events; the views (alarms.py) read through the alarms tool."""

from __future__ import annotations

import gradio as gr

from netopsai.ui.gradio.alarms import CATEGORIES, WINDOWS, alarms_and_cases, sites
from netopsai.ui.gradio.shell import Shell


def alarms_tab(shell: Shell) -> None:
    app, backends = shell.app, shell.backends
    with gr.Row():
        site = gr.Dropdown(sites(backends), value="all", label="site", elem_id="alarms-site")
        category = gr.Dropdown(CATEGORIES, value="all", label="category", elem_id="alarms-category")
        window = gr.Dropdown(WINDOWS, value="24h", label="window", allow_custom_value=True,
                             elem_id="alarms-window")
        refresh = gr.Button("Refresh", elem_id="alarms-refresh")
    summary = gr.Markdown(elem_id="alarms-summary")
    open_now = gr.Dataframe(label="open alarms", interactive=False, max_height=300, elem_id="alarms-open")
    recent = gr.Dataframe(label="alarms in the window (newest first)", interactive=False, max_height=480,
                          elem_id="alarms-recent")
    cases = gr.Dataframe(label="cases: the window's alarms grouped by topology", interactive=False,
                         max_height=360, elem_id="alarms-cases")
    gr.on([app.load, refresh.click, site.change, category.change, window.change],
          lambda s, c, w: alarms_and_cases(backends, s, c, w), [site, category, window],
          [open_now, recent, cases, summary])
