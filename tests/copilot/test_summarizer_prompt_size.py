"""The LLM summarizer's prompt holds summaries and small previews (issue 25 follow-up): a
diagnosis that reads more evidence (the way back, the last hours' alarms) must not grow the
prompt row by row. Long argument lists are cut and counted; every evidence id is still listed
for the model to cite."""

from __future__ import annotations

from typing import Any

from netopsai.arena.scripted import ScriptedChat
from netopsai.copilot.evidence import Evidence
from netopsai.copilot.prompt_evidence import FIRST_ROWS, evidence_view
from netopsai.copilot.summarizer_llm import write

DEVICES = [f"dc1-leaf-{i:02d}" for i in range(20)]


def _alarms(eid: str, n: int) -> Evidence:
    rows = [{"id": i, "kind": "LINK_FLAP", "device": DEVICES[i % 20], "state": "open",
             "interface": None} for i in range(n)]
    return Evidence(id=eid, tool="alarms", args={"devices": DEVICES, "window": "6h"},
                    summary=f"{n} alarms in the window", rows=rows)


def _trace(eid: str, src: str, dst: str) -> Evidence:
    rows = [{"hop": h, "device": DEVICES[h]} for h in range(1, 9)]
    return Evidence(id=eid, tool="traceroute", args={"src": src, "dst": dst},
                    summary=f"Traceroute {src} -> {dst} reached the destination", rows=rows)


EVIDENCE = [_trace("E1", "10.1.1.2", "10.2.2.2"), _alarms("E2", 40),
            _trace("E3", "10.2.2.2", "10.1.1.2")]


def test_previews_are_small_and_every_row_count_is_told() -> None:
    text = evidence_view(EVIDENCE)
    assert text.count('"kind":"LINK_FLAP"') == FIRST_ROWS
    assert "rows: 40 (first 3)" in text
    assert text.count('"hop":') == FIRST_ROWS + 1  # the way back: its summary and one row
    assert '"interface"' not in text  # empty fields are left out


def test_long_lists_are_cut_and_counted() -> None:
    text = evidence_view(EVIDENCE)
    assert '"+17 more"' in text
    assert DEVICES[10] not in text.split("[E2]")[1].split("\n")[0]


def test_the_summarizer_sends_the_small_view_and_cites_every_id() -> None:
    sent: list[str] = []

    class Seen(ScriptedChat):
        def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None,
                      **kwargs: Any) -> Any:
            sent.append(messages[-1].text)
            return super()._generate(messages, stop, run_manager, **kwargs)

    out = write(Seen(), "is 10.1.1.2 to 10.2.2.2 ok?", EVIDENCE, "", {"E1", "E2", "E3"})
    assert out.answer is not None and all(f"[E{i}]" in out.answer for i in (1, 2, 3))
    assert sent and sent[0].count('"kind":"LINK_FLAP"') == FIRST_ROWS  # not the old 5 rows
    assert '"+17 more"' in sent[0]
