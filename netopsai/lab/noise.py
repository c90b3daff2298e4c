"""Background noise: closed alarms, completed changes and short flaps that a correct
diagnosis must not be fooled by. Pure functions of an RNG, so the lab stays deterministic."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from netopsai.lab.events import alarm, link_down_alarms, transitions

CHANGE_SUMMARIES = [
    "Upgrade {os} maintenance release", "Rotate SNMP community and AAA keys",
    "Add tenant VLAN and SVI", "Replace optic on {ifname}", "Adjust BGP timers to 3/9",
    "Enable sFlow sampling 1:8192", "Update NTP servers", "Tighten CoPP policer",
    "Add prefix-list entries for new storage segment", "Re-seat fan tray",
]
AUTHORS = ["akumar", "jchen", "mrossi", "oadeyemi", "slee", "tnguyen"]
DEVICE_ALARMS = [
    ("HIGH_CPU", "device", "minor", "CPU utilisation above 85% for 5 minutes"),
    ("FAN_FAILURE", "device", "major", "Fan tray 2 speed below threshold"),
    ("PSU_FAILURE", "device", "major", "Power supply 1 input lost"),
    ("BGP_FLAP", "bgp", "minor", "BGP neighbour flapped (hold timer expired), re-established"),
    ("OPTICS_RX_LOW", "optics", "minor", "Rx power below low warning threshold"),
    ("HIGH_UTILIZATION", "capacity", "minor", "Egress utilisation above 85%"),
]


def _pick_time(rng: random.Random, start: datetime, end: datetime) -> datetime:
    span = max(1, int((end - start).total_seconds()) - 900)  # cleared before the clock
    return start + timedelta(seconds=rng.randrange(span))


def noise_rows(rng: random.Random, devices: list[dict[str, Any]], links: list[dict[str, Any]],
               start: datetime, end: datetime, *, alarms: int, changes: int, flaps: int,
               avoid: set[str] | frozenset[str] = frozenset(),
               ticket_base: int = 5000) -> dict[str, list[dict[str, Any]]]:
    """Alarms (all closed), completed changes and cleared flaps in [start, end), on devices
    outside `avoid` (the fault's devices and the question's path)."""
    net = [d for d in devices if d["role"] != "host" and d["name"] not in avoid]
    sites = {d["name"]: d["site"] for d in devices}
    flappable = [lk for lk in links if lk["kind"] != "host"
                 and lk["a_device"] not in avoid and lk["b_device"] not in avoid]
    out: dict[str, list[dict[str, Any]]] = {"alarms": [], "changes": [], "events": []}
    for _ in range(alarms if net else 0):
        dev = rng.choice(net)
        kind, cat, sev, msg = rng.choice(DEVICE_ALARMS)
        raised = _pick_time(rng, start, end)
        cleared = raised + timedelta(minutes=rng.randint(2, 40))
        out["alarms"].append(alarm(kind, cat, dev["name"], dev["site"], raised, msg,
                                   cleared=cleared, severity=sev))
    for i in range(changes if net else 0):
        dev = rng.choice(net)
        t0 = _pick_time(rng, start, end)
        summary = rng.choice(CHANGE_SUMMARIES).format(os=dev["os_version"],
                                                      ifname=f"Ethernet{rng.randint(1, 48)}")
        out["changes"].append({"ticket": f"CHG-{ticket_base + i}", "device": dev["name"],
                               "site": dev["site"], "start": t0,
                               "end": t0 + timedelta(minutes=rng.randint(5, 45)),
                               "kind": "config", "summary": summary,
                               "author": rng.choice(AUTHORS), "status": "completed"})
    for _ in range(flaps if flappable else 0):
        link = rng.choice(flappable)
        down = _pick_time(rng, start, end)
        up = down + timedelta(seconds=rng.randint(4, 90))
        out["events"] += transitions(link, down, "down", "flap") + transitions(link, up, "up", "flap")
        out["alarms"] += link_down_alarms(link, sites, down, cleared=up, impact="none")
    return out
