"""ECMP placement of a job's flows (issue 15 §2): each rail's ring placed by the fabric's flow
hash — the uplink a trace leaves the source leaf by — and a hot uplink named with the job's flows
on it and its idle siblings. The expected placement is read here from plain traceroutes on the
lab's paths backend, not from the code under test."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai.diagnosis.job_ecmp import Placement, ring, uplink_story
from netopsai.lab.inject import inject
from netopsai.lab.scenario import Scenario
from netopsai.store.engine import engine_for
from netopsai.store.jobs_import import store_jobs

NOW = datetime(2025, 11, 4, 20, tzinfo=UTC)
HOSTS = [f"dc1-gpu1-{i:03d}" for i in range(1, 17)]  # both leaves of every rail
JOB = "5000"


def test_ring_and_placement_basics() -> None:
    assert ring(1) == [] and ring(2) == [(0, 1), (1, 0)] and ring(3) == [(0, 1), (1, 2), (2, 0)]
    p = Placement()
    hop = {"device": "leaf1", "out_interface": "Ethernet9"}
    p.add(2, "a", "b", {"reached": True, "hops": [hop]})
    p.add(2, "c", "d", {"reached": True, "hops": [{"device": "leaf1", "out_interface": None}]})
    p.add(2, "e", "f", {"reached": False, "hops": [hop]})  # a failing pair carries nothing
    assert p.facts() == {"leaf1": {"Ethernet9": ["a→b (rail 2)"]}}
    story = uplink_story(p.facts(), "leaf1", "Ethernet9", {"Ethernet9": 98, "Ethernet10": 3})
    assert "puts 1 of the job's 1 ring flows" in story and "Ethernet10 (3%)" in story
    off = uplink_story(p.facts(), "leaf1", "Ethernet10", {"Ethernet9": 3, "Ethernet10": 98})
    assert "leave it by Ethernet9" in off and "alternatives" not in off


def _expected_ring_uplinks(b: Any, rail: int) -> dict[tuple[str, str], list[str]]:
    attach = {r["name"]: r for r in b.inventory.hosts(None, "dc1-gpu1", None)
              if f"rail{rail}-" in r["tor"]}
    out: dict[tuple[str, str], list[str]] = {}
    for i, h in enumerate(HOSTS):
        nxt = HOSTS[(i + 1) % len(HOSTS)]
        first = b.paths.traceroute(attach[h]["ip"], attach[nxt]["ip"], 60, None)["hops"][0]
        if first["out_interface"]:
            out.setdefault((first["device"], first["out_interface"]), []).append(f"{h}→{nxt}")
    return out


@pytest.fixture
def spanning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The small AI lab with a running job over both leaves of each rail, and an ECMP
    collision on the uplink its rail-2 ring hashes onto (found by tracing)."""
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))
    engine = engine_for(f"sqlite:///{tmp_path / 'ai.db'}")
    question = f"job {JOB} is slow"
    scenario = {"id": "ecmp", "lab": {"spec": "ai", "scale": "small", "seed": 7},
                "now": NOW.isoformat().replace("+00:00", "Z"), "question": question, "faults": []}
    inject(engine, Scenario.model_validate(scenario))
    store_jobs(engine, [{"id": JOB, "name": "span", "owner": "ops", "hosts": HOSTS,
                         "start": NOW - timedelta(hours=2), "end": None, "state": "RUNNING",
                         "source": "slurm"}])
    placed = _expected_ring_uplinks(lab_backends(engine), 2)
    (leaf, uplink), flows = max(placed.items(), key=lambda kv: len(kv[1]))
    engine = engine_for(f"sqlite:///{tmp_path / 'ai2.db'}")  # the same lab, with the fault
    inject(engine, Scenario.model_validate({**scenario, "faults": [
        {"at": "-25m", "kind": "ecmp_collision", "target": {"link": f"{leaf}:{uplink}"},
         "params": {"job": JOB}}]}))
    store_jobs(engine, [{"id": JOB, "name": "span", "owner": "ops", "hosts": HOSTS,
                         "start": NOW - timedelta(hours=2), "end": None, "state": "RUNNING",
                         "source": "slurm"}])
    return lab_backends(engine), question, leaf, uplink, flows


def test_a_collision_is_named_with_the_jobs_flows_and_idle_alternatives(spanning: Any) -> None:
    b, question, leaf, uplink, flows = spanning
    r = Copilot(b).answer(question, "ecmp")
    rc = r["root_cause"]
    assert (rc["label"], rc["device"], rc["interface"]) == ("link.ecmp_collision", leaf, uplink)
    assert validate_citations(r["answer"], {e["id"] for e in r["evidence"]}) == []
    head = r["answer"].split("\n", 1)[0]
    assert f"ring flows through {leaf} on {uplink}" in head, head
    for f in flows:
        assert f"{f} (rail 2)" in head
    siblings = {u for (lf, u) in _uplinks(b, leaf)} - {uplink}
    alternatives = head.split("idle alternatives carrying none of them:", 1)[1]
    assert siblings and all(u in alternatives for u in siblings - _used(r, leaf))
    rails = next(e for e in r["evidence"] if e["tool"] == "rail_traces")
    assert f"[{rails['id']}]" in head  # the placement is cited
    assert rc["confidence"] == pytest.approx(0.8)


def _uplinks(b: Any, leaf: str) -> set[tuple[str, str]]:
    return {(leaf, n["interface"]) for n in b.inventory.neighbors(leaf) if n["kind"] == "fabric"}


def _used(r: dict[str, Any], leaf: str) -> set[str]:
    rails = next(e for e in r["evidence"] if e["tool"] == "rail_traces")
    return set(rails["facts"]["placement"].get(leaf, {}))
