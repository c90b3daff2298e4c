"""Port and state answers lead with what changed (issue 25 item 5), on the lab: changed ports
first, ports shut on purpose or never up counted apart, role words narrowing the ports from
the inventory's links, and every time shown with its zone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from netopsai.planner.calls import ToolCall
from netopsai.planner.port_roles import port_scope, port_words
from netopsai.tools.registry import run_tool
from tests.fault_helpers import Lab, call, lab_fixture  # noqa: F401


def uplink(b: Any) -> tuple[str, str, str, str]:
    """A leaf port whose peer is a spine: (leaf, port, spine, spine port)."""
    leaves = call(b, "metadata", query="devices", site="dc1", role="leaf").rows
    leaf = leaves[0]["name"]
    spines = {r["name"] for r in call(b, "metadata", query="devices", site="dc1", role="spine").rows}
    n = next(r for r in call(b, "metadata", query="neighbors", name=leaf).rows if r["neighbor"] in spines)
    return leaf, n["interface"], n["neighbor"], n["neighbor_interface"]


def host_port(b: Any, leaf: str) -> tuple[str, str]:
    n = next(r for r in call(b, "metadata", query="neighbors", name=leaf).rows if r["kind"] == "host")
    return n["interface"], n["neighbor"]


@pytest.fixture
def shut(lab: Lab) -> dict[str, Any]:
    """A leaf uplink shut on purpose and a host port lost to its optic, both 25 minutes ago."""
    leaf, port, spine, spine_port = uplink(lab.b)
    hport, _ = host_port(lab.b, leaf)
    lab.inject({"kind": "link_down", "target": {"link": f"{leaf}:{port}"}, "params": {"reason": "admin"}},
               {"kind": "link_down", "target": {"link": f"{leaf}:{hport}"}, "params": {"reason": "optic"}})
    return {"leaf": leaf, "port": port, "spine": spine, "spine_port": spine_port, "hport": hport}


def status(lab: Lab, **args: Any) -> Any:
    return call(lab.b, "telemetry", metric="oper_status", top=1000, **args)


def test_ports_that_went_down_lead_and_the_shut_one_says_so(lab: Lab, shut: dict[str, Any]) -> None:
    ev = status(lab, window="1h")
    changed = {(r["device"], r["interface"]) for r in ev.rows if r["change"] == "went down"}
    assert {(shut["leaf"], shut["port"]), (shut["spine"], shut["spine_port"]),
            (shut["leaf"], shut["hport"])} <= changed
    assert all(r["transitions"] for r in ev.rows[:len(changed)])  # changes first
    first = ev.summary.split(". ")[0]
    assert "went down:" in first and f"{shut['leaf']} {shut['port']} at " in first
    assert f"{shut['leaf']} {shut['port']} at " in first and "(admin shut)" in first
    leaf_row = next(r for r in ev.rows if (r["device"], r["interface"]) == (shut["leaf"], shut["port"]))
    assert leaf_row["admin_status"] == "down"
    assert ev.facts["went_down"] == ev.facts["newly_down"] == len(changed)


def test_ports_down_all_window_are_counted_apart_by_admin_state(lab: Lab, shut: dict[str, Any]) -> None:
    ev = status(lab, window="10m")  # the faults began 25 minutes ago: no change in this window
    assert ev.facts["changed"] == 0 and "no port changed state in the window" in ev.summary
    kinds = {(r["device"], r["interface"]): r["change"] for r in ev.rows}
    assert kinds[(shut["leaf"], shut["port"])] == "admin down"
    assert kinds[(shut["spine"], shut["spine_port"])] == "never up"  # its end is admin up
    assert ev.facts["admin_down"] == 1 and ev.facts["never_up"] == len(kinds) - 1
    assert "1 administratively down" in ev.summary
    assert [r["change"] for r in ev.rows][-1] == "admin down"  # after the ones that may be faults


def test_times_shown_carry_the_asked_zone(lab: Lab, shut: dict[str, Any]) -> None:
    ev = status(lab, window="1h", devices=[shut["leaf"]], interface=shut["port"], zone="PST")
    row = ev.rows[0]
    utc_text, _, state = row["events"].split("; ")[0].rpartition(" ")
    at = datetime.fromisoformat(utc_text).replace(tzinfo=UTC) - timedelta(hours=8)
    assert row["changes"] == f"{at:%Y-%m-%d %H:%M:%S} PST {state}"
    assert f"at {at:%H:%M:%S} PST" in ev.summary
    plain = status(lab, window="1h", devices=[shut["leaf"]], interface=shut["port"])
    assert plain.rows[0]["changes"].endswith(" UTC down")  # the network's zone, named


def test_a_bad_zone_is_a_clear_error(lab: Lab) -> None:
    ev = run_tool("telemetry", {"metric": "oper_status", "zone": "Mars/Olympus"}, lab.b)
    assert ev.errors and "not a time zone" in ev.errors[0] and "\n" not in ev.errors[0]


def test_uplinks_are_the_ports_towards_a_higher_tier(lab: Lab, shut: dict[str, Any]) -> None:
    leaf = shut["leaf"]
    nbrs = call(lab.b, "metadata", query="neighbors", name=leaf).rows
    spines = {r["name"] for r in call(lab.b, "metadata", query="devices", role="spine").rows}
    ups = {r["interface"] for r in nbrs if r["neighbor"] in spines}
    hosts = {r["interface"] for r in nbrs if r["kind"] == "host"}
    for args, want in (({"port_role": "uplink"}, ups), ({"peer_role": "spine"}, ups),
                       ({"port_role": "host"}, hosts), ({"port_role": "downlink"}, hosts)):
        ev = call(lab.b, "telemetry", metric="utilization", devices=[leaf], top=1000, **args)
        assert ev.facts["ports"] == len(want) and {r["interface"] for r in ev.rows} == want, args
    ev = status(lab, window="1h", devices=[leaf], port_role="uplink")
    assert {r["interface"] for r in ev.rows} == {shut["port"]} and ev.facts["ports"] == len(ups)
    assert "(uplinks)" in ev.summary


@pytest.mark.parametrize("text, want", [
    ("utilisation of leaf4 uplinks", {"port_role": "uplink"}),
    ("errors on leaf4 ports towards the spines", {"peer_role": "spine"}),
    ("discards on spine ports facing the leaves", {"peer_role": "leaf"}),
    ("any spine-facing links down on dc1-leaf-01?", {"peer_role": "spine"}),
    ("leaf4 host ports down?", {"port_role": "host"}),
    ("errors on server ports of leaf4", {"port_role": "host"}),
    ("downlinks of dc1-spine-01 flapping", {"port_role": "downlink"}),
    ("uplinks towards the superspines", {"port_role": "uplink", "peer_role": "superspine"}),
    ("what happened to spine2 today", {}),
    ("which ports went down between 09:40 and 09:45?", {}),
])
def test_role_words(text: str, want: dict[str, str]) -> None:
    assert port_words(text) == want


def test_towards_the_spines_is_the_peer_not_the_scope() -> None:
    spine = ToolCall("telemetry", {"metric": "errors", "role": "spine"})
    leaf = ToolCall("telemetry", {"metric": "errors", "role": "leaf"})
    assert [c.args for c in port_scope([spine], "errors on ports towards the spines")] == [
        {"metric": "errors", "peer_role": "spine"}]
    assert [c.args for c in port_scope([leaf, spine], "errors on leaf ports towards the spines")] == [
        {"metric": "errors", "role": "leaf", "peer_role": "spine"}]
    other = ToolCall("alarms", {"state": "open"})
    assert port_scope([other], "uplinks towards the spines", "PST") == [other]
    assert port_scope([leaf], "errors on leaf ports", "PST")[0].args["zone"] == "PST"


def test_uplink_state_words_read_the_uplinks_states_too() -> None:
    up = ToolCall("metadata", {"query": "upstream", "name": "leaf4"})
    got = [c.args for c in port_scope([up], "leaf4 uplinks down?", None, "1h")]
    assert got == [up.args, {"metric": "oper_status", "devices": ["leaf4"], "port_role": "uplink",
                             "window": "1h"}]
    assert port_scope([up], "what are the uplinks of leaf4") == [up]  # a lookup, no state asked


@pytest.mark.parametrize("start, end, n, flaps, admin, want", [
    ("up", "down", 1, 1, "up", "went down"), ("down", "up", 1, 0, "up", "came back"),
    ("notPresent", "up", 1, 0, "up", "came back"), ("up", "lowerLayerDown", 1, 1, "up", "went down"),
    ("up", "up", 2, 1, "up", "down and back"), ("down", "down", 2, 1, "up", "back and down again"),
    ("up", "up", 6, 3, "up", "flapped"), ("down", "down", 0, 0, "down", "admin down"),
    ("down", "down", 0, 0, "up", "never up"), ("dormant", "dormant", 0, 0, "up", "never up"),
])
def test_each_port_says_what_happened(start: str, end: str, n: int, flaps: int, admin: str,
                                      want: str) -> None:
    from netopsai.tools.port_answers.states import change

    assert change({"state_at_start": start, "state_at_end": end, "transitions": n, "flaps": flaps,
                   "admin_status": admin}) == want


def test_a_port_is_one_port_however_it_is_spelt() -> None:
    from netopsai.tools.port_answers.roles import port_key

    assert port_key("leaf4", "Hu0/0/0/1") == port_key("leaf4", "HundredGigE0/0/0/1")
    assert port_key("leaf4", "HundredGigE0/0/0/1.100") != port_key("leaf4", "HundredGigE0/0/0/1")


def test_role_words_without_known_links_are_an_error_not_all_quiet(lab: Lab) -> None:
    leaf = uplink(lab.b)[0]
    ev = run_tool("telemetry", {"metric": "oper_status", "devices": [leaf], "peer_role": "dci"}, lab.b)
    assert ev.errors and ev.errors[0].startswith("no ports towards dcis on ") and not ev.rows


def test_a_port_back_up_was_admin_up_whatever_the_model_says_now(lab: Lab) -> None:
    leaf, port, _, _ = uplink(lab.b)
    lab.inject({"kind": "link_down", "target": {"link": f"{leaf}:{port}"},
                "params": {"reason": "admin", "for_min": 10}})
    row = status(lab, window="1h", devices=[leaf], interface=port).rows[0]
    assert (row["change"], row["state_at_end"], row["admin_status"]) == ("down and back", "up", "up")


def test_a_backends_note_in_the_events_column_is_no_transition() -> None:
    """The namespace lab wrote '<ISO> read down' (a state read, no change seen); reading it as a
    transition raised in the telemetry tool, and every link-down diagnosis there went
    inconclusive ('telemetry could not be read')."""
    from netopsai.tools.port_answers.zoned import transitions

    assert transitions("2026-11-27T10:14:26Z read down") == []
    assert transitions("2026-11-20 17:41:20 down; note; 2026-11-20 17:47:30 up") == [
        ("2026-11-20 17:41:20", "down"), ("2026-11-20 17:47:30", "up")]
