"""The conclusion where the eye lands (issue 26, part 2), at 1440×900 and on a phone (390×844):
after a long answer, after a second one, and in a thread opened from a shared link, the answer's
first line is inside the window and the chat's box with nothing over it; the pinned headline
says the same conclusion and stays in view; the tab strip is not scrolled away. The headline's
text is built from the answer alone (unit tests here too)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from netopsai.ui.gradio.headline import headline, headline_html
from tests.browser_kit import browser, open_page, serving
from tests.screen_kit import (
    SIZES,
    ask,
    assert_first_line_in_view,
    assert_headline_in_view,
    assert_tabs_in_view,
    settle,
    shot,
)
from tests.screen_kit import headline as shown_headline
from tests.ui.gradio.test_browser_alarms import faulted_home

__all__ = ["browser"]

DIAGNOSIS = "\n".join([
    "**Reachable: no** — the trace stops at dc1-leaf-03 [E1]. **Likely root cause: a link is down "
    "at dc1-leaf-03 Ethernet49** (`link.down`, confidence 0.90). Link down on "
    "[dc1-leaf-03](?device=dc1-leaf-03) Ethernet49 [E3][E9]",
    "- **Impact:** total: none of the 4 equal-cost paths delivers, the pair cannot communicate [E1]",
    "- **Since:** 2026-11-27T04:55:00Z, when LINK_DOWN was raised on dc1-leaf-03 [E3]",
    "- **Windows read:** traces at 2026-11-27 05:35 UTC (now) [E1]", "", "#### Ruled out", "",
    "- routing.bgp_down: the BGP sessions are down because their links are down [E3]"])


def test_a_diagnosis_headline_is_status_cause_where_impact_since() -> None:
    assert headline(DIAGNOSIS) == ("Reachable: no · Likely root cause: a link is down at dc1-leaf-03 "
                                   "Ethernet49 · impact: total: none of the 4 equal-cost paths "
                                   "delivers · since 2026-11-27T04:55:00Z")


def test_a_lookup_headline_is_its_first_sentence_past_the_window_line() -> None:
    answer = ("_Window: last 2h, 2026-11-27 03:35–05:35 UTC_\n\n2 dci alarms in the window (2 open). "
              "More words. [E1]\n\nRows of [E1] (alarms):")
    assert headline(answer) == "2 dci alarms in the window (2 open)."
    lookup = "2 PoDs in dc1: dc1-pod1 (segments 10.1.1.0/24 .. 10.1.16.0/24); dc1-pod2. [E1]"
    assert headline(lookup) == "2 PoDs in dc1: dc1-pod1 (segments 10.1.1.0/24 .. 10.1.16.0/24); dc1-pod2."
    placed = "I could not place this: no rule matches."
    assert headline(f"_{placed}_") == placed
    assert headline("") == "" and len(headline("word " * 200)) <= 242


def test_the_headline_is_text_with_device_links_only() -> None:
    out = headline_html('a link is down at dc1-leaf-03 <img src="http://x/y">', "answer", {"dc1-leaf-03"})
    assert '<a class="nw" href="?device=dc1-leaf-03">dc1-leaf-03</a>' in out
    assert "<img" not in out and "&lt;img" in out
    assert "np-head-empty" in headline_html("") and "conclusion stays here" in headline_html("")
    assert "no answer" in headline_html("the server stopped", "gone")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A lab with a link down on dc1-leaf-03, a device down, CRC errors and a DCI circuit down:
    the question's answer is long (found, also found, ruled out, checked, next steps)."""
    home = faulted_home(tmp_path_factory.mktemp("screen-chat"))
    with serving(home) as url:
        yield url


@pytest.mark.browser
@pytest.mark.parametrize("width, height", SIZES)
def test_a_long_answer_and_a_shared_link_land_on_the_conclusion(browser: Browser, server: str,
                                                                width: int, height: int) -> None:
    with open_page(browser, server, width, height) as (pg, outside):
        expect(pg.locator("#chat-headline")).to_contain_text("the answer's conclusion stays here")
        ask(pg)
        line = assert_first_line_in_view(pg)
        assert line["text"].startswith("Reachable")
        said = shown_headline(pg)
        assert "CONCLUSION" in said.upper() and "Reachable: yes" in said and "dc1-leaf-03" in said
        assert_headline_in_view(pg)
        assert_tabs_in_view(pg)  # the page kept its tab strip in view
        assert pg.locator("#chat [data-testid=block-label]").count() == 0  # no badge over the answer
        shot(pg, f"screen-chat-answer-{width}.png")
        ask(pg, "what is wrong with dc2-leaf-05?")  # a second long answer lands on its own first line
        line = assert_first_line_in_view(pg)
        assert line["text"].startswith("Likely root cause")
        assert "a device is down at dc2-leaf-05" in shown_headline(pg)
        assert_tabs_in_view(pg)
        shot(pg, f"screen-chat-second-{width}.png")
        link = pg.url
        assert "?thread=" in link and outside == []
    with open_page(browser, link, width, height) as (other, outside):  # a shared link
        expect(other.locator("#chat-status")).to_contain_text("resumed thread", timeout=30_000)
        settle(other, 2500)
        line = assert_first_line_in_view(other)
        assert line["text"].startswith("Likely root cause")
        assert "a device is down at dc2-leaf-05" in shown_headline(other)
        assert_headline_in_view(other)
        assert_tabs_in_view(other)
        shot(other, f"screen-chat-shared-link-{width}.png")
        assert outside == []


@pytest.mark.browser
def test_scrolling_the_answer_keeps_the_headline_in_view(browser: Browser, server: str) -> None:
    """The on-call reads down to "Ruled out": the conclusion stays pinned above the chat."""
    with open_page(browser, server, 390, 844) as (pg, _):
        ask(pg)
        pg.locator("#chat .bubble-wrap").hover()
        pg.mouse.wheel(0, 40)  # the on-call's own scroll: the chat stops placing the answer
        pg.wait_for_timeout(300)
        pg.evaluate("""() => {  // the chat's own box scrolls down to "Ruled out"
          const wrap = document.querySelector('#chat .bubble-wrap');
          const h = [...wrap.querySelectorAll('h4')].filter(x => x.getClientRects().length)
            .find(x => x.innerText.includes('Ruled out'));
          wrap.scrollTop += h.getBoundingClientRect().top - wrap.getBoundingClientRect().top - 10; }""")
        pg.wait_for_timeout(800)
        expect(pg.locator("#chat h4:visible").filter(has_text="Ruled out").first).to_be_in_viewport()
        assert "Reachable: yes" in shown_headline(pg)
        assert_headline_in_view(pg)
        shot(pg, "screen-chat-scrolled-390.png")
