"""Where many devices sit, in three queries: role, site and PoD of each, a host's segment, and
the segments behind each ToR. The alarms tool's case grouping asks this for every device of a
window at once; through the Inventory Protocol it would be a few reads per device."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from netopsai.store import tables as m


def placements(engine: Engine, names: list[str]) -> tuple[dict[str, dict[str, Any]],
                                                          dict[str, list[str]]]:
    """({device: {role, site, pod[, segment]}}, {tor: [cidr, ...]}) for the names the store
    holds; names it does not hold are left out (the caller decides what unknown means)."""
    meta: dict[str, dict[str, Any]] = {}
    behind: dict[str, list[str]] = {}
    with Session(engine) as s:
        for name, role, site, pod in s.exec(select(m.Device.name, m.Device.role, m.Device.site,
                                                   m.Device.pod).where(col(m.Device.name).in_(names))):
            meta[name] = {"role": role, "site": site, "pod": pod}
        for dev, seg in s.exec(select(m.HostAddress.device, m.HostAddress.segment).where(
                col(m.HostAddress.device).in_(names))):
            meta.get(dev, {})["segment"] = seg
        for tor, cidr in s.exec(select(m.Segment.tor, m.Segment.cidr).where(
                col(m.Segment.tor).in_(names))):
            behind.setdefault(str(tor), []).append(cidr)
    return meta, behind
