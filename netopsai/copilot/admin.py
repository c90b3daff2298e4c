"""The operator's door: what the CLI's operator commands (db, ingest, lab, jobs, snapshots,
incidents, devices, netns, poll, config) do to the store and to incident memory, in one place in
the copilot room. Front ends reach the store, the planner and the diagnosis only through this
room (the import contract in pyproject.toml), so each function here wraps one call the commands
made directly before, with the same arguments, results and errors: a door, not a new behaviour.

The store itself comes from `netopsai.copilot.frontend.store_engine` (NETOPSAI_HOME's, or
DATABASE_URL's); the functions below take it. The CLI imports this module inside its commands
(it opens the store's engine module: SQLAlchemy), so `netopsai --help` stays quick."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

# re-exported for the commands: the store out of reach (its URL, password hidden, and the
# driver's reason), which `config check` tells apart from the other errors
from netopsai.store.engine import StoreUnreachable as StoreUnreachable

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from netopsai.config.services import RetentionSettings
    from netopsai.config.settings import StoreSettings
    from netopsai.store.jobs_import import Imported
    from netopsai.store.retention import PeriodicPrune
    from netopsai.store.tables import DeviceSnapshot, Incident, Job
    from netopsai.store.writer import WriterStats as WriterStats  # what `ingest` reports at stop


# the store: where it is, whether it opens
def store_at(url: str) -> Engine:
    """The store at `url`, opened as every front end opens it (an SQLite store gets this
    release's schema), without making its folder: `config check` asks what it holds."""
    from netopsai.store.engine import engine_for

    return engine_for(url)


def make_store_dir(store: StoreSettings) -> None:
    """The SQLite file's folder, NETOPSAI_HOME closed to other users (ingest's spool lives
    there too)."""
    from netopsai.store.engine import make_store_dir as make

    make(store)


def reachable_store(store: StoreSettings) -> Engine:
    """The store of `store.url` once a connection opens, else StoreUnreachable: one line naming
    the store before `ingest --file` reads anything."""
    from netopsai.store.engine import check_reachable, engine_for

    return check_reachable(engine_for(store.url))


# the schema (Alembic)
def schema_revision(engine: Engine) -> str | None:
    """The store's schema revision (None: a store with no schema yet)."""
    from netopsai.store import migrate

    return migrate.current(engine)


def schema_head() -> str:
    """This release's schema revision."""
    from netopsai.store import migrate

    return migrate.head()


def schema_history() -> list[tuple[str, str]]:
    """Every schema revision with what it did, oldest first."""
    from netopsai.store import migrate

    return migrate.history()


def schema_upgrade(engine: Engine) -> str:
    """Bring the store to this release's schema, asked for (`netopsai db upgrade`: a
    PostgreSQL store is upgraded only so); the revision it is at after."""
    from netopsai.store import migrate

    return migrate.upgrade(engine, explicit=True)


# retention
def prune_lines(engine: Engine, policy: RetentionSettings, zone: str, dry: bool) -> list[str]:
    """Apply `retention:` once (`dry`: count, change nothing) and say what went, a line per
    table, its horizons on the network's clock (`zone`)."""
    from netopsai.store.retention import describe, prune

    return describe(prune(engine, policy, dry=dry), zone)


def periodic_prune(engine: Engine, policy: RetentionSettings, zone: str) -> PeriodicPrune:
    """Retention for a service that loops (poll): its `tick(say)` prunes when due."""
    from netopsai.store.retention import PeriodicPrune

    return PeriodicPrune(engine, policy, zone=zone)


async def prune_periodically(engine: Engine, policy: RetentionSettings,
                             say: Callable[[str], None], zone: str) -> None:
    """Retention for an asyncio service (ingest), off the event loop, until cancelled."""
    from netopsai.store.retention import prune_periodically as run

    await run(engine, policy, say, zone=zone)


# compute jobs
def import_jobs(engine: Engine, path: Path, fmt: str | None, label: str | None) -> Imported:
    """Store a scheduler's export (checked whole first: a bad file stores nothing)."""
    from netopsai.store.jobs_import import import_jobs as store_jobs

    return store_jobs(engine, path, fmt, label)


def list_jobs(engine: Engine, at: datetime | None = None) -> list[Job]:
    """The stored jobs, the latest start first; with `at`, those running then."""
    from netopsai.store.jobs_import import list_jobs as jobs

    return jobs(engine, at)


# device snapshots
def snapshot_row(snap: DeviceSnapshot) -> dict[str, Any]:
    """A snapshot as its listing row (when, why, what was read and not, the config's diff)."""
    from netopsai.store.snapshots import summary_row

    return summary_row(snap)


def device_snapshot_rows(engine: Engine, device: str, limit: int) -> list[dict[str, Any]]:
    """A device's snapshots, newest first, at most `limit`, as their listing rows."""
    from netopsai.store.snapshots import device_snapshots, summary_row

    return [summary_row(s) for s in device_snapshots(engine, device, limit)]


def describe_snapshot(row: dict[str, Any]) -> str:
    """A snapshot's listing row in one line of words."""
    from netopsai.store.snapshots import describe

    return describe(row)


def snapshot_device_names(engine: Engine) -> set[str]:
    """Every device a snapshot may be of: the inventory's and those snapshots were taken of
    (a configured device need not be in the inventory)."""
    from sqlmodel import Session, select

    from netopsai.store import tables as m

    with Session(engine) as s:
        return set(s.exec(select(m.Device.name))) | set(
            s.exec(select(m.DeviceSnapshot.device).distinct()))


# incident memory
def import_incidents(path: Path) -> int:
    """Load past incidents from a YAML or JSON list into NETOPSAI_HOME's incident memory
    (made when missing), each label checked against the taxonomy; how many were loaded."""
    from netopsai.diagnosis.history import import_history
    from netopsai.diagnosis.memory import default_memory
    from netopsai.diagnosis.taxonomy import load_taxonomy

    memory = default_memory(create=True)
    assert memory is not None
    return import_history(memory, path, load_taxonomy().labels())


def incidents() -> list[Incident]:
    """The incidents in memory, oldest first (none when there is no memory yet: reading it
    never creates it)."""
    from netopsai.diagnosis.memory import default_memory

    memory = default_memory()
    return memory.all() if memory else []
