"""The peer of a session alarm (BGP, OSPF) with no link, found from its neighbour's address:
the one other device holding that address. The answer leaves out the alarm's own device, so an
address held by two devices (a pair's shared gateway) is each one's peer — and must not depend
on which other alarms were read in the same call (store/events.py, _add_peers)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from netopsai.common.timewin import Window
from netopsai.store import tables as m
from netopsai.store.engine import create_all, engine_for
from netopsai.store.events import StoreEvents

T = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    eng = engine_for(f"sqlite:///{tmp_path / 'peers.db'}")
    create_all(eng)
    with Session(eng) as s:
        for name in ("A", "B", "C"):
            s.add(m.Device(name=name, role="leaf", site="dc1"))
        for name in ("A", "B"):  # one gateway address held by the pair A and B
            s.add(m.Interface(device=name, name="Vlan10", ip="10.0.0.9/24"))
        for device, ago in (("A", 5), ("C", 1)):  # both sessions lost towards 10.0.0.9
            s.add(m.Alarm(kind="bgp_down", category="bgp", device=device, neighbor="10.0.0.9",
                          raised_at=T - timedelta(minutes=ago)))
        s.commit()
    yield eng
    eng.dispose()


def _peers(engine: Engine, devices: list[str] | None) -> dict[str, str | None]:
    rows = StoreEvents(engine).alarms(None, "any", devices, None, Window(start=T - timedelta(hours=1), end=T))
    return {r["device"]: r["peer"] for r in rows}


def test_a_session_alarms_peer_is_the_same_read_alone_or_with_others(engine: Engine) -> None:
    alone = _peers(engine, ["A"])
    together = _peers(engine, None)
    assert alone == {"A": "B"}  # the other holder of 10.0.0.9
    assert together["A"] == "B"  # was None: C's row, read first, answered for A's
    assert together["C"] is None  # two devices hold it besides C: no single peer
