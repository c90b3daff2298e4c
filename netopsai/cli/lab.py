"""netopsai command group: lab — the embedded lab network: build it, inject a scenario's
faults, reset it to healthy, say what it is."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from sqlalchemy import Engine


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add this group's commands to `lab`; heavy imports stay inside the commands."""
    lab_app.command("init")(init_cmd)
    lab_app.command("inject")(inject_cmd)
    lab_app.command("reset")(reset_cmd)
    lab_app.command("status")(status_cmd)


def init_cmd(scale: Annotated[str, typer.Option(help="small | medium | large")] = "small",
             seed: Annotated[int, typer.Option(help="Same seed, same lab")] = 7,
             spec: Annotated[str, typer.Option(help="Lab spec in inventory/ or a YAML path")] = "default",
             now: Annotated[str | None,
                            typer.Option(help="Lab clock, ISO time (default: now)")] = None) -> None:
    """Build the embedded lab with a week of history up to the lab clock."""
    from netopsai.common.timewin import parse_time
    from netopsai.lab.manage import init_lab

    clock = parse_time(now, datetime.now(UTC)) if now else None
    info = init_lab(_engine(), spec, scale, seed, clock)
    typer.echo(f"lab {info.spec}/{info.scale} seed {info.seed} ready, clock {info.clock:%Y-%m-%dT%H:%M:%SZ}")


def inject_cmd(scenario: Annotated[Path, typer.Argument(
                   help="Scenario YAML file; examples: bench/scenarios/*.yaml (the default lab), "
                        "bench/scenarios-ai/*.yaml (lab: {spec: ai})")],
               keep: Annotated[bool, typer.Option(
                   "--keep", help="Add the faults to the lab's current ones (same lab and clock) "
                                  "instead of resetting it first")] = False) -> None:
    """Put a scenario's faults and noise into the lab. The lab is reset to healthy first, so
    faults injected before are gone (--keep adds to them); a scenario's `lab:` (spec, scale,
    seed; the default lab when absent) and `now:` rebuild the lab when they differ from it.
    The format: the README's "Scenario files"; examples in bench/scenarios*/."""
    from netopsai.lab.inject import inject
    from netopsai.lab.scenario import load_scenario

    done = inject(_engine(), load_scenario(scenario), keep=keep)
    typer.echo(done.words())


def reset_cmd() -> None:
    """Back to the healthy lab of the last init."""
    from netopsai.lab.manage import reset_lab

    info = reset_lab(_engine())
    typer.echo(f"lab reset to healthy {info.spec}/{info.scale} seed {info.seed}")


def status_cmd() -> None:
    """Show the lab's spec, scale, seed and clock."""
    from netopsai.lab.manage import lab_info

    info = lab_info(_engine())
    typer.echo(f"lab {info.spec}/{info.scale} seed {info.seed} clock {info.clock:%Y-%m-%dT%H:%M:%SZ}")


def _engine() -> Engine:
    from netopsai.copilot.frontend import store_engine  # here: `netopsai --help` stays quick

    return store_engine()
