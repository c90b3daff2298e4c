"""The copilot's LangGraph: planner -> tools -> (coder) -> (diagnose) -> summarizer, looping
back to the planner while it asks for more (where to go next: routing.py). `build_graph`
returns the uncompiled builder; callers compile it with a checkpointer (SQLite in
NETOPSAI_HOME, in-memory in tests)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langgraph.graph import END, START, StateGraph

from netopsai.copilot import nodes, routing
from netopsai.copilot.state import CopilotState
from netopsai.copilot.toolbox import Toolbox
from netopsai.diagnosis.knowledge import Knowledge

if TYPE_CHECKING:  # typing only: these imports cost a second at start-up
    from langchain_core.language_models import BaseChatModel


def build_graph(llm: BaseChatModel | None = None, tools: Toolbox | None = None,
                knowledge: Knowledge | None = None) -> StateGraph:
    if tools is None:
        raise ValueError("build_graph needs a Toolbox (the backends the tools read)")
    tb = tools
    llm_planner = None
    if llm is not None:
        from netopsai.planner.llm import LLMPlanner

        llm_planner = LLMPlanner(llm)

    def planner(state: CopilotState) -> dict[str, Any]:
        out = plan_step(state)
        if state.get("phase") == "start":  # a new turn: its one ledger, carried in the state
            out["ledger"] = nodes.open_ledger(state)
        return out

    def plan_step(state: CopilotState) -> dict[str, Any]:
        first = state.get("phase") == "start"
        if llm_planner is not None and (first or state.get("llm") == "active"):
            return nodes.llm_plan(state, tb, llm_planner, first)
        if first:
            return nodes.offline_plan(state, tb)
        if routing.verifying(state):  # the diagnosis' verification round, not a new plan
            return {"pending": nodes.diagnosis_checks(state)}
        return {"pending": []}

    def coder(state: CopilotState) -> dict[str, Any]:
        return nodes.coder_node(state, llm)

    g = StateGraph(CopilotState)
    g.add_node("planner", planner)
    g.add_node("tools", lambda s: nodes.tools_node(s, tb))
    g.add_node("coder", coder)
    g.add_node("diagnose", lambda s: nodes.diagnose_node(s, tb, llm, knowledge))
    g.add_node("summarizer", lambda s: nodes.summarizer_node(s, llm, tb.backends.zone))
    g.add_edge(START, "planner")
    g.add_conditional_edges("planner", routing.after_planner, ["tools", "coder", "diagnose", "summarizer"])
    g.add_conditional_edges("tools", routing.after_tools, ["planner", "coder", "diagnose", "summarizer"])
    g.add_conditional_edges("coder", routing.after_coder, ["diagnose", "summarizer"])
    g.add_edge("diagnose", "summarizer")
    g.add_edge("summarizer", END)
    return g
