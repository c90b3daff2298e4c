"""Per-port counter figures computed in the database: sums, the largest 5-minute figure and the
last one, over 5-minute samples or over hourly roll-ups. One definition serves both the roll-up
(netopsai.store.retention writes an hour's figures as a CounterRollup) and the telemetry reader
(netopsai.store.telemetry reads a window's), so the two cannot drift apart. In SQL rather than
Python: a PoD over 30 days is millions of samples, which the database sums in a fraction of the
time it takes to hand them over one by one."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Select, case, cast, func, literal, select
from sqlalchemy.sql import ColumnElement

from netopsai.store import tables as m

S = m.CounterSample.__table__  # type: ignore[attr-defined]
R = m.CounterRollup.__table__  # type: ignore[attr-defined]

# a sample's own figures; `io` is the larger of in and out octets in its 5 minutes
_SAMPLE: dict[str, Any] = {
    "in_octets": S.c.in_octets, "out_octets": S.c.out_octets, "errors": S.c.in_errors,
    "crc": S.c.crc_errors, "disc": S.c.in_discards + S.c.out_discards,
    "io": case((S.c.in_octets >= S.c.out_octets, S.c.in_octets), else_=S.c.out_octets),
    "rx": S.c.rx_power_dbm}
# a roll-up's figures under the names the aggregates below read
_ROLLUP: dict[str, Any] = {
    "n": R.c.samples, "errors": R.c.in_errors, "crc": R.c.crc_errors, "disc": R.c.discards,
    "io": R.c.io_sum, "errors_max": R.c.errors_max, "disc_max": R.c.discards_max,
    "io_max": R.c.io_max, "errors_last": R.c.errors_last, "disc_last": R.c.discards_last,
    "io_last": R.c.io_last, "rx_min": R.c.rx_min, "rx_sum": R.c.rx_sum, "rx_n": R.c.rx_samples,
    "rx": R.c.rx_last}

Shape = Callable[[Select[Any]], Select[Any]]  # narrows the rows ranked (scope, one interface)


def _ranked(table: Any, values: dict[str, Any], start: datetime, end: datetime,
            shape: Shape, by_source: bool) -> Any:
    """The rows in (start, end] with their rank from the newest (`rank`), and from the newest
    that has an rx reading (`rank_rx`), per port."""
    part = (table.c.device, table.c.interface, *((table.c.source,) if by_source else ()))
    newest = (table.c.at.desc(), table.c.id.desc())
    no_rx = case((values["rx"].is_(None), 1), else_=0)
    q = select(table.c.device, table.c.interface, table.c.source,
               *(v.label(k) for k, v in values.items()),
               func.row_number().over(partition_by=part, order_by=newest).label("rank"),
               func.row_number().over(partition_by=part, order_by=(no_rx, *newest)).label("rank_rx"),
               ).where(table.c.at > start, table.c.at <= end)
    return shape(q).subquery()


def _total(c: ColumnElement[Any]) -> Any:
    return cast(func.sum(c), BigInteger)  # PostgreSQL sums BIGINT as NUMERIC (Decimal)


def _figures(q: Any, rolled: bool) -> dict[str, Any]:
    def last(c: ColumnElement[Any], rank: Any = q.c.rank) -> Any:
        return func.max(case((rank == 1, c)))

    if rolled:
        n, most = _total(q.c.n), {k: func.max(q.c[k]) for k in ("errors_max", "disc_max", "io_max")}
        lasts = {k: last(q.c[k]) for k in ("errors_last", "disc_last", "io_last")}
        rx = {"rx_min": func.min(q.c.rx_min), "rx_sum": func.coalesce(func.sum(q.c.rx_sum), 0.0),
              "rx_n": _total(q.c.rx_n)}
    else:
        n = func.count()
        most = {f"{k}_max": func.max(q.c[k]) for k in ("errors", "disc", "io")}
        lasts = {f"{k}_last": last(q.c[k]) for k in ("errors", "disc", "io")}
        rx = {"rx_min": func.min(q.c.rx), "rx_sum": func.coalesce(func.sum(q.c.rx), 0.0),
              "rx_n": func.count(q.c.rx)}
    return {"n": n, **{k: _total(q.c[k]) for k in ("errors", "crc", "disc", "io")}, **most,
            **lasts, **rx, "rx_last": last(q.c.rx, q.c.rank_rx)}


def _keep(q: Select[Any]) -> Select[Any]:
    return q


def port_figures(start: datetime, end: datetime, rolled: bool, shape: Shape = _keep) -> Select[Any]:
    """SELECT device, interface, n, errors, crc, disc, io, errors_max, disc_max, io_max,
    errors_last, disc_last, io_last, rx_min, rx_sum, rx_n, rx_last: one row per port over
    (start, end], from roll-ups when `rolled`, else from samples."""
    table, values = (R, _ROLLUP) if rolled else (S, _SAMPLE)
    q = _ranked(table, values, start, end, shape, by_source=False)
    figs = _figures(q, rolled)
    return select(q.c.device, q.c.interface, *(v.label(k) for k, v in figs.items())
                  ).group_by(q.c.device, q.c.interface)


def rollup_insert(start: datetime, end: datetime) -> Any:
    """INSERT INTO counterrollup SELECT …: one row per port and source for samples in (start, end]."""
    q = _ranked(S, _SAMPLE, start, end, _keep, by_source=True)
    figs = _figures(q, rolled=False)
    names = {"n": "samples", "errors": "in_errors", "crc": "crc_errors", "disc": "discards",
             "io": "io_sum", "disc_max": "discards_max", "disc_last": "discards_last",
             "rx_n": "rx_samples"}
    values = {"device": q.c.device, "interface": q.c.interface, "source": q.c.source,
              "at": literal(end, type_=R.c.at.type), "in_octets": _total(q.c.in_octets),
              "out_octets": _total(q.c.out_octets),
              **{names.get(k, k): v for k, v in figs.items()}}
    sel = select(*(v.label(k) for k, v in values.items())).group_by(
        q.c.device, q.c.interface, q.c.source)
    return R.insert().from_select(list(values), sel)
