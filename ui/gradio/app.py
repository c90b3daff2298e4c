"""The web app (`netopsai serve`): Chat, Batch and Alarms tabs over one Copilot. Thin: the
handlers live in chat / batch / alarms and only call the service, the
batch runner and the tools. Nothing here calls the internet: analytics off, no share link,
the frontend's assets and fonts are served locally."""

from __future__ import annotations

import ipaddress
import logging
import os
from collections.abc import Iterator
from typing import Any

import gradio as gr

from netopsai.backends.base import Backends
from netopsai.service import Copilot
from netopsai.ui.gradio.alarms import CATEGORIES, WINDOWS, alarms_and_cases, sites
from netopsai.ui.gradio.auth import authenticator
from netopsai.ui.gradio.batch import COLUMNS, BatchHandler, BatchView
from netopsai.ui.gradio.chat import ChatHandler, ChatView, new_thread

log = logging.getLogger(__name__)
SEED_QUESTIONS = ["10.1.3.20 to 10.2.1.40 not communicating", "list the PoDs of dc1 and their segments",
                  "any DCI link alarms in the last 2 hours?",
                  "port link status across all switches since 08:00", "who owns 10.1.3.20?"]
CSS = """
.np-rows { border-collapse: collapse; font-size: 12px; margin: 4px 0 10px; }
.np-rows td, .np-rows th { border: 1px solid #d1d5db; padding: 2px 6px; text-align: left; }
.np-ev { margin-bottom: 6px; } .np-ev summary { cursor: pointer; }
.np-ev:target { outline: 2px solid #f59e0b; }
"""


def _offline() -> None:
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"  # read at call time, so setting it here is enough


def _chat_outputs(view: ChatView) -> tuple[Any, ...]:
    """While steps stream, the side panels keep the last answer's views; the final views replace them."""
    if not view.evidence:
        keep = gr.update()
        return "", view.history, keep, keep, keep, keep, view.status
    kind, frame = view.plot or ("", None)
    line = gr.update(value=frame, visible=True) if kind == "timeline" else gr.update(visible=False)
    bars = gr.update(visible=False)
    if kind == "bars" and frame is not None and len(frame):
        bars = gr.update(value=frame, visible=True, y_title=str(frame["measure"].iloc[0]))
    path = gr.update(value=view.path, visible=bool(view.path))
    return "", view.history, view.evidence, line, bars, path, view.status


def _side_panels() -> tuple[Any, ...]:
    """(status, path, line plot, bar plot, evidence) beside the chat."""
    status = gr.Markdown(elem_id="chat-status")
    path = gr.HTML(visible=False, elem_id="path-panel")
    line = gr.LinePlot(x="time", y="up", color="port", visible=False, label="port status (1 = up)",
                       height=260, elem_id="status-plot")
    bars = gr.BarPlot(x="port", y="value", sort="-y", y_lim=[0, None], visible=False,
                      label="telemetry (worst first)", height=300, x_label_angle=-45, elem_id="counter-plot")
    gr.Markdown("#### Evidence")
    evidence = gr.HTML(elem_id="evidence-panel", max_height=640)
    return status, path, line, bars, evidence


class _ChatEvents:
    """The Chat tab's event functions, bound to one handler."""

    def __init__(self, chat: ChatHandler) -> None:
        self.chat = chat

    def respond(self, question: str, history: list[Any], tid: str,
                request: gr.Request) -> Iterator[tuple[Any, ...]]:
        user = getattr(request, "username", None)  # set when login is on
        for view in self.chat.turn(question, history, tid or new_thread(), user):
            yield _chat_outputs(view)

    def like(self, tid: str, data: gr.LikeData, request: gr.Request) -> str:
        return self.chat.feedback(tid, data.liked is True, getattr(request, "username", None))

    def open_thread(self, tid: str, request: gr.Request) -> tuple[Any, ...]:
        asked = (tid or "").strip()
        tid = asked or new_thread()
        view = self.chat.resume(tid, getattr(request, "username", None), asked=bool(asked))
        return (tid, tid, *_chat_outputs(view)[1:])

    def new_thread(self, request: gr.Request) -> tuple[Any, ...]:
        return self.open_thread("", request)

    def on_load(self, request: gr.Request) -> tuple[Any, ...]:
        # ?thread=ID resumes a saved conversation (a reload, or a link shared in the incident)
        return self.open_thread(dict(request.query_params).get("thread", "") if request else "", request)


def _chat_tab(app: gr.Blocks, chat: ChatHandler) -> None:
    thread = gr.State("")
    with gr.Row():
        with gr.Column(scale=3):
            bot = gr.Chatbot(label="netopsai", height=620, elem_id="chat", buttons=["copy"])
            box = gr.Textbox(placeholder="Ask about the network, e.g. " + SEED_QUESTIONS[0],
                             show_label=False, submit_btn=True, elem_id="question")
            examples = gr.Examples(SEED_QUESTIONS, inputs=[box], label="Try")
        with gr.Column(scale=2):
            status, path, line, bars, evidence = _side_panels()
            with gr.Accordion("Thread", open=False):
                thread_box = gr.Textbox(label="thread id (paste one to resume it)", elem_id="thread-id")
                with gr.Row():
                    resume_btn = gr.Button("Resume", size="sm")
                    new_btn = gr.Button("New thread", size="sm")
    ev = _ChatEvents(chat)
    panels = [bot, evidence, line, bars, path, status]
    box.submit(ev.respond, [box, bot, thread], [box, *panels])
    examples.load_input_event.then(ev.respond, [box, bot, thread], [box, *panels])
    resume_btn.click(ev.open_thread, [thread_box], [thread, thread_box, *panels])
    new_btn.click(ev.new_thread, None, [thread, thread_box, *panels])
    bot.like(ev.like, [thread], [status])  # thumbs-up: the diagnosis joins incident memory
    app.load(ev.on_load, None, [thread, thread_box, *panels])


def _batch_outputs(view: BatchView) -> tuple[Any, ...]:
    download = gr.update(value=view.csv_path, visible=True) if view.csv_path else gr.update(visible=False)
    return view.progress, view.table, view.summary, download


def _batch_tab(handler: BatchHandler) -> None:
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
    results = gr.Dataframe(headers=COLUMNS, interactive=False, max_height=480, elem_id="batch-table",
                           label="results")

    def run_batch(text: str, upload: str | None, src: str,
                  bar: gr.Progress = gr.Progress()) -> Iterator[tuple[Any, ...]]:
        for view in handler.run(text, upload, src, bar):
            yield _batch_outputs(view)

    event = run.click(run_batch, [text, upload, source], [progress, results, summary, download],
                      show_progress_on=[summary])
    stop.click(None, None, None, cancels=[event])


def _alarms_tab(app: gr.Blocks, backends: Backends) -> None:
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


def build_app(copilot: Copilot, backends: Backends | None = None) -> gr.Blocks:
    """The three tabs over one copilot; `backends` defaults to the copilot's own."""
    _offline()
    backends = backends or copilot.backends
    with gr.Blocks(title="netopsai", analytics_enabled=False) as app:
        gr.Markdown("## netopsai · network on-call copilot")
        with gr.Tabs():
            with gr.Tab("Chat", id="chat"):
                _chat_tab(app, ChatHandler(copilot))
            with gr.Tab("Batch", id="batch"):
                _batch_tab(BatchHandler(backends))
            with gr.Tab("Alarms", id="alarms"):
                _alarms_tab(app, backends)
    return app


def _copilot() -> Copilot:
    """The copilot every tab shares, on the configured backends (netopsai.frontend: the lab by
    default, built on the first run when the store holds no network), threads in NETOPSAI_HOME,
    the LLM when one is configured (offline otherwise)."""
    from netopsai.frontend import frontend_copilot

    return frontend_copilot(first_run_lab=True)


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


# images, media and frames from this server only: text from the network or a model that slips
# through as markup still cannot make the browser fetch anything elsewhere (zero-click exfiltration)
CSP = ('<meta http-equiv="Content-Security-Policy" content="img-src \'self\' data: blob:; '
       "media-src 'self' data: blob:; frame-src 'none'; object-src 'none'\">")


def serve(host: str = "127.0.0.1", port: int = 7860) -> None:
    """`netopsai serve`: launch and block. Login is on when NETOPSAI_UI_USERS names a users file."""
    _offline()
    auth = authenticator()
    if auth is None and not _loopback(host):
        log.warning("serving on %s without login: set NETOPSAI_UI_USERS for a shared deployment", host)
    copilot = _copilot()
    copilot.warm_up()  # long-lived: the first analysis should not wait for pandas to load
    app = build_app(copilot)
    print(f"netopsai web app on http://{host}:{port}", flush=True)
    app.queue(default_concurrency_limit=8).launch(
        server_name=host, server_port=port, share=False, inbrowser=False, auth=auth,
        show_error=False, ssr_mode=False, mcp_server=False, quiet=True, css=CSS,
        footer_links=["settings"], head=CSP)
