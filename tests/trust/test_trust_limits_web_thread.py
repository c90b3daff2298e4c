"""A refused thread id does not stick to the page (issue 23, B5's follow-up): a shared link
with another front end's thread (`?thread=api:…`) or such an id pasted in the resume box used
to become the page's thread, so every next question failed with "not a web thread id" until
"New thread" was clicked. Now the page starts a fresh web thread instead, says so in one line,
puts that thread in the address bar, and the next question is answered in it."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from netopsai.backends.base import Backends
from netopsai.copilot.service import Copilot
from netopsai.ui.gradio.chat import THREAD_ID, ChatHandler, page_thread
from netopsai.ui.gradio.chat_tab import _ChatEvents
from tests.browser_kit import browser, home, open_page, server

__all__ = ["browser", "home", "server"]  # fixtures pytest finds by name
REFUSED = ("api:tok:t1", "mcp:ide:t1", "slack:C1:1700000000.1", "x" * 65, "a b")
STATUS = 7  # open_thread's outputs: thread, box, chat, evidence, line, bars, path, status, …


def test_a_refused_id_gives_a_fresh_web_thread_and_a_notice() -> None:
    for asked in REFUSED:
        tid, notice = page_thread(asked)
        assert THREAD_ID.fullmatch(tid) and tid != asked
        assert "not a web thread id" in notice and f"a new thread `{tid}` starts" in notice
        assert "\n" not in notice
    assert page_thread("ops-42") == ("ops-42", "")  # a web id is kept as it is
    tid, notice = page_thread("  ")
    assert THREAD_ID.fullmatch(tid) and notice == ""


def test_after_a_refused_link_the_next_question_is_answered(backends: Backends) -> None:
    copilot = Copilot(backends)
    ev = _ChatEvents(ChatHandler(copilot))
    request: Any = SimpleNamespace(username=None)
    opened = ev.open_thread("api:tok:t1", "", request)
    tid = opened[0]
    assert tid != "api:tok:t1" and opened[1] == tid  # the State and the box hold the fresh id
    assert "not a web thread id" in opened[STATUS] and tid in opened[STATUS]
    *_, last = ev.respond("who owns 10.1.3.20?", [], tid, False, "relative", "2h", None, None,
                          "", request)
    status = last[6]
    assert status.startswith("answered in") and f"thread `{tid}`" in status, status
    assert "dc1-host-03-1" in copilot.thread(f"web:anonymous:{tid}").answer
    assert not copilot.thread("api:tok:t1").answer  # the refused id was never used
    # a refused id that reached a question anyway (an old page) is not asked in either
    *_, last = ev.respond("who owns 10.1.3.20?", [], "api:tok:t1", False, "relative", "2h",
                          None, None, "", request)
    assert last[6].startswith("answered in") and not copilot.thread("api:tok:t1").answer


@pytest.mark.browser
def test_a_shared_link_to_another_front_ends_thread_leaves_the_page_usable(browser: Browser,
                                                                           server: str) -> None:
    with open_page(browser, server + "?thread=api:tok:t1", 1440, 900) as (pg, outside):
        status = pg.locator("#chat-status")
        expect(status).to_contain_text("not a web thread id", timeout=30_000)
        expect(status).to_contain_text("a new thread")
        fresh = status.locator("code")
        expect(fresh).to_have_text(re.compile(r"^[0-9a-f]{16}$"))
        tid = fresh.inner_text()
        expect(pg).to_have_url(re.compile(rf"\?thread={tid}$"))  # the address bar follows
        box = pg.locator("#question textarea")
        box.fill("who owns 10.1.3.20?")
        box.press("Enter")
        expect(status).to_contain_text("answered in", timeout=30_000)
        expect(status).to_contain_text(tid)
        expect(pg.locator("#chat")).to_contain_text("dc1-host-03-1")
        assert outside == []
