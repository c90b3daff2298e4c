"""Arena scenarios on the GPU fabric (issue 15): a job question ("job 4711 hit an NCCL timeout")
with one of the fabric's faults on a NIC, a host or a rail leaf uplink the job uses; healthy jobs;
and red herrings (the fault on a host the job does not use). The lab is the `ai` spec, built once
to read its jobs and links; every scenario is scored like any other (shared/specs/scenario.md)."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import yaml

from netopsai.arena.cases import AI_LABEL
from netopsai.arena.generate import CLOCK, MANIFEST, MAX_N
from netopsai.common.errors import NetopsError
from netopsai.common.hostlist import compress
from netopsai.copilot.arena_door import RunningJob, device_names, lab_store, link_rows, running_jobs

SPEC = "ai"
NICS = 8
# the fabric's own kinds, and the standard kinds a GPU fabric suffers as much (scenario.md)
LABELS = {**AI_LABEL, "crc_errors": "link.errors"}
# in equal shares: each fault kind on the job, a healthy job, a fault beside the job
CATEGORIES = (*LABELS, "healthy", "herring")
QUESTIONS = ("job {job} hit an NCCL timeout", "NCCL timeouts in job {job}",
             "why is job {job} slow?", "job {job} stalls in all-reduce, RDMA errors",
             "NCCL timeouts on {hosts}")


class Fabric:
    """What the generator needs of the lab: running jobs, hosts, rail leaves' uplinks."""

    def __init__(self, scale: str, seed: int) -> None:
        from netopsai.lab.manage import init_lab

        with tempfile.TemporaryDirectory(prefix="netopsai-arena-ai-") as tmp:
            engine = lab_store(f"sqlite:///{tmp}/lab.db")
            init_lab(engine, SPEC, scale, seed)
            self.jobs = running_jobs(engine)
            self.hosts = device_names(engine, "gpu_host")
            links = link_rows(engine)
            engine.dispose()
        hosts = set(self.hosts)
        ends = [((lk["a_device"], lk["a_interface"]), (lk["b_device"], lk["b_interface"]))
                for lk in links]
        ends += [(z, a) for a, z in ends]  # either way round
        self.leaf_of = {a: z[0] for a, z in ends if a[0] in hosts}
        self.facing = {a: z for a, z in ends if a[0] in hosts}  # (host, nic) -> (leaf, port)
        rail_leaves = set(self.leaf_of.values())
        self.uplinks = {leaf: sorted(a[1] for a, z in ends if a[0] == leaf and z[0] not in hosts)
                        for leaf in rail_leaves}
        if not self.jobs:
            raise NetopsError(f"the {SPEC} lab at this scale has no running job to ask about")


def _fault(fab: Fabric, rng: random.Random, kind: str, job: RunningJob,
           hosts: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The fault on one of `hosts` (or its rail leaf) and what a right answer names."""
    host, nic = rng.choice(hosts), f"mlx5_{rng.randrange(NICS)}"
    if kind == "gpu_host_down":
        return {"kind": kind, "target": {"device": host}}, {"device": host, "interface": None}
    if kind == "ecmp_collision":
        leaf = fab.leaf_of[(host, nic)]
        port = rng.choice(fab.uplinks[leaf])
        return ({"kind": kind, "target": {"link": f"{leaf}:{port}"}, "params": {"job": job.id}},
                {"device": leaf, "interface": port})
    if kind == "crc_errors":  # counted where the bad signal arrives: the NIC or the leaf's port
        dev, port = rng.choice([(host, nic), fab.facing[(host, nic)]])
        return ({"kind": kind, "target": {"link": f"{dev}:{port}"}},
                {"device": dev, "interface": port})
    where = "interface" if kind == "pfc_storm" else "link"
    params = {"count": rng.randint(4, 9)} if kind == "nic_flap" else {}
    return ({"kind": kind, "target": {where: f"{host}:{nic}"}, "params": params},
            {"device": host, "interface": nic})


def _one(fab: Fabric, rng: random.Random, sid: int, category: str, scale: str,
         seed: int) -> dict[str, Any]:
    job = rng.choice(fab.jobs)
    faults: list[dict[str, Any]] = []
    expect: dict[str, Any] = {"root_cause": "none", "device": None, "interface": None,
                              "must_cite": ["metadata", "telemetry"]}
    if category in LABELS:
        fault, where = _fault(fab, rng, category, job, job.hosts)
        faults, expect = [fault], {**expect, "root_cause": LABELS[category], **where}
    elif category == "herring":
        others = [h for h in fab.hosts if h not in set(job.hosts)]
        kind = rng.choice(["nic_flap", "pfc_storm", "gpu_host_down", "rail_link_down", "crc_errors"])
        faults = [_fault(fab, rng, kind, job, others)[0]]
    for f in faults:
        f["at"] = f"-{rng.randint(12, 40)}m"
    phrase = rng.choice(QUESTIONS)
    return {"id": f"{sid:03d}-ai-{category.replace('_', '-')}",
            "lab": {"spec": SPEC, "scale": scale, "seed": seed},
            "now": CLOCK.strftime("%Y-%m-%dT%H:%M:%SZ"), "faults": faults,
            "noise": {"alarms": rng.randint(5, 25), "changes": rng.randint(1, 8), "flaps": rng.randint(0, 3)},
            "question": phrase.format(job=job.id, hosts=compress(job.hosts)), "expect": expect}


def generate_ai(n: int, seed: int, scale: str = "small", lab_seed: int = 7) -> list[dict[str, Any]]:
    """n scenarios, deterministic by seed, the categories in equal shares."""
    if not 1 <= n <= MAX_N:
        raise NetopsError(f"--n must be between 1 and {MAX_N}, not {n}")
    rng = random.Random(seed)
    fab = Fabric(scale, lab_seed)
    categories = [CATEGORIES[i % len(CATEGORIES)] for i in range(n)]
    rng.shuffle(categories)
    return [_one(fab, rng, i, c, scale, lab_seed) for i, c in enumerate(categories, start=1)]


def write_ai(out_dir: Path, n: int, seed: int, scale: str = "small", lab_seed: int = 7) -> list[Path]:
    made = generate_ai(n, seed, scale, lab_seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for sc in made:
        p = out_dir / f"{sc['id']}.yaml"
        p.write_text(yaml.safe_dump(sc, sort_keys=False, default_flow_style=None, width=100))
        paths.append(p)
    manifest = {"seed": seed, "n": n, "lab": {"spec": SPEC, "scale": scale, "seed": lab_seed},
                "scenarios": [{"id": sc["id"], "category": sc["id"].split("-ai-", 1)[1]}
                              for sc in made]}
    (out_dir / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return paths
