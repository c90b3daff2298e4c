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


@dataclass(frozen=True)
class Ended:
    """A storm over with its port down: since `at`, its last Down (`kept`: the caller's)."""

    port: tuple[str, str]
    at: datetime
    kept: Any


class Flaps:
    def __init__(self) -> None:
        self._ports: dict[tuple[str, str], _Port] = {}
        self.ended: list[Ended] = []  # storms that ended down, for the caller to take

    def transition(self, conn: Connection, port: tuple[str, str], at: datetime, down: bool,
                   open_alarm: Any, kept: Any = None) -> int | None:
        """Record one up/down of a port. Returns the LINK_FLAP alarm that absorbs the event
        (a down while flapping, or the one that starts it), else None. `open_alarm(first)`
        inserts the LINK_FLAP alarm raised at `first` and returns its id; `kept` is what the
        caller needs of a Down should the storm end on it."""
        p = self._ports.get(port)
        if p is None:  # built only when new: a _Port and its deque per event was a storm's waste
            p = self._ports[port] = _Port()
        elif p.alarm is not None and p.last is not None and at - p.last > QUIET:
            self._close(conn, port)  # the storm ended before this: a new story
            p = self._ports[port] = _Port()
        if p.alarm is None:
            if not down:
                return None
            p.downs.append(at)
            while p.downs and at - p.downs[0] > WINDOW:
                p.downs.popleft()
            if len(p.downs) < DOWNS:
                return None
            p.first, p.count = p.downs[0], len(p.downs)
            p.alarm = open_alarm(p.first)
        elif down:
            p.count += 1
        p.last, p.down = at, down
        if down:
            p.down_event = kept
        conn.execute(update(ALARMS).where(ALARMS.c.id == p.alarm).values(message=_text(p)))
        return p.alarm if down else None

    def expire(self, conn: Connection, now: datetime) -> None:
        """Clear the flapping of ports quiet for QUIET by `now`; forget old downs."""
        for port, p in list(self._ports.items()):
            if p.last is not None and now - p.last > QUIET:
                self._close(conn, port)
            elif p.alarm is None and p.downs and now - p.downs[-1] > WINDOW:
                del self._ports[port]

    def end_all(self, conn: Connection) -> None:
        """Every storm ends at its last transition (the writer stops: its state goes with it)."""
        for port in list(self._ports):
            self._close(conn, port)

    def _close(self, conn: Connection, port: tuple[str, str]) -> None:
        p = self._ports.pop(port)
        if p.alarm is not None:
            conn.execute(update(ALARMS).where(ALARMS.c.id == p.alarm)
                         .values(state="closed", cleared_at=p.last))
            if p.down and p.last is not None:  # it stopped bouncing, down: an outage from here
                self.ended.append(Ended(port, p.last, p.down_event))


def _text(p: _Port) -> str:
    return (f"flapping: down {p.count} times between {p.first:%Y-%m-%d %H:%M:%S} and "
            f"{p.last:%H:%M:%S}")
