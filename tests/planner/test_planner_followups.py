"""Follow-ups in a thread for the offline planner: a short question that refers back to the
previous turn ("and its upstream switch?", "same for the last 24h", "what about dc2?", "and the
reverse?") keeps the previous intent and entities with one thing changed (planner/followup.py)."""

from __future__ import annotations

import copy

import pytest

from netopsai.backends.base import Backends
from netopsai.planner import Plan, Vocabulary, plan
from tests.planner.test_planner_rules import CLOCK, calls_of, runs_clean


@pytest.fixture(scope="module")
def vocab(backends: Backends) -> Vocabulary:
    return Vocabulary.from_inventory(backends.inventory)


def chain(vocab: Vocabulary, *questions: str) -> list[Plan]:
    plans: list[Plan] = []
    for q in questions:
        prev = plans[-1] if plans else None
        plans.append(plan(q, vocab, CLOCK, prev.entities if prev else None,
                          prev.intent if prev else None))
    return plans


TODAY = {"start": "2025-11-04T00:00:00Z", "end": "2025-11-04T20:00:00Z"}


def test_follow_up_upstream_of_an_ip_then_same_for_another(vocab: Vocabulary) -> None:
    a, b, c = chain(vocab, "who owns 10.1.3.20?", "and its upstream switch?", "same for 10.2.1.40")
    assert calls_of(b) == [["metadata", {"query": "upstream", "ip": "10.1.3.20"}]]
    assert (c.intent, calls_of(c)) == ("inventory.upstream",
                                        [["metadata", {"query": "upstream", "ip": "10.2.1.40"}]])


def test_follow_up_new_window_then_other_site(vocab: Vocabulary) -> None:
    a, b, c = chain(vocab, "what changed on dc1-spine-02 today", "same for the last 24h",
                    "what about dc2?")
    assert calls_of(a) == [["changelog", {"devices": ["dc1-spine-02"], "window": TODAY}]]
    assert calls_of(b) == [["changelog", {"devices": ["dc1-spine-02"], "window": "24h"}]]
    assert calls_of(c) == [["changelog", {"devices": ["dc2-spine-02"], "window": "24h"}]]
    assert "dc1-spine-02 in dc2 is dc2-spine-02" in c.note


def test_follow_up_site_swap_for_pods(vocab: Vocabulary) -> None:
    _, b = chain(vocab, "enumerate the names and network segments of all PoDs in dc1",
                 "what about dc2?")
    assert (b.intent, calls_of(b)) == ("inventory.pods", [["metadata", {"query": "pods", "site": "dc2"}]])


def test_follow_up_alarm_state_then_category(vocab: Vocabulary, backends: Backends) -> None:
    plans = chain(vocab, "any open DCI alarms in the last 3h", "and closed ones?", "and backbone?")
    assert [calls_of(p) for p in plans] == [
        [["alarms", {"category": "dci", "state": "open", "window": "3h"}]],
        [["alarms", {"category": "dci", "state": "closed", "window": "3h"}]],
        [["alarms", {"category": "backbone", "state": "closed", "window": "3h"}]]]
    for p in plans:
        runs_clean(p, backends)


def test_follow_up_other_metric_then_other_site(vocab: Vocabulary) -> None:
    _, b, c = chain(vocab, "top error ports in dc1 today", "what about discards?", "and dc2?")
    assert (b.intent, calls_of(b)) == ("telemetry.discards", [
        ["telemetry", {"metric": "discards", "site": "dc1", "window": TODAY}]])
    assert (c.intent, calls_of(c)) == ("telemetry.discards", [
        ["telemetry", {"metric": "discards", "site": "dc2", "window": TODAY}]])


@pytest.mark.parametrize("reverse", ["and the reverse?", "what about the return path"])
def test_follow_up_reverse_trace_then_jumbo(reverse: str, vocab: Vocabulary) -> None:
    _, b, c = chain(vocab, "trace 10.1.3.20 to 10.2.1.40", reverse, "with jumbo frames")
    assert calls_of(b) == [["traceroute", {"src": "10.2.1.40", "dst": "10.1.3.20"}]]
    assert calls_of(c) == [["traceroute", {"src": "10.2.1.40", "dst": "10.1.3.20", "size": 9000}]]


def test_follow_up_on_a_diagnosed_path(vocab: Vocabulary, backends: Backends) -> None:
    a, b, c = chain(vocab, "10.1.3.20 to 10.2.1.40 not communicating", "what changed on the path?",
                    "any alarms there in the last 2h?")
    trace = ["traceroute", {"src": "10.1.3.20", "dst": "10.2.1.40"}]
    assert (b.intent, b.recipe, calls_of(b)) == ("changes", "path_changes",
                                                 [trace, ["changelog", {"window": "24h"}]])
    assert (c.intent, c.recipe, calls_of(c)) == ("alarms", "path_alarms",
                                                 [trace, ["alarms", {"window": "2h"}]])
    runs_clean(c, backends)


def test_follow_up_neighbours_then_alarms_on_it(vocab: Vocabulary) -> None:
    _, b, c = chain(vocab, "details of dc1-leaf-03", "and its neighbours?",
                    "any alarms on it in the last 2h?")
    assert calls_of(b) == [["metadata", {"query": "neighbors", "name": "dc1-leaf-03"}]]
    assert calls_of(c) == [["alarms", {"devices": ["dc1-leaf-03"], "window": "2h"}]]


def test_a_new_question_is_not_a_follow_up(vocab: Vocabulary) -> None:
    _, b = chain(vocab, "who owns 10.1.3.20?", "list all spines in dc2")
    assert calls_of(b) == [["metadata", {"query": "devices", "site": "dc2", "role": "spine"}]]
    assert b.entities.ips == []


def test_a_follow_up_with_nothing_before_says_what_is_missing(vocab: Vocabulary) -> None:
    p = plan("and its upstream switch?", vocab, CLOCK)
    assert (p.intent, p.calls) == ("inventory.upstream", [])
    assert "needs a device name or an IP" in p.note


def test_planning_does_not_change_the_previous_entities(vocab: Vocabulary) -> None:
    first = plan("what changed on dc1-spine-02 today", vocab, CLOCK)
    before = copy.deepcopy(first.entities)
    again = [plan("what about dc2?", vocab, CLOCK, first.entities, first.intent) for _ in range(2)]
    assert first.entities == before
    assert again[0] == again[1]
