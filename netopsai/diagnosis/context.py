"""What a diagnosis knows: the turn's evidence, a per-diagnosis cache so that checks share tool
results instead of re-querying, and the flow's geometry (where the trace stops, the traced
path, the equal-cost paths, the endpoints, the devices next to them) that decides whether an
alarm is about this flow at all."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from netopsai.backends.rows import AlarmRecord, ChangeRecord, DeviceDetail, Hop, IpOwner, Neighbor
from netopsai.copilot.evidence import Evidence, facts_of, failed, rows_of
from netopsai.diagnosis.base import Verdict
from netopsai.tools.facts import TraceFacts

DIAG_WINDOW = "1h"
RECENT = "6h"  # asked about now: what happened on the flow's devices in the last hours
PAST_MARGIN = timedelta(minutes=5)  # a window ending earlier than this before now is the past
AROUND = timedelta(minutes=15)  # "at 18:05": the alarms of the half hour before, a quarter after
JUMBO = 9000  # the hosts' MTU: a jumbo probe that fits every healthy link
STOP, PATH, ECMP, NEAR = 4, 3, 2, 1  # how close a device is to the flow
HOUR = timedelta(hours=1)  # DIAG_WINDOW as a span
MAX_TOOL_CALLS = 14  # per diagnosis, baseline included (the return trace and the last hours' alarms among
# them): past it, checks get `unknown`
Runner = Callable[[str, dict[str, Any]], Evidence]


def trace_of(ev: Evidence | None) -> TraceFacts:
    """A traceroute's facts, typed; with no trace, an empty dict (read with .get: it holds no key)."""
    return facts_of(ev, TraceFacts) if ev else cast(TraceFacts, {})


def asked(traces: list[Evidence], window: Any, at: str | None) -> tuple[Any, str | None]:
    """The question's window for every read and the moment to trace: the point it named (with
    the half hour before it), else the middle of a window that ended before now; else the last
    hour, and the trace of now (None). Now is when the planner's trace ran."""
    ok = [t for t in traces if t.tool == "traceroute" and not t.errors and not t.args.get("at")]
    clock = _time((ok[0].window or {}).get("end")) if ok else None
    return asked_at(clock, window, at)


def asked_at(clock: datetime | None, window: Any, at: str | None,
             default: Any = DIAG_WINDOW) -> tuple[Any, str | None]:
    """asked() with now given (a device diagnosis has no trace of its own to read it from)."""
    point = _time(at) if at else None
    if window is None and point is not None:
        end = min(point + AROUND, clock) if clock else point + AROUND
        return {"start": _iso(point - 2 * AROUND), "end": _iso(end)}, _iso(point)
    win = window or default
    if point is not None or clock is None or not isinstance(win, dict):
        return win, _iso(point) if point else None
    first, last = _time(win.get("start")), _time(win.get("end"))
    if first is None or last is None or last >= clock - PAST_MARGIN:
        return win, None
    return win, _iso(first + (last - first) / 2)


def _recent(e: Evidence, window: Any) -> bool:
    """The read of the last hours' alarms beside a question about now (baseline_calls): what
    came and went is told, never a cause; only its rows of the last hour count as the hour's."""
    return (e.args.get("window") == RECENT and e.args.get("state", "any") in ("closed", "any")
            and window == DIAG_WINDOW)


def _of_hour(e: Evidence, r: Mapping[str, object]) -> bool:
    """A row of the last hours' read that was active in the last hour (open, or cleared inside
    it): one read of the flow's devices serves the hour and the hours before it."""
    if e.args.get("state", "any") != "any":
        return False  # closed alarms only: told, never the hour's
    end, cleared = _time((e.window or {}).get("end")), _time(r.get("cleared_at"))
    return r.get("state") == "open" or (end is not None and cleared is not None
                                        and cleared >= end - HOUR)


def _time(text: Any) -> datetime | None:
    try:
        t = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def _iso(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def baseline_calls(traces: list[Evidence], window: Any = None,
                   at: str | None = None) -> list[dict[str, Any]]:
    """After the traceroute, in one concurrent round, over the question's window (default the
    last hour): changes and alarms (open or closed) on the flow's devices, every alarm of the
    window (open ones for a window that reaches now: a dead device drops out of the paths, its
    neighbours' alarms point at it), who owns both ends (hosts and ToRs), the flow traced at
    the asked moment `at` (a past window) and a jumbo probe when small packets pass (MTU).
    Asked about now, the flow's devices' alarms of the last hours too (what happened on it)."""
    ok = [e for e in traces if e.tool == "traceroute" and not e.errors]
    if not ok:
        return []
    f, args = trace_of(ok[0]), ok[0].args
    win = window or DIAG_WINDOW
    devices = sorted(set(f.get("ecmp_devices") or []) | set(f.get("path_devices") or [])
                     | ({stop} if (stop := f.get("stopped_at")) else set()))
    calls: list[dict[str, Any]] = []
    if devices:
        # asked about now: the flow's devices' alarms of the last hours in one read, which holds
        # the hour's too (Context keeps those as the hour's, the rest as what came and went);
        # a second read of the same devices was one tool call over the budget (issue 25)
        wide = RECENT if win == DIAG_WINDOW and at is None else win
        calls += [{"tool": "changelog", "args": {"devices": devices, "window": win}},
                  {"tool": "alarms", "args": {"devices": devices, "window": wide}}]
    calls += [{"tool": "alarms", "args": {"state": "any" if at else "open", "window": win}},
              {"tool": "metadata", "args": {"query": "ip", "ip": args["src"]}},
              {"tool": "metadata", "args": {"query": "ip", "ip": args["dst"]}}]
    if at and not any(t.args.get("at") == at for t in ok):
        calls.append({"tool": "traceroute", "args": {"src": args["src"], "dst": args["dst"],
                                                     "at": at}})
    elif len(ok) == 1 and f.get("reached"):
        calls.append({"tool": "traceroute", "args": {"src": args["src"], "dst": args["dst"],
                                                     "size": JUMBO, **({"at": at} if at else {})}})
    if f.get("reached") and not any(t.args.get("src") == args["dst"] for t in ok):
        # the way back: a flow that goes out can still get no answer (issue 25 item 2)
        calls.append({"tool": "traceroute", "args": {"src": args["dst"], "dst": args["src"],
                                                     **({"at": at} if at else {})}})
    return calls


def normal_args(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """Arguments as the tool records them (defaults filled), so a request finds its cache entry."""
    from netopsai.tools.registry import REGISTRY

    try:
        return REGISTRY[tool].args_model.model_validate(args).model_dump(exclude_none=True)
    except Exception:  # an invalid request is run (and fails) as given
        return args


def _key(tool: str, args: dict[str, Any]) -> str:
    return tool + json.dumps(args, sort_keys=True, default=str)


class Context:
    def __init__(self, evidence: list[Evidence], run: Runner | None = None,
                 question: str = "", focus: str | None = None,
                 budget: int = MAX_TOOL_CALLS, window: Any = None, at: str | None = None) -> None:
        self.question = question
        self.window = window or DIAG_WINDOW  # every read's window: the question's, else 1h
        self.at = at  # the moment traced (a past window's); None: now
        self.focus = focus  # a device diagnosis' device: it stands where a flow would stop
        self.evidence = list(evidence)
        self._run = run
        self.zone = str(getattr(run, "zone", None) or "UTC")  # the network's: times shown in it
        self.cache = {_key(e.tool, e.args): e for e in evidence if not e.errors}
        self.new: list[Evidence] = []
        self.tool_calls = 0
        self.checks_run = 0
        self.verdicts: dict[str, Verdict] = {}
        self.symptom_memo: dict[tuple[str, int], float] = {}
        self.before: Evidence | None = None  # the flow traced back in time (widen)
        self.budget = budget - len(evidence)  # tool calls the engine may still make
        self._derive()

    # -- tools, through the cache -----------------------------------------------------------
    def call(self, tool: str, args: dict[str, Any]) -> Evidence:
        key = _key(tool, normal_args(tool, args))
        if key in self.cache:
            return self.cache[key]
        if self._run is None or self.budget <= 0:
            ev = failed(tool, args, "no tool runner in this diagnosis" if self._run is None else
                        f"the diagnosis used its {MAX_TOOL_CALLS} tool calls")
            ev.id = ""  # not run: nothing to cite
            return ev
        ev = self._run(tool, args)
        self.tool_calls += 1
        self.budget -= 1
        self.new.append(ev)
        self.evidence.append(ev)
        if not ev.errors:
            self.cache[key] = ev
        self._derive()
        return ev

    def device(self, name: str | None) -> tuple[DeviceDetail | None, str]:
        ev = self.call("metadata", {"query": "device", "name": name})
        return (rows_of(ev, DeviceDetail)[0] if ev.rows and not ev.errors else None), ev.id

    # -- what the evidence says --------------------------------------------------------------
    def _derive(self) -> None:
        ok = [e for e in self.evidence if not e.errors]
        self.traces = [e for e in ok if e.tool == "traceroute" and e is not self.before]
        small = [t for t in self.traces if int(t.args.get("size", 60)) <= 1500]
        self.main = next((t for t in small if self.at and t.args.get("at") == self.at),
                         small[0] if small else self.traces[0] if self.traces else None)
        self.alarms: dict[Any, tuple[str, AlarmRecord]] = {}
        self.recent = [e for e in ok if e.tool == "alarms" and _recent(e, self.window)]
        for e in ok:
            for r in rows_of(e, AlarmRecord) if e.tool == "alarms" else []:
                if e not in self.recent or _of_hour(e, r):
                    self.alarms.setdefault(r.get("id") or json.dumps(r, default=str),
                                           (e.id, self._as_then(r)))
        self.changes = [(e.id, r) for e in ok if e.tool == "changelog" for r in rows_of(e, ChangeRecord)]
        self.alarm_ids = [e.id for e in ok if e.tool == "alarms"]
        self.change_ids = [e.id for e in ok if e.tool == "changelog"]
        self.owners = {e.args.get("ip"): (e.id, rows_of(e, IpOwner)[0]) for e in ok
                       if e.tool == "metadata" and e.args.get("query") == "ip" and e.rows}
        self._geometry()

    def _as_then(self, r: AlarmRecord) -> AlarmRecord:
        """An alarm as it stood at the end of a past window: open if it cleared after it."""
        end = _time(self.window.get("end")) if self.at and isinstance(self.window, dict) else None
        cleared = _time(r.get("cleared_at")) if r.get("cleared_at") else None
        if end is None or cleared is None or cleared <= end or r.get("state") != "closed":
            return r
        return {**r, "state": "open"}

    def _geometry(self) -> None:
        f = trace_of(self.main)
        self.pos: dict[str, int] = {}
        for level, names in ((NEAR, [*self._before(), *self.neighbours()]),
                             (ECMP, f.get("ecmp_devices") or []),
                             (PATH, [*(f.get("path_devices") or []), *self.endpoints()]),
                             (STOP, [*self.stops(), *([self.focus] if self.focus else [])])):
            for n in names:
                self.pos[n] = max(self.pos.get(n, 0), level)

    def _before(self) -> list[str]:
        """The flow's devices before the alarms began (a trace back in time): a down link or
        dead device drops out of today's paths but was on them. Without that trace, the far
        ends of open alarms on today's paths stand in."""
        if self.before is not None and not self.before.errors:
            f = trace_of(self.before)
            return [*(f.get("ecmp_devices") or []), *(f.get("path_devices") or [])]
        f = trace_of(self.main)
        flow = {*(f.get("ecmp_devices") or []), *(f.get("path_devices") or []), *self.stops()}
        return [b for _, r in self.alarms.values() if r["state"] == "open" and (p := r.get("peer"))
                for a, b in ((r["device"], p), (p, r["device"])) if a in flow]

    def widen(self) -> None:
        """Trace the flow as it was just before the earliest alarm that has an end off
        today's paths; one tool call, only when such an alarm exists."""
        if self.main is None or self.before is not None:
            return
        loose = [r for _, r in self.alarms.values()
                 if (r["state"] == "open" or r["kind"] in ("DEVICE_REBOOT", "LINK_DOWN"))
                 and min(self.pos.get(r["device"], 0),
                         self.pos.get(r.get("peer") or r["device"], 0)) < ECMP]
        if not loose:
            return
        first = min(str(r["raised_at"]) for r in loose)
        at = (datetime.fromisoformat(first.replace("Z", "+00:00")) - timedelta(minutes=1))
        args = {"src": self.main.args["src"], "dst": self.main.args["dst"],
                "at": at.strftime("%Y-%m-%dT%H:%M:%SZ")}
        self.before = self.call("traceroute", args)
        self._derive()

    @property
    def scope(self) -> str:
        """What the diagnosis is about, as its findings name it."""
        return f"{self.focus} and its links" if self.focus else "the flow's devices"

    @property
    def probes(self) -> str:
        return f"the probes through {self.focus}" if self.focus else "the traced path"

    def neighbours(self) -> list[str]:
        """The focus device's neighbours (a device diagnosis): their links to it are its links."""
        return [r["neighbor"] for e in self.evidence if self.focus and not e.errors
                and e.tool == "metadata" and e.args.get("query") == "neighbors"
                and e.args.get("name") == self.focus for r in rows_of(e, Neighbor)]

    def endpoints(self) -> list[str]:
        return [x for _, row in self.owners.values() for x in (row.get("device"), row.get("tor")) if x]

    def stops(self) -> list[str]:
        """Where the flow breaks: the trace's stop, and where failing equal-cost paths fail."""
        out = []
        for t in self.traces:
            f = trace_of(t)
            if not f.get("reached") and (at := f.get("stopped_at")):
                out.append(at)
            if failing := f.get("failing"):
                out.append(failing["device"])
        return out

    def position(self, device: str | None, peer: str | None = None) -> int:
        return max(self.pos.get(device or "", 0), self.pos.get(peer or "", 0))

    def alarm_position(self, r: AlarmRecord) -> int:
        """0 unless the alarm is about this flow: its device, and the far end of its link,
        are (or were, before the alarms) on the flow's paths. Else the closer end's level."""
        peer = r.get("peer")
        if peer and not self.pos.get(peer):
            return 0
        return self.position(r["device"], peer) if self.pos.get(r["device"]) else 0

    def alarms_of(self, kinds: set[str], state: str = "open",
                  categories: set[str] | None = None) -> list[tuple[str, AlarmRecord, int]]:
        """Alarms of these kinds about this flow (position >= 1), closest to the flow first."""
        out = [(eid, r, self.alarm_position(r)) for eid, r in self.alarms.values()
               if r["kind"] in kinds and (state == "any" or r["state"] == state)
               and (categories is None or r["category"] in categories)]
        return sorted([x for x in out if x[2] > 0],
                      key=lambda x: (-x[2], -self.pos.get(x[1]["device"], 0), str(x[1]["raised_at"])))

    def reporting(self) -> set[str]:
        """Devices that raised open alarms of their own (other than being unreachable): they
        are alive, whatever their neighbours' link alarms suggest."""
        return {r["device"] for _, r in self.alarms.values()
                if r["state"] == "open" and r["kind"] != "DEVICE_UNREACHABLE"}

    def changes_on(self, device: str | None) -> list[tuple[str, ChangeRecord]]:
        return [(eid, r) for eid, r in self.changes if r["device"] == device]

    def stop_hop(self, trace: Evidence | None = None) -> Hop:
        """The trace's last hop; with none, an empty row (read with .get: it holds no key)."""
        t = trace or self.main
        return rows_of(t, Hop)[-1] if t and t.rows else cast(Hop, {})

    def symptom_text(self) -> str:
        """The incident's symptoms as words, for incident memory (BM25) to match."""
        words: list[str] = []
        for t in self.traces:
            f = trace_of(t)
            words.append("reached" if f.get("reached") else "unreachable")
            if not f.get("reached"):
                words += [f"stop {self.stop_hop(t).get('status', '')}", f"at {f.get('stopped_at')}"]
            if failing := f.get("failing"):
                words.append(f"ecmp failing at {failing['device']} {failing['reason']}")
            if any(h.get("loss_pct") for h in rows_of(t, Hop)):
                words.append("loss")
        for _, r in self.alarms.values():
            if self.alarm_position(r) and (r["state"] == "open" or r["kind"] == "DEVICE_REBOOT"):
                words.append(f"{r['kind']} {r['category']} {r['device']} {r.get('interface') or ''}")
        return " ; ".join(w.strip() for w in words)
