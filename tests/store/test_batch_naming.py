"""A batch resolves who an event is about and its port's name once per distinct spelling
(store/apply.py: Batch._who, Batch._ports). Kept by the right key (the name given AND its
sender; the device AND the port as written), and only for the batch: the inventory's changes
reach the next batch as soon as the caches behind it (DeviceCache, LinkCache) read again."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select, update
from sqlmodel import Session

from netopsai.store import tables as m
from netopsai.store.alarmbook import LinkCache
from netopsai.store.apply import Batch, Event
from netopsai.store.flaps import Flaps
from netopsai.store.naming import DeviceCache
from netopsai.store.writing import create_tables, writer_engine

AT = datetime(2026, 11, 28, 0, 30, tzinfo=UTC)
LEAF = "dc1-leaf-01"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    eng = writer_engine(f"sqlite:///{tmp_path / 'store.db'}")
    create_tables(eng, 5.0)
    with Session(eng) as s:
        s.add(m.Device(name=LEAF, role="leaf", site="dc1", mgmt_ip="198.18.0.1"))
        s.add(m.Device(name="dc1-leaf-02", role="leaf", site="dc1", mgmt_ip="198.18.0.2"))
        s.add(m.Interface(device=LEAF, name="Ethernet1"))
        s.add(m.Interface(device=LEAF, name="HundredGigE0/0/0/8"))
        s.add(m.Interface(device="dc1-leaf-02", name="Et1"))  # as this device's OS names it
        s.commit()
    yield eng
    eng.dispose()


def _ev(i: int, *, name: str | None, host: str, port: str, action: str = "raise",
        relay: bool = False) -> Event:
    return Event(source="syslog", action=action,  # type: ignore[arg-type]
                 message=f"{port} {action} {i}", received_at=AT + timedelta(seconds=i),
                 fingerprint=f"fp{i}", host=host, name=name, kind="LINK_DOWN", category="link",
                 subject=port, interface=port, resolve_sender=not relay)


def _write(engine: Engine, events: list[Event], devices: DeviceCache,
           links: LinkCache) -> list[dict[str, Any]]:
    """One batch, one transaction, as the queued writer writes it."""
    with Session(engine, autoflush=False) as s:
        work = Batch(s, devices, Flaps(), links)
        rows = work.apply_all(events)
        work.finish()
        s.commit()
    return rows


def test_one_device_by_two_spellings_in_one_batch_is_one_alarm(engine: Engine) -> None:
    """Raised under one spelling of the device and its port, cleared under another, in the
    same batch: one alarm, opened and closed, both rows about the inventory's names."""
    rows = _write(engine, [_ev(1, name=LEAF, host="198.18.0.1", port="Et1"),
                           _ev(2, name="DC1-LEAF-01.example.net", host="198.18.0.1",
                               port="Ethernet1", action="clear")],
                  DeviceCache(), LinkCache())
    assert [(r["device"], r["interface"], r["key"]) for r in rows] == \
        [(LEAF, "Ethernet1", f"LINK_DOWN|{LEAF}|Ethernet1")] * 2
    with Session(engine) as s:
        alarms = list(s.exec(select(m.Alarm.device, m.Alarm.interface, m.Alarm.state)))  # type: ignore[call-overload]
    assert [tuple(a) for a in alarms] == [(LEAF, "Ethernet1", "closed")]
    assert rows[0]["alarm_id"] == rows[1]["alarm_id"] is not None


def test_the_same_name_from_another_sender_is_resolved_again(engine: Engine) -> None:
    """Kept by the name alone, the second event (a sender that is not the leaf naming it)
    would borrow the first one's answer and open an alarm on a device it may not speak for."""
    rows = _write(engine, [_ev(1, name=LEAF, host="198.18.0.1", port="Ethernet1"),
                           _ev(2, name=LEAF, host="198.18.0.99", port="Ethernet1")],
                  DeviceCache(), LinkCache())
    assert rows[0]["device"] == LEAF and rows[0]["alarm_id"] is not None
    assert rows[1]["device"] == "198.18.0.99"
    assert (rows[1]["kind"], rows[1]["alarm_id"], rows[1]["key"]) == (None, None, None)


def test_the_same_spelling_on_two_devices_is_each_devices_port(engine: Engine) -> None:
    """`Et1` is leaf-01's Ethernet1 and leaf-02's own Et1: kept by the spelling alone, one
    of them would be stored under the other's name."""
    rows = _write(engine, [_ev(1, name=None, host="198.18.0.1", port="Et1"),
                           _ev(2, name=None, host="198.18.0.2", port="Et1")],
                  DeviceCache(), LinkCache())
    assert [(r["device"], r["interface"]) for r in rows] == \
        [(LEAF, "Ethernet1"), ("dc1-leaf-02", "Et1")]


def test_a_port_renamed_between_batches_is_named_anew(engine: Engine) -> None:
    """The optics controller names its port as the inventory does at the time: a batch's
    answers must not outlive it once the caches read the inventory again (ttl 0 here)."""
    devices, links = DeviceCache(ttl=0), LinkCache(ttl=0)
    first = _write(engine, [_ev(1, name=None, host="198.18.0.1", port="Optics0/0/0/8")],
                   devices, links)
    with Session(engine) as s:
        s.execute(update(m.Interface).where(m.Interface.name == "HundredGigE0/0/0/8")  # type: ignore[arg-type]
                  .values(name="FourHundredGigE0/0/0/8"))
        s.commit()
    second = _write(engine, [_ev(2, name=None, host="198.18.0.1", port="Optics0/0/0/8")],
                    devices, links)
    assert first[0]["interface"] == "HundredGigE0/0/0/8"
    assert second[0]["interface"] == "FourHundredGigE0/0/0/8"


def test_a_device_added_between_batches_is_found(engine: Engine) -> None:
    """A sender unknown to the inventory is stored under the name it gives; once the
    inventory holds its address, the next batch files its events under the device."""
    devices, links = DeviceCache(ttl=0), LinkCache(ttl=0)
    first = _write(engine, [_ev(1, name="leaf9", host="198.18.0.9", port="Ethernet3")],
                   devices, links)
    with Session(engine) as s:
        s.add(m.Device(name="dc1-leaf-09", role="leaf", site="dc1", mgmt_ip="198.18.0.9"))
        s.commit()
    second = _write(engine, [_ev(2, name="leaf9", host="198.18.0.9", port="Ethernet3")],
                    devices, links)
    assert first[0]["device"] == "leaf9"
    assert second[0]["device"] == "dc1-leaf-09"
