"""Batch connectivity checks over IP lists (issue 4 §3): the API the CLI, Gradio and Slack
front ends share. See command.py for the `netopsai batch` command."""

from netopsai.batch.check import PairResult
from netopsai.batch.command import cli_main
from netopsai.batch.output import summarize
from netopsai.batch.parse import Pair, default_source, parse_pairs
from netopsai.batch.runner import BatchChecker

__all__ = ["BatchChecker", "Pair", "PairResult", "cli_main", "default_source", "parse_pairs",
           "summarize"]
