"""The Batch tab's layout and events; the handler (batch.py) runs the checks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gradio as gr

from netopsai.backends.base import Backends
from netopsai.ui.gradio.batch import SHOWN, BatchHandler, BatchView


def _batch_outputs(view: BatchView) -> tuple[Any, ...]:
    download = gr.update(value=view.csv_path, visible=True) if view.csv_path else gr.update(visible=False)
    return view.progress, view.table, view.summary, download


def batch_tab(backends: Backends) -> None:
    handler = BatchHandler(backends)
    with gr.Row():
        with gr.Column():
            text = gr.Textbox(lines=8, label="IP pairs: src,dst (or one IP a line, checked from the source)",
                              placeholder="10.1.3.20,10.2.1.40\n10.2.1.40\n# comments and blanks are fine",
                              elem_id="batch-input")
            upload = gr.File(label="or upload a CSV/TXT", file_types=[".csv", ".txt"], type="filepath",
                             elem_id="batch-upload")
        with gr.Column():
            source = gr.Textbox(label="probe source for single IPs", value=handler.default_source,
                                elem_id="batch-source")
            with gr.Row():
                run = gr.Button("Run checks", variant="primary", elem_id="batch-run")
                stop = gr.Button("Stop", elem_id="batch-stop")
            progress = gr.HTML(elem_id="batch-progress-panel")
            summary = gr.Markdown(elem_id="batch-summary")
            download = gr.DownloadButton("Download CSV", visible=False, elem_id="batch-download")
    results = gr.Dataframe(headers=SHOWN, interactive=False, max_height=480, elem_id="batch-table",
                           label="results")

    def run_batch(text: str, upload: str | None, src: str,
                  bar: gr.Progress = gr.Progress()) -> Iterator[tuple[Any, ...]]:
        for view in handler.run(text, upload, src, bar):
            yield _batch_outputs(view)

    event = run.click(run_batch, [text, upload, source], [progress, results, summary, download],
                      show_progress_on=[summary])
    stop.click(None, None, None, cancels=[event])
