"""`netopsai batch` (command.py): batch connectivity checks from the command line. The engine
the front ends share (parser, runner, rows and summary) is netopsai/copilot/batch/; its names
are re-exported here for the command's callers."""

from netopsai.batch.command import cli_main
from netopsai.copilot.batch import (
    BatchChecker,
    Pair,
    PairResult,
    default_source,
    parse_pairs,
    summarize,
)

__all__ = ["BatchChecker", "Pair", "PairResult", "cli_main", "default_source", "parse_pairs",
           "summarize"]
