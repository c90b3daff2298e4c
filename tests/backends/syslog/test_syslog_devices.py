"""Syslog about the right device at the device's time: real datagrams over UDP on loopback, from
devices and through relays, in the header forms vendors document; and a store made before these
columns existed keeps its rows."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine

from netopsai.backends.syslog.clock import Zones
from netopsai.backends.syslog.parse import mnemonic, parse_frame
from netopsai.backends.syslog.receiver import SyslogContext
from netopsai.store.engine import create_all, engine_for
from tests.ingest_helpers import SENDERS, alarms, lab_with_senders, raw_events, running, send_udp, settle

pytestmark = pytest.mark.integration
RELAY = "127.0.0.50"  # a syslog server forwarding for many routers, not in the inventory


def _ios(host: str, stamp: str, state: str, port: str = "Ethernet1") -> bytes:
    """IOS `logging origin-id hostname` with `service timestamps ... show-timezone`."""
    return (f"<187>12: {host}: {stamp}: %LINK-3-UPDOWN: Interface {port}, changed state to "
            f"{state}").encode()


def test_behind_a_relay_each_router_keeps_its_own_alarms(make_lab: Callable[..., Engine]) -> None:
    engine, url = lab_with_senders(make_lab)
    with running(url) as ingest:
        assert ingest.syslog is not None
        send_udp(ingest.syslog.port, _ios("dc1-leaf-01", "Nov 23 03:10:00.000 UTC", "down"), RELAY)
        send_udp(ingest.syslog.port, _ios("dc1-leaf-02", "Nov 23 03:10:05.000 UTC", "down"), RELAY)
        send_udp(ingest.syslog.port, _ios("dc1-leaf-02", "Nov 23 03:11:00.000 UTC", "up"), RELAY)
        settle(ingest, 3)
    state = {(a.device, a.interface): a.state for a in alarms(engine, "syslog")}
    assert state == {("dc1-leaf-01", "Ethernet1"): "open", ("dc1-leaf-02", "Ethernet1"): "closed"}
    assert [(r.host, r.device) for r in raw_events(engine, "syslog")] == [
        (RELAY, "dc1-leaf-01"), (RELAY, "dc1-leaf-02"), (RELAY, "dc1-leaf-02")]


@pytest.mark.parametrize(("relays", "device"), [((), "dc1-dci-01"), (("127.0.0.2*",), "edge-r9")])
def test_a_relay_in_the_inventory_never_stands_for_the_device(
        make_lab: Callable[..., Engine], relays: tuple[str, ...], device: str) -> None:
    """A router that forwards others' logs: without `ingest.relays` an unknown name in its
    lines is taken for the router itself (a device with a different hostname); named as a
    relay, the line stays with the name it gives."""
    engine, url = lab_with_senders(make_lab)
    with running(url, syslog=SyslogContext(relays=relays)) as ingest:
        assert ingest.syslog is not None
        send_udp(ingest.syslog.port, _ios("edge-r9", "Nov 23 03:10:00.000 UTC", "down"),
                 SENDERS["dc1-dci-01"])
        settle(ingest, 1)
    assert [a.device for a in alarms(engine, "syslog")] == [device]


def test_events_sit_on_the_devices_clock_in_its_zone(make_lab: Callable[..., Engine]) -> None:
    engine, url = lab_with_senders(make_lab)
    zones = Zones.from_names("UTC", {"dc1-leaf-0*": "America/Los_Angeles"})
    now = datetime.now(UTC).replace(microsecond=0)
    pacific = now.astimezone(zones.rules[0][1]) - timedelta(hours=2)
    lines = [  # leaf-01 logs local time with no zone; dci-01 logs UTC and says so
        _ios("dc1-leaf-01", f"{pacific:%b %d %H:%M:%S}.250", "down"),
        _ios("dc1-dci-01", f"{now - timedelta(hours=3):%b %d %H:%M:%S}.000 UTC", "down"),
        _ios("dc1-leaf-02", "*Mar  1 00:01:02.123", "down"),  # a clock never set since boot
    ]
    with running(url, syslog=SyslogContext(zones)) as ingest:
        assert ingest.syslog is not None
        for line in lines:
            send_udp(ingest.syslog.port, line, RELAY)
        settle(ingest, 3)
    rows = {r.device: r for r in raw_events(engine, "syslog")}
    leaf, dci, unset = rows["dc1-leaf-01"], rows["dc1-dci-01"], rows["dc1-leaf-02"]
    assert leaf.at == now - timedelta(hours=2) + timedelta(milliseconds=250)
    assert dci.at == now - timedelta(hours=3)
    assert abs((leaf.received_at - now).total_seconds()) < 60  # the receive time kept beside it
    assert leaf.skew_s is not None and -7300 < leaf.skew_s < -7100
    assert unset.device_time is not None and unset.device_time.month == 3
    assert unset.at == unset.received_at  # not believed: placed at receipt
    raised = {a.device: a.raised_at for a in alarms(engine, "syslog")}
    assert raised["dc1-leaf-01"] == leaf.at and raised["dc1-dci-01"] == dci.at
    assert {r.mnemonic for r in rows.values()} == {"LINK-3-UPDOWN"}


@pytest.mark.parametrize(("line", "host", "program", "mnem"), [
    # IOS-XR behind a relay (`logging hostnameprefix`): sequence, host, node, time
    ("<187>2345: xr-pe1 LC/0/2/CPU0:Nov 23 03:10:00.123 UTC: ifmgr[227]: %PKT_INFRA-LINK-3-UPDOWN"
     " : Interface HundredGigE0/0/0/8, changed state to Down", "xr-pe1", "ifmgr",
     "PKT_INFRA-LINK-3-UPDOWN"),
    ("<187>2345: RP/0/RSP0/CPU0:Nov 23 03:10:00.123 UTC: bgp[1052]: %ROUTING-BGP-5-ADJCHANGE :"
     " neighbor 10.0.0.2 Down - BGP Notification sent", None, "bgp", "ROUTING-BGP-5-ADJCHANGE"),
    # Huawei VRP: the year after the day, the host after the time, %%01 before the module
    ("<187>Nov 23 2026 11:10:00+08:00 HUAWEI-CE1 %%01IFNET/4/LINK_STATE(l)[1]:The line protocol "
     "IP on the interface GigabitEthernet0/0/1 has entered the DOWN state.", "HUAWEI-CE1", None,
     "IFNET/4/LINK_STATE"),
    # Junos (RFC 3164 export): program[pid] then the tag
    ("<28>Nov 23 03:10:00 mx1-re0 mib2d[1234]: SNMP_TRAP_LINK_DOWN: ifIndex 526, ifAdminStatus "
     "up(1), ifOperStatus down(2), ifName xe-0/0/0", "mx1-re0", "mib2d", "SNMP_TRAP_LINK_DOWN"),
])
def test_headers_name_host_program_and_message_id(line: str, host: str | None, program: str | None,
                                                  mnem: str) -> None:
    msg = parse_frame(line.encode())
    assert (msg.hostname, msg.app, mnemonic(msg)) == (host, program, mnem)
    assert msg.timestamp is not None and msg.timestamp.startswith("Nov 23")


def test_a_store_from_the_last_release_gains_the_new_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:  # RawEvent as the previous release created it
        db.execute("CREATE TABLE rawevent (id INTEGER PRIMARY KEY, received_at DATETIME NOT NULL,"
                   " source VARCHAR NOT NULL, host VARCHAR NOT NULL, facility VARCHAR, severity "
                   "VARCHAR, message VARCHAR NOT NULL, kind VARCHAR, key VARCHAR, alarm_id INTEGER,"
                   " count INTEGER NOT NULL)")
        db.execute("INSERT INTO rawevent VALUES (1, '2026-11-20 10:00:00', 'syslog', '10.0.0.1', "
                   "'local7', 'err', 'kept from before', NULL, NULL, NULL, 1)")
    engine = engine_for(f"sqlite:///{path}")
    create_all(engine)
    rows = raw_events(engine)
    assert [(r.message, r.at, r.device) for r in rows] == [("kept from before", None, None)]
    with sqlite3.connect(path) as db:
        names = {row[1] for row in db.execute("PRAGMA index_list(rawevent)")}
    assert {"ix_rawevent_at", "ix_rawevent_device_at"} <= names


def _xr(seq: int, stamp: str, body: str) -> bytes:
    return f"<187>{seq}: RP/0/RP0/CPU0:Nov 23 {stamp} UTC: {body}".encode()


def test_one_port_in_any_name_optics_admin_shut_and_commits(make_lab: Callable[..., Engine]) -> None:
    """The optics controller's LOS and the port's link alarm land on the inventory's port (and
    its DCI link); a link Up also ends an admin shut; a config commit with no ticket becomes an
    unrecorded change; a reload is raised and over at once."""
    from sqlmodel import Session, select

    from netopsai.store import tables as m

    engine, url = lab_with_senders(make_lab)
    dci, leaf = SENDERS["dc1-dci-01"], SENDERS["dc1-leaf-01"]
    lines = [
        (dci, _xr(1, "03:10:00.050", "optics_driver[189]: %PKT_INFRA-FM-3-FAULT_MAJOR : ALARM_MAJOR "
                                     ":RX LOS :DECLARE :0/0: Optics0/0/0/20")),
        (dci, _xr(2, "03:10:00.100", "ifmgr[227]: %PKT_INFRA-LINK-3-UPDOWN : Interface "
                                     "HundredGigE0/0/0/20, changed state to Down")),
        (dci, _xr(3, "03:12:00.000", "optics_driver[189]: %PKT_INFRA-FM-3-FAULT_MAJOR : ALARM_MAJOR "
                                     ":RX LOS :CLEAR :0/0: Optics0/0/0/20")),
        (leaf, b"<189>7: Nov 23 03:10:00.000 UTC: %LINK-5-CHANGED: Interface Ethernet1, changed "
               b"state to administratively down"),
        (leaf, b"<189>8: Nov 23 03:11:00.000 UTC: %SYS-5-CONFIG_I: Configured from console by ops on "
               b"vty0 (10.0.0.5)"),
        (leaf, b"<187>9: Nov 23 03:12:00.000 UTC: %LINK-3-UPDOWN: Interface Et1, changed state to up"),
        (leaf, b"<189>10: Nov 23 03:20:00.000 UTC: %SYS-5-RELOAD: Reload requested by ops on vty0."),
    ]
    with running(url) as ingest:
        assert ingest.syslog is not None
        for sender, line in lines:
            send_udp(ingest.syslog.port, line, sender)
        settle(ingest, len(lines))
    got = {(a.device, a.kind): a for a in alarms(engine, "syslog")}
    los, down = got[("dc1-dci-01", "OPTICS_LOS")], got[("dc1-dci-01", "LINK_DOWN")]
    assert (los.interface, los.link_id, los.state) == ("HundredGigE0/0/0/20", 553, "closed")
    assert (down.interface, down.link_id, down.category, down.state) == (
        "HundredGigE0/0/0/20", 553, "dci", "open")
    shut = got[("dc1-leaf-01", "ADMIN_DOWN")]
    assert (shut.interface, shut.severity, shut.state) == ("Ethernet1", "minor", "closed")
    reload = got[("dc1-leaf-01", "DEVICE_REBOOT")]
    assert reload.state == "closed" and reload.cleared_at == reload.raised_at
    with Session(engine) as s:
        changes = s.exec(select(m.Change).where(m.Change.status == "unrecorded")).all()
    assert [(c.device, c.author, c.ticket) for c in changes] == [("dc1-leaf-01", "ops", "UNRECORDED")]


def test_a_bgp_session_lands_on_its_link_and_joins_the_link_case(
        make_lab: Callable[..., Engine]) -> None:
    """A BGP-down names only the peer's address: the inventory maps it to the peer device and
    the link under the session, so the session and the link it rides are one case."""
    from sqlmodel import Session, select

    from netopsai.store import tables as m
    from tests.ingest_helpers import alarms_tool

    engine, url = lab_with_senders(make_lab)
    with Session(engine) as s:
        bgp = s.exec(select(m.BgpSession).where(m.BgpSession.a_device.startswith("dc1-leaf"))).first()
        assert bgp is not None
        link = s.get(m.Link, bgp.link_id)
        assert link is not None
    port = link.a_interface if link.a_device == bgp.a_device else link.b_interface
    now = datetime.now(UTC)
    stamp = f"{now:%b %d %H:%M:%S}.000 UTC"
    with running(url) as ingest:
        assert ingest.syslog is not None
        send_udp(ingest.syslog.port, _ios(bgp.a_device, stamp, "down", port), RELAY)
        send_udp(ingest.syslog.port, (f"<189>13: {bgp.a_device}: {stamp}: %BGP-5-ADJCHANGE: "
                                      f"neighbor {bgp.b_ip} Down Interface flap").encode(), RELAY)
        settle(ingest, 2)
    session = next(a for a in alarms(engine, "syslog") if a.kind == "BGP_DOWN")
    assert (session.interface, session.link_id) == (port, bgp.link_id)
    ev = alarms_tool(engine, now - timedelta(minutes=5), correlate=True)
    rows = {r["kind"]: r for r in ev.rows}
    assert rows["BGP_DOWN"]["peer"] == bgp.b_device
    assert rows["BGP_DOWN"]["group"] == rows["LINK_DOWN"]["group"]  # one case
