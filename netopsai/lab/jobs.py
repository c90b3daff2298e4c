"""Jobs on the lab's GPU PoDs (the `Job` table, source "lab"), as a Slurm cluster would hold
them: a long pre-training run on half of a PoD, a fine-tune and an evaluation on smaller slices,
and finished ones from the days before; deterministic by seed."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

OWNERS = ("alice", "bob", "chen", "dmitri", "esra", "farid")
# name, share of the PoD's hosts, where the slice starts (share), started before the clock, runs
# for (None: still running), state
PLAN: tuple[tuple[str, float, float, timedelta, timedelta | None, str], ...] = (
    ("llama-70b-pretrain", 0.5, 0.0, timedelta(hours=30), None, "RUNNING"),
    ("moe-finetune", 0.25, 0.5, timedelta(hours=3), None, "RUNNING"),
    ("eval-harness", 0.125, 0.75, timedelta(minutes=50), None, "RUNNING"),
    ("vit-sweep", 1.0, 0.0, timedelta(days=3), timedelta(hours=20), "COMPLETED"),
    ("nccl-allreduce-test", 0.25, 0.75, timedelta(hours=40), timedelta(minutes=25), "FAILED"),
)


def lab_jobs(devices: list[dict[str, Any]], clock: datetime, seed: int) -> list[dict[str, Any]]:
    """Job rows for every GPU PoD among the devices (none without GPU hosts)."""
    rng = random.Random(seed + 15)
    pods: dict[str, list[str]] = {}
    for d in devices:
        if d["role"] == "gpu_host":
            pods.setdefault(d["pod"], []).append(d["name"])
    rows: list[dict[str, Any]] = []
    job_id = 4700
    for _, pod_hosts in sorted(pods.items()):
        hosts = sorted(pod_hosts)
        for name, share, at, ago, runs, state in PLAN:
            lo = int(at * len(hosts))
            part = hosts[lo:lo + max(1, int(share * len(hosts)))]
            job_id += 1 + rng.randrange(40)
            start = clock - ago
            rows.append({"id": str(job_id), "name": name, "owner": rng.choice(OWNERS),
                         "hosts": part, "start": start, "end": start + runs if runs else None,
                         "state": state, "source": "lab"})
    return rows
