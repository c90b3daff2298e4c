"""The question's own answer, before any cause (principle 8: the first line answers the question
asked and never contradicts its evidence).

- reach: a flow question is answered "Reachable: yes / no / partly / with loss / small packets
  only", from the flow's traces; a break the flow's paths route around is then said as found
  nearby, not as the cause of a flow that works.
- still: "is it still happening?" is answered yes or no, with the last occurrence and the first
  onset.
- windows: every diagnosis names the windows it read (alarms and changes over the last hour,
  the trace at one moment ...), each cited."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import cast

from netopsai.backends.rows import AlarmRecord, Hop
from netopsai.common.localtime import at, moment
from netopsai.common.localtime import span as zoned_span
from netopsai.copilot.evidence import Evidence, rows_of
from netopsai.diagnosis.base import Diagnosis, Finding
from netopsai.diagnosis.context import Context, trace_of
from netopsai.diagnosis.episodes import episodes

# labels that say the flow cannot pass where the fault is: over a flow delivering on every
# path they are found nearby, never its root cause
BREAKS = frozenset({"link.down", "device.down", "dci.link_down", "config.acl_block",
                    "routing.blackhole", "routing.bgp_down", "routing.adjacency_down",
                    "host.down"})
STILL = re.compile(r"\bstill\b|\b(?:over|fixed|resolved|recovered|cleared|gone)\s+(?:yet|now)\b|"
                   r"\bback (?:up|to normal)\b", re.I)
READS = {"alarms": "alarms", "changelog": "changes", "traceroute": "traces",
         "telemetry": "port telemetry", "events": "log lines", "rail_traces": "rail traces"}


def reach(ctx: Context) -> tuple[str, Finding] | None:
    """(state, the answer) for a flow: yes | no | partly | loss | small. None without a trace
    (and for a device's diagnosis, whose probes are not the question's flow)."""
    m = ctx.main
    if m is None or ctx.focus:
        return None
    f = trace_of(m)
    good, paths = f.get("good_paths"), f.get("ecmp_paths")
    counted = isinstance(good, int) and isinstance(paths, int) and paths > 0
    good, paths = (int(good or 0), int(paths or 0))
    if not f.get("reached"):
        return "no", Finding(f"Reachable: no — the trace stops at {f.get('stopped_at')}: "
                             f"{f.get('reason') or 'no reply beyond it'}", [m.id])
    if counted and good < paths:
        return "partly", Finding(f"Reachable: partly — {good} of {paths} equal-cost paths "
                                 f"deliver, the other {paths - good} fail", [m.id])
    lossy = max(rows_of(m, Hop), key=lambda h: float(h.get("loss_pct") or 0),
                default=cast(Hop, {}))  # {}: a trace with no hop
    if float(lossy.get("loss_pct") or 0) > 0:
        return "loss", Finding(f"Reachable: yes, with loss — {float(lossy['loss_pct']):g}% of "
                               f"probes lost at {lossy.get('device') or lossy.get('ip')}", [m.id])
    big = next((t for t in ctx.traces if int(t.args.get("size", 60)) > 1500), None)
    if big is not None and (not (bf := trace_of(big)).get("reached")
                            or bf.get("good_paths") != bf.get("ecmp_paths")):
        return "small", Finding(f"Reachable: small packets only — {m.args.get('size', 60)}-byte "
                                f"probes deliver, {big.args['size']}-byte probes do not "
                                f"({bf.get('reason') or 'some paths fail'})",
                                [m.id, big.id])
    share = f"{good} of {paths} equal-cost paths deliver" if counted else "the destination answers"
    back = next((t for t in ctx.traces if t.args.get("src") == m.args.get("dst")
                 and t.args.get("dst") == m.args.get("src")), None)
    if back is not None and not (bk := trace_of(back)).get("reached"):
        return "oneway", Finding(f"Reachable: one way only — {m.args.get('src')} to "
                                 f"{m.args.get('dst')} delivers ({share}); the return path "
                                 f"stops at {bk.get('stopped_at')}: "
                                 f"{bk.get('reason') or 'no reply beyond it'}",
                                 [m.id, back.id])
    return "yes", Finding(f"Reachable: yes — {share}, no probe lost", [m.id])


def frame(ctx: Context, d: Diagnosis) -> None:
    """Set the diagnosis' answer, how its cause relates to the flow, the still-happening answer
    and the windows read. Call last: it reads what the report decided."""
    got = reach(ctx)
    if got is not None:
        state, d.answer = got
        if state == "yes" and d.label in BREAKS:
            d.relation = "nearby"
        d.answer = _told(ctx, d.answer)
    if STILL.search(ctx.question or ""):
        d.still = still(ctx, d, got[0] if got else None)
    d.windows = windows(ctx.evidence, ctx.zone)


def _told(ctx: Context, answer: Finding) -> Finding:
    """The answer at the moment traced (a past window's), then what came and went on the flow
    in the window (or, asked about now, in the last hours), each with its start and end."""
    m, text = ctx.main, answer.text
    if m is not None and m.args.get("at") and m.window:
        text = text.replace(" — ", f" — {span(m.window, ctx.zone)}, ", 1)
    ep = episodes(ctx)
    if ep is None:
        return Finding(text, answer.cites)
    return Finding(f"{text}. {ep.text[:1].upper()}{ep.text[1:]}",
                   list(dict.fromkeys([*answer.cites, *ep.cites])))


def still(ctx: Context, d: Diagnosis, state: str | None) -> Finding:
    """Yes while the flow fails now, or the device's confirmed fault is still open; no with the
    last occurrence the evidence shows (the latest cleared alarm about it). The first onset is
    the diagnosis' Since, kept whatever window the follow-up read."""
    m = ctx.main
    onset = f"; first onset: {d.since.text}" if d.since else ""
    cites = [*([m.id] if m is not None else []), *(d.since.cites if d.since else [])]
    if state in ("no", "partly", "loss", "small", "oneway") and m is not None:
        when = span(m.window, ctx.zone) if m.window else "now"
        return Finding(f"Still happening: yes — the trace {when} still fails{onset}", cites)
    # a reboot is over once the device is back; a break routed around is not the flow's
    faulty = d.label not in ("none", "inconclusive", "device.reboot") and d.relation == "cause"
    if faulty:
        return Finding(f"Still happening: yes — {d.label} at {d.device} is confirmed by the "
                       f"evidence read now{onset}", [*cites, *(d.because[0].cites if d.because else [])])
    last = _last_cleared(ctx)
    when = (f"; last occurrence: {last[1]['kind']} on {last[1]['device']} cleared at "
            f"{at(last[1]['cleared_at'], ctx.zone)}" if last else "; no alarm about it cleared in the window")
    now = "the flow delivers now" if state == "yes" else "nothing is confirmed now"
    return Finding(f"Still happening: no — {now}{when}{onset}",
                   [*cites, *([last[0]] if last else ctx.alarm_ids[:1])])


def _last_cleared(ctx: Context) -> tuple[str, AlarmRecord] | None:
    closed = [(eid, r) for eid, r, _ in ctx.alarms_of(
        {r["kind"] for _, r in ctx.alarms.values()}, "any") if r["state"] == "closed"]
    return max(closed, key=lambda x: str(x[1].get("cleared_at")), default=None)


def span(window: dict[str, str], zone: str = "UTC") -> str:
    """A window read, in the network's zone, named (common/localtime): '2025-11-04 19:00–20:00
    UTC', '2025-11-04 11:00–12:00 PST (19:00–20:00 UTC)'; 'at 2025-11-04 20:00 UTC' for a
    moment (a trace's)."""
    a, b = moment(window.get("start", "")), moment(window.get("end", ""))
    if a is None or b is None:
        return f"{window.get('start')} .. {window.get('end')}"
    if a == b:
        return f"at {at(a, zone, seconds=bool(a.second), beside=True)}"
    return zoned_span(a, b, zone)


def _relative(e: Evidence) -> str:
    """' (the last 1h)' for a window asked as a duration, ' (now)' for a trace of the present."""
    w = e.args.get("window")
    if isinstance(w, str) and w[:-1].isdigit():
        return f" (the last {w})"
    if e.tool == "traceroute" and not e.args.get("at"):
        return " (now)"
    return ""


def _n(eid: str) -> int:
    return int(eid[1:]) if eid[1:].isdigit() else 0


def windows(evidence: list[Evidence], zone: str = "UTC") -> Finding | None:
    """The windows read, grouped, in the network's zone: 'alarms and changes 2025-11-04
    19:00–20:00 UTC; traces at 2025-11-04 20:00 UTC', each group citing its evidence."""
    groups: dict[str, list[Evidence]] = defaultdict(list)
    for e in evidence:
        if e.id and not e.errors and e.window and e.tool in READS:
            groups[span(e.window, zone) + _relative(e)].append(e)
    if not groups:
        return None
    parts = []
    for when, evs in sorted(groups.items(), key=lambda g: min(_n(e.id) for e in g[1])):
        what = list(dict.fromkeys(READS[e.tool] for e in evs))
        said = what[0] if len(what) == 1 else f"{', '.join(what[:-1])} and {what[-1]}"
        parts.append(f"{said} {when}")
    ids = [e.id for evs in groups.values() for e in evs]
    return Finding("; ".join(parts), list(dict.fromkeys(ids)))
