"""The Device tab's snapshots panel in a real browser (fixtures in browser_kit, over a lab of this
module's own whose network zone is Tokyo): two snapshots of dc1-leaf-03 stored the way the
Snapshotter stores them (a capture, its running config recorded and diffed by to_row, the row
saved), listed with their times in the page's zone; a click opens one with its interfaces, LLDP
and BGP neighbours and the config's changed lines; no secret of the running config reaches
the page, and the device's hostile text stays text."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Locator, Page, expect
from sqlalchemy import Engine
from sqlmodel import Session

from netopsai.backends.snapshot.capture import Captured, to_row
from netopsai.common.timewin import as_utc
from netopsai.lab.manage import init_lab, lab_info
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai.store.snapshots import save
from tests.browser_kit import browser, page, server, shot

pytestmark = pytest.mark.browser
__all__ = ["browser", "page", "server"]  # fixtures pytest finds by name (home is this module's)

DEVICE = "dc1-leaf-03"
ZONE = "Asia/Tokyo"  # the network's zone (config.yaml): 9 h from UTC, so a UTC time shows as wrong
SECRETS = ("Pr1vateC0mmXy", "Sup3rS3cretHash", "Ne1ghb0rPassW", "N3wPeerPassQ")
OUTSIDE = "http://198.51.100.7"  # not loopback: the page fixture aborts and records any request
HOSTILE = f'<img src="{OUTSIDE}/img"> <b>bold</b>'
BASE_CONFIG = ["hostname dc1-leaf-03", f"snmp-server community {SECRETS[0]} RO",
               f"username admin privilege 15 secret 5 {SECRETS[1]}", "router bgp 65103",
               f" neighbor 10.0.0.1 password {SECRETS[2]}", "!"]
ADDED = ["ip access-list extended NETOPS-FILTER", " deny ip any 10.2.1.0 0.0.0.255"]
NEW_PEER = f" neighbor 10.0.0.9 password {SECRETS[3]}"  # a changed line with a secret in it


def _state(down: bool) -> dict[str, object]:
    """NAPALM getters' shapes: Ethernet52 and the second spine's BGP session down in the later one."""
    return {
        "interfaces": {"Ethernet1": {"is_up": True, "is_enabled": True, "description": HOSTILE},
                       "Ethernet49": {"is_up": True, "is_enabled": True, "description": "to spine-01"},
                       "Ethernet52": {"is_up": not down, "is_enabled": True, "description": "to spine-02"}},
        "lldp_neighbors": {"Ethernet49": [{"hostname": "dc1-spine-01", "port": "Ethernet3"}],
                           "Ethernet52": [] if down else [{"hostname": "dc1-spine-02", "port": "Ethernet3"}]},
        "bgp_neighbors": {"global": {"router_id": "10.255.1.3", "peers": {
            "10.0.0.1": {"remote_as": 65001, "is_up": True, "description": "spine-01"},
            "10.0.0.9": {"remote_as": 65002, "is_up": not down, "description": "spine-02"}}}}}


def _snapshot(engine: Engine, at: datetime, config: list[str], down: bool, why: str) -> int:
    with Session(engine) as s:
        alarm = m.Alarm(kind="LINK_DOWN", category="link", device=DEVICE, site="dc1",
                        interface="Ethernet52", raised_at=at, source="syslog", message=why)
        s.add(alarm)
        s.commit()
        alarm_id = alarm.id
    cap = Captured(DEVICE, "napalm", data=_state(down), driver="ios",
                   running="\n".join(config), errors=["get_optics: not supported by the ios driver"])
    return int(save(engine, to_row(engine, cap, alarm_id, at)).id or 0)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("netopsai-home-snapshots")
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7)
    clock = as_utc(lab_info(engine).clock).replace(second=0, microsecond=0)
    _snapshot(engine, clock - timedelta(hours=2, minutes=7), BASE_CONFIG, False, "first")
    later = [*BASE_CONFIG[:-1], NEW_PEER, *ADDED, "!"]
    _snapshot(engine, clock - timedelta(minutes=25), later, True, "second")
    engine.dispose()
    (home / "config.yaml").write_text(f"ingest:\n  timezone: {ZONE}\n")
    (home / "times.txt").write_text("\n".join(t.isoformat() for t in (
        clock - timedelta(hours=2, minutes=7), clock - timedelta(minutes=25))))
    return home


def _times(home: Path) -> list[datetime]:
    return [datetime.fromisoformat(t) for t in (home / "times.txt").read_text().splitlines()]


def cell(table: Locator, text: str) -> Locator:
    """The table's cell that starts with `text` (a time goes on with its zone: '… 18:35 JST
    (09:35Z)'; the grid also keeps a hidden copy to measure widths)."""
    return table.locator("span").filter(has_text=re.compile("^" + re.escape(text))).locator("visible=true")


def test_snapshots_listed_opened_and_clean(page: tuple[Page, list[str]], server: str, home: Path) -> None:
    pg, outside = page
    pg.goto(f"{server}?device={DEVICE}")
    table = pg.locator("#device-snapshots")
    expect(table).to_contain_text("changed:", timeout=30_000)
    first, second = _times(home)
    tokyo = [f"{t.astimezone(ZoneInfo(ZONE)):%Y-%m-%d %H:%M}" for t in (first, second)]
    for shown, utc in zip(tokyo, (first, second), strict=True):
        expect(table).to_contain_text(shown)  # the page's zone: the network's, Tokyo
        expect(table).not_to_contain_text(f"{utc:%Y-%m-%d %H:%M}")
    expect(table).to_contain_text("first")  # the older one: the first config seen
    expect(table).to_contain_text("+ip access-list extended NETOPS-FILTER")
    expect(table).to_contain_text("get_optics: not supported")
    listed = table.inner_text()
    assert listed.index(tokyo[1]) < listed.index(tokyo[0])  # newest first
    opened = pg.locator("#device-snapshot")
    expect(opened).to_contain_text("click a snapshot to open it")
    cell(table, tokyo[1]).click()
    expect(opened).to_contain_text(f"taken {tokyo[1]}", timeout=15_000)
    for text in ("Ethernet52", "down", "to spine-02", "dc1-spine-01", "10.0.0.9", "65002",
                 "changed, 3 changed lines", *(f"+{line}" for line in ADDED),
                 "+ neighbor 10.0.0.9 password <removed>"):  # shown, its secret masked
        expect(opened).to_contain_text(text)
    expect(opened).to_contain_text(f"+{ADDED[1]}")
    expect(opened).to_contain_text(HOSTILE)  # as text: no image element, no request
    assert opened.locator("img").count() == 0
    pg.wait_for_timeout(1000)  # time for any image the page would load
    shot(pg, "device-snapshots.png")
    cell(table, tokyo[0]).click()  # the older one: every port and peer up
    expect(opened).to_contain_text(f"taken {tokyo[0]}")
    expect(opened).to_contain_text("dc1-spine-02")
    expect(opened).to_contain_text("config: first")
    expect(opened).not_to_contain_text("NETOPS-FILTER")
    content = pg.content() + pg.locator("body").inner_text()
    assert not [s for s in SECRETS if s in content]
    assert outside == []
