"""Acknowledgements and silences of alarms, kept in our store (never on a device).

Each action is a row (AlarmAck): ack, silence (until a time) or unack. An alarm's state is its
latest action since the last unack: silenced while the silence lasts, acknowledged otherwise (a
silence implies the alarm was seen, so it stays acknowledged after the silence ends). Times are
the network's clock, the same clock the alarms are raised on, so a lab silence ends when the
lab's clock passes it."""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, inspect
from sqlmodel import Session, col, select

from netopsai.errors import NetopsError
from netopsai.store import tables as m
from netopsai.store.engine import create_all
from netopsai.timewin import as_utc, iso

ACTIONS = ("ack", "silence", "unack")
MAX_BY, MAX_WHY = 80, 500
_READY: weakref.WeakSet[Engine] = weakref.WeakSet()  # engines whose alarm_ack table exists


@dataclass(frozen=True)
class AckState:
    state: str  # acked | silenced
    by: str
    why: str
    at: datetime
    until: datetime | None = None  # the silence's end (past once it expired)

    def text(self) -> str:
        """One cell: who, why and, for a silence, until when (UTC)."""
        why = f": {self.why}" if self.why else ""
        if self.state == "silenced" and self.until:
            return f"silenced by {self.by} until {iso(self.until)}{why}"
        ended = f" (silence ended {iso(self.until)})" if self.until else ""
        return f"acked by {self.by}{ended}{why}"


def ensure_table(engine: Engine) -> None:
    """A store made before acks existed gains the table, through the store's own schema upgrade
    (create_all) so the store's record of its schema stays true; once per engine."""
    if engine not in _READY:
        if not inspect(engine).has_table(m.AlarmAck.__tablename__):  # type: ignore[arg-type]
            create_all(engine)
        _READY.add(engine)


def check_alarm(engine: Engine, alarm_id: int) -> None:
    """A one-line error naming the newest alarm ids when `alarm_id` is not in the store."""
    with Session(engine) as s:
        if s.get(m.Alarm, alarm_id) is not None:
            return
        newest = s.exec(select(m.Alarm.id).order_by(col(m.Alarm.raised_at).desc()).limit(5)).all()
    hint = f"; the newest alarms are {', '.join(str(i) for i in newest)}" if newest else \
        "; the store holds no alarms"
    raise NetopsError(f"unknown alarm id {alarm_id}{hint}")


def record(engine: Engine, alarm_id: int, action: str, by: str, why: str, at: datetime,
           until: datetime | None = None) -> m.AlarmAck:
    """Store one action after checking it: a known alarm, a name, a silence that ends later."""
    by, why = (by or "").strip(), (why or "").strip()
    if action not in ACTIONS:
        raise NetopsError(f"unknown action {action!r}; use one of {', '.join(ACTIONS)}")
    if not by:
        raise NetopsError("say who you are (by)")
    if len(by) > MAX_BY or len(why) > MAX_WHY:
        raise NetopsError(f"too long: who is at most {MAX_BY} characters, why {MAX_WHY}")
    if action == "silence" and (until is None or as_utc(until) <= as_utc(at)):
        raise NetopsError("a silence needs an end after now, e.g. --for 2h")
    ensure_table(engine)
    check_alarm(engine, alarm_id)
    row = m.AlarmAck(alarm_id=alarm_id, action=action, by=by, why=why, at=as_utc(at),
                     until=as_utc(until) if action == "silence" and until else None)
    with Session(engine) as s:
        s.add(row)
        s.commit()
        s.refresh(row)
    return row


def states(engine: Engine, alarm_ids: Iterable[int], now: datetime) -> dict[int, AckState]:
    """The acknowledged or silenced alarms among `alarm_ids`, at the network time `now`."""
    ids = sorted({int(i) for i in alarm_ids})
    if not ids:
        return {}
    ensure_table(engine)
    q = select(m.AlarmAck).where(col(m.AlarmAck.alarm_id).in_(ids))
    latest: dict[int, m.AlarmAck | None] = {}
    with Session(engine) as s:
        for act in s.exec(q.order_by(col(m.AlarmAck.at), col(m.AlarmAck.id))):
            latest[act.alarm_id] = None if act.action == "unack" else act
    now = as_utc(now)
    out: dict[int, AckState] = {}
    for alarm_id, a in latest.items():
        if a is None:
            continue
        until = as_utc(a.until) if a.until else None
        state = "silenced" if until and until > now else "acked"
        out[alarm_id] = AckState(state, a.by, a.why, as_utc(a.at), until)
    return out


def history(engine: Engine, alarm_id: int | None = None, limit: int = 50) -> list[m.AlarmAck]:
    """Actions newest first, of one alarm or of all."""
    ensure_table(engine)
    q = select(m.AlarmAck)
    if alarm_id is not None:
        q = q.where(m.AlarmAck.alarm_id == alarm_id)
    with Session(engine) as s:
        return list(s.exec(q.order_by(col(m.AlarmAck.at).desc(), col(m.AlarmAck.id).desc())
                           .limit(limit)))
