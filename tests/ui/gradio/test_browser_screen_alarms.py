"""Alarms you act on (issue 26, part 4), at 1440×900 and on a phone: at least ten open alarms
above the fold on the laptop (the filters fold into one line that says what they select, the
summary is one line), no word broken across lines, one wording for the impact, and "Diagnose
this" / "Diagnose this case" answer in one click: the Chat tab shows the alarm, its
acknowledgement and its case's blast radius, then the diagnosis, its conclusion in view."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser_kit import browser, open_page, serving
from tests.screen_kit import (
    BROKEN_WORDS,
    ROWS_IN_VIEW,
    SIZES,
    assert_first_line_in_view,
    assert_headline_in_view,
    assert_tabs_in_view,
    headline,
    settle,
    shot,
)
from tests.ui.gradio.test_browser_alarms import faulted_home

pytestmark = pytest.mark.browser
__all__ = ["browser"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(faulted_home(tmp_path_factory.mktemp("screen-alarms"))) as url:
        yield url


def alarms(pg: Page) -> None:
    pg.get_by_role("tab", name="Alarms").click()
    expect(pg.locator("#alarms-summary")).to_contain_text("open", timeout=30_000)
    expect(pg.locator("#alarms-open [role=gridcell]").first).to_be_visible(timeout=30_000)
    pg.wait_for_timeout(1200)  # the filters fold once the first read is drawn


def folded(pg: Page) -> bool:
    return "open" not in (pg.locator("#alarms-filters > button.label-wrap").get_attribute("class") or "")


@pytest.mark.parametrize("width, height", SIZES)
def test_the_open_alarms_fill_the_screen_with_words_whole(browser: Browser, server: str, width: int,
                                                           height: int) -> None:
    with open_page(browser, server, width, height) as (pg, outside):
        alarms(pg)
        assert folded(pg)  # a laptop's 900 px and a phone: the table is what the on-call came for
        expect(pg.locator("#alarms-filters")).to_contain_text("Filters: alarms · last 24h")
        summary = pg.locator("#alarms-summary").bounding_box()
        assert summary and summary["height"] <= (32 if width > 600 else 80), summary  # one line
        rows = pg.evaluate(ROWS_IN_VIEW, "#alarms-open")
        assert rows >= (10 if width > 600 else 3), rows
        for sel in ("#alarms-open", "#alarms-recent", "#alarms-cases"):
            cells = f"{sel} [role=gridcell], {sel} [role=columnheader]"
            assert pg.evaluate(BROKEN_WORDS, cells) == [], sel
        text = pg.locator("#alarms-open").inner_text() + pg.locator("#alarms-summary").inner_text()
        assert "traffic lost" in text and "traffic_lost" not in text  # one wording
        assert_tabs_in_view(pg)
        shot(pg, f"screen-alarms-fold-{width}.png")
        pg.locator("#alarms-filters > button.label-wrap").click()  # unfold, filter, the line follows
        pg.locator("#alarms-severity input").click()
        pg.locator("#alarms-severity").get_by_role("option", name="critical", exact=True).click()
        expect(pg.locator("#alarms-filters > button.label-wrap")).to_contain_text(
            "Filters: critical alarms · last 24h", timeout=30_000)
        expect(pg.locator("#alarms-start")).to_be_hidden()  # relative mode: no start/end boxes
        shot(pg, f"screen-alarms-filters-{width}.png")
        assert outside == []


def pick_row(pg: Page, text: str) -> None:
    pg.locator("#alarms-open [role=gridcell]").filter(has_text=text).first.click()
    expect(pg.locator("#alarms-selected")).to_contain_text(text, timeout=30_000)


def answered_in_chat(pg: Page) -> None:
    expect(pg.get_by_role("tab", name="Chat")).to_have_attribute("aria-selected", "true", timeout=30_000)
    expect(pg.locator("#chat-status")).to_contain_text("answered in", timeout=60_000)  # no Enter
    settle(pg)


@pytest.mark.parametrize("width, height", SIZES)
def test_diagnose_this_answers_in_one_click(browser: Browser, server: str, width: int,
                                            height: int) -> None:
    with open_page(browser, server, width, height) as (pg, outside):
        alarms(pg)
        pick_row(pg, "DEVICE_UNREACHABLE")
        pg.locator("#alarms-who input, #alarms-who textarea").first.fill("alice")
        pg.locator("#alarms-why input, #alarms-why textarea").first.fill("vendor RMA, CHG-77")
        pg.locator("#alarms-ack").click()
        expect(pg.locator("#alarms-action-status")).to_contain_text("acknowledged", timeout=30_000)
        pg.locator("#alarms-diagnose").click()
        answered_in_chat(pg)
        chat = pg.locator("#chat")
        expect(chat).to_contain_text("From the Alarms tab: alarm #")
        expect(chat).to_contain_text("DEVICE_UNREACHABLE on dc2-leaf-05 · critical")
        expect(chat).to_contain_text("acked by alice: vendor RMA, CHG-77")  # the ack comes along
        expect(chat).to_contain_text("blast radius: dc2")  # the case's
        expect(chat).to_contain_text("what is wrong with dc2-leaf-05?")
        assert "a device is down at dc2-leaf-05" in headline(pg)
        assert "impact:" in headline(pg) and "since" in headline(pg)
        assert_headline_in_view(pg)
        line = assert_first_line_in_view(pg)
        assert line["text"].startswith("Likely root cause")
        assert_tabs_in_view(pg)
        shot(pg, f"screen-alarms-diagnosed-{width}.png")
        assert outside == []


@pytest.mark.parametrize("width, height", SIZES)
def test_diagnose_this_case_answers_in_one_click(browser: Browser, server: str, width: int,
                                                 height: int) -> None:
    with open_page(browser, server, width, height) as (pg, outside):
        alarms(pg)
        dci = re.compile(r"LINK_DOWN on dc\d-dci-01")
        pg.locator("#alarms-cases [role=gridcell]").filter(has_text=dci).first.click()
        expect(pg.locator("#alarms-case-selected")).to_contain_text("-dci-01", timeout=30_000)
        pg.locator("#alarms-diagnose-case").click()
        answered_in_chat(pg)
        expect(pg.locator("#chat")).to_contain_text("From the Alarms tab: case C")
        assert "DCI or backbone link is down at dc" in headline(pg)
        assert_headline_in_view(pg)
        assert_first_line_in_view(pg)
        shot(pg, f"screen-alarms-case-diagnosed-{width}.png")
        assert outside == []


def test_diagnose_with_nothing_selected_says_so_and_asks_nothing(browser: Browser, server: str) -> None:
    with open_page(browser, server, 1440, 900) as (pg, _):
        alarms(pg)
        pg.locator("#alarms-diagnose").click()
        expect(pg.get_by_text("select an alarm first")).to_be_visible(timeout=30_000)
        expect(pg.get_by_role("tab", name="Alarms")).to_have_attribute("aria-selected", "true")
        assert pg.locator("#chat .message-row").count() == 0
