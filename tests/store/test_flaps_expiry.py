"""store/flaps.py's expiry looks only at what may be due (the flapping ports, and a heap of
each Down's time) instead of walking every remembered port. It must do exactly what the walk
did: the same storms ended in the same order (the outages they leave are opened in that
order, so it decides alarm ids), the same ports forgotten at the same call, the same alarms
updated — checked against the walk itself on random streams with clocks that jump back."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from netopsai.store import flaps
from netopsai.store.flaps import QUIET, WINDOW, Ended, Flaps

T0 = datetime(2026, 11, 28, 1, 0, tzinfo=UTC)


class _Conn:
    """Records what each statement would write (its parameters), in order."""

    def __init__(self) -> None:
        self.done: list[list[tuple[str, Any]]] = []

    def execute(self, stmt: Any) -> None:
        self.done.append(sorted(stmt.compile().params.items()))


class _Walk:
    """The expiry as it was (4b906c9): every remembered port, in the order first seen."""

    def __init__(self) -> None:
        self.ports: dict[tuple[str, str], Any] = {}
        self.ended: list[Ended] = []

    def transition(self, conn: _Conn, port: tuple[str, str], at: datetime, down: bool,
                   open_alarm: Any, kept: Any = None) -> int | None:
        p = self.ports.setdefault(port, flaps._Port())
        if p.alarm is not None and p.last is not None and at - p.last > QUIET:
            self._close(conn, port)
            p = self.ports.setdefault(port, flaps._Port())
        if p.alarm is None:
            if not down:
                return None
            p.downs.append(at)
            while p.downs and at - p.downs[0] > WINDOW:
                p.downs.popleft()
            if len(p.downs) < flaps.DOWNS:
                return None
            p.first, p.count = p.downs[0], len(p.downs)
            p.alarm = open_alarm(p.first)
        elif down:
            p.count += 1
        p.last, p.down = at, down
        if down:
            p.down_event = kept
        conn.execute(flaps.update(flaps.ALARMS).where(flaps.ALARMS.c.id == p.alarm)
                     .values(message=flaps._text(p)))
        return p.alarm if down else None

    def expire(self, conn: _Conn, now: datetime) -> None:
        for port, p in list(self.ports.items()):
            if p.last is not None and now - p.last > QUIET:
                self._close(conn, port)
            elif p.alarm is None and p.downs and now - p.downs[-1] > WINDOW:
                del self.ports[port]

    def _close(self, conn: _Conn, port: tuple[str, str]) -> None:
        p = self.ports.pop(port)
        if p.alarm is not None:
            conn.execute(flaps.update(flaps.ALARMS).where(flaps.ALARMS.c.id == p.alarm)
                         .values(state="closed", cleared_at=p.last))
            if p.down and p.last is not None:
                self.ended.append(Ended(port, p.last, p.down_event))


def _ids() -> Any:
    n = iter(range(1, 10**6))
    return lambda first: next(n)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_expiry_does_what_the_walk_did(seed: int) -> None:
    rnd = random.Random(seed)
    new, old, c_new, c_old = Flaps(), _Walk(), _Conn(), _Conn()
    open_new, open_old = _ids(), _ids()
    ports = [("leaf1", f"Ethernet{i}") for i in range(8)]
    clock, latest = T0, T0
    for step in range(3000):
        # mostly forward in small steps (bounces), now and then a long quiet or a clock back
        r = rnd.random()
        clock += timedelta(seconds=rnd.choice([0.3, 1, 5, 20, 70, 130, 400]) if r < 0.9
                           else -rnd.choice([5, 100, 500]))
        latest = max(latest, clock)
        if rnd.random() < 0.15:
            new.expire(c_new, latest)  # type: ignore[arg-type]
            old.expire(c_old, latest)
        else:
            port, down = rnd.choice(ports), rnd.random() < 0.6
            got = new.transition(c_new, port, clock, down, open_new, kept=step)  # type: ignore[arg-type]
            want = old.transition(c_old, port, clock, down, open_old, kept=step)
            assert got == want, step
        assert list(new._ports) == list(old.ports), step
        assert new.ended == old.ended, step
        assert c_new.done == c_old.done, step
    assert old.ended and c_old.done  # the stream did end storms down and update alarms


def test_a_port_forgotten_starts_counting_again() -> None:
    """Two Downs, then quiet past WINDOW: forgotten at the expiry after, so one more Down a
    little later is not a third (it would be, had the heap missed it)."""
    f, conn = Flaps(), _Conn()
    port = ("leaf1", "Ethernet1")
    for s in (0, 10):
        f.transition(conn, port, T0 + timedelta(seconds=s), True, _ids())  # type: ignore[arg-type]
    f.expire(conn, T0 + WINDOW + timedelta(seconds=11))  # type: ignore[arg-type]
    assert port not in f._ports
    assert f.transition(conn, port, T0 + timedelta(seconds=20), True, _ids()) is None  # type: ignore[arg-type]
    assert list(f._ports[port].downs) == [T0 + timedelta(seconds=20)]
