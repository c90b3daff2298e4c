"""The copilot benchmark's lab and questions (bench_copilot.py's `init` and `sample` children):
one medium lab, and every query class's questions drawn (fixed seed) from the inventory the
metadata tool returns."""

from __future__ import annotations

import random
import time
from typing import Any

from bench.copilot_config import CLASSES, CLOCK, LAB_SEED, RNG_SEED, SCALE


def _backends() -> Any:
    from netopsai.backends.lab import lab_backends
    from netopsai.store.engine import get_engine

    return lab_backends(get_engine())


def child_init() -> dict[str, Any]:
    from netopsai.lab.manage import init_lab
    from netopsai.store.engine import get_engine

    t0 = time.perf_counter()
    init_lab(get_engine(), "default", SCALE, LAB_SEED, CLOCK)
    return {"init_s": time.perf_counter() - t0}


def _meta(backends: Any, **args: Any) -> list[dict[str, Any]]:
    from netopsai.tools.registry import run_tool

    ev = run_tool("metadata", args, backends)
    if ev.errors:
        raise SystemExit(f"metadata {args} failed: {ev.errors[0]}")
    return ev.rows


def _pairs(hosts: list[dict[str, Any]], n: int, rng: random.Random) -> list[tuple[dict, dict, str]]:
    """(a, b, kind): same PoD, same site other PoD and cross-site pairs in turn."""
    out = []
    for i in range(n):
        a = rng.choice(hosts)
        kind = ("same PoD", "other PoD", "cross-site")[i % 3]
        pool = [h for h in hosts if h["name"] != a["name"] and (
            (kind == "same PoD" and h["pod"] == a["pod"])
            or (kind == "other PoD" and h["site"] == a["site"] and h["pod"] != a["pod"])
            or (kind == "cross-site" and h["site"] != a["site"]))]
        out.append((a, rng.choice(pool), kind))
    return out


def _q(text: str, kind: str, intent: str, **extra: Any) -> dict[str, Any]:
    return {"q": text, "kind": kind, "intent": intent, **extra}


def child_sample(n: int) -> dict[str, Any]:
    """The questions of every class, named from the inventory the metadata tool returns."""
    from netopsai.tools.registry import run_tool

    b = _backends()
    rng = random.Random(RNG_SEED)
    sites = [r["site"] for r in _meta(b, query="sites")]
    pods = [r["pod"] for s in sites for r in _meta(b, query="pods", site=s)]
    devices = [(r["name"], r["role"]) for r in _meta(b, query="devices") if r["role"] != "host"]
    hosts = _meta(b, query="hosts")
    spines = [d for d, r in devices if r == "spine"]
    leafs = [d for d, r in devices if r == "leaf"]
    total = n + 1  # the first is the cold one
    qs: dict[str, list[dict[str, Any]]] = {c: [] for c in CLASSES}
    for i in range(total):
        h = rng.choice(hosts)
        qs["inventory"].append([
            _q(f"list the PoDs of {rng.choice(sites)} and their segments", "PoDs of a site",
               "inventory.pods"),
            _q(f"who owns {h['ip']}?", "who owns an IP", "inventory.ip"),
            _q(f"upstream switch of {h['ip']}", "upstream of an IP", "inventory.upstream"),
            _q(f"details of {rng.choice(devices)[0]}", "device details", "inventory.device"),
        ][i % 4])
        cat, when = [("DCI", "2 hours"), ("backbone", "3h"), ("link", "6 hours"),
                     ("DCI", "12h")][(i // 2) % 4]
        qs["alarms"].append(
            _q(f"any {cat} link alarms in the last {when}?", "category alarms in a window", "alarms")
            if i % 2 == 0 else
            _q(f"open alarms on {rng.choice([*spines, *leafs])} in the last 24h",
               "open alarms on a device, 24h", "alarms"))
        qs["telemetry"].append([
            _q(f"port link status across all switches since {rng.choice([6, 8, 10, 12]):02d}:00",
               "link status, all switches, since HH:00", "telemetry.status"),
            _q(f"top error ports in {rng.choice(sites)} over the last 24h",
               "top error ports in a site, 24h", "telemetry.errors"),
            _q(f"top error ports in {rng.choice(pods)} over the last 24h",
               "top error ports in a PoD, 24h", "telemetry.errors"),
        ][i % 3])
        qs["changes"].append(_q(f"what changed on {rng.choice(spines)} today",
                                "changes on a spine today", "changes"))
    for a, z, kind in _pairs(hosts, total, rng):
        qs["trace"].append(_q(f"trace {a['ip']} to {z['ip']}", kind, "trace"))
    phrasing = ("{a} to {b} not communicating", "{a} can't reach {b}", "packet loss from {a} to {b}")
    for i, (a, z, kind) in enumerate(_pairs(hosts, total, rng)):
        qs["diagnosis"].append(_q(phrasing[i % 3].format(a=a["ip"], b=z["ip"]), kind,
                                  "diagnose.connectivity"))
    for i, (a, z, _) in enumerate(_pairs(hosts, total, rng)):
        site = rng.choice(sites)
        qs["analysis"].append([
            _q(f"which devices on the path from {a['ip']} to {z['ip']} had alarms in the last 24h",
               "path_alarms", "alarms", recipe="path_alarms"),
            _q(f"which devices on the path from {a['ip']} to {z['ip']} had changes in the last 24h",
               "path_changes", "changes", recipe="path_changes"),
            _q(f"top error ports per pod in {site} over the last 24h", "top_per_pod",
               "telemetry.errors", recipe="top_per_pod"),
            _q(f"did any alarms in {site} line up with changes in the last "
               f"{rng.choice(['12h', '24h', '48h'])}?", "alarms_vs_changes", "alarms",
               recipe="alarms_vs_changes"),
        ][i % 4])
    # faults: other-PoD and cross-site pairs, so the flow leaves the source ToR by an uplink
    far = [p for p in _pairs(hosts, 3 * total, rng) if p[2] != "same PoD"][:total]
    for i, (a, z, kind) in enumerate(far):
        hop1 = run_tool("traceroute", {"src": a["ip"], "dst": z["ip"]}, b).rows[0]
        tor, ifname = a["tor"], hop1["out_interface"]
        if i % 2 == 0:
            faults = [{"kind": "acl_block", "target": {"device": tor},
                       "params": {"dst": z["segment"]}},
                      {"kind": "change", "at": "-27m", "target": {"device": tor},
                       "params": {"summary": "Apply new ACL set", "ticket": f"CHG-{4200 + i}"}}]
            expect = {"label": "config.acl_block", "devices": [tor]}
        else:
            nbr = next(r["neighbor"] for r in _meta(b, query="neighbors", name=tor)
                       if r["interface"] == ifname)
            faults = [{"kind": "link_down", "target": {"link": f"{tor}:{ifname}"}}]
            expect = {"label": "link.down", "devices": [tor, nbr]}
        name = faults[0]["kind"]
        qs["faulted"].append(_q(f"{a['ip']} to {z['ip']} not communicating", name,
                                "diagnose.connectivity", faults=faults, expect=expect, pair=kind))
    return {"questions": qs, "hosts": len(hosts), "devices": len(devices)}

