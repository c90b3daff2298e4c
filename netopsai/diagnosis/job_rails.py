"""Per-rail connectivity among a job's hosts (issue 15 §2): for each rail k, the job's hosts'
NIC k addresses traced pairwise in one pass over the paths backend, as one Evidence (`rail_traces`)
with a row per failing pair and the pairs checked per rail in its facts.

Bounded: all pairs up to ALL_PAIRS_HOSTS hosts; past that each host to the next one and the one
half-way round the job's host list (every NIC is checked, from two sides), and past MAX_TRACES
traces only the next one; the evidence says which. Failing pairs on one rail point at that rail:
a NIC when one host is in every failing pair, else the rail's leaves."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from netopsai.backends.rows import HostInfo
from netopsai.common.words import count
from netopsai.copilot.evidence import Evidence, facts_of
from netopsai.diagnosis.job_ecmp import Placement, ring
from netopsai.tools.facts import Culprit, RailCount, RailFacts

ALL_PAIRS_HOSTS = 16  # all pairs up to this many hosts (120 pairs per rail)
MAX_TRACES = 4096  # over all rails: a 512-host job's ring on 8 rails
MAX_ROWS = 200  # failing pairs listed; the counts cover the rest
RAIL = re.compile(r"rail(\d+)")
COLUMNS = ["rail", "src", "dst", "src_ip", "dst_ip", "stopped_at", "reason"]
Nic = tuple[str, str, str]  # (host, address, leaf)


@dataclass
class Tracer:
    """The paths backend to trace on, and the turn's ledger to number the evidence."""

    paths: Any
    mint: Callable[[], str]


def rail_nics(attach: list[HostInfo], hosts: list[str]) -> dict[int, list[Nic]]:
    """Rail -> the job's hosts' NIC on it, in the job's host order. The rail is the leaf's
    `railK` when it names one, else the NIC's place among the host's addresses."""
    order = {h: i for i, h in enumerate(hosts)}
    seen: Counter[str] = Counter()
    out: dict[int, list[Nic]] = {}
    for r in attach:
        h = r["name"]
        if h not in order or not r.get("ip"):
            continue
        m = RAIL.search(str(r.get("tor") or ""))
        k = int(m.group(1)) if m else seen[h]
        seen[h] += 1
        out.setdefault(k, []).append((h, str(r["ip"]), str(r.get("tor") or "")))
    return {k: sorted(v, key=lambda n: order[n[0]]) for k, v in sorted(out.items())}


def choose_pairs(n: int, rails: int) -> tuple[list[tuple[int, int]], str]:
    """Index pairs among n hosts, and how they were chosen (said in the evidence)."""
    if n <= ALL_PAIRS_HOSTS:
        return [(i, j) for i in range(n) for j in range(i + 1, n)], "all pairs"
    offsets = [1, n // 2] if n * 2 * rails <= MAX_TRACES else [1]
    pairs = list(dict.fromkeys((min(i, (i + d) % n), max(i, (i + d) % n)) for d in offsets
                               for i in range(n)))
    how = ("each host to the next and to the one half-way round the job's host list"
           if len(offsets) == 2 else "each host to the next in the job's host list")
    cap = max(1, MAX_TRACES // max(rails, 1))
    if len(pairs) > cap:
        return pairs[:cap], f"{how}, the first {cap} of them (a cap of {MAX_TRACES} traces)"
    return pairs, f"{how} (of {n * (n - 1) // 2:,} pairs; all pairs only up to " \
                  f"{ALL_PAIRS_HOSTS} hosts)"


def _trace(tracer: Tracer, a: Nic, b: Nic, at: datetime | None) -> dict[str, Any]:
    try:
        r = tracer.paths.traceroute(a[1], b[1], 60, at)
    except Exception as exc:  # one pair's error is that pair's row, not the diagnosis' end
        return {"reached": False, "stopped_at": None, "reason": f"error: {exc}"}
    return dict(r)


def check_rails(tracer: Tracer, nics: dict[int, list[Nic]], at: datetime | None) -> Evidence:
    """Every chosen pair on every rail traced once; one Evidence for all rails."""
    rows: list[dict[str, Any]] = []
    per_rail: dict[str, RailCount] = {}
    hows = set()
    pinned, when = _pinned(tracer, at)
    placed = Placement()
    for k, on in nics.items():
        pairs, how = choose_pairs(len(on), len(nics))
        hows.add(how)
        bad = 0
        done: dict[tuple[int, int], dict[str, Any]] = {}
        for i, j in pairs:
            a, b = on[i], on[j]
            r = done[(i, j)] = _trace(pinned, a, b, when)
            if r.get("reached"):
                continue
            bad += 1
            rows.append({"rail": k, "src": a[0], "dst": b[0], "src_ip": a[1], "dst_ip": b[1],
                         "stopped_at": r.get("stopped_at"), "reason": r.get("reason") or ""})
        wrap = 1  # the ring's last flow (back to the first host) is traced above the other way
        for i, j in ring(len(on)):  # the ring's flows placed, from the traces already made
            t = done.get((i, j))
            if t is None and wrap:
                t, wrap = _trace(pinned, on[i], on[j], when), 0
            if t is not None:
                placed.add(k, on[i][0], on[j][0], t)
        per_rail[str(k)] = RailCount(hosts=len(on), checked=len(pairs), failing=bad)
    ev = _evidence(tracer.mint(), nics, rows, per_rail, sorted(hows), at)
    facts_of(ev, RailFacts)["placement"] = placed.facts()
    return ev


def _pinned(tracer: Tracer, at: datetime | None) -> tuple[Tracer, datetime | None]:
    """On the lab, the state read once for every trace (as a batch does: backends/lab/pinned.py)
    rather than once per trace, which was most of a trace's cost; a past window is traced live."""
    from netopsai.backends.lab.pinned import pinned_now

    paths = pinned_now(tracer.paths, at)
    return (tracer, at) if paths is None else (Tracer(paths, tracer.mint), None)


def _evidence(eid: str, nics: dict[int, list[Nic]], rows: list[dict[str, Any]],
              per_rail: dict[str, RailCount], hows: list[str],
              at: datetime | None) -> Evidence:
    checked = sum(r["checked"] for r in per_rail.values())
    bad = [k for k, r in per_rail.items() if r["failing"]]
    head = f"Traced {pairs_said(per_rail)} among the job's hosts' NICs ({'; '.join(hows)})"
    if not bad:
        summary = f"{head}: all reachable."
    else:
        summary = f"{head}: " + "; ".join(
            f"rail {k}: {per_rail[k]['failing']} of {per_rail[k]['checked']} pairs fail"
            + _blame(k, rows, nics) for k in bad) + "."
    when = at.strftime("%Y-%m-%dT%H:%M:%SZ") if at else None
    return Evidence(id=eid, tool="rail_traces",
                    args={"hosts": len({n[0] for v in nics.values() for n in v}),
                          "rails": len(nics), **({"at": when} if when else {})},
                    window={"start": when, "end": when} if when else None, summary=summary,
                    columns=COLUMNS, rows=rows[:MAX_ROWS], partial=len(rows) > MAX_ROWS,
                    facts=dict(RailFacts(checked=checked, failing=len(rows), rails=per_rail,
                                         how=hows, culprits={k: culprit(int(k), rows, nics)
                                                             for k in bad})))


def pairs_said(per_rail: dict[str, RailCount], every: bool = False) -> str:
    """"6 pairs on each of the 8 rails", "the pair on each of the 8 rails" (a 2-host job) or
    "40 pairs over the 3 rails"; `every`: "all 6 pairs ..." for a sentence about all of them."""
    checked = [r["checked"] for r in per_rail.values()]
    rails, all_ = count(len(per_rail), "rail"), "all " if every else ""
    if len(set(checked)) != 1:
        return f"{all_}{count(sum(checked), 'pair')} over the {rails}"
    n = checked[0]
    return f"{all_ + str(n) + ' pairs' if n != 1 else 'the pair'} on each of the {rails}"


def culprit(k: int, rows: list[dict[str, Any]], nics: dict[int, list[Nic]]) -> Culprit:
    """What rail k's failing pairs point at: the host in every one of them (its NIC k), else
    the rail's leaves."""
    mine = [r for r in rows if r["rail"] == k]
    common = set.intersection(*({r["src"], r["dst"]} for r in mine)) if mine else set()
    if len(common) == 1:
        host = common.pop()
        leaf = next((n[2] for n in nics.get(k, []) if n[0] == host), None)
        return Culprit(device=host, interface=f"mlx5_{k}", leaf=leaf, kind="nic")
    leaves = sorted({n[2] for n in nics.get(k, []) if n[2]})
    return Culprit(device=leaves[0] if len(leaves) == 1 else None, interface=None,
                   leaves=leaves, kind="rail")


def _blame(k: str, rows: list[dict[str, Any]], nics: dict[int, list[Nic]]) -> str:
    c = culprit(int(k), rows, nics)
    if c["kind"] == "nic":
        return f", each involving {c['device']} {c['interface']}"
    return f", spread over its hosts (the rail's leaves: {', '.join(c['leaves'])})"
