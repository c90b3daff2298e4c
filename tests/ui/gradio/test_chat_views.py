"""What the chat shows, without a browser: device names linked to their pages, the answer's
rows folded below its prose, adjacent citations all linked, evidence tables paged (never cut
without a word) with the hop status beside the device, a path table that keeps its last hop,
and a resumed thread that shows the steps of every turn."""

from __future__ import annotations

import re
from typing import Any

from gradio import ChatMessage

from netopsai.copilot.evidence import Evidence
from netopsai.copilot.service import Copilot
from netopsai.copilot.summarizer import TABLE_ROWS, table
from netopsai.ui.gradio.chat import ChatHandler, answer_parts, thread_key
from netopsai.ui.gradio.views import MAX_PAGES, MAX_ROWS, inert, link_citations, link_devices, rows_table

NAMES = {"dc1-spine-04", "dc1-leaf-03"}


def test_device_names_link_to_their_pages_outside_code() -> None:
    text = link_devices("ACL at dc1-spine-04 (`dc1-spine-04`), not dc1-spine-040 or x-dc1-leaf-03; "
                        "dc1-leaf-03.", NAMES)
    assert text.count("[dc1-spine-04](?device=dc1-spine-04)") == 1  # not inside the code span
    assert "`dc1-spine-04`" in text
    assert "dc1-spine-040" in text and "x-dc1-leaf-03" in text  # longer names stay text
    assert text.endswith("[dc1-leaf-03](?device=dc1-leaf-03).")


def test_adjacent_citations_are_all_links() -> None:
    linked = link_citations(inert("no alarm [E3][E4], see [E9]"), {"E3", "E4"})
    assert re.findall(r"\(#ev-(E\d)\)", linked) == ["E3", "E4"]
    assert "\\[\\[" not in linked and linked.endswith("[E9]")  # unknown ids are left as text


ANSWER = ("**Likely root cause: an ACL blocks the traffic at dc1-spine-04** [E1]\n\n"
          "#### Next steps\n- look\n\nRows of [E1] (traceroute):\n\n| hop | device |\n|---|---|\n"
          "| 1 | dc1-leaf-03 |\n\nRows of [E2] (changelog):\n\n| ticket |\n|---|\n| CHG-1 |\n\n"
          "### Evidence\n- [E1] traceroute {}")


def test_a_diagnosis_folds_its_rows_and_evidence_below_the_prose() -> None:
    prose, folded = answer_parts(ANSWER, {"E1", "E2"}, NAMES)
    assert "Rows of" not in prose and "### Evidence" not in prose
    assert "[dc1-spine-04](?device=dc1-spine-04)" in prose
    assert isinstance(folded, ChatMessage)
    assert folded.metadata["title"] == "rows behind the answer (2 tables) and the evidence list"
    assert "CHG-1" in folded.content and "(#ev-E2)" in folded.content
    lookup, listed = answer_parts(ANSWER, {"E1", "E2"}, NAMES, diagnosed=False)
    assert "Rows of" in lookup and "CHG-1" in lookup  # a lookup's rows are its answer
    assert "### Evidence" not in lookup and listed is not None
    assert listed.metadata["title"] == "the evidence list"
    only_rows, none = answer_parts("Rows of [E1] (x):\n\n| a |\n|---|\n| 1 |", {"E1"}, NAMES)
    assert none is None and "| 1 |" in only_rows  # an answer that is only rows keeps them


def _cells(html_text: str) -> list[str]:
    return re.findall(r"<td[^>]*>([^<]*)</td>", html_text)


def test_long_evidence_tables_page_instead_of_cutting() -> None:
    n = MAX_ROWS * 2 + 7
    out = rows_table(["n"], [{"n": f"r{i}"} for i in range(n)])
    assert _cells(out) == [f"r{i}" for i in range(n)]  # every row, in order
    assert f"rows {MAX_ROWS + 1}–{2 * MAX_ROWS} of {n}" in out
    assert f"rows {2 * MAX_ROWS + 1}–{n} of {n}" in out
    huge = MAX_ROWS * MAX_PAGES + 5
    out = rows_table(["n"], [{"n": i} for i in range(huge)])
    assert len(_cells(out)) == MAX_ROWS * MAX_PAGES and "5 more rows" in out


def test_hop_status_sits_beside_the_device_and_prose_wraps() -> None:
    out = rows_table(["hop", "ip", "device", "interface", "status", "summary"],
                     [{"hop": 1, "ip": "10.0.0.1", "device": "a", "interface": "e1", "status": "!X",
                       "summary": "long words here"}])
    assert re.findall(r"<th>(\w+)</th>", out) == ["hop", "ip", "device", "status", "interface", "summary"]
    assert '<td class="np-text">long words here</td>' in out


def test_a_long_path_table_in_the_answer_keeps_its_last_hop() -> None:
    hops = TABLE_ROWS + 3
    ev = Evidence(tool="traceroute", summary="s", columns=["hop", "device", "status"],
                  rows=[{"hop": i, "device": f"d{i}", "status": "ok"} for i in range(1, hops + 1)])
    ev.id = "E1"
    md = table(ev)
    body = [line for line in md.splitlines() if line.startswith("| ") and "hop" not in line]
    assert len(body) == TABLE_ROWS and body[-1].startswith(f"| {hops} | d{hops} |")
    assert f"of {hops} rows" in md


def test_a_resumed_thread_shows_every_turns_steps(backends: Any) -> None:
    copilot = Copilot(backends)
    chat = ChatHandler(copilot)
    live: list[Any] = []
    for q in ("10.1.3.20 to 10.2.1.40 not communicating", "who owns 10.1.3.20?"):
        *_, last = chat.turn(q, live, "t-resume")
        live = last.history
    resumed = chat.resume("t-resume").history

    def outline(history: list[Any]) -> list[str]:
        return [m["role"] if isinstance(m, dict) else (m.metadata or {}).get("title", "answer")
                for m in history]
    assert outline(resumed) == outline(live)
    assert sum(1 for t in outline(resumed) if t.startswith("planner")) >= 2
    trail = copilot.trail(thread_key("t-resume", None))  # web threads live under web:
    assert [s.node for s in trail[1]] == ["planner", "tools", "summarizer"]
    assert all(s.ms >= 0 for turn in trail for s in turn)


def test_the_time_picker_applies_to_a_question_that_names_no_window(backends: Any) -> None:
    chat = ChatHandler(Copilot(backends))
    picked = {"start": "2025-11-04T17:00:00Z", "end": "2025-11-04T18:30:00Z"}
    for question, window, wanted in (
            ("any alarms on dc1-spine-01?", "6h", "6h"),
            ("any alarms on dc1-spine-01 in the last 2 hours?", "6h", "2h"),  # the question wins
            ("any alarms on dc1-spine-01?", picked, picked),
            ("any alarms on dc1-spine-01?", None, None)):
        # a web thread id is letters, digits, - and _ only
        thread = re.sub(r"[^A-Za-z0-9_-]", "_", f"w-{question[-6:]}-{window}")[:64]
        *_, final = chat.turn(question, [], thread, window=window)
        [first] = [e for e in final.turn_evidence if e["tool"] == "alarms"]
        assert first["args"].get("window") == wanted, (question, window, first["args"])
        lead = chat.conversation(thread).answer.splitlines()[0]
        assert lead.startswith("_Window:") == (wanted is not None)


def test_a_diagnosis_step_shows_no_none() -> None:
    from netopsai.copilot.service import Step
    from netopsai.ui.gradio.chat import step_messages

    [msg] = step_messages(Step("diagnose", {"label": "config.acl_block", "device": "dc1-spine-04",
                                            "interface": None, "confidence": 0.9, "checks_run": 1}))
    assert "None" not in msg.content and "interface" not in msg.content
    assert "- device: `dc1-spine-04`" in msg.content


def test_a_resumed_thread_restores_its_plot(backends: Any) -> None:
    chat = ChatHandler(Copilot(backends))
    *_, live = chat.turn("port link status across all switches since 08:00", [], "t-plot")
    resumed = chat.resume("t-plot")
    assert live.plot is not None and resumed.plot is not None
    assert resumed.plot[0] == live.plot[0] and resumed.plot[1].equals(live.plot[1])
