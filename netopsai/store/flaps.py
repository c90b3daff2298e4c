"""Flap dampening on the ingest path: a port that goes down `DOWNS` times within `WINDOW` is
flapping — one LINK_FLAP alarm with the count and the first and last transition, instead of an
alarm per bounce — and stops flapping after `QUIET` without a transition (the alarm is cleared
at its last transition). A storm that ends with the port down is an outage from its last Down:
the caller hears of it (`ended`) and opens the LINK_DOWN alarm the flap absorbed. Times are the
events' own (the device's clock), so a storm in a log loaded today is dampened as it was then.
The state lives in the writer: it ends every storm when it stops (`end_all`: a file load is over,
or the process is — an open flap alarm nobody would close is worse than one closed at its last
transition), so a log that ends with the port down leaves its outage open from the last Down;
a restart mid-storm starts counting again."""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Table, update

from netopsai.store import tables as m

DOWNS = 3
WINDOW = timedelta(seconds=120)
QUIET = timedelta(seconds=300)
ALARMS: Table = m.Alarm.__table__  # type: ignore[attr-defined]


@dataclass
class _Port:
    downs: deque[datetime] = field(default_factory=deque)
    alarm: int | None = None  # the open LINK_FLAP alarm
    count: int = 0  # downs since it started flapping
    first: datetime | None = None
    last: datetime | None = None
    down: bool = False  # the last transition was a Down
    down_event: Any = None  # what the caller kept of that Down (its event and row)
    born: int = 0  # when it was first remembered: the order `expire` ends storms in


@dataclass(frozen=True)
class Ended:
    """A storm over with its port down: since `at`, its last Down (`kept`: the caller's)."""

    port: tuple[str, str]
    at: datetime
    kept: Any


class Flaps:
    """`expire` looks only at what may be due: the flapping ports (few), and the ports whose
    last Down is older than WINDOW, found through a heap of each Down's time. Walking every
    remembered port instead cost ~0.7 µs a port a call, and a storm of new ports remembers
    one per LINK_DOWN for WINDOW: 10,000 new ports a second made it ~0.9 s a second.
    Events with times without a zone (compared with zoned ones they cannot be ordered) turn
    the heap off and the walk back on."""

    def __init__(self) -> None:
        self._ports: dict[tuple[str, str], _Port] = {}
        self._flapping: dict[tuple[str, str], _Port] = {}  # ports with an open LINK_FLAP
        self._downs: list[tuple[datetime, int, tuple[str, str]]] = []  # (a Down, born, port)
        self._born = 0
        self._walk = False  # a naive time was seen: expire walks every port
        self.ended: list[Ended] = []  # storms that ended down, for the caller to take

    def transition(self, conn: Connection, port: tuple[str, str], at: datetime, down: bool,
                   open_alarm: Any, kept: Any = None) -> int | None:
        """Record one up/down of a port. Returns the LINK_FLAP alarm that absorbs the event
        (a down while flapping, or the one that starts it), else None. `open_alarm(first)`
        inserts the LINK_FLAP alarm raised at `first` and returns its id; `kept` is what the
        caller needs of a Down should the storm end on it."""
        if at.tzinfo is None:
            self._walk = True
        p = self._ports.get(port)
        if p is None:  # built only when new: a _Port and its deque per event was a storm's waste
            p = self._new(port)
        elif p.alarm is not None and p.last is not None and at - p.last > QUIET:
            self._close(conn, port)  # the storm ended before this: a new story
            p = self._new(port)
        if p.alarm is None:
            if not down:
                return None
            p.downs.append(at)
            if not self._walk:
                heapq.heappush(self._downs, (at, p.born, port))
            while p.downs and at - p.downs[0] > WINDOW:
                p.downs.popleft()
            if len(p.downs) < DOWNS:
                return None
            p.first, p.count = p.downs[0], len(p.downs)
            p.alarm = open_alarm(p.first)
            self._flapping[port] = p
        elif down:
            p.count += 1
        p.last, p.down = at, down
        if down:
            p.down_event = kept
        conn.execute(update(ALARMS).where(ALARMS.c.id == p.alarm).values(message=_text(p)))
        return p.alarm if down else None

    def _new(self, port: tuple[str, str]) -> _Port:
        self._born += 1
        p = self._ports[port] = _Port(born=self._born)
        return p

    def expire(self, conn: Connection, now: datetime) -> None:
        """Clear the flapping of ports quiet for QUIET by `now` (in the order they were first
        remembered: the outages they leave are opened in that order); forget old downs."""
        if self._walk or now.tzinfo is None:
            self._expire_walk(conn, now)
            return
        quiet = sorted((p.born, port) for port, p in self._flapping.items()
                       if p.last is not None and now - p.last > QUIET)
        for _, port in quiet:
            self._close(conn, port)
        heap = self._downs
        while heap and now - heap[0][0] > WINDOW:
            _, born, port = heapq.heappop(heap)
            p = self._ports.get(port)  # the entry may be stale: a later Down, a new story
            if p is not None and p.born == born and p.alarm is None and p.downs \
                    and now - p.downs[-1] > WINDOW:
                del self._ports[port]

    def _expire_walk(self, conn: Connection, now: datetime) -> None:
        for port, p in list(self._ports.items()):
            if p.last is not None and now - p.last > QUIET:
                self._close(conn, port)
            elif p.alarm is None and p.downs and now - p.downs[-1] > WINDOW:
                del self._ports[port]

    def end_all(self, conn: Connection) -> None:
        """Every storm ends at its last transition (the writer stops: its state goes with it)."""
        for port in list(self._ports):
            self._close(conn, port)
        self._downs.clear()

    def _close(self, conn: Connection, port: tuple[str, str]) -> None:
        p = self._ports.pop(port)
        self._flapping.pop(port, None)
        if p.alarm is not None:
            conn.execute(update(ALARMS).where(ALARMS.c.id == p.alarm)
                         .values(state="closed", cleared_at=p.last))
            if p.down and p.last is not None:  # it stopped bouncing, down: an outage from here
                self.ended.append(Ended(port, p.last, p.down_event))


def _text(p: _Port) -> str:
    return (f"flapping: down {p.count} times between {p.first:%Y-%m-%d %H:%M:%S} and "
            f"{p.last:%H:%M:%S}")
