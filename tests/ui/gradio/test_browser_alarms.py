"""The Alarms tab in a real browser (fixtures in browser_kit), as an on-call sees it: severity
colours read from the computed style, full messages, filters and the time picker changing the
rows, an acknowledgement made in one browser context showing in another, auto-refresh, and
"diagnose this" filling the Chat tab's question. The lab has a device down, a link down, CRC
errors on a port and a DCI circuit down, plus noise and one alarm with hostile text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect
from sqlmodel import Session

from netopsai.lab.inject import inject
from netopsai.lab.manage import init_lab, lab_info
from netopsai.lab.scenario import Scenario
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai.ui.gradio.auth import add_user
from tests.browser_kit import browser, server, serving, shot

pytestmark = pytest.mark.browser
__all__ = ["browser", "server"]  # fixtures pytest finds by name (`home` is this module's own)

HOSTILE = 'port down <img src="http://127.0.0.1:9/x"> ![x](http://127.0.0.1:9/md)'
DCI_MESSAGE = ("Interface HundredGigE0/0/0/20 changed state to down (peer dc2-dci-01 "
               "HundredGigE0/0/0/20) circuit LMN-400101 (Lumen)")
CRITICAL, MAJOR, ACKED_BLUE = "rgb(185, 28, 28)", "rgb(194, 65, 12)", "rgb(219, 234, 254)"


def faulted_home(home: Path) -> Path:
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7)
    inject(engine, Scenario.model_validate({
        "id": "browser-alarms", "now": lab_info(engine).clock, "question": "q", "noise": {"alarms": 10},
        "faults": [{"kind": "device_down", "at": "-20m", "target": {"device": "dc2-leaf-05"}},
                   {"kind": "link_down", "at": "-40m", "target": {"link": "dc1-leaf-03:Ethernet49"}},
                   {"kind": "crc_errors", "at": "-90m", "target": {"interface": "dc1-leaf-02:Ethernet50"}},
                   {"kind": "dci_link_down", "at": "-3h",
                    "target": {"link": "dc1-dci-01:HundredGigE0/0/0/20"}}]}))
    add_alarm(home, "LINK_DOWN", "dc1-leaf-09", HOSTILE, minutes_ago=10, severity="minor")
    return home


def add_alarm(home: Path, kind: str, device: str, message: str, minutes_ago: int,
              severity: str = "major") -> None:
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    with Session(engine) as s:
        s.add(m.Alarm(kind=kind, category="device", device=device, site=device[:3], severity=severity,
                      raised_at=lab_info(engine).clock - timedelta(minutes=minutes_ago),
                      source="syslog", message=message))
        s.commit()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return faulted_home(tmp_path_factory.mktemp("alarms-home"))


def context(browser: Browser) -> BrowserContext:
    return browser.new_context(viewport={"width": 1600, "height": 1200})


def alarms_page(ctx: BrowserContext, url: str) -> Page:
    pg = ctx.new_page()
    pg.goto(url)
    pg.get_by_role("tab", name="Alarms").click()
    expect(pg.locator("#alarms-summary")).to_contain_text("open", timeout=30_000)
    return pg


@pytest.fixture
def pg(browser: Browser, server: str) -> Iterator[Page]:
    """The Alarms tab in a browser context of its own."""
    ctx = context(browser)
    yield alarms_page(ctx, server)
    ctx.close()


def cell(pg: Page, table: str, text: str) -> Locator:
    return pg.locator(f"{table} [role=gridcell]").filter(has_text=text).first


def row(pg: Page, table: str, text: str) -> Locator:
    return pg.locator(f"{table} [role=row]").filter(has_text=text).first


def style(loc: Locator, prop: str) -> str:
    return str(loc.evaluate(f"e => getComputedStyle(e).{prop}"))


def text_box(pg: Page, elem: str) -> Locator:
    return pg.locator(f"#{elem} input, #{elem} textarea").first


def filter_device(pg: Page, text: str) -> None:
    """Type a device filter and wait for the tables to show it, as a person would before
    clicking a row (a click on the previous render would pick whatever row takes its place)."""
    box = text_box(pg, "alarms-device")
    box.fill(text)
    box.press("Enter")
    note = pg.locator("#alarms-open-note")
    if text:
        expect(note).to_contain_text(f'matching "{text}"', timeout=30_000)
    else:
        expect(note).not_to_contain_text("matching", timeout=30_000)


def pick(pg: Page, elem: str, option: str) -> None:
    pg.locator(f"#{elem} input").click()
    pg.locator(f"#{elem}").get_by_role("option", name=option, exact=True).click()


def test_severity_colours_and_full_messages(pg: Page) -> None:
    critical = cell(pg, "#alarms-open", "critical")
    expect(critical).to_be_visible(timeout=30_000)
    assert style(critical, "backgroundColor") == CRITICAL
    assert style(critical, "color") == "rgb(255, 255, 255)"
    major = cell(pg, "#alarms-open", "major")
    assert style(major, "backgroundColor") == MAJOR
    tinted = cell(pg, "#alarms-open", "DEVICE_UNREACHABLE")  # the rest of a critical row: a tint
    assert style(tinted, "backgroundColor") == "rgb(254, 226, 226)"
    shot(pg, "alarms-colours.png")
    filter_device(pg, "dc1-leaf-09")
    hostile = cell(pg, "#alarms-open", "port down")
    expect(hostile).to_contain_text('<img src="http://127.0.0.1:9/x">', timeout=30_000)  # as text
    assert pg.locator("#alarms-open img").count() == 0
    filter_device(pg, "dci")
    message = cell(pg, "#alarms-open", "(peer dc2-dci-01")
    expect(message).to_be_visible(timeout=30_000)
    expect(message).to_have_text(DCI_MESSAGE)  # all of it, wrapped, not "Interf…"
    clipped = message.evaluate("e => { const s = e.querySelector('span') || e; "
                               "return s.scrollWidth > s.clientWidth + 1; }")
    assert clipped is False
    shot(pg, "alarms-full-message.png")


def devices_in(pg: Page, table: str) -> set[str]:  # of the rows on screen (rendered lazily)
    cells = pg.locator(f"{table} [role=gridcell][data-col='7']")
    return {t.strip() for t in cells.all_inner_texts()}


def test_filters_and_the_time_picker_change_the_rows(pg: Page, home: Path) -> None:
    device_cells = pg.locator("#alarms-open [role=gridcell][data-col='7']")
    expect(device_cells.filter(has_text="dc1-dci-01").first).to_be_visible(timeout=30_000)
    pick(pg, "alarms-site", "dc2")
    expect(device_cells.filter(has_text="dc1-")).to_have_count(0, timeout=30_000)
    expect(cell(pg, "#alarms-open", "dc2-leaf-05 unreachable")).to_be_visible()
    shown = devices_in(pg, "#alarms-open")
    assert shown and all(d.startswith("dc2-") for d in shown)
    pick(pg, "alarms-severity", "critical")
    expect(cell(pg, "#alarms-open", "major")).to_have_count(0, timeout=30_000)
    expect(cell(pg, "#alarms-open", "DEVICE_UNREACHABLE")).to_be_visible()
    pick(pg, "alarms-category", "optics")  # nothing of the kind: the note says so, no bare headers
    note = pg.locator("#alarms-open-note")
    expect(note).to_contain_text("no open critical optics alarms in dc2 for the last 24h",
                                 timeout=30_000)
    expect(pg.locator("#alarms-open")).to_be_hidden()
    shot(pg, "alarms-empty.png")
    for elem in ("alarms-site", "alarms-severity", "alarms-category"):
        pick(pg, elem, "all")
    filter_device(pg, "leaf-03")
    expect(pg.locator("#alarms-open")).to_be_visible(timeout=30_000)
    expect(cell(pg, "#alarms-open", "dc2-leaf-05")).to_have_count(0, timeout=30_000)
    assert devices_in(pg, "#alarms-open") <= {"dc1-leaf-03", "dc1-spine-01"}  # itself or its peer
    filter_device(pg, "")
    pg.locator("#alarms-mode").get_by_text("absolute").click()  # 6h .. 2h before the lab's clock
    pg.locator("#alarms-start input").fill("now - 6h")
    pg.locator("#alarms-start input").press("Enter")
    pg.locator("#alarms-end input").fill("now - 2h")
    pg.locator("#alarms-end input").press("Enter")
    end = lab_info(engine_for(f"sqlite:///{home / 'netopsai.db'}")).clock - timedelta(hours=2)
    expect(pg.locator("#alarms-recent-note")).to_contain_text(f"and {end:%Y-%m-%d %H:%M}Z",
                                                              timeout=30_000)  # both ends read
    expect(cell(pg, "#alarms-recent", "dc1-dci-01")).to_be_visible()  # down since 3h ago
    expect(cell(pg, "#alarms-recent", "dc2-leaf-05")).to_have_count(0)  # down 20 min ago
    pick(pg, "alarms-state", "closed")
    expect(cell(pg, "#alarms-recent", "open")).to_have_count(0, timeout=30_000)
    shot(pg, "alarms-filters.png")


def select_row(pg: Page, table: str, text: str) -> None:
    cell(pg, table, text).click()
    expect(pg.locator("#alarms-selected")).to_contain_text(text, timeout=30_000)


def test_an_ack_in_one_browser_shows_in_another(browser: Browser, server: str) -> None:
    ctx_a, ctx_b = context(browser), context(browser)
    try:
        a, b = alarms_page(ctx_a, server), alarms_page(ctx_b, server)
        expect(cell(b, "#alarms-open", "dc2-leaf-05 unreachable")).to_be_visible(timeout=30_000)
        select_row(a, "#alarms-open", "dc2-leaf-05 unreachable")  # critical: at the top
        text_box(a, "alarms-who").fill("alice")
        text_box(a, "alarms-why").fill("vendor RMA opened, CHG-77")
        a.locator("#alarms-ack").click()
        expect(a.locator("#alarms-action-status")).to_contain_text("acknowledged", timeout=30_000)
        expect(a.locator("#alarms-selected")).to_contain_text("acked by alice")
        filter_device(a, "dc1-leaf-02")
        select_row(a, "#alarms-open", "Input CRC errors")
        text_box(a, "alarms-who").fill("bob")
        text_box(a, "alarms-why").fill("optics swap tonight")
        a.locator("#alarms-silence").click()
        expect(a.locator("#alarms-action-status")).to_contain_text("silenced for 2h", timeout=30_000)
        b.locator("#alarms-refresh").click()  # the other on-call's browser, after a refresh
        acked = row(b, "#alarms-open", "dc2-leaf-05 unreachable")
        expect(acked).to_contain_text("acked by alice", timeout=30_000)
        expect(acked).to_contain_text("vendor RMA opened, CHG-77")
        assert style(cell(b, "#alarms-open", "acked by alice"), "backgroundColor") == ACKED_BLUE
        filter_device(b, "dc1-leaf-02")
        expect(b.locator("#alarms-open-note")).to_contain_text("1 silenced, hidden", timeout=30_000)
        expect(cell(b, "#alarms-open", "Input CRC errors")).to_have_count(0)  # silenced: hidden
        shot(b, "alarms-silenced-hidden.png")
        b.locator("#alarms-show-silenced").get_by_role("checkbox").check()
        silenced = row(b, "#alarms-open", "Input CRC errors")
        expect(silenced).to_contain_text("silenced by bob until", timeout=30_000)
        expect(silenced).to_contain_text("optics swap tonight")
        filter_device(b, "")
        expect(row(b, "#alarms-open", "dc2-leaf-05 unreachable")).to_contain_text("acked by alice",
                                                                                  timeout=30_000)
        shot(b, "alarms-acked.png")
    finally:
        ctx_a.close()
        ctx_b.close()


def test_diagnose_this_asks_in_one_click(pg: Page) -> None:
    """Issue 26: "Diagnose this" no longer only pre-fills a question: one click asks it."""
    filter_device(pg, "dc1-leaf-03")
    select_row(pg, "#alarms-open", "Ethernet49 changed state")
    pg.locator("#alarms-diagnose").click()
    expect(pg.get_by_role("tab", name="Chat")).to_have_attribute("aria-selected", "true",
                                                                 timeout=30_000)
    expect(pg.locator("#chat-status")).to_contain_text("answered in", timeout=60_000)
    expect(pg.locator("#chat")).to_contain_text("From the Alarms tab: alarm #")
    expect(pg.locator("#chat")).to_contain_text("dc1-leaf-03 Ethernet49")
    shot(pg, "alarms-diagnose-alarm.png")
    pg.get_by_role("tab", name="Alarms").click()
    filter_device(pg, "")  # every case again; the largest (the device down) comes first
    cell(pg, "#alarms-cases", "DEVICE_UNREACHABLE on dc2-leaf-05").click()
    expect(pg.locator("#alarms-case-selected")).to_contain_text("dc2-leaf-05", timeout=30_000)
    pg.locator("#alarms-diagnose-case").click()
    expect(pg.locator("#chat")).to_contain_text("a device is down at dc2-leaf-05", timeout=60_000)
    shot(pg, "alarms-diagnose-case.png")


def test_auto_refresh_reads_new_alarms_until_switched_off(browser: Browser, home: Path) -> None:
    """Also in the network's zone (config.yaml ingest.timezone) with UTC beside it."""
    config = home / "config.yaml"
    config.write_text("ingest:\n  timezone: America/Los_Angeles\n")
    try:
        with serving(home, NETOPSAI_UI_ALARMS_REFRESH_S="2") as url:
            ctx = context(browser)
            pg = alarms_page(ctx, url)
            clock = pg.locator("#alarms-clock")
            expect(clock).to_contain_text(re.compile(r"network clock \S+ \S+ PST \(\d\d:\d\dZ\)"),
                                          timeout=30_000)
            raised = pg.locator("#alarms-open [role=gridcell][data-col='1']").first
            expect(raised).to_have_text(re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d PST \(\d\d:\d\dZ\)"))
            first = clock.inner_text()
            add_alarm(home, "PSU_FAILURE", "dc1-spine-02", "Power supply 2 failed (auto-refresh)", 5)
            expect(cell(pg, "#alarms-open", "auto-refresh")).to_be_visible(timeout=30_000)  # no click
            assert clock.inner_text() != first  # "data read at …" moved on
            shot(pg, "alarms-auto-refresh-zone.png")
            pg.locator("#alarms-auto").get_by_role("checkbox").uncheck()
            pg.wait_for_timeout(1000)  # let a tick already on its way land
            add_alarm(home, "FAN_FAILURE", "dc1-spine-03", "Fan tray 1 failed (manual)", 4)
            pg.wait_for_timeout(6000)  # three intervals with the timer off
            expect(cell(pg, "#alarms-open", "(manual)")).to_have_count(0)
            pg.locator("#alarms-refresh").click()
            expect(cell(pg, "#alarms-open", "(manual)")).to_be_visible(timeout=30_000)
            ctx.close()
    finally:
        config.unlink()


def test_with_login_the_acting_user_is_the_logged_in_one(browser: Browser, home: Path) -> None:
    users = home / "users"
    add_user(users, "dana", "correct horse")
    with serving(home, NETOPSAI_UI_USERS=str(users)) as url:
        ctx = context(browser)
        pg = ctx.new_page()
        pg.goto(url)
        pg.get_by_label("username").fill("dana")
        pg.get_by_label("password").fill("correct horse")
        pg.get_by_role("button", name="Login").click()
        pg.get_by_role("tab", name="Alarms").click()
        who = text_box(pg, "alarms-who")
        expect(who).to_have_value("dana", timeout=30_000)
        expect(who).to_be_disabled()  # not someone else's name
        filter_device(pg, "dc1-dci-01")
        select_row(pg, "#alarms-open", "(peer dc2-dci-01")
        text_box(pg, "alarms-why").fill("carrier ticket LMN-1")
        pg.locator("#alarms-ack").click()
        expect(row(pg, "#alarms-open", "(peer dc2-dci-01")).to_contain_text(
            "acked by dana: carrier ticket LMN-1", timeout=30_000)
        shot(pg, "alarms-login-ack.png")
        ctx.close()
