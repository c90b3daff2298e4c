"""Telemetry and alarms read live from the namespace lab's devices, as a poller would read them
from real ones: oper status from `ip -j link`, input errors from the kernel's rx counters plus
the packets the device's filters dropped on that port (`iptables -v`), and the alarms an NMS
raises from that state (LINK_DOWN per down port, DEVICE_UNREACHABLE when all of a device's
links are down, INTERFACE_ERRORS past a threshold), merged with the store's own alarms."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.backends.base import IfaceSel, Row
from netopsai.backends.netns.inject import LOSS_TABLE
from netopsai.backends.netns.lab import read_lab
from netopsai.backends.netns.sh import in_ns
from netopsai.backends.rows import AlarmRecord, PortCounters, PortStatus
from netopsai.common.timewin import Window, iso
from netopsai.store import tables as m
from netopsai.store.events import StoreEvents

ERRORS_ALARM = 50  # input errors since the lab came up that raise an alarm, as an NMS threshold
_DROP = re.compile(r"^\s*(\d+)\s+\d+\s+DROP\s+\S+\s+\S+\s+(\S+)\s")


class NetnsState:
    """One read of every lab device's ports."""

    def __init__(self, engine: Engine) -> None:
        lab = read_lab(engine)
        self.namespaces = lab.namespaces if lab else {}
        self.engine = engine

    def ports(self, devices: list[str] | None) -> dict[tuple[str, str], Row]:
        out: dict[tuple[str, str], Row] = {}
        for dev in devices or sorted(self.namespaces):
            ns = self.namespaces.get(dev)
            if ns is None:
                continue
            links = json.loads(in_ns(ns, "ip", "-j", "-s", "link", "show", check=False) or "[]")
            drops = _filter_drops(ns)
            for lk in links:
                name = lk.get("ifname", "")
                if name == "lo" or lk.get("link_type") != "ether" or name.startswith("Vlan"):
                    continue
                rx = lk.get("stats64", {}).get("rx", {})
                out[(dev, name)] = {"oper": "down" if lk.get("operstate") != "UP" else "up",
                                    "errors": int(rx.get("errors", 0)) + drops.get(name, 0)}
        return out


def _filter_drops(ns: str) -> dict[str, int]:
    """Packets dropped by filter rules that match an input port, per port."""
    text = in_ns(ns, "iptables", "-L", "-v", "-x", "-n", check=False)
    out: dict[str, int] = {}
    for line in text.splitlines():
        mt = _DROP.match(line)
        if mt and mt.group(2) not in ("*", ""):
            out[mt.group(2)] = out.get(mt.group(2), 0) + int(mt.group(1))
    raw = in_ns(ns, "nft", "-j", "list", "table", "bridge", LOSS_TABLE, check=False)
    for item in json.loads(raw or '{"nftables": []}').get("nftables", []):
        exprs = item.get("rule", {}).get("expr", [])
        port = next((e["match"]["right"] for e in exprs if "match" in e
                     and e["match"].get("left", {}).get("meta", {}).get("key") == "iifname"), None)
        packets = next((e["counter"]["packets"] for e in exprs if "counter" in e), 0)
        if port:
            out[port] = out.get(port, 0) + int(packets)
    return out


def _devices(engine: Engine, sel: IfaceSel) -> list[str] | None:
    if sel.get("devices"):
        return list(sel["devices"])
    with Session(engine) as s:
        q = select(m.Device.name).where(m.Device.role != "host")
        for key in ("site", "pod", "role"):
            value = sel.get(key)
            if value:
                q = q.where(getattr(m.Device, key) == value)
        return list(s.exec(q))


class NetnsTelemetry:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def _ports(self, sel: IfaceSel) -> dict[tuple[str, str], Row]:
        ports = NetnsState(self.engine).ports(_devices(self.engine, sel))
        want = sel.get("interface")
        return {k: v for k, v in ports.items() if not want or k[1] == want}

    def oper_status(self, sel: IfaceSel, window: Window) -> tuple[list[PortStatus], int]:
        ports = self._ports(sel)
        rows: list[PortStatus] = [{"device": d, "interface": i, "state_at_start": "unknown", "transitions": 0,
                 "flaps": 0, "down_s": 0, "state_at_end": "down",
                 "events": ""}  # read now, no transition seen: the others' column lists transitions
                for (d, i), p in sorted(ports.items()) if p["oper"] == "down"]
        return rows, len(ports)

    def counters(self, sel: IfaceSel, window: Window, metric: str,
                 top: int = 20) -> tuple[list[PortCounters], int, int]:
        """Input errors as read now (counters since the lab came up); other metrics are not
        measured in namespaces and come back empty."""
        ports = self._ports(sel)
        if metric != "errors":
            return [], len(ports), 0
        rows: list[PortCounters] = [
            {"device": d, "interface": i, "total": p["errors"], "max_per_5min": p["errors"],
             "last_5min": p["errors"], "crc_total": p["errors"]}
            for (d, i), p in ports.items() if p["errors"]]
        rows.sort(key=lambda r: -r["total"])
        return rows[:top], len(ports), len(rows)


class NetnsAlarms(StoreEvents):
    """The store's alarms and changes, plus the alarms the lab's live state raises."""

    def alarms(self, category: str | None, state: str, devices: list[str] | None,
               site: str | None, window: Window) -> list[AlarmRecord]:
        rows = super().alarms(category, state, devices, site, window)
        if state == "closed":
            return rows
        live = [r for r in live_alarms(self.engine, window.end)
                if (not category or r["category"] == category) and (not site or r["site"] == site)
                and (not devices or r["device"] in devices)]
        return cast(list[AlarmRecord], live) + rows


def live_alarms(engine: Engine, at: datetime) -> list[Row]:
    ports = NetnsState(engine).ports(None)
    with Session(engine) as s:
        links = list(s.exec(select(m.Link)))
        sites = dict(s.exec(select(m.Device.name, m.Device.site)).all())
        roles = dict(s.exec(select(m.Device.name, m.Device.role)).all())
    raised = iso(min(at, datetime.now(UTC)))
    rows: list[Row] = []
    down: set[int | None] = set()
    for lk in links:
        for dev, ifn, peer in ((lk.a_device, lk.a_interface, lk.b_device),
                               (lk.b_device, lk.b_interface, lk.a_device)):
            p = ports.get((dev, ifn))
            if p and p["oper"] == "up" and p["errors"] >= ERRORS_ALARM and roles.get(dev) != "host":
                rows.append(_alarm(len(rows), "INTERFACE_ERRORS", "link", dev, ifn, lk.id,
                                   sites.get(dev, ""), raised, peer,
                                   f"{dev} {ifn} input errors: {p['errors']} (to {peer})"))
            if p and p["oper"] == "down":
                down.add(lk.id)
                if roles.get(dev) != "host":  # hosts are not monitored
                    rows.append(_alarm(len(rows), "LINK_DOWN", "dci" if lk.kind == "dci" else "link",
                                       dev, ifn, lk.id, sites.get(dev, ""), raised, peer,
                                       f"{dev} {ifn} oper down (to {peer})"))
    mine: dict[str, set[int | None]] = {}
    for lk in links:
        for dev in (lk.a_device, lk.b_device):
            mine.setdefault(dev, set()).add(lk.id)
    for dev, ids in sorted(mine.items()):
        if roles.get(dev, "host") != "host" and ids <= down:
            rows.append(_alarm(len(rows), "DEVICE_UNREACHABLE", "device", dev, None, None,
                               sites.get(dev, ""), raised, None,
                               f"{dev} unreachable: all its {len(ids)} links are down"))
    return rows


def _alarm(n: int, kind: str, category: str, device: str, interface: str | None,
           link_id: int | None, site: str, raised: str, peer: str | None, msg: str) -> Row:
    return {"id": 10_000_000 + n, "kind": kind, "category": category, "severity": "major",
            "device": device, "interface": interface, "link_id": link_id, "site": site,
            "raised_at": raised, "cleared_at": None, "state": "open", "message": msg,
            "source": "netns", "impact": "traffic_lost", "traffic_lost": True, "peer": peer}


def from_config(engine: Engine, cfg: Any) -> NetnsTelemetry:
    """The backend registry's builder (netopsai.backends.registry)."""
    return NetnsTelemetry(engine)
