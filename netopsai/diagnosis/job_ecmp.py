"""Where a job's traffic lands on the fabric (issue 15 §2, ECMP). Each rail's ring — every
host's NIC to the next host's in the job's host list, the last back to the first, the pattern
of NCCL's ring all-reduce — is placed by the same flow hashing the traces use: a trace's first
hop leaves the source's leaf by the uplink the hash picked. A few elephant flows per rail hash
unevenly; a leaf whose uplinks carry several of the job's flows on one and none on a sibling is
a collision, named with its flows and the idle alternatives."""

from __future__ import annotations

from statistics import median
from typing import Any

from netopsai.copilot.evidence import facts_of
from netopsai.diagnosis.job_registry import job_rule
from netopsai.diagnosis.job_rules import Hit, Reads
from netopsai.tools.facts import RailFacts

MAX_NAMED = 6  # flows named per uplink in a sentence; the count covers the rest


def ring(n: int) -> list[tuple[int, int]]:
    """Index pairs (sender, receiver) of a ring over n hosts."""
    return [(i, (i + 1) % n) for i in range(n)] if n > 1 else []


class Placement:
    """leaf -> uplink -> the job's flows that leave the leaf by it, as "src→dst (rail k)"."""

    def __init__(self) -> None:
        self.flows: dict[str, dict[str, list[str]]] = {}

    def add(self, rail: int, src: str, dst: str, trace: dict[str, Any]) -> None:
        hops = trace.get("hops") or []
        if not trace.get("reached") or not hops:
            return
        first = hops[0]  # the source's leaf; no out_interface when the peer is under it too
        if first.get("device") and first.get("out_interface"):
            per = self.flows.setdefault(str(first["device"]), {})
            per.setdefault(str(first["out_interface"]), []).append(f"{src}→{dst} (rail {rail})")

    def facts(self) -> dict[str, dict[str, list[str]]]:
        return {leaf: dict(sorted(ups.items())) for leaf, ups in sorted(self.flows.items())}


def uplink_story(placed: dict[str, dict[str, list[str]]], leaf: str, hot: str,
                 uplinks: dict[str, float]) -> str:
    """What the placement says of `leaf`'s uplink `hot`, given every uplink's utilisation %:
    the job's flows on it and the idle alternatives, or that the job's ring stays off it."""
    on = placed.get(leaf, {})
    mine = on.get(hot, [])
    idle = sorted((u for u in uplinks if u != hot and not on.get(u)), key=lambda u: uplinks[u])
    alt = ", ".join(f"{u} ({uplinks[u]:.0f}%)" for u in idle)
    if not mine:
        where = ("none of the job's ring flows leave it by its uplinks (they stay under the "
                 "leaf)" if not on else f"the job's ring flows leave it by {', '.join(sorted(on))}")
        return f"placing the job's ring by the fabric's flow hash: {where}" + \
            (f"; idle alternatives: {alt}" if alt else "")
    named = ", ".join(mine[:MAX_NAMED]) + (f" and {len(mine) - MAX_NAMED} more"
                                            if len(mine) > MAX_NAMED else "")
    spread = sum(len(v) for v in on.values())
    return (f"the fabric's flow hash puts {len(mine)} of the job's {spread} ring flows through "
            f"{leaf} on {hot}: {named}" + (f"; idle alternatives carrying none of them: {alt}"
                                           if alt else ""))


@job_rule("ecmp_collision", 70)
def ecmp_collision(x: Reads) -> list[Hit]:
    """A rail leaf's uplink near line rate while its siblings idle, with the job's flows placed
    on it (or not) by the traces, and its ECN marks (read for that uplink only: the one call)."""
    facing = x.host_ports()
    out = []
    for leaf in x.leaves:
        ups = [r for r in x.counters("utilization") if r["device"] == leaf
               and (leaf, r["interface"]) not in facing]
        if len(ups) < 2:
            continue
        hot = max(ups, key=lambda r: r["last_pct"])  # the same moment: the window's end
        rest = median(r["last_pct"] for r in ups if r is not hot)
        if hot["last_pct"] < x.settings.hot_pct or rest >= x.settings.idle_pct:
            continue
        port, rails = hot["interface"], x.ev.get("rails")
        placed = facts_of(rails, RailFacts).get("placement", {}) if rails is not None else {}
        story = uplink_story(placed, leaf, port, {r["interface"]: r["last_pct"] for r in ups})
        out.append(Hit("link.ecmp_collision", leaf, port, (
            f"{leaf} uplink {port} runs at {hot['last_pct']:.0f}% at the end of the window while "
            f"the median of its {len(ups) - 1} sibling uplinks is {rest:.0f}%{_marks(x, leaf, port)}"
            f": flows hash onto one uplink; {story}"),
            x.cite("utilization", "ecn", "alarms") + (x.cite("rails") if placed.get(leaf) else []), [
            f"Change the ECMP hashing on {leaf} (hash on the RoCE UDP source port, or enable "
            "adaptive routing/packet spraying) so the flows spread.",
            "Meanwhile move {job}, or set NCCL_IB_QPS_PER_CONNECTION higher for more flows."],
            # less sure when the traces show the job's ring off the hot uplink
            0.8 if rails is None or placed.get(leaf, {}).get(port) else 0.7))
    return out


def _marks(x: Reads, leaf: str, port: str) -> str:
    """", marking N packets with ECN" for the hot uplink (its queue builds), or ""."""
    if x.call is not None and "ecn" not in x.ev:
        x.ev["ecn"] = x.call("telemetry", {"metric": "ecn", "devices": [leaf], "interface": port,
                                           "window": x.window})
    row = next((r for r in x.counters("ecn") if (r["device"], r["interface"]) == (leaf, port)), None)
    if not row or not row["total"]:
        return ""
    return f", marking {row['total']:,.0f} packets with ECN (its queue builds)"
