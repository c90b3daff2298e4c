"""Plain host names in a question (issue 24 items 2 and 6): a name with no digit and no dot
("gateway", "BORDER", "fw-edge") is a device known from its logs when the events store holds
exactly that name, in any case, with or without a configured domain — and only then: a word
no device is stored under stays a word, and is not even looked up."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from netopsai.planner import Vocabulary, plan
from netopsai.planner.hostnames import logged_lookup

NOW = datetime(2023, 11, 7, 8, 30, tzinfo=UTC)


class _Store:
    """An events store holding `names` (a line each, from `sender`); it records the names each
    look-up asked for, so a test can see which words reached the store at all."""

    def __init__(self, names: list[str], sender: str = "remote/gw.log") -> None:
        self.names, self.sender = names, sender
        self.asked: list[list[str]] = []

    def logged_devices(self) -> list[str]:
        return list(self.names)

    def events(self, devices: list[str], window: Any, limit: int = 200) -> tuple[list[Any], int]:
        self.asked.append(list(devices))
        hits = [d for d in devices if d in self.names]
        return ([{"device": hits[0], "host": self.sender}], len(hits)) if hits else ([], 0)


def vocab(store: _Store, domains: tuple[str, ...] = ()) -> Vocabulary:
    """One inventory device (core-rtr); the events store as given."""
    return Vocabulary(devices=["core-rtr"], sites=["syd1"], pods=[], roles=["leaf"],
                      meta={"core-rtr": {"role": "leaf", "site": "syd1", "pod": None}},
                      logged=logged_lookup(store, domains, lambda: NOW), domains=domains)


@pytest.mark.parametrize(("question", "stored", "device"), [
    ("which ports flapped on gateway yesterday?", "gateway", "gateway"),
    ("any optics warnings on border this week?", "BORDER", "BORDER"),  # any case
    ("what happened to FW-EDGE yesterday?", "fw-edge", "fw-edge"),
    ("which ports flapped on core yesterday?", "core", "core"),
])
def test_a_plain_name_that_logged_is_that_provisional_device(question: str, stored: str,
                                                             device: str) -> None:
    p = plan(question, vocab(_Store([stored, "leaf9"])), NOW)
    assert p.entities.devices == [device] == p.entities.provisional
    assert f"{device} is not in the inventory; seen in 1 log line from remote/gw.log" in p.note
    assert "alarms" in {c.tool for c in p.calls}  # its alarms (and lines), never counters
    assert p.calls and all(c.args["devices"] == [device] for c in p.calls)


def test_a_plain_name_meets_its_logs_through_the_configured_domain() -> None:
    store = _Store(["gateway.example.net"])
    p = plan("which ports flapped on gateway yesterday?", vocab(store, ("example.net",)), NOW)
    assert p.entities.devices == ["gateway.example.net"]


@pytest.mark.parametrize("word", ["border", "core", "edge"])
def test_a_word_no_device_is_stored_under_stays_a_word(word: str) -> None:
    """Beside a stored name that is read, a word stored only in near forms ("borders",
    "border-sw") is no device and never reaches the store."""
    store = _Store(["gateway", f"{word}s", f"{word}-sw"])
    p = plan(f"which ports flapped on gateway or the {word} yesterday?", vocab(store), NOW)
    assert p.entities.devices == ["gateway"] == p.entities.provisional
    assert store.asked and not any(word in names for names in store.asked)


def test_only_the_stored_word_is_looked_up() -> None:
    """The ordinary words of a question ("which", "ports", "flapped", "on") are never looked
    up, whatever the store holds; the one stored name is, once."""
    store = _Store(["gateway"])
    plan("which ports flapped on gateway yesterday?", vocab(store), NOW)
    assert len(store.asked) == 1 and "gateway" in store.asked[0]
    assert not {"which", "ports", "flapped", "on"} & {n for names in store.asked for n in names}
