"""The namespace lab in the store: its inventory rows (through netopsai.store.inventory_sync, the one
inventory writer) and the Meta record that lets `down` remove exactly what `up` added."""

from __future__ import annotations

import json
import platform
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, delete
from sqlmodel import Session, col, select

from netopsai.backends.netns.plan import Plan
from netopsai.common.errors import NetopsError
from netopsai.store import tables as m
from netopsai.store.engine import create_all, set_meta
from netopsai.store.inventory_sync import (
    NETWORK_KEY,
    SOURCE_KEY,
    InventoryBatch,
    network_kind,
    sync_inventory,
)

MTU = 9216  # netns.MTU (not imported: netns imports this module)

SPEED_MBPS = {"host": 10_000, "fabric": 100_000, "backbone": 100_000, "dci": 100_000}
# rows other writers may add about the lab's devices (ingest, poll, inject's change records)
DEVICE_TABLES: tuple[Any, ...] = (m.Alarm, m.Change, m.InterfaceEvent, m.CounterSample,
                                  m.HostAddress, m.Interface)


def inventory_batch(plan: Plan) -> InventoryBatch:
    now = datetime.now(UTC)
    sites = sorted({d.site for d in plan.devices.values()})
    pods = sorted({d.pod for d in plan.devices.values() if d.pod})
    b = InventoryBatch(source="netns")
    b.sites = [{"name": s, "region": "netns", "description": f"namespace lab DC {s}"} for s in sites]
    b.pods = [{"name": p, "site": p.rsplit("-", 1)[0], "index": 1,
               "description": f"the namespace lab's PoD of {p.rsplit('-', 1)[0]}"} for p in pods]
    b.segments = list(plan.segments)
    b.devices = [{"name": d.name, "role": d.role, "vendor": "linux", "model": "netns",
                  "os_version": platform.release(), "site": d.site, "pod": d.pod,
                  "status": "up", "booted_at": now} for d in plan.devices.values()]
    for lk in plan.links:
        b.links.append({"a_device": lk.a, "a_interface": lk.a_if, "b_device": lk.b,
                        "b_interface": lk.b_if, "kind": lk.kind, "status": "up",
                        "circuit_id": f"NX-DCI-{lk.id}" if lk.kind == "dci" else None})
        for dev, ifname, ip, peer, peer_if in ((lk.a, lk.a_if, lk.a_ip, lk.b, lk.b_if),
                                               (lk.b, lk.b_if, lk.b_ip, lk.a, lk.a_if)):
            if plan.devices[dev].role == "host":
                ip = next(a for i, a in plan.devices[dev].addrs if i == ifname)
            b.interfaces.append({"device": dev, "name": ifname, "speed_mbps": SPEED_MBPS[lk.kind],
                                 "mtu": MTU, "ip": ip, "description": f"{lk.kind}: to {peer} {peer_if}"})
    for d in plan.devices.values():
        if d.bridge:
            gw = next(a for i, a in d.addrs if i == d.bridge)
            b.interfaces.append({"device": d.name, "name": d.bridge, "mtu": MTU, "ip": gw,
                                 "description": f"gateway of {gw}"})
    b.hosts = list(plan.hosts)
    return b


def register_lab(engine: Engine, plan: Plan, record: dict[str, Any], key: str) -> None:
    """Add the lab to the inventory and record what was added."""
    create_all(engine)
    with Session(engine) as s:
        kind = network_kind(s)
        taken = s.exec(select(m.Device.name).where(col(m.Device.name).in_(list(plan.devices)))).all()
    if kind == "lab":
        raise NetopsError("the store holds the embedded lab; point NETOPSAI_HOME at another "
                          "directory for the namespace lab")
    if taken:
        raise NetopsError(f"device {taken[0]} is already in the inventory")
    sync_inventory(engine, inventory_batch(plan))
    record.update({"devices": sorted(plan.devices), "segments": [x["cidr"] for x in plan.segments],
                   "sites": sorted({d.site for d in plan.devices.values()}),
                   "pods": sorted({d.pod for d in plan.devices.values() if d.pod}),
                   "marked_real": kind == "empty", "up_at": datetime.now(UTC).isoformat()})
    with Session(engine) as s:
        set_meta(s, key, json.dumps(record))
        s.commit()


def forget_lab(engine: Engine, record: dict[str, Any], key: str) -> None:
    names = record.get("devices", list(record.get("namespaces", {})))
    with Session(engine) as s:
        for table in DEVICE_TABLES:
            s.execute(delete(table).where(col(table.device).in_(names)))
        s.execute(delete(m.Link).where(col(m.Link.a_device).in_(names) | col(m.Link.b_device).in_(names)))
        s.execute(delete(m.BgpSession).where(col(m.BgpSession.a_device).in_(names)))
        s.execute(delete(m.Device).where(col(m.Device.name).in_(names)))
        s.execute(delete(m.Segment).where(col(m.Segment.cidr).in_(record.get("segments", []))))
        s.execute(delete(m.Pod).where(col(m.Pod.name).in_(record.get("pods", []))))
        s.execute(delete(m.Site).where(col(m.Site.name).in_(record.get("sites", []))))
        keys = [key] + ([NETWORK_KEY, SOURCE_KEY, "inventory_updated"] if record.get("marked_real") else [])
        s.execute(delete(m.Meta).where(col(m.Meta.key).in_(keys)))
        s.commit()

