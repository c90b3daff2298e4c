"""The next move one click away (issue 26 items 8 and 9), without a browser: the chips an
answer offers are built from its evidence, a question not placed offers short examples the
planner answers, a name it did not know offers the question with the suggested names, and
"Page the on-call" drafts the headline, what was ruled out and the thread's link."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from gradio import ChatMessage
from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario
from netopsai.planner import Vocabulary, plan
from netopsai.ui.gradio.chat import ChatHandler, ChatView
from netopsai.ui.gradio.nextmove import examples, follow_ups, page_draft, ruled_out_words, tag_ruled_out

QUESTION = "10.1.3.20 to 10.2.1.40 not communicating"


@pytest.fixture
def acl_backends(make_lab: Callable[..., Engine]) -> Backends:
    engine = make_lab()
    inject(engine, Scenario.model_validate({
        "id": "next-acl", "now": lab_info(engine).clock, "question": QUESTION,
        "faults": [{"kind": "acl_block", "at": "-25m", "target": {"device": "dc1-leaf-03"},
                    "params": {"dst": "10.2.1.0/24"}}]}))
    return lab_backends(engine)


def _text(view: ChatView) -> str:
    msgs = [m for m in view.history if isinstance(m, ChatMessage) and not m.metadata]
    return str(msgs[-1].content)


def test_a_diagnosis_offers_the_reverse_path_the_upstream_switch_and_the_culprit(
        acl_backends: Backends) -> None:
    chat = ChatHandler(Copilot(acl_backends))
    views = list(chat.turn(QUESTION, [], "n1"))
    assert views[0].next == []  # the last answer's chips go while a question is worked on
    final = views[-1]
    assert final.next is not None and 2 <= len(final.next) <= 3
    assert final.next[0] == "trace 10.2.1.40 to 10.1.3.20"  # the reverse path
    assert "upstream switch of 10.1.3.20" in final.next
    assert "details of dc1-leaf-03" in final.next  # where the trace stopped
    # a chip asks in the same thread: its answer follows the first one
    second = list(chat.turn(final.next[0], final.history, "n1"))[-1]
    assert sum(1 for m in second.history if isinstance(m, dict) and m.get("role") == "user") == 2
    assert chat.resume("n1").next == second.next  # an opened thread offers the same chips


def test_page_the_on_call_drafts_headline_ruled_out_and_link(backends: Backends) -> None:
    chat = ChatHandler(Copilot(backends))
    assert "ask a question first" in chat.page("n2", None, "http://x/?thread=n2")
    asked = "what is wrong with dc1-spine-01"
    list(chat.turn(asked, [], "n2"))
    draft = chat.page("n2", None, "http://127.0.0.1:7860/?thread=n2")
    lines = draft.splitlines()
    assert lines[0].startswith("[netopsai] ") and "dc1-spine-01" in lines[0]
    assert f"Asked: {asked}" in lines
    assert "Ruled out:" in lines
    ruled = [x for x in lines if x.startswith("  - ")]
    assert ruled and not any(re.match(r"\s+- [a-z_]+\.[a-z_]+:", x) for x in ruled)  # words first
    assert any(x.endswith("(link down)") for x in ruled)  # the label last, in words
    assert lines[-1] == "Thread: http://127.0.0.1:7860/?thread=n2"
    assert "[E" not in draft  # plain words: no citation marks


def test_a_question_not_placed_is_one_line_and_clickable_examples(backends: Backends) -> None:
    chat = ChatHandler(Copilot(backends))
    final = list(chat.turn("what is the meaning of life", [], "n3"))[-1]
    text = _text(final)
    assert text.startswith("**I could not place this")
    assert "Offline, I can answer" not in text and len(text.splitlines()) <= 3
    assert final.next is not None and 2 <= len(final.next) <= 4
    vocab = Vocabulary.from_inventory(backends.inventory)
    clock = backends.inventory.clock()
    for q in final.next:  # every example offered is one the planner places
        assert plan(q, vocab, clock).intent != "unknown", q


def test_an_unknown_name_offers_the_question_with_the_suggested_names(backends: Backends) -> None:
    chat = ChatHandler(Copilot(backends))
    final = list(chat.turn("details of dc1-pod9", [], "n4"))[-1]
    vocab = Vocabulary.from_inventory(backends.inventory)
    assert final.next and all(q.removeprefix("details of ") in vocab.pods for q in final.next)
    assert "details of dc1-pod1" in final.next


def test_follow_ups_never_repeat_the_question_and_stop_at_three() -> None:
    turn: list[dict[str, Any]] = [
        {"tool": "traceroute", "args": {"src": "10.0.0.1", "dst": "10.0.0.2"},
         "rows": [{"hop": 1, "device": "a-leaf", "status": "ok"},
                  {"hop": 2, "device": "b-spine", "status": "!X"}]}]
    ents = {"endpoints": ["10.0.0.1", "10.0.0.2"], "devices": []}
    got = follow_ups("trace 10.0.0.2 to 10.0.0.1", "trace", turn, ents, {"a-leaf", "b-spine"})
    assert "trace 10.0.0.2 to 10.0.0.1" not in got and len(got) == 3
    assert got[:2] == ["upstream switch of 10.0.0.1", "details of b-spine"]  # the !X hop first


def test_ruled_out_lines_read_as_words_with_the_label_as_a_tag() -> None:
    md = ("**x**\n\n#### Ruled out\n\n- link.pfc_storm: no PFC storm seen [E3][E4]\n\n"
          "#### Next steps\n\n- a.b: c")
    out = tag_ruled_out(md)
    assert "- No PFC storm seen [E3][E4] `link pfc storm`" in out
    assert "- a.b: c" in out  # only the ruled-out section changes
    assert ruled_out_words("routing.bgp_down: no session down") == "no session down (routing bgp down)"
    assert page_draft(md, "q", "L").splitlines()[-1] == "Thread: L"
    assert examples("a plain answer with \"quotes in it\"") == []


def test_no_upstream_switch_of_an_address_the_on_call_did_not_type() -> None:
    ents = {"endpoints": ["10.254.0.15"], "ips": ["10.254.0.15"], "devices": ["dc1-leaf-03"]}
    got = follow_ups("port link status on dc1-leaf-03", "telemetry.status", [], ents, {"dc1-leaf-03"})
    assert got == ["details of dc1-leaf-03", "what changed on dc1-leaf-03 in the last 24h"]
