"""Shared pieces of the ingest tests: a small lab store whose devices send from loopback
addresses, the receivers running on free ports, real senders (pysnmp, UDP, HTTP), and reads of
what landed in the store.

Devices speak for themselves (netopsai.store.naming): a line naming an inventory device is
believed only from that device's address or from a relay in `ingest.relays`. The tests' senders
other than SENDERS (127.0.0.1, the default source, and 127.0.0.50, the tests' syslog server)
stand for a lab's relays, so `running` lists them as `ingest.relays` would; a test of the rule
itself passes `relays=()`."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from sqlalchemy import Engine
from sqlmodel import Session, col, or_, select

from netopsai.backends.lab import lab_backends
from netopsai.backends.receivers import BackgroundIngest, Ingest, IngestSettings
from netopsai.backends.syslog.receiver import SyslogContext
from netopsai.copilot.evidence import Evidence
from netopsai.lab.loglines import LAB
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai.tools.registry import run_tool

COMMUNITY = "tr4p-c0mmunity-x7"  # a secret: the tests assert it is never logged or stored
# Lab devices that "send" from these loopback addresses (their mgmt_ip in the test's store)
SENDERS = {"dc1-dci-01": "127.0.0.23", "dc1-leaf-01": "127.0.0.22", "dc1-leaf-02": "127.0.0.25"}
# the lab's relays: the default source and the tests' syslog server, as ingest.relays lists them
LAB_RELAYS = ("127.0.0.1/32", "127.0.0.50/32")


def lab_with_senders(make_lab: Callable[..., Engine]) -> tuple[Engine, str]:
    """A fresh small lab whose devices in SENDERS have loopback management addresses."""
    engine = make_lab()
    with Session(engine) as s:
        for name, ip in SENDERS.items():
            dev = s.get(m.Device, name)
            assert dev is not None
            dev.mgmt_ip = ip
            s.add(dev)
        s.commit()
    return engine, str(engine.url)


@contextmanager
def running(url: str, relays: tuple[str, ...] = LAB_RELAYS, **overrides: Any) -> Iterator[Ingest]:
    """The receivers on free ports; `relays` join the syslog context's own (LAB_RELAYS unless
    the test says otherwise), and the trap receiver gets the same list."""
    given: SyslogContext = overrides.pop("syslog", SyslogContext())
    syslog = replace(given, relays=(*given.relays, *relays))
    ports = {"trap_port": 0, "syslog_port": 0, "webhook_port": 0}
    cfg = IngestSettings(community=SecretStr(COMMUNITY), syslog=syslog, **{**ports, **overrides})
    with BackgroundIngest(url, cfg) as ingest:
        # one ingest.relays list for both receivers, as `netopsai ingest` passes it
        assert ingest.traps is None or ingest.traps.relays == syslog.relays
        yield ingest


def wait_until(pred: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def settle(ingest: Ingest, expected: int) -> None:
    """Wait until the receivers took in `expected` events and the writer stored them all."""
    writer = ingest.writer
    assert writer is not None
    wait_until(lambda: writer.stats.received >= expected, f"{expected} events received")
    assert writer.wait_idle(60), "the writer did not finish"
    assert writer.stats.received == expected


def send_udp(port: int, data: bytes, source: str = "127.0.0.1") -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind((source, 0))
        sock.sendto(data, ("127.0.0.1", port))


def send_trap(port: int, trap_oid: str, varbinds: list[tuple[str, Any]], *,
              community: str = COMMUNITY, source: str = "127.0.0.1", version: int = 2,
              notify_type: str = "trap") -> None:
    """A real SNMPv2c (or v1) trap, or an inform, sent by pysnmp's send_notification."""
    from pysnmp.hlapi.v3arch.asyncio import (
        CommunityData,
        ContextData,
        NotificationType,
        ObjectIdentity,
        SnmpEngine,
        UdpTransportTarget,
        send_notification,
    )

    async def go() -> None:
        engine = SnmpEngine()
        target = await UdpTransportTarget.create(("127.0.0.1", port), timeout=5, retries=0)
        target.set_local_address((source, 0))
        error, *_ = await send_notification(
            engine, CommunityData(community, mpModel=0 if version == 1 else 1), target, ContextData(),
            notify_type,
            NotificationType(ObjectIdentity(trap_oid)).add_varbinds(*varbinds))
        engine.close_dispatcher()
        assert error is None, error
    asyncio.run(go())


def raw_events(engine: Engine, source: str | None = None) -> list[m.RawEvent]:
    """What the ingest stored: the lab's own log lines (lab/loglines.py) are not its."""
    with Session(engine) as s:
        mine = or_(col(m.RawEvent.fingerprint).is_(None),
                   col(m.RawEvent.fingerprint).not_like(f"{LAB}%"))
        q = select(m.RawEvent).where(mine).order_by(col(m.RawEvent.id))
        if source:
            q = q.where(m.RawEvent.source == source)
        return list(s.exec(q))


def alarms(engine: Engine, source: str | None = None) -> list[m.Alarm]:
    with Session(engine) as s:
        q = select(m.Alarm).where(col(m.Alarm.source).in_(
            [source] if source else ["trap", "syslog", "alertmanager"])).order_by(col(m.Alarm.id))
        return list(s.exec(q))


def alarms_tool(engine: Engine, since: datetime, **args: Any) -> Evidence:
    """The alarms tool on the store, over a window from `since` to a minute from now."""
    window = {"start": since.isoformat(), "end": (datetime.now(UTC) + timedelta(minutes=1)).isoformat()}
    return run_tool("alarms", {"window": window, **args}, lab_backends(engine))


def fresh_url(tmp_path: Path) -> tuple[Engine, str]:
    """An empty store (no lab): the receivers create their tables."""
    url = f"sqlite:///{tmp_path / 'ingest.db'}"
    return engine_for(url), url
