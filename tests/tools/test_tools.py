"""Changelog and alarms through run_tool, the contract every tool keeps (never raises, Evidence
keys) and the LLM-facing schemas, on the shared healthy small lab (read-only)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netopsai.backends.base import Backends
from netopsai.common.timewin import iso
from netopsai.copilot.evidence import Evidence
from netopsai.tools.registry import REGISTRY, run_tool
from tests.tool_helpers import EVIDENCE_KEYS, SITES, SNAPSHOT, SPEC, fails, ok

# ---------------------------------------------------------------- changelog

def test_changelog_history_and_window_filtering(backends):
    week = ok(backends, "changelog", {"window": "7d"})
    assert len(week.rows) == SPEC.history.changes == week.facts["changes"]
    assert week.facts["devices"] == sorted({r["device"] for r in week.rows})
    hour = ok(backends, "changelog", {"window": "1h"})
    assert {r["ticket"] for r in hour.rows} <= {r["ticket"] for r in week.rows}
    c = week.rows[len(week.rows) // 2]
    start, end = (datetime.fromisoformat(c[k].replace("Z", "+00:00")) for k in ("start", "end"))
    inside = ok(backends, "changelog", {"window": {"start": c["start"], "end": c["end"]}})
    assert c["ticket"] in {r["ticket"] for r in inside.rows}
    before = ok(backends, "changelog", {"window": {"start": iso(start - timedelta(minutes=10)),
                                                   "end": iso(start - timedelta(seconds=1))}})
    assert c["ticket"] not in {r["ticket"] for r in before.rows}
    after = ok(backends, "changelog", {"window": {"start": iso(end + timedelta(seconds=1)),
                                                  "end": iso(end + timedelta(minutes=10))}})
    assert c["ticket"] not in {r["ticket"] for r in after.rows}
    for r in week.rows:  # every record overlaps the window
        assert r["start"] <= week.window["end"] and r["end"] >= week.window["start"]


def test_changelog_site_device_and_ticket_filters(backends):
    week = ok(backends, "changelog", {"window": "7d"}).rows
    per_site = {s: ok(backends, "changelog", {"window": "7d", "site": s}).rows for s in SITES}
    assert sum(len(v) for v in per_site.values()) == len(week)
    for s, rows in per_site.items():
        assert all(r["site"] == s for r in rows)
    dev = week[0]["device"]
    by_dev = ok(backends, "changelog", {"window": "7d", "devices": [dev]}).rows
    assert by_dev and all(r["device"] == dev for r in by_dev)
    assert len(by_dev) == sum(r["device"] == dev for r in week)
    t = ok(backends, "changelog", {"window": "7d", "ticket": week[-1]["ticket"]})
    assert [r["ticket"] for r in t.rows] == [week[-1]["ticket"]]
    assert f"ticket {week[-1]['ticket']}" in t.summary


@pytest.mark.parametrize(("args", "needles"), [
    ({"devices": ["dc1-leaf-3"]}, ["dc1-leaf-3", "dc1-leaf-03"]),
    ({"site": "dc9"}, ["dc9", "dc1"]),
    ({"window": {"start": "2025-11-04T20:00:00Z", "end": "2025-11-04T10:00:00Z"}}, ["precedes"]),
    ({"window": {"start": "2025-11-04T10:00:00Z", "end": "2025-11-04T10:00:00Z"}}, ["empty"]),
    ({"window": {"end": "2025-11-04T10:00:00Z"}}, ["start"]),
    ({"window": {"start": "2025-11-04T10:00:00Z", "stop": "x"}}, ["'stop'"]),
    ({"window": "0h"}, ["empty"]),
    ({"window": "fortnight"}, ["fortnight"]),
    ({"window": "99999999d"}, ["too long"]),
    ({"window": 5}, ["window"]),
    ({"ticket": 1042}, ["ticket"]),
])
def test_changelog_bad_arguments(backends, args, needles):
    fails(backends, "changelog", args, *needles)


# ---------------------------------------------------------------- alarms

def test_alarms_history_is_all_closed_and_categorised(backends):
    week = ok(backends, "alarms", {"window": "7d"})
    rows = week.rows
    # background: device/bgp/optics/capacity alarms plus one LINK_DOWN from each end of each flap
    assert len(rows) == SPEC.history.alarms + 2 * SPEC.history.flaps == week.facts["alarms"]
    assert week.facts["open"] == 0 and week.facts["closed"] == len(rows)
    assert week.facts["traffic_lost"] == 0
    assert ok(backends, "alarms", {"window": "7d", "state": "open"}).rows == []
    assert len(ok(backends, "alarms", {"window": "7d", "state": "closed"}).rows) == len(rows)
    by_cat = {}
    # a category means what an on-call means (issue 25): DCI and backbone are one inter-DC
    # path, and a link alarm is any link's; every other category is its own
    means = {"link": {"link", "dci", "backbone"}, "dci": {"dci", "backbone"},
             "backbone": {"dci", "backbone"}}
    for cat in ("link", "device", "bgp", "dci", "backbone", "optics", "capacity"):
        ev = ok(backends, "alarms", {"window": "7d", "category": cat})
        by_cat[cat] = [r for r in ev.rows if r["category"] == cat]
        assert {r["category"] for r in ev.rows} <= means.get(cat, {cat})
        assert set(ev.facts["categories"]) == means.get(cat, {cat})
        assert len(ev.rows) == sum(r["category"] in means.get(cat, {cat}) for r in rows)
    assert sum(len(v) for v in by_cat.values()) == len(rows)
    raised = [r["raised_at"] for r in rows]
    assert raised == sorted(raised, reverse=True)


def test_alarms_window_is_active_at_any_time_in_it(backends):
    rows = ok(backends, "alarms", {"window": "7d"}).rows
    a = rows[len(rows) // 2]
    raised = datetime.fromisoformat(a["raised_at"].replace("Z", "+00:00"))
    cleared = datetime.fromisoformat(a["cleared_at"].replace("Z", "+00:00"))
    assert raised < cleared

    def ids(start: datetime, end: datetime) -> set[int]:
        ev = ok(backends, "alarms", {"window": {"start": iso(start), "end": iso(end)}})
        return {r["id"] for r in ev.rows}

    assert a["id"] in ids(raised - timedelta(minutes=5), raised + timedelta(seconds=1))
    assert a["id"] in ids(cleared - timedelta(seconds=1), cleared + timedelta(minutes=5))
    mid = raised + (cleared - raised) / 2
    assert a["id"] in ids(mid, mid + timedelta(seconds=1))  # window inside the alarm
    assert a["id"] not in ids(raised - timedelta(minutes=10), raised - timedelta(seconds=1))
    assert a["id"] not in ids(cleared + timedelta(seconds=1), cleared + timedelta(minutes=10))


def test_alarms_site_and_device_filters(backends):
    rows = ok(backends, "alarms", {"window": "7d"}).rows
    per_site = {s: ok(backends, "alarms", {"window": "7d", "site": s}).rows for s in SITES}
    assert sum(len(v) for v in per_site.values()) == len(rows)
    for s, site_rows in per_site.items():
        assert all(r["device"].startswith(f"{s}-") for r in site_rows)
    dev = rows[0]["device"]
    mine = ok(backends, "alarms", {"window": "7d", "devices": [dev]})
    assert mine.facts["devices"] == [dev]
    assert len(mine.rows) == sum(r["device"] == dev for r in rows)
    link = ok(backends, "alarms", {"window": "7d", "category": "link", "site": "dc1"}).rows
    assert all(r["category"] == "link" and r["device"].startswith("dc1-") for r in link)


@pytest.mark.parametrize(("args", "needles"), [
    ({"category": "wifi"}, ["category", "dci"]),
    ({"state": "active"}, ["state", "open"]),
    ({"site": "dc3"}, ["dc3", "dc1"]),
    ({"devices": ["dc2-dci-1"]}, ["dc2-dci-1", "dc2-dci-01"]),
    ({"window": {"start": "2025-11-04T20:00:00Z", "end": "2025-11-03T20:00:00Z"}}, ["precedes"]),
    ({"window": {"start": "2025-11-04T19:00:00Z", "end": "2025-11-04T19:00:00Z"}}, ["empty"]),
    ({"window": "-1h"}, ["-1h"]),
])
def test_alarms_bad_arguments(backends, args, needles):
    fails(backends, "alarms", args, *needles)


# ---------------------------------------------------------------- no tool ever raises

@pytest.mark.parametrize(("name", "args", "needles"), [
    ("metadatx", {"query": "sites"}, ["unknown tool", "metadata"]),
    ("", {}, ["unknown tool"]),
    ("metadata", "{bad json", ["malformed JSON"]),
    ("metadata", '{"query": "sites"', ["malformed JSON"]),
    ("telemetry", "[1, 2]", ["JSON object"]),
    ("alarms", "null", ["JSON object"]),
    ("alarms", None, ["JSON object"]),
    ("alarms", 42, ["JSON object"]),
    ("traceroute", ["10.1.3.20", "10.2.1.40"], ["JSON object"]),
    ("metadata", {}, ["query"]),
    ("metadata", {"query": "sites", "bogus": 1}, ["unknown argument 'bogus'"]),
    ("metadata", {"query": 3}, ["query"]),
    ("metadata", {"query": "device", "name": ["dc1-leaf-03"]}, ["name"]),
    ("telemetry", {"metric": "errors", "top": "many"}, ["top"]),
    ("telemetry", {"metric": "errors", "top": 10**9}, ["top"]),
    ("changelog", {"devices": [1, 2]}, ["devices"]),
    ("alarms", {"correlate": "maybe"}, ["correlate"]),
    ("traceroute", {"src": None, "dst": "10.2.1.40"}, ["src"]),
    ("traceroute", {"src": "10.1.3.20", "dst": "10.2.1.40", "size": 1.5}, ["size"]),
])
def test_bad_calls_come_back_as_evidence(backends, name, args, needles):
    msg = fails(backends, name, args, *needles)
    assert "Traceback" not in msg


def test_string_arguments_are_parsed_as_json(backends):
    ev = run_tool("metadata", '{"query": "device", "name": "dc1-leaf-03"}', backends, evidence_id="E7")
    assert ev.ok and ev.id == "E7" and ev.rows[0]["name"] == "dc1-leaf-03"
    assert ev.args == {"query": "device", "name": "dc1-leaf-03"}
    assert run_tool("alarms", "", backends).ok  # empty string: no arguments, the defaults


def test_evidence_json_has_the_spec_keys(backends):
    for name, args in (("metadata", {"query": "sites"}), ("telemetry", {"metric": "flaps"}),
                       ("traceroute", {"src": "10.1.3.20", "dst": "10.2.1.40"}),
                       ("changelog", {}), ("alarms", {"window": "2h"}),
                       ("metadata", {"query": "device", "name": "nope"})):
        doc = json.loads(run_tool(name, args, backends).to_json())
        assert set(doc) >= EVIDENCE_KEYS
        assert doc["tool"] == name and isinstance(doc["rows"], list)


class _Broken:
    """A backend whose every call fails, as a real source can."""

    def __getattr__(self, name: str) -> Any:
        def fail(*_a: Any, **_k: Any) -> Any:
            raise ConnectionError("device timed out")
        return fail


@pytest.mark.parametrize(("name", "args"), [
    ("metadata", {"query": "sites"}), ("telemetry", {"metric": "errors"}),
    ("traceroute", {"src": "10.1.3.20", "dst": "10.2.1.40"}), ("changelog", {}), ("alarms", {}),
])
def test_a_failing_backend_comes_back_as_evidence(name, args):
    b = _Broken()
    ev = run_tool(name, args, Backends(inventory=b, telemetry=b, paths=b, changes=b, alarms=b))
    assert ev.errors == ["backend error: ConnectionError: device timed out"]
    assert ev.summary == f"{name} failed: backend error: ConnectionError: device timed out"
    assert ev.rows == [] and ev.tool == name


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=8), kids, max_size=3),
    max_leaves=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(REGISTRY)), args=st.dictionaries(
    st.sampled_from(["query", "metric", "src", "dst", "window", "devices", "site", "pod", "role",
                     "name", "ip", "top", "size", "at", "category", "state", "ticket", "interface",
                     "x"]), _JSONISH, max_size=4))
def test_fuzzed_arguments_never_raise(backends, name, args):
    ev = run_tool(name, args, backends)
    assert isinstance(ev, Evidence) and ev.tool == name
    assert all(isinstance(e, str) and e and "\n" not in e for e in ev.errors)
    assert ev.ok or ev.rows == []


# ---------------------------------------------------------------- the LLM contract

def current_schemas() -> dict[str, Any]:
    return {name: REGISTRY[name].schema() for name in sorted(REGISTRY)}


def test_tool_schemas_match_the_snapshot():
    """A change to a tool's name, arguments, descriptions or docstring must be deliberate:
    regenerate with NETOPSAI_UPDATE_SNAPSHOTS=1 and review the diff."""
    schemas = current_schemas()
    if os.environ.get("NETOPSAI_UPDATE_SNAPSHOTS"):
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(json.dumps(schemas, indent=2, sort_keys=True) + "\n")
    assert json.loads(SNAPSHOT.read_text()) == json.loads(json.dumps(schemas))


def test_schemas_cover_the_spec_arguments_with_descriptions():
    spec_args = {  # shared/specs/cli-and-evidence.md, "Tool arguments"
        "metadata": {"query", "site", "pod", "role", "name", "ip"},
        "telemetry": {"metric", "devices", "role", "site", "pod", "interface", "window", "top"},
        "traceroute": {"src", "dst", "size", "at"},
        "changelog": {"devices", "site", "ticket", "window"},
        "alarms": {"category", "state", "devices", "site", "window", "correlate"},
        "events": {"devices", "interface", "mnemonic", "text", "source", "window", "limit"},  # ours
    }
    schemas = current_schemas()
    assert set(schemas) == set(spec_args)  # a new tool is added here on purpose
    for name, want in spec_args.items():
        s = schemas[name]
        assert s["name"] == name and len(s["description"]) > 40
        props = s["parameters"]["properties"]
        assert want <= set(props), (name, want - set(props))
        assert all(p.get("description") for p in props.values()), name
    assert set(schemas["metadata"]["parameters"]["required"]) == {"query"}
    assert set(schemas["traceroute"]["parameters"]["required"]) == {"src", "dst"}


def test_alarms_correlate_groups_both_ends_of_a_flap(backends):
    ev = ok(backends, "alarms", {"window": "7d", "correlate": True})
    assert "group" in ev.columns
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in ev.rows:
        groups.setdefault(r["group"], []).append(r)
    assert ev.facts["groups"] == len(groups) == SPEC.history.alarms + SPEC.history.flaps
    for members in groups.values():
        if members[0]["kind"] == "LINK_DOWN":
            assert len(members) == 2 and len({m["device"] for m in members}) == 2
            assert len({m["raised_at"] for m in members}) == 1
    plain = ok(backends, "alarms", {"window": "7d"})
    assert "group" not in plain.columns and "groups" not in plain.facts
