"""What network the store holds: the embedded lab (its own clock) or a real one (the wall clock).

The inventory writers mark a real network with Meta `network=real` (netopsai.store.inventory_sync); a
store made by `lab init` has a lab clock and no such key."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from sqlalchemy import Engine, func, select
from sqlalchemy.exc import OperationalError

from netopsai.common.errors import NetopsError
from netopsai.common.timewin import parse_time
from netopsai.store import tables as m

NETWORK_KEY = "network"
NETNS_KEY = "netns_lab"  # set by `netopsai lab netns up` (netopsai.backends.netns.lab)
NO_NETWORK = ("no lab or real network in the store; run 'netopsai lab init' first, or import, "
              "discover or poll a real network")


# Core statements over the tables' columns, not ORM ones: the same SQL without the ORM's
# per-statement compile, and a cold `ask` whose reads are all Core never maps the 28 tables
# (~15 ms; RESULTS "cold-ask-21").
def _meta(engine: Engine) -> dict[str, str]:
    t = m.Meta.__table__.c  # type: ignore[attr-defined]
    try:
        with engine.connect() as c:
            return {key: value for key, value in c.execute(select(t.key, t.value))}
    except OperationalError:  # no tables yet
        return {}


def _has_devices(engine: Engine) -> bool:
    try:
        with engine.connect() as c:
            return c.execute(select(func.count()).select_from(m.Device.__table__)).scalar_one() > 0  # type: ignore[attr-defined]
    except OperationalError:
        return False


def network_kind(engine: Engine) -> Literal["lab", "real"]:
    """'lab' or 'real'; a clear NetopsError when the store holds no network at all."""
    return _kind(engine, _meta(engine))


def _kind(engine: Engine, meta: dict[str, str]) -> Literal["lab", "real"]:
    if meta.get(NETWORK_KEY) == "real":
        return "real"
    if "clock" in meta:
        return "lab"
    if _has_devices(engine):  # filled by a writer that did not mark it: it is not the lab
        return "real"
    raise NetopsError(NO_NETWORK)


def network_clock(engine: Engine) -> datetime:
    """'Now' for tool windows: the lab clock for the lab, the wall clock for a real network."""
    meta = _meta(engine)
    if _kind(engine, meta) == "real":
        return datetime.now(UTC)
    return parse_time(meta["clock"], datetime.now(UTC))


def has_netns_lab(engine: Engine) -> bool:
    """The store describes a namespace lab that `lab netns up` built on this machine."""
    return NETNS_KEY in _meta(engine)
