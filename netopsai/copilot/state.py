"""The graph's state. Plain JSON-able values only, so the SQLite checkpointer can keep a
conversation across restarts: evidence is stored as dicts and rebuilt as Evidence on use."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages


class CopilotState(TypedDict, total=False):
    # the conversation: questions and answers (the LLM planner's history)
    messages: Annotated[list[AnyMessage], add_messages]
    # every Evidence of the conversation, as dicts; ids E1, E2 ... are per conversation
    evidence: Annotated[list[dict[str, Any]], operator.add]
    # this turn (each new question overwrites them)
    question: str
    turn: list[str]  # evidence ids gathered this turn
    ledger: int  # the turn's evidence ledger: the last E# it minted (opened by the planner)
    intent: str
    recipe: str | None
    phase: str  # start | planned | traced | checked | done
    pending: list[dict[str, Any]]  # tool calls to run next: {"tool", "args"}
    iterations: int
    notes: list[str]
    diagnosis: dict[str, Any] | None
    answer: str
    tokens: dict[str, int]
    llm_calls: int
    llm: str  # "" offline | active | done | fallback
    llm_text: str  # the LLM planner's own answer when it finished without more tool calls
    window_text: str  # the window the question named, as the answer's first line states it
    window_hint: str  # a front end's time picker ("in the last 6h"): for a question naming none
    input_errors: list[str]  # bad input in the question (an invalid address, an unknown name)
    read_as: list[str]  # names read as other names ("read 'dc1-spine-4' as dc1-spine-04")
    # carried to the next turn for follow-ups ("and its upstream switch?")
    entities: dict[str, Any]
    last_intent: str | None
