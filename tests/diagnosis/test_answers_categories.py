"""Category questions count what the on-call means (issue 25 item 6): "any DCI link alarms in
the last 2 hours?" (a suggested question of the web app) includes the border-DCI backbone links,
whose alarms the lab files under `backbone`, and the answer says which categories it counted;
"link alarms" are every link's. Before, a down border-DCI link answered "0 dci alarms"."""

from __future__ import annotations

from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.copilot.service import Copilot
from netopsai.diagnosis.consistency import contradictions
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario
from netopsai.tools.registry import run_tool
from tests.copilot.test_copilot_diagnosis import backbone

SUGGESTED = "any DCI link alarms in the last 2 hours?"


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


@pytest.fixture
def down(make_lab: Any, backends: Any) -> tuple[Any, str]:
    """A lab with one border-DCI backbone link down 25 minutes ago, and that link."""
    engine, link = make_lab(), backbone(backends)
    inject(engine, Scenario.model_validate({
        "id": "bb", "now": lab_info(engine).clock, "question": SUGGESTED,
        "faults": [{"kind": "dci_link_down", "at": "-25m", "target": {"link": link}}]}))
    return engine, link


def test_dci_alarms_count_the_backbone_links_and_say_so(down: tuple[Any, str]) -> None:
    engine, link = down
    b = lab_backends(engine)
    ev = run_tool("alarms", {"category": "dci", "window": "2h"}, b)
    border = link.split(":")[0]
    mine = [r for r in ev.rows if border in (r["device"], r["peer"]) and r["state"] == "open"]
    assert len(mine) == 2 and {r["category"] for r in mine} == {"backbone"}  # both ends
    assert ev.facts["categories"] == ["dci", "backbone"]
    assert "counted: dci (DCI circuits), backbone (border-DCI links)" in ev.summary
    assert run_tool("alarms", {"category": "backbone", "window": "2h"}, b).facts["alarms"] == \
        ev.facts["alarms"]  # one inter-DC path, whichever word the on-call used
    link_alarms = run_tool("alarms", {"category": "link", "window": "2h"}, b).rows
    assert {r["id"] for r in mine} <= {r["id"] for r in link_alarms}


def test_the_suggested_question_names_the_down_link(down: tuple[Any, str]) -> None:
    engine, link = down
    r = Copilot(lab_backends(engine)).answer(SUGGESTED, "t")
    ev = next(e for e in r["evidence"] if e["tool"] == "alarms")
    first = next(p for p in r["answer"].split("\n\n") if not p.startswith("_"))
    assert first.startswith(f"{ev['facts']['alarms']} dci alarms in the window "
                            f"({ev['facts']['open']} open")
    assert ev["facts"]["open"] >= 2 and link.split(":")[0] in first
    assert "counted: dci (DCI circuits), backbone (border-DCI links)" in first
    assert contradictions(r["answer"], r["evidence"], r["root_cause"], SUGGESTED) == []
