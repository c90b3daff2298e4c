"""The tools' table and their runner, where callers have always found them. The table fills
itself on its first read (netopsai.common.registry): importing this module registers nothing and
nobody needs to have imported it first."""

from netopsai.tools.base import REGISTRY, Tool, run_tool

__all__ = ["REGISTRY", "Tool", "run_tool"]
