"""The shared cause wins (issue 25 item 4): a dead neighbour under a spine's down port is the
answer to "what's wrong with the spine?", and the spine's own confirmed fault leads the answer as
its effect (never "looks healthy"); a dead rail leaf under every NIC of a job is the job's cause
(two jobs on one leaf: both), the NICs' link-downs its effects. Embedded labs, real engine."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.common.hostlist import compress
from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai.diagnosis.consistency import contradictions
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario
from netopsai.store.engine import engine_for
from netopsai.tools.registry import run_tool

SPINE = "dc1-spine-04"
RAIL_LEAF = "dc1-gpu1-rail3-leaf02"  # the rail-3 leaf of dc1-gpu1-009 .. 016
JOBS = {"4711": ["dc1-gpu1-009", "dc1-gpu1-010", "dc1-gpu1-011", "dc1-gpu1-012"],
        "4740": ["dc1-gpu1-013", "dc1-gpu1-014"]}


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def answer(engine: Any, faults: list[dict[str, Any]], question: str, spec: dict[str, Any],
           now: str) -> dict[str, Any]:
    inject(engine, Scenario.model_validate({"id": "shared", "lab": spec, "now": now,
                                            "question": question, "faults": faults}))
    r = Copilot(lab_backends(engine)).answer(question, "t")
    assert validate_citations(r["answer"], {e["id"] for e in r["evidence"]}) == []
    assert contradictions(r["answer"], r["evidence"], r["root_cause"], question) == []
    return r


@pytest.mark.parametrize("role", ["leaf", "superspine"])
def test_a_dead_neighbour_is_the_spines_answer_and_its_down_port_leads(
        make_lab: Any, backends: Any, role: str) -> None:
    link = next(r for r in run_tool("metadata", {"query": "neighbors", "name": SPINE},
                                    backends).rows if r["neighbor"].startswith(f"dc1-{role}"))
    engine = make_lab()
    q = f"what's wrong with {SPINE}?"
    r = answer(engine, [{"kind": "device_down", "at": "-20m",
                         "target": {"device": link["neighbor"]}}], q,
               {"spec": "default", "scale": "small", "seed": 7}, lab_info(engine).clock)
    assert (r["root_cause"]["label"], r["root_cause"]["device"]) == ("device.down", link["neighbor"])
    head = r["answer"].split("\n", 1)[0]
    assert head.startswith(f"**Fault on {SPINE}: yes** — a link is down at {SPINE} "
                           f"{link['interface']}, an effect of the cause below")
    assert f"**Likely root cause: a device is down at {link['neighbor']}**" in head
    assert "looks healthy" not in r["answer"] and "No fault found" not in r["answer"]
    # the spine's own open alarm is what the old "looks healthy" headline contradicted
    old = f"**No fault found on {SPINE}.** {SPINE} looks healthy [E1]\n\n" + r["answer"]
    assert any(f"open LINK_DOWN on {SPINE} {link['interface']}" in p
               for p in contradictions(old, r["evidence"], r["root_cause"], q))


@pytest.mark.parametrize("job", sorted(JOBS))
def test_two_jobs_on_one_dead_rail_leaf_each_name_the_leaf(tmp_path: Path, job: str) -> None:
    engine = engine_for(f"sqlite:///{tmp_path / 'ai.db'}")
    q = f"job {job} hit an NCCL timeout"
    r = answer(engine, [{"kind": "device_down", "at": "-20m", "target": {"device": RAIL_LEAF}}],
               q, {"spec": "ai", "scale": "small", "seed": 7}, "2025-11-04T20:00:00Z")
    assert (r["root_cause"]["label"], r["root_cause"]["device"]) == ("device.down", RAIL_LEAF)
    head = r["answer"].split("\n", 1)[0]
    assert "an open unreachable alarm since" in head
    cited = {e["tool"] for e in r["evidence"] if e["id"] in re.findall(r"E\d+", head)}
    assert {"alarms", "telemetry"} <= cited
    alarms = next(e for e in r["evidence"] if e["tool"] == "alarms")
    assert any(a["device"] == RAIL_LEAF and a["kind"] == "DEVICE_UNREACHABLE" for a in alarms["rows"])
    effects = [x for x in r["answer"].splitlines() if x.startswith("- caused by it: ")]
    assert effects and all(any(h in x for h in JOBS[job]) for x in effects)
    assert not any(x.startswith("- also: ") and RAIL_LEAF in x for x in r["answer"].splitlines())
    impact = next(x for x in r["answer"].splitlines() if x.startswith("- **Impact:**"))
    assert f"affected: {compress(JOBS[job])} " in impact  # every host behind the leaf, not one
