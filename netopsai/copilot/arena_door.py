"""The arena's door into the store and the diagnosis (issue 27 item 2: a front end reaches them
only through the copilot room). NetOpsArena builds scratch labs and reads them back to place its
faults (places.py, healthy.py, generate_ai.py), runs every scenario with an incident memory and
taxonomy of its own (run.py), judges our answers with the diagnosis's consistency check
(score.py), and runs the diagnosis engine alone as a baseline (baselines.py). Each of those
reads is here, word for word the query the arena ran itself (same filters, same order), so
moving them changed no scenario and no score; rows come back as plain dicts and values, never
as the store's table classes, so the arena names no store type."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlmodel import Session, col, select

from netopsai.store import tables as m

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from netopsai.diagnosis.knowledge import Knowledge


@dataclass(frozen=True)
class RunningJob:
    """A job still running in the lab (no end): the scheduler's id and its host names."""

    id: str
    hosts: list[str]


def lab_store(url: str) -> Engine:
    """The store at `url` (a scratch lab's SQLite file): the store's own engine, cached per URL
    and brought to this release's schema, as every other front end opens it."""
    from netopsai.store.engine import engine_for

    return engine_for(url)


def device_roles(engine: Engine) -> dict[str, str]:
    """Every device's role by name."""
    with Session(engine) as s:
        return {d.name: d.role for d in s.exec(select(m.Device))}


def device_names(engine: Engine, role: str) -> list[str]:
    """The names of the devices of one role, sorted."""
    with Session(engine) as s:
        return sorted(d.name for d in s.exec(select(m.Device).where(m.Device.role == role)))


def host_rows(engine: Engine) -> list[dict[str, Any]]:
    """Every host address row (ip, device, tor, segment, pod, site, ...) by address."""
    with Session(engine) as s:
        return [h.model_dump() for h in s.exec(select(m.HostAddress).order_by(m.HostAddress.ip))]


def link_rows(engine: Engine) -> list[dict[str, Any]]:
    """Every link row (both ends, kind), by id."""
    with Session(engine) as s:
        return [lk.model_dump() for lk in s.exec(select(m.Link).order_by(col(m.Link.id)))]


def noise_inputs(engine: Engine) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The device rows and the non-host link rows lab inject draws its noise from, read as it
    reads them (no ordering asked, the same queries): the arena predicts that noise."""
    with Session(engine) as s:
        return ([d.model_dump() for d in s.exec(select(m.Device))],
                [lk.model_dump() for lk in s.exec(select(m.Link).where(m.Link.kind != "host"))])


def running_jobs(engine: Engine) -> list[RunningJob]:
    """The jobs with no end yet, by id."""
    with Session(engine) as s:
        jobs = sorted((j for j in s.exec(select(m.Job)) if j.end is None), key=lambda j: j.id)
        return [RunningJob(j.id, j.hosts) for j in jobs]


def arena_knowledge(home: Path, online: bool) -> Knowledge:
    """A run's own incident memory (HOME/incidents.db; none unless `online`) and the built-in
    taxonomy alone: a benchmark never reads, or writes, the user's incidents or taxonomy."""
    from netopsai.diagnosis.knowledge import Knowledge
    from netopsai.diagnosis.memory import IncidentMemory
    from netopsai.diagnosis.taxonomy import load_taxonomy

    memory = IncidentMemory.at(home / "incidents.db") if online else None
    return Knowledge(memory, load_taxonomy(extra=[]))


def contradictions(answer: str, evidence: list[dict[str, Any]], root_cause: dict[str, Any] | None,
                   question: str) -> list[str]:
    """What an answer's headline says against its own evidence rows: the diagnosis's
    consistency check (diagnosis/consistency.py), as the LLM summarizer's validator runs it."""
    from netopsai.diagnosis.consistency import contradictions as check

    return check(answer, evidence, root_cause, question)


def engine_strategy(name: str) -> tuple[Callable[..., Any] | None, str]:
    """The diagnosis engine's `diagnose` when it offers `strategy=name`, else None and why not
    (the arena's cvd and history baselines run it without the copilot's graph)."""
    import inspect

    try:
        from netopsai.diagnosis import engine
    except ImportError as exc:
        return None, f"netopsai.diagnosis.engine is not there ({exc})"
    fn = getattr(engine, "diagnose", None)
    if fn is None or "strategy" not in inspect.signature(fn).parameters:
        return None, "the engine's diagnose() takes no strategy"
    return fn, ""
