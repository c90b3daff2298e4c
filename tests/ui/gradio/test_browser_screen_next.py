"""The next move one click away (issue 26 items 8, 9, 6) in a browser, at 1440×900 and on a
phone (390×844): after an answer its follow-up chips show and one click asks the first in the
same thread; "Page the on-call" shows the escalation draft with the thread's link; a question
not placed offers clickable examples; a device link opens its page in this tab with the thread
kept, a host link asks its details in the thread. Screenshots in tests/artifacts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser_kit import browser, open_page, serving
from tests.screen_kit import QUESTION, SIZES, ask, assert_first_line_in_view, assert_headline_in_view, shot
from tests.ui.gradio.test_browser_alarms import faulted_home

__all__ = ["browser"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = faulted_home(tmp_path_factory.mktemp("screen-next"))
    with serving(home) as url:
        yield url


def _asked(pg: Page) -> int:
    return pg.locator("#chat .message-row.user-row").count()


@pytest.mark.browser
@pytest.mark.parametrize("width, height", SIZES)
def test_chips_ask_in_the_same_thread_and_page_drafts_the_escalation(
        browser: Browser, server: str, width: int, height: int) -> None:
    with open_page(browser, server, width, height) as (pg, outside):
        ask(pg)
        first = pg.locator("#chat-next-0")
        expect(first).to_be_visible()
        expect(first).to_have_text("trace 10.2.1.40 to 10.1.3.20")  # the reverse path
        upstream = pg.locator("#chat-next").get_by_role("button", name="upstream switch of 10.1.3.20")
        expect(upstream).to_be_visible()
        box = first.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width  # on screen, not cut
        expect(first).to_be_in_viewport(ratio=1)  # right under the answer, no scrolling to find it
        expect(pg.locator("#page-oncall")).to_be_in_viewport(ratio=1)
        assert_first_line_in_view(pg)  # the chips did not push the answer's first line away
        shot(pg, f"screen-next-chips-{width}.png")
        pg.locator("#page-oncall").click()
        draft = pg.locator("#page-draft textarea")
        expect(draft).to_be_visible(timeout=15_000)
        text = draft.input_value()
        thread = pg.url.split("thread=")[1]
        assert text.startswith("[netopsai] Reachable") and f"Asked: {QUESTION}" in text
        assert text.rstrip().endswith(f"?thread={thread}")
        draft.scroll_into_view_if_needed()
        shot(pg, f"screen-next-page-{width}.png")
        first.click()
        expect(pg.locator("#chat-status")).to_contain_text("answered in", timeout=60_000)
        expect(pg.locator("#chat .message-row.user-row")).to_have_count(2, timeout=15_000)
        expect(pg.locator("#chat .message-row.user-row").last).to_contain_text("trace 10.2.1.40 to 10.1.3.20")
        assert pg.url.split("thread=")[1] == thread  # the same thread
        assert_headline_in_view(pg)
        shot(pg, f"screen-next-asked-{width}.png")
        assert outside == []


@pytest.mark.browser
def test_examples_and_in_app_links_keep_the_thread(browser: Browser, server: str) -> None:
    with open_page(browser, server, 1440, 900) as (pg, outside):
        ask(pg, "what is the meaning of life")
        answer = pg.locator("#chat .message-row.bot-row").last
        expect(answer).to_contain_text("I could not place this")
        expect(answer).not_to_contain_text("Offline, I can answer")
        chips = pg.locator("#chat-next .np-chip:visible")
        assert 2 <= chips.count() <= 4
        shot(pg, "screen-next-examples-1440.png")
        ask(pg, "who owns 10.1.3.20?")
        thread = pg.url.split("thread=")[1]
        host = pg.locator("#chat a[href^='#ask=']").first
        expect(host).to_be_visible()
        name = host.inner_text()
        pages = len(pg.context.pages)
        host.click()
        expect(pg.locator("#chat .message-row.user-row").last).to_contain_text(f"details of {name}",
                                                                            timeout=30_000)
        expect(pg.locator("#chat-status")).to_contain_text("answered in", timeout=60_000)
        assert len(pg.context.pages) == pages and pg.url.split("thread=")[1].split("&")[0] == thread
        device = pg.locator("#chat a[href*='?device=']").first
        expect(device).to_be_visible()
        shown = device.inner_text()
        device.click()
        pg.wait_for_url(f"**device={shown}**", timeout=30_000)
        assert len(pg.context.pages) == pages  # the same tab, no new browser tab
        assert f"thread={thread}" in pg.url
        expect(pg.locator("#device-facts")).to_contain_text(shown, timeout=30_000)
        shot(pg, "screen-next-device-link-1440.png")
        pg.go_back()
        expect(pg.locator("#chat-status")).to_contain_text("resumed thread", timeout=30_000)
        assert outside == []
