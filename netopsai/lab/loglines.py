"""What the lab's devices log when a fault changes a port's state: each oper-status transition
an injected fault writes is also a syslog line in its device's own format —
NX-OS's ETHPORT, EOS's LINEPROTO, Junos's mib2d SNMP_TRAP_LINK_*, IOS XR's PKT_INFRA-LINK, the
Linux kernel's NIC driver on hosts and Cumulus, SONiC's orchagent — read by the same parser the
ingest receivers use, and stored as the `events` tool reads it. The lines only log: the lab
writes its alarms itself, so none is raised twice.

Only injected faults log: the background history and a scenario's noise stay unlogged, as
before, because a device whose last line is days old reads as a log file loaded after the fact
(planner/anchors.py) and a healthy lab device must not. Each run mirrors the transitions written
since the mark (a Meta row holding the last InterfaceEvent id done); `mark_port_log` moves the
mark past transitions that are not to be logged."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlmodel import Session, col, func, select

from netopsai.common.timewin import as_utc
from netopsai.store import tables as m
from netopsai.store.engine import bulk_insert, get_meta, set_meta

MARK = "loglines_through"  # the last InterfaceEvent id mirrored
LAB = "lab:"  # the lines' fingerprints: never equal to a received line's, and told apart by it
Line = Callable[[str, str, str, datetime], str]  # (host, port, state, at) -> the raw line


def _bsd(t: datetime) -> str:
    return f"{t:%b} {t.day:2d} {t:%H:%M:%S}"


def _nxos(host: str, port: str, state: str, t: datetime) -> str:
    text = (f"%ETHPORT-5-IF_DOWN_LINK_FAILURE: Interface {port} is down (Link failure)"
            if state == "down" else f"%ETHPORT-5-IF_UP: Interface {port} is up in mode routed")
    return f"<189>: {t:%Y} {t:%b} {t.day:2d} {t:%H:%M:%S} UTC: {text}"


def _eos(host: str, port: str, state: str, t: datetime) -> str:
    return (f"<189>{_bsd(t)} {host} Ebra: %LINEPROTO-5-UPDOWN: Line protocol on Interface "
            f"{port}, changed state to {state}")


def _junos(host: str, port: str, state: str, t: datetime) -> str:
    trap, pri, oper = ("LINK_DOWN", 28, "down(2)") if state == "down" else ("LINK_UP", 30, "up(1)")
    index = 500 + sum(map(ord, port)) % 500  # a stable ifIndex per port
    return (f"<{pri}>{_bsd(t)} {host} mib2d[2291]: SNMP_TRAP_{trap}: ifIndex {index}, "
            f"ifAdminStatus up(1), ifOperStatus {oper}, ifName {port}")


def _iosxr(host: str, port: str, state: str, t: datetime) -> str:
    return (f"<187>1: RP/0/RP0/CPU0:{_bsd(t)}.000 UTC: ifmgr[227]: %PKT_INFRA-LINK-3-UPDOWN : "
            f"Interface {port}, changed state to {state.capitalize()}")


def _kernel(host: str, port: str, state: str, t: datetime) -> str:
    return (f"<6>{_bsd(t)} {host} kernel: [{t.timestamp() % 10 ** 6:12.6f}] mlx5_core "
            f"0000:3b:00.0 {port}: Link {state}")


def _sonic(host: str, port: str, state: str, t: datetime) -> str:
    was = "up" if state == "down" else "down"
    return (f"<13>{_bsd(t)}.000000 {host} NOTICE swss#orchagent: :- updatePortOperStatus: Port "
            f"{port} oper state set from {was} to {state}")


# the device's OS (its os_version's first word) -> how it logs a port's state
FORMATS: dict[str, Line] = {"NX-OS": _nxos, "EOS": _eos, "Junos": _junos, "IOS-XR": _iosxr,
                            "Ubuntu": _kernel, "DGX": _kernel, "Cumulus": _kernel,
                            "SONiC": _sonic}


def line_for(os_version: str) -> Line | None:
    word = (os_version.split() or [""])[0]
    return FORMATS.get(word) or FORMATS.get(word.split("-")[0]) if word else None


def mirror_port_log(s: Session) -> int:
    """Log lines for the transitions written since the last call; how many were stored."""
    from netopsai.backends.syslog.receiver import syslog_event  # here: asking needs no parser

    done = int(get_meta(s, MARK) or 0)
    events = s.exec(select(m.InterfaceEvent).where(col(m.InterfaceEvent.id) > done)
                    .order_by(col(m.InterfaceEvent.id))).all()
    if not events:
        return 0
    devices = {d.name: d for d in s.exec(select(m.Device).where(
        col(m.Device.name).in_({e.device for e in events})))}
    rows = []
    for e in events:
        dev = devices.get(e.device)
        fmt = line_for(dev.os_version) if dev else None
        if dev is None or fmt is None:
            continue
        at = as_utc(e.at)
        raw = fmt(dev.name, e.interface, e.state, at).encode()
        ev = syslog_event(raw, dev.mgmt_ip or dev.loopback or dev.name, at, near=at)
        rows.append({"received_at": at, "at": ev.at or at, "device_time": ev.device_time,
                     "skew_s": ev.skew_s, "source": "syslog", "host": ev.host,
                     "hostname": ev.name, "device": dev.name, "interface": e.interface,
                     "program": ev.program, "mnemonic": ev.mnemonic, "facility": ev.facility,
                     "severity": ev.syslog_severity, "message": ev.message, "kind": ev.kind,
                     "key": f"{ev.kind}|{dev.name}|{e.interface}" if ev.kind else None,
                     "fingerprint": LAB + ev.fingerprint, "count": 1})
    bulk_insert(s, m.RawEvent, rows)
    set_meta(s, MARK, str(events[-1].id))
    return len(rows)


def mark_port_log(s: Session) -> None:
    """Leave the transitions written so far unlogged (background history, a scenario's noise)."""
    last = s.exec(select(func.max(m.InterfaceEvent.id))).one()
    set_meta(s, MARK, str(last or 0))
