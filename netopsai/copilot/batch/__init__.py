"""Batch connectivity checks over IP lists (issue 4 §3), the engine every front end shares: the
input's parser, the runner (threads, worker processes or Ray over copilot/pairs.py's one-pair
check), the results' rows and summary. Below the front ends (issue 27): the web app's and
Slack's Batch, the API's jobs and `netopsai batch` (netopsai/batch/command.py) call it here."""

from netopsai.copilot.batch.check import PairResult
from netopsai.copilot.batch.output import summarize
from netopsai.copilot.batch.parse import Pair, default_source, parse_pairs
from netopsai.copilot.batch.runner import BatchChecker

__all__ = ["BatchChecker", "Pair", "PairResult", "default_source", "parse_pairs", "summarize"]
