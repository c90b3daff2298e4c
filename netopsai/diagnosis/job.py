"""Job diagnosis (issue 15 §2): "job 4711 hit an NCCL timeout", "NCCL timeouts on
gpu-[001-064]", "why is job 4711 slow?".

The job's hosts and window come from the job table (or the hosts the question lists); then, in
one batch of reads over the job's hosts and the rail leaves their NICs plug into: the hosts'
status, every port's up/down history, PFC pauses, RoCE retransmits, ECN marks, the leaves'
utilisation, their alarms and changes. The culprit is the first that holds of: a job host down
(host.down), a PFC storm from one port (link.pfc_storm), a flapping NIC link (link.flapping),
a NIC or rail link down (link.down), one leaf uplink hot while its siblings idle
(link.ecmp_collision); the rest are listed as also found. Nothing found is said as such.
Per-rail connectivity among the hosts (batched traces) is not checked yet."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from netopsai.diagnosis.base import Diagnosis, Finding
from netopsai.diagnosis.context import Context
from netopsai.diagnosis.job_rules import RULES, Hit, Reads
from netopsai.hostlist import compress
from netopsai.timewin import iso

JOB_BUDGET = 16  # tool calls: the job, the hosts, the batch of reads
LOOKBACK = timedelta(hours=6)  # a long-running job without a window: its last 6h


@dataclass
class Scope:
    """What the diagnosis is about: the job (if named), its hosts, the window, and the
    evidence that says so."""

    job: str | None
    hosts: list[str]
    window: Any
    cites: list[str] = field(default_factory=list)
    problem: str = ""

    @property
    def name(self) -> str:
        return f"job {self.job}" if self.job else compress(self.hosts)


def job_scope(ctx: Context, job: str | None, hosts: list[str], window: Any) -> Scope:
    """The job's hosts and window from the job table; the question's hosts otherwise."""
    if job is None:
        return Scope(None, hosts, window or "1h")
    ev = next((e for e in ctx.evidence if e.tool == "metadata" and e.args.get("query") == "jobs"
               and e.args.get("job") == job), None) or ctx.call("metadata", {"query": "jobs",
                                                                           "job": job})
    if ev.errors or not ev.rows:
        return Scope(job, [], window, [ev.id] if ev.id else [],
                     ev.errors[0] if ev.errors else f"job {job} is not in the job table")
    row = ev.rows[0]
    if window is None:
        until = datetime.fromisoformat(row["until"].replace("Z", "+00:00"))
        start = until - LOOKBACK
        if row["start"]:
            start = max(start, datetime.fromisoformat(row["start"].replace("Z", "+00:00")))
        window = {"start": iso(start), "end": iso(until)}
    return Scope(job, list(row["hosts"]), window, [ev.id])


def gather(ctx: Context, sc: Scope) -> Reads:
    """The hosts' NICs and their rail leaves, then one batch of reads over both."""
    prefix = os.path.commonprefix(sc.hosts)
    glob = {"name": prefix + "*"} if prefix else {}
    devs = ctx.call("metadata", {"query": "devices", **glob})
    status = {r["name"]: r for r in devs.rows if r["name"] in sc.hosts} if not devs.errors else {}
    pods = sorted({str(r["pod"]) for r in status.values() if r.get("pod")})
    nics = ctx.call("metadata", {"query": "hosts", **({"pod": pods[0]} if len(pods) == 1 else glob)})
    attach = [] if nics.errors else nics.rows
    leaves = sorted({r["tor"] for r in attach if r["name"] in sc.hosts and r.get("tor")})
    both, w = sc.hosts + leaves, sc.window
    reads = Reads(sc.hosts, leaves, attach, status, devs)
    reads.ev["status"] = ctx.call("telemetry", {"metric": "oper_status", "devices": both,
                                                "window": w, "top": 1000})
    for metric, devices in (("pfc", both), ("retransmits", sc.hosts), ("ecn", leaves)):
        reads.ev[metric] = ctx.call("telemetry", {"metric": metric, "devices": devices,
                                                  "window": w, "top": 10})
    reads.ev["utilization"] = ctx.call("telemetry", {"metric": "utilization", "devices": leaves,
                                                     "window": w, "top": 1000})
    reads.ev["alarms"] = ctx.call("alarms", {"devices": both, "state": "any", "window": w})
    reads.ev["changes"] = ctx.call("changelog", {"devices": both, "window": w})
    reads.ev["nics"] = nics
    return reads


def diagnose_job(ctx: Context, job: str | None, hosts: list[str], window: Any = None) -> Diagnosis:
    """The job's culprit (NIC, link, switch or collision), the hosts it hurts, what to do."""
    sc = job_scope(ctx, job, hosts, window)
    if not sc.hosts:
        return _no_hosts(sc)
    reads = gather(ctx, sc)
    hits = [h for rule in RULES for h in rule(reads)]
    d = _verdict(sc, reads, hits) if hits else _healthy(sc, reads)
    d.scope = f"{sc.name}'s NICs and rails"
    d.tier = "search"
    d.checks_run = len(RULES)
    return d


def _verdict(sc: Scope, reads: Reads, hits: list[Hit]) -> Diagnosis:
    top = hits[0]
    affected = reads.affected(top)
    d = Diagnosis(top.label, top.device, top.interface, top.confidence)
    d.because = [Finding(top.text, top.cites), *top.more]
    who = f"{sc.name} runs on {len(sc.hosts)} hosts ({compress(sc.hosts)})"
    d.impact = Finding(f"{who}; affected: {compress(affected)} — every rank of the job waits on "
                       "them, so its collectives stall (NCCL timeouts)",
                       sc.cites + [reads.ev["nics"].id])
    d.since = Finding(f"first seen at {top.since}", top.cites) if top.since else None
    d.secondary = [Finding(f"also: {h.text}", h.cites) for h in hits[1:4]]
    d.next_steps = top.steps(sc.job)
    return d


def _healthy(sc: Scope, reads: Reads) -> Diagnosis:
    ids = [e.id for e in reads.all() if e.id and not e.errors]
    d = Diagnosis("none", None, None, 0.6)
    n = len(reads.ev["status"].rows)
    d.because = [Finding(
        f"nothing found on {sc.name}'s NICs and rails: {len(sc.hosts)} hosts up; no port of "
        f"theirs or of their {len(reads.leaves)} rail leaves is down or flapping ({n} changed "
        "state once); no PFC storm, no RoCE retransmit burst, no uplink hot while its "
        "siblings idle", sc.cites + ids)]
    d.next_steps = [
        "Look at the job itself: NCCL_DEBUG=INFO logs of the failing rank, GPU/XID errors, "
        "storage and the scheduler's node health.",
        "Per-rail connectivity among the job's hosts is not traced by this diagnosis yet: "
        "trace one NIC pair per rail to rule the fabric out completely."]
    return d


def _no_hosts(sc: Scope) -> Diagnosis:
    d = Diagnosis("inconclusive", None, None, 0.0)
    why = sc.problem or f"{sc.name} lists no hosts"
    d.because = [Finding(f"{why} (without its hosts there are no NICs or rails to check)",
                         sc.cites)] if sc.cites else []
    d.scope = sc.name
    d.next_steps = ["Import the scheduler's jobs (`netopsai jobs import`), or ask about the hosts "
                    "directly, e.g. \"NCCL timeouts on gpu-[001-004]\"."]
    return d
