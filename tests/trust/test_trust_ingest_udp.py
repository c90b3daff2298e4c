"""The item-6 attacks as the receivers see them: real syslog datagrams and SNMP traps over UDP
on loopback. A spoofed LINK_DOWN for a spine from 127.0.0.1 raises nothing and is stored
marked; the same line from a listed relay raises the alarm; ESC, CR and LF inside a message
are stored as visible marks, so the stored row neither drives a terminal nor reads as two."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pysnmp.proto.rfc1902 import Integer32, OctetString
from sqlalchemy import Engine

from netopsai.common.textsafe import NEWLINE_MARK, UNVERIFIED
from tests.ingest_helpers import (
    SENDERS,
    alarms,
    lab_with_senders,
    raw_events,
    running,
    send_trap,
    send_udp,
    settle,
)

pytestmark = pytest.mark.integration
SPINE = "dc1-spine-01"
DOWN = (f"<187>12: {SPINE}: Nov 23 03:10:00.000 UTC: %LINK-3-UPDOWN: Interface Ethernet1, "
        "changed state to down").encode()
NO_RELAYS: dict[str, object] = {"relays": (), "webhook_port": None}  # the rule alone


def test_a_spoofed_spine_line_over_udp_raises_nothing(make_lab: Callable[..., Engine]) -> None:
    engine, url = lab_with_senders(make_lab)
    with running(url, **NO_RELAYS) as ingest:
        assert ingest.syslog is not None
        send_udp(ingest.syslog.port, DOWN, "127.0.0.1")
        settle(ingest, 1)
    assert alarms(engine) == []
    [row] = raw_events(engine, "syslog")
    assert (row.device, row.hostname, row.kind) == ("127.0.0.1", SPINE, None)
    assert row.message.startswith(UNVERIFIED)


def test_the_same_line_from_a_listed_relay_raises_the_alarm(make_lab: Callable[..., Engine]) -> None:
    engine, url = lab_with_senders(make_lab)
    with running(url, relays=("127.0.0.48/29",), webhook_port=None) as ingest:
        assert ingest.syslog is not None
        send_udp(ingest.syslog.port, DOWN, "127.0.0.50")  # inside the relays' CIDR
        settle(ingest, 1)
    assert [(a.device, a.interface, a.state) for a in alarms(engine, "syslog")] == [
        (SPINE, "Ethernet1", "open")]


def test_a_trap_with_the_spines_sys_name_from_elsewhere(make_lab: Callable[..., Engine]) -> None:
    engine, url = lab_with_senders(make_lab)
    with running(url, **NO_RELAYS) as ingest:
        assert ingest.traps is not None
        send_trap(ingest.traps.port, "1.3.6.1.6.3.1.1.5.3", [
            ("1.3.6.1.2.1.2.2.1.1.1", Integer32(1)), ("1.3.6.1.2.1.2.2.1.2.1", OctetString("Ethernet1")),
            ("1.3.6.1.2.1.1.5.0", OctetString(SPINE))], source="127.0.0.1")
        settle(ingest, 1)
    assert alarms(engine) == []
    [row] = raw_events(engine, "trap")
    assert row.device == "127.0.0.1" and row.message.startswith(UNVERIFIED)


def test_escape_and_line_breaks_in_a_message_are_stored_visible(
        make_lab: Callable[..., Engine]) -> None:
    engine, url = lab_with_senders(make_lab)
    forged = b"Nov 23 03:10:01 dc1-spine-01: %SYS-5-CONFIG_I: Configured from console by admin"
    line = (b"<187>12: Nov 23 03:10:00.000 UTC: %LINK-3-UPDOWN: Interface Ethernet1, changed "
            b"state to down \x1b[2J\x1b]0;pwned\x07\r\n" + forged)
    with running(url, **NO_RELAYS) as ingest:
        assert ingest.syslog is not None
        send_udp(ingest.syslog.port, line, SENDERS["dc1-leaf-01"])  # the leaf itself
        settle(ingest, 1)
    [row] = raw_events(engine, "syslog")
    assert f"down ␛[2J␛]0;pwned␇{NEWLINE_MARK}Nov 23 03:10:01" in row.message
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in row.message)
    [alarm] = alarms(engine, "syslog")  # still read for what it is: the leaf's port going down
    assert (alarm.device, alarm.kind, alarm.interface) == ("dc1-leaf-01", "LINK_DOWN", "Ethernet1")
    assert "␛[2J" in alarm.message and "\x1b" not in alarm.message and "\n" not in alarm.message
