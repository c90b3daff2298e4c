"""Probe history: every pair a periodic batch check traced (`netopsai batch FILE --record`), with
the run's time and status, so the reliability report can count the minutes a pair was
unreachable. Each end's device, site and PoD are resolved when the row is written: the report
reads them as they were then, and never traces again.

Kept in its own module (tables/ is the core schema and long enough); the store package
imports it, so the table is on SQLModel.metadata wherever the store's tables are."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import Engine, Index, and_, func, select
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Field, Session, SQLModel

from netopsai.common.errors import NetopsError
from netopsai.common.timewin import Window, as_utc
from netopsai.store.tables.columns import LAZY

CHUNK = 500  # rows per transaction: a 10,000-pair run is 20 short commits, not 10,000
LOOKBACK = timedelta(days=1)  # a probe this long before a window may still reach into it


class ProbeResult(SQLModel, table=True):
    """One pair's result in one recorded batch run. `at` is the run's time (the network's clock:
    the lab's for the lab), the same for every pair of the run."""
    model_config = LAZY

    __table_args__ = (Index("ix_probe_at", "at"), Index("ix_probe_pair_at", "src", "dst", "at"))
    id: int | None = Field(default=None, primary_key=True)
    at: datetime
    src: str
    dst: str
    status: str  # reachable | degraded | unreachable | error (batch/check.py PairResult.status)
    src_device: str | None = None  # the inventory's owner of the address when recorded
    dst_device: str | None = None
    src_site: str | None = None
    src_pod: str | None = None
    dst_site: str | None = None
    dst_pod: str | None = None
    failing_device: str | None = None
    cause: str | None = None


_T = ProbeResult.__table__  # type: ignore[attr-defined]


class _Result(Protocol):  # what is recorded of a batch result (batch.check.PairResult)
    src: str
    dst: str
    status: str
    failing_device: str | None
    cause: str | None


Owner = Callable[[str], Mapping[str, object]]  # address -> device, site, pod (Inventory.ip_owner)


def check_writable(engine: Engine) -> None:
    """Fail before a long run rather than after it: one row written and rolled back (a missing
    table, a read-only file or database user fail here as they would at the end)."""
    try:
        with engine.connect() as conn, conn.begin() as tx:
            conn.execute(_T.insert(), {"at": datetime.now(UTC), "src": "", "dst": "",
                                       "status": "error"})
            tx.rollback()
    except SQLAlchemyError as exc:
        raise NetopsError(f"cannot record probe results in the store: {_first_line(exc)}") from None


def record(engine: Engine, results: Iterable[_Result], at: datetime, owner: Owner) -> int:
    """Store every result with the run's time `at`; returns the rows written. A store that
    refuses the rows is one NetopsError (the chunks already committed stay)."""
    where = _Places(owner)
    rows = [{"at": as_utc(at), "src": r.src, "dst": r.dst, "status": r.status,
             "failing_device": r.failing_device, "cause": r.cause,
             **where.of("src", r.src), **where.of("dst", r.dst)} for r in results]
    try:
        for batch in _chunks(rows, CHUNK):
            with Session(engine) as s:
                s.execute(_T.insert(), batch)
                s.commit()
    except SQLAlchemyError as exc:
        raise NetopsError(f"cannot record probe results in the store: {_first_line(exc)}") from None
    return len(rows)


class _Places:
    """Each address resolved once per run (a run probes the same sources many times)."""

    def __init__(self, owner: Owner) -> None:
        self.owner, self.seen = owner, dict[str, dict[str, Any]]()

    def of(self, end: str, ip: str) -> dict[str, Any]:
        if ip not in self.seen:
            o: Mapping[str, object] = {}
            with suppress(NetopsError):  # an address outside the inventory: recorded, in no scope
                o = self.owner(ip)
            self.seen[ip] = {"device": o.get("device"), "site": o.get("site"), "pod": o.get("pod")}
        return {f"{end}_{k}": v for k, v in self.seen[ip].items()}


def _chunks(rows: list[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    for i in range(0, len(rows), size):
        yield rows[i:i + size]


def _first_line(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    return (str(orig).strip().splitlines() or [type(orig).__name__])[0][:200]


@dataclass(frozen=True)
class Outage:
    """An unreachable probe: from `at` until the pair's next probe (None: none yet)."""

    at: datetime
    next_at: datetime | None
    src: str
    dst: str
    sites: frozenset[str]
    pods: frozenset[str]


def unreachable(engine: Engine, window: Window) -> list[Outage]:
    """The unreachable probes whose time could reach into the window (from LOOKBACK before its
    start to its end), each with its pair's next probe of any status: one indexed query."""
    nxt = _T.alias("nxt")
    next_at = (select(func.min(nxt.c.at))
               .where(and_(nxt.c.src == _T.c.src, nxt.c.dst == _T.c.dst, nxt.c.at > _T.c.at))
               .scalar_subquery())
    q = select(_T.c.at, next_at, _T.c.src, _T.c.dst, _T.c.src_site, _T.c.dst_site, _T.c.src_pod,
               _T.c.dst_pod).where(_T.c.status == "unreachable", _T.c.at >= window.start - LOOKBACK,
                                   _T.c.at <= window.end)
    with Session(engine) as s:
        return [Outage(at=as_utc(at), next_at=as_utc(n) if n is not None else None, src=src,
                       dst=dst, sites=frozenset(x for x in (ss, ds) if x),
                       pods=frozenset(x for x in (sp, dp) if x))
                for at, n, src, dst, ss, ds, sp, dp in s.execute(q)]
