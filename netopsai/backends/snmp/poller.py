"""SNMP polls into the store, so history questions work on a real network.

Each successful reading upserts its Device and Interface rows; an oper-status change since the
previous poll becomes an InterfaceEvent; counter differences become a CounterSample (source
"snmp") once at least 5 minutes (`sample_every`) have passed since the raw counters kept in
SnmpCounterState, so samples are 5-minute figures like the lab's whatever the poll interval (a
live read in between updates states only). A counter that went down wrapped when it was near the
top of its range and was reset otherwise (no sample); a sysUpTime that went backwards means the
agent restarted, so that interval gets no sample either.
Targets and credentials are passed in explicitly (netopsai.config.network supplies them for `poll`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol

from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.backends.snmp.auth import SnmpTarget
from netopsai.backends.snmp.walk import DeviceReading, IfReading, OnReading, poll_targets
from netopsai.common.errors import NetopsError
from netopsai.common.timewin import as_utc
from netopsai.store import tables as m
from netopsai.store.engine import bulk_insert, create_all, get_meta, set_meta
from netopsai.store.telemetry import FIRST_SEEN

SOURCE = "snmp"
SAMPLE_S = 300.0  # CounterSample rows are 5-minute figures (models.CounterSample, the lab's grid)
COUNTERS = {"in_octets": 64, "out_octets": 64, "in_errors": 32, "in_discards": 32,
            "out_discards": 32}  # field -> counter width in bits
VENDORS = ("cisco", "juniper", "arista", "huawei", "nokia", "hpe", "hp", "dell", "brocade",
           "extreme", "mikrotik", "zte", "h3c", "ruijie", "linux")


@dataclass
class PollReport:
    readings: list[DeviceReading]
    devices: int = 0
    interfaces: int = 0
    events: int = 0
    samples: int = 0
    restarted: list[str] = field(default_factory=list)
    went_down: list[tuple[str, str]] = field(default_factory=list)  # (device, port) up -> down

    @property
    def failures(self) -> dict[str, str]:
        """Device label -> why it could not be read (safe to show: no credentials)."""
        return {r.target.label: r.error for r in self.readings if not r.ok}


def counter_delta(prev: int | None, cur: int | None, bits: int) -> int | None:
    """cur - prev for an SNMP counter; a wrap when prev was in the top quarter of the range,
    otherwise a reset (None: the difference is unknowable)."""
    if prev is None or cur is None:
        return None
    if cur >= prev:
        return cur - prev
    top = 1 << bits
    return cur + top - prev if prev >= top - (top >> 2) else None


def restarted(prev_cs: int | None, cur_cs: int | None, elapsed_s: float) -> bool:
    """sysUpTime went backwards, and not because the 32-bit TimeTicks wrapped in between."""
    if prev_cs is None or cur_cs is None or cur_cs >= prev_cs:
        return False
    return prev_cs + elapsed_s * 100 < (1 << 32)


def ensure_real_store(engine: Engine) -> None:
    """Polls go into a real network's store, never into the embedded lab's."""
    create_all(engine)
    with Session(engine) as s:
        kind = get_meta(s, "network")
        if kind is None and get_meta(s, "clock"):
            raise NetopsError("the store holds the embedded lab; point NETOPSAI_HOME at another "
                              "store to poll a real network")
        if kind is None:
            set_meta(s, "network", "real")
            set_meta(s, "source", SOURCE)
            s.commit()


class Reader(Protocol):
    """Reads a round (poll_targets here, ray_poll's reader on Ray): every target's reading in
    the targets' order; `on_reading`, when given, hears each one as it arrives."""

    def __call__(self, targets: list[SnmpTarget], concurrency: int, timeout: float, retries: int,
                 on_reading: OnReading | None = None) -> list[DeviceReading]: ...


def poll_and_store(engine: Engine, targets: list[SnmpTarget], concurrency: int = 32,
                   timeout: float = 2.0, retries: int = 1,
                   sample_every: float = SAMPLE_S, read: Reader | None = None,
                   writers: int | None = None) -> PollReport:
    """One round: read every target now (`read`: poll_targets here, or ray_poll's on Ray; in
    the targets' order either way) and store what was read. Stored by per-chunk writers while
    the round is read (backends/snmp/writers.py; `writers` None: the store's default), or with
    `writers=0` by one transaction after the whole round (the single writer; same rows)."""
    from netopsai.backends.snmp.writers import PollWriters, default_writers

    ensure_real_store(engine)
    reader = read or poll_targets
    n = default_writers(engine) if writers is None else writers
    if n <= 0:
        return store_readings(engine, reader(targets, concurrency, timeout, retries), sample_every)
    with PollWriters(engine, len(targets), n, sample_every) as out:
        return out.close(reader(targets, concurrency, timeout, retries, on_reading=out.feed))


def store_readings(engine: Engine, readings: list[DeviceReading],
                   sample_every: float = SAMPLE_S) -> PollReport:
    """The single writer: the whole round in one transaction."""
    report = PollReport(readings)
    samples: list[dict[str, Any]] = []  # CounterSample rows, inserted in bulk: thousands a round
    with Session(engine) as s:
        for r in readings:
            store_one(s, r, report, sample_every, samples)
        report.samples = bulk_insert(s, m.CounterSample, samples)
        s.commit()
    return report


def store_one(s: Session, r: DeviceReading, report: PollReport, sample_every: float,
              samples: list[dict[str, Any]]) -> None:
    """One reading's rows into the session (its counter samples into `samples`, for a bulk
    insert): a device's rows depend on nothing but that device's earlier rows."""
    if r.ok:
        _store_device(s, r, report, sample_every, samples)
    elif r.target.name and (dev := s.get(m.Device, r.target.name)):
        dev.status = "unreachable"
        s.add(dev)


def _vendor(descr: str) -> str:
    words = descr.lower().replace(",", " ").split()
    return next((v for v in VENDORS if v in words[:4]), "")


def _store_device(s: Session, r: DeviceReading, report: PollReport, sample_every: float,
                  samples: list[dict[str, Any]]) -> None:
    dev = s.get(m.Device, r.device) or m.Device(name=r.device, role="unknown", site="")
    dev.status, dev.mgmt_ip = "up", dev.mgmt_ip or r.target.host
    dev.vendor = dev.vendor or _vendor(r.sys_descr)
    if r.sys_descr:
        dev.os_version = r.sys_descr.splitlines()[0][:200]
    if r.uptime_cs is not None:
        dev.booted_at = r.at - timedelta(seconds=r.uptime_cs / 100)
    s.add(dev)
    report.devices += 1
    states = {st.if_index: st for st in s.exec(select(m.SnmpCounterState)
                                                .where(m.SnmpCounterState.device == r.device))}
    ifaces = {i.name: i for i in s.exec(select(m.Interface).where(m.Interface.device == r.device))}
    last = next(iter(states.values()), None)
    rebooted = last is not None and restarted(
        last.uptime_cs, r.uptime_cs, (r.at - as_utc(last.seen_at or last.at)).total_seconds())
    if rebooted:
        report.restarted.append(r.device)
    for name, row in interface_names(r.interfaces.values()):
        _upsert_interface(s, ifaces.get(name), r.device, name, row)
        prev = states.get(row.index)
        report.interfaces += 1
        report.events += _transition(s, r, name, prev, row)
        if prev is not None and prev.oper_status == "up" and row.oper == "down":
            report.went_down.append((r.device, name))  # what an alarm snapshot hears of
        sample, rebase = _advance(r, name, prev, row, rebooted, sample_every)
        if sample is not None:
            samples.append(sample)
        s.add(_state(prev, r, name, row, rebase))


def interface_names(rows: Iterable[IfReading]) -> list[tuple[str, IfReading]]:
    """Interface names: ifName, else ifDescr, made unique per device (agents repeat names)."""
    out: list[tuple[str, IfReading]] = []
    seen: set[str] = set()
    for row in sorted(rows, key=lambda x: x.index):
        name = row.name or row.descr or f"ifIndex{row.index}"
        name = f"{name} (ifIndex {row.index})" if name in seen else name
        seen.add(name)
        out.append((name, row))
    return out


def _upsert_interface(s: Session, iface: m.Interface | None, device: str, name: str,
                      row: IfReading) -> None:
    iface = iface or m.Interface(device=device, name=name)
    iface.speed_mbps = row.speed_mbps or iface.speed_mbps
    iface.admin_status, iface.oper_status = row.admin, row.oper
    iface.description = iface.description or (row.descr if row.descr != name else "")
    s.add(iface)


def _transition(s: Session, r: DeviceReading, name: str, prev: m.SnmpCounterState | None,
                row: IfReading) -> int:
    """An InterfaceEvent when the oper status changed since the last poll; a port first seen
    in a state other than up gets one too, so history does not assume it was up."""
    if prev is not None and prev.oper_status == row.oper:
        return 0
    if prev is None and row.oper == "up":
        return 0
    reason = (f"snmp poll: {prev.oper_status} -> {row.oper}" if prev
              else f"snmp poll: {FIRST_SEEN} {row.oper}")
    s.add(m.InterfaceEvent(device=r.device, interface=name, at=r.at, state=row.oper, reason=reason))
    return 1


def _advance(r: DeviceReading, name: str, prev: m.SnmpCounterState | None, row: IfReading,
             rebooted: bool, sample_every: float) -> tuple[dict[str, Any] | None, bool]:
    """(the CounterSample now due, if any; whether the counters start a new interval). Samples
    span at least `sample_every` seconds (10% jitter allowed) so that, like the lab's, they
    are 5-minute figures whatever the poll interval."""
    if prev is None or rebooted:
        return None, True  # no interval yet, or one that straddles a reboot: unknowable
    if (r.at - as_utc(prev.at)).total_seconds() < sample_every * 0.9:
        return None, False  # keep accumulating
    deltas = {f: counter_delta(getattr(prev, f), getattr(row, f), bits) for f, bits in COUNTERS.items()}
    if deltas["in_octets"] is None or deltas["out_octets"] is None:
        return None, True  # no octet counters, or a reset: this interval is unknowable
    return {"device": r.device, "interface": name, "at": r.at, "source": SOURCE, "crc_errors": 0,
            "rx_power_dbm": None, **{f: v or 0 for f, v in deltas.items()}}, True


def _state(prev: m.SnmpCounterState | None, r: DeviceReading, name: str, row: IfReading,
           rebase: bool) -> m.SnmpCounterState:
    st = prev or m.SnmpCounterState(device=r.device, if_index=row.index, at=r.at)
    st.interface, st.seen_at, st.uptime_cs, st.oper_status = name, r.at, r.uptime_cs, row.oper
    if rebase:
        st.at = r.at
        for f in COUNTERS:
            setattr(st, f, getattr(row, f))
    return st


def poll_forever(engine: Engine, targets: list[SnmpTarget], interval: float,
                 on_round: Callable[[PollReport], None], concurrency: int = 32,
                 timeout: float = 2.0, retries: int = 1, rounds: int | None = None,
                 sample_every: float = SAMPLE_S, read: Reader | None = None,
                 writers: int | None = None) -> None:
    """Poll every `interval` seconds (measured start to start) until interrupted or `rounds`."""
    done = 0
    while rounds is None or done < rounds:
        started = time.monotonic()
        on_round(poll_and_store(engine, targets, concurrency, timeout, retries, sample_every, read,
                                writers))
        done += 1
        if rounds is None or done < rounds:
            time.sleep(max(0.0, interval - (time.monotonic() - started)))
