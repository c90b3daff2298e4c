"""The lab's facts (spec, scale, seed, clock, state version), read in one query. Apart from
manage.py, whose generators (spec, topology, noise, log lines, jobs) a reader of the lab never
needs: the lab backends import only this (issue 28 item 4: ~10 ms of a cold `ask`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine, select
from sqlalchemy.exc import OperationalError

from netopsai.common.errors import NetopsError
from netopsai.common.timewin import parse_time
from netopsai.store import tables as models


@dataclass(frozen=True)
class LabInfo:
    spec: str
    scale: str
    seed: int
    clock: datetime
    version: str


def lab_info(engine: Engine) -> LabInfo:
    """The lab's facts, read in one query (every tool call asks for the clock and version): a
    Core statement over the table's columns, the ORM's compile spared (RESULTS "cold-ask-21")."""
    t = models.Meta.__table__.c  # type: ignore[attr-defined]
    try:
        with engine.connect() as c:
            meta = {key: value for key, value in c.execute(select(t.key, t.value))}
    except OperationalError:  # no tables yet
        meta = {}
    if "clock" not in meta:
        raise NetopsError("no lab in the store; run 'netopsai lab init' first")
    return LabInfo(spec=meta.get("spec", "default"), scale=meta.get("scale", "small"),
                   seed=int(meta.get("seed", 0)), clock=parse_time(meta["clock"], datetime.now(UTC)),
                   version=meta.get("version", ""))
