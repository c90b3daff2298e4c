"""Inventory from the store (the lab's, or one imported from a real network)."""

from __future__ import annotations

from datetime import datetime
from ipaddress import ip_network
from socket import inet_aton
from typing import Any, TypeVar, cast

from sqlalchemy import Engine, Select, func
from sqlalchemy import select as core_select
from sqlmodel import Session, col, or_, select
from sqlmodel.sql.expression import SelectOfScalar

from netopsai.backends.rows import (
    DeviceDetail,
    DeviceInfo,
    FilterRule,
    HostInfo,
    InterfaceInfo,
    IpOwner,
    JobInfo,
    Neighbor,
    PodInfo,
    SegmentInfo,
    SiteInfo,
    SnapshotInfo,
    Uplink,
)
from netopsai.common.errors import NetopsError, unknown
from netopsai.common.roles import HOST_ROLES, TIERS
from netopsai.common.timewin import as_utc, iso
from netopsai.store import tables as m
from netopsai.store.naming import interface_holding
from netopsai.store.network import network_clock
from netopsai.store.placement import placements
from netopsai.store.rowdump import column_row

ROLES = ("host", "gpu_host", "tor", "leaf", "spine", "superspine", "border", "dci")
ROLE_ALIASES = {"tor": "leaf"}  # the inventory calls ToRs leafs


def canonical_role(role: str | None) -> str | None:
    return ROLE_ALIASES.get(role, role) if role else role


def _glob(pattern: str) -> str:
    return pattern.replace("%", r"\%").replace("*", "%").replace("?", "_")


class StoreInventory:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def _s(self) -> Session:
        return Session(self.engine)

    def clock(self) -> datetime:
        """The lab clock, or the wall clock when the store holds a real network."""
        return network_clock(self.engine)

    # The readers on a cold `ask`'s path use Core statements over the tables' columns, not ORM
    # ones: the same SQL and rows, without the ORM's per-statement compile, and a question whose
    # reads are all Core never maps the 28 tables (~15 ms; RESULTS "cold-ask-21").
    def check_names(self, devices: list[str] | None = None, site: str | None = None,
                    pod: str | None = None, role: str | None = None) -> None:
        st, pt, dt = _cols(m.Site), _cols(m.Pod), _cols(m.Device)
        with self.engine.connect() as c:
            if site and c.execute(core_select(*st).where(st.name == site)).first() is None:
                raise unknown("site", site, c.execute(core_select(st.name)).scalars())
            if pod and c.execute(core_select(*pt).where(pt.name == pod)).first() is None:
                raise unknown("PoD", pod, c.execute(core_select(pt.name)).scalars())
            if role and role not in ROLES:
                raise unknown("role", role, ROLES)
            wanted = list(dict.fromkeys(devices or []))
            known: set[str] = set()
            for i in range(0, len(wanted), 500):  # one query per 500 names, not one per name
                known.update(c.execute(core_select(dt.name).where(dt.name.in_(wanted[i:i + 500]))).scalars())
            for name in wanted:
                if name not in known:
                    raise unknown("device", name, c.execute(core_select(dt.name)).scalars())

    def spelled(self, names: list[str]) -> dict[str, str]:
        """Names given in another case -> the inventory's spelling, where exactly one device
        matches: device names are case-insensitive, as DNS and the devices' own hostnames are."""
        lowered = {n.lower() for n in names}
        dt = _cols(m.Device)
        with self.engine.connect() as c:
            found = c.execute(core_select(dt.name).where(func.lower(dt.name).in_(lowered))).scalars()
            by_lower: dict[str, list[str]] = {}
            for name in found:
                by_lower.setdefault(name.lower(), []).append(name)
        return {n: by_lower[n.lower()][0] for n in names
                if len(by_lower.get(n.lower(), [])) == 1 and by_lower[n.lower()][0] != n}

    def sites(self) -> list[SiteInfo]:
        st, pt, dt = _cols(m.Site), _cols(m.Pod), _cols(m.Device)
        with self.engine.connect() as c:
            pods: dict[str, int] = dict(c.execute(core_select(pt.site, func.count()).group_by(pt.site)).all())
            devs: dict[str, int] = dict(c.execute(core_select(dt.site, func.count()).where(
                dt.role.not_in(HOST_ROLES)).group_by(dt.site)).all())
            hosts: dict[str, int] = dict(c.execute(core_select(dt.site, func.count()).where(  # GPU hosts too
                dt.role.in_(HOST_ROLES)).group_by(dt.site)).all())
            return [{"site": x.name, "region": x.region, "pods": pods.get(x.name, 0),
                     "network_devices": devs.get(x.name, 0), "hosts": hosts.get(x.name, 0),
                     "description": x.description}
                    for x in c.execute(core_select(*st).order_by(st.name))]

    def pods(self, site: str | None) -> list[PodInfo]:
        self.check_names(site=site)
        pt, gt, dt = _cols(m.Pod), _cols(m.Segment), _cols(m.Device)
        with self.engine.connect() as c:
            q = core_select(*pt).order_by(pt.site, pt.index)
            if site:
                q = q.where(pt.site == site)
            seg_q = core_select(gt.cidr, gt.pod)
            role_q = core_select(dt.pod, dt.role, func.count()).where(dt.role.in_(("leaf", "spine")))
            if site:
                seg_q = seg_q.where(gt.site == site)
                role_q = role_q.where(dt.site == site)
            segs: dict[str | None, list[str]] = {}
            for cidr, seg_pod in c.execute(seg_q).all():  # a large site has thousands of segments
                segs.setdefault(seg_pod, []).append(cidr)
            roles = {(p, r): n for p, r, n in c.execute(role_q.group_by(dt.pod, dt.role))}
            rows: list[PodInfo] = []
            for pod in c.execute(q):
                cidrs = sorted(segs.get(pod.name, []), key=_cidr_key)
                rows.append({"pod": pod.name, "site": pod.site, "leafs": roles.get((pod.name, "leaf"), 0),
                             "spines": roles.get((pod.name, "spine"), 0), "segments": cidrs})
            return rows

    def segments(self, site: str | None, pod: str | None) -> list[SegmentInfo]:
        self.check_names(site=site, pod=pod)
        t = _cols(m.Segment)
        with self.engine.connect() as c:
            rows = [cast(SegmentInfo, dict(x._mapping))
                    for x in c.execute(_in_place(core_select(*t), t, site, pod))]
        return sorted(rows, key=lambda r: _cidr_key(r["cidr"]))

    def devices(self, site: str | None, pod: str | None, role: str | None,
                name: str | None) -> list[DeviceInfo]:
        self.check_names(site=site, pod=pod, role=role)
        t = m.Device.__table__.c  # type: ignore[attr-defined]  # plain rows: ORM objects cost ~10x
        q = _in_place(core_select(*t).order_by(t.name), t, site, pod)
        role = canonical_role(role)
        if role:
            q = q.where(t.role == role)
        else:  # network devices; a name pattern may name GPU hosts (a job's hosts)
            q = q.where(t.role != "host") if name else q.where(t.role.not_in(HOST_ROLES))
        if name:
            q = q.where(t.name.like(_glob(name), escape="\\"))
        with self.engine.connect() as c:
            return [_device_row(r._mapping) for r in c.execute(q)]

    def device(self, name: str) -> DeviceDetail:
        self.check_names(devices=[name])
        clock = self.clock()
        dt, it, lt = _cols(m.Device), _cols(m.Interface), _cols(m.Link)
        with self.engine.connect() as c:
            d = c.execute(core_select(*dt).where(dt.name == name)).first()
            assert d is not None
            row = cast(DeviceDetail, _device_row(d._mapping))
            if d.booted_at:
                row["uptime"] = str(clock - as_utc(d.booted_at)).split(".")[0]
            row["interfaces"] = c.execute(core_select(func.count()).select_from(m.Interface.__table__)  # type: ignore[attr-defined]
                                          .where(it.device == name)).scalar_one()
            row["links_down"] = c.execute(core_select(func.count()).select_from(m.Link.__table__).where(  # type: ignore[attr-defined]
                or_(lt.a_device == name, lt.b_device == name), lt.status != "up")).scalar_one()
            return row

    def hosts(self, site: str | None, pod: str | None, name: str | None) -> list[HostInfo]:
        self.check_names(site=site, pod=pod)
        t = m.HostAddress.__table__.c  # type: ignore[attr-defined]
        q = _in_place(core_select(t.ip, t.device, t.pod, t.segment, t.tor, t.tor_interface, t.site), t,
                      site, pod)
        if name:
            q = q.where(t.device.like(_glob(name), escape="\\"))
        with self.engine.connect() as c:
            return [{"ip": h.ip, "name": h.device, "pod": h.pod, "segment": h.segment,
                     "tor": h.tor, "tor_interface": h.tor_interface, "site": h.site}
                    for h in c.execute(q.order_by(t.device))]

    def ip_owner(self, ip: str) -> IpOwner:
        t = _cols(m.HostAddress)
        with self.engine.connect() as c:  # a host's address, the common case, by its key
            h = c.execute(core_select(*t).where(t.ip == ip)).first()
        if h:
            return {"ip": ip, "device": h.device, "role": "host", "interface": h.interface,
                    "segment": h.segment, "tor": h.tor, "tor_interface": h.tor_interface,
                    "pod": h.pod, "site": h.site}
        with self._s() as s:
            held = interface_of(s, ip)
            if held:
                return cast(IpOwner, {"ip": ip, "device": held[0], "interface": held[1],
                                      **_where(s, held[0])})
            d = s.exec(select(m.Device).where(or_(m.Device.loopback == ip,
                                                  m.Device.mgmt_ip == ip))).first()
            if d:
                kind = "Loopback0" if d.loopback == ip else "Management0"
                return cast(IpOwner, {"ip": ip, "device": d.name, "interface": kind,
                                      **_where(s, d.name)})
            for seg in s.exec(select(m.Segment)):
                if ip_network(f"{ip}/32").subnet_of(ip_network(seg.cidr)):  # type: ignore[arg-type]
                    return {"ip": ip, "device": None, "segment": seg.cidr, "tor": seg.tor,
                            "pod": seg.pod, "site": seg.site, "note": "address not assigned"}
        raise NetopsError(f"{ip} is not in the inventory: no device holds it and no segment contains it")

    def neighbors(self, name: str) -> list[Neighbor]:
        self.check_names(devices=[name])
        lt = _cols(m.Link)
        with self.engine.connect() as c:
            rows: list[Neighbor] = []
            for lk in c.execute(core_select(*lt).where(or_(lt.a_device == name, lt.b_device == name))):
                mine, peer = ("a", "b") if lk.a_device == name else ("b", "a")
                rows.append({"interface": getattr(lk, f"{mine}_interface"),
                             "neighbor": getattr(lk, f"{peer}_device"),
                             "neighbor_interface": getattr(lk, f"{peer}_interface"),
                             "kind": lk.kind, "status": lk.status, "circuit_id": lk.circuit_id,
                             "provider": lk.provider})
            return rows

    def placements(self, names: list[str]) -> tuple[dict[str, dict[str, Any]], dict[str, list[str]]]:
        """A bulk read beyond the Protocol, for the alarms tool's case grouping (placement.py)."""
        return placements(self.engine, names)

    def snapshots(self, name: str) -> list[SnapshotInfo]:
        """The device's snapshots taken when alarms opened on it, newest first."""
        from netopsai.store.snapshots import device_snapshots, summary_row

        rows = [cast(SnapshotInfo, summary_row(s)) for s in device_snapshots(self.engine, name)]
        if not rows:
            self.check_names(devices=[name])  # an unknown name gets the closest known ones
        return rows

    def jobs(self, job: str | None, host: str | None) -> list[JobInfo]:
        """Compute jobs (one by id, or those that ran on a host), the latest start first."""
        from netopsai.store.jobs_import import job_rows

        return job_rows(self.engine, job, host, self.clock())

    def filters(self, name: str) -> list[FilterRule]:
        """ACL deny entries and null routes in force on the device at the network's clock."""
        self.check_names(devices=[name])
        now = self.clock()

        def live(removed: datetime | None) -> bool:  # never removed, or removed after the clock
            return removed is None or as_utc(removed) > now

        at, rt = _cols(m.AclEntry), _cols(m.StaticRoute)
        with self.engine.connect() as c:
            acls = c.execute(core_select(*at).where(at.device == name)).all()
            routes = c.execute(core_select(*rt).where(rt.device == name)).all()
        rows: list[FilterRule] = [
            {"device": name, "kind": "acl", "name": a.name, "seq": a.seq, "action": a.action,
             "src": a.src, "dst": a.dst, "since": iso(a.created_at) if a.created_at else None}
            for a in acls if a.action == "deny" and live(a.removed_at)]
        rows += [{"device": name, "kind": "null_route", "name": r.next_hop, "seq": None,
                  "action": "discard", "src": None, "dst": r.prefix,
                  "since": iso(r.created_at) if r.created_at else None}
                 for r in routes if r.next_hop.lower().startswith("null") and live(r.removed_at)]
        return rows

    def interfaces(self, name: str) -> list[InterfaceInfo]:
        self.check_names(devices=[name])
        it = _cols(m.Interface)
        with self.engine.connect() as c:
            return [cast(InterfaceInfo, {k: v for k, v in i._mapping.items() if k not in ("id", "link_id")})
                    for i in c.execute(core_select(*it).where(it.device == name))]

    def upstream(self, name: str | None, ip: str | None) -> list[Uplink]:
        if not name and not ip:
            raise NetopsError("upstream needs a device name or an ip")
        if ip and not name:
            name = self.ip_owner(ip).get("device")
            if not name:
                raise NetopsError(f"{ip} is not assigned to any device")
        dev = self.device(name or "")
        tier = TIERS.get(dev["role"], 1)
        nbrs = self.neighbors(dev["name"])
        dt = _cols(m.Device)
        with self.engine.connect() as c:
            roles: dict[str, str] = dict(c.execute(core_select(dt.name, dt.role).where(
                dt.name.in_([n["neighbor"] for n in nbrs]))).all())
        return [Uplink(**n, role=roles.get(n["neighbor"], "")) for n in nbrs
                if TIERS.get(roles.get(n["neighbor"], ""), 0) > tier]


def interface_of(s: Session, ip: str) -> tuple[str, str] | None:
    """(device, interface) of the interface holding `ip`: its first address (interface.ip), else
    any of its others (a secondary IPv4, an IPv6 one) — ip_owner's and the traceroute hops'."""
    itf = s.exec(select(m.Interface).where(or_(
        m.Interface.ip == f"{ip}/31", m.Interface.ip == f"{ip}/24",
        col(m.Interface.ip).like(f"{ip}/%")))).first()
    return (itf.device, itf.name) if itf else interface_holding(s, ip)


_Sel = TypeVar("_Sel", SelectOfScalar[Any], Select[Any])


def _in_place(q: _Sel, model: Any, site: str | None, pod: str | None) -> _Sel:
    """Restrict a query to a site and/or PoD (the tables share site/pod columns)."""
    if site:
        q = q.where(model.site == site)
    if pod:
        q = q.where(model.pod == pod)
    return q


def _cols(model: Any) -> Any:
    """A table's columns, for a Core statement that reads its rows by column."""
    return model.__table__.c


def _cidr_key(cidr: str) -> bytes:
    """Numeric order of IPv4 prefixes without building ipaddress objects (fast at scale)."""
    return inet_aton(cidr.partition("/")[0])


def _device_row(d: m.Device | Any) -> DeviceInfo:
    """A device as a row, from the ORM object or a plain result row's mapping: either way its
    keys come in the table's column order (rowdump), so an answer listing them is byte-stable."""
    row = column_row(d) if isinstance(d, m.Device) else dict(d)
    row["booted_at"] = iso(row["booted_at"]) if row.get("booted_at") else None
    return cast(DeviceInfo, row)


def _where(s: Session, device: str) -> dict[str, Any]:
    d = s.get(m.Device, device)
    return {"role": d.role, "pod": d.pod, "site": d.site} if d else {}
