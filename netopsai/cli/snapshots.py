"""netopsai command group: snapshot (take one device's snapshot now, read-only) and snapshots
(list a device's snapshots); registered by launch/app.py."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from netopsai.cli.textout import lines
from netopsai.common.textsafe import visible

DeviceArg = Annotated[str, typer.Argument(help="Device name, as config.yaml's napalm/snmp lists it")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON")]


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add this group's commands; heavy imports stay inside the commands."""
    app.command("snapshot")(snapshot_cmd)
    app.command("snapshots")(snapshots_cmd)


def snapshot_cmd(device: DeviceArg, as_json: JsonOpt = False) -> None:
    """Capture a device's state now (NAPALM getters and the running config's diff from its last
    snapshot; SNMP for a device with no NAPALM entry) and store it. Read-only: only getters
    reach the device. Credentials come from secrets.yaml and are never shown."""
    from netopsai.backends.snapshot.snapshotter import from_config
    from netopsai.common.errors import NetopsError
    from netopsai.config.load import load_netconfig
    from netopsai.copilot.admin import snapshot_row
    from netopsai.copilot.frontend import store_engine

    snaps = from_config(store_engine(), load_netconfig(), workers=1)
    if snaps is None:
        raise NetopsError("no devices to snapshot: list them under 'napalm:' (or snmp targets) "
                          "in config.yaml")
    try:
        row = snapshot_row(snaps.take(device))
    finally:
        snaps.close()
    _print([row], as_json)
    if row["errors"] and not row["read"]:
        raise typer.Exit(1)  # nothing was read: scripts must see it


def snapshots_cmd(device: DeviceArg, limit: Annotated[int, typer.Option(
        help="How many, newest first", min=1)] = 20, as_json: JsonOpt = False) -> None:
    """List a device's snapshots, newest first: when, for which alarm, what was read and what
    was not, and the running config's diff from the snapshot before."""
    from netopsai.copilot.admin import device_snapshot_rows
    from netopsai.copilot.frontend import store_engine

    engine = store_engine()
    rows = device_snapshot_rows(engine, device, limit)
    if not rows:
        _check_device(engine, device)  # a typo must not read as "no snapshots"
    if not rows and not as_json:
        typer.echo(visible(f"no snapshots of {device}"))
        return
    _print(rows, as_json)


def _check_device(engine: Any, device: str) -> None:
    """A one-line error, with the closest names, for a device that is neither in the
    inventory nor among the snapshots' devices (a configured device need not be in the
    inventory)."""
    from netopsai.common.errors import unknown
    from netopsai.copilot.admin import snapshot_device_names

    names = snapshot_device_names(engine)
    if device not in names:
        raise unknown("device", device, sorted(names))


def _print(rows: list[dict[str, object]], as_json: bool) -> None:
    from netopsai.copilot.admin import describe_snapshot

    if as_json:
        typer.echo(json.dumps(rows, default=str))
        return
    for row in rows:  # the device's own words (its config, its errors): visible, line by line
        typer.echo(visible(describe_snapshot(row)))
        for line in lines(row["config_diff"]).split("\n") if row["config_diff"] else []:
            typer.echo(f"  {line}")
        for err in row["errors"]:  # type: ignore[attr-defined]
            typer.echo(f"  not read: {visible(str(err))}")
