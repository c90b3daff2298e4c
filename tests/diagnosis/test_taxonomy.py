"""The taxonomy: the built-in tree covers the scenario spec's labels, every name resolves, and
users extend it — nodes from NETOPSAI_HOME/taxonomy.d, checks by dotted path or entry point —
without touching the engine; the engine then confirms the user's hypothesis on a real lab."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from netopsai.backends.lab import lab_backends
from netopsai.common.errors import NetopsError
from netopsai.diagnosis.engine import diagnose
from netopsai.diagnosis.registry import resolve
from netopsai.diagnosis.taxonomy import ROOT, load_taxonomy
from netopsai.lab.events import alarm
from netopsai.lab.manage import lab_info
from netopsai.store import tables as m

SPEC_LABELS = {"link.down", "link.flapping", "link.errors", "link.congestion", "device.down",
               "device.reboot", "config.acl_block", "config.mtu_mismatch", "routing.bgp_down",
               "routing.blackhole", "dci.link_down", "host.down"}
ROCE_LABELS = {"link.pfc_storm", "link.ecmp_collision"}
CATEGORIES = {"link", "device", "config", "routing", "capacity", "dci", "host"}


def test_builtin_tree_covers_the_spec() -> None:
    tax = load_taxonomy([])
    assert {n.id for n in tax.children(ROOT)} == CATEGORIES
    # the spec's labels, what real logs add (issue 12 §7): OSPF/IS-IS/BFD adjacencies, and the
    # GPU fabric's own (issue 15): PFC storms and ECMP collisions, read from RoCE telemetry
    assert tax.labels() == SPEC_LABELS | {"routing.adjacency_down"} | ROCE_LABELS
    assert tax.nodes["link.pfc_storm"].parent == "link"
    assert tax.nodes["link.ecmp_collision"].parent == "capacity"
    for leaf in tax.leaves():
        assert leaf.description and leaf.symptoms and leaf.checks and leaf.next_steps
        assert tax.ancestors(leaf.id)[-1].parent == ROOT
        for name in leaf.checks:
            assert callable(resolve("check", name))
        for name in leaf.symptoms:
            assert callable(resolve("symptom", name))
    with pytest.raises(NetopsError, match="no_such_check"):
        resolve("check", "no_such_check")


USER_MODULE = '''
from netopsai.diagnosis.base import confirmed, rejected

def cpu_alarm(ctx):
    return 1.0 if ctx.alarms_of({"HIGH_CPU"}) else 0.0

def cpu_pegged(ctx):
    hits = ctx.alarms_of({"HIGH_CPU"})
    if not hits:
        return rejected("no open HIGH_CPU alarm on the flow", ctx.alarm_ids)
    eid, row, pos = hits[0]
    dev, mid = ctx.device(row["device"])
    if dev is None or dev["status"] != "up":
        return rejected("the device is not up", [eid, mid])
    return confirmed(f"{row['device']} CPU pegged: {row['message']}", [eid, mid], row["device"],
                     confidence=0.7, position=pos)
'''

EXTENSION = """nodes:
  - id: device.cpu
    parent: device
    description: Control-plane CPU pegged on a device of the path.
    symptoms: [user_checks.cpu_alarm]
    checks: [user_checks:cpu_pegged]
    next_steps: [Find the process eating the CPU.]
  - id: config.acl_block
    description: Overridden by the user.
    next_steps: [Ask the security team.]
"""


@pytest.fixture
def user_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "user_checks.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    home = tmp_path / "home"
    (home / "taxonomy.d").mkdir(parents=True)
    (home / "taxonomy.d" / "cpu.yaml").write_text(EXTENSION)
    monkeypatch.setenv("NETOPSAI_HOME", str(home))
    return home


def test_extension_adds_and_merges_nodes(user_files: Path) -> None:
    tax = load_taxonomy()
    assert "device.cpu" in tax.labels() and tax.nodes["device.cpu"].parent == "device"
    acl = tax.nodes["config.acl_block"]
    assert acl.description == "Overridden by the user." and acl.checks == ["acl_block"]
    assert acl.next_steps[-1] == "Ask the security team." and len(acl.next_steps) == 3


def test_engine_confirms_a_user_hypothesis(user_files: Path, make_lab: Any) -> None:
    engine = make_lab()
    now = lab_info(engine).clock
    with Session(engine) as s:
        s.add(m.Alarm(**alarm("HIGH_CPU", "device", "dc1-leaf-03", "dc1",
                              now - timedelta(minutes=20), "CPU 99% for 20 minutes")))
        s.commit()
    d = diagnose(lab_backends(engine), src="10.1.3.20", dst="10.2.1.40").diagnosis
    assert (d.label, d.device) == ("device.cpu", "dc1-leaf-03"), d.steps
    assert d.next_steps == ["Find the process eating the CPU."]
    assert any(s["node"] == "device.cpu" and s["status"] == "confirmed" for s in d.steps)


def test_checks_from_an_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ep_checks.py").write_text(
        "from netopsai.diagnosis.base import unknown\n"
        "def always_unknown(ctx):\n    return unknown('cannot tell')\n")
    info = tmp_path / "ep_checks-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ep-checks\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[netopsai.diagnosis.checks]\nsite_policy = ep_checks:always_unknown\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    fn = resolve("check", "site_policy")
    assert fn(None).status == "unknown"


@pytest.mark.parametrize(("text", "problem"), [
    ("nodes: [{id: x.y, parent: nowhere}]", "parent that does not exist"),
    ("nodes: [{id: x, colour: red}]", "unknown field"),
    ("nodes: {id: x}", "expected 'nodes:'"),
    ("nodes: [", "malformed YAML"),
])
def test_bad_extension_files_are_named(tmp_path: Path, text: str, problem: str) -> None:
    (tmp_path / "bad.yaml").write_text(text)
    with pytest.raises(NetopsError, match=problem) as err:
        load_taxonomy([tmp_path])
    assert "bad.yaml" in str(err.value) or "parent" in problem
