"""The conclusion's two facts an on-call asks for right after "what and where": how much traffic
it hurts (a partial outage is not the same page as a total one) and since when. Both come from
evidence already gathered, each cited; neither is guessed when the evidence is silent."""

from __future__ import annotations

from netopsai.diagnosis.base import Diagnosis, Finding
from netopsai.diagnosis.context import Context
from netopsai.words import count


def impact(ctx: Context) -> Finding | None:
    """From the flow's main traceroute: every equal-cost path failing, some of them (with the
    share), or the destination reached but losing probes."""
    m = ctx.main
    if m is None:
        return None
    f = m.facts
    good, paths = f.get("good_paths"), f.get("ecmp_paths")
    if isinstance(paths, int) and isinstance(good, int) and paths > 0:
        if good == 0:
            return Finding(f"total: none of the {count(paths, 'equal-cost path')} delivers, the "
                           f"pair cannot communicate", [m.id])
        if good < paths:
            bad = paths - good
            return Finding(f"partial: {good} of {paths} equal-cost paths deliver; flows hashed "
                           f"onto the other {bad} ({100 * bad / paths:.0f}%) fail", [m.id])
    if not f.get("reached"):
        return Finding("total: the destination is not reached", [m.id])
    loss = max((float(r.get("loss_pct") or 0) for r in m.rows[-1:]), default=0.0)
    if loss > 0:
        return Finding(f"degraded: the destination answers but {loss:g}% of probes are lost",
                       [m.id])
    return None


def since(ctx: Context, d: Diagnosis) -> Finding | None:
    """The start the evidence shows: a change on the device (its start), else the earliest
    open alarm there."""
    if not d.device:
        return None
    on = ctx.changes_on(d.device)
    if on:
        eid, r = on[0]
        return Finding(f"{r['start']}, when change {r['ticket']} began on {r['device']}", [eid])
    raised = [(eid, r) for eid, r in ctx.alarms.values()
              if r.get("device") == d.device and r.get("state") == "open"]
    if raised:
        eid, r = min(raised, key=lambda x: str(x[1].get("raised_at")))
        return Finding(f"{r.get('raised_at')}, when {r.get('kind')} was raised on {d.device}",
                       [eid])
    looked = [*ctx.change_ids, *ctx.alarm_ids]
    if looked:  # say that it is unknown, and where it was looked for
        return Finding(f"not shown: no change record or open alarm on {d.device} in the window",
                       looked)
    return None
