"""Device snapshots (DeviceSnapshot rows): a device's state captured when an alarm opened on it.
Written by netopsai.backends.snapshot; read here for the metadata tool, the CLI and the device
page. A listing shows what was read and what was not, never the whole data blob: that stays
in the row for whoever opens one snapshot."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from netopsai.common.timewin import as_utc, iso
from netopsai.common.words import count
from netopsai.store import tables as m

LIST_LIMIT = 20


def save(engine: Engine, snap: m.DeviceSnapshot) -> m.DeviceSnapshot:
    """Store one snapshot; returns it with its id."""
    with Session(engine, expire_on_commit=False) as s:
        s.add(snap)
        s.commit()
        s.refresh(snap)
    return snap


def device_snapshots(engine: Engine, device: str, limit: int = LIST_LIMIT,
                     alarm_id: int | None = None) -> list[m.DeviceSnapshot]:
    """The device's snapshots, newest first (only the alarm's, when given)."""
    with Session(engine) as s:
        q = select(m.DeviceSnapshot).where(m.DeviceSnapshot.device == device)
        if alarm_id is not None:
            q = q.where(m.DeviceSnapshot.alarm_id == alarm_id)
        return list(s.exec(q.order_by(col(m.DeviceSnapshot.taken_at).desc(),
                                      col(m.DeviceSnapshot.id).desc()).limit(limit)))


def summary_row(snap: m.DeviceSnapshot) -> dict[str, Any]:
    """One line of a listing: when, why, what was read, what was not, the config's change."""
    data = snap.data or {}
    ifaces = data.get("interfaces") or {}
    lldp = data.get("lldp_neighbors") or {}
    bgp = (data.get("bgp_neighbors") or {}).get("global", {}).get("peers", {})
    down = sorted(n for n, i in ifaces.items() if isinstance(i, dict) and i.get("is_up") is False)
    return {"id": snap.id, "device": snap.device, "taken_at": iso(as_utc(snap.taken_at)),
            "alarm_id": snap.alarm_id, "source": snap.source, "read": sorted(data),
            "interfaces": len(ifaces), "interfaces_down": down,
            "lldp_neighbors": sum(len(v) for v in lldp.values() if isinstance(v, list)),
            "bgp_peers": len(bgp), "config": data.get("config_status", ""),
            "config_diff": snap.config_diff, "errors": list(snap.errors or [])}


def describe(row: dict[str, Any]) -> str:
    """One sentence for a summary row."""
    why = f" for alarm {row['alarm_id']}" if row["alarm_id"] is not None else ""
    down = f" ({len(row['interfaces_down'])} down)" if row["interfaces_down"] else ""
    config = f", config {row['config']}" if row["config"] else ""
    missed = f"; not read: {len(row['errors'])}" if row["errors"] else ""
    return (f"snapshot {row['id']} of {row['device']} at {row['taken_at']}{why} by "
            f"{row['source']}: {count(row['interfaces'], 'interface')}{down}, "
            f"{count(row['lldp_neighbors'], 'LLDP neighbour')}, "
            f"{count(row['bgp_peers'], 'BGP peer')}{config}{missed}")
