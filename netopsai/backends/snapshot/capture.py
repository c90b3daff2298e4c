"""One device's state, read now: NAPALM getters over one guarded (read-only) login, or, for a
device with no NAPALM entry, SNMP's system group and interface table. Each getter is read on
its own: one that fails (a driver without it, a parse error, a timeout) is one line in
`errors` and the rest is kept. The running config is never stored whole here: it goes into
ConfigSnapshot through the NAPALM backend's own record (sanitized, an unrecorded-change record
when it changed), and the snapshot keeps its diff from the previous config snapshot."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from netopsai.backends.napalm.config import SnapshotResult, diff_lines, record, sanitize
from netopsai.backends.napalm.device import DeviceError, DeviceTarget, connect, describe
from netopsai.backends.snmp.auth import SnmpTarget
from netopsai.store import tables as m

GETTERS = ("get_facts", "get_interfaces", "get_interfaces_counters", "get_lldp_neighbors",
           "get_bgp_neighbors", "get_environment", "get_optics")
MAX_DIFF_LINES = 400  # a config rewritten wholesale is still one readable cell


@dataclass
class Captured:
    """What one capture read: `data` by getter (without `get_`), what failed in `errors`."""

    device: str
    source: str  # napalm | snmp
    data: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    running: str | None = None  # the raw running config, only until it is recorded
    driver: str = ""


def _plain(value: Any, secrets: list[str]) -> Any:
    """JSON-safe (drivers return floats, nested dicts, sometimes odd types), no secret in it."""
    text = json.dumps(value, default=str, sort_keys=True)
    for secret in secrets:
        text = text.replace(json.dumps(secret)[1:-1], "***")
    return json.loads(text)


def _failure(target: DeviceTarget, getter: str, exc: BaseException) -> str:
    if isinstance(exc, NotImplementedError):
        return f"{getter}: not supported by the {target.driver} driver"
    return f"{getter}: {describe(target, exc)}"


def read_napalm(target: DeviceTarget, driver_cls: Any = None,
                getters: tuple[str, ...] = GETTERS) -> Captured:
    """Every getter over one login; a login that fails is the only error."""
    cap = Captured(target.label, "napalm", driver=target.driver)
    secrets = [s for s in (target.password.get_secret_value(),) if s]
    try:
        with connect(target, driver_cls) as dev:
            for getter in getters:
                try:
                    cap.data[getter.removeprefix("get_")] = _plain(getattr(dev, getter)(), secrets)
                except Exception as exc:  # noqa: BLE001 - one getter's failure is a row of errors
                    cap.errors.append(_failure(target, getter, exc))
            try:
                cap.running = str(dev.get_config(retrieve="running").get("running", ""))
            except Exception as exc:  # noqa: BLE001
                cap.errors.append(_failure(target, "get_config", exc))
    except DeviceError as exc:
        cap.errors.append(str(exc))
    return cap


def config_diff(engine: Engine, cap: Captured, when: datetime) -> str:
    """The running config's changed lines since the device's last config snapshot (sanitized
    on both sides); records this config as the new one when it changed. Sets
    data["config_status"]: first, unchanged or changed."""
    if cap.running is None:
        return ""
    text = sanitize(cap.running, cap.driver)
    with Session(engine) as s:
        last = s.exec(select(m.ConfigSnapshot).where(m.ConfigSnapshot.device == cap.device)
                      .order_by(col(m.ConfigSnapshot.taken_at).desc())).first()
        before = last.running if last is not None else None
    record(engine, cap.device, cap.running, cap.driver, when, SnapshotResult())
    cap.running = None  # only the sanitized diff outlives this call
    if before is None:
        cap.data["config_status"] = "first"
        return ""
    lines = diff_lines(before, text)
    cap.data["config_status"] = "changed" if lines else "unchanged"
    more = [f"... {len(lines) - MAX_DIFF_LINES} more lines"] if len(lines) > MAX_DIFF_LINES else []
    return "\n".join(lines[:MAX_DIFF_LINES] + more)


def read_snmp(target: SnmpTarget, timeout: float = 2.0, retries: int = 1) -> Captured:
    """System facts and the interface table (IF-MIB) by the same walk the poller uses."""
    from netopsai.backends.snmp.poller import interface_names
    from netopsai.backends.snmp.walk import poll_targets

    reading = poll_targets([target], 1, timeout, retries)[0]
    cap = Captured(reading.device, "snmp")
    if not reading.ok:
        cap.errors.append(f"snmp: {reading.error}")
        return cap
    if reading.partial:
        cap.errors.append(f"snmp interfaces: {reading.partial}")
    cap.data["facts"] = {"hostname": reading.sys_name, "os_version": reading.sys_descr,
                         "uptime": reading.uptime_cs / 100 if reading.uptime_cs is not None else None}
    cap.data["interfaces"] = {name: {
        "is_up": row.oper == "up", "is_enabled": row.admin == "up", "oper_status": row.oper,
        "description": row.descr if row.descr != name else "", "speed": row.speed_mbps}
        for name, row in interface_names(reading.interfaces.values())}
    cap.data["interfaces_counters"] = {name: {
        "rx_octets": row.in_octets, "tx_octets": row.out_octets, "rx_errors": row.in_errors,
        "rx_discards": row.in_discards, "tx_discards": row.out_discards}
        for name, row in interface_names(reading.interfaces.values())}
    return cap


def to_row(engine: Engine, cap: Captured, alarm_id: int | None,
           when: datetime | None = None) -> m.DeviceSnapshot:
    """The DeviceSnapshot row for a capture (its config recorded and diffed on the way)."""
    taken = when or datetime.now(UTC).replace(microsecond=0)
    diff = config_diff(engine, cap, taken)
    return m.DeviceSnapshot(device=cap.device, taken_at=taken, alarm_id=alarm_id,
                            source=cap.source, data=cap.data, config_diff=diff,
                            errors=list(cap.errors))
