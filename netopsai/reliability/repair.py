"""Time to repair per case (detected -> acknowledged -> mitigated -> closed) from its alarms, the
acknowledgements of them and the changes on its devices; p50/p90 by category; and noise: alarms
per case by day. Pure over what compute.py and reader.py hand it."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from netopsai.common.timewin import Window, iso
from netopsai.reliability.model import STAGES, percentile
from netopsai.reliability.reader import History

if TYPE_CHECKING:
    from netopsai.reliability.compute import CaseInfo


def _mitigated(info: CaseInfo, by_device: dict[str, list[tuple[datetime, datetime | None]]],
               until: datetime) -> datetime | None:
    """The end (the start, while in progress) of the first change on one of the case's devices
    that started between detection and close."""
    first: tuple[datetime, datetime | None] | None = None
    for dev in info.devices:
        found = next((c for c in by_device.get(dev, ()) if c[0] >= info.first), None)
        if found and found[0] <= until and (first is None or found[0] < first[0]):
            first = found
    return (first[1] or first[0]) if first else None


def _minutes(since: datetime, at: datetime | None) -> float | None:
    return None if at is None else round((at - since).total_seconds() / 60, 1)


def case_rows(infos: list[CaseInfo], h: History) -> list[dict[str, Any]]:
    """One row per case, earliest first: its root, its reach and the time of each stage."""
    by_device: dict[str, list[tuple[datetime, datetime | None]]] = defaultdict(list)
    for c in h.changes:
        by_device[c["device"]].append((c["start"], c["end"]))
    for changes in by_device.values():
        changes.sort(key=lambda c: c[0])
    rows = []
    for info in sorted(infos, key=lambda i: (i.first, i.case.id)):
        acks = [h.acks[a["id"]] for a in info.case.members if a.get("id") in h.acks]
        acked = min((t for t in acks if t >= info.first), default=None)
        mitigated = _mitigated(info, by_device, info.closed or h.window.end)
        root = info.case.root
        at = {"acknowledged": acked, "mitigated": mitigated, "closed": info.closed}
        row: dict[str, Any] = {
            "case": info.case.id, "category": info.category, "root_kind": root["kind"],
            "root_device": info.case.impact.get("root_device") or root["device"],
            "root_interface": root.get("interface"), "alarms": len(info.case.members),
            "bad": info.bad, "pods": " ".join(sorted(info.scopes["pod"])),
            "sites": " ".join(sorted(info.scopes["site"])), "detected": iso(info.first)}
        for stage in STAGES:
            t = at[stage]
            row[stage] = iso(t) if t else None
            row[f"{stage}_min"] = _minutes(info.first, t)
        rows.append(row)
    return rows


def ttr_stats(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """p50/p90 minutes from detection to each stage, per root category and over all cases."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r["category"]].append(r)
    out = []
    for category in [*sorted(groups), "all"]:
        mine = rows if category == "all" else groups[category]
        for stage in STAGES:
            values = [r[f"{stage}_min"] for r in mine if r[f"{stage}_min"] is not None]
            out.append({"category": category, "stage": stage, "cases": len(values),
                        "of": len(mine), "p50_min": percentile(values, 0.5),
                        "p90_min": percentile(values, 0.9)})
    return out


def noise(infos: list[CaseInfo], window: Window) -> list[dict[str, Any]]:
    """Per day of the window (UTC): cases first raised that day, their alarms, alarms per case."""
    days: dict[str, list[int]] = {}
    day = window.start.date()
    while day <= window.end.date():
        days[day.isoformat()] = [0, 0]
        day += timedelta(days=1)
    first_day = window.start.date().isoformat()
    for info in infos:
        key = max(info.first.date().isoformat(), first_day)  # raised before the window: day one
        days.setdefault(key, [0, 0])
        days[key][0] += len(info.case.members)
        days[key][1] += 1
    return [{"day": d, "alarms": a, "cases": c, "alarms_per_case": round(a / c, 2) if c else 0.0}
            for d, (a, c) in sorted(days.items())]
