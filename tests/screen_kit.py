"""What the on-call's screen tests (issue 26) measure in the page, as JavaScript over the rendered
layout: where the answer's first line is and whether anything covers it, words broken across
lines, the narrowest table cell, rows above the fold. Shared by tests/test_browser_screen_*.py;
the app and the browser come from tests/browser_kit.py."""

from __future__ import annotations

import contextlib
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from tests.browser_kit import ARTIFACTS

SIZES = [(1440, 900), (390, 844)]  # a laptop, a phone
QUESTION = "10.1.3.20 to 10.2.1.40 not communicating"

# the last answer's first line: its box, the chat's visible box, and whether the element at that
# line's middle is the answer itself (not a badge or a banner over it)
FIRST_LINE = """() => {
  const row = [...document.querySelectorAll('#chat .message-row.bot-row')].pop();
  if (!row) return null;
  const answer = [...row.querySelectorAll('.message')].filter(m => !m.querySelector('.title')).pop();
  if (!answer) return null;
  const walk = document.createTreeWalker(answer, NodeFilter.SHOW_TEXT,
    {acceptNode: n => n.textContent.trim() ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT});
  const text = walk.nextNode();
  const r = document.createRange(); r.selectNodeContents(text);
  const line = [...r.getClientRects()].find(x => x.width > 0);
  const wrap = document.querySelector('#chat .bubble-wrap').getBoundingClientRect();
  const hit = document.elementFromPoint(line.left + 3, line.top + line.height / 2);
  return {top: line.top, bottom: line.bottom, left: line.left, text: text.textContent.trim(),
          wrapTop: wrap.top, wrapBottom: wrap.bottom, height: window.innerHeight,
          covered: !(hit && answer.contains(hit))};
}"""

# every word broken across lines under `sel`: a run without spaces whose line changes between two
# letters or digits ("critic|al", "backb|one"); a line may still end after a hyphen or a slash
# inside a long token, as the browser's line breaking allows ("…/md", "2026-|11-25")
BROKEN_WORDS = """(sel) => {
  const bad = [];
  const top = (n, i) => {
    const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
    const x = [...r.getClientRects()].find(q => q.width > 0);
    return x ? Math.round(x.top) : null; };
  for (const root of document.querySelectorAll(sel)) {
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const box = n.parentElement && n.parentElement.getBoundingClientRect();
      if (!box || box.width === 0) continue;
      for (const m of n.textContent.matchAll(/\\S+/g)) {
        const r = document.createRange();
        r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
        const lines = new Set([...r.getClientRects()].filter(x => x.width > 0)
                                .map(x => Math.round(x.top)));
        if (lines.size < 2) continue;
        for (let i = 1; i < m[0].length; i++) {
          const a = top(n, m.index + i - 1), b = top(n, m.index + i);
          if (a !== null && b !== null && a !== b && /[A-Za-z0-9]/.test(m[0][i - 1]) &&
              /[A-Za-z0-9]/.test(m[0][i])) { bad.push(m[0]); break; }
        }
      }
    }
  }
  return bad;
}"""

# the narrowest cell with text in a table (gradio's grid cells, or <td>)
NARROWEST = """(sel) => {
  const cells = [...document.querySelectorAll(sel + ' [role=gridcell], ' + sel + ' td')]
    .filter(c => c.innerText.trim() && c.getBoundingClientRect().width > 0);
  return cells.length ? Math.min(...cells.map(c => c.getBoundingClientRect().width)) : null;
}"""

# how the table's box scrolls: (its scroll width, its visible width), for sideways scrolling
SCROLLER = """(sel) => {
  const t = document.querySelector(sel);
  const boxes = [t, ...t.querySelectorAll('*')].filter(e => {
    const s = getComputedStyle(e);
    return /(auto|scroll)/.test(s.overflowX) && e.scrollWidth > e.clientWidth + 1; });
  const b = boxes[0];
  return b ? [b.scrollWidth, b.clientWidth] : [0, 0];
}"""

# open alarms whose row ends above the fold
ROWS_IN_VIEW = """(sel) => [...document.querySelectorAll(sel + " [role=gridcell][data-col='0']")]
  .filter(c => { const r = c.getBoundingClientRect();
                 return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }).length"""


def first_line(pg: Page) -> dict[str, Any]:
    found = pg.evaluate(FIRST_LINE)
    assert found, "no answer in the chat"
    return dict(found)


def assert_first_line_in_view(pg: Page) -> dict[str, Any]:
    """The answer's first line inside the window and the chat's box, uncovered; it is what the
    headline says (its first words)."""
    line = first_line(pg)
    assert line["top"] >= 0 and line["bottom"] <= line["height"], line
    assert line["wrapTop"] - 1 <= line["top"] and line["bottom"] <= line["wrapBottom"] + 1, line
    assert not line["covered"], line
    return line


def assert_tabs_in_view(pg: Page) -> None:
    """Every tab on screen and in the window (none behind a "…" menu)."""
    for name in ("Chat", "Batch", "Alarms", "Device", "Reliability"):
        tab = pg.get_by_role("tab", name=name)
        expect(tab).to_be_visible()
        box = tab.bounding_box()
        assert box and box["y"] >= 0 and box["x"] >= 0, (name, box)
        assert box["x"] + box["width"] <= pg.viewport_size["width"] + 1, (name, box)  # type: ignore[index]
    assert pg.locator("#tabs button[aria-label='More tabs']").count() == 0 or \
        not pg.locator("#tabs button[aria-label='More tabs']").is_visible()


def headline(pg: Page) -> str:
    return pg.locator("#chat-headline").inner_text()


def assert_headline_in_view(pg: Page) -> None:
    box = pg.locator("#chat-headline .np-head").bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= pg.viewport_size["height"], box  # type: ignore[index]


def ask(pg: Page, question: str = QUESTION) -> None:
    expect(pg.locator("#chat-clock")).to_contain_text("network clock", timeout=30_000)
    box = pg.locator("#question textarea")
    asked = pg.locator("#chat .message-row.user-row")
    before = asked.count()
    box.fill(question)
    box.press("Enter")
    # the status still says "answered in" of the last answer until this turn shows its row
    expect(asked).to_have_count(before + 1, timeout=60_000)
    expect(pg.locator("#chat-status")).to_contain_text("answered in", timeout=60_000)
    settle(pg)


def settle(pg: Page, ms: int = 1500) -> None:
    """The chat places the answer for a moment after it arrives (it renders in parts, slowly on
    a loaded machine): wait until its first line is in the chat's box (at most 15 s), then a
    moment more, so a later jump (the chatbot's own autoscroll) is still caught."""
    with contextlib.suppress(PlaywrightError):
        pg.wait_for_function(f"() => {{ try {{ const l = ({FIRST_LINE})(); return l && l.top >= 0"
                             " && l.top >= l.wrapTop - 1 && l.bottom <= l.wrapBottom + 1"
                             " && l.bottom <= l.height; } catch (e) { return false; } }",
                             timeout=15_000)
    pg.wait_for_timeout(ms)


def shot(pg: Page, name: str, full: bool = False) -> None:
    """What the on-call sees (the window, not the whole page, unless `full`)."""
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / name), full_page=full)
