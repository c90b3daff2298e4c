"""The Device tab in a real browser (fixtures in browser_kit, over a lab of this module's own):
opened by a link (`?device=NAME`, a full page load), switched with the picker, and an
unknown name. Every request the page makes must stay on loopback."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.lab.inject import inject
from netopsai.lab.manage import init_lab, lab_info
from netopsai.lab.scenario import Scenario
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from tests.browser_kit import QUESTION, browser, page, server, shot

pytestmark = pytest.mark.browser
__all__ = ["browser", "page", "server"]  # fixtures pytest finds by name (home is this module's)

TICKET = "CHG-1042"
OUTSIDE = "http://198.51.100.7"  # not loopback: the page fixture aborts and records any request


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """browser_kit's ACL fault on dc1-leaf-03, with the change that brought it in and a fabric
    link of the same leaf down (an open alarm, a red port, a step in the timeline)."""
    home = tmp_path_factory.mktemp("netopsai-home-device")
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7)
    inject(engine, Scenario.model_validate({
        "id": "browser-device", "now": lab_info(engine).clock, "question": QUESTION,
        "faults": [{"kind": "acl_block", "at": "-25m", "target": {"device": "dc1-leaf-03"},
                    "params": {"dst": "10.2.1.0/24"}},
                   {"kind": "change", "at": "-27m", "target": {"device": "dc1-leaf-03"},
                    "params": {"summary": "Apply new ACL set", "ticket": TICKET}},
                   {"kind": "link_down", "at": "-2h", "target": {"interface": "dc1-leaf-03:Ethernet52"}}]}))
    hostile(engine)
    return home


HOSTILE = f'<img src="{OUTSIDE}/img"> ![x]({OUTSIDE}/md) [y]({OUTSIDE}/link)'


def hostile(engine: Engine) -> None:
    """Network text that tries to load something: a port description and an alarm message."""
    with Session(engine) as s:
        port = s.exec(select(m.Interface).where(m.Interface.device == "dc1-leaf-03",
                                                m.Interface.name == "Ethernet1")).one()
        port.description = f"to host {HOSTILE}"
        s.add(port)
        s.add(m.Alarm(kind="LINK_DEGRADED", category="link", device="dc1-leaf-03", site="dc1",
                      interface="Ethernet1", raised_at=lab_info(engine).clock - timedelta(minutes=5),
                      source="syslog", message=f"errors {HOSTILE}"))
        s.commit()


def device_tab_selected(pg: Page) -> None:
    expect(pg.get_by_role("tab", name="Device")).to_have_attribute("aria-selected", "true",
                                                                    timeout=30_000)


def test_a_device_link_opens_its_page(page: tuple[Page, list[str]], server: str) -> None:
    pg, outside = page
    pg.goto(f"{server}?device=dc1-leaf-03")  # what a device name in an answer links to
    device_tab_selected(pg)
    expect(pg.locator("#device-status")).to_contain_text("dc1-leaf-03: 1 of 9 interfaces down",
                                                         timeout=30_000)
    expect(pg.locator("#device-facts")).to_contain_text("NETOPS-FILTER deny")
    changes = pg.locator("#device-changes")
    expect(changes).to_contain_text(TICKET)
    expect(changes).to_contain_text("Apply new ACL set")
    interfaces = pg.locator("#device-interfaces")
    expect(interfaces).to_contain_text("Ethernet52")
    expect(interfaces).to_contain_text("Vlan103")
    expect(pg.locator("#device-alarms")).to_contain_text("LINK_DOWN")
    plot = pg.locator("#device-timeline")
    expect(plot.locator("canvas, svg").first).to_be_visible(timeout=15_000)
    expect(plot).to_contain_text("Ethernet52")  # the legend names the down port
    expect(interfaces).to_contain_text(f"to host {HOSTILE}")  # shown as text, not markup
    expect(pg.locator("#device-alarms")).to_contain_text(f"errors {HOSTILE}")
    pg.wait_for_timeout(1000)  # time for any image the page would load
    shot(pg, "device-page.png")
    assert "None" not in pg.locator("#device-body").inner_text()
    pg.locator("#device-window input").click()
    pg.get_by_role("option", name="1h", exact=True).click()  # the link went down 2h ago:
    expect(interfaces).to_contain_text("no change, down 1h00m")  # down throughout this window
    assert outside == []


def test_the_picker_switches_the_device(page: tuple[Page, list[str]], server: str) -> None:
    pg, outside = page
    pg.goto(f"{server}?device=dc1-leaf-03")
    expect(pg.locator("#device-changes")).to_contain_text(TICKET, timeout=30_000)
    box = pg.locator("#device-picker input")
    box.click()
    box.fill("dc1-spine-02")
    pg.get_by_role("option", name="dc1-spine-02", exact=True).click()
    status = pg.locator("#device-status")
    expect(status).to_contain_text(re.compile(r"dc1-spine-02: 0 of \d+ interfaces down"),
                                   timeout=30_000)
    expect(pg.locator("#device-facts")).to_contain_text("spine")
    expect(status).to_contain_text("0 change records")
    expect(pg.locator("#device-changes")).to_be_hidden()  # no empty panel; leaf-03's rows gone
    expect(pg.locator("#device-neighbours")).to_contain_text("dc1-leaf-03")
    plot = pg.locator("#device-timeline")
    expect(plot).to_contain_text("Ethernet8")  # the spine's first ports, in natural order ...
    expect(plot).not_to_contain_text("Ethernet52")  # ... and none of the leaf's legend left
    shot(pg, "device-picker.png")
    expect(pg).to_have_url(re.compile(r"\?device=dc1-spine-02$"))  # the address bar follows
    pg.locator("#device-neighbours").get_by_text("dc1-leaf-03", exact=True).click()  # back along the link
    expect(status).to_contain_text("dc1-leaf-03: 1 of 9 interfaces down")
    expect(pg.locator("#device-picker input")).to_have_value("dc1-leaf-03")
    expect(pg.locator("#device-changes")).to_contain_text(TICKET)
    expect(pg).to_have_url(re.compile(r"\?device=dc1-leaf-03$"))
    assert outside == []


def test_an_unknown_device_is_one_line(page: tuple[Page, list[str]], server: str) -> None:
    pg, outside = page
    pg.goto(f"{server}?device=nope")
    device_tab_selected(pg)
    line = pg.locator("#device-status")
    expect(line).to_contain_text("unknown device 'nope'; did you mean", timeout=30_000)
    expect(pg.locator("#device-body")).to_be_hidden()  # no empty panels under the error
    shot(pg, "device-unknown.png")
    assert outside == []


def tick(t: datetime) -> str:
    """How the plot's time axis labels a tick (d3's multi-scale format)."""
    if t.hour == 0 and t.minute == 0:
        return f"{t:%a %d}"
    return f"{t:%I %p}" if t.minute == 0 else f"{t:%I:%M}"


def test_the_timeline_reads_in_the_network_zone_in_any_browser(browser: Browser, server: str) -> None:
    """The tables give times in the network's zone (UTC here); the plot draws in the browser's
    zone, so a browser in Tokyo must still see the network's hours on the axis."""
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100}, timezone_id="Asia/Tokyo")
    try:
        pg = ctx.new_page()
        pg.goto(f"{server}?device=dc1-leaf-03")
        status = pg.locator("#device-status")
        expect(status).to_contain_text("dc1-leaf-03: ", timeout=30_000)
        pg.locator("#device-window input").click()
        pg.get_by_role("option", name="1h", exact=True).click()
        expect(pg.locator("#device-interfaces")).to_contain_text("no change, down 1h00m")
        end = re.search(r"\.\. (\d{4}-\d\d-\d\d \d\d:\d\d)", status.inner_text())
        assert end, status.inner_text()
        at = datetime.fromisoformat(end.group(1))
        half = at.replace(minute=at.minute // 30 * 30)  # a tick at every spacing the plot picks
        plot = pg.locator("#device-timeline")
        expect(plot).to_contain_text(tick(half))
        expect(plot).not_to_contain_text(tick(half + timedelta(hours=9)))  # Tokyo's wall time
        shot(pg, "device-timeline-tokyo.png")
    finally:
        ctx.close()
