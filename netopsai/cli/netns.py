"""netopsai command group: `lab netns up|down|inject|status` (registered by the launcher, launch/app.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

netns_app = typer.Typer(no_args_is_help=True, help=(
    "A real routed lab of Linux network namespaces (198.18.0.0/15, needs root): real traceroute "
    "between its hosts."))


@netns_app.command("up")
def netns_up(spec: Annotated[str, typer.Option(help="small | tiny | bench")] = "small",
             prefix: Annotated[str, typer.Option(help="Namespace name prefix")] = "nx-") -> None:
    """Build the namespace lab and register it in the inventory."""
    from netopsai.backends.netns.lab import up
    from netopsai.copilot.frontend import store_engine

    lab = up(store_engine(), spec, prefix)
    hosts = sum(1 for d in lab.namespaces if "-host-" in d)
    typer.echo(f"namespace lab {spec} up: {len(lab.namespaces)} namespaces ({prefix}*), "
               f"{hosts} hosts, built in {lab.record.get('build_s')} s")


@netns_app.command("down")
def netns_down() -> None:
    """Delete the lab's namespaces and its inventory rows."""
    from netopsai.backends.netns.lab import down
    from netopsai.copilot.frontend import store_engine

    gone, devices = down(store_engine())
    typer.echo(f"namespace lab down: {gone} namespaces deleted, {devices} devices removed "
               f"from the inventory")


@netns_app.command("inject")
def netns_inject(scenario: Annotated[Path, typer.Argument(help="Scenario YAML file")]) -> None:
    """Apply a scenario's faults for real (link_down, acl_block, blackhole, crc_errors,
    device_down; change records)."""
    from netopsai.backends.netns.inject import inject
    from netopsai.copilot.frontend import store_engine
    from netopsai.lab.scenario import load_scenario

    sc = load_scenario(scenario)
    done = inject(store_engine(), sc)
    typer.echo(f"scenario {sc.id}: injected {'; '.join(done) or 'no faults'}")


@netns_app.command("status")
def netns_status() -> None:
    """Which namespace lab is up, and whether its namespaces exist."""
    from netopsai.backends.netns.lab import read_lab
    from netopsai.backends.netns.sh import namespaces
    from netopsai.common.errors import NetopsError
    from netopsai.copilot.frontend import store_engine

    lab = read_lab(store_engine())
    if lab is None:
        raise NetopsError("no namespace lab is up in this store")
    alive = len(set(lab.namespaces.values()) & namespaces())
    typer.echo(f"namespace lab {lab.spec} ({lab.prefix}*): {alive} of {len(lab.namespaces)} "
               f"namespaces present")


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add this group's commands; heavy imports stay inside the commands."""
    lab_app.add_typer(netns_app, name="netns")
