"""Devices speak for themselves (issue 23, item 6): a syslog header's host or a trap's sysName
names an inventory device only when the sender's address is that device's (management,
loopback or interface address) or a relay listed in `ingest.relays`; otherwise the event is
kept about its sender, marked "[unverified sender]", and raises no alarm, no port state and
no change record on the device it names. Events go through the receivers' own event builders
and the queued writer (the path every received event takes), on a small lab store."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from netopsai.backends.lab import lab_backends
from netopsai.backends.syslog.files import load_files
from netopsai.backends.syslog.receiver import SyslogContext, syslog_event
from netopsai.backends.traps.receiver import SYS_NAME, trap_event
from netopsai.common.textsafe import UNVERIFIED
from netopsai.config.load import check_netconfig
from netopsai.store import tables as m
from netopsai.store.apply import Event
from netopsai.store.naming import is_relay
from netopsai.store.writer import QueuedWriter
from netopsai.tools.registry import run_tool
from tests.ingest_helpers import SENDERS, alarms, lab_with_senders, raw_events

SPINE = "dc1-spine-01"
STRANGER = "127.0.0.1"  # the address the B11 attack came from: no device's, no relay
STAMP = "Nov 23 03:10:00.000 UTC"


def _line(host: str | None, text: str) -> bytes:
    """IOS with `logging origin-id hostname` (the host before the time) or without it."""
    return f"<187>12: {host + ': ' if host else ''}{STAMP}: {text}".encode()


LINK_DOWN = "%LINK-3-UPDOWN: Interface Ethernet1, changed state to down"
COMMIT = "%SYS-5-CONFIG_I: Configured from console by admin on vty0 (10.0.0.5)"


def store(url: str, events: Iterable[Event]) -> None:
    writer = QueuedWriter(url)
    try:
        for ev in events:
            writer.put(ev)
        assert writer.wait_idle(60), "the writer did not finish"
    finally:
        writer.stop()


def syslog(url: str, sender: str, data: bytes, relays: tuple[str, ...] = ()) -> None:
    store(url, [syslog_event(data, sender, context=SyslogContext(relays=relays))])


def port_states(engine: Engine, device: str) -> list[str]:
    with Session(engine) as s:
        return list(s.exec(select(m.InterfaceEvent.state).where(
            m.InterfaceEvent.device == device, col(m.InterfaceEvent.reason).startswith("syslog"))))


def unrecorded(engine: Engine, author: str) -> list[m.Change]:
    with Session(engine) as s:
        return list(s.exec(select(m.Change).where(m.Change.status == "unrecorded",
                                                  m.Change.author == author)))


@pytest.fixture
def lab(make_lab: Callable[..., Engine]) -> tuple[Engine, str]:
    return lab_with_senders(make_lab)


def test_a_spoofed_link_down_for_a_spine_is_stored_marked_and_raises_nothing(
        lab: tuple[Engine, str]) -> None:
    engine, url = lab
    syslog(url, STRANGER, _line(SPINE, LINK_DOWN))
    assert alarms(engine, "syslog") == []
    assert port_states(engine, SPINE) == []  # the port's state history is not forged either
    [row] = raw_events(engine, "syslog")
    assert (row.device, row.hostname, row.host) == (STRANGER, SPINE, STRANGER)
    assert (row.kind, row.key, row.alarm_id) == (None, None, None)
    assert row.message.startswith(UNVERIFIED) and f"names {SPINE} but came from {STRANGER}" in row.message
    assert row.message.endswith(LINK_DOWN)  # the line itself is kept whole after the mark


def test_the_marked_event_reads_as_such_in_the_events_tool(lab: tuple[Engine, str]) -> None:
    engine, url = lab
    now = datetime.now(UTC)
    syslog(url, STRANGER, _line(SPINE, LINK_DOWN).replace(STAMP.encode(),
                                                           f"{now:%b %d %H:%M:%S}.000 UTC".encode()))
    window = {"start": (now - timedelta(hours=1)).isoformat(),
              "end": (now + timedelta(minutes=1)).isoformat()}
    ev = run_tool("events", {"window": window, "text": "Ethernet1, changed state"},
                  lab_backends(engine))
    assert not ev.errors
    [row] = ev.rows
    assert row["device"] == STRANGER and row["kind"] is None
    assert row["message"].startswith(UNVERIFIED)
    assert UNVERIFIED in ev.summary


def test_another_devices_address_may_not_speak_for_the_spine(lab: tuple[Engine, str]) -> None:
    engine, url = lab
    leaf = SENDERS["dc1-leaf-01"]
    syslog(url, leaf, _line(SPINE, LINK_DOWN))
    assert alarms(engine, "syslog") == []
    [row] = raw_events(engine, "syslog")
    assert (row.device, row.hostname) == ("dc1-leaf-01", SPINE)
    assert f"came from {leaf} (dc1-leaf-01)" in row.message


@pytest.mark.parametrize("relays", [("127.0.0.1",), ("127.0.0.0/24",), ("127.0.0.*",)])
def test_a_listed_relay_speaks_for_the_spine(lab: tuple[Engine, str], relays: tuple[str, ...]) -> None:
    engine, url = lab
    syslog(url, STRANGER, _line(SPINE, LINK_DOWN), relays)
    assert [(a.device, a.interface, a.state) for a in alarms(engine, "syslog")] == [
        (SPINE, "Ethernet1", "open")]
    [row] = raw_events(engine, "syslog")
    assert not row.message.startswith(UNVERIFIED) and row.device == SPINE


def test_the_spine_speaks_from_an_interface_address(lab: tuple[Engine, str]) -> None:
    engine, url = lab
    with Session(engine) as s:  # a loopback stand-in for one of the spine's interface addresses
        port = s.exec(select(m.Interface).where(m.Interface.device == SPINE,
                                                m.Interface.name == "Ethernet2")).one()
        port.ip = "127.0.0.31/31"
        s.add(port)
        s.commit()
    syslog(url, "127.0.0.31", _line(SPINE, LINK_DOWN))
    assert [(a.device, a.state) for a in alarms(engine, "syslog")] == [(SPINE, "open")]
    assert port_states(engine, SPINE) == ["down"]


def test_an_unrecorded_change_needs_the_devices_own_voice(lab: tuple[Engine, str]) -> None:
    """The B11 line: one datagram saying `Configured ... by admin` made an UNRECORDED change."""
    engine, url = lab
    syslog(url, STRANGER, _line("dc1-leaf-01", COMMIT))
    assert unrecorded(engine, "admin") == []
    assert raw_events(engine, "syslog")[0].message.startswith(UNVERIFIED)
    syslog(url, SENDERS["dc1-leaf-01"], _line(None, COMMIT))  # the leaf itself, from its address
    assert [(c.device, c.ticket) for c in unrecorded(engine, "admin")] == [("dc1-leaf-01", "UNRECORDED")]


def test_a_trap_naming_the_spine_in_sys_name(lab: tuple[Engine, str]) -> None:
    engine, url = lab
    varbinds = [("1.3.6.1.6.3.1.1.4.1.0", "1.3.6.1.6.3.1.1.5.3"), ("1.3.6.1.2.1.2.2.1.2.1", "Ethernet1"),
                (SYS_NAME, SPINE)]
    store(url, [trap_event(varbinds, STRANGER)])
    assert alarms(engine, "trap") == []
    [row] = raw_events(engine, "trap")
    assert row.device == STRANGER and row.message.startswith(UNVERIFIED)
    store(url, [trap_event(varbinds, STRANGER, relays=("127.0.0.1/32",))])  # a trap forwarder
    assert [(a.device, a.interface) for a in alarms(engine, "trap")] == [(SPINE, "Ethernet1")]


def test_an_operators_log_file_names_its_devices(lab: tuple[Engine, str], tmp_path: Path) -> None:
    """`ingest --file`: the operator loading the file is trusted to name the device."""
    engine, url = lab
    log = tmp_path / "spine.log"
    log.write_bytes(_line(SPINE, LINK_DOWN) + b"\n")
    stats = load_files(url, [log])
    assert stats.stored == 1
    assert [(a.device, a.state) for a in alarms(engine, "syslog")] == [(SPINE, "open")]
    assert not raw_events(engine, "syslog")[0].message.startswith(UNVERIFIED)


def test_an_unknown_name_from_a_devices_address_is_that_device(lab: tuple[Engine, str]) -> None:
    """A device logging under a hostname the inventory does not use is still itself; a device
    the inventory lacks, from an address nobody owns, speaks for itself (a new switch)."""
    engine, url = lab
    syslog(url, SENDERS["dc1-leaf-02"], _line("leaf2-old-name", LINK_DOWN))
    syslog(url, "127.0.0.99", _line("newswitch-99", LINK_DOWN))
    assert sorted(a.device for a in alarms(engine, "syslog")) == ["dc1-leaf-02", "newswitch-99"]
    assert not any(r.message.startswith(UNVERIFIED) for r in raw_events(engine, "syslog"))


@pytest.mark.parametrize(("sender", "relays", "expect"), [
    ("127.0.0.1", ("127.0.0.1",), True), ("127.0.0.2", ("127.0.0.1",), False),
    ("10.9.3.4", ("10.9.0.0/16",), True), ("10.10.3.4", ("10.9.0.0/16",), False),
    ("::ffff:10.9.3.4", ("10.9.0.0/16",), True), ("2001:db8::7", ("2001:db8::/64",), True),
    ("127.0.0.23", ("127.0.0.2*",), True), ("127.0.0.1", (), False)])
def test_relays_are_addresses_cidrs_or_globs(sender: str, relays: tuple[str, ...], expect: bool) -> None:
    assert is_relay(sender, relays) is expect


def test_the_config_takes_cidrs_and_refuses_a_name(tmp_path: Path) -> None:
    good, bad = tmp_path / "good", tmp_path / "bad"
    for home, relays in ((good, '["10.9.0.0/24", "10.8.0.5", "10.7.0.*"]'), (bad, '["syslog-relay-1"]')):
        home.mkdir()
        (home / "config.yaml").write_text(f"ingest:\n  relays: {relays}\n")
    cfg, problems = check_netconfig(good, usage=False)
    assert cfg is not None and problems == []
    assert cfg.settings.ingest.relays == ["10.9.0.0/24", "10.8.0.5", "10.7.0.*"]
    cfg, problems = check_netconfig(bad, usage=False)
    assert len(problems) == 1 and "ingest.relays" in problems[0]
    assert "'syslog-relay-1' is not an address, a CIDR" in problems[0] and "\n" not in problems[0]
