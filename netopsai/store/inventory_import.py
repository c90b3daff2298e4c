"""`netopsai inventory import`: NetBox CSV exports and YAML specs into the store, all or nothing.

Every file is read and validated, cross references included (an interface's device, a cable's
ends, an address's interface), before the store is touched; the write is one transaction
through netopsai.store.inventory_sync. Container and pool prefixes are address plans, not segments,
and are skipped; cables to circuit terminations are skipped too (counted in the result).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from ipaddress import ip_interface, ip_network
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, inspect
from sqlmodel import Session, select

from netopsai.common.errors import NetopsError, closest
from netopsai.store import tables as m
from netopsai.store.csv_rows import Located, Problem, read_csv
from netopsai.store.inventory_sync import InventoryBatch, SyncReport, link_kind, sync_inventory

Row = dict[str, Any]
# A YAML lab spec's rows at a scale and seed: the lab builds them (lab/inventory_yaml.py, whose
# import_files passes its reader in), so the store imports nothing of the lab (issue 27 item 6)
SpecReader = Callable[[Path, str, int], InventoryBatch]


@dataclass
class ImportResult:
    files: list[str]
    report: SyncReport
    skipped: Counter[str] = field(default_factory=Counter)

    def line(self) -> str:
        skipped = "; skipped " + ", ".join(f"{n} {k}" for k, n in self.skipped.items()) \
            if self.skipped else ""
        return f"imported {len(self.files)} file(s): {self.report.line()}{skipped}"


def import_files(engine: Engine, paths: list[Path], scale: str = "small", seed: int = 7,
                 replace: bool = False, force: bool = False,
                 spec_reader: SpecReader | None = None) -> ImportResult:
    """Validate every file, then write them in one transaction; a bad file changes nothing.
    YAML specs need `spec_reader` (lab.inventory_yaml.import_files passes the lab's)."""
    if not paths:
        raise NetopsError("no files to import")
    try:
        batch, skipped = build_batch(engine, paths, scale, seed, replace, spec_reader)
    except Problem as exc:
        raise NetopsError(str(exc)) from None
    return ImportResult([str(p) for p in paths], sync_inventory(engine, batch, replace, force), skipped)


def build_batch(engine: Engine, paths: list[Path], scale: str, seed: int, replace: bool,
                spec_reader: SpecReader | None = None) -> tuple[InventoryBatch, Counter[str]]:
    parsed: dict[str, list[Located]] = {}
    batches: list[InventoryBatch] = []
    for path in paths:
        if not path.is_file():
            raise Problem(str(path), 0, "", "no such file")
        if path.suffix.lower() in (".yaml", ".yml"):
            if spec_reader is None:
                raise Problem(str(path), 0, "", "a YAML lab spec is read by the lab: import it "
                              "with netopsai.lab.inventory_yaml.import_files")
            batches.append(spec_reader(path, scale, seed))
        else:
            kind, rows = read_csv(path)
            parsed.setdefault(kind, []).extend(rows)
    skipped: Counter[str] = Counter()
    if parsed:
        stored = ({}, set()) if replace else _stored_names(engine)
        batches.append(NetboxBuilder(parsed, *stored, skipped).build())
    merged = InventoryBatch(source="+".join(sorted({b.source for b in batches})))
    for b in batches:
        for part in ("sites", "pods", "segments", "devices", "interfaces", "links", "hosts"):
            getattr(merged, part).extend(getattr(b, part))
    return merged, skipped


def _stored_names(engine: Engine) -> tuple[dict[str, Row], set[tuple[str, str]]]:
    """Devices and interfaces already in the store, so an import can refer to them."""
    if not inspect(engine).has_table("device"):
        return {}, set()
    with Session(engine) as s:
        devices = {d.name: {"role": d.role, "site": d.site, "pod": d.pod}
                   for d in s.exec(select(m.Device))}
        ifaces = set(s.exec(select(m.Interface.device, m.Interface.name)).all())
    return devices, ifaces


class NetboxBuilder:
    """NetBox rows -> inventory rows, checking every reference on the way."""

    def __init__(self, parsed: dict[str, list[Located]], stored: dict[str, Row],
                 stored_ifaces: set[tuple[str, str]], skipped: Counter[str]) -> None:
        self.parsed, self.skipped = parsed, skipped
        self.devices: dict[str, Row] = {}
        self.known = dict(stored)
        self.ifaces: dict[tuple[str, str], Row] = {}
        self.known_ifaces = set(stored_ifaces)
        self.batch = InventoryBatch(source="netbox")
        self.peer: dict[tuple[str, str], tuple[str, str]] = {}
        self.mgmt_only: set[tuple[str, str]] = set()

    def rows(self, kind: str) -> list[Located]:
        return self.parsed.get(kind, [])

    def build(self) -> InventoryBatch:
        self._devices()
        self._interfaces()
        self._cables()
        ips = self._addresses()
        self._prefixes(ips)
        self.batch.devices = list(self.devices.values())
        self.batch.interfaces = list(self.ifaces.values())
        return self.batch

    def _device(self, loc: Located, name: str, fld: str) -> Row:
        if name not in self.known:
            near = closest(name, self.known)
            raise Problem(loc.file, loc.line, fld, f"unknown device {name!r}" +
                          (f"; closest: {near[0]}" if near else ""))
        return self.known[name]

    def _iface(self, loc: Located, device: str, name: str, fld: str) -> None:
        if (device, name) not in self.known_ifaces:
            near = closest(name, [i for d, i in self.known_ifaces if d == device])
            raise Problem(loc.file, loc.line, fld, f"unknown interface {name!r} on {device}" +
                          (f"; closest: {near[0]}" if near else ""))

    def _devices(self) -> None:
        sites: dict[str, Row] = {}
        pods: dict[str, Row] = {}
        for loc in self.rows("devices"):
            r = loc.row
            if r.name in self.devices:
                raise Problem(loc.file, loc.line, "name", f"device {r.name!r} listed twice")
            pod = r.location or None
            sites.setdefault(r.site, {"name": r.site})
            if pod:
                digits = "".join(ch for ch in pod if ch.isdigit())
                pods.setdefault(pod, {"name": pod, "site": r.site, "index": int(digits or 0)})
            self.devices[r.name] = {
                "name": r.name, "role": r.role, "site": r.site, "pod": pod, "rack": r.rack or None,
                "vendor": r.manufacturer, "model": r.device_type, "asn": r.cf_asn,
                "status": "up" if r.status == "active" else "down",
                "mgmt_ip": r.primary_ip4.split("/")[0] or None}
            self.known[r.name] = self.devices[r.name]
        self.batch.sites, self.batch.pods = list(sites.values()), list(pods.values())

    def _interfaces(self) -> None:
        for loc in self.rows("interfaces"):
            r = loc.row
            self._device(loc, r.device, "device")
            state = "up" if r.enabled else "down"
            self.ifaces[(r.device, r.name)] = {
                "device": r.device, "name": r.name, "speed_mbps": (r.speed or 0) // 1000,
                "mtu": r.mtu or 1500, "admin_status": state, "oper_status": state,
                "description": r.description}
            self.known_ifaces.add((r.device, r.name))
            if r.mgmt_only:
                self.mgmt_only.add((r.device, r.name))

    def _cables(self) -> None:
        for loc in self.rows("cables"):
            r = loc.row
            if r.side_a_type != "dcim.interface" or r.side_b_type != "dcim.interface":
                self.skipped["cables not between two interfaces"] += 1
                continue
            a = self._device(loc, r.side_a_device, "side_a_device")
            b = self._device(loc, r.side_b_device, "side_b_device")
            self._iface(loc, r.side_a_device, r.side_a_name, "side_a_name")
            self._iface(loc, r.side_b_device, r.side_b_name, "side_b_name")
            self.peer[(r.side_a_device, r.side_a_name)] = (r.side_b_device, r.side_b_name)
            self.peer[(r.side_b_device, r.side_b_name)] = (r.side_a_device, r.side_a_name)
            self.batch.links.append({
                "a_device": r.side_a_device, "a_interface": r.side_a_name,
                "b_device": r.side_b_device, "b_interface": r.side_b_name,
                "kind": link_kind(a["role"], b["role"], a["site"], b["site"]),
                "status": "up" if r.status == "connected" else "down"})

    def _addresses(self) -> list[Located]:
        """Interface addresses, management and loopback IPs; host addresses wait for segments."""
        hosts = []
        for loc in self.rows("ip_addresses"):
            r = loc.row
            if not r.device:
                self.skipped["addresses not assigned to a device"] += 1
                continue
            dev = self._device(loc, r.device, "device")
            if r.interface:
                self._iface(loc, r.device, r.interface, "interface")
                self._address(r.device, r.interface, r.address)
            ip = r.address.split("/")[0]
            row = self.devices.setdefault(r.device, {"name": r.device})
            if r.is_primary:
                row["mgmt_ip"] = ip
            if r.role == "loopback" or r.interface.lower().startswith(("loopback", "lo")):
                row["loopback"] = ip
            if dev["role"] == "host":
                hosts.append(loc)
        return hosts

    def _address(self, device: str, interface: str, address: str) -> None:
        """An interface keeps every address listed for it (IPv4 and IPv6, secondaries); its
        `ip` column shows the first IPv4 one (else the first)."""
        row = self.ifaces.setdefault((device, interface), {"device": device, "name": interface})
        every = row.setdefault("addresses", [])
        if address not in every:
            every.append(address)
        if not row.get("ip") or (ip_interface(address).version == 4
                                 and ip_interface(row["ip"]).version != 4):
            row["ip"] = address

    def _prefixes(self, host_ips: list[Located]) -> None:
        gateways = {ip_interface(a).network: {**i, "ip": a} for k, i in self.ifaces.items()
                    for a in i.get("addresses", ())
                    if self.known[i["device"]]["role"] != "host"
                    and k not in self.mgmt_only}  # a management port is no segment's gateway
        segments: list[Row] = []
        for loc in self.rows("prefixes"):
            r = loc.row
            if r.status == "container" or r.is_pool:
                self.skipped["container or pool prefixes"] += 1
                continue
            gw = gateways.get(ip_network(r.prefix))
            tor = self.known[gw["device"]] if gw else {}
            segments.append({"cidr": r.prefix, "name": r.description or r.role or r.prefix,
                             "vlan": r.vlan or 0, "vrf": r.vrf or "default",
                             "gateway": ip_interface(gw["ip"]).ip.compressed if gw else "",
                             "site": r.site or tor.get("site", ""), "pod": tor.get("pod"),
                             "tor": gw["device"] if gw else None})
        self.batch.segments = segments
        for loc in host_ips:
            self.batch.hosts.append(self._host(loc, segments))

    def _host(self, loc: Located, segments: list[Row]) -> Row:
        r = loc.row
        addr = ip_interface(r.address)
        seg = next((s for s in segments if addr.ip in ip_network(s["cidr"])), None)
        tor, tor_if = self.peer.get((r.device, r.interface), (seg["tor"] if seg else "", ""))
        dev = self.known[r.device]
        return {"ip": addr.ip.compressed, "device": r.device, "interface": r.interface or "eth0",
                "segment": seg["cidr"] if seg else str(addr.network), "tor": tor or "",
                "tor_interface": tor_if, "pod": dev.get("pod"), "site": dev.get("site", "")}
