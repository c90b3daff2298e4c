"""Planners: map an on-call's question to an intent, entities and the first tool calls.

rules.py is the offline planner (no LLM): `plan(question, vocab, clock, previous=None,
previous_intent=None, zone="UTC", change_start=None, last_seen=None, job_table=None)`; llm.py
the LLM planner (`LLMPlanner.plan(question, clock, history, evidence, vocab=...)`).
"""

from netopsai.planner.calls import ToolCall
from netopsai.planner.entities import Entities, Vocabulary
from netopsai.planner.help import help_text
from netopsai.planner.rules import PLANNED_RECIPES, Plan, plan

__all__ = ["PLANNED_RECIPES", "Entities", "Plan", "ToolCall", "Vocabulary", "help_text", "plan"]
