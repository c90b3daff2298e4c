"""Retention: how much history the store keeps (config `retention:`, `netopsai db prune`, and a
periodic prune in ingest and poll).

Counter samples are rolled up as they age: every hour that ended (plus a grace for the last
poll) becomes one CounterRollup per port, and Meta `samples_rolled_through` says up to where.
The telemetry reader then takes whole hours from roll-ups and only a window's edges from the
5-minute samples, so 30 days cost hundreds of rows per port, not thousands. Samples older than
`samples_days` are then deleted (Meta `samples_pruned_through`); before that, the reader reads
roll-ups at hourly detail. Each hour's roll-up commits with its mark, so a prune stopped halfway
is simply run again. Other tables are deleted in chunks, so a first prune of a years-old store
does not hold a lock for minutes. Everything is portable SQL, the same on SQLite and PostgreSQL."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, and_, delete, exists, func, or_, select
from sqlalchemy.sql import ColumnElement
from sqlmodel import Session

from netopsai.common.localtime import at
from netopsai.common.timewin import as_utc
from netopsai.config.network import RetentionSettings
from netopsai.store import tables as m
from netopsai.store.engine import get_meta, has_lab, set_meta
from netopsai.store.figures import R, S, rollup_insert
from netopsai.store.probes import ProbeResult

ROLLED_THROUGH = "samples_rolled_through"  # Meta: every hour ending at or before it is rolled up
PRUNED_THROUGH = "samples_pruned_through"  # Meta: no 5-minute sample at or before it is kept
HOUR = timedelta(hours=1)
GRACE = timedelta(minutes=10)  # an hour is rolled up this long after it ends: its last poll is in
CHUNK = 20_000  # rows per delete: short transactions beside ingest's and poll's writers

@dataclass
class PruneReport:
    """Rows taken out of (or, dry, due to leave) each table."""

    samples: int = 0
    rollups_written: int = 0
    rollups: int = 0
    raw_events: int = 0
    interface_events: int = 0
    alarms: int = 0
    acks: int = 0
    probes: int = 0
    dry: bool = False
    lab: bool = False  # the embedded lab: its history is the simulator's, on its own clock
    horizons: dict[str, datetime] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self)
                   if f.name not in ("rollups_written", "dry", "lab", "horizons"))


def horizons(engine: Engine) -> tuple[datetime | None, datetime | None]:
    """(rolled through, pruned through): hours ending at or before the first are in roll-ups;
    no 5-minute sample at or before the second is kept."""
    with Session(engine) as s:
        rolled, pruned = get_meta(s, ROLLED_THROUGH), get_meta(s, PRUNED_THROUGH)
    return _time(rolled), _time(pruned)


def _time(value: str | None) -> datetime | None:
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

    if not dry:
        rep.rollups_written = _roll_up(engine, _floor(now - GRACE))
    if (horizon := cut(policy.samples_days, "samples")) is not None:
        rep.samples = _prune_samples(engine, _floor(horizon), dry)
        rep.horizons["samples"] = _floor(horizon)
    if (t := cut(policy.rollups_days, "rollups")) is not None:
        rep.rollups = _delete(engine, R, R.c.at < t, dry)
    if (t := cut(policy.raw_events_days, "raw_events")) is not None:
        raw = m.RawEvent.__table__  # type: ignore[attr-defined]
        rep.raw_events = _delete(engine, raw, raw.c.received_at < t, dry)
    if (t := cut(policy.interface_events_days, "interface_events")) is not None:
        rep.interface_events = _delete(engine, _IFE, _superseded(t), dry)
    if (t := cut(policy.closed_alarms_days, "closed_alarms")) is not None:
        rep.alarms, rep.acks = _prune_alarms(engine, t, dry)
    if (t := cut(policy.probes_days, "probes")) is not None:
        rep.probes = _delete(engine, _PROBE, _PROBE.c.at < t, dry)
    return rep


# ---------------------------------------------------------------- counter samples -> roll-ups

def _roll_up(engine: Engine, through: datetime) -> int:
    """Roll up each hour with samples after the mark, up to `through`; the roll-ups written."""
    with Session(engine) as s:
        before = s.execute(select(func.count()).select_from(R)).scalar_one()
        mark = _time(get_meta(s, ROLLED_THROUGH))
    while True:
        with Session(engine) as s:
            q = select(func.min(S.c.at)).where(S.c.at <= through)
            first = s.execute(q if mark is None else q.where(S.c.at > mark)).scalar_one()
            if first is None:
                break
            end = hour_end(as_utc(first))
            s.execute(rollup_insert(end - HOUR, end))
            _advance(s, ROLLED_THROUGH, end)
            s.commit()
            mark = end
    with Session(engine) as s:
        _advance(s, ROLLED_THROUGH, through)  # the empty hours are rolled up too: they are empty
        s.commit()
        # counted, not summed: psycopg gives no rowcount for INSERT … SELECT
        return int(s.execute(select(func.count()).select_from(R)).scalar_one() - before)


def _prune_samples(engine: Engine, horizon: datetime, dry: bool) -> int:
    """Samples at or before `horizon` whose hour is rolled up (all of them, once `prune` rolled)."""
    rolled, _ = horizons(engine)
    if rolled is None and not dry:
        return 0
    upto = horizon if dry or rolled is None else min(horizon, rolled)
    gone = _delete(engine, S, S.c.at <= upto, dry)
    if not dry:
        with Session(engine) as s:
            _advance(s, PRUNED_THROUGH, upto)
            s.commit()
    return gone


def _rows(result: Any) -> int:
    """Rows a DELETE touched (a CursorResult's rowcount)."""
    return int(result.rowcount)


def _advance(s: Session, key: str, to: datetime) -> None:
    """Move a mark forward, never back."""
    was = _time(get_meta(s, key))
    if was is None or was < to:
        set_meta(s, key, to.isoformat())


def _floor(at: datetime) -> datetime:
    return at.replace(minute=0, second=0, microsecond=0)


def hour_end(at: datetime) -> datetime:
    """The end of the hour a sample belongs to: a sample ends its 5 minutes at `at`."""
    return at if _floor(at) == at else _floor(at) + HOUR


# ---------------------------------------------------------------- the other tables

_IFE = m.InterfaceEvent.__table__  # type: ignore[attr-defined]
_PROBE = ProbeResult.__table__  # type: ignore[attr-defined]


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
                 clock: Callable[[], float] = time.monotonic, zone: str = "UTC") -> None:
        self.engine, self.policy, self.clock = engine, policy, clock
        self.zone = zone  # the network's (ingest.timezone): what it says, it says on that clock
        self.every_s = policy.prune_every_minutes * 60
        self.next_at: float | None = clock() if self.every_s else None

    def run_if_due(self) -> PruneReport | None:
        if self.next_at is None or self.clock() < self.next_at:
            return None
        self.next_at = self.clock() + self.every_s
        return prune(self.engine, self.policy)

    def tick(self, say: Callable[[str], None]) -> None:
        """Prune if due and say what changed. A failure is said, not raised: the service's own
        work (receiving, polling) matters more, and the next interval tries again."""
        try:
            rep = self.run_if_due()
        except Exception as exc:  # noqa: BLE001
            say(f"prune failed, retrying in {self.policy.prune_every_minutes} min: "
                f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
            return
        if rep is not None and (rep.total or rep.rollups_written):
            for line in describe(rep, self.zone):
                say(f"prune: {line}")


async def prune_periodically(engine: Engine, policy: RetentionSettings,
                             say: Callable[[str], None], check_every_s: float = 60.0,
                             zone: str = "UTC") -> None:
    """For an asyncio service (ingest): PeriodicPrune off the event loop, until cancelled."""
    import asyncio

    pruner = PeriodicPrune(engine, policy, zone=zone)
    while pruner.next_at is not None:
        await asyncio.to_thread(pruner.tick, say)
        await asyncio.sleep(check_every_s)


def describe(rep: PruneReport, zone: str = "UTC") -> list[str]:
    """One line per table that lost (or would lose) rows, for the CLI and the services' logs;
    each horizon on the network's clock (`zone`), its zone named, UTC beside."""
    if rep.lab:
        return ["the store holds the embedded lab, whose history is the simulator's: "
                "nothing pruned"]
    verb = "would remove" if rep.dry else "removed"
    when = {k: at(v, zone, beside=True) for k, v in rep.horizons.items()}
    lines = []
    if rep.rollups_written:
        lines.append(f"hourly roll-ups: wrote {rep.rollups_written:,}")
    if rep.samples:
        lines.append(f"5-minute counter samples: {verb} {rep.samples:,} up to {when['samples']} "
                     "(their hourly roll-ups stay)")
    for name, horizon, label in (("rollups", "rollups", "hourly roll-ups"),
                                 ("raw_events", "raw_events", "raw events"),
                                 ("interface_events", "interface_events", "port transitions"),
                                 ("alarms", "closed_alarms", "closed alarms"),
                                 ("probes", "probes", "probe results")):
        count = getattr(rep, name)
        if count:
            extra = f" (and {rep.acks:,} acknowledgements)" if name == "alarms" and rep.acks else ""
            lines.append(f"{label}: {verb} {count:,} before {when[horizon]}{extra}")
    return lines or ["nothing to prune: every row is within its retention"]
