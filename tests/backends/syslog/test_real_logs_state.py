"""State from real sequences (bench/real_logs/, cited by corpus id; issue 24 item 5): a port
that bounces and then stays down keeps an open LINK_DOWN alarm from its last Down — the flap
alarm that absorbed the bounces closes at that Down, the outage does not vanish into it."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from netopsai.backends.syslog.files import load_files
from netopsai.common.ifnames import same_port
from netopsai.store import tables as m
from netopsai.store.engine import create_all, engine_for
from tests.paths import REPO

CORPUS = REPO / "bench" / "real_logs"
# coolsnowwolf/lede issue 11302: an OpenWrt router's igc port eth5 going down, up and down
# again within 34 s, each transition logged by netifd and by the kernel; the paste goes on with
# an up three seconds later (linux_nic-0089), the capture here stops at the last Down
STORM = ["linux_nic-0079", "linux_nic-0080", "linux_nic-0081", "linux_nic-0082", "linux_nic-0083",
         "linux_nic-0084", "linux_nic-0085", "linux_nic-0086", "linux_nic-0087", "linux_nic-0088"]
LATER = "linux_nic-0153"  # a real line months later (another port): the storm is long over
LAST_DOWN = datetime(2023, 6, 11, 23, 3, 15, tzinfo=UTC)


@cache
def rows() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for path in CORPUS.glob("*.jsonl"):
        for text in path.read_text().splitlines():
            row = json.loads(text)
            out[row["id"]] = row
    return out


@pytest.fixture
def store(tmp_path: Path) -> Engine:
    engine = engine_for(f"sqlite:///{tmp_path / 'state.db'}")
    create_all(engine)
    return engine


def _capture(path: Path, ids: list[str]) -> Path:
    path.write_text("".join(rows()[i]["line"] + "\n" for i in ids))
    stamp = datetime(2024, 3, 20, tzinfo=UTC).timestamp()
    os.utime(path, (stamp, stamp))
    return path


def _alarms(engine: Engine) -> list[m.Alarm]:
    """The alarms on eth5 (stored under its canonical name, Ethernet5, for a device the
    inventory does not know)."""
    with Session(engine) as s:
        every = list(s.exec(select(m.Alarm).order_by(col(m.Alarm.id))))
    return [a for a in every if a.interface and same_port(a.interface, "eth5")]


def test_a_flap_that_ends_down_leaves_the_outage_open(store: Engine, tmp_path: Path) -> None:
    load_files(str(store.url), [_capture(tmp_path / "gw.log", [*STORM, LATER])], device="gw")
    got = {(a.kind, a.state): a for a in _alarms(store)}
    flap = got[("LINK_FLAP", "closed")]
    assert flap.cleared_at is not None and flap.cleared_at.replace(tzinfo=UTC) == LAST_DOWN
    outage = got[("LINK_DOWN", "open")]  # the port is still down: said, from its last Down
    assert outage.raised_at.replace(tzinfo=UTC) == LAST_DOWN
    with Session(store) as s:  # the last Down's lines name the outage, so a later up closes it
        named = list(s.exec(select(m.RawEvent.message).where(m.RawEvent.alarm_id == outage.id)))
    assert len(named) == 1 and "eth5: NIC Link is Down" in named[0]  # linux_nic-0087


def test_the_outage_is_closed_by_the_ports_next_up(store: Engine, tmp_path: Path) -> None:
    """The same capture, then (in a second load, as the next day's file) the port's up: the
    Up line is linux_nic-0089's with the date of that next file (derived: the paste has none
    later), and it closes the outage the storm left."""
    load_files(str(store.url), [_capture(tmp_path / "gw.log", [*STORM, LATER])], device="gw")
    up = rows()["linux_nic-0089"]["line"].replace("Sun Jun 11 23:03:18 2023",
                                                  "Wed Mar 20 08:00:00 2024")
    (tmp_path / "gw2.log").write_text(up + "\n")
    load_files(str(store.url), [tmp_path / "gw2.log"], device="gw")
    outage = next(a for a in _alarms(store) if a.kind == "LINK_DOWN"
                  and a.raised_at.replace(tzinfo=UTC) == LAST_DOWN)
    assert outage.state == "closed"
    assert outage.cleared_at is not None
    assert outage.cleared_at.replace(tzinfo=UTC) == datetime(2024, 3, 20, 8, tzinfo=UTC)


def test_a_flap_that_ends_up_leaves_nothing_open(store: Engine, tmp_path: Path) -> None:
    """The whole paste (it ends with linux_nic-0089's up): the flap closes, nothing stays open."""
    load_files(str(store.url), [_capture(tmp_path / "gw.log", [*STORM, "linux_nic-0089", LATER])],
               device="gw")
    assert [a.kind for a in _alarms(store) if a.state == "open"] == []
    assert any(a.kind == "LINK_FLAP" for a in _alarms(store))


def test_a_session_down_in_the_same_second_as_a_link_joins_its_case(backends: Any) -> None:
    """Alarms shaped as in issue 24's IOS-XR leaf/spine captures: a port goes down and, in the
    same second, the IPv6 BGP session over it, whose peer no inventory session row names — one
    case, not a case of its own. A session down a minute later, or in a second when two links of the device
    went down (which one it rode is not known), stays apart."""
    from datetime import timedelta

    from netopsai.tools.alarm_cases.correlate import correlate
    from netopsai.tools.alarm_cases.topology import Topology

    t0 = datetime(2025, 11, 4, 19, 0, tzinfo=UTC)
    base = {"state": "open", "severity": "major", "message": "", "site": "dc1",
            "device": "dc1-leaf-01", "peer": None, "link_id": None}
    link = {**base, "id": 1, "kind": "LINK_DOWN", "category": "link", "interface": "Ethernet49",
            "link_id": 7, "raised_at": t0.isoformat()}
    session = {**base, "id": 2, "kind": "BGP_DOWN", "category": "bgp", "interface": None,
               "peer": "fc00:0:11::1", "raised_at": (t0 + timedelta(milliseconds=400)).isoformat()}
    later = {**session, "id": 3, "peer": "fc00:0:12::1",
             "raised_at": (t0 + timedelta(minutes=1)).isoformat()}
    topo = Topology(backends.inventory)
    cases = {tuple(sorted(a["id"] for a in c.members)) for c in correlate([link, session, later], topo)}
    assert cases == {(1, 2), (3,)}
    other = {**link, "id": 4, "interface": "Ethernet50", "link_id": 8}
    cases = {tuple(sorted(a["id"] for a in c.members))
             for c in correlate([link, other, session], Topology(backends.inventory))}
    assert (2,) in cases


def test_a_file_that_ends_while_the_port_is_down_leaves_the_outage_open(store: Engine,
                                                                         tmp_path: Path) -> None:
    """The storm is the file's last word (no later line ends it): at the end of the load the
    port is down, so the outage is open from the last Down; the flap closes at that Down."""
    load_files(str(store.url), [_capture(tmp_path / "gw.log", STORM)], device="gw")
    got = {(a.kind, a.state): a for a in _alarms(store)}
    assert got[("LINK_FLAP", "closed")].cleared_at is not None
    outage = got[("LINK_DOWN", "open")]
    assert outage.raised_at.replace(tzinfo=UTC) == LAST_DOWN
    assert [a.kind for a in _alarms(store) if a.state == "open"] == ["LINK_DOWN"]


def test_a_live_writer_gone_quiet_opens_the_outage_before_it_stops(
        store: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same storm through a running writer (as `netopsai ingest` receives it): once it has
    nothing to write it ends the storms quiet for QUIET, and a storm that ended down gets its
    outage then, not only at stop (the quiet path used to close the flap and drop the outage)."""
    import time

    from netopsai.backends.syslog.files import file_events
    from netopsai.backends.syslog.receiver import SyslogContext
    from netopsai.store import writer as writer_mod

    monkeypatch.setattr(writer_mod, "IDLE_S", 0.05)  # how long it waits before looking
    events = list(file_events(_capture(tmp_path / "gw.log", STORM), SyslogContext(),
                              datetime.now(UTC), device="gw"))
    w = writer_mod.QueuedWriter(str(store.url))
    try:
        for ev in events:
            w.put(ev)
        assert w.wait_idle(60)
        deadline = time.monotonic() + 30  # a generous bound, not a measure
        while ("LINK_DOWN", "open") not in {(a.kind, a.state) for a in _alarms(store)} \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        got = {(a.kind, a.state): a for a in _alarms(store)}
        assert got[("LINK_DOWN", "open")].raised_at.replace(tzinfo=UTC) == LAST_DOWN
        assert ("LINK_FLAP", "closed") in got
    finally:
        w.stop()
