"""Planners: map an on-call's question to an intent, entities and the first tool calls.

rules.py is the offline planner (no LLM): `plan(question, vocab, clock, previous, previous_intent)`.
"""

from netopsai.planner.calls import ToolCall
from netopsai.planner.entities import Entities, Vocabulary
from netopsai.planner.help import help_text
from netopsai.planner.rules import PLANNED_RECIPES, Plan, plan

__all__ = ["PLANNED_RECIPES", "Entities", "Plan", "ToolCall", "Vocabulary", "help_text", "plan"]
