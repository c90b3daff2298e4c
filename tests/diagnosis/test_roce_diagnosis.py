"""Issue 15, the GPU fabric's faults outside job questions: the taxonomy's link.pfc_storm and
link.ecmp_collision, verified from the RoCE telemetry, named by a device question about the
storming leaf or host and by a flow question between two NICs whose path crosses the fault;
the planner routes RoCE wording (PFC, ECN, retransmits, "the rails") to those metrics; and
`metadata devices` lists GPU hosts apart from network devices, like other hosts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.scenario import Scenario
from netopsai.planner import Vocabulary, plan
from netopsai.store.engine import engine_for
from netopsai.tools.registry import run_tool
from tests.lab.test_ai_fabric import CLOCK, POD, new_ai_lab

HOST, LEAF = f"{POD}-010", f"{POD}-rail2-leaf02"  # HOST's mlx5_2 is LEAF's Ethernet2
FLOW = "10.160.10.11 to 10.160.2.10 not communicating"  # dc1-gpu1-009 (LEAF) -> -001 (leaf01)


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def _lab(factory: pytest.TempPathFactory, kind: str, target: dict[str, str],
         **params: Any) -> Engine:
    engine = engine_for(f"sqlite:///{factory.mktemp(kind) / 'ai.db'}")
    inject(engine, Scenario.model_validate({
        "id": f"roce-{kind.replace('_', '-')}", "lab": {"spec": "ai", "scale": "small", "seed": 7},
        "now": "2025-11-04T20:00:00Z", "question": "what is wrong?",
        "faults": [{"kind": kind, "at": "-25m", "target": target, "params": params}]}))
    return engine


@pytest.fixture(scope="module")
def storm(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    return _lab(tmp_path_factory, "pfc_storm", {"interface": f"{HOST}:mlx5_2"})


@pytest.fixture(scope="module")
def collision(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    return _lab(tmp_path_factory, "ecmp_collision", {"link": f"{LEAF}:Ethernet10"}, job="4711")


def ask(engine: Engine, question: str) -> dict[str, Any]:
    result = Copilot(lab_backends(engine)).answer(question, "t")
    ids = {e["id"] for e in result["evidence"]}
    assert validate_citations(result["answer"], ids) == [], result["answer"]
    assert result["citations"] and set(result["citations"]) <= ids
    return result


def cited(result: dict[str, Any], tool: str, **args: Any) -> list[dict[str, Any]]:
    """The cited evidence of this tool whose arguments include these."""
    return [e for e in result["evidence"] if e["id"] in result["citations"] and e["tool"] == tool
            and all(e["args"].get(k) == v for k, v in args.items())]


@pytest.mark.parametrize("question", [f"what is wrong with {LEAF}?",
                                      f"what is wrong with {HOST}?", FLOW])
def test_pfc_storm_named_by_device_and_flow_questions(storm: Engine, question: str) -> None:
    r = ask(storm, question)
    assert r["root_cause"]["label"] == "link.pfc_storm", r["answer"]
    assert (r["root_cause"]["device"], r["root_cause"]["interface"]) == (HOST, "mlx5_2")
    assert cited(r, "telemetry", metric="pfc"), "the storm is read from the PFC counters"
    verdict = r["answer"].split("\n- **")[0]  # named from the counters; the watchdog dates it
    assert "pause frames" in verdict and "PFC watchdog" not in verdict


@pytest.mark.parametrize("question", [f"what is wrong with {LEAF}?", FLOW])
def test_ecmp_collision_named_and_explains_the_congestion(collision: Engine,
                                                         question: str) -> None:
    r = ask(collision, question)
    assert r["root_cause"]["label"] == "link.ecmp_collision", r["answer"]
    assert (r["root_cause"]["device"], r["root_cause"]["interface"]) == (LEAF, "Ethernet10")
    assert cited(r, "telemetry", metric="ecn") and cited(r, "telemetry", metric="utilization")
    assert "sibling uplinks" in r["answer"]
    # the hot uplink's high utilisation is the collision's effect, not a second cause
    assert "link.congestion at dc1-gpu1-rail2-leaf02 Ethernet10, caused by it" in r["answer"]


def test_a_healthy_gpu_fabric_has_no_storm_or_collision(tmp_path: Path) -> None:
    r = ask(new_ai_lab(tmp_path / "ok.db"), f"what is wrong with {LEAF}?")
    assert r["root_cause"]["label"] == "none", r["answer"]
    ruled = r["answer"].split("#### Ruled out", 1)[1]
    assert "link.pfc_storm: no PFC storm" in ruled and "link.ecmp_collision: no port" in ruled


@pytest.mark.parametrize("question,metric,args", [
    (f"PFC pauses on {LEAF} in the last hour", "pfc", {"devices": [LEAF], "window": "1h"}),
    ("ECN marks on the rail leaves", "ecn", {"pod": POD, "role": "leaf"}),
    (f"retransmits on {HOST}", "retransmits", {"devices": [HOST]}),
    (f"any PFC storm in {POD}?", "pfc", {"pod": POD}),
    ("which ports send the most pause frames?", "pfc", {}),
    ("CNPs on the GPU fabric", "ecn", {"pod": POD}),
])
def test_planner_routes_roce_wording(tmp_path: Path, question: str, metric: str,
                                     args: dict[str, Any]) -> None:
    b = lab_backends(new_ai_lab(tmp_path / "x.db"))
    p = plan(question, Vocabulary.from_inventory(b.inventory), CLOCK)
    assert p.intent == f"telemetry.{metric}", p.note
    assert [c.tool for c in p.calls] == ["telemetry"]
    assert p.calls[0].args == {"metric": metric, **args}


def test_gpu_hosts_listed_apart_from_network_devices(tmp_path: Path) -> None:
    b = lab_backends(new_ai_lab(tmp_path / "x.db"))
    net = run_tool("metadata", {"query": "devices"}, b)
    assert not net.errors and net.rows
    assert not [r for r in net.rows if r["role"] in ("host", "gpu_host")]
    assert "gpu_host" not in net.summary
    pod = run_tool("metadata", {"query": "devices", "pod": POD}, b)
    assert {r["role"] for r in pod.rows} == {"leaf", "spine"}
    gpus = run_tool("metadata", {"query": "devices", "role": "gpu_host"}, b)
    assert len(gpus.rows) == 16 and {r["role"] for r in gpus.rows} == {"gpu_host"}
    # a name pattern names them (a job's hosts are read that way)
    named = run_tool("metadata", {"query": "devices", "name": f"{POD}-01*"}, b)
    assert [r["name"] for r in named.rows][:2] == [f"{POD}-010", f"{POD}-011"]
    # the planner still knows them as GPU hosts: "what is wrong with <GPU host>?" diagnoses it
    vocab = Vocabulary.from_inventory(b.inventory)
    assert vocab.meta[HOST]["role"] == "gpu_host"
    assert plan(f"what is wrong with {HOST}?", vocab, CLOCK).intent == "diagnose.device"


def _since(r: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    line = next(ln for ln in r["answer"].splitlines() if "**Since:**" in ln)
    return line, [e for e in r["evidence"] if f"[{e['id']}]" in line]


@pytest.mark.parametrize("question", [f"what is wrong with {HOST}?", FLOW])
def test_a_host_nics_storm_is_dated_by_the_leaf_port_facing_it(storm: Engine,
                                                               question: str) -> None:
    """The host raises nothing; the rail leaf's watchdog fires on its port facing the NIC (found
    through the link in the inventory): Since cites that alarm and that link."""
    line, cited = _since(ask(storm, question))
    assert f"2025-11-04T19:35:00Z, when the PFC watchdog on {LEAF} Ethernet2, facing {HOST} " \
           "mlx5_2 fired" in line
    assert any(a["kind"] == "PFC_WATCHDOG" and (a["device"], a["interface"]) == (LEAF, "Ethernet2")
               for e in cited if e["tool"] == "alarms" for a in e["rows"])
    assert any(e["tool"] == "metadata" and e["args"].get("query") == "neighbors" for e in cited)


def test_without_a_watchdog_since_is_the_first_sample_at_storm_rate(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The leaf's watchdog is off (no alarm): Since is the first 5-minute sample in which the
    NIC's pauses passed the storm threshold, cited with the read that shows the one before it
    below the threshold (the storm began at 19:35)."""
    from sqlmodel import Session, select

    from netopsai.store import tables as m

    engine = _lab(tmp_path_factory, "pfc_storm", {"interface": f"{HOST}:mlx5_2"})
    with Session(engine) as s:
        for a in s.exec(select(m.Alarm).where(m.Alarm.kind == "PFC_WATCHDOG")):
            s.delete(a)
        s.commit()
    line, cited = _since(ask(engine, f"what is wrong with {HOST}?"))
    assert f"2025-11-04T19:35:00Z, the start of the first 5-minute sample in which {HOST} " \
           "mlx5_2 passed 1,000,000 pause frames (to 19:40Z)" in line
    reads = sorted((e["window"]["end"], e["rows"][0]["max_per_5min"]) for e in cited
                   if e["tool"] == "telemetry" and e["args"].get("interface") == "mlx5_2")
    assert [end for end, _ in reads] == ["2025-11-04T19:35:00Z", "2025-11-04T19:40:00Z"]
    assert reads[0][1] < 1_000_000 <= reads[1][1]
