"""Issue 15 §2, job-centric questions: "job 4711 hit an NCCL timeout" on the small AI lab names
the fault on the job's NICs and rails (label, device, port), the hosts it hurts and what to do,
every claim cited; a job with nothing wrong gets an honest "nothing found", with every rail's
NIC pairs traced; the question's time picks the window; scheduler names map to the inventory's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.scenario import Scenario
from netopsai.planner import Vocabulary, plan
from netopsai.store.engine import engine_for
from netopsai.tools.registry import run_tool
from tests.lab.test_ai_fabric import CLOCK, new_ai_lab

JOB, JOB_HOSTS = "4711", ["dc1-gpu1-009", "dc1-gpu1-010", "dc1-gpu1-011", "dc1-gpu1-012"]
HOST, LEAF = "dc1-gpu1-010", "dc1-gpu1-rail2-leaf02"  # HOST's mlx5_2 is LEAF's Ethernet2
QUESTION = f"job {JOB} hit an NCCL timeout"


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def ask(tmp_path: Path, faults: list[dict[str, Any]], question: str = QUESTION) -> dict[str, Any]:
    engine = engine_for(f"sqlite:///{tmp_path / 'ai.db'}")
    inject(engine, Scenario.model_validate({
        "id": "job-q", "lab": {"spec": "ai", "scale": "small", "seed": 7},
        "now": "2025-11-04T20:00:00Z", "question": question,
        "faults": [{"at": "-25m", **f} for f in faults]}))
    result = Copilot(lab_backends(engine)).answer(question, "t")
    ids = {e["id"] for e in result["evidence"]}
    assert validate_citations(result["answer"], ids) == [], result["answer"]
    assert result["citations"] and set(result["citations"]) <= ids
    return result


def test_the_lab_job_is_on_the_hosts_the_faults_use(tmp_path: Path) -> None:
    b = lab_backends(new_ai_lab(tmp_path / "x.db"))
    ev = run_tool("metadata", {"query": "jobs", "job": JOB}, b)
    assert ev.rows[0]["hosts"] == JOB_HOSTS and ev.rows[0]["end"] is None
    assert "dc1-gpu1-[009-012]" in ev.summary and ev.rows[0]["until"] == "2025-11-04T20:00:00Z"
    bad = run_tool("metadata", {"query": "jobs", "job": "4712"}, b)
    assert bad.errors and "did you mean" in bad.errors[0]
    on = run_tool("metadata", {"query": "jobs", "name": HOST}, b)
    assert JOB in {r["id"] for r in on.rows}


@pytest.mark.parametrize("question,job,hosts,intent", [
    (QUESTION, JOB, [], "diagnose.job"),
    ("job 4711 hit an NCCL timeout at 14:02", JOB, [], "diagnose.job"),
    ("why is job 4711 slow since the restart?", JOB, [], "diagnose.job"),
    ("NCCL timeouts on dc1-gpu1-[009-010,012]", None,
     ["dc1-gpu1-009", "dc1-gpu1-010", "dc1-gpu1-012"], "diagnose.job"),
    ("NCCL timeouts on dc1-gpu1-003 and dc1-gpu1-004", None, ["dc1-gpu1-003", "dc1-gpu1-004"],
     "diagnose.job"),
    ("which hosts does job 4711 use?", JOB, [], "inventory.jobs"),
])
def test_planner_reads_job_questions(tmp_path: Path, question: str, job: str | None,
                                     hosts: list[str], intent: str) -> None:
    b = lab_backends(new_ai_lab(tmp_path / "x.db"))
    p = plan(question, Vocabulary.from_inventory(b.inventory), CLOCK)
    assert p.intent == intent, p.note
    assert p.entities.jobs == ([job] if job else [])
    assert p.entities.devices == hosts
    assert p.calls and p.calls[0].tool == "metadata" and p.calls[0].args["query"] == "jobs"


def test_a_hostlist_outside_the_inventory_is_said(tmp_path: Path) -> None:
    b = lab_backends(new_ai_lab(tmp_path / "x.db"))
    p = plan("NCCL timeouts on node-[001-064]", Vocabulary.from_inventory(b.inventory), CLOCK)
    assert p.intent == "unknown" and "not in the inventory" in p.note and not p.calls


@pytest.mark.parametrize("kind,target,params,label,device,interface", [
    ("nic_flap", {"link": f"{HOST}:mlx5_2"}, {"count": 6}, "link.flapping", HOST, "mlx5_2"),
    ("pfc_storm", {"interface": f"{HOST}:mlx5_2"}, {}, "link.pfc_storm", HOST, "mlx5_2"),
    ("gpu_host_down", {"device": HOST}, {}, "host.down", HOST, None),
    ("ecmp_collision", {"link": f"{LEAF}:Ethernet10"}, {"job": JOB}, "link.ecmp_collision", LEAF,
     "Ethernet10"),
    ("rail_link_down", {"link": f"{HOST}:mlx5_2"}, {}, "link.down", HOST, "mlx5_2"),
])
def test_job_diagnosis_names_the_culprit(tmp_path: Path, kind: str, target: dict[str, str],
                                         params: dict[str, Any], label: str, device: str,
                                         interface: str | None) -> None:
    result = ask(tmp_path, [{"kind": kind, "target": target, "params": params}])
    rc = result["root_cause"]
    assert (rc["label"], rc["device"], rc["interface"]) == (label, device, interface), \
        result["answer"][:800]
    answer = result["answer"]
    assert "affected:" in answer and "Next steps" in answer
    affected = answer.split("affected:", 1)[1].split("—", 1)[0]
    assert ("dc1-gpu1-[009-012]" if kind == "ecmp_collision" else HOST) in affected
    tools = {(e["tool"], e["args"].get("metric") or e["args"].get("query"))
             for e in result["evidence"]}
    assert {("metadata", "jobs"), ("telemetry", "pfc"), ("telemetry", "retransmits"),
            ("telemetry", "oper_status"), ("alarms", None)} <= tools


def test_a_healthy_job_gets_nothing_found(tmp_path: Path) -> None:
    result = ask(tmp_path, [])
    assert result["root_cause"]["label"] == "none" and result["root_cause"]["device"] is None
    assert "nothing found on job 4711's nics and rails" in result["answer"].lower()
    rails = _rails(result)  # 4 hosts under one leaf per rail: all 6 pairs on each of 8 rails
    assert rails["facts"]["checked"] == 48 and rails["facts"]["failing"] == 0
    assert rails["facts"]["rails"] == {str(k): {"hosts": 4, "checked": 6, "failing": 0}
                                       for k in range(8)}
    assert f"all 6 pairs on each of the 8 rails reachable (all pairs) [{rails['id']}]" \
        in result["answer"]
    assert "not traced" not in result["answer"]


def test_a_fault_elsewhere_is_not_the_jobs(tmp_path: Path) -> None:
    """A NIC of a host the job does not use flaps: job 4711's answer names nothing."""
    result = ask(tmp_path, [{"kind": "nic_flap", "target": {"link": "dc1-gpu1-002:mlx5_2"}}])
    assert result["root_cause"]["label"] == "none", result["answer"][:600]


@pytest.mark.parametrize("kind", ["nic_flap", "rail_link_down"])
def test_a_fault_on_a_neighbour_of_the_jobs_leaf_is_not_the_jobs(tmp_path: Path, kind: str) -> None:
    """dc1-gpu1-014 shares rail 2's leaf with the job's hosts but is not in the job: the leaf's
    port to it flapping or down is that host's trouble, not the job's (a held-out arena miss)."""
    result = ask(tmp_path, [{"kind": kind, "target": {"link": "dc1-gpu1-014:mlx5_2"}}])
    assert result["root_cause"]["label"] == "none", result["answer"][:600]


def test_an_unknown_job_is_said(tmp_path: Path) -> None:
    result = ask(tmp_path, [], "job 4712 hit an NCCL timeout")
    assert result["root_cause"]["label"] == "inconclusive"
    answer = result["answer"]
    assert "unknown job '4712'" in answer.lower() and "did you mean 4711" in answer
    assert sum(e["tool"] == "metadata" for e in result["evidence"]) == 1


def test_hostlist_compress_is_expands_inverse() -> None:
    from netopsai.common.hostlist import compress, expand

    names = ["gpu-001", "gpu-002", "gpu-003", "gpu-010", "login1", "gpu-011"]
    assert compress(names) == "gpu-[001-003,010-011],login1"
    assert sorted(expand(compress(names))) == sorted(names)
    assert compress(["dc1-gpu1-010"]) == "dc1-gpu1-010" and compress([]) == ""


def _rails(result: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in result["evidence"] if e["tool"] == "rail_traces")


@pytest.mark.parametrize("kind,target,rails", [
    ("rail_link_down", {"link": f"{HOST}:mlx5_2"}, [2]),
    ("gpu_host_down", {"device": HOST}, list(range(8))),
])
def test_a_dead_nic_or_host_fails_its_rails_pairs(tmp_path: Path, kind: str,
                                                  target: dict[str, str], rails: list[int]) -> None:
    """HOST is one of the job's 4 hosts: on each rail it is down on, the 3 pairs it is in fail,
    the other 3 reach; the other rails are clean."""
    result = ask(tmp_path, [{"kind": kind, "target": target}])
    ev = _rails(result)
    assert sorted({r["rail"] for r in ev["rows"]}) == rails
    assert all(HOST in (r["src"], r["dst"]) for r in ev["rows"]) and len(ev["rows"]) == 3 * len(rails)
    per = ev["facts"]["rails"]
    assert [int(k) for k, r in per.items() if r["failing"]] == rails
    assert all(per[str(k)] == {"hosts": 4, "checked": 6, "failing": 3} for k in rails)
    assert result["root_cause"]["device"] == HOST
    if kind == "rail_link_down":
        assert ev["facts"]["culprits"]["2"]["interface"] == "mlx5_2"
        assert f"on rail 2, 3 of the 6 pairs of the job's hosts traced fail, pointing at {HOST} " \
               f"mlx5_2 [{ev['id']}]" in result["answer"]
    else:
        assert f"{HOST}'s NICs fail on rails 0, 1, 2, 3, 4, 5, 6, 7" in result["answer"]


def test_rail_pairs_are_bounded() -> None:
    from netopsai.diagnosis.job_rails import MAX_TRACES, choose_pairs

    assert len(choose_pairs(4, 8)[0]) == 6 and len(choose_pairs(16, 8)[0]) == 120
    pairs, how = choose_pairs(20, 8)  # the next host and the one 10 further: 20 + 10 pairs
    assert len(pairs) == 30 and "half-way" in how and "190 pairs" in how
    assert all(sum(i in p for p in pairs) == 3 for i in range(20))  # every NIC, from 3 sides
    pairs, how = choose_pairs(512, 8)  # 130,816 pairs a rail: each host to the next only
    assert len(pairs) == 512 and "130,816 pairs" in how and "half-way" not in how
    assert len(pairs) * 8 <= MAX_TRACES
    pairs, how = choose_pairs(600, 8)
    assert len(pairs) == MAX_TRACES // 8 and f"a cap of {MAX_TRACES} traces" in how


class _Paths:
    """A paths backend where one address is unreachable."""

    def __init__(self, dead: str) -> None:
        self.dead, self.traced = dead, 0

    def traceroute(self, src: str, dst: str, size: int, at: Any) -> dict[str, Any]:
        self.traced += 1
        ok = self.dead not in (src, dst)
        return {"reached": ok, "stopped_at": None if ok else "leaf", "reason": "" if ok else "x"}


def test_a_big_jobs_rails_sample_each_host() -> None:
    """40 hosts, 8 rails: each host to the next and to the one 20 further (60 pairs a rail);
    h07's rail-3 NIC is dead: its 3 pairs on rail 3 fail, and they point at it."""
    from netopsai.diagnosis.job_rails import Tracer, check_rails, rail_nics

    hosts = [f"h{i:02d}" for i in range(1, 41)]
    attach = [{"name": h, "ip": f"10.{k}.0.{i}", "tor": f"rail{k}-leaf01"}
              for i, h in enumerate(hosts, 1) for k in range(8)]
    paths = _Paths("10.3.0.7")
    ev = check_rails(Tracer(paths, lambda: "E7"), rail_nics(attach, hosts), None)
    assert ev.facts["checked"] == 8 * 60 and ev.id == "E7"
    assert paths.traced == 8 * 60 + 8  # and each rail's ring wrap, h40 -> h01, for ECMP placement
    assert ev.facts["rails"]["3"] == {"hosts": 40, "checked": 60, "failing": 3}
    assert sorted((r["src"], r["dst"]) for r in ev.rows) == [("h06", "h07"), ("h07", "h08"),
                                                            ("h07", "h27")]
    assert ev.facts["culprits"]["3"] == {"device": "h07", "interface": "mlx5_3",
                                         "leaf": "rail3-leaf01", "kind": "nic"}
    assert "rail 3: 3 of 60 pairs fail, each involving h07 mlx5_3" in ev.summary


@pytest.mark.parametrize("when,window,said", [
    ("at 19:40", ("19:10", "19:50"), "30 minutes before to 10 minutes after 19:40 UTC"),
    ("at 17:10", ("17:00", "17:20"), "clamped to the job's run"),
    ("at 14:02", ("17:00", "20:00"), "2025-11-04 14:02 UTC, the time the question gives, is "
                                     "outside job 4711's run"),
    ("since the restart", ("17:00", "20:00"), "since job 4711 (re)started at 17:00 UTC"),
])
def test_the_questions_time_picks_the_window(tmp_path: Path, when: str, window: tuple[str, str],
                                             said: str) -> None:
    """Job 4711 started at 17:00 and runs at the lab's 20:00; the fault is at 19:35."""
    found = _down_in_window(tmp_path, f"job {JOB} hit an NCCL timeout {when}", window, said)
    assert found == (window[1] >= "19:35")  # the fault in the window?


def _down_in_window(tmp_path: Path, question: str, window: tuple[str, str], said: str) -> bool:
    """Ask with HOST's rail-2 link down since 19:35: every telemetry read covers `window` (HH:MM
    on the lab's day), the answer says so and why; whether the down link was found."""
    result = ask(tmp_path, [{"kind": "rail_link_down", "target": {"link": f"{HOST}:mlx5_2"}}],
                 question)
    start, end = (f"2025-11-04T{t}:00Z" for t in window)
    assert f"window read: {start} .. {end}: " in result["answer"] and said in result["answer"]
    tel = [e for e in result["evidence"] if e["tool"] == "telemetry"]
    assert tel and all(e["window"] == {"start": start, "end": end} for e in tel)
    rc = result["root_cause"]
    return bool((rc["label"], rc["device"]) == ("link.down", HOST))


def test_scheduler_names_map_to_unique_inventory_names(tmp_path: Path) -> None:
    b = lab_backends(new_ai_lab(tmp_path / "x.db"))
    vocab = Vocabulary.from_inventory(b.inventory)
    p = plan("NCCL timeouts on gpu-[009-012]", vocab, CLOCK)
    assert p.intent == "diagnose.job" and p.entities.devices == JOB_HOSTS
    assert "gpu-[009-012] read as dc1-gpu1-[009-012]" in p.note
    p = plan("NCCL timeouts on gpu-[001-064]", vocab, CLOCK)  # the small lab has 16 GPU hosts
    assert p.entities.devices == [f"dc1-gpu1-{i:03d}" for i in range(1, 17)]
    assert "48 of the 64 hosts of 'gpu-[001-064]' are not in the inventory" in p.note
    p = plan("NCCL timeouts on gpu-010", vocab, CLOCK)
    assert p.intent == "diagnose.job" and p.entities.devices == [HOST]
    assert "gpu-010 read as dc1-gpu1-010" in p.note


def test_a_suffix_matching_two_hosts_is_not_mapped() -> None:
    from netopsai.planner.jobs import SuffixMatch

    gpu = {"role": "gpu_host"}
    match = SuffixMatch({"dc1-gpu1-001": gpu, "dc2-gpu1-001": gpu, "dc1-leaf-001": {"role": "leaf"}})
    assert match("gpu-001") is None and match("dc2-gpu-001") == "dc2-gpu1-001"
    assert match("leaf-001") is None and match("gpu-01") is None


def test_a_mapped_hostlist_is_diagnosed(tmp_path: Path) -> None:
    result = ask(tmp_path, [{"kind": "rail_link_down", "target": {"link": f"{HOST}:mlx5_2"}}],
                 "NCCL timeouts on gpu-[009-012]")
    rc = result["root_cause"]
    assert (rc["label"], rc["device"], rc["interface"]) == ("link.down", HOST, "mlx5_2")
    assert "gpu-[009-012] read as dc1-gpu1-[009-012]" in result["answer"]
    assert _rails(result)["facts"]["rails"]["2"]["failing"] == 3


@pytest.mark.parametrize("when,window,said,found", [
    ("at 19:40", ("19:10", "19:50"), "30 minutes before to 10 minutes after 19:40 UTC (the time "
                                     "the question gives; no job is named", True),
    ("at 14:02", ("13:32", "14:12"), "30 minutes before to 10 minutes after 14:02 UTC", False),
    ("at 19:55", ("19:25", "20:00"), "cut at now (20:00 UTC)", True),
    ("since 13:30", ("13:30", "20:00"), "the window the question gave", True),
])
def test_hosts_without_a_job_follow_the_questions_time(tmp_path: Path, when: str,
                                                       window: tuple[str, str], said: str,
                                                       found: bool) -> None:
    """No job named: the question's time places the window as it does for a job (the fault is
    at 19:35; 14:02 is hours before it), not the last hour."""
    assert _down_in_window(tmp_path, f"NCCL timeouts on gpu-[009-012] {when}", window, said) == found


@pytest.mark.parametrize("question,said", [
    ("NCCL timeouts on gpu-[009-012] at 25:99",
     "the last hour ('at 25:99' in the question is not a time that can be read, so it was not "
     "used)"),
    ("NCCL timeouts on gpu-[009-012] at 2025-11-05 10:00",
     "the last hour ('at 2025-11-05 10:00' in the question is in the future, so it was not "
     "used)"),
    ("why are the NCCL jobs on gpu-[009-012] slow since the restart?",
     "the last hour ('since the restart' with no job named has no start to place it at; name "
     "the job, e.g. \"job 4711 ...\", to read from its start)"),
    ("job 4711 hit an NCCL timeout at 25:99",
     "job 4711's whole run, from its start at 17:00 UTC to 20:00 UTC ('at 25:99' in the "
     "question is not a time that can be read, so it was not used)"),
])
def test_a_time_that_cannot_be_used_is_said(tmp_path: Path, question: str, said: str) -> None:
    result = ask(tmp_path, [], question)
    assert f": {said} [" in result["answer"], result["answer"][:1200]


def test_a_host_nics_storm_is_dated_by_its_leafs_watchdog(tmp_path: Path) -> None:
    """HOST's NIC storms: the PFC watchdog fires on the rail leaf's port facing it (the host
    raises nothing); Since cites that alarm and the link that says it faces the NIC."""
    result = ask(tmp_path, [{"kind": "pfc_storm", "target": {"interface": f"{HOST}:mlx5_2"}}])
    since = next(ln for ln in result["answer"].splitlines() if "**Since:**" in ln)
    assert f"2025-11-04T19:35:00Z, when the PFC watchdog on {LEAF} Ethernet2, facing {HOST} " \
           "mlx5_2 fired" in since
    cited = [e for e in result["evidence"] if f"[{e['id']}]" in since]
    assert {e["tool"] for e in cited} == {"alarms", "metadata"}
    assert any(r["kind"] == "PFC_WATCHDOG" and (r["device"], r["interface"]) == (LEAF, "Ethernet2")
               for e in cited if e["tool"] == "alarms" for r in e["rows"])
