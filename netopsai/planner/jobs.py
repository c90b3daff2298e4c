"""Job questions (issue 15 §2): "job 4711 hit an NCCL timeout at 14:02", "NCCL timeouts on
dc1-gpu1-[001-004]", "why is job 4711 slow since the restart?".

Found before the other entities, and masked from the text they are read from, so a job id or
a hostlist's digits are never read as device numbers or times. A question naming a job (or a
GPU job's symptom on a list of hosts) is a job diagnosis; "which hosts does job 4711 use?"
is a look-up in the job table."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from netopsai.errors import NetopsError
from netopsai.hostlist import expand
from netopsai.planner.calls import ToolCall
from netopsai.planner.entities import Entities

JOB_INTENT = "diagnose.job"
JOB = re.compile(r"\b(?:slurm\s+)?job(?:[\s_-]*id)?\s*[#:=]?\s*(\d[\w.-]*)", re.I)
HOSTLIST = re.compile(r"[A-Za-z][\w.-]*\[[\d,\s-]+\][\w.-]*(?:\[[\d,\s-]+\][\w.-]*)*")
SYMPTOM = re.compile(r"\bnccl\b|\brdma\b|\broce\b|\ball-?reduce\b|\bcollectives?\b|\bhang\w*"
                     r"|\btime[\s-]?outs?\b|\btim(?:ing|ed) out\b|\bslow\w*|\bstuck\b|\bfail\w*"
                     r"|\bwhy\b|\bwrong\b|\bissues?\b|\bproblems?\b|\bdiagnos\w*|\bcrash\w*", re.I)
GPU_ROLES = ("gpu_host",)


@dataclass
class JobAsk:
    """A job question: the job named, the hosts listed, and the text with both masked."""

    job: str | None
    hosts: list[str]
    text: str
    symptom: bool
    problems: list[str] = field(default_factory=list)


def _mask(text: str, span: tuple[int, int]) -> str:
    return text[:span[0]] + " " * (span[1] - span[0]) + text[span[1]:]


def find_job(question: str, meta: dict[str, dict[str, Any]]) -> JobAsk | None:
    """The job and hostlists a question names (None when it names neither)."""
    text, hosts, problems = question, [], []
    job = JOB.search(text)
    if job:
        text = _mask(text, job.span())
    for m in list(HOSTLIST.finditer(text)):
        text = _mask(text, m.span())
        try:
            names = expand(m.group(0))
        except NetopsError as err:
            problems.append(str(err))
            continue
        known = [n for n in names if n in meta]
        if len(known) < len(names):
            problems.append(f"{len(names) - len(known)} of the {len(names)} hosts of "
                            f"{m.group(0)!r} are not in the inventory")
        hosts += known
    if job is None and not hosts and not problems:
        return None
    return JobAsk(job.group(1) if job else None, list(dict.fromkeys(hosts)), text,
                  bool(SYMPTOM.search(question)), problems)


def gpu_symptom(question: str, devices: list[str], meta: dict[str, dict[str, Any]]) -> bool:
    """"NCCL timeouts on dc1-gpu1-003 and dc1-gpu1-004": GPU hosts named with a job's symptom."""
    return bool(devices) and bool(re.search(r"\bnccl\b|\brdma\b|\broce\b", question, re.I)) and \
        all(meta.get(d, {}).get("role") in GPU_ROLES for d in devices)


def job_calls(ask: JobAsk | None, ent: Entities) -> tuple[str, list[ToolCall], list[str]]:
    """(intent, the first round, notes): the job's row in the job table, or for hosts alone the
    jobs that ran on the first of them; the diagnosis then reads the hosts' NICs and rails.
    The job and the hosts listed join the entities."""
    notes = list(ask.problems) if ask else []
    job = ask.job if ask else None
    hosts = ent.devices = list(dict.fromkeys([*(ask.hosts if ask else []), *ent.devices]))
    ent.jobs = [job] if job else []
    if job is None and not hosts:
        return "unknown", [], notes + ["no host of the hostlist is in the inventory"]
    first = ToolCall("metadata", {"query": "jobs", **({"job": job} if job else
                                                      {"name": hosts[0]})})
    if ask is not None and job is not None and not ask.symptom and not hosts:
        return "inventory.jobs", [first], notes
    return JOB_INTENT, [first], notes
