"""The job diagnosis' rules, one table (diagnosis/job.py runs them): each takes the job's reads
and returns what it found. A rule registers itself with `@job_rule(name, rank, own)` where it is
defined; the built-in modules load on the first look-up, and a package installed from
elsewhere adds one through the entry-point group `netopsai.diagnosis.job_rules` (an entry point
naming a JobRule, or a module whose import registers one).

Rules run in `rank` order, never in import order: the first to hold is the culprit. `own` rules
name a fault on the job's own hosts, ports and rail leaves; when none of them holds, spread
pauses are followed back to where they start before the other rules' findings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from netopsai.common.registry import Registry

if TYPE_CHECKING:
    from netopsai.diagnosis.job_rules import Hit, Reads

RuleFn = Callable[["Reads"], "list[Hit]"]


@dataclass(frozen=True)
class JobRule:
    name: str
    fn: RuleFn
    rank: int  # lower runs first
    own: bool = True  # a fault on the job's own hosts, ports and rail leaves


def _adopt(name: str, obj: object) -> list[tuple[str, JobRule]]:
    return [(obj.name, obj)] if isinstance(obj, JobRule) else []


BUILTIN = tuple(f"netopsai.diagnosis.{m}" for m in ("job_rules", "job_storm", "job_errors", "job_ecmp"))
JOB_RULES: Registry[str, JobRule] = Registry("job rule", "netopsai.diagnosis.job_rules", BUILTIN,
                                             _adopt)


def job_rule(name: str, rank: int, own: bool = True) -> Callable[[RuleFn], RuleFn]:
    """Register a job rule: reads -> hits, tried in `rank` order."""
    def register(fn: RuleFn) -> RuleFn:
        JOB_RULES.add(name, JobRule(name, fn, rank, own))
        return fn
    return register


def ordered() -> list[JobRule]:
    """Every rule, in the order they are tried."""
    return sorted(JOB_RULES.values(), key=lambda r: (r.rank, r.name))
