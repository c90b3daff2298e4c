"""Alertmanager webhook ingest: real HTTP POSTs of webhook (version 4) payloads to the receiver
on loopback: firing, repeated, resolved, and refused payloads."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine

from netopsai.backends.alertmanager.receiver import parse_payload
from tests.ingest_helpers import alarms, alarms_tool, lab_with_senders, raw_events, running, settle


def _alert(name: str, status: str, labels: dict[str, str], fp: str, starts: datetime,
           ends: datetime | None = None) -> dict[str, Any]:
    return {"status": status, "labels": {"alertname": name, **labels},
            "annotations": {"summary": f"{name} on {labels.get('device', labels.get('instance'))}"},
            "startsAt": starts.isoformat().replace("+00:00", "Z"),
            "endsAt": (ends.isoformat().replace("+00:00", "Z") if ends else "0001-01-01T00:00:00Z"),
            "generatorURL": "http://127.0.0.1:9090/graph?g0.expr=up", "fingerprint": fp}


def _payload(status: str, alerts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"version": "4", "groupKey": "{}:{alertname=\"x\"}", "truncatedAlerts": 0,
            "status": status, "receiver": "netopsai", "groupLabels": {}, "commonLabels": {},
            "commonAnnotations": {}, "externalURL": "http://127.0.0.1:9093", "alerts": alerts}


STARTS = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)
OPER = _alert("InterfaceOperDown", "firing", {"device": "dc1-leaf-02", "ifName": "Ethernet49/1",
                                              "severity": "critical"}, "a1b2c3d4e5f60001", STARTS)
# the DCI router by its loopback (an address in the inventory, never contacted)
BGP = _alert("BGPSessionDown", "firing", {"instance": "10.254.0.7:9116", "severity": "warning"},
             "a1b2c3d4e5f60002", STARTS)


@pytest.mark.integration
def test_firing_repeat_then_resolved(make_lab: Callable[..., Engine]) -> None:
    engine, url = lab_with_senders(make_lab)
    since = STARTS - timedelta(minutes=1)
    with running(url) as ingest:
        assert ingest.webhook is not None
        base = f"http://127.0.0.1:{ingest.webhook.port}/"
        r = httpx.post(base, json=_payload("firing", [OPER, BGP]))
        assert r.status_code == 200 and r.json() == {"status": "ok", "alerts": 2}
        again = copy.deepcopy(OPER)  # Alertmanager re-sends a firing alert with a new endsAt
        again["endsAt"] = (datetime.now(UTC) + timedelta(minutes=5)).isoformat()
        assert httpx.post(base, json=_payload("firing", [again])).status_code == 200
        settle(ingest, 3)
        ev = alarms_tool(engine, since, state="open", devices=["dc1-leaf-02", "dc1-dci-01"])
        assert sorted((r["device"], r["kind"], r["category"]) for r in ev.rows
                      if r["kind"] in ("InterfaceOperDown", "BGPSessionDown")) == [
            ("dc1-dci-01", "BGPSessionDown", "bgp"), ("dc1-leaf-02", "InterfaceOperDown", "link")]
        ends = STARTS + timedelta(minutes=3)
        resolved = _alert("InterfaceOperDown", "resolved", OPER["labels"], OPER["fingerprint"],
                          STARTS, ends)
        assert httpx.post(base + "api/v2/alerts", json=_payload("resolved", [resolved])).status_code == 200
        settle(ingest, 4)
    found = {a.kind: a for a in alarms(engine, "alertmanager")}
    assert len(alarms(engine, "alertmanager")) == 2
    oper, bgp = found["InterfaceOperDown"], found["BGPSessionDown"]
    assert (oper.state, oper.interface, oper.severity) == ("closed", "Ethernet49/1", "critical")
    assert oper.raised_at.replace(tzinfo=UTC) == STARTS
    assert oper.cleared_at is not None and oper.cleared_at.replace(tzinfo=UTC) == ends
    assert (bgp.state, bgp.device, bgp.site) == ("open", "dc1-dci-01", "dc1")
    raw = raw_events(engine, "alertmanager")
    assert [(r.kind, r.count) for r in raw] == [("InterfaceOperDown", 2), ("BGPSessionDown", 1),
                                                ("InterfaceOperDown", 1)]
    assert raw[0].alarm_id == raw[2].alarm_id == oper.id


BAD = [
    (b"{not json", "body is not JSON"),
    (json.dumps({"status": "firing"}).encode(), "'alerts' list"),
    (json.dumps(_payload("firing", [OPER, {**BGP, "status": "burning"}])).encode(),
     "alerts[1].status must be firing or resolved"),
    (json.dumps(_payload("firing", [{**OPER, "startsAt": "yesterday"}])).encode(),
     "alerts[0].startsAt is not an RFC 3339 time"),
    (json.dumps(_payload("firing", [{**OPER, "labels": {"device": "x"}}])).encode(),
     "alerts[0].labels has no alertname"),
]


@pytest.mark.integration
def test_bad_payloads_are_refused_whole(make_lab: Callable[..., Engine]) -> None:
    engine, url = lab_with_senders(make_lab)
    with running(url) as ingest:
        assert ingest.webhook is not None
        base = f"http://127.0.0.1:{ingest.webhook.port}/"
        for body, reason in BAD:
            r = httpx.post(base, content=body, headers={"Content-Type": "application/json"})
            assert r.status_code == 400, body
            assert reason in r.text and r.text.count("\n") == 1  # one line
        assert httpx.get(base).status_code == 405
        good = httpx.post(base, json=_payload("firing", [BGP]))
        assert good.status_code == 200
        settle(ingest, 1)  # only the good payload's alert: nothing of a refused one
    assert [a.kind for a in alarms(engine, "alertmanager")] == ["BGPSessionDown"]
    assert len(raw_events(engine)) == 1


@pytest.mark.parametrize(("labels", "device", "category"), [
    ({"instance": "192.0.2.1:9116"}, "192.0.2.1", "device"),
    ({"instance": "[2001:db8::1]:9100"}, "2001:db8::1", "device"),
    ({"instance": "2001:db8::1"}, "2001:db8::1", "device"),
    ({"device": "r1", "instance": "192.0.2.1:9116", "category": "dci"}, "r1", "dci"),
    ({"sysName": "r2"}, "r2", "device"),
    ({}, "alertmanager", "device"),
])
def test_device_and_category_from_labels(labels: dict[str, str], device: str, category: str) -> None:
    [ev] = parse_payload(json.dumps(_payload("firing", [_alert("Something", "firing", labels, "f1",
                                                               STARTS)])).encode(), "127.0.0.1")
    assert (ev.name, ev.category) == (device, category)


@pytest.mark.parametrize(("name", "category"), [("BGPPeerDown", "bgp"), ("OpticsRxPowerLow", "optics"),
                                                ("LinkUtilizationHigh", "capacity"),
                                                ("InterfaceDown", "link"), ("NodeUnreachable", "device")])
def test_category_from_alert_name(name: str, category: str) -> None:
    [ev] = parse_payload(json.dumps(_payload("firing", [_alert(name, "firing", {}, "f", STARTS)]))
                         .encode(), "127.0.0.1")
    assert ev.category == category and ev.kind == name and ev.action == "raise"


def test_an_unvouched_sender_cannot_speak_for_a_device(make_lab: Callable[..., Engine]) -> None:
    """Issue 23 B11 (its webhook half, found again by the second hostile pass): a POST from a
    sender that is neither a listed relay nor authenticated opened a LINK_DOWN on any device.
    Now it is kept, marked, and raises nothing; from a listed relay the same alert raises."""
    from netopsai.common.textsafe import UNVERIFIED

    engine, url = lab_with_senders(make_lab)
    since = STARTS - timedelta(minutes=1)
    with running(url, relays=()) as ingest:  # no relay listed, no auth configured
        assert ingest.webhook is not None
        r = httpx.post(f"http://127.0.0.1:{ingest.webhook.port}/", json=_payload("firing", [OPER]))
        assert r.status_code == 200
        settle(ingest, 1)
    assert alarms(engine, "alertmanager") == []
    [raw] = raw_events(engine, "alertmanager")
    assert raw.message.startswith(UNVERIFIED) and raw.alarm_id is None
    ev = alarms_tool(engine, since, state="open", devices=["dc1-leaf-02"])
    assert not [r for r in ev.rows if r["kind"] == "InterfaceOperDown"]
