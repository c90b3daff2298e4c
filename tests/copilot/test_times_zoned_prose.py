"""Every time a person reads in prose carries the network's zone (issue 25 items 5 and 6): the
windows a diagnosis says it read, what came and went (episodes), a job's window and why, a job
storm's Since, Slack's alarm list and the weekly digest. The network's zone is
`Backends.zone` (config `ingest.timezone`), which reaches a diagnosis as `Context.zone`; here
it is Los Angeles (PST in November, UTC-8). In UTC the text still names its zone. Evidence
rows stay ISO UTC. (tests/copilot/test_times_zoned.py: pages, Since, evidence tables.)"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.common.localtime import at, events, span
from netopsai.copilot.evidence import Evidence
from netopsai.copilot.service import Copilot
from netopsai.diagnosis.answer import windows
from netopsai.diagnosis.episodes import told
from netopsai.diagnosis.job_window import hosts_window, job_window

LA = "America/Los_Angeles"
WIN = {"start": "2026-11-27T17:00:00Z", "end": "2026-11-27T18:00:00Z"}  # 09:00–10:00 PST
NOW = {"start": "2026-11-27T18:00:00Z", "end": "2026-11-27T18:00:00Z"}  # a trace's moment


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def _no_bare_utc(text: str, hhmm: str) -> None:
    """`hhmm`, a UTC wall time, is not shown on its own: only as the UTC beside a local time."""
    for m in re.finditer(re.escape(hhmm), text):
        assert "UTC" in text[m.end():m.end() + 12] and "(" in text[max(0, m.start() - 30):m.start()], \
            f"bare UTC {hhmm} in {text!r}"


# -- the helper (common/localtime.py) ---------------------------------------------------------

def test_the_helper_names_the_zone_in_both_cases() -> None:
    assert at("2026-11-27T17:41:20Z", LA) == "2026-11-27 09:41 PST"
    assert at("2026-11-27T17:41:20Z", LA, beside=True) == "2026-11-27 09:41 PST (17:41 UTC)"
    assert at("2026-11-27T17:41:20Z", "UTC", beside=True) == "2026-11-27 17:41 UTC"
    assert span(WIN["start"], WIN["end"], LA) == "2026-11-27 09:00–10:00 PST (17:00–18:00 UTC)"
    assert span(WIN["start"], WIN["end"], "UTC") == "2026-11-27 17:00–18:00 UTC"
    late = span("2026-11-28T07:30:00Z", "2026-11-28T08:30:00Z", LA)  # 23:30 PST the day before
    assert late == "2026-11-27 23:30 – 2026-11-28 00:30 PST (2026-11-28 07:30–08:30 UTC)"
    assert events("2026-11-27 17:41:20 down; read down", LA) == "2026-11-27 09:41:20 PST down; read down"
    assert events("2026-11-27 17:41:20 down", "UTC") == "2026-11-27 17:41:20 UTC down"  # named


# -- the windows a diagnosis read (diagnosis/answer.py) ---------------------------------------

def _read(eid: str, tool: str, window: dict[str, str], **args: Any) -> Evidence:
    return Evidence(id=eid, tool=tool, args={**args}, window=window, rows=[])


def test_the_windows_read_are_in_the_network_zone() -> None:
    evs = [_read("E1", "traceroute", NOW, src="a", dst="b"), _read("E2", "alarms", WIN),
           _read("E3", "changelog", WIN)]
    pst = windows(evs, LA)
    assert pst is not None
    assert pst.text == ("traces at 2026-11-27 10:00 PST (18:00 UTC) (now); alarms and changes "
                        "2026-11-27 09:00–10:00 PST (17:00–18:00 UTC)")
    _no_bare_utc(pst.text, "17:00")
    utc = windows(evs, "UTC")
    assert utc is not None and utc.text == ("traces at 2026-11-27 18:00 UTC (now); alarms and "
                                            "changes 2026-11-27 17:00–18:00 UTC")


# -- what came and went (diagnosis/episodes.py) --------------------------------------------------

EPISODE = ("E4", {"id": 9, "kind": "LINK_DOWN", "device": "leaf3", "interface": "Ethernet1",
                  "state": "closed", "raised_at": "2026-11-27T17:35:00Z",
                  "cleared_at": "2026-11-27T17:41:00Z"})


def test_an_episode_is_told_in_the_network_zone() -> None:
    assert told([EPISODE], LA) == "LINK_DOWN on leaf3 Ethernet1 2026-11-27 09:35–09:41 PST"
    assert told([EPISODE], "UTC") == "LINK_DOWN on leaf3 Ethernet1 2026-11-27 17:35–17:41 UTC"


# -- a job's window and why (diagnosis/job_window.py) ------------------------------------------

JOB = {"start": "2025-11-04T17:00:00Z", "until": "2025-11-04T20:00:00Z", "end": None}


@pytest.mark.parametrize("at_, question, said", [
    (None, "job 1 slow since the restart",
     "since job 1 (re)started at 09:00 PST (the question asks since the restart) up to 12:00 PST"),
    ("2025-11-04T19:40:00Z", "job 1 hit a timeout at 11:40",
     "30 minutes before to 10 minutes after 11:40 PST (the time the question gives), clamped to "
     "the job's run (job 1 has run since 09:00 PST, still running at 12:00 PST)"),
    ("2025-11-04T14:02:00Z", "job 1 hit a timeout at 06:02",
     "2025-11-04 06:02 PST, the time the question gives, is outside job 1's run"),
    (None, "job 1 hit a timeout", "job 1's whole run, from its start at 09:00 PST to 12:00 PST"),
])
def test_a_jobs_window_is_said_in_the_network_zone(at_: str | None, question: str, said: str) -> None:
    why = job_window(JOB, "job 1", None, at_, question, LA).why
    assert why.startswith(said), why
    assert "UTC" not in why  # no time of it in UTC, bare or marked
    utc = job_window(JOB, "job 1", None, at_, question).why  # a UTC network: named UTC
    assert re.search(r"\d\d:\d\d UTC", utc) and not re.search(r"\d\d:\d\d(?! UTC)(?!:)", utc), utc


def test_hosts_without_a_job_say_their_window_in_the_network_zone() -> None:
    why = hosts_window(None, "2025-11-04T19:55:00Z", "NCCL timeouts at 11:55",
                       "2025-11-04T20:00:00Z", LA).why
    assert "30 minutes before to 10 minutes after 11:55 PST" in why
    assert why.endswith("cut at now (12:00 PST)")
    given = hosts_window({"start": "2025-11-04T19:00:00Z", "end": "2025-11-04T20:00:00Z"},
                         None, "q", None, LA).why
    assert given == "the window the question gave (2025-11-04 11:00–12:00 PST (19:00–20:00 UTC))"


# -- Slack's alarm list (ui/slack/alarm_list.py) -----------------------------------------------

ALARM = {"id": 7, "severity": "critical", "kind": "LINK_DOWN", "device": "leaf3",
         "interface": "Ethernet1", "state": "open", "raised_at": "2026-11-27T17:41:20Z"}


def test_slacks_alarm_list_shows_the_network_zone() -> None:
    from netopsai.ui.slack.alarm_list import alarm_blocks, alarm_line

    line = alarm_line(ALARM, zone=LA)
    assert "open since 2026-11-27 09:41 PST (17:41 UTC)" in line
    _no_bare_utc(line, "17:41")
    assert "open since 2026-11-27 17:41 UTC" in alarm_line(ALARM)  # UTC: named
    blocks = alarm_blocks([ALARM], {}, LA)
    assert "09:41 PST" in blocks[0]["text"]["text"]


# -- the weekly digest (reliability/digest.py) -------------------------------------------------

def test_the_digest_states_its_window_in_the_network_zone() -> None:
    from netopsai.reliability.digest import digest_blocks, digest_text
    from tests.reliability.test_reliability_render import fixed_report

    rep = replace(fixed_report(), zone="America/New_York")  # 2026-03-09 12:00Z is 08:00 EDT
    title = digest_blocks(rep)[0]["text"]["text"]
    assert title == ("Reliability 2026-03-09 08:00 – 2026-03-10 08:00 EDT "
                     "(12:00 – 2026-03-10 12:00 UTC) by pod")
    assert digest_text(rep).startswith(title + ": ")
    utc = digest_blocks(fixed_report())[0]["text"]["text"]
    assert utc == "Reliability 2026-03-09 12:00 – 2026-03-10 12:00 UTC by pod"


def test_the_report_table_states_its_window_and_cases_in_the_network_zone() -> None:
    """`netopsai report reliability` in the terminal: the window and each repeat offender's
    cases on the network's clock; the report's own case_list (the exports) stays UTC."""
    import io

    from rich.console import Console

    from netopsai.reliability.export import to_csv
    from netopsai.reliability.text import print_report
    from tests.reliability.test_reliability_render import fixed_report

    rep = replace(fixed_report(), zone="America/New_York")
    buf = io.StringIO()
    print_report(rep, Console(file=buf, width=200, soft_wrap=True))
    shown = buf.getvalue()
    assert shown.startswith("reliability 2026-03-09 08:00 – 2026-03-10 08:00 EDT "
                            "(12:00 – 2026-03-10 12:00 UTC) by pod: ")
    assert "C1 LINK_DOWN 2026-03-09 12:00 EDT (16:00 UTC); C2 LINK_DOWN 2026-03-09 22:00 EDT" in shown
    assert "C1 LINK_DOWN 2026-03-09 16:00; C2" in to_csv(rep)  # the export: UTC, as parsed


# -- end to end: a lab whose network is in Los Angeles ---------------------------------------

def _zoned(engine: Any, zone: str = LA) -> Copilot:
    return Copilot(replace(lab_backends(engine), zone=zone))


def test_a_device_timeline_and_its_windows_are_in_the_network_zone(make_lab: Any) -> None:
    """dc1-spine-02's link down for 6 minutes 3 hours ago: the timeline names its start and end
    on the network's clock, and the windows read are said there too."""
    from tests.diagnosis.test_answers_device_window import BOUNCE, SPINE, first_line, lab_copilot
    from tests.diagnosis.test_answers_window import _clock

    engine = make_lab()
    start = _clock(engine) - timedelta(hours=3)
    lab_copilot(engine, [BOUNCE])  # the faults, on the lab; asked through a copilot in LA
    a, b = start - timedelta(minutes=5), start + timedelta(minutes=15)
    r = _zoned(engine).answer(f"what happened to {SPINE} between {a:%H:%M} and {b:%H:%M} UTC "
                              f"on {a:%Y-%m-%d}?", "t")
    local = start.astimezone(ZoneInfo(LA))
    ended = local + timedelta(minutes=6)
    head = first_line(r)
    assert f"LINK_DOWN on {SPINE} Ethernet1 {local:%Y-%m-%d %H:%M}–{ended:%H:%M %Z}" in head, head
    assert f"{start:%H:%M}–" not in head.replace(f"({start:%H:%M}", "")  # no bare UTC start
    win = next(x for x in r["answer"].splitlines() if x.startswith("- **Windows read:**"))
    la, lb = a.astimezone(ZoneInfo(LA)), b.astimezone(ZoneInfo(LA))
    assert f"{la:%Y-%m-%d %H:%M}–{lb:%H:%M %Z} ({a:%H:%M}–{b:%H:%M} UTC)" in win, win


def _storm_lab(tmp_path: Path) -> Any:
    """The AI lab at 2025-11-04 20:00Z (12:00 PST): job 4711 from 17:00Z, a host NIC storming
    since 19:35Z (11:35 PST)."""
    from netopsai.lab.inject import inject
    from netopsai.lab.scenario import Scenario
    from netopsai.store.engine import engine_for
    from tests.diagnosis.test_job_questions import HOST, QUESTION

    engine = engine_for(f"sqlite:///{tmp_path / 'ai.db'}")
    inject(engine, Scenario.model_validate({
        "id": "job-zone", "lab": {"spec": "ai", "scale": "small", "seed": 7},
        "now": "2025-11-04T20:00:00Z", "question": QUESTION,
        "faults": [{"at": "-25m", "kind": "pfc_storm", "target": {"interface": f"{HOST}:mlx5_2"}}]}))
    return engine


def _since(r: dict[str, Any]) -> str:
    return next(ln for ln in r["answer"].splitlines() if "**Since:**" in ln)


def test_a_job_storm_and_its_window_are_in_the_network_zone(tmp_path: Path) -> None:
    """Since is the leaf's watchdog at 11:35 PST, the window's why in PST; the rows stay UTC."""
    from tests.diagnosis.test_job_questions import LEAF, QUESTION

    r = _zoned(_storm_lab(tmp_path)).answer(QUESTION, "t")
    since = _since(r)
    assert f"2025-11-04 11:35:00 PST, when the PFC watchdog on {LEAF} Ethernet2" in since, since
    assert "19:35" not in since
    assert ("window read: 2025-11-04 09:00–12:00 PST (17:00–20:00 UTC): job 4711's whole run, "
            "from its start at 09:00 PST to 12:00 PST") in r["answer"]
    wd = [row for e in r["evidence"] if e["tool"] == "alarms" for row in e["rows"]
          if row["kind"] == "PFC_WATCHDOG"]
    assert wd and wd[0]["raised_at"] == "2025-11-04T19:35:00Z"  # the row: ISO UTC, as parsed


def test_a_storm_without_a_watchdog_starts_in_the_network_zone(tmp_path: Path) -> None:
    """The watchdog off (no alarm): the storm's start is its first 5-minute sample at storm rate,
    said in PST both for the job (diagnosis/job_storm.py) and for the host (headline.py)."""
    from sqlmodel import Session, select

    from netopsai.store import tables as m
    from tests.diagnosis.test_job_questions import HOST, QUESTION

    engine = _storm_lab(tmp_path)
    with Session(engine) as s:
        for a in s.exec(select(m.Alarm).where(m.Alarm.kind == "PFC_WATCHDOG")):
            s.delete(a)
        s.commit()
    c = _zoned(engine)
    said = (f"2025-11-04 11:35:00 PST, the start of the first 5-minute sample in which {HOST} "
            "mlx5_2 passed 1,000,000 pause frames (to 11:40 PST)")
    assert said in _since(c.answer(QUESTION, "job")), _since(c.answer(QUESTION, "job2"))
    assert said in _since(c.answer(f"what is wrong with {HOST}?", "host"))


def test_a_flow_past_window_is_told_in_the_network_zone(make_lab: Any) -> None:
    """A flow asked about the window its link came and went in: the episode and the moment
    traced are said on the network's clock."""
    from tests.diagnosis.test_answers_device_window import BOUNCE, SPINE, first_line, lab_copilot
    from tests.diagnosis.test_answers_window import _clock

    engine = make_lab()
    start = _clock(engine) - timedelta(hours=3)
    lab_copilot(engine, [{**BOUNCE, "target": {"link": f"{SPINE}:Ethernet13"}}])
    a, b = start - timedelta(minutes=5), start + timedelta(minutes=15)
    r = _zoned(engine).answer(f"users on 10.2.27.20 had problems reaching 10.1.13.20 between "
                              f"{a:%H:%M} and {b:%H:%M} UTC", "t")
    head = first_line(r)
    local = start.astimezone(ZoneInfo(LA))
    assert f"{local:%Y-%m-%d %H:%M}–{local + timedelta(minutes=6):%H:%M %Z}" in head, head
    moment = (a + (b - a) / 2).astimezone(ZoneInfo(LA))
    assert f"{moment:%Y-%m-%d %H:%M %Z}" in r["answer"]  # the trace's moment, local
    assert isinstance(datetime.fromisoformat(r["evidence"][0]["window"]["start"]), datetime)


def _asked(c: Copilot, question: str, thread: str = "t") -> dict[str, Any]:
    """An answer that cites only its evidence and does not contradict it."""
    from netopsai.copilot.evidence import validate_citations
    from netopsai.diagnosis.consistency import contradictions

    r = c.answer(question, thread)
    assert validate_citations(r["answer"], {e["id"] for e in r["evidence"]}) == []
    assert contradictions(r["answer"], r["evidence"], r["root_cause"], question) == []
    return r


def test_the_checks_findings_are_in_the_network_zone(tmp_path: Path, make_lab: Any) -> None:
    """A dead rail leaf under a job (its unreachable alarm, the job rules) and a dead neighbour
    under a spine (the link check): the alarms' times in the findings are on the network's
    clock, as the rows' own stay ISO UTC."""
    from netopsai.lab.inject import inject
    from netopsai.lab.manage import lab_info
    from netopsai.lab.scenario import Scenario
    from netopsai.store.engine import engine_for
    from netopsai.tools.registry import run_tool
    from tests.diagnosis.test_answers_shared_cause import RAIL_LEAF, SPINE

    ai = engine_for(f"sqlite:///{tmp_path / 'ai.db'}")
    inject(ai, Scenario.model_validate({
        "id": "zone-leaf", "lab": {"spec": "ai", "scale": "small", "seed": 7},
        "now": "2025-11-04T20:00:00Z", "question": "q",
        "faults": [{"kind": "device_down", "at": "-20m", "target": {"device": RAIL_LEAF}}]}))
    head = _asked(_zoned(ai), "job 4711 hit an NCCL timeout")["answer"].split("\n", 1)[0]
    assert "an open unreachable alarm since 2025-11-04 11:40:00 PST" in head, head
    assert "19:40" not in head

    engine = make_lab()
    link = next(r for r in run_tool("metadata", {"query": "neighbors", "name": SPINE},
                                    lab_backends(engine)).rows if r["neighbor"].startswith("dc1-leaf"))
    clock = datetime.fromisoformat(str(lab_info(engine).clock).replace("Z", "+00:00"))
    inject(engine, Scenario.model_validate({
        "id": "zone-spine", "now": lab_info(engine).clock, "question": "q",
        "faults": [{"kind": "device_down", "at": "-20m", "target": {"device": link["neighbor"]}}]}))
    r = _asked(_zoned(engine), f"what's wrong with {SPINE}?")
    went = (clock - timedelta(minutes=20)).astimezone(ZoneInfo(LA))
    assert f"open LINK_DOWN alarm since {went:%Y-%m-%d %H:%M:%S %Z}" in r["answer"], r["answer"]
    assert f"{went:%Y-%m-%d %H:%M:%S %Z}, when DEVICE_UNREACHABLE was raised" in r["answer"]

