"""The arena's GPU-fabric scenarios (netopsai.arena.generate_ai, bench/scenarios-ai): job
questions with the fabric's faults on the job's NICs, hosts and rail uplinks, healthy jobs and
faults beside the job; deterministic by seed; scored by the same runner as the flow scenarios."""

from __future__ import annotations

import json
from pathlib import Path

from netopsai.arena import run as arena
from netopsai.arena.generate_ai import CATEGORIES, LABELS, generate_ai
from netopsai.common.hostlist import expand
from tests.cli_helpers import run_cli
from tests.paths import REPO

PUBLIC = REPO / "bench" / "scenarios-ai"


def _jobs_hosts(question: str, sc_hosts: dict[str, list[str]]) -> list[str]:
    for job, hosts in sc_hosts.items():
        if f"job {job} " in f"{question} " or question.endswith(f"job {job}"):
            return hosts
    return []


def test_generated_scenarios_put_each_fault_where_its_category_says(tmp_path: Path) -> None:
    from sqlmodel import Session, select

    from netopsai.lab.manage import init_lab
    from netopsai.store import tables as m
    from netopsai.store.engine import engine_for

    made = generate_ai(3 * len(CATEGORIES), 5)
    assert made == generate_ai(3 * len(CATEGORIES), 5)  # same seed, same scenarios
    assert sorted(sc["id"].split("-ai-")[1] for sc in made) == sorted(
        c.replace("_", "-") for c in CATEGORIES for _ in range(3))
    engine = engine_for(f"sqlite:///{tmp_path / 'lab.db'}")
    init_lab(engine, "ai", "small", 7)
    with Session(engine) as s:
        jobs = {j.id: j.hosts for j in s.exec(select(m.Job))}
        ends = [((lk.a_device, lk.a_interface), lk.b_device) for lk in s.exec(select(m.Link))]
        facing = {a: b for a, b in ends} | {(lk.b_device, lk.b_interface): lk.a_device
                                             for lk in s.exec(select(m.Link))}
    for sc in made:
        q, kind = sc["question"], sc["id"].split("-ai-")[1].replace("-", "_")
        hosts = _jobs_hosts(q, jobs) or expand(q.rsplit(" on ", 1)[1])
        assert hosts, q
        target = next(iter(sc["faults"][0]["target"].values())) if sc["faults"] else ""
        on_job = target.split(":")[0] in hosts
        if kind == "crc_errors":  # on a job NIC, or on the leaf port facing one
            on_job = on_job or facing.get(tuple(target.split(":"))) in hosts
        if kind in LABELS:
            assert sc["expect"]["root_cause"] == LABELS[kind] and sc["faults"][0]["kind"] == kind
            assert on_job or kind == "ecmp_collision"  # a collision is on the job's rail leaf
        else:
            assert sc["expect"]["root_cause"] == "none" and not on_job


def test_the_public_ai_set_is_the_generators_and_scores(tmp_path: Path) -> None:
    again = tmp_path / "again"
    r = run_cli(tmp_path, "bench", "gen", "--spec", "ai", "--n", "40", "--seed", "1", "-o", str(again))
    assert r.returncode == 0, r.stderr
    for p in sorted(PUBLIC.glob("*.yaml")):
        assert (again / p.name).read_text() == p.read_text(), p.name
    scenarios = arena.load_dir(PUBLIC)[:7]
    results = arena.run(scenarios, arena.Options(("full",)), categories=arena.manifest(PUBLIC))
    done = arena.write(results, tmp_path / "out")
    data = json.loads(done.json_path.read_text())
    s = data["baselines"]["full"]["summary"]
    assert s["n"] == 7 and s["errors"] == 0 and s["citations"] == 1.0
    assert s["micro_f1"] >= 0.8, s["labels"]


def test_bench_gen_refuses_an_unknown_spec(tmp_path: Path) -> None:
    r = run_cli(tmp_path, "bench", "gen", "--spec", "gpu", "-o", str(tmp_path / "x"))
    assert r.returncode == 2 and "unknown spec 'gpu'; valid: default, ai" in r.stderr
