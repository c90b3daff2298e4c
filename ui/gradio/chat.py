"""The Chat tab's handler: a question streams through `Copilot.ask`; each planner decision, tool
call, coder run and diagnosis becomes a collapsible step, then the answer arrives with its
citations linked to the evidence panel, and the plot / path views when the turn has them."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd
from gradio import ChatMessage

from netopsai.common.errors import NetopsError
from netopsai.common.words import count
from netopsai.copilot import threads
from netopsai.copilot.payload import EvidenceDump, dumps_of
from netopsai.copilot.service import Copilot, Thread
from netopsai.ui.gradio.evhead import evidence_header, evidence_list_words
from netopsai.ui.gradio.headline import headline, headline_html
from netopsai.ui.gradio.nextmove import examples, next_questions, page_draft, short_unplaced, tag_ruled_out
from netopsai.ui.gradio.steps import step_messages
from netopsai.ui.gradio.views import (
    evidence_html,
    inert,
    link_citations,
    link_devices,
    path_html,
    split_details,
    telemetry_plot,
    trace_of,
)

log = logging.getLogger(__name__)
NEXT = {"planner": "running tools", "tools": "planning the next step", "coder": "analysing",
        "diagnose": "writing the answer", "summarizer": "finishing"}


@dataclass
class ChatView:
    """Everything the Chat tab shows after one update."""

    history: list[Any]
    evidence: str = ""
    plot: tuple[str, pd.DataFrame] | None = None
    path: str = ""
    status: str = ""
    turn_evidence: list[EvidenceDump] = field(default_factory=list)
    headline: str | None = None  # the pinned line's HTML (headline.headline_html); None: as it is
    next: list[str] | None = None  # the follow-up chips' questions (nextmove); None: as they are


def new_thread() -> str:
    """One conversation thread per browser session; ids are unguessable so threads stay private."""
    return threads.new_id("web")


THREAD_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def thread_key(thread: str, user: str | None) -> str:
    """A web thread's id in the store, always under `web:`: with login on each user's threads
    are their own (`web:NAME:ID`); without it the web's are kept apart from every other front
    end's (`web:anonymous:ID`), so an id from the API, MCP, Slack or the owner's CLI opens
    nothing here. An id that is not a web one (`api:tok:…`, `slack:…`) is refused, in one line."""
    if not THREAD_ID.fullmatch(thread):
        raise NetopsError(f"{thread[:40]!r} is not a web thread id (letters, digits, - and _; "
                          "threads of the API, MCP or Slack are not opened here)")
    return threads.key("web", user or "anonymous", thread)


def page_thread(asked: str) -> tuple[str, str]:
    """The thread a page keeps after opening `asked` (a link's ?thread=, the resume box): the
    id itself when it is a web one, a fresh one when none was asked; a refused id (another
    front end's, `api:…`) is never kept, or every next question would fail until "New
    thread": a fresh web thread starts instead, with the one-line notice why (else "")."""
    asked = (asked or "").strip()
    if not asked:
        return new_thread(), ""
    try:
        thread_key(asked, None)
    except NetopsError as exc:
        fresh = new_thread()
        return fresh, inert(f"{exc}; a new thread `{fresh}` starts instead")
    return asked, ""


def _pending(what: str) -> ChatMessage:
    return ChatMessage(f"{what}…", metadata={"title": what, "status": "pending"})


def _paragraphs(text: str) -> list[str]:
    return [p for p in text.split("\n\n") if p.strip()] or [text]


def window_words(window: str | dict[str, str] | None) -> str:
    """A picker's window as the words a question would use, so the planner reads it the same
    way ("in the last 6h", "between 2025-11-04T08:00:00Z and …")."""
    if not window:
        return ""
    if isinstance(window, dict):
        return f"between {window['start']} and {window['end']}"
    return f"in the last {window}"


# a question the thread kept without its answer: the server stopped (or was stopped) while it worked
UNANSWERED_TEXT = "**no answer** — the server stopped before answering this question; ask it again."
UNANSWERED = {"role": "assistant", "content": UNANSWERED_TEXT}
NAMES_TTL_S = 60.0  # device names for links: re-read a minute later (imports, discovery)


def answer_parts(answer: str, known: set[str], names: set[str], diagnosed: bool = True,
                 hosts: set[str] | frozenset[str] = frozenset(),
                 headers: dict[str, str] | None = None) -> tuple[str, ChatMessage | None]:
    """The answer's prose (citations and device names linked) and, folded away, its evidence
    list and, after a diagnosis, its row tables: the conclusion is what fills the screen, the
    rows are a click away."""
    prose, details = split_details(answer, rows_too=diagnosed)
    prose = short_unplaced(tag_ruled_out(prose), examples(answer))  # plain words, labels as tags
    text = link_devices(link_citations(inert(prose or answer), known), names, hosts)
    if not details or not prose:
        return text, None
    tables = details.count("Rows of [")
    title = (f"rows behind the answer ({count(tables, 'table')}) and the evidence list" if tables
             else "the evidence list")
    details = evidence_list_words(details, headers or {})  # not `alarms {"correlate": true}`
    body = link_devices(link_citations(inert(details), known), names, hosts)
    return text, ChatMessage(body, metadata={"title": title, "status": "done"})


class ChatHandler:
    def __init__(self, copilot: Copilot) -> None:
        self.copilot = copilot
        self._names: tuple[float, set[str]] = (-NAMES_TTL_S, set())
        self._hosts: tuple[float, set[str]] = (-NAMES_TTL_S, set())

    def host_names(self) -> set[str]:
        """The inventory's host names, linked in answers to ask their details (cached)."""
        at, names = self._hosts
        if time.monotonic() - at >= NAMES_TTL_S:
            try:
                names = {str(h["name"]) for h in self.copilot.backends.inventory.hosts(None, None, None)}
            except NetopsError:
                names = set()
            self._hosts = (time.monotonic(), names)
        return names

    def device_names(self) -> set[str]:
        """The inventory's device names, to link in answers (cached for NAMES_TTL_S)."""
        at, names = self._names
        if time.monotonic() - at >= NAMES_TTL_S:
            try:
                names = {d["name"] for d in self.copilot.backends.inventory.devices(
                    None, None, None, None)}
            except NetopsError:  # no network yet: nothing to link
                names = set()
            self._names = (time.monotonic(), names)
        return names

    def conversation(self, thread: str, user: str | None = None) -> Thread:
        """The thread as the copilot keeps it (the checkpointer keeps it across restarts)."""
        return self.copilot.thread(thread_key(thread, user))

    @property
    def zone(self) -> str:
        """The network's zone: evidence windows read in it."""
        return str(getattr(self.copilot.backends, "zone", "") or "UTC")

    def _views(self, thread: Thread) -> tuple[str, list[EvidenceDump], set[str]]:
        evidence, turn_ev = dumps_of(thread.evidence), dumps_of(thread.turn_evidence)
        return evidence_html(evidence, {e["id"] for e in turn_ev}, self.zone), turn_ev, \
            {e["id"] for e in evidence}

    def _headers(self, thread: Thread) -> dict[str, str]:
        return {e["id"]: evidence_header(e, self.zone) for e in dumps_of(thread.evidence)}

    def _next(self, thread: Thread, answer: str, turn_ev: list[EvidenceDump]) -> list[str]:
        """The chips after the thread's last answer (nextmove.next_questions)."""
        if not answer:
            return []
        return next_questions(thread.question, answer, thread.intent, turn_ev, thread.entities,
                              self.device_names())

    def page(self, thread: str, user: str | None, link: str) -> str:
        """"Page the on-call": the escalation text for the thread's last answer (headline,
        what was asked, what was ruled out, the thread's link), for copying."""
        try:
            saved = self.conversation(thread, user)
        except NetopsError as exc:
            return f"error: {exc}"
        if not saved.answer:
            return "Nothing to page about yet: ask a question first."
        return page_draft(saved.answer, saved.question, link or thread)

    def turn(self, question: str, history: list[Any] | None, thread: str,
             user: str | None = None, window: str | dict[str, str] | None = None) -> Iterator[ChatView]:
        """One question: yields the growing chat as each step completes, then the answer.
        `window`: the time picker's (a tool `window` value), for a question that names none."""
        history = list(history or [])
        question = (question or "").strip()
        if not question:
            yield ChatView(history, status="Ask a question about the network.")
            return
        history.append({"role": "user", "content": inert(question)})
        yield ChatView(history + [_pending("planning")], status="working…",
                       headline=headline_html(question, "working"), next=[])
        answer, elapsed, diagnosed = "", 0.0, False
        try:
            for step in self.copilot.ask(question, thread_key(thread, user), user,
                                         window_words(window)):
                history += step_messages(step, self.zone)
                diagnosed = diagnosed or step.node == "diagnose"
                answer = step.data.get("answer", answer) if step.node == "summarizer" else answer
                elapsed = step.data.get("elapsed_ms", elapsed)
                yield ChatView(history + [_pending(NEXT.get(step.node, "working"))], status="working…")
        except NetopsError as exc:  # bad input: one clear line, like the CLI
            yield ChatView(history + [ChatMessage(f"**error:** {inert(str(exc))}")], status="error",
                           headline=headline_html(str(exc), "error"))
            return
        except Exception as exc:  # a front end never shows a traceback
            log.exception("chat turn failed")
            yield ChatView(history + [ChatMessage(f"**internal error:** {type(exc).__name__}: {exc}")],
                           status="error", headline=headline_html(f"internal error: {exc}", "error"))
            return
        yield from self._answer(history, answer, thread, user, elapsed, diagnosed)

    def _answer(self, history: list[Any], answer: str, thread: str, user: str | None,
                elapsed: float, diagnosed: bool) -> Iterator[ChatView]:
        """Stream the answer paragraph by paragraph, with the evidence panel already filled so
        its citation links resolve as soon as they appear."""
        saved = self.conversation(thread, user)
        panel, turn_ev, known = self._views(saved)
        prose, folded = answer_parts(answer, known, self.device_names(), diagnosed, self.host_names(),
                                     self._headers(saved))
        linked = _paragraphs(prose)
        trace = trace_of(turn_ev)
        base = ChatView(history, panel, telemetry_plot(turn_ev), path_html(trace) if trace else "",
                        "writing…", turn_ev, headline_html(headline(answer), "answer", self.device_names()))
        chips = self._next(saved, answer, turn_ev)
        for i in range(1, len(linked) + 1):
            shown = [ChatMessage("\n\n".join(linked[:i]))]
            if i == len(linked):
                status = f"answered in {elapsed / 1000:.1f} s · thread `{thread}`"
                shown += [folded] if folded else []
            else:
                status = "writing…"
            yield replace(base, history=history + shown, status=status,
                          next=chips if i == len(linked) else None)

    def _replay(self, thread: Thread, known: set[str]) -> list[Any]:
        """A saved conversation as it was shown: each question, the steps that answered it
        (when the checkpoints still hold them) and the answer with its folded rows; a question
        left without its answer is marked so."""
        history: list[Any] = []
        names, headers = self.device_names(), self._headers(thread)
        turns = thread.turns
        for i, turn in enumerate(turns):
            history.append({"role": "user", "content": inert(turn.question)})
            history += [msg for step in turn.steps for msg in step_messages(step, self.zone)]
            if turn.answer is None:
                history.append(UNANSWERED)
                continue
            # a turn without its steps (a copied conversation, Copilot.seed): the last turn's
            # diagnosis is still in the state, so its rows fold away as they did when asked
            diagnosed = any(step.node == "diagnose" for step in turn.steps) or (
                i == len(turns) - 1 and bool(thread.state.get("diagnosis")))
            prose, folded = answer_parts(turn.answer, known, names, diagnosed, self.host_names(),
                                         headers)
            history += [ChatMessage(prose), *([folded] if folded else [])]
        return history

    def feedback(self, thread: str, liked: bool, user: str | None = None) -> str:
        """A thumbs-up on an answer confirms the thread's diagnosis into incident memory; a
        thumbs-down stores nothing. Returns the status line to show."""
        if not liked:
            return "Noted: not confirmed, nothing saved."
        try:
            row = self.copilot.confirm(thread_key(thread, user), f"gradio:{user or 'anonymous'}",
                                       "gradio")
        except NetopsError as exc:
            return str(exc)
        return f"Saved to incident memory: `{row.label}` at {row.device or '-'}."

    def resume(self, thread: str, user: str | None = None, asked: bool = False) -> ChatView:
        """A saved thread's conversation, so an on-call can pick it up after a reload. `asked`:
        the id came from the on-call (a link, the box), so an empty thread is one not found."""
        try:
            saved = self.copilot.thread(thread_key(thread, user), steps=True)
        except NetopsError as exc:  # not a web thread: nothing of it is read
            return ChatView([], status=f"error: {exc}", headline=headline_html(""))
        panel, turn_ev, known = self._views(saved)
        history = self._replay(saved, known)
        status = (f"resumed thread `{thread}`" if history else
                  f"thread `{thread}` not found; a new conversation starts under it" if asked else
                  f"new thread `{thread}`")
        trace = trace_of(turn_ev)
        if history and history[-1] == UNANSWERED:  # the last question was left without its answer
            asked_last = saved.question
            head = headline_html(f"the server stopped before answering: {asked_last}", "gone")
        else:
            head = headline_html(headline(saved.answer) if history else "",
                                 "answer", self.device_names())
        return ChatView(history, panel, telemetry_plot(turn_ev), path_html(trace) if trace else "",
                        status, turn_ev, head, self._next(saved, saved.answer, turn_ev) if history else [])
