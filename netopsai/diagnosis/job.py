"""Job diagnosis (issue 15 §2): "job 4711 hit an NCCL timeout", "NCCL timeouts on
gpu-[001-064]", "why is job 4711 slow?".

The job's hosts and window come from the job table (or the hosts the question lists); then, in
one batch of reads over the job's hosts and the rail leaves their NICs plug into: the hosts'
status, every port's up/down history, PFC pauses, RoCE retransmits, ECN marks, the leaves'
utilisation, their alarms and changes. The culprit is the first that holds of: a job host down
(host.down), a PFC storm from one port (link.pfc_storm), a flapping NIC link (link.flapping),
a NIC or rail link down (link.down), one leaf uplink hot while its siblings idle
(link.ecmp_collision), pairs failing on one rail (job_rails.py: every rail's NICs traced
pairwise in one pass); the rest are listed as also found. When none of the job's own ports is
at fault but they receive spread pauses, the pauses are followed back to where they start
(job_storm.py). Nothing found is said as such, with the pairs traced per rail. The window and
why it was chosen (job_window.py) are said too."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from netopsai.backends.rows import DeviceInfo, HostInfo, JobInfo
from netopsai.common.hostlist import compress
from netopsai.common.localtime import is_utc, span, tz_of
from netopsai.copilot.evidence import Evidence, facts_of, rows_of
from netopsai.diagnosis.answer import frame
from netopsai.diagnosis.base import Diagnosis, Finding
from netopsai.diagnosis.context import Context
from netopsai.diagnosis.device_window import said as window_said
from netopsai.diagnosis.job_past import came_and_went
from netopsai.diagnosis.job_rails import Tracer, check_rails, pairs_said, rail_nics
from netopsai.diagnosis.job_registry import ordered
from netopsai.diagnosis.job_rules import Hit, Reads, explained_by
from netopsai.diagnosis.job_storm import spread_pauses
from netopsai.diagnosis.job_window import hosts_window, job_window, trace_time
from netopsai.tools.facts import RailFacts

# tool calls: the job, the hosts, the batch of reads (9), an errored port's optics or a hot
# uplink's ECN (1 each), then a storm's Since (up to 10) or spread pauses followed back
# (pfc_trace.MAX_HOPS hops of 2 reads, then the origin's Since)
JOB_BUDGET = 32
# the rules (leaf down, host down, PFC storm, flapping, link down, link errors, ECMP collision,
# then a rail unreachable) are one table: diagnosis/job_registry.py
RANK = re.compile(r"\brank\s*#?\s*(\d+)\b", re.I)


@dataclass
class Scope:
    """What the diagnosis is about: the job (if named), its hosts, the window, and the
    evidence that says so."""

    job: str | None
    hosts: list[str]
    window: Any
    cites: list[str] = field(default_factory=list)
    problem: str = ""
    why: str = ""  # the window read and why, as the answer says it

    @property
    def name(self) -> str:
        return f"job {self.job}" if self.job else compress(self.hosts)


def job_scope(ctx: Context, job: str | None, hosts: list[str], window: Any,
              at: str | None = None) -> Scope:
    """The job's hosts and window from the job table; the question's hosts otherwise."""
    if job is None:
        hw = hosts_window(window, at, ctx.question, _clock(ctx, hosts), ctx.zone)
        return Scope(None, hosts, hw.window, why=hw.why)
    ev = next((e for e in ctx.evidence if e.tool == "metadata" and e.args.get("query") == "jobs"
               and e.args.get("job") == job), None) or ctx.call("metadata", {"query": "jobs",
                                                                           "job": job})
    if ev.errors or not ev.rows:
        return Scope(job, [], window, [ev.id] if ev.id else [],
                     ev.errors[0] if ev.errors else f"job {job} is not in the job table")
    jw = job_window(rows_of(ev, JobInfo)[0], f"job {job}", window, at, ctx.question, ctx.zone)
    return Scope(job, list(rows_of(ev, JobInfo)[0]["hosts"]), jw.window, [ev.id], why=jw.why)


def gather(ctx: Context, sc: Scope, tracer: Tracer | None = None) -> Reads:
    """The hosts' NICs and their rail leaves, then one batch of reads over both."""
    prefix = os.path.commonprefix(sc.hosts)
    glob = {"name": prefix + "*"} if prefix else {}
    devs = ctx.call("metadata", {"query": "devices", **glob})
    status = {r["name"]: r for r in rows_of(devs, DeviceInfo)
              if r["name"] in sc.hosts} if not devs.errors else {}
    pods = sorted({str(r["pod"]) for r in status.values() if r.get("pod")})
    nics = ctx.call("metadata", {"query": "hosts", **({"pod": pods[0]} if len(pods) == 1 else glob)})
    attach = [] if nics.errors else rows_of(nics, HostInfo)
    leaves = sorted({t for r in attach if r["name"] in sc.hosts and (t := r.get("tor"))})
    both, w = sc.hosts + leaves, sc.window
    reads = Reads(sc.hosts, leaves, attach, status, devs, window=sc.window, call=ctx.call,
                  zone=ctx.zone)
    reads.ev["status"] = ctx.call("telemetry", {"metric": "oper_status", "devices": both,
                                                "window": w, "top": 1000})
    for metric, devices in (("pfc", both), ("retransmits", sc.hosts), ("errors", both)):
        reads.ev[metric] = ctx.call("telemetry", {"metric": metric, "devices": devices,
                                                  "window": w, "top": 10})
    reads.ev["utilization"] = ctx.call("telemetry", {"metric": "utilization", "devices": leaves,
                                                     "window": w, "top": 1000})
    reads.ev["alarms"] = ctx.call("alarms", {"devices": both, "state": "any", "window": w})
    reads.ev["changes"] = ctx.call("changelog", {"devices": both, "window": w})
    reads.ev["nics"] = nics
    if tracer is not None and attach:  # last: its id follows every tool call's
        rails = check_rails(tracer, rail_nics(attach, sc.hosts), trace_time(w))
        reads.ev["rails"] = rails
        ctx.new.append(rails)
        ctx.evidence.append(rails)
    return reads


def diagnose_job(ctx: Context, job: str | None, hosts: list[str], window: Any = None,
                 at: str | None = None, tracer: Tracer | None = None) -> Diagnosis:
    """The job's culprit (NIC, link, switch or collision), the hosts it hurts, what to do.
    `at`: the time the question gives; `tracer`: where to trace the rails (None: not traced)."""
    sc = job_scope(ctx, job, hosts, window, at)
    if not sc.hosts:
        return _no_hosts(sc)
    reads = gather(ctx, sc, tracer)
    rules = ordered()
    found = [(rule.own, list(rule.fn(reads))) for rule in rules]
    ports = [h for own, hs in found if own for h in hs]  # the job's own hosts, ports, rail leaves
    spread = [] if ports else spread_pauses(reads)  # nothing of the job's own: from elsewhere?
    hits = ports + spread + [h for own, hs in found if not own for h in hs]
    d = _verdict(sc, reads, hits) if hits else _healthy(sc, reads)
    if not hits:  # nothing down at the window's end: what came and went in it (job_past.py)
        came_and_went(d, reads, sc.name, window_said(sc.window, ctx.zone),
                      window is not None or at is not None)
    rails = reads.ev.get("rails")
    if rails is not None and not facts_of(rails, RailFacts).get("failing") and hits:
        d.clean.append(Finding(rails_reachable(rails), [rails.id]))
    if (said := rank_named(ctx.question, sc, reads)) is not None:
        d.because.insert(1 if hits else 0, said)
    if sc.why:
        d.because.append(Finding(f"window read: {_span(sc.window, ctx.zone)}: {sc.why}",
                                 sc.cites or reads.cite("status")))
    d.scope = f"{sc.name}'s NICs and rails"
    d.tier = "search"
    d.checks_run = len(rules)
    frame(ctx, d)
    return d


def _verdict(sc: Scope, reads: Reads, hits: list[Hit]) -> Diagnosis:
    top = hits[0]
    affected = reads.affected(top)
    d = Diagnosis(top.label, top.device, top.interface, top.confidence)
    rails = reads.cite("rails")  # the rails' failing pairs on the culprit: why, not also
    same = [h for h in hits[1:] if rails and h.cites == rails and h.device == top.device]
    hits = [h for h in hits if h not in same]
    d.because = [Finding(top.text, top.cites), *top.more, *(Finding(h.text, h.cites) for h in same)]
    who = f"{sc.name} runs on {len(sc.hosts)} hosts ({compress(sc.hosts)})"
    d.impact = Finding(f"{who}; affected: {compress(affected)}{ranks(sc.hosts, affected, reads)}"
                       " — every rank of the job waits on them, so its collectives stall (NCCL "
                       "timeouts)",
                       sc.cites + [reads.ev["nics"].id])
    d.since = top.since_said or (Finding(f"first seen at {top.since}", top.cites)
                                 if top.since else None)
    effects = [h for h in hits[1:] if explained_by(top, h, reads)]
    d.secondary = [Finding(f"caused by it: {h.text}", h.cites) for h in effects[:4]]
    d.secondary += [Finding(f"also: {h.text}", h.cites)
                    for h in [h for h in hits[1:] if h not in effects][:3]]
    d.next_steps = top.steps(sc.job)
    return d


def rank_spans(hosts: list[str], reads: Reads) -> dict[str, tuple[int, int]]:
    """Each host's ranks as a launcher places them by default: one rank per GPU (one GPU per
    NIC) in the job's host order (Slurm's block distribution, torchrun's node ranks)."""
    per = Counter(r["name"] for r in reads.attach if r["name"] in hosts)
    spans, first = {}, 0
    for h in hosts:
        if per[h]:
            spans[h] = (first, first + per[h] - 1)
        first += per[h]
    return spans


def ranks(hosts: list[str], affected: list[str], reads: Reads) -> str:
    """" (ranks 8–15 of 32, one per GPU in host order)" for the affected hosts, or ""."""
    spans = rank_spans(hosts, reads)
    if not affected or set(affected) >= set(hosts) or not spans:
        return ""
    merged: list[tuple[int, int]] = []
    for a, b in (spans[h] for h in hosts if h in affected and h in spans):
        if merged and merged[-1][1] == a - 1:
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    if not merged or len(merged) > 4:
        return ""
    total = max(b for _, b in spans.values()) + 1
    return f" (ranks {', '.join(f'{a}–{b}' for a, b in merged)} of {total}, one per GPU in host order)"


def rank_named(question: str, sc: Scope, reads: Reads) -> Finding | None:
    """"rank 17 of job 4711 timed out": the host that rank runs on."""
    m = RANK.search(question)
    spans = rank_spans(sc.hosts, reads)
    if m is None or not spans:
        return None
    n, cites = int(m.group(1)), sc.cites + reads.cite("nics")
    host = next((h for h, (a, b) in spans.items() if a <= n <= b), None)
    if host is None:
        total = max(b for _, b in spans.values()) + 1
        return Finding(f"rank {n} is not one of the job's {total} ranks (one per GPU)", cites)
    a, b = spans[host]
    return Finding(f"rank {n} runs on {host} (ranks {a}–{b}, one per GPU in host order)", cites)


def _clock(ctx: Context, hosts: list[str]) -> str | None:
    """Now, as far as the evidence says: the time a job running on the hosts was last seen (the
    planner's first round reads the jobs of the first host)."""
    ev = next((e for e in ctx.evidence if e.tool == "metadata" and e.args.get("query") == "jobs"
               and hosts and e.args.get("name") == hosts[0] and not e.errors), None)
    running = [r["until"] for r in (rows_of(ev, JobInfo) if ev else [])
               if not r.get("end") and r.get("until")]
    return max(running) if running else None


def rails_reachable(rails: Evidence) -> str:
    f = facts_of(rails, RailFacts)
    each = pairs_said(f.get("rails") or {}, every=True)
    return f"{each} reachable ({'; '.join(f.get('how') or [])})"


def _span(window: Any, zone: str = "UTC") -> str:
    """The window read: as the rows write it in UTC ('…Z .. …Z'), else on the network's clock,
    named, with UTC beside (common/localtime)."""
    if isinstance(window, dict):
        if not is_utc(tz_of(zone)):
            return span(window.get("start"), window.get("end"), zone)
        return f"{window.get('start')} .. {window.get('end')}"
    return f"the last {window}"


def _healthy(sc: Scope, reads: Reads) -> Diagnosis:
    ids = [e.id for e in reads.all() if e.id and not e.errors and e.tool != "rail_traces"]
    d = Diagnosis("none", None, None, 0.6)
    n = len(reads.ev["status"].rows)
    d.because = [Finding(
        f"nothing found on {sc.name}'s NICs and rails: {len(sc.hosts)} hosts up; no port of "
        f"theirs or of their {len(reads.leaves)} rail leaves is down or flapping ({n} changed "
        "state once); no PFC storm, no RoCE retransmit burst, no uplink hot while its "
        "siblings idle", sc.cites + ids)]
    rails = reads.ev.get("rails")
    if rails is not None:
        d.because.append(Finding(rails_reachable(rails), [rails.id]))
    d.next_steps = [
        "Look at the job itself: NCCL_DEBUG=INFO logs of the failing rank, GPU/XID errors, "
        "storage and the scheduler's node health."]
    if rails is None:
        d.next_steps.append("Per-rail connectivity among the job's hosts was not traced: trace "
                            "one NIC pair per rail to rule the fabric out completely.")
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
