"""A job question on the AI lab with thousands of GPUs (issue 15, "a job question answered right
on a lab with a few thousand GPUs within 2 s offline"): the `ai` spec at medium (2,048 GPUs) and
large (4,096 GPUs), a PFC storm injected on a NIC of the biggest running lab job, then "job N hit
an NCCL timeout" asked offline through Copilot. The answer must name link.pfc_storm on that NIC
(checked every run); wall time of the first question (a fresh Copilot) and the median of `--runs`.

    .venv/bin/python -m bench.bench_job_question [--scales medium large] [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
from bench.bench_foundation import _machine, write_section  # noqa: E402


def build(path: Path, scale: str) -> tuple[Any, str, str]:
    """The lab with the storm; (engine, the job's id, the storming host)."""
    from sqlmodel import Session, select

    from netopsai.lab.inject import inject
    from netopsai.lab.manage import init_lab, lab_info
    from netopsai.lab.scenario import Scenario
    from netopsai.store import tables as m
    from netopsai.store.engine import engine_for

    engine = engine_for(f"sqlite:///{path}")
    init_lab(engine, "ai", scale, 7)
    with Session(engine) as s:
        jobs = [j for j in s.exec(select(m.Job)) if j.end is None]
    job = max(jobs, key=lambda j: len(j.hosts))
    host = job.hosts[len(job.hosts) // 2]
    inject(engine, Scenario.model_validate({
        "id": "bench-job", "lab": {"spec": "ai", "scale": scale, "seed": 7},
        "now": lab_info(engine).clock,
        "faults": [{"kind": "pfc_storm", "at": "-20m", "target": {"interface": f"{host}:mlx5_3"}}]}))
    return engine, job.id, host


def measure(scale: str, runs: int) -> dict[str, Any]:
    from netopsai.backends.lab import lab_backends
    from netopsai.copilot.service import Copilot

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        engine, job, host = build(Path(tmp) / "ai.db", scale)
        built = time.perf_counter() - t0
        question = f"job {job} hit an NCCL timeout"
        times = []
        for i in range(runs + 1):
            copilot = Copilot(lab_backends(engine))  # a fresh one each time: nothing cached
            t0 = time.perf_counter()
            r = copilot.answer(question, f"bench-{i}")
            times.append(time.perf_counter() - t0)
            rc = r["root_cause"]
            assert (rc["label"], rc["device"], rc["interface"]) == ("link.pfc_storm", host, "mlx5_3"), rc
        with engine.connect() as c:
            from sqlalchemy import text
            hosts = c.execute(text("SELECT count(*) FROM device WHERE role = 'gpu_host'")).scalar_one()
    return {"scale": scale, "gpus": hosts * 8, "job": job, "build_s": built, "first_s": times[0],
            "median_s": statistics.median(times[1:]), "max_s": max(times[1:])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", nargs="+", default=["medium", "large"])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    a = ap.parse_args()
    rows = [measure(s, a.runs) for s in a.scales]
    mach = _machine()
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    body = "\n".join([
        f"## Job question on the AI lab (issue 15) — {datetime.now(UTC):%Y-%m-%d %H:%M} UTC", "",
        f"Machine: {mach['cpu']}, {mach['cores']} cores, {mach['ram']}; rev {mach['rev']}; "
        f"load {load}. `bench/bench_job_question.py`: a PFC storm on a NIC of the biggest running "
        "job, \"job N hit an NCCL timeout\" asked offline; every run named link.pfc_storm on that "
        f"NIC. Median of {a.runs} after the first.", "",
        "| scale | GPUs | lab build | first question | median | max |", "|---" * 6 + "|",
        *(f"| {r['scale']} | {r['gpus']:,} | {r['build_s']:.1f} s | {r['first_s']:.2f} s | "
          f"{r['median_s']:.2f} s | {r['max_s']:.2f} s |" for r in rows)]) + "\n"
    print(body)
    write_section(a.out, "job-question", body)


if __name__ == "__main__":
    main()
