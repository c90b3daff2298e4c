"""Errors on a job's links (issue 15 §2): CRC errors on a job's NIC, or a failing optic on the
rail leaf's port facing a job host, are the job's culprit (link.errors), with the rx power when
it is low, the hosts affected and a Since from the port's alarm; errors on a port of a host
outside the job, or a handful of errors, are not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.diagnosis.test_job_questions import HOST, LEAF, ask


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def _cited(result: dict[str, Any], line_start: str) -> set[str]:
    """The tools cited by the answer's line starting so."""
    line = next(x for x in result["answer"].splitlines() if x.startswith(line_start))
    by_id = {e["id"]: e for e in result["evidence"]}
    return {by_id[i]["tool"] + ":" + str(by_id[i]["args"].get("metric") or "")
            for i in by_id if f"[{i}]" in line}


def test_crc_errors_on_a_jobs_nic(tmp_path: Path) -> None:
    r = ask(tmp_path, [{"kind": "crc_errors", "target": {"link": f"{HOST}:mlx5_2"}}])
    rc = r["root_cause"]
    assert (rc["label"], rc["device"], rc["interface"]) == ("link.errors", HOST, "mlx5_2")
    head = r["answer"].split("\n", 1)[0]
    assert "4000 input errors" in head and "up to 800 per 5 minutes" in head
    assert "rx power stayed at" in head  # a strong signal: the connector or cable, not the optic
    assert "telemetry:errors" in _cited(r, "**Likely root cause")
    assert "INTERFACE_ERRORS" in r["answer"] and _cited(r, "- **Since:**") == {"alarms:"}
    assert f"Meanwhile drain {HOST}" in r["answer"]


def test_a_failing_optic_on_the_leaf_port_facing_a_job_host(tmp_path: Path) -> None:
    r = ask(tmp_path, [{"kind": "optic_degraded", "target": {"link": f"{LEAF}:Ethernet2"}}])
    rc = r["root_cause"]
    assert (rc["label"], rc["device"], rc["interface"]) == ("link.errors", LEAF, "Ethernet2")
    head = r["answer"].split("\n", 1)[0]
    assert "rx power fell to -13.8 dBm" in head
    assert {"telemetry:errors", "telemetry:rx_power"} <= _cited(r, "**Likely root cause")
    affected = r["answer"].split("affected:", 1)[1].split("—", 1)[0]
    assert affected.split(" (")[0].strip() == HOST  # the host behind that port, not the leaf's all


@pytest.mark.parametrize("fault", [
    {"kind": "crc_errors", "target": {"link": "dc1-gpu1-014:mlx5_2"}},  # not a job host
    {"kind": "crc_errors", "target": {"link": f"{HOST}:mlx5_2"}, "params": {"rate": 20}},
])
def test_errors_that_are_not_the_jobs_are_not_named(tmp_path: Path, fault: dict[str, Any]) -> None:
    r = ask(tmp_path, [fault])
    assert r["root_cause"]["label"] == "none", r["answer"][:500]


def test_the_affected_hosts_ranks_in_host_order(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from netopsai.diagnosis.job import ranks

    hosts = ["a", "b", "c", "d"]
    reads: Any = SimpleNamespace(attach=[{"name": h} for h in hosts for _ in range(8)])
    assert ranks(hosts, ["b", "c"], reads) == " (ranks 8–23 of 32, one per GPU in host order)"
    assert ranks(hosts, ["d", "a"], reads) == " (ranks 0–7, 24–31 of 32, one per GPU in host order)"
    assert ranks(hosts, hosts, reads) == ""  # every rank: the hosts say it
    r = ask(tmp_path, [{"kind": "crc_errors", "target": {"link": f"{HOST}:mlx5_2"}}])
    assert f"affected: {HOST} (ranks 8–15 of 32" in r["answer"]  # the job's second host


@pytest.mark.parametrize("rank,said", [
    (9, "rank 9 runs on dc1-gpu1-010 (ranks 8–15, one per GPU in host order)"),
    (40, "rank 40 is not one of the job's 32 ranks (one per GPU)"),
])
def test_the_rank_the_question_names_is_placed(tmp_path: Path, rank: int, said: str) -> None:
    r = ask(tmp_path, [{"kind": "crc_errors", "target": {"link": f"{HOST}:mlx5_2"}}],
            f"rank {rank} of job 4711 timed out")
    assert said in r["answer"] and r["root_cause"]["device"] == HOST
