"""A small store holding a 'real' network (Meta network=real): what import, discovery and poll
leave behind, written directly so the store backends can be tested without a live network."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session

from netopsai.store import tables as m
from netopsai.store.engine import create_all, engine_for, set_meta

DEVICES = ("edge-sw-01", "core-rtr-01")
PORTS = ("Gi0/1", "Gi0/2", "Gi0/3")


def real_store(path: Path | str, now: datetime | None = None) -> Engine:
    """Two devices, three 1G ports each, an hour of 5-minute samples ending `now`; Gi0/2 of
    edge-sw-01 went down 20 minutes ago and has input errors; one open link alarm. `path`: an
    SQLite file, or any store URL (PostgreSQL)."""
    now = (now or datetime.now(UTC)).replace(second=0, microsecond=0)
    now -= timedelta(minutes=now.minute % 5)
    engine = engine_for(path if isinstance(path, str) else f"sqlite:///{path}")
    create_all(engine)
    with Session(engine) as s:
        s.add(m.Site(name="hq", region="eu-west"))
        for i, dev in enumerate(DEVICES):
            s.add(m.Device(name=dev, role="leaf" if i == 0 else "spine", vendor="cisco", site="hq",
                           mgmt_ip=f"127.0.0.{i + 10}", booted_at=now - timedelta(days=3)))
            for port in PORTS:
                s.add(m.Interface(device=dev, name=port, speed_mbps=1000))
        s.add(m.InterfaceEvent(device="edge-sw-01", interface="Gi0/2", at=now - timedelta(minutes=20),
                               state="down", reason="polled"))
        for k in range(12):
            at = now - timedelta(minutes=5 * k)
            for dev in DEVICES:
                for port in PORTS:
                    bad = dev == "edge-sw-01" and port == "Gi0/2"
                    s.add(m.CounterSample(device=dev, interface=port, at=at, source="snmp",
                                          in_octets=3_000_000_000 if bad else 1_000_000,
                                          out_octets=500_000, in_errors=7 if bad else 0,
                                          rx_power_dbm=-12.5 if bad else -2.0))
        s.add(m.Alarm(kind="link_down", category="link", device="edge-sw-01", interface="Gi0/2",
                      site="hq", raised_at=now - timedelta(minutes=20), source="syslog",
                      message="Interface Gi0/2 changed state to down"))
        set_meta(s, "network", "real")
        set_meta(s, "source", "yaml")
        s.commit()
    return engine
