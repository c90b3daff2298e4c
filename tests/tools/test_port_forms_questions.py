"""Every port form real devices print is read as a port in a question (issue 24 item 3): "what
happened to HOST PORT" for each `interface` label of the real-line corpus (bench/real_logs, each
line with its source), FreeBSD's `igb2` as much as IOS's `Gi0/9`; ordinary words never are.
Then the question the gap broke, over real lines loaded as a syslog server's file: "what
happened to 192.0.2.20 igb2" is igb2's timeline, not a device diagnosis about another port."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from netopsai.common.ifnames import same_port
from netopsai.planner.entities import Vocabulary, extract
from netopsai.planner.rules import plan
from tests.planner.test_hostnames_real_logs import labelled, morning_after, real_home  # noqa: F401
from tests.planner.test_logs_questions import ask, rows
from tests.real_logs_kit import corpus

CLOCK = datetime(2026, 11, 27, 12, tzinfo=UTC)


def _vocab(*names: str) -> Vocabulary:
    meta = {n: {"role": "leaf", "site": "fra1", "pod": None} for n in ("edge-20", *names)}
    return Vocabulary(devices=list(meta), sites=["fra1"], pods=[], roles=["leaf"], meta=meta)


def _labels() -> dict[str, str]:
    """Each interface form the corpus labels, with the first line that carries it."""
    out: dict[str, str] = {}
    for rid, row in corpus().items():
        name = (row.get("expect") or {}).get("interface")
        if name and (row["source"].get("repo") or row["source"].get("url")):
            out.setdefault(name, rid)
    return out


def test_every_labelled_port_form_is_read_as_a_port() -> None:
    labels = _labels()
    assert {"igb2", "ix0", "re0", "enp1s0f0", "1/1/38", "st0.60", "wan", "A12"} <= set(labels)
    missed = []
    for name, rid in sorted(labels.items()):
        said = f"port {name}" if name.isdigit() else name  # a bare ProCurve number needs "port"
        ent, _, _ = extract(f"what happened to edge-20 {said}?", _vocab(), CLOCK)
        if not (len(ent.interfaces) == 1 and same_port(ent.interfaces[0], name)) \
                or ent.unknown or ent.devices != ["edge-20"]:
            missed.append((rid, name, ent.interfaces, ent.unknown))
    assert missed == []


@pytest.mark.parametrize("question", [
    "what happened to edge-20 and why?", "is the wan down on edge-20?",
    "what happened to edge-20 yesterday?", "what happened to edge-20 3 hours ago?",
    "any alarms on edge-20 interfaces today?", "what happened to edge-20 port status?",
    "which ports flapped on edge-20 in the last 2h?", "is edge-20 ok now?",
    "what happened to edge-20 ipv6 peering?", "any bgp4 alarms on edge-20 bgp4?",
])
def test_ordinary_words_are_not_ports(question: str) -> None:
    ent, _, _ = extract(question, _vocab(), CLOCK)
    assert ent.interfaces == [] and ent.devices == ["edge-20"]


def test_a_device_named_like_a_port_stays_a_device() -> None:
    ent, _, _ = extract("what happened to ix7 igb2?", _vocab("ix7"), CLOCK)
    assert (ent.devices, ent.interfaces) == (["ix7"], ["igb2"])


@pytest.mark.parametrize("port", ["igb2", "ix0", "em0", "vtnet0", "re0", "lagg0_vlan220"])
def test_a_freebsd_port_asks_for_its_timeline(port: str) -> None:
    p = plan(f"what happened to edge-20 {port}", _vocab(), CLOCK)
    assert p.intent == "interface.history", (p.intent, p.calls)
    assert {c.args.get("interface") for c in p.calls if "interface" in c.args} == {port}


IGB2 = [f"bsd_kernel-d{n:04d}" for n in (50, 52, 54, 56, 62, 64, 66, 68, 70, 72, 74)]


def test_what_happened_to_an_address_hosts_freebsd_port(real_home: Path) -> None:  # noqa: F811
    """192.0.2.20 is edge-20's management address; its file holds igb1 and igb2 flapping on
    2020-07-21 (bsd_kernel-d0032..-d0074): the answer is igb2's lines, each at its own time."""
    r = ask(real_home, "what happened to 192.0.2.20 igb2 on 21 July 2020?",
            morning_after("2020-07-22"))
    assert "Read '192.0.2.20' as edge-20" in r["answer"]
    events = rows(r, "events")
    assert {(e["device"], e["interface"]) for e in events} == {("edge-20", "igb2")}
    assert sorted(datetime.fromisoformat(e["at"].replace("Z", "+00:00")) for e in events) \
        == [labelled(i) for i in IGB2]
    timeline = [e for e in r["evidence"] if e["tool"] == "coder"]
    assert [e["args"]["recipe"] for e in timeline] == ["port_timeline"]  # the port's, no diagnosis
    assert {e["args"].get("interface") for e in r["evidence"] if e["tool"] in ("events", "telemetry")} \
        == {"igb2"}
    # igb2 is the inventory's, with no link: no known neighbour, said, not a failed look-up
    assert not any(e.get("errors") for e in r["evidence"])
    assert "edge-20 igb2 has no known neighbour" in r["answer"]
