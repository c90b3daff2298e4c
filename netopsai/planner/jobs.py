"""Job questions (issue 15 §2): "job 4711 hit an NCCL timeout at 14:02", "NCCL timeouts on
dc1-gpu1-[001-004]", "why is job 4711 slow since the restart?".

Found before the other entities, and masked from the text they are read from, so a job id or
a hostlist's digits are never read as device numbers or times. A question naming a job (or a
GPU job's symptom on a list of hosts) is a job diagnosis; "which hosts does job 4711 use?"
is a look-up in the job table.

A scheduler's node name that is not an inventory name ("gpu-001" where the inventory says
"dc1-gpu1-001") is read as the one GPU host it is a suffix match of (its words and number, in
order, ending the same), and the mapping is said; no match, or more than one, is "not in the
inventory"."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from netopsai.common.errors import NetopsError
from netopsai.common.hostlist import compress, expand
from netopsai.planner.calls import ToolCall
from netopsai.planner.entities import Entities

JOB_INTENT = "diagnose.job"
JOB = re.compile(r"\b(?:slurm\s+)?job(?:[\s_-]*id)?\s*[#:=]?\s*(\d[\w.-]*)", re.I)
# starts only where a name starts: from inside a long word, each start would rescan the word
HOSTLIST = re.compile(r"(?<![\w.-])[A-Za-z][\w.-]*\[[\d,\s-]+\][\w.-]*(?:\[[\d,\s-]+\][\w.-]*)*")
QUESTION_HOSTS = 100_000  # host names one question's hostlists may stand for, all together
SYMPTOM = re.compile(r"\bnccl\b|\brdma\b|\broce\b|\ball-?reduce\b|\bcollectives?\b|\bhang\w*"
                     r"|\btime[\s-]?outs?\b|\btim(?:ing|ed) out\b|\bslow\w*|\bstuck\b|\bfail\w*"
                     r"|\bwhy\b|\bwrong\b|\bissues?\b|\bproblems?\b|\bdiagnos\w*|\bcrash\w*", re.I)
GPU_ROLES = ("gpu_host",)
BARE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*+[-_][\w-]{0,62}\d\b")  # "gpu-001", "node_17" (bounded:
# `[\w-]*` rescanned a long hyphenated chain from each of its words)
TOKEN = re.compile(r"[a-z]+|\d+")


@dataclass
class JobAsk:
    """A job question: the job named, the hosts listed, and the text with both masked."""

    job: str | None
    hosts: list[str]
    text: str
    symptom: bool
    problems: list[str] = field(default_factory=list)


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the spans (in order, not overlapping) blanked, in one pass."""
    out, at = [], 0
    for start, end in spans:
        out += [text[at:start], " " * (end - start)]
        at = end
    return "".join([*out, text[at:]])


class SuffixMatch:
    """Scheduler node names -> the inventory's GPU host each is a unique suffix match of."""

    def __init__(self, meta: dict[str, dict[str, Any]]) -> None:
        self.meta = meta
        self._by_last: dict[str, list[list[str]]] | None = None  # indexed on first use

    def by_last(self) -> dict[str, list[list[str]]]:
        if self._by_last is None:
            index: dict[str, list[list[str]]] = {}
            for name, row in self.meta.items():
                t = TOKEN.findall(name.lower()) if row.get("role") in GPU_ROLES else []
                if t:
                    index.setdefault(t[-1], []).append([name, *t])
            self._by_last = index
        return self._by_last

    def __call__(self, name: str) -> str | None:
        want = TOKEN.findall(name.lower())
        if not want:
            return None
        found = [c[0] for c in self.by_last().get(want[-1], [])
                 if _in_order(want[:-1], c[1:-1])]
        return found[0] if len(found) == 1 else None


def _in_order(words: list[str], tokens: list[str]) -> bool:
    it = iter(tokens)
    return all(any(w == t for t in it) for w in words)


def _resolve(names: list[str], meta: dict[str, dict[str, Any]], match: SuffixMatch,
             said: str) -> tuple[list[str], list[str]]:
    """(the inventory names of `names`, notes: the mapping said, the names not found)."""
    mapped = {n: match(n) for n in names if n not in meta}
    known = [n if n in meta else mapped[n] for n in names if n in meta or mapped[n]]
    notes = []
    if any(mapped.values()):
        got = [v for v in mapped.values() if v]
        notes.append(f"{compress([k for k, v in mapped.items() if v])} read as "
                     f"{compress(got)}: the inventory's name{'s' if len(got) > 1 else ''} "
                     "ending the same (a unique match of each)")
    if len(known) < len(names):
        notes.append(f"{len(names) - len(known)} of the {len(names)} hosts of {said!r} are "
                     "not in the inventory")
    return [str(k) for k in known], notes


def find_job(question: str, meta: dict[str, dict[str, Any]]) -> JobAsk | None:
    """The job and hostlists a question names (None when it names neither)."""
    text, hosts, problems = question, [], []
    match = SuffixMatch(meta)
    job = JOB.search(text)
    if job:
        text = _mask(text, [job.span()])
    found = list(HOSTLIST.finditer(text))
    text = _mask(text, [m.span() for m in found])
    left = QUESTION_HOSTS
    for m in found:
        if left <= 0:
            problems.append(f"the question's hostlists name more than {QUESTION_HOSTS:,} hosts "
                            "together; the rest are not read")
            break
        try:
            names = expand(m.group(0), left)
        except NetopsError as err:
            problems.append(str(err) if left == QUESTION_HOSTS else f"{err} (the question's "
                            f"hostlists together: at most {QUESTION_HOSTS:,})")
            continue
        left -= len(names)
        known, notes = _resolve(names, meta, match, m.group(0))
        hosts += known
        problems += notes
    if job or SYMPTOM.search(question):  # "NCCL timeouts on gpu-010": a bare scheduler name
        bare = [(m, hit) for m in BARE.finditer(text)
                if m.group(0) not in meta and (hit := match(m.group(0)))]
        text = _mask(text, [m.span() for m, _ in bare])
        for m, hit in bare:
            hosts.append(hit)
            problems.append(f"{m.group(0)} read as {hit}, the inventory's name ending the same")
    if job is None and not hosts and not problems:
        return None
    return JobAsk(job.group(1) if job else None, list(dict.fromkeys(hosts)), text,
                  bool(SYMPTOM.search(question)), problems)


# a training job's own words, and a stall's (said of several GPU hosts, a job's symptom too)
GPU_WORDS = re.compile(r"\bnccl\b|\brdma\b|\broce\b|\ball-?(?:reduce|gather|to-?all)\b"
                       r"|\bcollectives?\b|\btraining\b", re.I)
STALL = re.compile(r"\bhang\w*|\bhung\b|\bstuck\b|\bstall\w*|\btime[\s-]?outs?\b"
                   r"|\btim(?:ing|ed) out\b|\bslow\w*", re.I)


def gpu_symptom(question: str, devices: list[str], meta: dict[str, dict[str, Any]]) -> bool:
    """"NCCL timeouts on dc1-gpu1-003 and dc1-gpu1-004", "all-reduce hangs on <hosts>": GPU
    hosts named with a job's symptom (a stall alone only of two or more: one host that hangs is
    that host's question)."""
    if not devices or not all(meta.get(d, {}).get("role") in GPU_ROLES for d in devices):
        return False
    return bool(GPU_WORDS.search(question)) or (len(devices) >= 2 and bool(STALL.search(question)))


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
