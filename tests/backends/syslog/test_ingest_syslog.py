"""Syslog ingest: real UDP datagrams (RFC 3164 and 5424, every vendor message we parse and
lines we do not) to the receiver on loopback, and what lands in the store."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import yaml
from sqlalchemy import Engine

from netopsai.backends.syslog.parse import classify, parse_frame
from tests.ingest_helpers import (
    SENDERS,
    alarms,
    alarms_tool,
    lab_with_senders,
    raw_events,
    running,
    send_udp,
    settle,
)
from tests.paths import DATA as TEST_DATA

DATA = TEST_DATA / "syslog" / "messages.yaml"
SAMPLES: dict[str, Any] = yaml.safe_load(DATA.read_text())
CASES = [(vendor, item["line"], item["expect"]) for vendor, group in SAMPLES.items()
         for item in group["lines"]]
BY_ADDRESS = {ip: name for name, ip in SENDERS.items()}


@pytest.mark.parametrize(("vendor", "line", "expect"), CASES,
                         ids=[f"{v}-{i}" for i, (v, _, _) in enumerate(CASES)])
def test_parse_every_sample_line(vendor: str, line: str, expect: dict[str, Any]) -> None:
    msg = parse_frame(line.encode())
    parsed = classify(msg.text)
    assert msg.format == expect["format"]
    assert msg.hostname == expect.get("hostname")
    if expect.get("raw"):
        assert parsed is None
        return
    assert parsed is not None, msg.text
    assert (parsed.kind, parsed.action, parsed.subject) == (
        expect["kind"], expect["action"], expect["subject"])


def test_frame_details() -> None:
    junos = SAMPLES["junos"]["lines"][4]["line"]
    msg = parse_frame(junos.encode())
    assert (msg.facility, msg.severity, msg.app, msg.msgid) == ("daemon", "warning", "mib2d",
                                                                "SNMP_TRAP_LINK_DOWN")
    assert msg.structured["junos@2636.1.1.1.2.29"]["interface-name"] == "xe-0/0/2"
    assert msg.text.startswith("SNMP_TRAP_LINK_DOWN: ifIndex 527")
    escaped = parse_frame(b'<13>1 - h a - - [x@1 k="a\\"b\\]c"] body')
    assert escaped.structured == {"x@1": {"k": 'a"b]c'}} and escaped.text == "body"
    nopri = parse_frame(b"hello")
    assert (nopri.facility, nopri.severity, nopri.text) == ("user", "notice", "hello")


def _expected_alarms(vendor: str) -> Counter[tuple[str, str, str]]:
    """Raise opens an alarm unless its (device, kind, subject) is open; clear closes it."""
    group = SAMPLES[vendor]
    state: dict[tuple[str, str, str], int] = {}
    result: list[list[str]] = []
    for item in group["lines"]:
        e = item["expect"]
        if e.get("raw"):
            continue
        # the inventory's name for the sender wins over a hostname it does not know
        device = BY_ADDRESS.get(group["from"]) or e.get("hostname") or group["from"]
        key = (device, e["kind"], e["subject"])
        if e["action"] == "raise" and key not in state:
            state[key] = len(result)
            result.append([device, e["kind"], "open"])
        elif e["action"] == "clear" and key in state:
            result[state.pop(key)][2] = "closed"
    return Counter(tuple(r) for r in result)  # type: ignore[misc]


@pytest.mark.integration
def test_every_vendor_line_over_udp(make_lab: Callable[..., Engine]) -> None:
    engine, url = lab_with_senders(make_lab)
    since = datetime.now(UTC)
    with running(url) as ingest:
        assert ingest.syslog is not None
        for group in SAMPLES.values():
            for item in group["lines"]:
                send_udp(ingest.syslog.port, item["line"].encode(), source=group["from"])
        settle(ingest, len(CASES))
    rows = raw_events(engine, "syslog")
    assert len(rows) == len(CASES)  # every line kept, the unknown ones too
    for row, (vendor, line, expect) in zip(rows, CASES, strict=True):
        assert row.host == SAMPLES[vendor]["from"]
        assert row.kind == (None if expect.get("raw") else expect["kind"])
        assert row.count == 1 and row.facility and row.severity
        assert row.message == parse_frame(line.encode()).text
    got = Counter((a.device, a.kind, a.state) for a in alarms(engine, "syslog"))
    want: Counter[tuple[str, str, str]] = Counter()
    for vendor in SAMPLES:
        want += _expected_alarms(vendor)
    assert got == want
    dci = [a for a in alarms(engine, "syslog") if a.kind == "LINK_DOWN" and a.device == "dc1-dci-01"]
    assert [(a.category, a.link_id, a.site, a.state) for a in dci] == [("dci", 553, "dc1", "closed")]
    # alarms sit on the devices' clocks (the sample lines' own times), not on the receive time
    assert all(a.raised_at < since for a in dci)
    ev = alarms_tool(engine, min(r.at for r in rows if r.at), category="dci")
    assert not ev.errors
    row = next(r for r in ev.rows if r["id"] == dci[0].id)
    assert (row["device"], row["interface"], row["peer"]) == ("dc1-dci-01", "HundredGigE0/0/0/20",
                                                              "dc2-dci-01")


@pytest.mark.integration
def test_repeats_are_one_event_and_a_clear_closes_its_raise(make_lab: Callable[..., Engine]) -> None:
    engine, url = lab_with_senders(make_lab)
    down = (b"<187>: 2026 Nov 23 03:00:00 UTC: %ETHPORT-5-IF_DOWN_LINK_FAILURE: Interface Ethernet1/1"
            b" is down (Link failure)")
    again = down.replace(b"03:00:00", b"03:00:09")  # a second report while still down
    up = b"<189>: 2026 Nov 23 03:01:00 UTC: %ETHPORT-5-IF_UP: Interface Ethernet1/1 is up in mode routed"
    with running(url) as ingest:
        assert ingest.syslog is not None
        for data in (down, down, down, again, up, up):
            send_udp(ingest.syslog.port, data, source=SENDERS["dc1-leaf-01"])
        settle(ingest, 6)
        assert ingest.writer is not None and ingest.writer.stats.duplicates == 3
    rows = raw_events(engine, "syslog")
    assert [(r.kind, r.count) for r in rows] == [("LINK_DOWN", 3), ("LINK_DOWN", 1), ("LINK_DOWN", 2)]
    found = alarms(engine, "syslog")
    assert len(found) == 1
    alarm = found[0]
    assert (alarm.device, alarm.interface, alarm.state) == ("dc1-leaf-01", "Ethernet1/1", "closed")
    assert alarm.cleared_at is not None and alarm.cleared_at >= alarm.raised_at
    assert {r.alarm_id for r in rows} == {alarm.id}  # the repeat and the clear point at it


@pytest.mark.integration
def test_a_flap_after_the_window_is_a_new_alarm(make_lab: Callable[..., Engine]) -> None:
    engine, url = lab_with_senders(make_lab)
    down = (b"<189>Nov 23 03:00:00 leaf1 Ebra: %LINEPROTO-5-UPDOWN: Line protocol on Interface Ethernet2,"
            b" changed state to down")
    up = down.replace(b"to down", b"to up")
    with running(url, dedupe_seconds=0.0) as ingest:
        assert ingest.syslog is not None
        for data in (down, up, down):  # the same text again later: a second outage
            send_udp(ingest.syslog.port, data, source=SENDERS["dc1-leaf-02"])
        settle(ingest, 3)
    assert [(a.device, a.state) for a in alarms(engine, "syslog")] == [
        ("dc1-leaf-02", "closed"), ("dc1-leaf-02", "open")]


@pytest.mark.parametrize(("text", "expect"), [
    ("%BGP-5-ADJCHANGE: neighbor 2001:db8::2 vpn vrf CUST-A Down Peer closed the session",
     ("BGP_DOWN", "raise", "2001:db8::2")),
    ("%BGP-5-ADJCHANGE: peer 192.0.2.1 (VRF default AS 1) old state Idle event Start new state Connect",
     None),
    ("%SYS-5-CONFIG_I: Configured from console by admin: CLOSED session",
     ("CONFIG_CHANGE", "change", None)),
    ("%LINK-3-UPDOWN: Interface Port-channel10, changed state to down",
     ("LINK_DOWN", "raise", "Port-channel10")),
    ("%LINEPROTO-5-UPDOWN: Line protocol on Interface Vlan100, changed state to up",
     ("LINK_DOWN", "clear", "Vlan100")),
])
def test_classify_edges(text: str, expect: tuple[str, str, str] | None) -> None:
    parsed = classify(text)
    assert (None if parsed is None else (parsed.kind, parsed.action, parsed.subject)) == expect
