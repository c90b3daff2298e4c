"""What alarm correlation needs to know about the network, read through the Inventory backend
only (the store's links, devices and segments for the lab and for an imported network): the two
ends of an alarm's link, where a device sits, and the segments behind a ToR. Looked up per
device on demand and cached, so a window of a few dozen alarms costs a few dozen small reads."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypedDict, TypeVar

from netopsai.backends.base import Inventory
from netopsai.backends.rows import AlarmRow, SegmentInfo
from netopsai.common.errors import NetopsError
from netopsai.tools.facts import CaseImpact

OUTAGE_KINDS = {"DEVICE_UNREACHABLE", "DEVICE_DOWN", "DEVICE_REBOOT", "DEVICE_RELOAD"}
TOR_ROLES = {"leaf", "tor"}


class Placement(TypedDict, total=False):
    """Where a device sits (empty for a device the inventory does not know): the inventory's
    `device` row, or the store's bulk `placements`; a host's segment too."""

    role: str | None
    site: str | None
    pod: str | None
    segment: str | None


# The alarms correlation reads: the alarms tool's rows, keys checked by mypy; or the reliability
# report's history (reliability/reader.py: plain dicts, times as datetimes), read as before.
Alarm = TypeVar("Alarm", AlarmRow, dict[str, Any])


def alarm_time(a: Alarm) -> datetime:
    return stamp_time(a["raised_at"])


def stamp_time(t: str | datetime) -> datetime:
    """An alarm's time as read (ISO 8601, a trailing Z allowed), or a datetime as it is."""
    return t if isinstance(t, datetime) else datetime.fromisoformat(str(t).replace("Z", "+00:00"))


class Topology:
    def __init__(self, inventory: Inventory) -> None:
        self.inv = inventory
        self._meta: dict[str, Placement] = {}
        self._ports: dict[str, dict[str, str]] = {}
        self._segments: dict[tuple[str, str | None], list[SegmentInfo]] = {}
        self._behind: dict[str, list[str]] = {}

    def prefetch(self, devices: set[str]) -> None:
        """Where these devices sit and the segments behind them, in one bulk read when the
        inventory offers one (`placements`: the store's, for the lab and an imported network);
        else looked up one by one as they are needed."""
        bulk = getattr(self.inv, "placements", None)
        names = sorted(devices - set(self._meta))
        if bulk is None or not names:
            return
        meta, behind = bulk(names)
        for name, row in meta.items():
            self._meta[name] = row
        for tor, cidrs in behind.items():
            self._behind.setdefault(tor, []).extend(cidrs)
        for name in names:
            self._meta.setdefault(name, {})
            self._behind.setdefault(name, [])

    def ends(self, a: Alarm) -> frozenset[str]:
        """The devices an alarm concerns: its own, and the far end of its link (the alarm's
        peer, else the neighbour on its interface)."""
        peer = a.get("peer")
        if not peer and (interface := a.get("interface")):
            peer = self.ports(a["device"]).get(interface)
        return frozenset(d for d in (a["device"], peer) if d)

    def ports(self, device: str) -> dict[str, str]:
        """interface -> neighbour device, from the links table."""
        if device not in self._ports:
            try:
                rows = self.inv.neighbors(device)
            except NetopsError:  # an alarm from a device the inventory does not know
                rows = []
            self._ports[device] = {r["interface"]: r["neighbor"] for r in rows}
        return self._ports[device]

    def meta(self, device: str) -> Placement:
        """role, site, pod (and segment for a host); empty for an unknown device."""
        if device not in self._meta:
            found: Placement = {}
            try:
                row = self.inv.device(device)  # by key: a name filter would scan the table
                found = {"role": row.get("role"), "site": row.get("site"), "pod": row.get("pod")}
                if found.get("role") == "host":
                    hosts = self.inv.hosts(None, None, device)
                    found["segment"] = hosts[0]["segment"] if hosts else None
            except NetopsError:
                found = {}
            self._meta[device] = found
        return self._meta[device]

    def known(self, device: str) -> bool:
        """Whether the inventory knows the device (an alarm's device may be one it does not:
        a new switch, a name only its log lines use)."""
        return bool(self.meta(device))

    def segments_behind(self, tor: str) -> list[str]:
        if tor in self._behind:
            return sorted(self._behind[tor])
        m = self.meta(tor)
        site = m.get("site")
        if not site:
            return []
        key = (site, m.get("pod"))
        if key not in self._segments:
            try:
                self._segments[key] = self.inv.segments(*key)
            except NetopsError:
                self._segments[key] = []
        return [s["cidr"] for s in self._segments[key] if s.get("tor") == tor]

    def impact(self, root: Alarm, members: Sequence[Alarm],
               common: str | None) -> CaseImpact:
        """The blast radius: data centres, PoDs and segments the case reaches; the device that
        is down (the outage's, or the burst's common end) and whether traffic was lost."""
        devices: set[str] = {common} if common else set()
        for a in members:
            devices |= self.ends(a)
        down = root["device"] if root["kind"] in OUTAGE_KINDS else common
        metas = {d: self.meta(d) for d in sorted(devices)}
        segments: set[str] = set()
        if down and metas.get(down, {}).get("role") in TOR_ROLES:
            segments.update(self.segments_behind(down))
        for a in members:  # a host's own link: its segment loses that host
            if a["kind"] in ("LINK_DOWN", "LINK_FLAP"):
                segments.update(seg for d in self.ends(a)
                                if (m := metas.get(d, {})).get("role") == "host"
                                and (seg := m.get("segment")))
        out = CaseImpact(dcs=sorted({dc for m in metas.values() if (dc := m.get("site"))}),
                         pods=sorted({pod for m in metas.values() if (pod := m.get("pod"))}),
                         segments=sorted(segments), devices=len(devices),
                         traffic_lost=any(a.get("traffic_lost") for a in members),
                         root_device=down or root["device"])
        out["summary"] = _summary(out, down, segments)
        return out


def _summary(imp: CaseImpact, down: str | None, segments: set[str]) -> str:
    parts = [(" and ".join(imp["dcs"]) if len(imp["dcs"]) < 3 else f"{len(imp['dcs'])} DCs")
             if imp["dcs"] else "unknown site"]
    if len(imp["dcs"]) == 2 and not imp["pods"]:
        parts[0] = f"between {parts[0]}"
    if imp["pods"]:
        pods = imp["pods"]
        parts.append(f"PoD{'s' if len(pods) > 1 else ''} " + (", ".join(pods) if len(pods) <= 4
                                                                else f"{len(pods)} PoDs"))
    if segments:
        segs = sorted(segments)
        shown = ", ".join(segs[:4]) + (f" +{len(segs) - 4}" if len(segs) > 4 else "")
        parts.append(f"segment{'s' if len(segs) > 1 else ''} {shown}"
                     + (f" (behind {down})" if down else ""))
    parts.append("traffic lost" if imp["traffic_lost"] else "no traffic loss reported")
    return "; ".join(parts)
