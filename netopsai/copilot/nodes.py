"""The graph's nodes: planner, tools, coder, diagnose, summarizer. Each takes the state and
returns an update; the graph (graph.py) wires them and decides where to go next."""

from __future__ import annotations

import logging
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from netopsai.copilot.evidence import Evidence, Ledger, validate_citations
from netopsai.copilot.routing import DEVICE, DIAGNOSE, JOB, MAX_ITERATIONS, after_tool_round
from netopsai.copilot.state import CopilotState
from netopsai.copilot.summarizer import render
from netopsai.copilot.toolbox import Toolbox
from netopsai.diagnosis.base import Diagnosis
from netopsai.diagnosis.context import asked, asked_at, baseline_calls
from netopsai.diagnosis.knowledge import Knowledge
from netopsai.planner import Entities, Plan, plan

log = logging.getLogger(__name__)
SINCE_CHANGE_LOOKBACK = "7d"  # how far back "since the change" looks for its change record


def turn_evidence(state: CopilotState) -> list[Evidence]:
    ids = set(state.get("turn", []))
    return [Evidence.model_validate(e) for e in state.get("evidence", []) if e["id"] in ids]


def open_ledger(state: CopilotState) -> int:
    """A new turn's ledger (the planner's first step opens it): ids are per conversation, so
    it continues after the evidence the thread holds. The state carries it as its last number."""
    return Ledger.following(state.get("evidence", [])).last


def _ledger(state: CopilotState) -> Ledger:
    """The turn's ledger, as the state carries it (each node that mints hands `last` back)."""
    return Ledger.carried(state["ledger"])


def _entities(state: CopilotState) -> Entities | None:
    raw = state.get("entities")
    return Entities(**raw) if raw else None


def offline_plan(state: CopilotState, tb: Toolbox) -> dict[str, Any]:
    """The rules planner's first step for a new question; the window it read, as the answer's
    first line states it (in the zone the question used)."""
    from netopsai.planner.window_text import window_line

    clock, zone = tb.clock(), tb.backends.zone

    def read(question: str) -> Plan:
        return plan(question, tb.vocab(), clock, _entities(state), state.get("last_intent"), zone,
                    lambda ent: latest_change(tb, ent, clock), lambda ent: last_seen(tb, ent, clock),
                    lambda: tb.backends.inventory.jobs(None, None))
    p = read(state["question"])
    hint = state.get("window_hint")
    if hint and p.entities.window is None:  # the picker's window, read as if the question said it
        p = read(f"{state['question']} {hint}")
    said = p.entities.window is not None and p.intent != "unknown"
    return {"intent": p.intent, "recipe": p.recipe, "entities": asdict(p.entities),
            "pending": [{"tool": c.tool, "args": c.args} for c in p.calls],
            "notes": [note] if (note := _without(p.note, p.entities.problems)) else [],
            "phase": "planned",
            "window_text": window_line(p.entities.window, p.entities.zone or zone, clock)
            if said else "", "input_errors": list(p.entities.problems),
            "read_as": [f"read {typed!r} as {name}" for typed, name in p.entities.corrections.items()
                        if typed.lower() != name.lower()]}


def _without(note: str, problems: list[str]) -> str:
    """The plan's note less the bad input, which leads the answer instead (_lead)."""
    for x in problems:
        note = note.replace(x if x.endswith((".", "?", "!")) else x + ".", "")
    return " ".join(note.split())


def last_seen(tb: Toolbox, ent: Entities, clock: datetime) -> datetime | None:
    """When the question's devices (its port, if it names one) last logged anything, or later
    raised an alarm or had a change in the last week: a device with old log lines but fresh
    alarms or changes is live, not a log file loaded after the fact. None: it never logged."""
    from netopsai.common.timewin import Window, as_utc, parse_window

    def at(value: str) -> datetime:
        return as_utc(datetime.fromisoformat(value.replace("Z", "+00:00")))

    rows, _ = tb.backends.alarms.events(ent.devices, Window(start=datetime(1970, 1, 1, tzinfo=UTC),
                                                            end=clock),
                                        interface=ent.interfaces[0] if ent.interfaces else None,
                                        limit=1)
    if not rows:
        return None
    week = parse_window("7d", clock)
    alarms = tb.backends.alarms.alarms(None, "any", ent.devices, None, week)
    changes = tb.backends.changes.changes(ent.devices, None, None, week)
    return max([at(rows[-1]["at"]), *(at(a["raised_at"]) for a in alarms if a.get("raised_at")),
                *(at(c["start"]) for c in changes if c.get("start"))])


def latest_change(tb: Toolbox, ent: Entities, clock: datetime) -> tuple[str, str] | None:
    """The latest change record of the last week in the question's scope (its devices, its
    one site, its ticket): where "since the maintenance window" starts."""
    from netopsai.common.localtime import at as shown
    from netopsai.common.timewin import parse_window

    rows = tb.backends.changes.changes(ent.devices or None, ent.sites[0] if len(ent.sites) == 1
                                       else None, ent.tickets[0] if ent.tickets else None,
                                       parse_window(SINCE_CHANGE_LOOKBACK, clock))
    if not rows:
        return None
    last = max(rows, key=lambda r: r["start"])
    started = shown(last["start"], tb.backends.zone, beside=True)  # read by a person: zone named
    return last["start"], (f"change {last['ticket']} on {last['device']} (\"{last['summary']}\", "
                           f"started {started})")


def diagnosis_checks(state: CopilotState) -> list[dict[str, Any]]:
    """After the traceroute: the diagnosis engine's baseline evidence (changes and alarms on
    the flow, open alarms, the destination's owner, a jumbo probe), in one concurrent round,
    over the question's window (and the flow traced at its moment, for a past one)."""
    traces = [e for e in turn_evidence(state) if e.tool == "traceroute"]
    return baseline_calls(traces, *_asked(state, traces))


def _asked(state: CopilotState, traces: list[Evidence]) -> tuple[Any, str | None]:
    """The window every read of the diagnosis takes, and the moment it traces: the planner's."""
    ent = _entities(state)
    return asked(traces, ent.window if ent else None, ent.at if ent else None)


def tools_node(state: CopilotState, tb: Toolbox) -> dict[str, Any]:
    ledger = _ledger(state)
    done = tb.run(state.get("pending", []), ledger)
    phase = after_tool_round(state)
    return {"evidence": [e.model_dump(mode="json") for e in done], "ledger": ledger.last,
            "turn": [*state.get("turn", []), *(e.id for e in done)], "pending": [],
            "phase": phase, "iterations": state.get("iterations", 0) + 1}


def coder_node(state: CopilotState, llm: Any = None) -> dict[str, Any]:
    """Analysis over this turn's evidence tables, in the sandbox: a recipe offline, generated
    code with an LLM. Its Evidence is cited like any tool's."""
    from netopsai.copilot.coder import run_generated, run_recipe

    inputs = [e for e in turn_evidence(state) if not e.errors]
    if llm is not None and state.get("llm") in ("active", "done"):
        ev = run_generated(llm, state["question"], inputs)
    else:
        ev = run_recipe(str(state.get("recipe")), inputs, state["question"])
    ledger = _ledger(state)
    ev.id = ledger.mint()  # the recipe numbers it after its inputs; the turn's ledger decides
    return {"evidence": [ev.model_dump(mode="json")], "turn": [*state.get("turn", []), ev.id],
            "ledger": ledger.last}


def diagnose_node(state: CopilotState, tb: Toolbox | None = None, llm: Any = None,
                  knowledge: Knowledge | None = None) -> dict[str, Any]:
    """The diagnosis engine over this turn's evidence. Its own tool calls (checks that need
    more than the baseline) become evidence of the turn like any other, cited the same way."""
    from netopsai.diagnosis.context import Context
    from netopsai.diagnosis.device import DEVICE_BUDGET, DEVICE_WINDOW, diagnose_device
    from netopsai.diagnosis.engine import run_engine
    from netopsai.diagnosis.rank import Ranker

    ledger = _ledger(state)
    run = tb.runner(ledger) if tb is not None else None
    model = llm if state.get("llm") in ("active", "done") else None
    know = knowledge or Knowledge()
    focus, ent = _focus(state), _entities(state)
    if state.get("intent") == JOB and ent is not None:
        from netopsai.diagnosis.job import JOB_BUDGET, diagnose_job
        from netopsai.diagnosis.job_rails import Tracer

        ctx = Context(turn_evidence(state), run, state["question"], None,
                      JOB_BUDGET + len(state.get("turn", [])))
        rails = Tracer(tb.backends.paths, ledger.mint) if tb is not None else None
        d = diagnose_job(ctx, ent.jobs[0] if ent.jobs else None, ent.devices, ent.window,
                         ent.at, rails)
    elif focus:  # the question's window and moment drive its reads too (issue 25 item 1)
        said = asked_at(None, ent.window if ent else None, ent.at if ent else None, DEVICE_WINDOW)
        window, at = asked_at(tb.clock() if tb is not None else None, said[0],  # as device_calls
                              ent.at if ent else None, DEVICE_WINDOW)
        ctx = Context(turn_evidence(state), run, state["question"], focus,
                      DEVICE_BUDGET + len(state.get("turn", [])), window, at)
        d = diagnose_device(ctx, focus, know.taxonomy, Ranker(model))
    else:
        ev = turn_evidence(state)
        window, at = _asked(state, [e for e in ev if e.tool == "traceroute"])
        ctx = Context(ev, run, state["question"], window=window, at=at)
        d = run_engine(ctx, "full", know.incident_memory(), know.taxonomy, Ranker(model))
    d.tool_calls = len(state.get("turn", [])) + ctx.tool_calls
    tokens = state.get("tokens") or {"prompt": 0, "completion": 0}
    return {"diagnosis": asdict(d), "evidence": [e.model_dump(mode="json") for e in ctx.new],
            "ledger": ledger.last,
            "turn": [*state.get("turn", []), *(e.id for e in ctx.new)],
            "llm_calls": state.get("llm_calls", 0) + d.llm_calls,
            "tokens": {k: tokens.get(k, 0) + d.tokens.get(k, 0) for k in tokens}}


def _focus(state: CopilotState) -> str | None:
    """The device of a device diagnosis (None for a flow's)."""
    ent = _entities(state)
    if state.get("intent") != DEVICE or ent is None or len(ent.devices) != 1:
        return None
    return ent.devices[0]


def _diagnosis(state: CopilotState) -> Diagnosis | None:
    d = state.get("diagnosis")
    return Diagnosis.from_dict(d) if d else None


def summarize(state: CopilotState, zone: str = "UTC") -> str:
    return render(turn_evidence(state), _diagnosis(state), state.get("notes", []), zone)


def llm_plan(state: CopilotState, tb: Toolbox, planner: Any, first: bool) -> dict[str, Any]:
    """One LLM planner step. The offline plan is kept for routing (intent), as the fallback
    when the model fails (the answer then says the offline planner took the turn), and as the
    floor for a question it recognises: a model that plans nothing, or only other tools, does
    not leave the on-call with less than the offline planner would have found."""
    from netopsai.planner.llm_names import needs_floor, read_names, with_floor

    base = offline_plan(state, tb) if first else {}
    history = state.get("messages", [])[:-1]
    question, hint = state["question"], state.get("window_hint")
    if hint:
        question += f"\n(The on-call's time picker says {hint!r}: use it if the question names no window.)"
    d = planner.plan(question, tb.clock(), history, turn_evidence(state), vocab=tb.vocab())
    tokens = state.get("tokens") or {"prompt": 0, "completion": 0}
    out: dict[str, Any] = {**base, "llm_calls": state.get("llm_calls", 0) + d.llm_calls,
                           "tokens": {k: tokens.get(k, 0) + d.tokens.get(k, 0) for k in tokens}}
    out.update(read_names(d, base, state))  # "Read 'X' as Y" for names in the model's calls
    if d.fallback_reason:
        done = ("the offline planner answered" if first else
                "the answer is written from the evidence gathered so far")
        note = f"The LLM was not usable this turn ({d.fallback_reason}); {done}."
        pending = base.get("pending", []) if first else _missing_checks(state)
        return {**out, "pending": pending, "llm": "fallback",
                "notes": [*(base.get("notes") or state.get("notes", [])), note]}
    floor = base.get("pending", [])  # what the offline planner would look up (first turn)
    if d.done and first and floor:  # a weak model answers from nothing: the evidence comes first
        note = ("The model planned no lookup for a question the offline planner knows; its "
                "calls ran instead.")
        return {**out, "pending": floor, "llm": "done", "llm_text": "",
                "notes": [*(base.get("notes") or []), note]}
    if d.done:
        return {**out, "pending": _missing_checks(state), "llm": "done", "llm_text": d.text}
    pending = [{"tool": c.tool, "args": c.args} for c in d.calls]
    if first and floor and needs_floor(state["question"], base.get("intent"), base.get("entities")):
        pending = with_floor(pending, floor)  # learned offline: never less than its calls
    elif first and floor and not {c["tool"] for c in floor} & {c["tool"] for c in pending}:
        pending += floor  # the model looked elsewhere: the offline plan is the floor
        out["notes"] = [*(base.get("notes") or []), "The model's calls missed what the question "
                        "asks about; the offline planner's calls were added."]
    if first and base.get("intent") == DIAGNOSE:
        # the model plans the first step; verification (checks on the path) is the engine's,
        # so the model is not asked again until it writes the answer
        if not any(c["tool"] == "traceroute" for c in pending):
            pending += [c for c in base.get("pending", []) if c["tool"] == "traceroute"]
        return {**out, "pending": pending, "llm": "done", "llm_text": ""}
    return {**out, "pending": pending, "llm": "active"}


def _missing_checks(state: CopilotState) -> list[dict[str, Any]]:
    """A connectivity diagnosis always verifies: changes and alarms on the path, whoever plans."""
    if state.get("intent") != DIAGNOSE:
        return []
    have = {e.tool for e in turn_evidence(state)}
    return [] if {"changelog", "alarms"} <= have else diagnosis_checks(state)


def summarizer_node(state: CopilotState, llm: Any = None, zone: str = "UTC") -> dict[str, Any]:
    """The answer; the times it says in `zone`, the network's."""
    notes = list(state.get("notes", []))
    if state.get("iterations", 0) >= MAX_ITERATIONS and state.get("phase") not in ("checked", "done"):
        notes.append(f"Stopped after {MAX_ITERATIONS} rounds of tool calls (the step limit); the "
                     "answer uses what was gathered so far.")
    state = {**state, "notes": notes}
    out: dict[str, Any] = {}
    answer = None
    if llm is not None and state.get("llm") in ("active", "done") and state.get("turn"):
        answer, out = _llm_answer(state, llm, zone)
    if answer is None:
        answer = summarize(state, zone)
        if not state.get("turn") and not state.get("notes"):
            answer = "_Nothing to look up for this question._"
    problems = validate_citations(answer, {e["id"] for e in state.get("evidence", [])})
    if problems:  # the templates cite by construction: this is our bug, say so, don't hide it
        log.error("answer failed the citation check: %s", problems)
        answer += f"\n\n_Citation check failed: {problems[0]}_"
    answer = _lead(state) + _verdict(state, zone) + answer
    return {**out, "answer": answer, "phase": "done", "last_intent": state.get("intent"),
            "messages": [AIMessage(content=answer)]}


def _lead(state: CopilotState) -> str:
    """What the on-call must see before the answer: bad input in the question (the answer is
    about what was left), names read as other names, and the window the question named."""
    lines = [f"**{x}**" for x in state.get("input_errors") or []]
    lines += [f"_{x[:1].upper()}{x[1:]}._" for x in state.get("read_as") or []]
    if state.get("window_text"):
        lines.append(f"_{state['window_text']}_")
    return "".join(f"{x}\n\n" for x in lines)


def _verdict(state: CopilotState, zone: str) -> str:
    """"Is the network ok?" gets its answer first, whoever wrote the rest (verdict.py)."""
    if state.get("intent") != "overview":
        return ""
    from netopsai.copilot.verdict import verdict

    line = verdict(turn_evidence(state), zone)
    return f"{line}\n\n" if line else ""


def _llm_answer(state: CopilotState, llm: Any, zone: str = "UTC") -> tuple[str | None, dict[str, Any]]:
    from netopsai.copilot.summarizer import conclusion
    from netopsai.copilot.summarizer_llm import write

    evidence = turn_evidence(state)
    diag = _diagnosis(state)
    draft = "" if diag else state.get("llm_text", "")  # a diagnosis is the engine's, not the LLM's
    w = write(llm, state["question"], evidence, conclusion(diag) if diag else "",
              {e.id for e in evidence}, draft, zone)
    tokens = state.get("tokens") or {"prompt": 0, "completion": 0}
    out = {"tokens": {k: tokens.get(k, 0) + w.tokens.get(k, 0) for k in tokens},
           "llm_calls": state.get("llm_calls", 0) + w.llm_calls}
    if w.answer is None:
        state["notes"].append(w.note)
        return None, out
    notes = "".join(f"\n\n_{n}_" for n in state.get("notes", []) if n)
    return w.answer + notes, out


def start_turn(question: str, window_hint: str = "") -> dict[str, Any]:
    """The input that starts a new turn: overwrite last turn's working values. `window_hint`:
    a front end's time picker as words ("in the last 6h"), for a question that names no window."""
    return {"question": question, "turn": [], "pending": [], "iterations": 0, "notes": [],
            "diagnosis": None, "answer": "", "phase": "start", "recipe": None,
            "messages": [HumanMessage(content=question)], "tokens": {"prompt": 0, "completion": 0},
            "llm_calls": 0, "llm": "", "llm_text": "", "window_text": "", "input_errors": [],
            "read_as": [], "window_hint": window_hint}
