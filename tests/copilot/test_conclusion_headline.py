"""The conclusion's impact and start (diagnosis/headline.py): a partial outage says which share
of the equal-cost paths fails, a total one says so, and "since" is the change or the first open
alarm on the culprit, or says the evidence does not show it. The numbers are read back from the
cited evidence, never written into the test."""

from __future__ import annotations

import re
from typing import Any

from tests.copilot.test_copilot_diagnosis import DST_TOR, ask_after, uplink


def cited(r: dict[str, Any], line: str) -> list[dict[str, Any]]:
    ids = set(re.findall(r"\[(E\d+)\]", line))
    return [e for e in r["evidence"] if e["id"] in ids]


def headline(r: dict[str, Any], name: str) -> str:
    head = r["answer"].split("\n\n")[0:2]  # the conclusion and its facts come first
    line = next((x for part in head for x in part.splitlines() if x.startswith(f"- **{name}:**")), "")
    assert line, f"no {name} line in the answer's first block:\n{r['answer'][:600]}"
    return line


def test_an_acl_on_one_spine_is_a_partial_outage_with_its_share(make_lab: Any, backends: Any) -> None:
    _, _, spine = uplink(backends)
    r = ask_after(make_lab(), [{"kind": "acl_block", "target": {"device": spine},
                                "params": {"dst": "10.2.1.0/24"}}])
    assert (r["root_cause"]["label"], r["root_cause"]["device"]) == ("config.acl_block", spine)
    line = headline(r, "Impact")
    trace = next(e for e in cited(r, line) if e["tool"] == "traceroute")
    good, paths = trace["facts"]["good_paths"], trace["facts"]["ecmp_paths"]
    assert 0 < good < paths
    assert f"partial: {good} of {paths} equal-cost paths deliver" in line
    assert f"the other {paths - good} ({100 * (paths - good) / paths:.0f}%) fail" in line


def test_an_acl_at_the_destination_tor_is_total_and_starts_at_its_change(make_lab: Any) -> None:
    r = ask_after(make_lab(), [
        {"kind": "change", "at": "-27m", "target": {"device": DST_TOR},
         "params": {"summary": "Apply new ACL set", "ticket": "CHG-4242"}},
        {"kind": "acl_block", "target": {"device": DST_TOR}, "params": {"dst": "10.2.1.0/24"}}])
    assert r["root_cause"]["device"] == DST_TOR
    impact = headline(r, "Impact")
    trace = next(e for e in cited(r, impact) if e["tool"] == "traceroute")
    assert trace["facts"]["good_paths"] == 0
    assert f"total: none of the {trace['facts']['ecmp_paths']} equal-cost paths delivers" in impact
    since = headline(r, "Since")
    change = next(row for e in cited(r, since) if e["tool"] == "changelog" for row in e["rows"]
                  if row["ticket"] == "CHG-4242")
    assert since.startswith(f"- **Since:** {change['start']}, when change CHG-4242 began on {DST_TOR}")


def test_a_link_down_starts_at_its_first_open_alarm(make_lab: Any, backends: Any) -> None:
    leaf, ifname, _ = uplink(backends)
    r = ask_after(make_lab(), [{"kind": "link_down", "target": {"link": f"{leaf}:{ifname}"}}])
    assert r["root_cause"]["label"] == "link.down"
    since = headline(r, "Since")
    device = r["root_cause"]["device"]
    open_here = [row for e in cited(r, since) if e["tool"] == "alarms" for row in e["rows"]
                 if row["device"] == device and row["state"] == "open"]
    assert open_here, since
    # the port's own alarm before a session's over it raised at the same moment
    first = min(open_here, key=lambda row: (str(row["raised_at"]),
                                            row.get("interface") != r["root_cause"]["interface"]))
    assert since.startswith(f"- **Since:** {first['raised_at']}, when {first['kind']} was raised")


def test_without_a_change_or_alarm_the_start_is_said_unknown(make_lab: Any, backends: Any) -> None:
    _, _, spine = uplink(backends)
    r = ask_after(make_lab(), [{"kind": "acl_block", "target": {"device": spine},
                                "params": {"dst": "10.2.1.0/24"}}])
    since = headline(r, "Since")
    assert f"not shown: no change record or open alarm on {spine}" in since
    assert {e["tool"] for e in cited(r, since)} == {"changelog", "alarms"}  # where it looked
