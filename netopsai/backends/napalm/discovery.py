"""Inventory discovery and refresh from devices: facts, interfaces, addresses, LLDP -> the store.

All of a device's getters run in one session; a device that fails any of them contributes
nothing, and the others are written in one transaction through netopsai.store.inventory_sync.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from ipaddress import ip_interface
from typing import Any

from sqlalchemy import Engine, inspect
from sqlmodel import Session, select

from netopsai.backends.napalm.device import DeviceError, DeviceTarget, connect
from netopsai.store import tables as m
from netopsai.store.inventory_sync import InventoryBatch, SyncReport, link_kind, sync_inventory
from netopsai.store.naming import is_ip

Row = dict[str, Any]
ROLE_WORDS = ("superspine", "spine", "leaf", "tor", "border", "dci", "host", "server")
GETTERS = ("get_facts", "get_interfaces", "get_interfaces_ip", "get_lldp_neighbors")


@dataclass
class DeviceReading:
    """What one device answered (raw getter results)."""

    target: DeviceTarget
    facts: Row
    interfaces: Row
    addresses: Row
    lldp: Row

    @property
    def name(self) -> str:
        return str(self.facts.get("hostname") or self.target.label)


@dataclass
class DiscoveryResult:
    devices: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    report: SyncReport | None = None

    @property
    def partial(self) -> bool:
        return bool(self.errors)

    def line(self) -> str:
        done = (f"discovered {len(self.devices)} device(s) ({', '.join(self.devices)})"
                if self.devices else "discovered no devices")
        stored = f": {self.report.line()}" if self.report else ""
        failed = f"; {len(self.errors)} failed" if self.errors else ""
        return done + stored + failed


def read_device(target: DeviceTarget, driver_cls: Any = None) -> DeviceReading:
    """Run the discovery getters on one device (raises DeviceError)."""
    with connect(target, driver_cls) as dev:
        facts, ifaces, addrs, lldp = (getattr(dev, g)() for g in GETTERS)
    return DeviceReading(target, facts, ifaces, addrs, lldp)


def discover(engine: Engine, targets: list[DeviceTarget], site: str = "default",
             role: str | None = None, driver_cls: Any = None, workers: int = 8) -> DiscoveryResult:
    """Read every target (concurrently) and upsert what answered; failures are named, not fatal."""
    result = DiscoveryResult()
    readings: list[DeviceReading] = []

    def one(t: DeviceTarget) -> DeviceReading | str:
        try:
            return read_device(t, driver_cls)
        except DeviceError as exc:
            return str(exc)

    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(targets)))) as pool:
        for got in pool.map(one, targets):
            if isinstance(got, str):
                result.errors.append(got)
            else:
                readings.append(got)
    if readings:
        batch = build_batch(readings, _stored_roles(engine), site, role)
        result.report = sync_inventory(engine, batch)
        result.devices = [r.name for r in readings]
    return result


def _stored_roles(engine: Engine) -> dict[str, tuple[str, str]]:
    if not inspect(engine).has_table("device"):
        return {}
    with Session(engine) as s:
        return {n: (r, st) for n, r, st in s.exec(select(m.Device.name, m.Device.role, m.Device.site))}


def guess_role(hostname: str) -> str:
    words = re.split(r"[^a-z]+", hostname.lower())
    for word in ROLE_WORDS:
        if word in words:
            return {"tor": "leaf", "server": "host"}.get(word, word)
    return "router"


def build_batch(readings: list[DeviceReading], stored: dict[str, tuple[str, str]], site: str,
                role: str | None) -> InventoryBatch:
    """Getter results -> inventory rows. Role and site only name new devices (unless given)."""
    batch = InventoryBatch(source="napalm", sites=[{"name": site}],
                           device_insert_only=set() if role else {"role", "site"})
    now = datetime.now(UTC)
    roles = {n: r for n, (r, _) in stored.items()}
    roles.update({r.name: roles.get(r.name) or role or guess_role(r.name) for r in readings})
    sites = {n: s for n, (_, s) in stored.items()}
    for r in readings:
        batch.devices.append(_device_row(r, role or roles[r.name], site, now))
        batch.authoritative_interfaces.add(r.name)
        batch.interfaces += _interface_rows(r)
        batch.segments += _segment_rows(r, roles[r.name], sites.get(r.name, site))
        batch.links += _link_rows(r, roles, sites, site)
    return batch


def _device_row(r: DeviceReading, role: str, site: str, now: datetime) -> Row:
    f = r.facts
    row: Row = {"name": r.name, "role": role, "site": site, "vendor": f.get("vendor", ""),
                "model": f.get("model", ""), "os_version": f.get("os_version", ""),
                "mgmt_ip": r.target.host if is_ip(r.target.host) else None, "status": "up"}
    uptime = float(f.get("uptime") or -1)
    if uptime > 0:  # whole seconds, so an unchanged uptime does not rewrite the row
        row["booted_at"] = (now - timedelta(seconds=uptime)).replace(microsecond=0)
    loop = _first_v4(r.addresses.get("Loopback0", {}))
    if loop:
        row["loopback"] = loop.split("/")[0]
    return row


def _first_v4(entry: Row) -> str | None:
    for addr, info in (entry.get("ipv4") or {}).items():
        return f"{addr}/{info.get('prefix_length', 32)}"
    return None


def _every(entry: Row) -> list[str]:
    """Every address of an interface, IPv4 and IPv6 (the store keeps them all)."""
    return [f"{addr}/{info.get('prefix_length', 32 if family == 'ipv4' else 128)}"
            for family in ("ipv4", "ipv6") for addr, info in (entry.get(family) or {}).items()]


def _interface_rows(r: DeviceReading) -> list[Row]:
    rows = []
    for name, i in r.interfaces.items():
        speed = float(i.get("speed") or 0)
        rows.append({"device": r.name, "name": name, "speed_mbps": int(speed) if speed > 0 else 0,
                     "mtu": int(i.get("mtu") or 1500), "ip": _first_v4(r.addresses.get(name, {})),
                     "addresses": _every(r.addresses.get(name, {})),
                     "admin_status": "up" if i.get("is_enabled") else "down",
                     "oper_status": "up" if i.get("is_up") else "down",
                     "description": i.get("description", "")})
    return rows


def _segment_rows(r: DeviceReading, role: str, site: str) -> list[Row]:
    """Subnets a device routes for (not point-to-point, not loopbacks): host segments."""
    rows = []
    for name, entry in r.addresses.items():
        addr = _first_v4(entry)
        if not addr or name.lower().startswith(("loopback", "mgmt", "management")):
            continue
        itf = ip_interface(addr)
        if itf.network.prefixlen >= 30:
            continue
        vlan = re.fullmatch(r"vlan(\d+)", name.lower())
        rows.append({"cidr": str(itf.network), "name": f"{r.name} {name}",
                     "vlan": int(vlan.group(1)) if vlan else 0, "gateway": str(itf.ip),
                     "site": site, "tor": r.name if role in ("leaf", "tor") else None})
    return rows


def _link_rows(r: DeviceReading, roles: dict[str, str], sites: dict[str, str],
               site: str) -> list[Row]:
    from napalm.base.helpers import canonical_interface_name

    rows = []
    for local, peers in r.lldp.items():
        for p in peers:
            peer = _peer_name(str(p.get("hostname", "")), roles)
            state = r.interfaces.get(local, {}).get("is_up", True)
            rows.append({"a_device": r.name, "a_interface": canonical_interface_name(local),
                         "b_device": peer, "b_interface": canonical_interface_name(str(p["port"])),
                         "kind": link_kind(roles.get(r.name, ""), roles.get(peer, ""),
                                           sites.get(r.name, site), sites.get(peer, site)),
                         "status": "up" if state else "down"})
    return rows


def _peer_name(hostname: str, known: dict[str, str]) -> str:
    """LLDP often names a peer by its FQDN; the inventory by its short name."""
    if hostname in known:
        return hostname
    short = hostname.split(".")[0]
    return short if short in known or "." in hostname else hostname
