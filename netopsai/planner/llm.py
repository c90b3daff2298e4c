"""The LLM planner: a chat model bound to the tools' schemas decides the next tool calls, or
answers when the evidence is enough.

Tool calls are validated against each tool's args model; invalid ones go back to the model once
with the one-line validation error. A second invalid reply, or any failure of the model (HTTP
error, timeout, unparseable response), becomes `fallback_reason` and the graph uses the offline
planner for the turn. This module never raises for a model failure and never lets a secret of
the model (its API key) into a reason or a log line.

Names in the model's calls are read as the offline planner reads them (planner/llm_names.py):
"core-rtr.example.net", a device's address, a device known only from its logs.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from string import Template
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import ValidationError

from netopsai.common.chat import ModelError, invoke, message_text, scrub, secrets_of, usage
from netopsai.common.errors import unknown
from netopsai.copilot.evidence import Evidence
from netopsai.planner.calls import ToolCall
from netopsai.planner.evidence_text import RowPolicy, evidence_text
from netopsai.planner.hurried import normalise
from netopsai.planner.llm_names import Resolved, resolve_args
from netopsai.prompts import load as load_prompt
from netopsai.tools.base import REGISTRY, Tool, validation_message

log = logging.getLogger(__name__)
PREVIEW_ROWS = 5
# every read shows the same rows and whole arguments: the planner decides the next call from them
PLANNER_ROWS = RowPolicy(PREVIEW_ROWS, PREVIEW_ROWS)
MAX_REASON = 240
NOT_RUN = "not run: another call of this turn was invalid; send all the calls again, corrected"


@dataclass
class LLMDecision:
    """One planner step: tool calls to run, or (done) an answer in `text`."""

    calls: list[ToolCall] = field(default_factory=list)
    done: bool = False
    text: str = ""
    tokens: dict[str, int] = field(default_factory=lambda: {"prompt": 0, "completion": 0})
    tokens_estimated: bool = False  # some call had no usage in its response
    llm_calls: int = 0
    fallback_reason: str | None = None
    read_as: dict[str, str] = field(default_factory=dict)  # names in its calls, read as others
    notes: list[str] = field(default_factory=list)  # provisional devices it named


@dataclass
class _Names:
    vocab: Any  # planner.Vocabulary, or None: names go to the tools as the model wrote them
    out: Resolved


@dataclass
class _Checked:
    calls: list[ToolCall]
    errors: dict[str, str]  # tool_call_id -> one-line error


class LLMPlanner:
    def __init__(self, llm: BaseChatModel, tools: Mapping[str, Tool] = REGISTRY) -> None:
        self.tools = dict(tools)
        self.model = llm.bind_tools([t.schema() for t in self.tools.values()])
        self._secrets = secrets_of(llm)
        self._schemas = json.dumps([t.schema() for t in self.tools.values()])  # for estimates

    def system_prompt(self, clock: datetime) -> str:
        tools = "\n".join(f"- {t.name}: {_first_sentence(t.description)}" for t in self.tools.values())
        when = f"{clock.isoformat(timespec='minutes')} ({clock:%A})"
        return Template(load_prompt("planner.md")).substitute(clock=when, tools=tools)

    def messages(self, question: str, clock: datetime, history: Sequence[BaseMessage] = (),
                 evidence: Sequence[Evidence] = ()) -> list[BaseMessage]:
        ask = f"Question: {as_meant(question)}\n\n{evidence_block(evidence)}"
        return [SystemMessage(self.system_prompt(clock)), *_history(history), HumanMessage(ask)]

    def plan(self, question: str, clock: datetime, history: Sequence[BaseMessage] = (),
             evidence: Sequence[Evidence] = (), vocab: Any = None) -> LLMDecision:
        """`vocab` (planner.Vocabulary): the names the model's calls are read against."""
        decision = LLMDecision()
        names = _Names(vocab, Resolved())  # per call: one planner serves concurrent turns
        messages = self.messages(question, clock, history, evidence)
        try:
            ai = self._ask(messages, decision)
            checked = self._check(ai, names)
            if checked.errors:  # one chance to correct, with the errors as tool results
                messages += [ai, *_feedback(ai, checked.errors)]
                ai = self._ask(messages, decision)
                checked = self._check(ai, names)
        except ModelError as exc:  # any model failure means the offline planner takes the turn
            return self._fallback(decision, f"LLM call failed: {exc}")
        except Exception as exc:  # a reply our checks choke on: same, scrubbed below
            return self._fallback(decision, f"LLM call failed: {type(exc).__name__}: {exc}")
        if checked.errors:
            return self._fallback(decision, "invalid tool call: " + next(iter(checked.errors.values())))
        decision.text = ai.text
        if not checked.calls and not decision.text.strip():
            return self._fallback(decision, "LLM returned neither tool calls nor an answer")
        decision.calls, decision.done = checked.calls, not checked.calls
        decision.read_as, decision.notes = names.out.read_as, names.out.notes
        log.info("llm planner: %d tool call(s) %s after %d LLM call(s)", len(decision.calls),
                 [c.tool for c in decision.calls], decision.llm_calls)
        return decision

    def _ask(self, messages: list[BaseMessage], decision: LLMDecision) -> AIMessage:
        decision.llm_calls += 1
        ai = invoke(self.model, messages, self._secrets, MAX_REASON)
        if not isinstance(ai, AIMessage):
            raise TypeError(f"expected an AIMessage, got {type(ai).__name__}")
        u = usage(ai, "".join(message_text(m) for m in messages) + self._schemas)
        decision.tokens["prompt"] += u["prompt"]
        decision.tokens["completion"] += u["completion"]
        decision.tokens_estimated |= u["estimated"]
        return ai

    def _check(self, ai: AIMessage, names: _Names | None = None) -> _Checked:
        """Validate every tool call against its tool's args model."""
        calls: list[ToolCall] = []
        errors: dict[str, str] = {}
        for i, tc in enumerate(ai.tool_calls):
            call, error = self._validate(tc["name"], tc["args"], names)
            if error is not None:
                errors[tc.get("id") or f"call_{i}"] = error
            elif call is not None:
                calls.append(call)
        for i, bad in enumerate(ai.invalid_tool_calls):  # arguments that were not even JSON
            errors[bad.get("id") or f"invalid_{i}"] = f"{bad.get('name')}: arguments are not valid JSON"
        return _Checked(calls, errors)

    def _validate(self, name: str, args: Any,
                  names: _Names | None = None) -> tuple[ToolCall | None, str | None]:
        t = self.tools.get(name)
        if t is None:
            return None, str(unknown("tool", name, self.tools))
        if names is not None:  # names as the offline planner reads them, before validation
            args = resolve_args(args, names.vocab, names.out)
        try:
            parsed = t.args_model.model_validate(args)
        except ValidationError as exc:
            return None, f"{name}: {validation_message(exc)}"
        # only what the model set, normalised: defaults stay the tool's business
        return ToolCall(name, parsed.model_dump(mode="json", exclude_unset=True)), None

    def _fallback(self, decision: LLMDecision, reason: str) -> LLMDecision:
        decision.fallback_reason = self._scrub(reason)
        decision.calls, decision.done, decision.text = [], False, ""
        log.warning("llm planner falls back to the offline planner: %s", decision.fallback_reason)
        return decision

    def _scrub(self, text: str) -> str:
        return scrub(text, self._secrets, MAX_REASON)


def as_meant(question: str) -> str:
    """The question as typed and, when its hurried words read otherwise ("whats wrong w/ X",
    "alrams", "10.2.1.40:22"), as the offline planner reads them (planner/hurried.py): the model
    plans from the same reading, and still sees what was typed."""
    said = normalise(question)
    text = " ".join(said.text.split())
    if text == " ".join(question.split()) and not said.ports:
        return question
    ports = f" (port {', '.join(map(str, said.ports))})" if said.ports else ""
    return f"{question}\nRead as: {text}{ports}"


def evidence_block(evidence: Sequence[Evidence]) -> str:
    """Each evidence as id, tool, arguments, window, summary and a small preview: whole tables
    never go into a prompt."""
    return evidence_text(evidence, PLANNER_ROWS)


def _history(history: Sequence[BaseMessage]) -> list[BaseMessage]:
    """Earlier turns as plain text: their tool results come back as evidence, and an assistant
    tool call without its tool reply would be rejected by the API."""
    out: list[BaseMessage] = []
    for m in history:
        if isinstance(m, HumanMessage):
            out.append(HumanMessage(m.text))
        elif isinstance(m, AIMessage) and m.text.strip():
            out.append(AIMessage(m.text))
    return out


def _feedback(ai: AIMessage, errors: dict[str, str]) -> list[ToolMessage]:
    """A tool reply for every call of the assistant message, as the API requires."""
    ids = [tc.get("id") or f"call_{i}" for i, tc in enumerate(ai.tool_calls)]
    ids += [bad.get("id") or f"invalid_{i}" for i, bad in enumerate(ai.invalid_tool_calls)]
    return [ToolMessage(errors.get(i, NOT_RUN), tool_call_id=i, status="error") for i in ids]


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    return flat.split(". ")[0].rstrip(".") + "."
