"""Does an answer contradict its own evidence? (principle 8, issue 25 item 6)

`contradictions(answer, evidence, root_cause, question)` reads the answer's headline and the
rows of the evidence it came with, and names every place where they disagree:

- a root cause that breaks traffic headlined over a flow delivering on every path, or a
  "Reachable" answer the trace does not bear out, or a flow diagnosis that never says whether
  the pair can reach;
- "no fault" / "looks healthy" over open alarms on the flow's traced links, on the asked
  device, or on a job's hosts and the switches read for it; over the asked device's closed
  alarms when the question asked what happened (a timeline was asked);
- "0 … alarms", "N … alarms (a open …)" or "no open alarm on …" where the cited alarms rows
  say otherwise;
- "Since: not shown" while a change record or an open alarm on the culprit is in the evidence;
- "is it still happening?" without a yes or no; a diagnosis that does not name its windows.

Used by the tests and by the arena's scoring over every bench question (the count must be 0).
It judges the text, so it takes the rendered answer, not the Diagnosis behind it."""

from __future__ import annotations

import re
from typing import Any

from netopsai.backends.rows import AlarmRecord, ChangeRecord, Hop, JobInfo
from netopsai.copilot.evidence import Evidence, rows_of
from netopsai.diagnosis.answer import BREAKS, STILL
from netopsai.diagnosis.context import trace_of

CITE = re.compile(r"\[(E\d+)\]")
HEAD = re.compile(r"\*\*(?:Still happening|Reachable|Likely root cause|Nearby|No fault|"
                  r"Inconclusive)")
COUNTED = re.compile(r"\b(\d+) (?:[\w/-]+ )?alarms? in the window \((\d+) open")
ZERO = re.compile(r"(?<![\d.])0 (?:[\w/-]+ )?alarms?\b")
NO_OPEN = re.compile(r"no open alarm on (.+?)(?: or the links between them| and its links)")
HAPPENED = re.compile(r"\bwhat happened\b|\btimeline\b", re.I)
HEALTHY = re.compile(r"No fault found on ([\w.:/-]+)|([\w.:/-]+) looks healthy|"
                     r"nothing found on ")


def _as_ev(e: Evidence | dict[str, Any]) -> Evidence:
    return e if isinstance(e, Evidence) else Evidence.model_validate(e)


def headline(answer: str) -> str:
    """The conclusion block: the first paragraph that leads like one, else the first that is not
    a note (the window line, names read as others)."""
    paras = [p.strip() for p in answer.split("\n\n") if p.strip()]
    return next((p for p in paras if HEAD.match(p)),
                next((p for p in paras if not p.startswith("_")), ""))


def contradictions(answer: str, evidence: list[Evidence] | list[dict[str, Any]],
                   root_cause: dict[str, Any] | None = None, question: str = "") -> list[str]:
    ev = [_as_ev(e) for e in evidence]
    ok = [e for e in ev if not e.errors]
    head = headline(answer)
    out = [*_flow(head, ok, root_cause), *_healthy(head, ok, question), *_counts(answer, ok),
           *_since(head, ok, root_cause)]
    if root_cause is not None:
        if STILL.search(question) and not re.search(r"Still happening: (?:yes|no)\b", head):
            out.append("'still happening?' is not answered yes or no first")
        if "Windows read" not in head and any(e.window for e in ok):
            out.append("the diagnosis does not name the windows it read")
    return out


def _kind(ev: list[Evidence]) -> str:
    if any(e.tool == "rail_traces" or e.args.get("query") == "jobs" for e in ev):
        return "job"
    if any(e.tool == "metadata" and e.args.get("query") == "neighbors" for e in ev):
        return "device"
    return "flow" if any(e.tool == "traceroute" for e in ev) else "lookup"


def main_trace(ev: list[Evidence]) -> Evidence | None:
    return next((e for e in ev if e.tool == "traceroute" and int(e.args.get("size", 60)) <= 1500),
                None)


def delivers(t: Evidence) -> bool:
    """Every equal-cost path delivers, and no hop loses probes."""
    f = trace_of(t)
    return bool(f.get("reached")) and f.get("good_paths") == f.get("ecmp_paths") \
        and not any(float(h.get("loss_pct") or 0) for h in rows_of(t, Hop))


def _flow(head: str, ev: list[Evidence], rc: dict[str, Any] | None) -> list[str]:
    m = main_trace(ev)
    if rc is None or m is None or _kind(ev) != "flow":
        return []
    first, out = head.split("\n", 1)[0], []
    f = trace_of(m)
    if "Reachable:" not in first:
        out.append("the flow's headline does not say first whether the pair can reach")
    back = [t for t in ev if t.tool == "traceroute" and not t.errors and not trace_of(t).get("reached")
            and t.args.get("src") == m.args.get("dst") and t.args.get("dst") == m.args.get("src")]
    if "Likely root cause" in first and rc.get("label") in BREAKS and delivers(m) and not back:
        out.append(f"root cause {rc['label']} headlined over a flow delivering on all "
                   f"{f.get('ecmp_paths')} paths [{m.id}]")
    said = re.search(r"Reachable: ?(\w+)", first.replace("**", ""))
    if said and said.group(1) == "yes" and not f.get("reached"):
        out.append(f"'Reachable: yes' but the trace stops at {f.get('stopped_at')} [{m.id}]")
    if said and said.group(1) == "no" and f.get("reached"):
        out.append(f"'Reachable: no' but the trace reaches the destination [{m.id}]")
    return out


def _open(ev: list[Evidence]) -> list[AlarmRecord]:
    return [r for e in ev if e.tool == "alarms" for r in rows_of(e, AlarmRecord)
            if r.get("state") == "open"]


def _on_path(r: AlarmRecord, path: list[str]) -> bool:
    """The alarm is about the traced path: a device alarm on one of its hops, or a link
    between two consecutive hops."""
    if r.get("device") not in path:
        return False
    if not r.get("peer"):
        return not r.get("interface")
    pairs = {frozenset(p) for p in zip(path, path[1:], strict=False)}
    return frozenset((r["device"], r["peer"])) in pairs


def _healthy(head: str, ev: list[Evidence], question: str = "") -> list[str]:
    m = HEALTHY.search(head)
    if not m:
        return []
    kind, rows = _kind(ev), _open(ev)
    if kind == "device":
        name = (m.group(1) or m.group(2)).rstrip(".:")
        bad = [r for r in rows if r.get("device") == name]
        if HAPPENED.search(question) and "came and went" not in head and "cleared since" not in head:
            bad += [r for e in ev if e.tool == "alarms"  # a timeline was asked
                    for r in rows_of(e, AlarmRecord)
                    if r.get("state") == "closed" and name in (r.get("device"), r.get("peer"))
                    and r.get("impact") != "none"]
    elif kind == "job":
        hosts = {h for e in ev if e.args.get("query") == "jobs" for r in rows_of(e, JobInfo)
                 for h in r.get("hosts") or []}
        bad = [r for r in rows if r.get("device") in hosts or r.get("peer") in hosts
               or (not r.get("interface") and r.get("kind") != "BGP_DOWN")]
    else:
        t = main_trace(ev)
        path = list(trace_of(t).get("path_devices") or [])
        bad = [r for r in rows if _on_path(r, path)]
    return [f"'healthy' headline over the {r['state']} {r['kind']} on {r['device']}"
            f"{' ' + str(r['interface']) if r.get('interface') else ''}" for r in bad[:3]]


def _cited(line: str, ev: list[Evidence]) -> list[Evidence]:
    ids = set(CITE.findall(line))
    return [e for e in ev if e.id in ids and e.tool == "alarms"]


def _counts(answer: str, ev: list[Evidence]) -> list[str]:
    """Counts of alarms and "no open alarm" phrases against the alarms rows each line cites."""
    out = []
    flow = main_trace(ev)
    ff = trace_of(flow)
    flow_devs = set((ff.get("path_devices") or []) + (ff.get("ecmp_devices") or [])) if flow else set()
    for line in answer.split("\n"):
        cited = _cited(line, ev)
        if not cited or line.startswith("|"):
            continue
        rows = [r for e in cited for r in rows_of(e, AlarmRecord)]  # _cited: alarms reads
        opened = [r for r in rows if r.get("state") == "open"]
        for n, k in COUNTED.findall(line):
            if int(n) != len(rows) or int(k) != len(opened):
                out.append(f"'{n} alarms ({k} open)' but the cited rows hold {len(rows)} "
                           f"({len(opened)} open)")
        if ZERO.search(line) and rows and not COUNTED.search(line):
            out.append(f"'0 alarms' but the cited evidence holds {len(rows)}")
        for scope in NO_OPEN.findall(line):
            devs = flow_devs if scope == "the flow's devices" else {scope.split(" ")[0]}
            hit = [r for r in opened if r.get("device") in devs
                   and (not r.get("peer") or r["peer"] in devs or scope != "the flow's devices")]
            if hit:
                out.append(f"'no open alarm on {scope}' but {hit[0]['kind']} on "
                           f"{hit[0]['device']} is open")
    return out


def _since(head: str, ev: list[Evidence], rc: dict[str, Any] | None) -> list[str]:
    if rc is None or not rc.get("device") or "**Since:** not shown" not in head:
        return []
    dev = rc["device"]
    changes = [r for e in ev if e.tool == "changelog" for r in rows_of(e, ChangeRecord)
               if r.get("device") == dev]
    alarms = [r for r in _open(ev) if r.get("device") == dev]
    if changes or alarms:
        what = (f"change {changes[0].get('ticket')}" if changes else
                f"open {alarms[0]['kind']} raised {alarms[0].get('raised_at')}")
        return [f"'Since: not shown' while the evidence has {what} on {dev}"]
    return []
