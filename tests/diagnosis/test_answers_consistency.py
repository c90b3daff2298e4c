"""The headline/evidence consistency check (netopsai/diagnosis/consistency.py, issue 25 item 6):
each rule fails an answer whose headline contradicts its own evidence rows, and passes the same
answer once it agrees with them. Evidence is built by hand here, so each rule is tested alone;
test_answers_headline.py runs it over real answers from the lab."""

from __future__ import annotations

from typing import Any

from netopsai.copilot.evidence import Evidence
from netopsai.diagnosis.consistency import contradictions, headline

PATH = ["dc2-leaf-03", "dc2-spine-01", "dc2-border-02", "dc1-dci-01", "dc1-leaf-12"]
WINDOWS = "\n- **Windows read:** alarms 2025-11-04 19:00–20:00 UTC [E2]"


def trace(reached: bool = True, good: int = 144, paths: int = 144, eid: str = "E1") -> Evidence:
    return Evidence(id=eid, tool="traceroute", args={"src": "10.2.3.40", "dst": "10.1.12.50"},
                    window={"start": "2025-11-04T20:00:00Z", "end": "2025-11-04T20:00:00Z"},
                    rows=[{"hop": 1, "device": PATH[0], "loss_pct": 0.0}],
                    facts={"reached": reached, "good_paths": good, "ecmp_paths": paths,
                           "stopped_at": None if reached else "dc2-border-02",
                           "path_devices": PATH, "ecmp_devices": PATH})


def alarms(*rows: dict[str, Any], eid: str = "E2") -> Evidence:
    return Evidence(id=eid, tool="alarms", args={"window": "1h"}, rows=list(rows),
                    window={"start": "2025-11-04T19:00:00Z", "end": "2025-11-04T20:00:00Z"})


def alarm(device: str, peer: str | None = None, state: str = "open", kind: str = "LINK_DOWN",
          interface: str | None = "Ethernet1") -> dict[str, Any]:
    return {"device": device, "peer": peer, "state": state, "kind": kind, "interface": interface,
            "raised_at": "2025-11-04T19:33:00Z"}


DCI = {"label": "dci.link_down", "device": "dc2-border-02"}


def test_a_break_headlined_as_the_cause_of_a_flow_that_delivers_everywhere_fails() -> None:
    ev = [trace(), alarms(alarm("dc2-border-02", "dc2-dci-02"))]
    old = ("**Likely root cause: a DCI or backbone link is down at dc2-border-02** [E2]. "
           "It communicates [E1]." + WINDOWS)
    problems = contradictions(old, ev, DCI)
    assert any("headlined over a flow delivering on all 144 paths" in p for p in problems)
    assert any("does not say first whether the pair can reach" in p for p in problems)
    new = ("**Reachable: yes** — 144 of 144 equal-cost paths deliver, no probe lost [E1]. "
           "**Nearby, and routed around: a DCI or backbone link is down at dc2-border-02** [E2]"
           + WINDOWS)
    assert contradictions(new, ev, DCI) == []


def test_a_reachability_answer_the_trace_does_not_bear_out_fails() -> None:
    rc = {"label": "config.acl_block", "device": "dc2-border-02"}
    yes = "**Reachable: yes** — ... [E1]. **Likely root cause: an ACL** [E1]" + WINDOWS
    assert any("trace stops at dc2-border-02" in p
               for p in contradictions(yes, [trace(False, 0), alarms()], rc))
    no = "**Reachable: no** — ... [E1]. **Likely root cause: an ACL** [E1]" + WINDOWS
    assert contradictions(no, [trace(False, 0), alarms()], rc) == []
    assert any("reaches the destination" in p for p in contradictions(no, [trace(), alarms()], rc))


def test_healthy_over_an_open_alarm_on_a_traced_link_fails_and_off_path_ones_do_not() -> None:
    none = {"label": "none", "device": None}
    text = "**Reachable: yes** — [E1]. **No fault found on this path.** Healthy [E1][E2]" + WINDOWS
    on = alarms(alarm("dc2-spine-01", "dc2-border-02", kind="CRC_ERRORS"))
    assert contradictions(text, [trace(), on], none) == [
        "'healthy' headline over the open CRC_ERRORS on dc2-spine-01 Ethernet1"]
    skip = alarms(alarm("dc2-leaf-03", "dc1-leaf-12"))  # both ends on the path, not one hop apart
    off = alarms(alarm("dc1-leaf-99", "dc1-spine-01"))
    closed = alarms(alarm("dc2-spine-01", "dc2-border-02", state="closed"))
    for ev in (skip, off, closed):
        assert contradictions(text, [trace(), ev], none) == []


def test_a_device_said_healthy_over_its_own_open_alarm_fails() -> None:
    nbrs = Evidence(id="E3", tool="metadata", args={"query": "neighbors", "name": "dc1-spine-04"})
    text = ("**No fault found on dc1-spine-04.** dc1-spine-04 looks healthy [E2]" + WINDOWS)
    own = alarms(alarm("dc1-spine-04", "dc1-leaf-05", interface="Ethernet5"))
    rc = {"label": "none", "device": "dc1-spine-04"}
    assert contradictions(text, [nbrs, own], rc) == [
        "'healthy' headline over the open LINK_DOWN on dc1-spine-04 Ethernet5"]
    theirs = alarms(alarm("dc1-leaf-05", kind="DEVICE_UNREACHABLE", interface=None))
    assert contradictions(text, [nbrs, theirs], rc) == []


def test_alarm_counts_and_no_open_alarm_are_read_against_the_cited_rows() -> None:
    two = alarms(alarm("dc2-border-02", "dc2-dci-02"), alarm("dc2-dci-02", "dc2-border-02"),
                 eid="E1")
    assert contradictions("0 dci alarms in the window (0 open, 0 closed). [E1]", [two]) == [
        "'0 alarms (0 open)' but the cited rows hold 2 (2 open)"]
    assert contradictions("2 dci alarms in the window (2 open, 0 closed; counted: dci, "
                          "backbone). [E1]", [two]) == []
    assert contradictions("There are 0 alarms here [E1]", [two]) == [
        "'0 alarms' but the cited evidence holds 2"]
    flow = ("**Reachable: yes** [E1]. **No fault found on this path.** [E1]\n\n"
            "- no open alarm on the flow's devices or the links between them [E2]")
    assert contradictions(flow, [trace(), alarms(alarm("dc2-spine-01", "dc2-border-02"))])
    assert contradictions(flow, [trace(), alarms(alarm("dc9-x", "dc9-y"))]) == []


def test_since_not_shown_over_a_change_or_open_alarm_on_the_culprit_fails() -> None:
    rc = {"label": "config.acl_block", "device": "dc1-leaf-03"}
    text = ("**Reachable: no** [E1]. **Likely root cause: an ACL at dc1-leaf-03** [E1]\n"
            "- **Since:** not shown: no change record or open alarm on dc1-leaf-03 [E3]" + WINDOWS)
    change = Evidence(id="E3", tool="changelog", rows=[{"device": "dc1-leaf-03",
                                                        "ticket": "CHG-1042"}])
    assert contradictions(text, [trace(False, 0), change], rc) == [
        "'Since: not shown' while the evidence has change CHG-1042 on dc1-leaf-03"]
    other = Evidence(id="E3", tool="changelog", rows=[{"device": "dc1-leaf-04", "ticket": "X"}])
    assert contradictions(text, [trace(False, 0), other], rc) == []


def test_still_happening_needs_yes_or_no_and_a_diagnosis_names_its_windows() -> None:
    rc = {"label": "config.acl_block", "device": "dc1-leaf-03"}
    body = "**Reachable: no** [E1]. **Likely root cause: an ACL at dc1-leaf-03** [E1]"
    ev = [trace(False, 0), alarms()]
    assert contradictions(body + WINDOWS, ev, rc, "is it still happening?") == [
        "'still happening?' is not answered yes or no first"]
    still = "**Still happening: yes** — the trace still fails [E1]. " + body + WINDOWS
    assert contradictions(still, ev, rc, "is it still happening?") == []
    assert contradictions(body, ev, rc) == ["the diagnosis does not name the windows it read"]


def test_the_headline_skips_the_window_line_and_notes() -> None:
    answer = "_Window: last 2h_\n\n**Reachable: no** — x [E1].\n- **Since:** y\n\nRows of [E1]"
    assert headline(answer).startswith("**Reachable: no**")
    assert headline("_note_\n\n3 alarms in the window [E1]") == "3 alarms in the window [E1]"
