"""Row builders for the symptoms faults and noise leave: alarms and interface transitions.

Faults (faults.py) and background noise (noise.py) both use these, so a flap looks the
same whether it is the cause or a red herring.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

LINK_CATEGORY = {"host": "link", "fabric": "link", "backbone": "backbone", "dci": "dci"}


def link_category(kind: str) -> str:
    return LINK_CATEGORY.get(kind, "link")


def alarm(kind: str, category: str, device: str, site: str, raised: datetime, message: str, *,
          interface: str | None = None, link_id: int | None = None,
          cleared: datetime | None = None, severity: str = "major",
          impact: str = "none") -> dict[str, Any]:
    return {"kind": kind, "category": category, "severity": severity, "device": device,
            "interface": interface, "link_id": link_id, "site": site, "raised_at": raised,
            "cleared_at": cleared, "state": "closed" if cleared else "open",
            "message": message, "source": "lab", "impact": impact,
            "traffic_lost": impact == "traffic_lost"}


def link_down_alarms(link: dict[str, Any], sites: dict[str, str], raised: datetime,
                     cleared: datetime | None = None, impact: str = "degraded",
                     kind: str = "LINK_DOWN", silent: frozenset[str] = frozenset()
                     ) -> list[dict[str, Any]]:
    """One alarm from each end of a link, as both devices report it (a dead device in
    `silent` reports nothing)."""
    cat = link_category(link["kind"])
    rows = []
    for end, other in (("a", "b"), ("b", "a")):
        dev, ifname = link[f"{end}_device"], link[f"{end}_interface"]
        if dev in silent:
            continue
        peer = f"{link[f'{other}_device']} {link[f'{other}_interface']}"
        circuit = f" circuit {link['circuit_id']} ({link['provider']})" if link.get("circuit_id") else ""
        msg = f"Interface {ifname} changed state to down (peer {peer}){circuit}"
        if kind == "LINK_FLAP":
            msg = f"Interface {ifname} flapping (peer {peer}){circuit}"
        rows.append(alarm(kind, cat, dev, sites.get(dev, ""), raised, msg, interface=ifname,
                          link_id=link["id"], cleared=cleared,
                          severity="critical" if cat in ("dci", "backbone") else "major",
                          impact=impact))
    return rows


def transitions(link: dict[str, Any], at: datetime, state: str, reason: str) -> list[dict[str, Any]]:
    """Oper-status transitions on both ends of a link."""
    return [{"device": link[f"{end}_device"], "interface": link[f"{end}_interface"], "at": at,
             "state": state, "reason": reason} for end in ("a", "b")]


def flap_events(d: dict[str, Any], t0: datetime, now: datetime, count: int,
                longest_down_s: float) -> list[dict[str, Any]]:
    """`count` down/up transitions of a link's both ends spread from t0 to now, each down for
    at most `longest_down_s` (a flapping port's carrier, as the lab records it)."""
    span = max((now - t0).total_seconds(), 60.0)
    events: list[dict[str, Any]] = []
    for i in range(count):
        down = t0 + timedelta(seconds=span * i / count)
        events += transitions(d, down, "down", "flap")
        events += transitions(d, down + timedelta(seconds=min(longest_down_s, span / count / 2)),
                              "up", "flap")
    return events
