"""Copilot: the one API every front end uses. `ask` streams typed steps (planner decision,
tool calls with their evidence, coder runs, the answer); conversations are LangGraph threads
kept by a checkpointer, so a thread resumes after a restart. `thread` reads a conversation and
`confirm` puts its diagnosis into incident memory: nothing outside reaches into the graph."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from netopsai.backends.base import Backends
from netopsai.common.errors import NetopsError
from netopsai.copilot.doors import Doors
from netopsai.copilot.evidence import citations
from netopsai.copilot.graph import build_graph
from netopsai.copilot.nodes import start_turn
from netopsai.copilot.payload import Answer, EvidenceDump, dumps_of
from netopsai.copilot.steps import Step, step_data
from netopsai.copilot.toolbox import Toolbox
from netopsai.diagnosis.knowledge import Knowledge

if TYPE_CHECKING:  # typing only: these imports cost a second at start-up
    from langchain_core.language_models import BaseChatModel
    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from netopsai.store.tables import Incident


class AskLimits(BaseSettings):
    """How much one question may ask of the copilot, checked at its one door before any work
    (issue 23, B6): its length (NETOPSAI_MAX_QUESTION characters; a question is a few lines,
    not a pasted log) and its time (NETOPSAI_ASK_BUDGET_S seconds, checked between the
    graph's steps)."""

    model_config = SettingsConfigDict(env_prefix="NETOPSAI_", extra="ignore")

    max_question: int = Field(default=4000, ge=1)
    max_window: int = Field(default=200, ge=1)  # a time picker's window in words
    ask_budget_s: float = Field(default=300.0, gt=0)

    @classmethod
    def from_env(cls) -> AskLimits:
        try:
            return cls()
        except ValidationError as exc:
            err = exc.errors()[0]
            raise NetopsError(f"NETOPSAI_{str(err['loc'][0]).upper()}: {err['msg']}") from None


class Stopped(NetopsError):
    """An answer stopped between two steps: its caller went away, the server is stopping, or
    its time budget ran out."""


Stop = Callable[[], bool]  # asked between steps: True means stop now


def sqlite_saver(home: Path) -> BaseCheckpointSaver[Any]:
    from langgraph.checkpoint.sqlite import SqliteSaver

    from netopsai.config.settings import private_dir

    conn = sqlite3.connect(private_dir(home) / "checkpoints.db", check_same_thread=False)
    return SqliteSaver(conn)


def postgres_saver(url: str) -> BaseCheckpointSaver[Any]:
    """Threads in the team's PostgreSQL store (langgraph-checkpoint-postgres), through a small
    connection pool: serve, slack and api processes on several machines share conversations."""
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    conninfo = url.replace("postgresql+psycopg://", "postgresql://", 1)
    pool: ConnectionPool[Any] = ConnectionPool(
        conninfo, min_size=1, max_size=8, open=True,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row})
    saver = PostgresSaver(pool)
    saver.setup()  # its own tables, versioned by the library
    return saver


def saver_for(url: str, home: Path) -> BaseCheckpointSaver[Any]:
    """Where threads live: beside the store (PostgreSQL), or in NETOPSAI_HOME (SQLite)."""
    return postgres_saver(url) if url.startswith("postgresql") else sqlite_saver(home)


@dataclass(frozen=True)
class Turn:
    """One question of a conversation: the steps that answered it (when the checkpoints still
    hold them), its answer (None: left unanswered, the server stopped) and the evidence ids
    the answer cites."""

    question: str
    steps: list[Step]
    answer: str | None
    evidence: list[str]


@dataclass(frozen=True)
class Thread:
    """A conversation as its checkpoint keeps it (empty for a thread never asked in)."""

    id: str
    state: dict[str, Any]
    trail: list[list[Step]] = field(default_factory=list)  # each turn's steps (Copilot.trail)

    @property
    def turns(self) -> list[Turn]:
        """Every turn, oldest first, from the conversation's messages; each turn's steps only
        when the trail holds as many turns as there are questions."""
        asked = [m for m in self.state.get("messages", []) if m.type == "human"]
        steps = iter(self.trail if len(self.trail) == len(asked) else [])
        out: list[Turn] = []
        for m in self.state.get("messages", []):
            if m.type == "human":
                out.append(Turn(str(m.content), next(steps, []), None, []))
            elif m.type == "ai" and m.content and not getattr(m, "tool_calls", None) and out:
                text = str(m.content)
                out[-1] = replace(out[-1], answer=text, evidence=citations(text))
        return out

    @property
    def intent(self) -> str:
        return str(self.state.get("intent") or "")

    @property
    def entities(self) -> dict[str, Any]:
        return dict(self.state.get("entities") or {})

    @property
    def question(self) -> str:
        return str(self.state.get("question", ""))

    @property
    def answer(self) -> str:
        return str(self.state.get("answer", ""))

    @property
    def diagnosis(self) -> dict[str, Any] | None:
        return self.state.get("diagnosis")

    @property
    def evidence(self) -> list[EvidenceDump]:
        """Every evidence record of the conversation, E1 on (their JSON form: payload.py)."""
        return dumps_of(list(self.state.get("evidence", [])))

    @property
    def turn_evidence(self) -> list[EvidenceDump]:
        """The evidence the last question gathered."""
        return self.cited(self.state.get("turn", []))

    def cited(self, ids: Iterable[str]) -> list[EvidenceDump]:
        wanted = set(ids)
        return [e for e in self.evidence if e["id"] in wanted]


class Copilot(Doors):
    """The one door: conversations (`ask`, `answer`, `thread`, `confirm`) and the rest a
    front end reaches (`tool`, acks and silences, snapshots: doors.py)."""

    def __init__(self, backends: Backends, llm: BaseChatModel | None = None,
                 checkpointer: BaseCheckpointSaver[Any] | None = None,
                 knowledge: Knowledge | None = None, limits: AskLimits | None = None) -> None:
        self.limits = limits or AskLimits.from_env()
        self.toolbox = Toolbox(backends)
        self.llm = llm
        self.knowledge = knowledge or Knowledge()
        if checkpointer is None:
            from langgraph.checkpoint.memory import InMemorySaver

            checkpointer = InMemorySaver()
        self.graph = build_graph(llm, self.toolbox, self.knowledge).compile(checkpointer=checkpointer)

    @property
    def backends(self) -> Backends:
        return self.toolbox.backends

    def thread(self, thread_id: str, steps: bool = False) -> Thread:
        """A conversation's saved state (the checkpointer keeps it across restarts); `steps`:
        with each turn's steps too (read from the checkpoints' history)."""
        saved = self.graph.get_state({"configurable": {"thread_id": thread_id}})
        return Thread(thread_id, dict(saved.values), self.trail(thread_id) if steps else [])

    def seed(self, source: str, thread_id: str) -> Thread:
        """Start `thread_id` with `source`'s conversation (its turns, evidence and context), so a
        question asked there follows on from it ("and its upstream switch?"); `source` is left
        as it was. Used by the web app to go on from a Slack thread without writing to it."""
        saved = self.thread(source)
        if saved.state:
            self.graph.update_state({"configurable": {"thread_id": thread_id}}, saved.state,
                                    as_node="summarizer")
        return self.thread(thread_id)

    def trail(self, thread_id: str) -> list[list[Step]]:
        """The steps of every turn of a saved thread, oldest first, as `ask` yielded them
        (durations from the checkpoints' times), so a resumed conversation shows how each
        answer was found. The checkpointer's history holds each node's writes."""
        config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
        snaps = list(reversed(list(self.graph.get_state_history(config))))
        turns: list[list[Step]] = []
        for snap, after in zip(snaps, snaps[1:], strict=False):
            for task in snap.tasks:
                if task.name == "__start__":
                    turns.append([])
                elif turns and isinstance(task.result, dict):
                    ms = (_when(after.created_at) - _when(snap.created_at)) * 1000
                    turns[-1].append(Step(task.name, step_data(task.name, task.result), ms))
        return turns

    def confirm(self, thread_id: str, who: str, source: str) -> Incident:
        """The on-call agrees with the thread's last diagnosis: it joins incident memory.
        A thread with no diagnosis, or none with a root cause, is a NetopsError."""
        from netopsai.diagnosis.history import confirm

        thread = self.thread(thread_id)
        memory = self.knowledge.incident_memory(create=True)
        if memory is None:
            from netopsai.common.errors import NetopsError

            raise NetopsError("incident memory is switched off for this copilot")
        return confirm(memory, thread.diagnosis, who, source, thread.question)

    def warm_up(self) -> None:
        """For long-lived front ends: start the sandbox's warm worker now, in the background,
        so the first analysis does not pay for a fresh interpreter importing pandas."""
        from netopsai.sandbox import prestart

        prestart()

    def check_question(self, question: str, window_hint: str = "") -> None:
        """Sized at the door, before anything reads it: a question longer than the limit is a
        one-line NetopsError every front end shows as it shows bad input."""
        limit = self.limits.max_question
        if len(question) > limit:
            raise NetopsError(f"the question is {len(question):,} characters; at most {limit:,} "
                              "are read (NETOPSAI_MAX_QUESTION): ask about one thing in a few "
                              "lines, naming its devices, addresses or job and the time")
        if len(window_hint) > self.limits.max_window:
            raise NetopsError(f"the time window is {len(window_hint):,} characters; at most "
                              f"{self.limits.max_window} are read")

    def ask(self, question: str, thread_id: str = "default", user: str | None = None,
            window_hint: str = "", stop: Stop | None = None) -> Iterator[Step]:
        """Answer one question in a thread, yielding each step as it completes. `window_hint`:
        a time picker's window in words ("in the last 6h", "between … and …"), used when the
        question names none. Between steps the answer stops (Stopped) when `stop()` says so
        or the time budget is spent; the checkpoint keeps the steps done."""
        self.check_question(question, window_hint)
        config: RunnableConfig = {"configurable": {"thread_id": thread_id},
                                  "metadata": {"user": user or ""}}
        t0 = last = time.perf_counter()
        budget = self.limits.ask_budget_s
        _check_stop(stop, t0, t0 + budget, budget)
        updates = self.graph.stream(start_turn(question, window_hint), config, stream_mode="updates")
        try:
            for update in updates:
                now = time.perf_counter()
                for node, delta in update.items():
                    yield Step(node, step_data(node, delta or {}), (now - last) * 1000)
                last = now
                if "summarizer" not in update:  # the answer is written: nothing left to stop
                    _check_stop(stop, time.perf_counter(), t0 + budget, budget)
        finally:  # stopping early ends the graph's run, not just our loop
            if close := getattr(updates, "close", None):
                close()
        yield Step("done", {"elapsed_ms": round((time.perf_counter() - t0) * 1000, 1)})

    def answer(self, question: str, thread_id: str = "default", user: str | None = None,
               window_hint: str = "", stop: Stop | None = None) -> Answer:
        """The whole answer as `ask --json` prints it (shared/specs/cli-and-evidence.md): an
        `Answer` with its steps and time (payload.py)."""
        steps = list(self.ask(question, thread_id, user, window_hint, stop))
        out = self.result(thread_id)
        out["steps"] = [s.as_dict() for s in steps[:-1]]
        out["elapsed_ms"] = steps[-1].data["elapsed_ms"]
        return out

    def result(self, thread_id: str) -> Answer:
        """The thread's last answer as `ask --json` has it, less the steps and the time (a
        streaming front end has sent those already)."""
        thread = self.thread(thread_id)
        state, diag, answer = thread.state, thread.diagnosis, thread.answer
        return {"answer": answer,
                "root_cause": {"label": diag["label"], "device": diag["device"],
                               "interface": diag["interface"], "confidence": diag["confidence"]}
                if diag else None,
                "ruled_out": diag.get("ruled_out", []) if diag else None,
                "citations": citations(answer), "evidence": thread.turn_evidence,
                "tokens": state.get("tokens", {"prompt": 0, "completion": 0}),
                "llm_calls": state.get("llm_calls", 0),
                "intent": state.get("intent"), "input_errors": state.get("input_errors", [])}


def _check_stop(stop: Stop | None, now: float, deadline: float, budget: float) -> None:
    if stop is not None and stop():
        raise Stopped("the answer was stopped: its caller went away or the server is stopping")
    if now > deadline:
        raise Stopped(f"no answer within {budget:g} s, the time budget for one question "
                      "(NETOPSAI_ASK_BUDGET_S): ask about fewer devices or a shorter window")


def _when(stamp: str | None) -> float:
    from datetime import datetime

    return datetime.fromisoformat(stamp).timestamp() if stamp else 0.0
