"""The offline planner (netopsai/planner): questions -> intent and first tool calls.

The phrasing table (data/planner_phrasings.yaml) is checked exactly against the real small lab's
vocabulary at the fixed clock; every planned call must validate against its tool's args model
and run on the lab without errors, which proves the planner speaks the tools' contract.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import yaml

from netopsai.backends.base import Backends
from netopsai.common.timewin import parse_window
from netopsai.copilot.service import Copilot
from netopsai.planner import Plan, Vocabulary, help_text, plan
from netopsai.planner.windows import parse_when
from netopsai.sandbox import worker
from netopsai.tools.registry import REGISTRY, run_tool
from tests.paths import DATA

CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)  # tests/conftest.py CLOCK, a Tuesday
TABLE: list[dict[str, Any]] = yaml.safe_load(
    (DATA / "planner_phrasings.yaml").read_text())
IDS = [row["q"] for row in TABLE]


@pytest.fixture(scope="module")
def vocab(backends: Backends) -> Vocabulary:
    assert backends.inventory.clock() == CLOCK  # the table's windows are written for this clock
    return Vocabulary.from_inventory(backends.inventory)


def calls_of(p: Plan) -> list[list[Any]]:
    return [[c.tool, c.args] for c in p.calls]


def runs_clean(p: Plan, backends: Backends) -> None:
    """Each call validates against its tool's args model and runs on the lab without errors."""
    for call in p.calls:
        REGISTRY[call.tool].args_model.model_validate(call.args)
        ev = run_tool(call.tool, call.args, backends)
        assert ev.errors == [], (call, ev.errors)


# --- the phrasing table -----------------------------------------------------------------------

def test_table_covers_the_intents() -> None:
    assert len(TABLE) >= 60
    assert len(set(IDS)) == len(IDS)
    assert {row["intent"] for row in TABLE} >= {
        "inventory.pods", "inventory.segments", "inventory.device", "inventory.devices",
        "inventory.ip", "inventory.upstream", "inventory.neighbors", "inventory.hosts",
        "inventory.sites", "alarms", "telemetry.status", "telemetry.flaps", "telemetry.errors",
        "telemetry.utilization", "telemetry.discards", "telemetry.rx_power", "changes", "trace",
        "diagnose.connectivity"}


@pytest.mark.parametrize("row", TABLE, ids=IDS)
def test_phrasing(row: dict[str, Any], vocab: Vocabulary) -> None:
    p = plan(row["q"], vocab, CLOCK)
    assert (p.intent, calls_of(p), p.recipe) == (row["intent"], row["calls"], row.get("recipe"))
    if "corrections" in row:
        assert p.entities.corrections == row["corrections"]


@pytest.mark.parametrize("row", TABLE, ids=IDS)
def test_planned_calls_validate_and_run(row: dict[str, Any], vocab: Vocabulary,
                                        backends: Backends) -> None:
    p = plan(row["q"], vocab, CLOCK)
    assert p.calls
    runs_clean(p, backends)


# --- entities ---------------------------------------------------------------------------------

@pytest.mark.parametrize("typed, name", [
    ("dc1-spine2", "dc1-spine-02"), ("dc1 leaf 3", "dc1-leaf-03"), ("DC1-LEAF-03", "dc1-leaf-03"),
    ("leaf-03 in dc1", "dc1-leaf-03"), ("dc1-lef-03", "dc1-leaf-03"), ("dc1_leaf_03", "dc1-leaf-03"),
    ("dc2-super-spine-4", "dc2-superspine-04"), ("dc2 tor 7", "dc2-leaf-07"),
    ("dc1-host-03-1", "dc1-host-03-1"), ("dc1-boarder-02", "dc1-border-02"),
])
def test_device_names_are_matched_fuzzily(typed: str, name: str, vocab: Vocabulary) -> None:
    p = plan(f"details of {typed}", vocab, CLOCK)
    assert p.entities.devices == [name]
    assert calls_of(p) == [["metadata", {"query": "device", "name": name}]]
    typed_name = typed.removesuffix(" in dc1")
    assert p.entities.corrections == ({} if typed_name == name else {typed_name: name})


def test_numbers_are_never_fuzzy(vocab: Vocabulary) -> None:
    """dc1 has leafs 01..32: leaf-33 is not leaf-03 or leaf-32, and nothing is run for it."""
    p = plan("what changed on dc1-leaf-33 today", vocab, CLOCK)
    assert p.intent == "changes" and p.calls == [] and p.entities.devices == []
    assert p.entities.unknown == ["dc1-leaf-33"]
    assert "'dc1-leaf-33' is not in the inventory; did you mean" in p.note


def test_a_site_less_name_in_two_sites_is_not_guessed(vocab: Vocabulary) -> None:
    p = plan("neighbours of leaf 3", vocab, CLOCK)
    assert p.intent == "inventory.neighbors" and p.calls == []
    assert "dc1-leaf-03 or dc2-leaf-03" in p.note


def test_the_previous_site_places_a_site_less_name(vocab: Vocabulary) -> None:
    first = plan("alarms on dc2-spine-01 in the last hour", vocab, CLOCK)
    p = plan("and spine 2?", vocab, CLOCK, first.entities, first.intent)
    assert calls_of(p) == [["alarms", {"devices": ["dc2-spine-02"], "window": "1h"}]]


@pytest.mark.parametrize("question, invalid", [
    ("who owns 10.1.3.300?", "10.1.3.300"), ("who owns 10.1.3.2000", "10.1.3.2000"),
    ("what is 10.1.3.0/33", "10.1.3.0/33"), ("who owns 256.1.1.1", "256.1.1.1"),
])
def test_invalid_addresses_are_rejected_with_a_note(question: str, invalid: str,
                                                    vocab: Vocabulary) -> None:
    p = plan(question, vocab, CLOCK)
    assert p.calls == [] and p.entities.ips == [] and p.entities.cidrs == []
    assert p.entities.invalid == [invalid]
    assert f"{invalid} is not a valid IPv4" in p.note


def test_a_trace_with_one_invalid_end_runs_nothing(vocab: Vocabulary) -> None:
    p = plan("trace 10.1.3.20 to 10.1.3.300", vocab, CLOCK)
    assert (p.intent, p.calls) == ("trace", [])
    assert "10.1.3.300 is not a valid IPv4 address" in p.note and "source and a destination" in p.note


def test_addresses_at_the_end_of_a_sentence(vocab: Vocabulary) -> None:
    p = plan("Trace from 10.1.3.20 to 10.2.1.40.", vocab, CLOCK)
    assert calls_of(p) == [["traceroute", {"src": "10.1.3.20", "dst": "10.2.1.40"}]]
    assert p.entities.ips == ["10.1.3.20", "10.2.1.40"]


def test_switches_are_traced_from_their_loopbacks(vocab: Vocabulary, backends: Backends) -> None:
    p = plan("traceroute from dc1-leaf-03 to dc2-leaf-05", vocab, CLOCK)
    src, dst = p.calls[0].args["src"], p.calls[0].args["dst"]
    assert (p.intent, len(p.calls)) == ("trace", 1)
    assert backends.inventory.ip_owner(src)["device"] == "dc1-leaf-03"
    assert backends.inventory.ip_owner(dst)["device"] == "dc2-leaf-05"
    runs_clean(p, backends)


def test_cidrs_are_networks_not_addresses(vocab: Vocabulary) -> None:
    p = plan("what is 10.2.17.0/24", vocab, CLOCK)
    assert (p.entities.cidrs, p.entities.ips) == (["10.2.17.0/24"], [])
    assert calls_of(p) == [["metadata", {"query": "segments", "pod": "dc2-pod2"}]]


def test_vocabulary_from_the_lab(vocab: Vocabulary, backends: Backends) -> None:
    sites = backends.inventory.sites()
    assert vocab.sites == ["dc1", "dc2"]
    assert vocab.pods == ["dc1-pod1", "dc1-pod2", "dc2-pod1", "dc2-pod2"]
    assert len(vocab.devices) == sum(s["network_devices"] + s["hosts"] for s in sites)
    assert vocab.roles == ["border", "dci", "host", "leaf", "spine", "superspine"]
    assert vocab.addresses["dc1-host-03-1"] == "10.1.3.20"
    assert vocab.meta["dc1-spine-02"] == {"role": "spine", "site": "dc1", "pod": "dc1-pod1"}


# --- path ends named by host, "host (IP)" or both ------------------------------------------------

@pytest.mark.parametrize("question, twice", [
    ("dc1-host-03-1 cannot reach 10.1.3.20", "dc1-host-03-1 and 10.1.3.20 are the same end"),
    ("dc1-host-03-1 (10.1.3.20) cannot talk to dc1-host-03-1", "dc1-host-03-1 is named twice"),
    ("10.1.3.20 to 10.1.3.20 not communicating", "10.1.3.20 is named twice"),
    ("trace dc1-host-03-1 to dc1-host-03-1", "dc1-host-03-1 is named twice"),
    ("10.1.3.20 can't reach dc1-host-03-1 (10.1.3.20)", "10.1.3.20 and dc1-host-03-1 are the same end"),
])
def test_one_end_named_twice_is_not_a_pair(question: str, twice: str, vocab: Vocabulary) -> None:
    p = plan(question, vocab, CLOCK)
    assert p.intent in ("diagnose.connectivity", "trace") and p.calls == []
    assert p.entities.endpoints == ["10.1.3.20"]
    assert f"{twice}" in p.note and "a path needs two different ends" in p.note


def test_an_end_said_twice_beside_another_end_is_still_a_pair(vocab: Vocabulary) -> None:
    p = plan("dc2-host-01-3 / 10.2.1.40 can't reach dc1-host-03-1", vocab, CLOCK)
    assert p.entities.endpoints == ["10.2.1.40", "10.1.3.20"]
    assert "same end" not in p.note


@pytest.mark.parametrize("question", [
    "dc1-host-03-9 cannot reach dc2-host-01-3",
    "dc1-host-03-9 (10.1.3.20) cannot talk to dc2-host-01-3 (10.2.1.40)",
    "dc2-host-01-3 to dc1-host-03-9 not communicating",
])
def test_an_unknown_host_end_gets_the_closest_names(question: str, vocab: Vocabulary) -> None:
    p = plan(question, vocab, CLOCK)
    assert (p.intent, p.calls) == ("diagnose.connectivity", [])
    assert p.entities.unknown == ["dc1-host-03-9"]
    assert "'dc1-host-03-9' is not in the inventory; did you mean dc1-host-03-1" in p.note


def test_a_name_and_a_different_address_in_brackets_run_nothing(vocab: Vocabulary) -> None:
    """The on-call's address and the inventory's disagree: which is meant is not guessed."""
    p = plan("dc1-host-03-1 (10.1.3.30) cannot reach dc2-host-01-3", vocab, CLOCK)
    assert (p.intent, p.calls) == ("diagnose.connectivity", [])
    assert p.entities.conflicts == ["dc1-host-03-1 (10.1.3.30)"]
    assert "the inventory has dc1-host-03-1 at 10.1.3.20, not 10.1.3.30" in p.note


def test_bracketed_addresses_are_not_lookups_of_their_own(vocab: Vocabulary) -> None:
    p = plan("dc1-host-03-1 (10.1.3.20) can't reach dc2-host-01-3 (10.2.1.40)", vocab, CLOCK)
    assert p.entities.endpoints == ["10.1.3.20", "10.2.1.40"]
    assert p.entities.devices == ["dc1-host-03-1", "dc2-host-01-3"]
    assert (p.entities.conflicts, p.entities.repeated, p.note) == ([], [], "")


@pytest.fixture(scope="module")
def copilot(backends: Backends) -> Iterator[Copilot]:
    yield Copilot(backends)
    worker.shutdown()  # in case a diagnosis started the sandbox worker


@pytest.mark.parametrize("question, src, dst", [
    ("dc1-host-03-1 (10.1.3.20) cannot talk to dc2-host-01-3 (10.2.1.40)",
     "dc1-host-03-1", "dc2-host-01-3"),
    ("dc2-host-01-3 can't reach dc1-host-03-1", "dc2-host-01-3", "dc1-host-03-1"),
    ("dc1-host-03-1 to 10.2.1.40 not communicating", "dc1-host-03-1", "dc2-host-01-3"),
])
def test_copilot_diagnosis_traces_between_the_named_hosts(question: str, src: str, dst: str,
                                                          copilot: Copilot,
                                                          backends: Backends) -> None:
    """End to end on the small lab: the diagnosis traces from the first host named to the
    second (and, when that delivers, back from the second: the return path), and the lab's own
    trace ends at the host it was sent to."""
    hosts = {h["name"]: h["ip"] for h in backends.inventory.hosts(None, None, None)}
    r = copilot.answer(question, f"ends-{question}")
    assert r["intent"] == "diagnose.connectivity" and r["root_cause"] is not None
    traces = [e for e in r["evidence"] if e["tool"] == "traceroute"]
    assert traces and all(e["errors"] == [] for e in traces)
    ends = {(e["args"]["src"], e["args"]["dst"]) for e in traces}
    assert (hosts[src], hosts[dst]) in ends and ends <= {(hosts[src], hosts[dst]),
                                                         (hosts[dst], hosts[src])}
    name = {ip: n for n, ip in hosts.items()}
    assert all(e["facts"]["path_devices"][-1] == name[e["args"]["dst"]] for e in traces)


# --- time windows ------------------------------------------------------------------------------

def _w(start: str, end: str) -> dict[str, str]:
    return {"start": f"2025-11-{start}:00Z", "end": f"2025-11-{end}:00Z"}


@pytest.mark.parametrize("expr, window", [
    ("in the last 2h", "2h"), ("over the past 30 minutes", "30m"), ("in the last hour", "1h"),
    ("in the last 24 hours", "24h"), ("last week", "7d"), ("the past 2 weeks", "14d"),
    ("in the last 1.5 hours", "90m"), ("since 2 hours ago", "2h"), ("past three days", "3d"),
    ("since 08:00", _w("04T08:00", "04T20:00")), ("since 8:30 pm", _w("03T20:30", "04T20:00")),
    ("since 22:00", _w("03T22:00", "04T20:00")), ("yesterday", _w("03T00:00", "04T00:00")),
    ("today", _w("04T00:00", "04T20:00")), ("since yesterday", _w("03T00:00", "04T20:00")),
    ("this week", _w("03T00:00", "04T20:00")),
    ("between 19:00 and 20:00", _w("04T19:00", "04T20:00")),
    ("from 7pm to 7:30pm", _w("04T19:00", "04T19:30")), ("19:00-19:45", _w("04T19:00", "04T19:45")),
    ("between 23:00 and 01:00", _w("03T23:00", "04T01:00")),
    ("between 19:00 and 21:00", _w("04T19:00", "04T20:00")),
    ("yesterday between 19:00 and 20:00", _w("03T19:00", "03T20:00")),
])
def test_time_windows(expr: str, window: Any, vocab: Vocabulary) -> None:
    p = plan(f"alarms on dc1-spine-01 {expr}", vocab, CLOCK)
    assert p.entities.window == window
    assert calls_of(p) == [["alarms", {"devices": ["dc1-spine-01"], "window": window}]]


def test_no_window_means_the_tools_default(vocab: Vocabulary) -> None:
    p = plan("any DCI alarms?", vocab, CLOCK)
    assert p.entities.window is None and "window" not in p.calls[0].args


def test_every_clock_time_gives_a_valid_window() -> None:
    """No "since"/"between" time of day yields an empty, reversed or future window."""
    times = [f"{h:02d}:{m:02d}" for h in range(24) for m in (0, 30)]
    for a in times:
        windows = [parse_when(f"since {a}", CLOCK).window]
        windows += [parse_when(f"between {a} and {b}", CLOCK).window for b in times if b != a]
        for value in windows:
            assert isinstance(value, dict), a
            w = parse_window(value, CLOCK)
            assert w.start < w.end <= CLOCK, (a, value)


# --- questions it cannot place ------------------------------------------------------------------

@pytest.mark.parametrize("question", [
    "what's the weather like", "tell me a joke", "hello", "", "   ", "why is the sky blue?",
    "spine 2 in dc9",
])
def test_unknown_questions_get_help_not_a_guess(question: str, vocab: Vocabulary) -> None:
    p = plan(question, vocab, CLOCK)
    assert (p.intent, p.calls, p.recipe) == ("unknown", [], None)
    assert p.note.startswith("I could not place this")
    assert p.note.endswith(help_text(vocab))
    assert "trace 10.1.1.20 to 10.2.1.20" in p.note  # examples named from this inventory


def test_a_change_request_is_refused_as_read_only(vocab: Vocabulary) -> None:
    p = plan("restart dc1-leaf-03", vocab, CLOCK)
    assert (p.intent, p.calls) == ("unknown", [])
    assert "read-only" in p.note


def test_help_lists_examples_that_the_planner_answers(vocab: Vocabulary, backends: Backends) -> None:
    assert plan("help", vocab, CLOCK).note == help_text(vocab)
    examples = re.findall(r'"([^"]+)"', help_text(vocab))
    standalone = [e for e in examples if not e.startswith(("and ", "same ", "what about"))]
    assert len(standalone) >= 15
    for q in standalone:
        p = plan(q, vocab, CLOCK)
        assert p.intent != "unknown" and p.calls, q
        runs_clean(p, backends)
