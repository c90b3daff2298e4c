"""Importing this module registers every tool: each module of this package but the contract's
own is a tool that registers itself with the @tool decorator, so a new tool is one new file."""

import importlib

from netopsai.tools import tool_names
from netopsai.tools.base import REGISTRY, Tool, run_tool

for _name in tool_names():
    importlib.import_module(f"netopsai.tools.{_name}")

__all__ = ["REGISTRY", "Tool", "run_tool"]
