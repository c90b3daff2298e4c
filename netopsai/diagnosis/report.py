"""From a finished search to a Diagnosis: the primary cause (by where the flow breaks and what
explains what), secondary findings, the hypotheses ruled out with their evidence, the context
(changes on the culprit, what was found clean), next steps, and — when nothing is confirmed on
a failing flow — an escalation ticket draft."""

from __future__ import annotations

from dataclasses import asdict

from netopsai.backends.rows import AlarmRecord, Hop
from netopsai.common.localtime import stamp
from netopsai.copilot.evidence import rows_of
from netopsai.diagnosis.base import Diagnosis, Finding, RuledOut, Verdict
from netopsai.diagnosis.context import Context, trace_of
from netopsai.diagnosis.headline import impact, since
from netopsai.diagnosis.search import Search
from netopsai.diagnosis.taxonomy import Taxonomy
from netopsai.diagnosis.ticket import ticket

DEVICE_LABELS = ("device.down", "device.reboot")
LINK_LABELS = ("link.down", "dci.link_down", "link.flapping")


def explains(a: Verdict, b: Verdict) -> bool:
    """Whether confirmed fault `a` accounts for confirmed fault `b`: a dead or rebooting device
    for the link and session faults touching it; a down link for the session over it."""
    if a is b or a.label == b.label:
        return False
    if a.label in DEVICE_LABELS and b.label not in DEVICE_LABELS:
        return a.device in (b.device, b.peer)
    if a.label == "link.ecmp_collision" and b.label == "link.congestion":  # the hot uplink
        return (a.device, a.interface) == (b.device, b.interface)
    if a.label in LINK_LABELS and b.label in ("routing.bgp_down", "routing.adjacency_down"):
        return {a.device, a.peer} == {b.device, b.peer}
    return False


def primary(found: list[Verdict]) -> tuple[Verdict | None, list[Verdict], list[Verdict]]:
    """(primary, its effects, other independent faults). Unexplained faults rank by how close
    they sit to where the flow breaks, then by confidence — never by alarm type."""
    if not found:
        return None, [], []
    causes = [v for v in found if not any(explains(a, v) for a in found)] or found
    causes.sort(key=lambda v: (-v.position, -v.confidence))
    top = causes[0]
    effects = [v for v in found if explains(top, v)]
    others = [v for v in causes[1:] if v not in effects]
    return top, effects, others


def _where(v: Verdict) -> str:
    return " ".join(x for x in (v.device, v.interface) if x) or "?"


def healthy(ctx: Context) -> bool:
    m, f = ctx.main, trace_of(ctx.main)
    return bool(m and f.get("reached") and not f.get("failing")
                and f.get("good_paths") == f.get("ecmp_paths")
                and not any(h.get("loss_pct") for h in rows_of(m, Hop))
                and all(trace_of(t).get("reached") for t in ctx.traces))


def build(ctx: Context, s: Search, tax: Taxonomy, tier: str) -> Diagnosis:
    top, effects, others = primary(s.found)
    if top is not None:
        d = Diagnosis(top.label, top.device, top.interface, top.confidence,
                      because=[Finding(top.text, top.cites)])
        d.secondary = [Finding(f"{v.label} at {_where(v)}, caused by it: {v.text}", v.cites)
                       for v in effects]
        d.secondary += [Finding(f"also confirmed, {v.label} at {_where(v)}: {v.text}", v.cites)
                        for v in others]
        leaf = tax.leaf_for(top.label)
        d.next_steps = list(leaf.next_steps) if leaf else []
        _changes(ctx, d)
        d.since = since(ctx, d)
    elif healthy(ctx) and (unchecked := open_on_path(ctx)):
        d = _unverified(ctx, s, tax, unchecked)
    elif healthy(ctx):
        m = ctx.main
        assert m is not None
        d = Diagnosis("none", confidence=0.8, because=[Finding(
            f"the path is healthy: traceroute reaches the destination with no loss, "
            f"{trace_of(m).get('good_paths')} of {trace_of(m).get('ecmp_paths')} equal-cost paths deliver, "
            f"and no hypothesis the evidence suggested was confirmed", [m.id, *ctx.alarm_ids])])
    else:
        d = _inconclusive(ctx, s, tax)
    if d.label != "none":
        d.impact = impact(ctx)
    d.ruled_out = [RuledOut(label=v.label, text=v.text, cites=v.cites, check=v.check)
                   for v in s.ruled_out]
    d.clean = _clean(ctx, d)
    d.reference = [r for _, r in ctx.alarms.values() if r["state"] == "closed"][:10]
    d.steps = [asdict(x) for x in s.steps]
    d.tier, d.symptoms = tier, ctx.symptom_text()
    d.checks_run, d.tool_calls = ctx.checks_run, ctx.tool_calls
    return d


def _changes(ctx: Context, d: Diagnosis) -> None:
    on = ctx.changes_on(d.device)
    if on:
        eid, r = on[0]
        d.because.append(Finding(f"change {r['ticket']} on {r['device']} at {stamp(r['start'], ctx.zone)} "
                                 f"(\"{r['summary']}\", {r['status']}) precedes it", [eid]))


def _clean(ctx: Context, d: Diagnosis) -> list[Finding]:
    out = []
    elsewhere = [(eid, r) for eid, r in ctx.changes if r["device"] != d.device]
    if elsewhere:
        tickets = ", ".join(f"{r['ticket']} on {r['device']}" for _, r in elsewhere[:4])
        out.append(Finding(f"change records on {ctx.scope} in the window, none shown to "
                           f"cause a fault: {tickets}", list(dict.fromkeys(e for e, _ in elsewhere))))
    elif ctx.change_ids and not ctx.changes:
        out.append(Finding(f"no change record on {ctx.scope} in the window", ctx.change_ids))
    m = ctx.main
    if m is not None and trace_of(m).get("reached"):
        out.append(Finding(f"traceroute reaches the destination in {trace_of(m).get('hops')} hops",
                           [m.id]))
    if ctx.alarm_ids and not any(r["state"] == "open" and ctx.alarm_position(r)
                                 for _, r in ctx.alarms.values()):
        out.append(Finding(f"no open alarm on {ctx.scope} or the links between them",
                           ctx.alarm_ids))
    return out


def open_on_path(ctx: Context) -> list[tuple[str, AlarmRecord]]:
    """Open alarms about the traced path itself (a device alarm on a hop, or a link between two
    consecutive hops): a path that delivers is not called healthy over them."""
    path = list(trace_of(ctx.main).get("path_devices") or [])
    hops = {frozenset(p) for p in zip(path, path[1:], strict=False)}
    return [(eid, r) for eid, r in ctx.alarms.values() if r["state"] == "open"
            and r["device"] in path and (frozenset((r["device"], r.get("peer"))) in hops
                                         if r.get("peer") else not r.get("interface"))]


def _unverified(ctx: Context, s: Search, tax: Taxonomy,
                found: list[tuple[str, AlarmRecord]]) -> Diagnosis:
    """The flow delivers, but open alarms on its path were not confirmed as a cause (a strategy
    that runs no check): said as unverified, never as healthy."""
    d = _inconclusive(ctx, s, tax)
    eid, r = found[0]
    where = " ".join(x for x in (r["device"], r.get("interface")) if x)
    d.device, d.ticket = r["device"], None
    d.because = [Finding(f"the flow delivers, but the open {r['kind']} on {where}, on its traced "
                         "path, was not verified as a cause or ruled out",
                         [ctx.main.id if ctx.main else "", *dict.fromkeys(e for e, _ in found)])]
    d.next_steps = [f"Verify {r['kind']} on {where}: its counters and state over the last hour.",
                    *d.next_steps[:-1]]
    return d


def _untraced(ctx: Context) -> Diagnosis:
    """No trace ran (a bad or unknown address): say why; there is nothing to escalate yet."""
    failed = [e for e in ctx.evidence if e.tool == "traceroute" and e.errors]
    why = failed[0].errors[0] if failed else "no traceroute was run"
    d = Diagnosis("inconclusive", confidence=0.0, because=[Finding(
        f"the path could not be traced: {why}", [e.id for e in ctx.evidence])])
    d.next_steps = ["Check the two addresses: both must belong to hosts or devices of the inventory."]
    return d


def _inconclusive(ctx: Context, s: Search, tax: Taxonomy) -> Diagnosis:
    m = ctx.main
    if m is None:
        return _untraced(ctx)
    at = trace_of(m).get("stopped_at")
    text = (f"traceroute stops at {at} ({trace_of(m).get('reason')})" if at else
            "the flow is degraded")
    d = Diagnosis("inconclusive", at, None, 0.3, because=[Finding(
        f"{text}, and no hypothesis could be confirmed", [m.id])])
    tried = [v.label for v in (*s.ruled_out, *s.undecided)]
    untested = [n for n in tax.leaves() if n.result_label not in tried]
    d.next_steps = [f"Verify {v.label} by hand: {v.text}" for v in s.undecided][:3]
    d.next_steps += [f"Check for {n.id}: {n.description}" for n in untested][:3]
    d.next_steps.append("Escalate to the network team with the ticket draft below.")
    d.ticket = ticket(ctx, s, d)
    return d
