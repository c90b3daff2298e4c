"""The asked window for device and job diagnoses (issue 25 item 1), end to end on the lab: a
spine's link that went down at 17:00 and came back at 17:06 (lab link_down with for_min), asked
"what happened to dc1-spine-02 between 16:55 and 17:15?", "… this morning", "… at 16:58" or
"what happened to …" is named with its start and end — never "looks healthy" — from alarms,
changes and state history read over that window, with the probes traced at its moment; asked
"what's wrong with …" now, it is healthy now and says what came and went in the last hours.
A job asked about "at 19:40" over a rail link down 19:35–19:41 gets that link, not "nothing
found". engine.diagnose() takes the window too."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import Evidence
from netopsai.copilot.summarizer import render
from netopsai.diagnosis.base import Diagnosis
from netopsai.diagnosis.consistency import contradictions
from netopsai.diagnosis.engine import diagnose
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario
from netopsai.tools.registry import run_tool
from tests.diagnosis.test_answers_headline import ask, first_line, lab_copilot
from tests.diagnosis.test_answers_window import REBOOT, _clock

SPINE = "dc1-spine-02"
BOUNCE = {"kind": "link_down", "at": "-3h", "target": {"link": f"{SPINE}:Ethernet1"},
          "params": {"for_min": 6}}


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _reads(r: dict[str, Any]) -> dict[str, Any]:
    return {e["tool"]: e["args"].get("window") for e in r["evidence"]
            if e["tool"] in ("alarms", "changelog", "telemetry")}


def test_a_bounced_link_is_back_up_in_the_lab(make_lab: Any) -> None:
    engine = make_lab()
    start = _clock(engine) - timedelta(hours=3)
    lab_copilot(engine, [BOUNCE])
    b = lab_backends(engine)
    now = run_tool("alarms", {"devices": [SPINE], "state": "any", "window": "6h"}, b)
    down = [r for r in now.rows if r["kind"] == "LINK_DOWN"]
    assert down and all(r["state"] == "closed" and r["cleared_at"] == _iso(start + timedelta(minutes=6))
                        for r in down)
    then = run_tool("telemetry", {"metric": "oper_status", "devices": [SPINE], "interface": "Ethernet1",
                                  "window": {"start": _iso(start - timedelta(minutes=5)),
                                             "end": _iso(start + timedelta(minutes=10))}}, b)
    assert then.rows[0]["transitions"] == 2 and then.rows[0]["state_at_end"] == "up"


def test_what_happened_over_a_past_window_is_a_timeline(make_lab: Any) -> None:
    engine = make_lab()
    start = _clock(engine) - timedelta(hours=3)
    c = lab_copilot(engine, [BOUNCE])
    a, b = start - timedelta(minutes=5), start + timedelta(minutes=15)
    q = f"what happened to {SPINE} between {a:%H:%M} and {b:%H:%M} UTC on {a:%Y-%m-%d}?"
    r = ask(c, q)
    assert (r["root_cause"]["label"], r["root_cause"]["device"]) == ("link.down", SPINE)
    head = first_line(r)
    assert "came and went" in head and "looks healthy" not in r["answer"], head
    ended = start + timedelta(minutes=6)
    assert f"LINK_DOWN on {SPINE} Ethernet1 {start:%Y-%m-%d %H:%M}–{ended:%H:%M} UTC" in head
    win = {"start": _iso(a), "end": _iso(b)}
    assert _reads(r) == {"alarms": win, "changelog": win, "telemetry": win}
    probes = [e for e in r["evidence"] if e["tool"] == "traceroute"]
    assert probes and all(e["args"].get("at") == _iso(a + (b - a) / 2) for e in probes)
    # the old answer over the same evidence ("no fault … looks healthy") is caught
    d = Diagnosis.from_dict(c.thread("t").diagnosis or {})
    d.label, d.relation, d.answer, d.scope = "none", "cause", None, SPINE
    old = render([Evidence.model_validate(e) for e in r["evidence"]], d)
    assert any("'healthy' headline over the closed LINK_DOWN" in x
               for x in contradictions(old, r["evidence"], d.root_cause(), q))


def test_this_morning_and_a_moment_read_their_window(make_lab: Any) -> None:
    engine = make_lab()
    start = _clock(engine) - timedelta(hours=12)  # 08:00 on the lab's day
    c = lab_copilot(engine, [{**BOUNCE, "at": "-12h"}])
    r = ask(c, f"what's wrong with {SPINE} this morning?")
    assert (r["root_cause"]["label"], r["root_cause"]["device"]) == ("link.down", SPINE)
    assert "came and went" in first_line(r) and f"{start:%H:%M}–" in first_line(r)
    assert _reads(r)["alarms"]["start"].endswith("06:00:00Z")
    # at a moment while it was down: the half hour around it, the link's start and end said
    r = ask(c, f"what happened to {SPINE} at {start + timedelta(minutes=3):%H:%M} UTC?", "t2")
    assert (r["root_cause"]["label"], r["root_cause"]["interface"]) == ("link.down", "Ethernet1")
    assert f"{start:%H:%M}–{start + timedelta(minutes=6):%H:%M} UTC" in first_line(r)
    assert _reads(r)["alarms"] == {"start": _iso(start - timedelta(minutes=27)),
                                   "end": _iso(start + timedelta(minutes=18))}


def test_asked_now_a_device_is_healthy_and_says_what_came_and_went(make_lab: Any) -> None:
    engine = make_lab()
    start = _clock(engine) - timedelta(hours=3)
    c = lab_copilot(engine, [BOUNCE])
    r = ask(c, f"what's wrong with {SPINE}?")
    assert r["root_cause"]["label"] == "none"
    head = first_line(r)
    assert head.startswith(f"**{SPINE} now: no fault open**"), head
    assert "cleared since" in head and f"{start:%H:%M}–{start + timedelta(minutes=6):%H:%M}" in head
    r = ask(c, f"what happened to {SPINE}?", "t2")  # asked as a timeline: the event answers
    assert (r["root_cause"]["label"], r["root_cause"]["device"]) == ("link.down", SPINE)
    assert "came and went in the last 6h" in first_line(r)


def test_a_flow_asked_about_its_window_names_the_link_that_came_and_went(make_lab: Any) -> None:
    """A link of the flow's path (dc1-spine-02 to dc1-leaf-13) down 17:00–17:06: asked about
    that window, it is the window's fault, routed around (the paths still delivered); asked
    now, the path is healthy and the link is only what came and went."""
    engine = make_lab()
    start = _clock(engine) - timedelta(hours=3)
    c = lab_copilot(engine, [{**BOUNCE, "target": {"link": f"{SPINE}:Ethernet13"}}])
    a, b = start - timedelta(minutes=5), start + timedelta(minutes=15)
    r = ask(c, f"users on 10.2.27.20 had problems reaching 10.1.13.20 between {a:%H:%M} and "
               f"{b:%H:%M} UTC")
    rc = r["root_cause"]
    assert rc["label"] == "link.down" and rc["device"] in (SPINE, "dc1-leaf-13"), rc
    head = first_line(r)
    assert "Began and ended in the window" in head and "**Nearby, and routed around" in head
    r = ask(c, "users on 10.2.27.20 report problems reaching 10.1.13.20", "t2")
    assert r["root_cause"]["label"] == "none" and "Earlier on this path" in first_line(r)


def test_engine_diagnose_takes_the_window(make_lab: Any) -> None:
    engine = make_lab()
    start = _clock(engine) - timedelta(hours=3)
    lab_copilot(engine, [REBOOT])
    win = {"start": _iso(start - timedelta(minutes=5)), "end": _iso(start + timedelta(minutes=10))}
    now = diagnose(lab_backends(engine), src="10.2.27.20", dst="10.1.13.20")
    then = diagnose(lab_backends(engine), src="10.2.27.20", dst="10.1.13.20", window=win)
    assert now.diagnosis.label == "none" and then.diagnosis.label == "device.reboot"
    assert {str(e.args.get("window")) for e in then.evidence if e.tool == "changelog"} == {str(win)}
    assert any(e.tool == "traceroute" and e.args.get("at") for e in then.evidence)


def _job(tmp_path: Path, question: str) -> dict[str, Any]:
    from netopsai.copilot.service import Copilot
    from netopsai.store.engine import engine_for
    from tests.diagnosis.test_job_questions import HOST

    engine = engine_for(f"sqlite:///{tmp_path / 'ai.db'}")
    inject(engine, Scenario.model_validate({
        "id": "job-w", "lab": {"spec": "ai", "scale": "small", "seed": 7},
        "now": "2025-11-04T20:00:00Z", "question": question,
        "faults": [{"kind": "rail_link_down", "at": "-25m", "target": {"link": f"{HOST}:mlx5_2"},
                    "params": {"for_min": 6}}]}))
    assert lab_info(engine).clock
    r = Copilot(lab_backends(engine)).answer(question, "t")
    assert contradictions(r["answer"], r["evidence"], r["root_cause"], question) == []
    return r


@pytest.mark.parametrize("when,found", [("at 19:40", True), ("at 19:20", False), ("", None)])
def test_a_job_asked_at_a_time_gets_what_came_and_went(tmp_path: Path, when: str,
                                                       found: bool | None) -> None:
    from tests.diagnosis.test_job_questions import HOST

    r = _job(tmp_path, f"job 4711 hit an NCCL timeout {when}")
    rc = r["root_cause"]
    head = first_line(r)
    if found:  # 19:10–19:50 holds the link's 19:35–19:41
        assert (rc["label"], rc["device"], rc["interface"]) == ("link.down", HOST, "mlx5_2")
        assert "came and went" in head and f"LINK_DOWN on {HOST} mlx5_2 2025-11-04 19:35–19:41 UTC" in head
    elif found is False:  # 18:50–19:30: before it
        assert rc["label"] == "none" and "came and went" not in head
    else:  # no time asked: a bounce 20 minutes ago is told, not made the cause of now
        assert rc["label"] == "none" and "now: nothing down" in head and "cleared since" in head
        assert f"LINK_DOWN on {HOST} mlx5_2 2025-11-04 19:35–19:41 UTC" in head


@pytest.mark.parametrize("value", [0, -3, "soon", 20_000])
def test_a_bad_for_min_is_refused_before_the_lab_is_touched(value: Any) -> None:
    from netopsai.common.errors import NetopsError
    from netopsai.lab.scenario import FaultSpec

    with pytest.raises(NetopsError, match="for_min"):
        FaultSpec.model_validate({**BOUNCE, "params": {"for_min": value}}).check_params()
