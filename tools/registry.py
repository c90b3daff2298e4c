"""Importing this module registers every tool."""

from netopsai.tools import alarms, changelog, metadata, telemetry, traceroute  # noqa: F401
from netopsai.tools.base import REGISTRY, Tool, run_tool

__all__ = ["REGISTRY", "Tool", "run_tool"]
