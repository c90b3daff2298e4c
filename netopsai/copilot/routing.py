"""Where the graph goes next: every routing decision in one place, as pure functions of the
state (graph.py wires them, nodes.py records the phase through `after_tool_round`).

The keys routing reads, and who writes them:
- `pending` (the planner): tool calls still to run; none left means on to analysis or the answer;
- `iterations` (tools): tool rounds so far; at MAX_ITERATIONS the answer uses what is there;
- `llm` (the LLM planner): "active" while the model plans, so tool results go back to it;
- `intent` (the planner): a connectivity diagnosis (DIAGNOSE) traces, then verifies, then
  goes to the diagnosis engine;
- `phase` (planner, tools, summarizer): start -> planned -> traced -> checked -> done, the
  diagnosis' progress; the planner's second visit of a diagnosis queues its verification
  calls (the changes and alarms on the traced path), it does not re-plan the question;
- `recipe` and `turn` (planner, tools): an analysis recipe over this turn's evidence sends
  the turn to the coder; a turn with no evidence has nothing to analyse or diagnose."""

from __future__ import annotations

from netopsai.copilot.state import CopilotState

DIAGNOSE = "diagnose.connectivity"
DEVICE = "diagnose.device"  # "what is wrong with X?": one round of reads, then the engine
JOB = "diagnose.job"  # "job 4711 hit an NCCL timeout": the job's row, then diagnosis/job.py
MAX_ITERATIONS = 6  # tool rounds per question: a runaway loop stops here, and says so


def verifying(state: CopilotState) -> bool:
    """A diagnosis whose path is traced and whose verification calls are not yet made."""
    return state.get("intent") == DIAGNOSE and state.get("phase") == "traced"


def after_tool_round(state: CopilotState) -> str:
    """The phase once a round of tool calls is done: a diagnosis' first round traces the
    path, the next one checks it."""
    phase = state.get("phase", "planned")
    if state.get("intent") == DIAGNOSE:
        phase = "traced" if phase == "planned" else "checked"
    return phase


def after_planner(state: CopilotState) -> str:
    if state.get("pending"):
        return "tools"
    return _analysis(state)


def after_tools(state: CopilotState) -> str:
    if state.get("iterations", 0) >= MAX_ITERATIONS:
        return "summarizer"
    if state.get("llm") == "active":  # the LLM reads what came back and decides what next
        return "planner"
    if verifying(state):
        return "planner"
    return _analysis(state)


def _analysis(state: CopilotState) -> str:
    if state.get("recipe") and state.get("turn"):
        return "coder"
    return after_coder(state)


def after_coder(state: CopilotState) -> str:
    return "diagnose" if state.get("intent") in (DIAGNOSE, DEVICE, JOB) and state.get("turn") \
        else "summarizer"
