"""netopsai command group: jobs — compute jobs (GPU training runs) from a scheduler's export
(Slurm sacct/squeue, a Kubernetes pod list) into the store, and the jobs it holds."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from netopsai.common.textsafe import visible


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add this group's commands; heavy imports stay inside the commands."""
    jobs = typer.Typer(no_args_is_help=True, help="Compute jobs from Slurm or Kubernetes exports.")
    app.add_typer(jobs, name="jobs")
    jobs.command("import")(import_cmd)
    jobs.command("list")(list_cmd)


def import_cmd(
        file: Annotated[Path, typer.Argument(help="sacct --parsable2 / squeue output, or "
                                                  "kubectl get pods -o json")],
        fmt: Annotated[str | None, typer.Option("--format", help="sacct | k8s (default: by the "
                                                                 "file's content)")] = None,
        label: Annotated[str | None, typer.Option(help="k8s: the pod label naming the job "
                                                       "(default: job-name and its kin)")] = None,
) -> None:
    """Import jobs (id, name, owner, hosts, start, end, state); a job already stored under the
    same id is replaced. The file is checked whole first: a bad file stores nothing."""
    from netopsai.copilot.admin import import_jobs
    from netopsai.copilot.frontend import store_engine

    typer.echo(visible(import_jobs(store_engine(), file, fmt, label).line()))


def list_cmd(running: Annotated[bool, typer.Option(help="Only jobs running now")] = False,
             as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False) -> None:
    """The stored jobs, the latest start first."""
    import json
    from datetime import UTC, datetime

    from netopsai.cli.zone import network_zone
    from netopsai.common.localtime import at
    from netopsai.copilot.admin import list_jobs
    from netopsai.copilot.frontend import store_engine

    jobs = list_jobs(store_engine(), datetime.now(UTC) if running else None)
    if as_json:  # parsed: ISO UTC, as stored
        typer.echo(json.dumps([j.model_dump(mode="json") for j in jobs]))
        return
    zone = network_zone()  # read by a person: on the network's clock, its zone named
    for j in jobs:
        hosts = ", ".join(j.hosts[:3]) + (f" … ({len(j.hosts)} hosts)" if len(j.hosts) > 3 else "")
        when = at(j.start, zone) if j.start else "-"
        until = at(j.end, zone) if j.end else "running" if j.state == "RUNNING" else "-"
        # names, owners and hosts are the scheduler's export's words: visible, one line a job
        typer.echo(visible(f"{j.id}\t{j.name}\t{j.owner}\t{j.state}\t{when} .. {until}\t")
                   + visible(hosts))
    if not jobs:
        typer.echo("no jobs in the store")
