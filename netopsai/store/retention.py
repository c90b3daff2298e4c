"""Retention: how much history the store keeps (config `retention:`, `netopsai db prune`, and a
periodic prune in ingest and poll).

5-minute counter samples older than `samples_days` are first rolled up into one CounterRollup
per port and hour, then deleted; the hour's roll-up and its samples' deletion commit together,
so a prune stopped halfway loses nothing and is simply run again. Meta `samples_rolled_through`
is the horizon: the telemetry reader takes roll-ups up to it and samples after it. Other tables
are deleted in chunks, so a first prune of a years-old store does not hold a lock for minutes.
Everything is portable SQL, the same on SQLite and PostgreSQL."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, and_, case, delete, exists, func, insert, literal, or_, select
from sqlalchemy.sql import ColumnElement
from sqlmodel import Session

from netopsai.config.network import RetentionSettings
from netopsai.store import tables as m
from netopsai.store.engine import get_meta, has_lab, set_meta
from netopsai.timewin import as_utc

ROLLED_THROUGH = "samples_rolled_through"  # Meta key: samples at or before it are rolled up
HOUR = timedelta(hours=1)
CHUNK = 20_000  # rows per delete: short transactions beside ingest's and poll's writers

S = m.CounterSample.__table__  # type: ignore[attr-defined]
R = m.CounterRollup.__table__  # type: ignore[attr-defined]


@dataclass
class PruneReport:
    """Rows taken out of (or, dry, due to leave) each table."""

    samples_rolled: int = 0
    rollups_written: int = 0
    rollups: int = 0
    raw_events: int = 0
    interface_events: int = 0
    alarms: int = 0
    acks: int = 0
    dry: bool = False
    lab: bool = False  # the embedded lab: its history is the simulator's, on its own clock
    horizons: dict[str, datetime] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self)
                   if f.name not in ("rollups_written", "dry", "lab", "horizons"))


def rolled_through(engine: Engine) -> datetime | None:
    """Counter samples at or before this time live on only as hourly roll-ups."""
    with Session(engine) as s:
        value = get_meta(s, ROLLED_THROUGH)
    return as_utc(datetime.fromisoformat(value)) if value else None


def prune(engine: Engine, policy: RetentionSettings, now: datetime | None = None,
          dry: bool = False) -> PruneReport:
    """Apply `policy` once. `dry` counts what would go and changes nothing."""
    now = as_utc(now or datetime.now(UTC))
    rep = PruneReport(dry=dry)
    if has_lab(engine):
        rep.lab = True
        return rep

    def cut(days: int | None, name: str) -> datetime | None:
        if days is None:
            return None
        rep.horizons[name] = now - timedelta(days=days)
        return rep.horizons[name]

    if (horizon := cut(policy.samples_days, "samples")) is not None:
        horizon = horizon.replace(minute=0, second=0, microsecond=0)  # whole hours only
        rep.horizons["samples"] = horizon
        _roll_up(engine, horizon, rep, dry)
    if (t := cut(policy.rollups_days, "rollups")) is not None:
        rep.rollups = _delete(engine, R, R.c.at < t, dry)
    if (t := cut(policy.raw_events_days, "raw_events")) is not None:
        raw = m.RawEvent.__table__  # type: ignore[attr-defined]
        rep.raw_events = _delete(engine, raw, raw.c.received_at < t, dry)
    if (t := cut(policy.interface_events_days, "interface_events")) is not None:
        rep.interface_events = _delete(engine, _IFE, _superseded(t), dry)
    if (t := cut(policy.closed_alarms_days, "closed_alarms")) is not None:
        rep.alarms, rep.acks = _prune_alarms(engine, t, dry)
    return rep


# ---------------------------------------------------------------- counter samples -> roll-ups

def _roll_up(engine: Engine, horizon: datetime, rep: PruneReport, dry: bool) -> None:
    """Roll up, hour by hour, every sample at or before `horizon` (late arrivals for an hour
    already rolled get a second roll-up row, which the reader adds up like the first)."""
    if dry:
        with Session(engine) as s:
            rep.samples_rolled = s.execute(select(func.count()).where(S.c.at <= horizon)).scalar_one()
        return
    with Session(engine) as s:
        before = s.execute(select(func.count()).select_from(R)).scalar_one()
    while True:
        with Session(engine) as s:
            first = s.execute(select(func.min(S.c.at)).where(S.c.at <= horizon)).scalar_one()
            if first is None:
                break
            end = _hour_end(as_utc(first))
            s.execute(_rollup_insert(end - HOUR, end))
            rep.samples_rolled += _rows(s.execute(
                delete(S).where(S.c.at > end - HOUR, S.c.at <= end)))
            _advance(s, min(end, horizon))
            s.commit()
    with Session(engine) as s:
        _advance(s, horizon)
        s.commit()
        # counted, not summed: psycopg gives no rowcount for INSERT … SELECT
        rep.rollups_written = s.execute(select(func.count()).select_from(R)).scalar_one() - before


def _rows(result: Any) -> int:
    """Rows a DELETE touched (a CursorResult's rowcount)."""
    return int(result.rowcount)


def _advance(s: Session, to: datetime) -> None:
    value = get_meta(s, ROLLED_THROUGH)
    if value is None or as_utc(datetime.fromisoformat(value)) < to:
        set_meta(s, ROLLED_THROUGH, to.isoformat())


def _hour_end(at: datetime) -> datetime:
    """The end of the hour a sample belongs to: a sample ends its 5 minutes at `at`."""
    floor = at.replace(minute=0, second=0, microsecond=0)
    return floor if floor == at else floor + HOUR


def _rollup_insert(start: datetime, end: datetime) -> Any:
    """INSERT INTO counterrollup SELECT … one row per port and source for samples in (start, end]."""
    io = case((S.c.in_octets >= S.c.out_octets, S.c.in_octets), else_=S.c.out_octets)
    rank = func.row_number().over(partition_by=(S.c.device, S.c.interface, S.c.source),
                                  order_by=(S.c.at.desc(), S.c.id.desc()))
    q = select(S.c.device, S.c.interface, S.c.source, S.c.in_octets, S.c.out_octets,
               S.c.in_errors, S.c.crc_errors, (S.c.in_discards + S.c.out_discards).label("disc"),
               io.label("io"), S.c.rx_power_dbm.label("rx"), rank.label("rank")
               ).where(S.c.at > start, S.c.at <= end).subquery()

    def last(c: ColumnElement[Any]) -> Any:
        return func.max(case((q.c.rank == 1, c)))

    values = {
        "device": q.c.device, "interface": q.c.interface,
        "at": literal(end, type_=R.c.at.type), "samples": func.count(),
        "in_octets": func.sum(q.c.in_octets), "out_octets": func.sum(q.c.out_octets),
        "in_errors": func.sum(q.c.in_errors), "crc_errors": func.sum(q.c.crc_errors),
        "discards": func.sum(q.c.disc), "io_sum": func.sum(q.c.io),
        "errors_max": func.max(q.c.in_errors), "discards_max": func.max(q.c.disc),
        "io_max": func.max(q.c.io), "errors_last": last(q.c.in_errors),
        "discards_last": last(q.c.disc), "io_last": last(q.c.io),
        "rx_min": func.min(q.c.rx), "rx_sum": func.coalesce(func.sum(q.c.rx), 0.0),
        "rx_samples": func.count(q.c.rx), "rx_last": last(q.c.rx), "source": q.c.source}
    sel = select(*(v.label(k) for k, v in values.items())).group_by(
        q.c.device, q.c.interface, q.c.source)
    return insert(R).from_select(list(values), sel)


# ---------------------------------------------------------------- the other tables

_IFE = m.InterfaceEvent.__table__  # type: ignore[attr-defined]


def _superseded(cut: datetime) -> ColumnElement[bool]:
    """Port transitions before `cut` except each port's last one before it: that one is the
    port's state at `cut`, which a later window starts from."""
    newer = _IFE.alias("newer")
    later = exists().where(
        newer.c.device == _IFE.c.device, newer.c.interface == _IFE.c.interface,
        newer.c.at < cut,
        or_(newer.c.at > _IFE.c.at, and_(newer.c.at == _IFE.c.at, newer.c.id > _IFE.c.id)))
    return and_(_IFE.c.at < cut, later)


def _delete(engine: Engine, table: Any, where: ColumnElement[bool], dry: bool) -> int:
    if dry:
        with Session(engine) as s:
            return int(s.execute(select(func.count()).select_from(table).where(where)).scalar_one())
    total = 0
    while True:
        with Session(engine) as s:
            ids = [r[0] for r in s.execute(select(table.c.id).where(where).limit(CHUNK))]
            if ids:
                s.execute(delete(table).where(table.c.id.in_(ids)))
                s.commit()
        total += len(ids)
        if len(ids) < CHUNK:
            return total


def _prune_alarms(engine: Engine, cut: datetime, dry: bool) -> tuple[int, int]:
    """Alarms cleared before `cut`, with their acknowledgements. Open ones are never touched."""
    alarm = m.Alarm.__table__  # type: ignore[attr-defined]
    ack = m.AlarmAck.__table__  # type: ignore[attr-defined]
    old = and_(alarm.c.state == "closed", alarm.c.cleared_at.is_not(None), alarm.c.cleared_at < cut)
    if dry:
        with Session(engine) as s:
            acks = s.execute(select(func.count()).where(
                ack.c.alarm_id.in_(select(alarm.c.id).where(old)))).scalar_one()
        return _delete(engine, alarm, old, True), int(acks)
    alarms = acks = 0
    while True:
        with Session(engine) as s:
            ids = [r[0] for r in s.execute(select(alarm.c.id).where(old).limit(CHUNK))]
            if ids:
                acks += _rows(s.execute(delete(ack).where(ack.c.alarm_id.in_(ids))))
                s.execute(delete(alarm).where(alarm.c.id.in_(ids)))
                alarms += len(ids)
                s.commit()
        if len(ids) < CHUNK:
            return alarms, acks


# ---------------------------------------------------------------- in long-running services

class PeriodicPrune:
    """Prune now and then every `prune_every_minutes` (0: never), for ingest and poll."""

    def __init__(self, engine: Engine, policy: RetentionSettings,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.engine, self.policy, self.clock = engine, policy, clock
        self.every_s = policy.prune_every_minutes * 60
        self.next_at: float | None = clock() if self.every_s else None

    def run_if_due(self) -> PruneReport | None:
        if self.next_at is None or self.clock() < self.next_at:
            return None
        self.next_at = self.clock() + self.every_s
        return prune(self.engine, self.policy)


async def prune_periodically(engine: Engine, policy: RetentionSettings,
                             say: Callable[[str], None], check_every_s: float = 60.0) -> None:
    """For an asyncio service (ingest): prune at start and every `prune_every_minutes`, off the
    event loop, until cancelled. A failed prune is said and retried at the next interval: the
    service's own work matters more."""
    import asyncio

    pruner = PeriodicPrune(engine, policy)
    while pruner.next_at is not None:
        try:
            rep = await asyncio.to_thread(pruner.run_if_due)
        except Exception as exc:  # noqa: BLE001 - a prune must never stop ingest
            say(f"prune failed, retrying in {policy.prune_every_minutes} min: "
                f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
        else:
            if rep is not None and rep.total:
                for line in describe(rep):
                    say(f"prune: {line}")
        await asyncio.sleep(check_every_s)


def describe(rep: PruneReport) -> list[str]:
    """One line per table that lost (or would lose) rows, for the CLI and the services' logs."""
    if rep.lab:
        return ["the store holds the embedded lab, whose history is the simulator's: "
                "nothing pruned"]
    verb = "would remove" if rep.dry else "removed"
    when = {k: f"{v:%Y-%m-%d %H:%M} UTC" for k, v in rep.horizons.items()}
    lines = []
    if rep.samples_rolled:
        made = "" if rep.dry else f" into {rep.rollups_written:,} hourly roll-ups"
        lines.append(f"counter samples: {rep.samples_rolled:,} up to {when['samples']} "
                     f"{'would be rolled up' if rep.dry else 'rolled up'}{made} and removed")
    for name, horizon, label in (("rollups", "rollups", "hourly roll-ups"),
                                 ("raw_events", "raw_events", "raw events"),
                                 ("interface_events", "interface_events", "port transitions"),
                                 ("alarms", "closed_alarms", "closed alarms")):
        count = getattr(rep, name)
        if count:
            extra = f" (and {rep.acks:,} acknowledgements)" if name == "alarms" and rep.acks else ""
            lines.append(f"{label}: {verb} {count:,} before {when[horizon]}{extra}")
    return lines or ["nothing to prune: every row is within its retention"]
