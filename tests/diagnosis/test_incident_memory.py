"""Incident memory: BM25 recall of past incidents, a recurring fault diagnosed with fewer
checks the second time, and the `netopsai incidents` commands (confirm, import, list)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.diagnosis.engine import diagnose
from netopsai.diagnosis.history import confirm
from netopsai.diagnosis.memory import IncidentMemory
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario

SRC, DST = "10.1.3.20", "10.2.1.40"
QUESTION = f"{SRC} to {DST} not communicating"


def test_bm25_ranks_the_matching_incident_first(tmp_path: Path) -> None:
    mem = IncidentMemory.at(tmp_path / "incidents.db")
    mem.add("unreachable ; stop !X ; at dc1-leaf-03", "config.acl_block", "dc1-leaf-03")
    mem.add("reached ; LINK_DOWN link dc1-leaf-07 Ethernet50", "link.down", "dc1-leaf-07")
    mem.add("reached ; HIGH_UTILIZATION capacity dc2-spine-01 Ethernet4", "link.congestion")
    mem.add("unreachable ; stop * ; at dc2-leaf-01", "routing.blackhole", "dc2-leaf-01")
    hits = mem.search("reached ; LINK_DOWN link dc1-leaf-07 Ethernet50 ; BGP_DOWN")
    assert hits[0].incident.label == "link.down" and hits[0].score > hits[-1].score
    assert mem.search("nothing in common here") == []
    # a store reopened is the same memory (its own file, not the lab's database)
    assert [i.label for i in IncidentMemory.at(tmp_path / "incidents.db").all()][0] == "config.acl_block"


def test_an_absent_embedding_model_leaves_bm25_alone(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    mem = IncidentMemory.at(tmp_path / "incidents.db")
    mem.add("unreachable ; stop !X ; at dc1-leaf-03", "config.acl_block")
    mem.add("reached ; LINK_FLAP link dc1-leaf-01 Ethernet49", "link.flapping")
    plain = [m.incident.label for m in mem.search("LINK_FLAP dc1-leaf-01")]
    monkeypatch.setenv("NETOPSAI_EMBED_MODEL", str(tmp_path / "no-such-model"))
    assert [m.incident.label for m in mem.search("LINK_FLAP dc1-leaf-01")] == plain == ["link.flapping"]


def _faulted(make_lab: Any, faults: list[dict[str, Any]]) -> Any:
    engine = make_lab()
    inject(engine, Scenario.model_validate({"id": "rec", "now": lab_info(engine).clock,
                                            "question": QUESTION, "noise": {"alarms": 10},
                                            "faults": [{"at": "-25m", **f} for f in faults]}))
    return lab_backends(engine)


@pytest.mark.parametrize("fault", [
    {"kind": "device_down", "target": {"device": "dc2-leaf-01"}},
    {"kind": "blackhole", "target": {"device": "dc2-leaf-01"}},
])
def test_a_recurring_fault_needs_fewer_checks(make_lab: Any, tmp_path: Path,
                                              fault: dict[str, Any]) -> None:
    mem = IncidentMemory.at(tmp_path / "incidents.db")
    first = diagnose(_faulted(make_lab, [fault]), src=SRC, dst=DST, memory=mem).diagnosis
    assert first.tier == "search" and first.label != "inconclusive"
    confirm(mem, asdict(first), "oncall", "test", QUESTION)
    again = diagnose(_faulted(make_lab, [fault]), src=SRC, dst=DST, memory=mem).diagnosis
    assert again.tier == "history"
    assert (again.label, again.device) == (first.label, first.device)
    assert again.checks_run < first.checks_run
    assert again.steps[0]["action"] == "recall" and "1 similar" in again.steps[0]["text"]


def test_memory_does_not_override_what_the_evidence_says(make_lab: Any, tmp_path: Path) -> None:
    # memory says blackhole; today it is an ACL: the recalled hypothesis is rejected, the
    # taxonomy search finds the real cause
    mem = IncidentMemory.at(tmp_path / "incidents.db")
    mem.add("unreachable ; stop * ; at dc1-leaf-03", "routing.blackhole", "dc1-leaf-03")
    acl = {"kind": "acl_block", "target": {"device": "dc1-leaf-03"}, "params": {"dst": "10.2.1.0/24"}}
    d = diagnose(_faulted(make_lab, [acl]), src=SRC, dst=DST, memory=mem).diagnosis
    assert d.tier == "search" and d.label == "config.acl_block"
    assert any(r["label"] == "routing.blackhole" for r in d.ruled_out)


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NETOPSAI_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "netopsai.cli", *args], env=env, text=True,
                          capture_output=True, timeout=180)


def test_confirm_a_thread_then_list(tmp_path: Path) -> None:
    scenario = tmp_path / "acl.yaml"
    scenario.write_text(f"""id: acl-cli
now: "2025-11-04T20:00:00Z"
faults:
  - {{kind: acl_block, at: "-25m", target: {{device: dc1-leaf-03}}, params: {{dst: "10.2.1.0/24"}}}}
question: "{QUESTION}"
""")
    assert cli(tmp_path, "lab", "init", "--now", "2025-11-04T20:00:00Z").returncode == 0
    assert cli(tmp_path, "lab", "inject", str(scenario)).returncode == 0
    assert cli(tmp_path, "ask", QUESTION, "--thread", "ops-9", "--json").returncode == 0
    out = cli(tmp_path, "incidents", "confirm", "--thread", "ops-9", "--user", "ana")
    assert out.returncode == 0, out.stderr
    assert "config.acl_block at dc1-leaf-03" in out.stdout
    rows = json.loads(cli(tmp_path, "incidents", "list", "--json").stdout)
    assert [(r["label"], r["device"], r["confirmed_by"]) for r in rows] == [
        ("config.acl_block", "dc1-leaf-03", "ana")]
    assert "!X" in rows[0]["symptoms"] and rows[0]["question"] == QUESTION
    again = json.loads(cli(tmp_path, "ask", QUESTION, "--thread", "ops-10", "--json").stdout)
    diag = next(s for s in again["steps"] if s["node"] == "diagnose")
    assert diag["tier"] == "history" and again["root_cause"]["label"] == "config.acl_block"
    missing = cli(tmp_path, "incidents", "confirm", "--thread", "nope")
    assert missing.returncode == 2 and "nope" in missing.stderr and "Traceback" not in missing.stderr


def test_import_history_file(tmp_path: Path) -> None:
    good = tmp_path / "history.yaml"
    good.write_text("""incidents:
  - {symptoms: "unreachable ; stop !X ; at dc1-leaf-03", label: config.acl_block, device: dc1-leaf-03,
     at: "2025-10-01T10:00:00Z"}
  - {symptoms: "reached ; LINK_FLAP link dc1-leaf-01 Ethernet49", label: link.flapping}
""")
    out = cli(tmp_path, "incidents", "import", str(good))
    assert out.returncode == 0 and "imported 2 incidents" in out.stdout
    rows = json.loads(cli(tmp_path, "incidents", "list", "--json").stdout)
    assert [r["label"] for r in rows] == ["config.acl_block", "link.flapping"]
    assert rows[0]["at"].startswith("2025-10-01") and rows[0]["source"] == "import"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"symptoms": "x", "label": "link.broken"}]))
    out = cli(tmp_path, "incidents", "import", str(bad))
    assert out.returncode == 2 and "link.broken" in out.stderr and out.stderr.count("\n") == 1
    assert len(json.loads(cli(tmp_path, "incidents", "list", "--json").stdout)) == 2  # unchanged
    out = cli(tmp_path, "incidents", "import", str(tmp_path / "none.yaml"))
    assert out.returncode == 2 and "not found" in out.stderr


def test_a_remembered_effect_does_not_end_the_diagnosis(make_lab: Any, tmp_path: Path) -> None:
    # memory holds a host link down; today the ToR itself is dead, and its host links are
    # down as its effect: recalling link.down must not stop the search at the effect
    mem = IncidentMemory.at(tmp_path / "incidents.db")
    dead = {"kind": "device_down", "target": {"device": "dc2-leaf-01"}}
    first = diagnose(_faulted(make_lab, [dead]), src=SRC, dst=DST).diagnosis
    mem.add(first.symptoms, "link.down", "dc2-host-01-3", "eth0")
    d = diagnose(_faulted(make_lab, [dead]), src=SRC, dst=DST, memory=mem).diagnosis
    assert d.steps[0]["action"] == "recall" and "link.down" in d.steps[0]["text"]
    assert (d.label, d.device, d.tier) == ("device.down", "dc2-leaf-01", "search")
