"""Job questions that are not a fresh job diagnosis: look-ups in the job table ("which jobs run
on dc1-gpu1-010?", "list the running jobs") and follow-ups in a thread after a job's diagnosis
("and at 19:40?", "is it still happening?", "what about job 4740?"), which keep diagnosing the
job with one thing changed. Whatever the new question names wins."""

from __future__ import annotations

import re
from typing import Any

from netopsai.planner.calls import ToolCall
from netopsai.planner.entities import Entities
from netopsai.planner.followup import FOLLOW
from netopsai.planner.jobs import GPU_ROLES, JOB_INTENT, JobAsk, SuffixMatch, job_calls

LOOKUP_INTENT = "inventory.jobs"
STILL = re.compile(r"\bstill\b|\bright now\b|\bcurrently\b|\bany ?more\b|\bat the moment\b", re.I)
NOW_WINDOW = "15m"  # "is it still happening?": the last three 5-minute samples, not the whole run
# "jobs on X", "which job runs on X", "what (else) runs on X", "list the running jobs"
LOOKUP = re.compile(r"\bjobs\b|\bwhich jobs?\b|\bwhat(?: else)? (?:runs|is running|ran|was running)\b"
                    r"|\bwho(?:'s| is) (?:running|using)\b", re.I)


def job_lookup(question: str, ent: Entities, meta: dict[str, dict[str, Any]]
               ) -> tuple[str, list[ToolCall], list[str]] | None:
    """The jobs that ran on the GPU hosts named (a scheduler's node name read as the inventory's
    host it ends like, and said), or every job when none is: a look-up, not a diagnosis. None
    when the question is not about jobs, names a device that runs none, or names a host that
    is nowhere (the planner says which)."""
    if not LOOKUP.search(question) or ent.ips or ent.cidrs:
        return None
    match = SuffixMatch(meta)
    mapped = {u: match(u) for u in ent.unknown}
    if not all(mapped.values()):
        return None
    hosts = [d for d in ent.devices if meta.get(d, {}).get("role") in GPU_ROLES]
    if len(hosts) < len(ent.devices):  # "what runs on dc1-spine-01": not the job table's question
        return None
    if not hosts and not mapped and not re.search(r"\bjobs\b", question, re.I):
        return None
    notes = [f"{u} read as {h}, the inventory's name ending the same" for u, h in mapped.items()]
    ent.devices, ent.unknown = [*hosts, *(str(h) for h in mapped.values())], []
    calls = [ToolCall("metadata", {"query": "jobs", "name": h}) for h in ent.devices]
    return LOOKUP_INTENT, calls or [ToolCall("metadata", {"query": "jobs"})], notes


def follows_job(question: str, job: JobAsk | None, previous_intent: str | None) -> bool:
    """"and job 4740?" after a job's diagnosis asks the same of another job: a diagnosis."""
    return job is not None and previous_intent == JOB_INTENT and bool(FOLLOW.search(question))


def job_follow_up(merged: Entities, rest: str) -> tuple[str, list[ToolCall], list[str]]:
    """A follow-up whose merged intent is a job diagnosis: the previous turn's job (or hosts),
    with the window or time the follow-up says."""
    notes = []
    if STILL.search(rest) and not merged.window:
        merged.window, merged.at, merged.since_change = NOW_WINDOW, None, False
        notes.append(f"'still' read as the last {NOW_WINDOW}")
    job = merged.jobs[0] if merged.jobs else None
    intent, calls, more = job_calls(JobAsk(job, [], rest, True), merged)
    return intent, calls, notes + more
