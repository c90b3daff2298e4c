"""Hosts as logs name them, in the planner and the web app (issue 24 items 2 and 6): a fully
qualified name in any case, `ingest.domains`, a device's own address, and a device the inventory
does not know but whose lines were loaded — a provisional device, shown as such in answers,
alarms and its Device page, never an "unknown device" error that hides its lines."""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from netopsai.backends.base import Backends
from netopsai.backends.registry import configured_backends
from netopsai.config.load import load_netconfig
from netopsai.config.network import IngestSettings
from netopsai.planner import Vocabulary, plan
from netopsai.planner.hostnames import Logged, logged_lookup
from netopsai.store.engine import engine_for
from netopsai.tools.registry import run_tool
from netopsai.ui.gradio.device import device_page
from tests.planner.test_logs_questions import AFTER_UNKNOWN, _At, home  # noqa: F401 - the fixture

NOW = datetime(2023, 8, 23, tzinfo=UTC)


class _Events:
    """An events store that holds `lines` lines of each device named, from `sender`."""

    def __init__(self, logged: dict[str, Logged]) -> None:
        self.logged = logged

    def events(self, devices: list[str], window: Any, limit: int = 200) -> tuple[list[Any], int]:
        found = next((self.logged[d] for d in devices if d in self.logged), None)
        return ([{"device": found.name, "host": found.sender}], found.lines) if found else ([], 0)


def vocab(logged: dict[str, Logged], owners: dict[str, str],
          domains: tuple[str, ...] = ("example.net",)) -> Vocabulary:
    """Two inventory devices; the events store's names and the address owners as given."""
    return Vocabulary(devices=["core-rtr", "nexus-33"], sites=["syd1"], pods=[], roles=["leaf"],
                      meta={n: {"role": "leaf", "site": "syd1", "pod": None}
                            for n in ("core-rtr", "nexus-33")},
                      owner=owners.get, logged=logged_lookup(_Events(logged), domains, lambda: NOW),
                      domains=domains)


LEAF9 = Logged("leaf9.example.net", 5, "remote/leaf9.log")


def test_a_bare_name_meets_its_logs_through_the_configured_domain() -> None:
    p = plan("which ports flapped on leaf9 yesterday?", vocab({"leaf9.example.net": LEAF9}, {}),
             NOW)
    assert p.entities.devices == ["leaf9.example.net"] == p.entities.provisional
    assert p.intent == "alarms"  # no counters without an inventory entry: its lines and alarms
    assert [(c.tool, c.args.get("category")) for c in p.calls] == [("events", None),
                                                                  ("alarms", "link")]
    assert "leaf9.example.net is not in the inventory; seen in 5 log lines from remote/leaf9.log" \
        in p.note
    none = plan("which ports flapped on leaf9 yesterday?", vocab({"leaf9.example.net": LEAF9}, {},
                                                                 domains=()), NOW)
    assert none.entities.devices == []  # without the domain, "leaf9" is no name it knows


def test_a_follow_up_about_a_provisional_device_still_reads_its_lines() -> None:
    v = vocab({"leaf9.example.net": LEAF9}, {})
    first = plan("what happened to leaf9.example.net yesterday?", v, NOW)
    assert (first.intent, [c.tool for c in first.calls]) == ("alarms", ["alarms", "events"])
    again = plan("and its flaps last week?", v, NOW, previous=first.entities,
                 previous_intent="telemetry.flaps")
    assert [(c.tool, c.args["devices"]) for c in again.calls] == [
        ("events", ["leaf9.example.net"]), ("alarms", ["leaf9.example.net"])]


def test_a_fully_qualified_name_in_any_case_is_the_inventorys_device() -> None:
    p = plan("what happened to CORE-RTR.Example.NET Gi0/1 today?", vocab({}, {}, domains=()), NOW)
    assert (p.entities.devices, p.intent, p.recipe) == (["core-rtr"], "interface.history",
                                                        "port_timeline")
    assert p.entities.corrections == {"CORE-RTR.Example.NET": "core-rtr"}


@pytest.mark.parametrize(("question", "device"), [
    ("which ports flapped on 10.100.0.32 yesterday?", "nexus-33"),
    ("any optics warnings on 10.100.0.32?", "nexus-33"),
    ("what happened to 10.100.0.32 Ethernet1/33 today?", "nexus-33"),
    ("is 10.100.0.32 reachable?", None),  # an address to reach stays an address
    ("trace 10.1.1.1 to 10.100.0.32", None),  # two ends: a path
    ("which ports flapped on 10.9.9.9 yesterday?", None),  # no device holds it
])
def test_a_devices_own_address_is_that_device_in_a_question_about_it(question: str,
                                                                     device: str | None) -> None:
    p = plan(question, vocab({}, {"10.100.0.32": "nexus-33"}), NOW)
    assert p.entities.devices == ([device] if device else [])
    assert ("10.100.0.32" in p.entities.ips) is (device is None and "10.100.0.32" in question)


def test_ingest_domains_are_checked_and_kept_in_lower_case() -> None:
    assert IngestSettings(domains=[".Example.NET", "dc1.corp"]).domains == ["example.net", "dc1.corp"]
    with pytest.raises(ValidationError, match="is not a domain suffix"):
        IngestSettings(domains=["not a domain"])


def _backends(where: Path) -> Backends:
    """The configured backends of the loaded store, on the morning after host.site's day."""
    os.environ["NETOPSAI_HOME"] = str(where)
    engine = engine_for(f"sqlite:///{where / 'netopsai.db'}")
    return replace(configured_backends(engine, load_netconfig(where)),
                   inventory=_At(engine, AFTER_UNKNOWN))


def test_a_provisional_device_is_shown_as_such_on_its_page_and_in_the_alarms(
        home: Path) -> None:  # noqa: F811 - the fixture, imported
    page = device_page(_backends(home), "HOST.SITE", "24h")
    assert page.name == "host.site" and "not in the inventory" in page.facts
    assert "seen in 5 log lines from" in page.facts and "host.site.log" in page.facts
    assert page.status.startswith("host.site (not in the inventory): 1 open alarm · 5 log lines")
    assert list(page.alarms["kind"]) == ["OPTICS_LOS"] and not page.errors
    assert page.events["message"].str.contains("abc123").any()
    by_address = device_page(_backends(home), "10.100.0.32", "24h")  # as a header names it
    assert by_address.name == "nexus-33" and "syd1" in by_address.facts
    assert device_page(_backends(home), "Core-Rtr.example.NET", "24h").name == "core-rtr"
    nowhere = device_page(_backends(home), "leaf77", "24h")
    assert not nowhere.facts and "leaf77" in nowhere.status  # never logged: the tool's error
    ev = run_tool("alarms", {"state": "any", "window": "24h", "correlate": True}, _backends(home))
    [stranger] = ev.facts["unknown_devices"]
    assert stranger["device"] == "host.site" and stranger["senders"]
    assert "Not in the inventory: host.site" in ev.summary
