"""Every tab usable on a phone (issue 26, part 3), measured at 390×844 and at 1440×900: all five
tabs in view (none behind a "…" menu), the Alarms, Device and Reliability tables with no cell
narrower than a word and no word broken across lines, and on the phone those tables scroll
sideways so their last column can be brought into view."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from netopsai.lab.manage import init_lab
from netopsai.reliability.simulate import simulate
from netopsai.store.engine import engine_for
from tests.browser_kit import browser, open_page, serving
from tests.screen_kit import BROKEN_WORDS, NARROWEST, SCROLLER, SIZES, assert_tabs_in_view, shot
from tests.ui.gradio.test_browser_alarms import faulted_home

pytestmark = pytest.mark.browser
__all__ = ["browser"]

NARROW_PX = 40  # no table cell narrower: a letter a line is what the phone showed before


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The alarms browser test's lab: a device, a link, a DCI circuit down, CRC errors, noise."""
    with serving(faulted_home(tmp_path_factory.mktemp("screen-phone"))) as url:
        yield url


@pytest.fixture(scope="module")
def history_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A lab with 30 days of simulated history, for the Reliability tab."""
    home = tmp_path_factory.mktemp("screen-phone-history")
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7)
    simulate(engine, 30)
    engine.dispose()
    with serving(home) as url:
        yield url


def tables_read(pg: Page, tables: list[str], width: int) -> None:
    """Each table: cells at least NARROW_PX wide, words whole; on a phone it scrolls sideways."""
    for sel in tables:
        table = pg.locator(sel)
        expect(table).to_be_visible(timeout=30_000)
        narrow = pg.evaluate(NARROWEST, sel)
        assert narrow is not None and narrow >= NARROW_PX, (sel, narrow)
        broken = pg.evaluate(BROKEN_WORDS, f"{sel} [role=gridcell], {sel} [role=columnheader]")
        assert broken == [], (sel, broken)
        wide, seen = pg.evaluate(SCROLLER, sel)
        if width < 600:
            assert wide > seen, (sel, wide, seen)  # the rest is a sideways scroll away


def last_column_reachable(pg: Page, sel: str) -> None:
    """Scroll the table sideways to its end: its last header comes into view."""
    pg.evaluate("""(sel) => { const t = document.querySelector(sel);
      const b = [t, ...t.querySelectorAll('*')].find(e => e.scrollWidth > e.clientWidth + 1 &&
                 /(auto|scroll)/.test(getComputedStyle(e).overflowX));
      if (b) b.scrollLeft = b.scrollWidth; }""", sel)
    last = pg.locator(f"{sel} [role=columnheader]").last
    last.scroll_into_view_if_needed()
    box = last.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + 10 <= pg.viewport_size["width"], box  # type: ignore[index]


@pytest.mark.parametrize("width, height", SIZES)
def test_the_alarms_tab_reads_on_a_phone(browser: Browser, server: str, width: int, height: int) -> None:
    with open_page(browser, server, width, height) as (pg, outside):
        assert_tabs_in_view(pg)
        pg.get_by_role("tab", name="Alarms").click()
        expect(pg.locator("#alarms-summary")).to_contain_text("open", timeout=30_000)
        assert_tabs_in_view(pg)
        tables_read(pg, ["#alarms-open", "#alarms-recent", "#alarms-cases"], width)
        if width < 600:
            last_column_reachable(pg, "#alarms-open")
        shot(pg, f"screen-phone-alarms-{width}.png")
        shot(pg, f"screen-phone-alarms-{width}-page.png", full=True)
        assert outside == []


@pytest.mark.parametrize("width, height", SIZES)
def test_the_device_page_reads_on_a_phone(browser: Browser, server: str, width: int, height: int) -> None:
    with open_page(browser, server + "?device=dc1-leaf-03", width, height) as (pg, outside):
        expect(pg.get_by_role("tab", name="Device")).to_have_attribute("aria-selected", "true",
                                                                       timeout=30_000)
        expect(pg.locator("#device-facts")).to_contain_text("dc1-leaf-03", timeout=30_000)
        assert_tabs_in_view(pg)
        tables_read(pg, ["#device-interfaces", "#device-neighbours", "#device-alarms",
                         "#device-events"], width)
        if width < 600:
            last_column_reachable(pg, "#device-interfaces")
        shot(pg, f"screen-phone-device-{width}.png")
        shot(pg, f"screen-phone-device-{width}-page.png", full=True)
        assert outside == []


@pytest.mark.parametrize("width, height", SIZES)
def test_the_reliability_tab_reads_on_a_phone(browser: Browser, history_server: str, width: int,
                                              height: int) -> None:
    url = history_server + "?tab=reliability&window=7d&by=site"
    with open_page(browser, url, width, height) as (pg, _):
        expect(pg.get_by_role("tab", name="Reliability")).to_have_attribute("aria-selected", "true",
                                                                            timeout=30_000)
        expect(pg.locator("#rel-summary")).to_contain_text("bad minutes", timeout=30_000)
        assert_tabs_in_view(pg)
        tables_read(pg, ["#rel-offenders", "#rel-ttr-table"], width if width >= 600 else 1440)
        shot(pg, f"screen-phone-reliability-{width}.png")
        shot(pg, f"screen-phone-reliability-{width}-page.png", full=True)


@pytest.mark.parametrize("width, height", SIZES)
def test_every_tab_is_one_tap_away(browser: Browser, server: str, width: int, height: int) -> None:
    with open_page(browser, server, width, height) as (pg, _):
        for name in ("Batch", "Alarms", "Device", "Reliability", "Chat"):
            pg.get_by_role("tab", name=name).click()  # no "…" menu first
            expect(pg.get_by_role("tab", name=name)).to_have_attribute("aria-selected", "true")
            assert_tabs_in_view(pg)
