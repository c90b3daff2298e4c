"""The on-call's tour (issue 26's Done-when), at 1440×900 and 390×844, on one faulted embedded
lab that also has a month of history: a connectivity question, "is the network ok?", an alarm's
"Diagnose this", a device's page, the Reliability tab, a thread opened from a shared link and a
follow-up chip — each as an on-call would reach it, with what it concludes (the chat's pinned
headline, the device's facts, the reliability summary) inside the window and nothing over it
(the element at its centre and at its first word is its own), every tab one tap away. On the
Reliability tab no table cell is squeezed to a few letters and every legend entry is drawn inside
its plot. Screenshots per task and size in test-artifacts/tour/ for a person to look at."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from netopsai.lab.inject import inject
from netopsai.lab.manage import init_lab, lab_info
from netopsai.lab.scenario import Scenario
from netopsai.reliability.simulate import simulate
from netopsai.store.engine import engine_for
from tests.browser_kit import ARTIFACTS, browser, open_page, serving
from tests.screen_kit import (
    BROKEN_WORDS,
    NARROWEST,
    QUESTION,
    SIZES,
    ask,
    assert_first_line_in_view,
    assert_tabs_in_view,
    settle,
)

pytestmark = pytest.mark.browser
__all__ = ["browser"]
SHOTS = ARTIFACTS / "tour"
TABS = ("Chat", "Batch", "Alarms", "Device", "Reliability")
CELL_PX = 40  # a table cell narrower holds three or four letters: the phone's old one-letter columns
EMPTY = "the answer's conclusion stays here"  # the headline before any answer

# where `sel`'s element is, and what the page shows at its centre and at its first word: the
# element itself (or something inside it), not a badge, a banner or a sticky bar over it
SEEN = """(sel) => {
  const e = document.querySelector(sel);
  if (!e) return null;
  const r = e.getBoundingClientRect();
  const at = (x, y) => { const h = document.elementFromPoint(x, y);
    return {mine: !!h && e.contains(h), what: h ? `${h.tagName}#${h.id}.${h.className}` : null}; };
  return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: innerWidth,
          height: innerHeight, text: e.innerText.trim(),
          centre: at(r.left + r.width / 2, r.top + r.height / 2),
          first: at(r.left + Math.min(12, r.width / 2), r.top + Math.min(10, r.height / 2))};
}"""

# the time-to-close plot's root categories (every label gradio's legend holds, drawn or cut) and,
# for each, whether a legend entry naming it is drawn inside the plot's column and the window
LEGEND = """() => {
  const plot = document.querySelector('#rel-ttr');
  const col = document.querySelector('#rel-ttr-box') || plot;
  const box = col.getBoundingClientRect();
  const names = [...new Set([...plot.querySelectorAll('g.role-legend-label text')]
    .map(t => t.textContent.trim()).filter(t => t && t !== 'root category'))];
  const entries = [...col.querySelectorAll('g.role-legend text, .np-key')].map(e => {
    const r = e.getBoundingClientRect();
    return {text: e.textContent.trim(), drawn: r.width > 0 && r.height > 0,
            inside: r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 &&
                    r.bottom <= box.bottom + 1 && r.right <= innerWidth};
  });
  return names.map(n => ({name: n, shown: entries.some(e => e.text === n && e.drawn && e.inside)}));
}"""
# every cell of the table under `sel` (gradio's grid cells or <td>): its width and whether its
# right edge is inside the window (no sideways scroll needed to read it)
CELLS = """(sel) => [...document.querySelectorAll(sel + ' [role=gridcell], ' + sel + ' td')]
  .filter(c => c.innerText.trim()).map(c => { const r = c.getBoundingClientRect();
    return {text: c.innerText.trim().slice(0, 30), width: r.width, right: r.right}; })"""


def tour_home(home: Path) -> Path:
    """A small lab with 30 simulated days (the Reliability tab's) and, now, a device down, a
    link down, CRC errors on a port and a DCI circuit down on top of them (--keep)."""
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7)
    simulate(engine, 30)
    inject(engine, Scenario.model_validate({
        "id": "tour", "question": QUESTION, "noise": {"alarms": 10},
        "faults": [{"kind": "device_down", "at": "-20m", "target": {"device": "dc2-leaf-05"}},
                   {"kind": "link_down", "at": "-40m", "target": {"link": "dc1-leaf-03:Ethernet49"}},
                   {"kind": "crc_errors", "at": "-90m", "target": {"interface": "dc1-leaf-02:Ethernet50"}},
                   {"kind": "dci_link_down", "at": "-3h",
                    "target": {"link": "dc1-dci-01:HundredGigE0/0/0/20"}}]}), keep=True)
    assert lab_info(engine).clock is not None
    engine.dispose()
    return home


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tour_home(tmp_path_factory.mktemp("tour"))) as url:
        yield url


def seen(pg: Page, sel: str) -> dict[str, Any]:
    """`sel` inside the window, its centre and first word its own (nothing covers it)."""
    got = pg.evaluate(SEEN, sel)
    assert got, f"{sel} is not on the page"
    assert got["top"] >= 0 and got["bottom"] <= got["height"], (sel, got)
    assert got["left"] >= 0 and got["right"] <= got["width"] + 1, (sel, got)
    assert got["centre"]["mine"] and got["first"]["mine"], (sel, got)
    return dict(got)


def headline_seen(pg: Page) -> str:
    """The chat's pinned headline, an answer's (not the empty one), in view and uncovered."""
    got = seen(pg, "#chat-headline .np-head")
    assert got["text"] and EMPTY not in got["text"], got
    return str(got["text"])


def tabs_reachable(pg: Page, back: str) -> None:
    """Every tab in the window and one tap away (none behind "…"), then back to `back`."""
    assert_tabs_in_view(pg)
    for name in (*TABS, back):
        pg.get_by_role("tab", name=name).click()
        expect(pg.get_by_role("tab", name=name)).to_have_attribute("aria-selected", "true")


def save(pg: Page, task: str, width: int) -> None:
    """The window as the on-call sees it (not the whole page)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / f"tour-{task}-{width}.png"))


@pytest.mark.parametrize("width, height", SIZES)
def test_a_connectivity_question_lands_on_its_headline(browser: Browser, server: str, width: int,
                                                       height: int) -> None:
    with open_page(browser, server, width, height) as (pg, outside):
        ask(pg)
        said = headline_seen(pg)
        assert said.upper().startswith("CONCLUSION") and "Reachable" in said, said
        assert_first_line_in_view(pg)
        tabs_reachable(pg, "Chat")
        save(pg, "connectivity", width)
        assert outside == []


@pytest.mark.parametrize("width, height", SIZES)
def test_is_the_network_ok_lands_on_its_headline(browser: Browser, server: str, width: int,
                                                 height: int) -> None:
    with open_page(browser, server, width, height) as (pg, outside):
        ask(pg, "is the network ok?")
        said = headline_seen(pg)
        assert "dc2-leaf-05" in pg.locator("#chat .message-row.bot-row").last.inner_text()  # the device down
        assert "could not place" not in said, said
        assert_first_line_in_view(pg)
        save(pg, "network-ok", width)
        assert outside == []


@pytest.mark.parametrize("width, height", SIZES)
def test_an_alarm_diagnosed_in_one_click_lands_on_its_headline(browser: Browser, server: str,
                                                               width: int, height: int) -> None:
    with open_page(browser, server, width, height) as (pg, outside):
        pg.get_by_role("tab", name="Alarms").click()
        expect(pg.locator("#alarms-summary")).to_contain_text("open", timeout=30_000)
        row = pg.locator("#alarms-open [role=gridcell]").filter(has_text="DEVICE_UNREACHABLE").first
        row.scroll_into_view_if_needed()
        save(pg, "alarms", width)
        row.click()
        expect(pg.locator("#alarms-selected")).to_contain_text("DEVICE_UNREACHABLE", timeout=30_000)
        pg.locator("#alarms-diagnose").click()
        expect(pg.get_by_role("tab", name="Chat")).to_have_attribute("aria-selected", "true",
                                                                     timeout=30_000)
        expect(pg.locator("#chat-status")).to_contain_text("answered in", timeout=60_000)
        settle(pg)
        said = headline_seen(pg)
        assert "dc2-leaf-05" in said, said
        assert_first_line_in_view(pg)
        assert_tabs_in_view(pg)
        save(pg, "alarm-diagnosed", width)
        assert outside == []


@pytest.mark.parametrize("width, height", SIZES)
def test_a_device_page_leads_with_its_facts(browser: Browser, server: str, width: int,
                                            height: int) -> None:
    with open_page(browser, server, width, height) as (pg, outside):
        pg.get_by_role("tab", name="Device").click()
        box = pg.locator("#device-picker input")
        box.click()
        box.fill("dc1-leaf-03")
        pg.get_by_role("option", name="dc1-leaf-03", exact=True).click()
        expect(pg.locator("#device-status")).to_contain_text("dc1-leaf-03: 1 of", timeout=30_000)
        expect(pg.locator("#device-facts")).to_contain_text("dc1-leaf-03")
        pg.wait_for_timeout(800)
        seen(pg, "#device-status")  # "1 of N interfaces down": the page's conclusion
        tabs_reachable(pg, "Device")
        seen(pg, "#device-status")
        for sel in ("#device-interfaces", "#device-alarms"):
            narrow = pg.evaluate(NARROWEST, sel)
            assert narrow is not None and narrow >= CELL_PX, (sel, narrow)
        save(pg, "device", width)
        assert outside == []


def legend_whole(pg: Page) -> list[dict[str, Any]]:
    """Every root category named by a legend entry drawn inside the plot's column (the legend
    is re-drawn once its colours arrive: ask again until then)."""
    got: list[dict[str, Any]] = []
    for _ in range(40):
        got = pg.evaluate(LEGEND)
        if len(got) >= 3 and all(e["shown"] for e in got):
            return got
        pg.wait_for_timeout(250)
    raise AssertionError(f"the root-category legend is cut: {got}")


def table_reads(pg: Page, sel: str, width: int) -> None:
    """No cell narrower than a few letters, no word broken, and on any screen every cell's
    right edge inside the window: the whole row reads without a sideways scroll."""
    cells = pg.evaluate(CELLS, sel)
    assert cells, f"{sel} has no cells"
    narrow = [c for c in cells if c["width"] < CELL_PX]
    assert narrow == [], (sel, narrow[:5])
    cut = [c for c in cells if c["right"] > width + 1]
    assert cut == [], (sel, cut[:5])
    assert pg.evaluate(BROKEN_WORDS, f"{sel} [role=gridcell], {sel} td") == [], sel
    assert pg.evaluate("() => document.documentElement.scrollWidth") <= width + 1  # nor the page


@pytest.mark.parametrize("width, height", SIZES)
def test_the_reliability_tab_reads_on_every_screen(browser: Browser, server: str, width: int,
                                                   height: int) -> None:
    with open_page(browser, server, width, height) as (pg, outside):
        pg.get_by_role("tab", name="Reliability").click()
        summary = pg.locator("#rel-summary")
        expect(summary).to_contain_text("bad minutes", timeout=30_000)
        assert "Worst:" in seen(pg, "#rel-summary")["text"]  # the tab's conclusion, on arrival
        ttr = pg.locator("#rel-ttr")
        expect(ttr.locator("svg, canvas").first).to_be_visible(timeout=20_000)
        ttr.scroll_into_view_if_needed()
        names = {e["name"] for e in legend_whole(pg)}
        assert {"link", "device", "optics"} <= names, names  # the lab's root categories
        pg.locator("#rel-ttr-box").evaluate("e => e.scrollIntoView({block: 'end'})")  # its legend too
        save(pg, "reliability-plots", width)
        expect(pg.locator("#rel-offenders td").first).to_be_visible(timeout=30_000)
        for sel in ("#rel-offenders", "#rel-ttr-table"):
            pg.locator(sel).scroll_into_view_if_needed()
            save(pg, f"reliability-{sel[5:]}", width)  # before the checks: a failure's picture too
            table_reads(pg, sel, width)
        pg.evaluate("() => window.scrollTo(0, 0)")  # back up to the tab strip
        tabs_reachable(pg, "Reliability")
        assert outside == []


@pytest.mark.parametrize("width, height", SIZES)
def test_a_shared_link_and_a_follow_up_chip_land_on_the_headline(browser: Browser, server: str,
                                                                 width: int, height: int) -> None:
    with open_page(browser, server, width, height) as (pg, outside):
        ask(pg, "what is wrong with dc2-leaf-05?")
        first = headline_seen(pg)
        link = pg.url
        assert "?thread=" in link
        chip = pg.locator("#chat-next-0")
        expect(chip).to_be_visible()
        expect(chip).to_be_in_viewport(ratio=1)
        asked = chip.inner_text()
        save(pg, "chips", width)
        chip.click()
        expect(pg.locator("#chat .message-row.user-row")).to_have_count(2, timeout=30_000)
        expect(pg.locator("#chat .message-row.user-row").last).to_contain_text(asked)
        expect(pg.locator("#chat-status")).to_contain_text("answered in", timeout=60_000)
        settle(pg)
        followed = headline_seen(pg)
        assert followed != first, followed  # the follow-up's own conclusion
        assert_first_line_in_view(pg)
        save(pg, "follow-up", width)
        assert outside == []
    with open_page(browser, link, width, height) as (other, outside):  # the link, in another browser
        expect(other.locator("#chat-status")).to_contain_text("resumed thread", timeout=30_000)
        settle(other, 2500)
        assert headline_seen(other) == followed  # the thread's last conclusion
        assert_first_line_in_view(other)
        tabs_reachable(other, "Chat")
        save(other, "shared-link", width)
        assert outside == []
