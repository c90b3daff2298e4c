"""The SNMP poller's arithmetic and argument handling, without an agent: counter wrap and reset,
agent restarts, target parsing, credentials that never print."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import SecretStr, ValidationError
from sqlmodel import Session, select

from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget, parse_endpoint
from netopsai.backends.snmp.poller import counter_delta, restarted, store_readings
from netopsai.backends.snmp.walk import DeviceReading, IfReading
from netopsai.common.errors import NetopsError
from netopsai.store import tables as m
from netopsai.store.engine import create_all, engine_for


@pytest.mark.parametrize("prev,cur,bits,want", [
    (100, 250, 64, 150),
    (2**32 - 5, 10, 32, 15),  # Counter32 wrapped
    (2**64 - 1000, 24, 64, 1024),  # Counter64 wrapped
    (5_000_000, 1_000, 64, None),  # went down from low in its range: a reset, unknowable
    (2**31, 10, 32, None),  # a Counter32 halfway up does not wrap in one poll
    (None, 10, 32, None),
    (10, None, 32, None),
])
def test_counter_delta(prev: int | None, cur: int | None, bits: int, want: int | None) -> None:
    assert counter_delta(prev, cur, bits) == want


def test_restart_is_uptime_going_back_but_not_a_timeticks_wrap() -> None:
    assert restarted(8_640_000, 500, elapsed_s=60)
    assert not restarted(8_640_000, 8_646_000, elapsed_s=60)
    assert not restarted(8_640_000, 8_640_000, elapsed_s=60)  # a frozen clock (a recording)
    assert not restarted(2**32 - 1000, 4000, elapsed_s=60)  # 497 days: TimeTicks wrapped
    assert not restarted(None, 500, elapsed_s=60)


@pytest.mark.parametrize("text,want", [
    ("127.0.0.1", ("127.0.0.1", 161)), ("127.0.0.1:1161", ("127.0.0.1", 1161)),
    ("[::1]:1161", ("::1", 1161)), ("switch-01", ("switch-01", 161)),
])
def test_parse_endpoint(text: str, want: tuple[str, int]) -> None:
    assert parse_endpoint(text) == want


@pytest.mark.parametrize("text", ["127.0.0.1:99999", "127.0.0.1:abc", ":161", ""])
def test_bad_endpoint_is_one_clear_line(text: str) -> None:
    with pytest.raises(NetopsError, match="bad SNMP target"):
        parse_endpoint(text)


def test_credentials_never_print() -> None:
    v2 = SnmpTarget(host="10.0.0.1", auth=SnmpAuth(community=SecretStr("s3cr3t-community")))
    v3 = SnmpTarget(host="10.0.0.2", name="core-1", auth=SnmpAuth(
        version="3", user="ops", auth_key=SecretStr("auth-pass-123"), priv_key=SecretStr("priv-pass-456")))
    text = " ".join([repr(v2), str(v2), v2.model_dump_json(), repr(v3), v3.model_dump_json(),
                     v2.label, v3.label])
    for secret in ("s3cr3t-community", "auth-pass-123", "priv-pass-456"):
        assert secret not in text
    assert (v2.label, v3.label, v2.endpoint) == ("10.0.0.1:161", "core-1", "10.0.0.1:161")
    assert sorted(v3.auth.secrets()) == ["auth-pass-123", "priv-pass-456"]


@pytest.mark.parametrize("kwargs,msg", [
    ({"version": "2c"}, "needs a community"),
    ({"version": "3"}, "needs a user"),
    ({"version": "3", "user": "ops", "priv_key": "p"}, "needs an auth key"),
])
def test_incomplete_credentials_are_refused(kwargs: dict[str, str], msg: str) -> None:
    with pytest.raises(ValidationError, match=msg):
        SnmpAuth(**kwargs)  # type: ignore[arg-type]


def test_samples_span_five_minutes_whatever_the_poll_interval(tmp_path: Path) -> None:
    """Readings every minute: one CounterSample per 5 minutes, holding the 5 minutes' deltas;
    states and transitions still follow every poll."""
    engine = engine_for(f"sqlite:///{tmp_path / 'real.db'}")
    create_all(engine)
    t0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
    target = SnmpTarget(host="127.0.0.1", name="sw1", auth=SnmpAuth(community=SecretStr("c")))
    for minute in range(11):
        port = IfReading(index=1, name="Eth1", oper="down" if minute == 3 else "up",
                         in_octets=1000 * minute, out_octets=10 * minute, in_errors=minute)
        store_readings(engine, [DeviceReading(target=target, at=t0 + timedelta(minutes=minute),
                                              ok=True, uptime_cs=6000 * (minute + 1),
                                              interfaces={1: port})])
    with Session(engine) as s:
        samples = [(x.at, x.in_octets, x.out_octets, x.in_errors)
                   for x in s.exec(select(m.CounterSample).order_by(m.CounterSample.at))]
        events = [(e.at, e.state) for e in s.exec(select(m.InterfaceEvent).order_by(m.InterfaceEvent.at))]
    assert [(at.replace(tzinfo=UTC), *v) for at, *v in samples] == [
        (t0 + timedelta(minutes=5), 5000, 50, 5), (t0 + timedelta(minutes=10), 5000, 50, 5)]
    assert [(at.replace(tzinfo=UTC), st) for at, st in events] == [
        (t0 + timedelta(minutes=3), "down"), (t0 + timedelta(minutes=4), "up")]
