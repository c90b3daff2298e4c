"""A server that goes away (issue 26, part 5), in Chromium at 1440×900 and 390×844: within
seconds the page says "the server went away", a question asked meanwhile is held (the box keeps
it, the banner names it), and when the server is back the page offers "Ask again", which sends
it into the same thread. Killed mid-answer, the pinned headline says "no answer", and the saved
thread marks the unanswered turn when it is opened again (unit test of the replay too)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from playwright.sync_api import Browser, Page, expect

from netopsai.copilot.service import Thread
from netopsai.ui.gradio.chat import UNANSWERED, ChatHandler
from netopsai_testkit.peers.process import free_port, stop
from tests.browser_kit import browser, open_page, wait_up
from tests.screen_kit import SIZES, ask, assert_first_line_in_view, headline, settle, shot
from tests.store_helpers import acl_home

__all__ = ["browser"]
GONE_S = 8  # the banner shows within this (the page checks every 2 s, a hung server in 3.5 s)


def test_a_saved_thread_marks_the_turn_left_without_an_answer() -> None:
    chat = ChatHandler.__new__(ChatHandler)
    chat._names = (time.monotonic(), set())  # no inventory needed: nothing to link
    chat._hosts = (time.monotonic(), set())
    state = {"messages": [HumanMessage("who owns 10.1.3.20?"), AIMessage("dc1-host-03-1 [E1]"),
                          HumanMessage("10.1.3.20 to 10.2.1.40 not communicating"),
                          HumanMessage("and now?"), AIMessage("fine [E2]")]}
    shown = chat._replay(Thread("web:t", state), {"E1", "E2"})
    assert [m == UNANSWERED for m in shown].count(True) == 1
    asked = next(i for i, m in enumerate(shown) if isinstance(m, dict)
                 and m.get("content") == "10.1.3.20 to 10.2.1.40 not communicating")
    assert shown[asked + 1] == UNANSWERED  # right after the question it belongs to
    last = chat._replay(Thread("web:t", {"messages": state["messages"][:3]}), {"E1"})
    assert last[-1] == UNANSWERED


class Server:
    """`netopsai serve` on one port, stopped and started again there, or frozen (SIGSTOP)."""

    def __init__(self, home: Path) -> None:
        self.home, self.port = home, free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.proc: subprocess.Popen[bytes] | None = None
        self._duty: threading.Thread | None = None
        self._slowing = threading.Event()

    def start(self) -> None:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("NETOPSAI_", "DATABASE_URL", "HTTP_PROXY", "HTTPS_PROXY"))}
        env.update(NETOPSAI_HOME=str(self.home), GRADIO_ANALYTICS_ENABLED="False",
                   NO_PROXY="127.0.0.1,localhost")
        log = self.home / f"serve-{self.port}-{time.monotonic_ns()}.log"
        with log.open("wb") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "netopsai.cli", "serve", "--port",
                                          str(self.port)], env=env, stdout=out, stderr=subprocess.STDOUT)
        wait_up(self.url, self.proc, log)

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()

    def slow_down(self) -> None:
        """Run the server a tenth of the time (stopped 90 ms, running 10 ms) until `freeze`: an
        answer then takes long enough to be caught mid-way on a machine of any load, where at
        full speed it could end before a stop sent on its first step arrived."""
        assert self.proc is not None
        pid, self._slowing = self.proc.pid, threading.Event()

        def duty() -> None:
            while True:
                os.kill(pid, signal.SIGSTOP)
                time.sleep(0.09)
                if self._slowing.is_set():
                    return  # left stopped: frozen
                os.kill(pid, signal.SIGCONT)
                time.sleep(0.01)

        self._duty = threading.Thread(target=duty, daemon=True)
        self._duty.start()

    def freeze(self) -> None:
        assert self.proc is not None
        if self._duty is not None:
            self._slowing.set()
            self._duty.join()
            self._duty = None
        os.kill(self.proc.pid, signal.SIGSTOP)

    def close(self) -> None:
        if self._duty is not None:  # a test that failed before its freeze
            self._slowing.set()
            self._duty.join()
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
            stop(self.proc)


@contextmanager
def server_at(home: Path) -> Iterator[Server]:
    srv = Server(home)
    srv.start()
    try:
        yield srv
    finally:
        srv.close()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return acl_home(tmp_path_factory.mktemp("screen-gone"), "gone")


def banner(pg: Page) -> str:
    return pg.locator("#np-gone").inner_text() if pg.locator("#np-gone").count() else ""


@pytest.mark.browser
@pytest.mark.parametrize("width, height", SIZES)
def test_a_question_asked_while_the_server_is_away_is_kept_and_asked_again(
        browser: Browser, home: Path, width: int, height: int) -> None:
    with server_at(home) as srv, open_page(browser, srv.url, width, height) as (pg, outside):
        ask(pg, "who owns 10.1.3.20?")
        thread = pg.url.split("thread=")[1]
        srv.kill()
        t0 = time.monotonic()
        expect(pg.locator("#np-gone")).to_contain_text("The server went away", timeout=GONE_S * 1000)
        assert time.monotonic() - t0 < GONE_S
        box = pg.locator("#question textarea")
        box.fill("10.1.3.20 to 10.2.1.40 not communicating")
        box.press("Enter")
        expect(pg.locator("#np-gone")).to_contain_text("your question is kept: 10.1.3.20 to 10.2.1.40")
        expect(box).to_have_value("10.1.3.20 to 10.2.1.40 not communicating")  # not dropped
        shot(pg, f"screen-gone-down-{width}.png")
        srv.start()  # the page reloads itself on the same thread and offers the question again
        retry = pg.locator("#np-retry")
        expect(retry).to_be_visible(timeout=40_000)
        expect(pg.locator("#np-gone")).to_contain_text("10.1.3.20 to 10.2.1.40 not communicating")
        shot(pg, f"screen-gone-back-{width}.png")
        retry.click()
        expect(pg.locator("#chat-status")).to_contain_text("answered in", timeout=60_000)
        settle(pg)
        assert "an ACL blocks the traffic at dc1-leaf-03" in headline(pg)
        assert_first_line_in_view(pg)
        assert pg.url.split("thread=")[1] == thread  # the same conversation
        expect(pg.locator("#chat")).to_contain_text("who owns 10.1.3.20?")
        expect(pg.locator("#np-gone")).to_be_hidden(timeout=10_000)
        shot(pg, f"screen-gone-asked-again-{width}.png")
        assert outside == []


@pytest.mark.browser
def test_a_server_lost_mid_answer_leaves_no_silent_spinner(browser: Browser, home: Path) -> None:
    with server_at(home) as srv, open_page(browser, srv.url, 1440, 900) as (pg, _):
        ask(pg, "who owns 10.1.3.20?")
        # mid-answer: the process stops the moment the page shows the question being worked on
        pg.expose_function("npFreeze", srv.freeze)
        pg.evaluate("""() => { const h = document.querySelector('#chat-headline');
          const seen = new MutationObserver(() => { if (h.querySelector('.np-head-working')) {
            seen.disconnect(); window.npFreeze(); } });
          seen.observe(h, {subtree: true, childList: true, characterData: true}); }""")
        box = pg.locator("#question textarea")
        box.fill("10.1.3.20 to 10.2.1.40 not communicating")
        srv.slow_down()
        box.press("Enter")
        expect(pg.locator("#np-gone")).to_contain_text("The server went away", timeout=GONE_S * 1000)
        head = pg.locator("#chat-headline")
        expect(head).to_contain_text("no answer")
        expect(head).to_contain_text("10.1.3.20 to 10.2.1.40 not communicating")
        expect(pg.locator("#chat-status")).to_contain_text("the server went away — ask again")
        assert pg.locator("#chat .loading-spinner:visible").count() == 0  # no spinner left turning
        said = pg.evaluate("""() => [...document.querySelectorAll('#chat .title')]
          .filter(t => t.querySelector('.loading-spinner'))
          .map(t => getComputedStyle(t, '::after').content)""")
        assert all("no answer" in c for c in said), said  # the step left open says so
        shot(pg, "screen-gone-mid-answer-1440.png")
        srv.kill()
        srv.start()
        expect(pg.locator("#np-retry")).to_be_visible(timeout=40_000)
        pg.locator("#np-retry").click()
        expect(pg.locator("#chat-status")).to_contain_text("answered in", timeout=60_000)
        assert "an ACL blocks the traffic at dc1-leaf-03" in headline(pg)
        shot(pg, "screen-gone-mid-answer-asked-again-1440.png")
