"""One pair's check: the copilot's (netopsai/copilot/pairs.py), named here for the batch's
runner, output and command, which import it from their own room."""

from netopsai.copilot.pairs import (
    STOPS,
    PairResult,
    SharedEvidence,
    check_pair,
    diagnosed_result,
    needs_diagnosis,
    quick_result,
    reached_result,
    trace,
)

__all__ = ["STOPS", "PairResult", "SharedEvidence", "check_pair", "diagnosed_result",
           "needs_diagnosis", "quick_result", "reached_result", "trace"]
