"""Compute jobs from a scheduler's export into the store's `Job` table (issue 15 §1): Slurm's
`sacct --parsable2` / `squeue` pipe-separated output (a header line, NodeList in hostlist syntax)
and Kubernetes pod lists (`kubectl get pods -o json`, pods grouped into jobs by a job label).
The whole file is read and checked first: a bad file is one line and stores nothing."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from netopsai.backends.rows import JobInfo
from netopsai.common.errors import MalformedFile, NetopsError, parse_json, read_text, unknown
from netopsai.common.hostlist import MAX_HOSTS, expand, size
from netopsai.store import tables as m

FORMATS = ("sacct", "k8s")
FILE_HOSTS = 2_000_000  # host names one import may build, all lines together (~150 MB of names)
# Slurm's header names (sacct --parsable2, squeue -O / -o) for each Job field, lower case
SLURM_COLUMNS = {"id": ("jobid", "job_id"), "name": ("jobname", "name"),
                 "owner": ("user", "username", "user_name"), "state": ("state", "st"),
                 "start": ("start", "start_time", "starttime"), "end": ("end", "end_time", "endtime"),
                 "hosts": ("nodelist", "nodes", "node_list")}
NO_TIME = ("", "unknown", "none", "n/a", "(null)")
# the labels that name a pod's job: the Job controller's, Kubeflow's, Volcano's, JobSet's
K8S_JOB_LABELS = ("batch.kubernetes.io/job-name", "job-name", "training.kubeflow.org/job-name",
                  "volcano.sh/job-name", "jobset.sigs.k8s.io/jobset-name")


@dataclass
class Imported:
    path: Path
    fmt: str
    jobs: int

    def line(self) -> str:
        return f"{self.path}: {self.jobs} job{'s' if self.jobs != 1 else ''} imported ({self.fmt})"


def guess_format(path: Path, text: str) -> str:
    return "k8s" if path.suffix.lower() == ".json" or text.lstrip().startswith("{") else "sacct"


def _time(value: str, where: str, line: int) -> datetime | None:
    """A Slurm time (ISO, the cluster's clock; read as UTC when it names no zone)."""
    value = value.strip()
    if value.lower() in NO_TIME:
        return None
    try:
        t = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise MalformedFile(where, "Slurm export", line, f"bad time {value!r}") from None
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)


def parse_slurm(text: str, where: str) -> list[dict[str, Any]]:
    """Jobs of a `sacct --parsable2` (or `squeue`) export; job steps (4711.batch, 4711.0) are
    folded into their job."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise MalformedFile(where, "Slurm export", None, "the file is empty")
    delim = "|" if "|" in lines[0] else ","
    rows = list(csv.reader(io.StringIO("\n".join(lines)), delimiter=delim))
    header = [h.strip().lower() for h in rows[0]]
    cols = {f: next((header.index(a) for a in names if a in header), None)
            for f, names in SLURM_COLUMNS.items()}
    for need in ("id", "hosts"):
        if cols[need] is None:
            raise MalformedFile(where, "Slurm export", 1, f"no {SLURM_COLUMNS[need][0]} column "
                                "in the header (sacct --parsable2 --format=JobID,JobName,User,"
                                "State,Start,End,NodeList)")
    jobs: dict[str, dict[str, Any]] = {}
    named = 0  # host names built so far, against the file's budget
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise MalformedFile(where, "Slurm export", n,
                                f"{len(row)} fields where the header has {len(header)}")
        get = {f: (row[i].strip() if i is not None else "") for f, i in cols.items()}
        if not get["id"]:
            raise MalformedFile(where, "Slurm export", n, "empty JobID")
        if "." in get["id"]:  # a step of a job already listed
            continue
        hosts = _hosts(get["hosts"], FILE_HOSTS - named, where, n)
        named += len(hosts)
        jobs[get["id"]] = {"id": get["id"], "name": get["name"], "owner": get["owner"],
                           "state": get["state"].split(" ")[0], "hosts": hosts,
                           "start": _time(get["start"], where, n), "end": _time(get["end"], where, n),
                           "source": "slurm"}
    return list(jobs.values())


def _hosts(nodelist: str, left: int, where: str, line: int) -> list[str]:
    """A NodeList's hosts, sized before any is built: one expression is at most MAX_HOSTS
    names, the whole file at most FILE_HOSTS (a file of a thousand big lines is as much a
    memory bomb as one line of three brackets)."""
    try:
        count = size(nodelist)  # exact up to MAX_HOSTS; more, and expand says so
        if left < count <= MAX_HOSTS:
            raise NetopsError(f"the NodeLists name more than {FILE_HOSTS:,} hosts in all; "
                              "import the export in parts (sacct -S/-E, a shorter window)")
        return expand(nodelist)
    except NetopsError as exc:
        raise MalformedFile(where, "Slurm export", line, str(exc)) from None


def _k8s_time(value: Any, where: str) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        raise MalformedFile(where, "pod list", None, f"bad time {value!r}") from None


def _job_label(labels: dict[str, str], label: str | None) -> str | None:
    if label:
        return labels.get(label)
    return next((labels[k] for k in K8S_JOB_LABELS if k in labels), None)


def _k8s_state(phases: set[str]) -> str:
    for phase, state in (("Failed", "FAILED"), ("Running", "RUNNING"), ("Pending", "PENDING")):
        if phase in phases:
            return state
    return "COMPLETED" if phases == {"Succeeded"} else "UNKNOWN"


def parse_k8s(text: str, where: str, label: str | None = None) -> list[dict[str, Any]]:
    """Jobs of a `kubectl get pods -o json` list: pods grouped by their job label (the first
    of K8S_JOB_LABELS, or `label`), hosts from spec.nodeName, start from status.startTime."""
    data = parse_json(text, where)
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise MalformedFile(where, "pod list", None, "no 'items' list (kubectl get pods -o json)")
    groups: dict[str, list[dict[str, Any]]] = {}
    for i, pod in enumerate(items):
        meta = pod.get("metadata") if isinstance(pod, dict) else None
        if not isinstance(meta, dict) or not isinstance(pod.get("spec", {}), dict):
            raise MalformedFile(where, "pod list", None, f"item {i} is not a pod")
        job = _job_label(meta.get("labels") or {}, label)
        if job:
            groups.setdefault(f"{meta.get('namespace', 'default')}/{job}", []).append(pod)
    return [_k8s_job(jid, pods, where) for jid, pods in groups.items()]


def _k8s_job(jid: str, pods: list[dict[str, Any]], where: str) -> dict[str, Any]:
    status = [p.get("status") or {} for p in pods]
    starts = [t for s in status if (t := _k8s_time(s.get("startTime"), where))]
    phases = {str(s.get("phase", "Unknown")) for s in status}
    ends = [t for s in status for c in s.get("containerStatuses") or []
            if (t := _k8s_time(((c.get("state") or {}).get("terminated") or {}).get("finishedAt"),
                               where))]
    labels = (pods[0].get("metadata") or {}).get("labels") or {}
    done = phases <= {"Succeeded", "Failed"}
    return {"id": jid, "name": jid.split("/", 1)[1],
            "owner": labels.get("owner") or labels.get("user") or jid.split("/", 1)[0],
            "hosts": sorted({n for p in pods if (n := (p.get("spec") or {}).get("nodeName"))}),
            "start": min(starts) if starts else None, "end": max(ends) if done and ends else None,
            "state": _k8s_state(phases), "source": "kubernetes"}


def read_jobs(path: Path, fmt: str | None = None,
              label: str | None = None) -> tuple[str, list[dict[str, Any]]]:
    text = read_text(path, "jobs file")
    fmt = fmt or guess_format(path, text)
    if fmt not in FORMATS:
        raise unknown("jobs format", fmt, FORMATS)
    jobs = parse_k8s(text, str(path), label) if fmt == "k8s" else parse_slurm(text, str(path))
    if not jobs:
        raise NetopsError(f"{path}: no jobs in the file"
                          + (" (no pod has a job label; name one with --label)" if fmt == "k8s" else ""))
    return fmt, jobs


def store_jobs(engine: Engine, jobs: Iterable[dict[str, Any]]) -> int:
    """Insert or replace jobs by id, in one transaction."""
    n = 0
    with Session(engine) as s:
        for job in jobs:
            s.merge(m.Job(**job))
            n += 1
        s.commit()
    return n


def import_jobs(engine: Engine, path: Path, fmt: str | None = None,
                label: str | None = None) -> Imported:
    fmt, jobs = read_jobs(path, fmt, label)
    return Imported(path, fmt, store_jobs(engine, jobs))


def list_jobs(engine: Engine, at: datetime | None = None) -> list[m.Job]:
    """All jobs, the latest start first; with `at`, those running then."""
    with Session(engine) as s:
        jobs = list(s.exec(select(m.Job).order_by(col(m.Job.start).desc())))
    if at is not None:
        jobs = [j for j in jobs if j.start and _utc(j.start) <= at and (j.end is None or _utc(j.end) > at)]
    return jobs


def _utc(t: datetime) -> datetime:
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t


def job_rows(engine: Engine, job: str | None, host: str | None,
             clock: datetime) -> list[JobInfo]:
    """Inventory.jobs: one job by id (an unknown id names the closest ones), or the jobs that
    ran on a host; each with the end of its window (its end, or the clock while it runs)."""
    from netopsai.common.timewin import iso

    jobs = list_jobs(engine)
    if job is not None:
        hit = [j for j in jobs if j.id == job]
        if not hit:
            raise unknown("job", job, [j.id for j in jobs])
        jobs = hit
    if host is not None:
        jobs = [j for j in jobs if host in j.hosts]
    return [{"id": j.id, "name": j.name, "owner": j.owner, "state": j.state, "hosts": list(j.hosts),
             "start": iso(_utc(j.start)) if j.start else None,
             "end": iso(_utc(j.end)) if j.end else None,
             "until": iso(_utc(j.end)) if j.end else iso(clock), "source": j.source}
            for j in jobs]
