"""The Chat tab's layout and events: the chatbot and question box, the side panels (status,
path, plots, evidence) and the thread box. The handler (chat.py) does the work."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC
from typing import Any
from zoneinfo import ZoneInfo

import gradio as gr

from netopsai.backends.base import Backends
from netopsai.common.errors import NetopsError
from netopsai.copilot.service import Copilot
from netopsai.ui.gradio.chat import ChatHandler, ChatView, page_thread
from netopsai.ui.gradio.headline import headline_html
from netopsai.ui.gradio.shell import BROWSER_ZONE, ChatHooks, query_param, recolour
from netopsai.ui.gradio.timepick import time_picker, window_arg
from netopsai.ui.gradio.views import for_browser, network_wall_time, port_colours

# after an answer, and after a thread opens: the chat shows the last answer from its first line
# (the conclusion), not the bottom of its rows. The chat's own scroll box moves, not the page
# (the tab strip stays), except to bring the pinned headline back when the page was scrolled
# past it. The chatbot renders late and in parts, so the place is kept until the chat stops
# growing, or until the on-call scrolls, clicks or types.
SHOW_ANSWER = """() => {
  const wrap = document.querySelector('#chat .bubble-wrap');
  if (!wrap) return;
  let quiet = false;
  const hush = () => { quiet = true; };
  for (const k of ['wheel', 'touchstart', 'mousedown', 'keydown'])
    wrap.addEventListener(k, hush, {once: true, passive: true});
  const answer = () => {
    const row = [...document.querySelectorAll('#chat .message-row.bot-row')].pop();
    if (!row) return null;
    return [...row.querySelectorAll('.message')].filter(m => !m.querySelector('.title')).pop() || null;
  };
  const place = () => {
    const a = answer();
    if (a) {
      const off = a.getBoundingClientRect().top - wrap.getBoundingClientRect().top;
      if (Math.abs(off - 6) > 2) wrap.scrollTop += off - 6;
    }
    const head = document.querySelector('#chat-headline') || wrap;
    const top = head.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight * 0.6) {  // back to the tab strip, the headline under it
      const tabs = document.querySelector('#tabs');
      window.scrollBy(0, (tabs ? tabs.getBoundingClientRect().top : top) - 4);
    }
  };
  // three seconds at least, then until the chat has stopped growing for a second (a loaded
  // machine renders the answer in parts for longer, and the chatbot's own autoscroll would then
  // take the reader to the bottom), at most ten seconds
  let n = 0, still = 0, last = -1;
  const tick = () => {
    if (quiet || n++ > 100) return;
    place();
    const h = wrap.scrollHeight;
    still = (h === last && answer()) ? still + 1 : 0;
    last = h;
    if (n < 30 || still < 10) setTimeout(tick, 100);
  };
  tick();
}"""
# the address bar holds the thread, so a reload or a pasted link reopens it
THREAD_URL = """(tid) => { if (!tid) return;
  const u = new URL(window.location.href); u.hash = '';
  u.searchParams.delete('device'); u.searchParams.set('thread', tid);
  window.history.replaceState(null, '', u.toString()); }"""
# after the load: a ?thread= the page did not keep (refused: another front end's id) is
# replaced by the page's own, so a reload or a copied address opens the thread in use
KEPT_URL = """(tid) => { const u = new URL(window.location.href);
  const asked = u.searchParams.get('thread');
  if (!tid || asked === null || asked === tid) return;
  u.searchParams.delete('sig');  // a Slack link's signature: the page's own thread needs none
  u.searchParams.set('thread', tid); window.history.replaceState(null, '', u.toString()); }"""
COPY_LINK = """(tid) => { const u = new URL(window.location.href); u.hash = ''; u.search = '';
  u.searchParams.set('thread', tid);
  if (navigator.clipboard) { navigator.clipboard.writeText(u.toString()); }
  return 'Link to this thread (copied): ' + u.toString(); }"""
# "Page the on-call": the thread's own address goes with the draft (the server does not know
# the name the on-call reached it by)
PAGE_LINK = """(tid, link) => { const u = new URL(window.location.href); u.hash = ''; u.search = '';
  u.searchParams.set('thread', tid); return [tid, u.toString()]; }"""
# the chat's height: a laptop's 580 px; on a phone what is left under the title, tabs, headline,
# the next-move chips and the question box
CHAT_HEIGHT = "min(580px, calc(100vh - 360px))"
SEED_QUESTIONS = ["10.1.3.20 to 10.2.1.40 not communicating", "list the PoDs of dc1 and their segments",
                  "any DCI link alarms in the last 2 hours?",
                  "port link status across all switches since 08:00", "who owns 10.1.3.20?"]


CHIPS = 4  # follow-up chips after an answer (three follow-ups, or four examples of what it answers)


def chip_updates(questions: list[str] | None) -> list[Any]:
    """The chips' values and visibility; None leaves them as they are (steps still streaming)."""
    if questions is None:
        return [gr.update() for _ in range(CHIPS)]
    shown = questions[:CHIPS]
    return [gr.update(value=q, visible=True) for q in shown] + \
        [gr.update(value="", visible=False) for _ in range(CHIPS - len(shown))]


def _chat_outputs(view: ChatView, zones: tuple[str, str] = ("UTC", "")) -> tuple[Any, ...]:
    return (*_panels(view, zones), *chip_updates(view.next))


def _panels(view: ChatView, zones: tuple[str, str]) -> tuple[Any, ...]:
    """While steps stream, the side panels keep the last answer's views; the final views replace
    them. `zones`: (the network's, the browser's): the timeline reads in the network's hours in
    any browser (views.for_browser), and its legend colours go out last (port_colours)."""
    head = gr.update() if view.headline is None else view.headline
    if not view.evidence:
        keep = gr.update()
        return "", view.history, keep, keep, keep, keep, view.status, keep, head
    kind, frame = view.plot or ("", None)
    line, colours = gr.update(visible=False), {}
    if kind == "timeline" and frame is not None:
        shown = for_browser(network_wall_time(frame, zones[0]), zones[1])
        line = gr.update(value=shown, visible=True,
                         label=f"port status, one band per port (high = up, low = down), times in "
                               f"{zones[0] or 'UTC'}")
        colours = port_colours(frame)
    bars = gr.update(visible=False)
    if kind == "bars" and frame is not None and len(frame):
        bars = gr.update(value=frame, visible=True, y_title=str(frame["measure"].iloc[0]))
    path = gr.update(value=view.path, visible=bool(view.path))
    return "", view.history, view.evidence, line, bars, path, view.status, colours, head



def network_clock(backends: Backends) -> str:
    """The network's clock (the lab's is simulated: "the last 2 hours" are counted from it), in
    the network's zone with UTC beside it."""
    try:
        now = backends.inventory.clock()
    except NetopsError as exc:
        return f"<small>{exc}</small>"
    utc = now.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    zone = backends.zone if backends.zone not in ("", "UTC") else None
    local = now.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %Z") if zone else ""
    return f"<small>network clock: {local + ' (' + utc + ')' if local else utc}</small>"


def _side_panels() -> tuple[Any, ...]:
    """(status, path, line plot, bar plot, evidence) beside the chat."""
    status = gr.Markdown(elem_id="chat-status")
    path = gr.HTML(visible=False, elem_id="path-panel")
    line = gr.LinePlot(x="time", y="band", color="port", visible=False, y_title="ports (high = up)",
                       label="port status, one band per port", x_title="time",
                       elem_id="status-plot")  # its natural height: a fixed one clips the legend
    bars = gr.BarPlot(x="port", y="value", sort="-y", y_lim=[0, None], visible=False,
                      label="telemetry (worst first)", height=300, x_label_angle=-45, elem_id="counter-plot")
    gr.Markdown("#### Evidence")
    evidence = gr.HTML(elem_id="evidence-panel", max_height=640)
    return status, path, line, bars, evidence


class _ChatEvents:
    """The Chat tab's event functions, bound to one handler."""

    def __init__(self, chat: ChatHandler) -> None:
        from netopsai.copilot.oncall import web_pager

        self.chat = chat
        self.pager = web_pager()  # Slack with an on-call channel: "Post to #channel" shows

    def zones(self, browser: str) -> tuple[str, str]:
        return self.chat.copilot.backends.zone, browser or ""

    def respond(self, question: str, history: list[Any], tid: str, use: bool, mode: str,
                window: str | None, start: str | None, end: str | None, browser: str,
                request: gr.Request, shown: str = "") -> Iterator[tuple[Any, ...]]:
        user = getattr(request, "username", None)  # set when login is on
        # asked before the page's load gave it a thread: this answer's thread is the page's now;
        # never a refused one (page_thread: a fresh web thread instead). A server restarted
        # under an open page has lost the page's State: the thread the page shows goes on
        tid = page_thread(tid or shown)[0]
        try:  # the picker's window, for a question that names none
            picked = self._picked(use, mode, window, start, end)
        except NetopsError as exc:
            view = ChatView(list(history or []), status=f"time window: {exc}")
            yield (question, *_chat_outputs(view)[1:], tid, tid)  # the question stays in the box
            return
        for view in self.chat.turn(question, history, tid, user, picked):
            yield (*_chat_outputs(view, self.zones(browser)), tid, tid)

    def _picked(self, use: bool, mode: str, window: str | None, start: str | None,
                end: str | None) -> str | dict[str, str] | None:
        if not use:
            return None
        b = self.chat.copilot.backends
        return window_arg(mode, window, start, end, b.inventory.clock(), b.zone)

    def page(self, tid: str, link: str, request: gr.Request) -> Any:
        """The escalation draft, shown for copying (posting it to Slack is the Slack bot's)."""
        text = self.chat.page(tid, getattr(request, "username", None), link)
        return gr.update(value=text, visible=True)

    def post_page(self, tid: str, link: str, request: gr.Request) -> Any:
        """The draft posted to SLACK_ONCALL_CHANNEL (copilot/oncall.py); what happened is the
        draft box's label."""
        from netopsai.copilot.oncall import web_post

        text = self.chat.page(tid, getattr(request, "username", None), link)
        said = web_post(self.pager, text) if self.pager else "no on-call channel configured"
        return gr.update(value=text, visible=True, label=said)

    def like(self, tid: str, data: gr.LikeData, request: gr.Request) -> str:
        return self.chat.feedback(tid, data.liked is True, getattr(request, "username", None))

    def open_thread(self, tid: str, browser: str, request: gr.Request) -> tuple[Any, ...]:
        asked = (tid or "").strip()
        tid, refused = page_thread(asked)  # a refused id: a fresh web thread, and why
        view = self.chat.resume(tid, getattr(request, "username", None),
                                asked=bool(asked) and not refused)
        if refused:
            view.status = refused
        return (tid, tid, *_chat_outputs(view, self.zones(browser))[1:])

    def new_thread(self, browser: str, request: gr.Request) -> tuple[Any, ...]:
        return self.open_thread("", browser, request)

    def on_load(self, browser: str, request: gr.Request) -> tuple[Any, ...]:
        # ?thread=ID resumes a saved conversation (a reload, or a link shared in the incident);
        # a Slack thread's signed link shows it read-only, going on in a new web thread
        from netopsai.ui.gradio.slack_thread import is_slack, open_slack

        asked = query_param(request, "thread")
        if is_slack(asked):
            tid, view = open_slack(self.chat, asked, query_param(request, "sig"),
                                   getattr(request, "username", None))
            opened = (tid, tid, *_chat_outputs(view, self.zones(browser))[1:])
        else:
            opened = self.open_thread(asked, browser, request)
        return (*opened, network_clock(self.chat.copilot.backends), browser)


def _hidden() -> Any:
    return gr.update(visible=False)


def chat_tab(app: gr.Blocks, copilot: Copilot) -> ChatHooks:
    """The tab's components and events; returns what other tabs ask the chat through."""
    chat = ChatHandler(copilot)
    ev = _ChatEvents(chat)
    thread = gr.State("")
    with gr.Row():
        with gr.Column(scale=3):
            head = gr.HTML(headline_html(""), elem_id="chat-headline")  # the conclusion, pinned
            # no floating label: it covered the first word of the answer's first line
            bot = gr.Chatbot(label="netopsai", show_label=False, height=CHAT_HEIGHT, elem_id="chat",
                             buttons=["copy"])
            with gr.Row(elem_id="chat-next"):  # the next move: a click asks it in this thread
                chips = [gr.Button("", visible=False, size="sm", variant="secondary", scale=0,
                                   elem_classes=["np-chip"], elem_id=f"chat-next-{i}")
                         for i in range(CHIPS)]
                page_btn = gr.Button("Page the on-call", size="sm", variant="stop", scale=0,
                                     elem_id="page-oncall")
                post_btn = gr.Button(f"Post to {ev.pager.oncall_label}" if ev.pager else "Post",
                                     size="sm", scale=0, visible=ev.pager is not None,
                                     elem_id="page-post")
            box = gr.Textbox(placeholder="Ask about the network, e.g. " + SEED_QUESTIONS[0],
                             show_label=False, submit_btn=True, elem_id="question",
                             max_length=copilot.limits.max_question)
            page_box = gr.Textbox(label="escalation draft (copy it to the on-call channel)",
                                  visible=False, lines=6, buttons=["copy"], elem_id="page-draft",
                                  interactive=False)
            examples = gr.Examples(SEED_QUESTIONS, inputs=[box], label="Try")
            with gr.Accordion("Time window, for questions that name none", open=False,
                              elem_id="chat-window-box"):
                use = gr.Checkbox(False, label="use this window", elem_id="chat-window-on")
                picker = time_picker("chat", default="2h")
        with gr.Column(scale=2):
            with gr.Row():
                clock = gr.Markdown(elem_id="chat-clock")
                copy_btn = gr.Button("Copy link", size="sm", elem_id="copy-link", scale=0)
                new_btn = gr.Button("New thread", size="sm", elem_id="new-thread", scale=0)
            link = gr.Markdown(elem_id="thread-link")
            status, path, line, bars, evidence = _side_panels()
            with gr.Accordion("Resume a thread", open=False):
                thread_box = gr.Textbox(label="thread id (paste one to resume it)", elem_id="thread-id")
                resume_btn = gr.Button("Resume", size="sm")
    browser = gr.Textbox(visible=False, elem_id="chat-browser-zone")  # set by the load's js
    page_link = gr.Textbox(visible=False, elem_id="page-link")  # the thread's address, set by js
    colours = gr.State({})
    panels = [bot, evidence, line, bars, path, status, colours, head, *chips]
    asking = [box, bot, thread, use, *picker.inputs, browser, thread_box]
    answered = [box, *panels, thread, thread_box]

    def after(asked: Any) -> Any:  # a new answer: the last one's escalation draft goes, last
        # (a server round trip before SHOW_ANSWER would hold the answer's placing back)
        return asked.then(recolour, colours, line).then(None, [thread_box], None, js=THREAD_URL).then(
            None, None, None, js=SHOW_ANSWER).then(_hidden, None, page_box)

    for asked in (box.submit(ev.respond, asking, answered),
                  examples.load_input_event.then(ev.respond, asking, answered)):
        after(asked)
    for chip in chips:  # the chip's question into the box, then asked as if Enter was pressed
        after(chip.click(lambda q: q, [chip], [box]).success(ev.respond, asking, answered))
    page_btn.click(ev.page, [thread_box, page_link], [page_box], js=PAGE_LINK)
    post_btn.click(ev.post_page, [thread_box, page_link], [page_box], js=PAGE_LINK)
    for opened in (resume_btn.click(ev.open_thread, [thread_box, browser], [thread, thread_box, *panels]),
                   new_btn.click(ev.new_thread, [browser], [thread, thread_box, *panels])):
        opened.then(recolour, colours, line).then(None, [thread_box], None, js=THREAD_URL).then(
            None, None, None, js=SHOW_ANSWER)
    # js reads the box, not the State: a State's value lives on the server only
    copy_btn.click(None, [thread_box], [link], js=COPY_LINK)
    bot.like(ev.like, [thread], [status])  # thumbs-up: the diagnosis joins incident memory
    app.load(ev.on_load, browser, [thread, thread_box, *panels, clock, browser],
             js=BROWSER_ZONE).then(recolour, colours, line).then(None, [thread_box], None, js=KEPT_URL).then(
                 None, None, None, js=SHOW_ANSWER)
    return ChatHooks(box, bot, lambda event: after(event.success(ev.respond, asking, answered)))
