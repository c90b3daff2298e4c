"""The cited answer's own times in the network's zone (issue 25 item 5): the closed alarms it
lists for reference, the window beside each call of its evidence list (the offline template and
the LLM's answer alike) and the change a "since the maintenance window" starts at. Los Angeles
(PST in November, UTC-8) with UTC beside; a UTC network names UTC. Evidence rows stay ISO UTC."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from netopsai.copilot.evidence import Evidence
from netopsai.copilot.summarizer import evidence_list, render
from netopsai.diagnosis.base import Diagnosis, Finding

LA = "America/Los_Angeles"
WIN = {"start": "2026-11-27T17:00:00Z", "end": "2026-11-27T18:00:00Z"}  # 09:00–10:00 PST
CLOSED = {"kind": "LINK_DOWN", "device": "leaf3", "raised_at": "2026-11-27T17:35:00Z",
          "cleared_at": "2026-11-27T17:41:00Z", "state": "closed"}


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def _evidence() -> list[Evidence]:
    moment = {"start": "2026-11-27T18:00:00Z", "end": "2026-11-27T18:00:00Z"}
    return [Evidence(id="E1", tool="traceroute", args={"src": "a", "dst": "b"}, window=moment,
                     rows=[]),
            Evidence(id="E2", tool="alarms", args={"state": "any"}, window=WIN, rows=[CLOSED])]


def test_the_evidence_list_says_each_window_in_the_network_zone() -> None:
    pst = evidence_list(_evidence(), LA).splitlines()
    assert pst[1].endswith(", window 2026-11-27 10:00 PST (18:00 UTC)"), pst[1]
    assert pst[2].endswith(", window 2026-11-27 09:00–10:00 PST (17:00–18:00 UTC)"), pst[2]
    utc = evidence_list(_evidence(), "UTC").splitlines()
    assert utc[1].endswith(", window 2026-11-27 18:00 UTC"), utc[1]
    assert utc[2].endswith(", window 2026-11-27 17:00–18:00 UTC"), utc[2]


def test_closed_alarms_for_reference_are_in_the_network_zone() -> None:
    d = Diagnosis("link.down", device="leaf3", because=[Finding("leaf3 is down", ["E2"])],
                  reference=[CLOSED])
    pst = render(_evidence(), d, [], LA)
    assert "LINK_DOWN on leaf3 (2026-11-27 09:35–09:41 PST (17:35–17:41 UTC))." in pst, pst
    assert "| 2026-11-27T17:35:00Z |" in pst  # the rows' table: ISO UTC, as parsed
    utc = render(_evidence(), d, [], "UTC")
    assert "LINK_DOWN on leaf3 (2026-11-27 17:35–17:41 UTC)." in utc, utc


# -- end to end: a lab whose network is in Los Angeles -----------------------------------------

def test_since_the_change_and_the_evidence_list_in_the_network_zone(make_lab: Any) -> None:
    """'since the maintenance window' starts at a change 40 minutes before the lab's clock
    (2025-11-04 20:00 UTC): the answer says when it started on the network's clock, and its
    evidence list gives each window there, UTC beside; in UTC it names UTC."""
    from netopsai.backends.lab import lab_backends
    from netopsai.copilot.service import Copilot
    from netopsai.lab.inject import inject
    from netopsai.lab.manage import lab_info
    from netopsai.lab.scenario import Scenario
    from tests.copilot.test_windows_in_answers import SPINE

    engine = make_lab()
    inject(engine, Scenario.model_validate({
        "id": "since-change", "now": lab_info(engine).clock, "question": "-",
        "faults": [{"kind": "change", "at": "-40m", "target": {"device": SPINE},
                    "params": {"summary": "Maintenance: replace line card", "ticket": "CHG-3001"}},
                   {"kind": "link_flap", "at": "-20m", "target": {"link": f"{SPINE}:Ethernet1"}}]}))
    q = f"alarms on {SPINE} since the maintenance window"
    pst = Copilot(replace(lab_backends(engine), zone=LA)).answer(q, "t")["answer"]
    assert "started 2025-11-04 11:20 PST (19:20 UTC)" in pst, pst
    listed = pst.split("### Evidence")[1]
    assert ", window 2025-11-04 11:20–12:00 PST (19:20–20:00 UTC)" in listed, listed
    utc = Copilot(replace(lab_backends(engine), zone="UTC")).answer(q, "t")["answer"]
    assert "started 2025-11-04 19:20 UTC" in utc, utc
    assert ", window 2025-11-04 19:20–20:00 UTC" in utc.split("### Evidence")[1]
