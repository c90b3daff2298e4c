"""Host identity on real lines (bench/real_logs/, cited by corpus id; issue 24 item 2): a
header's host meets the inventory's name in any case, with or without its domain (learned from
the inventory's names), by address; an unknown host is kept whole, as its own device — all
within the sender rule (a header names an inventory device only from that device's address, a
listed relay, or an operator's file). And `ingest --file --device X` reads X's lines in X's
zone (item 5)."""

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

from netopsai.backends.syslog.clock import Zones
from netopsai.backends.syslog.files import file_events, load_files
from netopsai.backends.syslog.receiver import SyslogContext
from netopsai.store import tables as m
from netopsai.store.engine import create_all, engine_for
from netopsai.store.naming import resolve_device
from tests.paths import REPO

CORPUS = REPO / "bench" / "real_logs"


@cache
def line(rid: str) -> str:
    for path in CORPUS.glob("*.jsonl"):
        for text in path.read_text().splitlines():
            row: dict[str, Any] = json.loads(text)
            if row["id"] == rid:
                return str(row["line"])
    raise KeyError(rid)


@pytest.fixture
def store(tmp_path: Path) -> Engine:
    """An inventory that spells its names unlike the logs do."""
    engine = engine_for(f"sqlite:///{tmp_path / 'ids.db'}")
    create_all(engine)
    with Session(engine) as s:
        for name, ip in [("HOST", "192.0.2.21"),  # arista_eos-0001 says host.site
                         ("Str2-MSN2700-Spy-2", "192.0.2.22"),  # sonic-0004, lower case
                         ("sw1.corp.example.net", "192.0.2.23"),  # cisco_ios-0071 says sw1
                         ("nexus-33", "10.100.0.32")]:  # the address-as-host line
            s.add(m.Device(name=name, role="leaf", site="dc1", mgmt_ip=ip))
        s.commit()
    return engine


@pytest.mark.parametrize(("header", "sender", "device"), [
    ("host.site", "192.0.2.21", "HOST"),  # FQDN, other case: the inventory's short name
    ("str2-msn2700-spy-2", "192.0.2.22", "Str2-MSN2700-Spy-2"),  # case only
    ("sw1", "192.0.2.23", "sw1.corp.example.net"),  # the inventory's name carries the domain
    ("10.100.0.32", "10.100.0.32", "nexus-33"),  # an address as the host
    ("hostname.localhost", "", "hostname.localhost"),  # cisco_iosxr-0115's unknown host: whole
])
def test_header_hosts_meet_the_inventory(store: Engine, header: str, sender: str,
                                         device: str) -> None:
    with Session(store) as s:
        got = resolve_device(s, header, sender)
    assert (got.name, got.claimed) == (device, None)


def test_a_host_spelled_otherwise_still_needs_its_own_address(store: Engine) -> None:
    """The sender rule holds for every spelling: `host.site` from another device's address is
    kept about that sender, marked as claiming HOST."""
    with Session(store) as s:
        got = resolve_device(s, "host.site", "192.0.2.22")
    assert (got.name, got.claimed) == ("Str2-MSN2700-Spy-2", "HOST")


def test_a_server_file_lands_on_the_inventorys_devices(store: Engine, tmp_path: Path) -> None:
    """A syslog server's file (an operator's: it may name any device) with real lines whose
    hosts are spelled as the devices spell them: each event on its inventory device, the
    unknown one on a device of its own name, whole."""
    log = tmp_path / "messages"
    log.write_text("\n".join([line("arista_eos-0001"), line("sonic-0004"),
                              line("cisco_iosxr-0115")]) + "\n")
    load_files(str(store.url), [log])
    with Session(store) as s:
        rows = list(s.exec(select(m.RawEvent.hostname, m.RawEvent.device)
                           .order_by(col(m.RawEvent.at))))
    assert sorted(rows) == sorted([("host.site", "HOST"),
                                   ("str2-msn2700-spy-2", "Str2-MSN2700-Spy-2"),
                                   ("hostname.localhost", "hostname.localhost")])


def test_a_capture_of_one_device_reads_in_that_devices_zone(tmp_path: Path) -> None:
    """bsd_kernel-0001 ("Jul 20 21:12:13 kernel: igb1: link state changed to DOWN") loaded
    with --device fw1, whose clock ingest.timezones puts in Berlin: 21:12:13 CEST is 19:12:13
    UTC. Before, the zone of a line naming no host was the default's."""
    capture = tmp_path / "fw1.log"
    capture.write_text(line("bsd_kernel-0001") + "\n")
    written = datetime(2020, 7, 21, tzinfo=UTC).timestamp()
    os.utime(capture, (written, written))
    ctx = SyslogContext(zones=Zones.from_names("UTC", {"fw1": "Europe/Berlin"}))
    ev = next(file_events(capture, ctx, datetime.now(UTC), device="fw1"))
    assert (ev.name, ev.device_time) == ("fw1", datetime(2020, 7, 20, 19, 12, 13, tzinfo=UTC))
    other = next(file_events(capture, ctx, datetime.now(UTC), device="fw2"))
    assert other.device_time == datetime(2020, 7, 20, 21, 12, 13, tzinfo=UTC)
