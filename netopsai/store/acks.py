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
from datetime import datetime, timedelta

from sqlalchemy import Engine, inspect
from sqlmodel import Session, col, select

from netopsai.common.errors import NetopsError
from netopsai.common.localtime import at
from netopsai.common.textsafe import visible
from netopsai.common.timewin import as_utc, parse_duration
from netopsai.store import tables as m
from netopsai.store.engine import create_all

ACTIONS = ("ack", "silence", "unack")
MAX_BY, MAX_WHY = 80, 500
MAX_ID = 2**63 - 1  # the largest id a database column holds: beyond it no alarm can exist
# A silence is for a known while (a maintenance, a fix in flight); one longer than this hides
# an alarm for good, which is what closing it or fixing the network is for.
MAX_SILENCE = timedelta(days=366)
_READY: weakref.WeakSet[Engine] = weakref.WeakSet()  # engines whose alarm_ack table exists


@dataclass(frozen=True)
class AckState:
    state: str  # acked | silenced
    by: str
    why: str
    at: datetime
    until: datetime | None = None  # the silence's end (past once it expired)

    def text(self, zone: str | None = None) -> str:
        """One cell: who, why and, for a silence, until when, on the network's clock (`zone`,
        UTC when unset) with its zone named: an on-call reads it ('until 11:41 PST (19:41 UTC)')."""
        why = f": {self.why}" if self.why else ""
        if self.state == "silenced" and self.until:
            return f"silenced by {self.by} until {at(self.until, zone, beside=True)}{why}"
        ended = f" (silence ended {at(self.until, zone, beside=True)})" if self.until else ""
        return f"acked by {self.by}{ended}{why}"


def ensure_table(engine: Engine) -> None:
    """A store made before acks existed gains the table, through the store's own schema upgrade
    (create_all) so the store's record of its schema stays true; once per engine."""
    if engine not in _READY:
        if not inspect(engine).has_table(m.AlarmAck.__tablename__):  # type: ignore[arg-type]
            create_all(engine)
        _READY.add(engine)


def check_alarm(engine: Engine, alarm_id: int) -> None:
    """A one-line error naming the newest alarm ids when `alarm_id` is not in the store (an id
    out of the database's range is not looked up: the driver would fail on it)."""
    with Session(engine) as s:
        if 0 < alarm_id <= MAX_ID and s.get(m.Alarm, alarm_id) is not None:
            return
        newest = s.exec(select(m.Alarm.id).order_by(col(m.Alarm.raised_at).desc()).limit(5)).all()
    hint = f"; the newest alarms are {', '.join(str(i) for i in newest)}" if newest else \
        "; the store holds no alarms"
    raise NetopsError(f"unknown alarm id {alarm_id}{hint}")


def silence_end(now: datetime, span: str) -> datetime:
    """When a silence of `span` (30m, 2h, 1d) started at `now` ends, or a one-line error: a
    malformed span, or one longer than MAX_SILENCE (checked before adding: a span of a million
    days would overflow the calendar)."""
    delta = parse_duration(span)
    if delta > MAX_SILENCE:
        raise NetopsError(f"a silence lasts at most {MAX_SILENCE.days} days, not {span}; "
                          "acknowledge the alarm instead")
    return now + delta


def _plain(text: str, what: str) -> None:
    """Who and why are shown beside the alarm in terminals and the web app: a control character
    in them (an ESC sequence, a line break) would act there, so it is refused, never stored."""
    for i, ch in enumerate(text):
        if visible(ch) != ch:
            raise NetopsError(f"{what} has a control character (U+{ord(ch):04X} at position "
                              f"{i + 1}); use one line of plain text")


def record(engine: Engine, alarm_id: int, action: str, by: str, why: str, at: datetime,
           until: datetime | None = None) -> m.AlarmAck:
    """Store one action after checking it: a known alarm, a name, plain text, a silence that
    ends later but not too late."""
    by, why = (by or "").strip(), (why or "").strip()
    if action not in ACTIONS:
        raise NetopsError(f"unknown action {action!r}; use one of {', '.join(ACTIONS)}")
    if not by:
        raise NetopsError("say who you are (by)")
    if len(by) > MAX_BY or len(why) > MAX_WHY:
        raise NetopsError(f"too long: who is at most {MAX_BY} characters, why {MAX_WHY}")
    _plain(by, "who (by)")
    _plain(why, "why")
    if action == "silence" and (until is None or as_utc(until) <= as_utc(at)):
        raise NetopsError("a silence needs an end after now, e.g. --for 2h")
    if action == "silence" and until is not None and as_utc(until) - as_utc(at) > MAX_SILENCE:
        raise NetopsError(f"a silence lasts at most {MAX_SILENCE.days} days")
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
