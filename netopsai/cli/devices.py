"""netopsai command groups: devices (NAPALM, read-only), inventory (import); registered by launch/app.py."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from netopsai.cli.textout import echo

devices_app = typer.Typer(no_args_is_help=True, help="Real devices through NAPALM (read-only).")
inventory_app = typer.Typer(no_args_is_help=True, help="Import an inventory into the store.")

HostOpt = Annotated[list[str] | None, typer.Option(
    "--host", help="Device address (repeat for more); default: the napalm devices of config.yaml")]
PortOpt = Annotated[int, typer.Option(help="SSH port")]
DriverOpt = Annotated[str, typer.Option(help="NAPALM driver: ios, eos, junos, nxos_ssh, iosxr ...")]
UserOpt = Annotated[str, typer.Option(help="SSH user name")]
PassEnvOpt = Annotated[str, typer.Option(help="Environment variable holding the SSH password")]
TimeoutOpt = Annotated[int, typer.Option(help="Seconds to wait for a device")]


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add this group's commands; heavy imports stay inside the commands."""
    app.add_typer(devices_app, name="devices")
    app.add_typer(inventory_app, name="inventory")


@inventory_app.command("import")
def inventory_import(
        files: Annotated[list[Path], typer.Argument(help="NetBox CSV exports and/or YAML specs")],
        scale: Annotated[str, typer.Option(help="Scale preset of a YAML spec")] = "small",
        seed: Annotated[int, typer.Option(help="Seed of a YAML spec's generator")] = 7,
        replace: Annotated[bool, typer.Option(help="Empty the store first (e.g. it holds the lab)")]
        = False,
        force: Annotated[bool, typer.Option(help="With --replace: allow files that hold no devices")]
        = False) -> None:
    """Import NetBox CSV exports (devices, interfaces, cables, prefixes, IP addresses) or a YAML
    spec; every file is validated first and a failed import changes nothing."""
    from netopsai.copilot.frontend import store_engine
    from netopsai.lab.inventory_yaml import import_files

    result = import_files(store_engine(), files, scale=scale, seed=seed, replace=replace, force=force)
    echo(result.line())


def _targets(hosts: list[str] | None, port: int, driver: str, username: str, password_env: str,
             timeout: int) -> list[Any]:
    """Targets from the command line, or the configured devices (credentials from secrets.yaml)."""
    import os

    from pydantic import SecretStr

    from netopsai.backends.napalm.device import DeviceTarget
    from netopsai.common.errors import NetopsError

    if not hosts:
        from netopsai.backends.napalm.device import napalm_targets
        from netopsai.config.load import load_netconfig

        configured = list(napalm_targets(load_netconfig()).values())
        if not configured:
            raise NetopsError("give --host, or list devices under 'napalm:' in config.yaml")
        return [t.model_copy(update={"timeout": timeout}) for t in configured]
    password = os.environ.get(password_env)
    if password is None:
        raise NetopsError(f"environment variable {password_env} is not set (it holds the password)")
    return [DeviceTarget(host=h, port=port, driver=driver, username=username,
                         password=SecretStr(password), timeout=timeout) for h in hosts]


@devices_app.command("discover")
def devices_discover(host: HostOpt = None, port: PortOpt = 22, driver: DriverOpt = "ios",
                     username: UserOpt = "admin", password_env: PassEnvOpt = "NETOPSAI_SSH_PASSWORD",
                     site: Annotated[str, typer.Option(help="Site of new devices")] = "default",
                     role: Annotated[str | None, typer.Option(help="Role of new devices "
                                                              "(default: from the hostname)")] = None,
                     timeout: TimeoutOpt = 30) -> None:
    """Read facts, interfaces, addresses and LLDP neighbours from devices into the inventory."""
    from netopsai.backends.napalm.discovery import discover
    from netopsai.common.errors import NetopsError
    from netopsai.copilot.frontend import store_engine

    targets = _targets(host, port, driver, username, password_env, timeout)
    result = discover(store_engine(), targets, site=site, role=role)
    echo(result.line())
    if result.errors and not result.devices:
        raise NetopsError(result.errors[0])
    for err in result.errors:  # the devices' own words: visible (netopsai.cli.textout)
        echo(f"partial: {err}", err=True)


@devices_app.command("snapshot")
def devices_snapshot(host: HostOpt = None, port: PortOpt = 22, driver: DriverOpt = "ios",
                     username: UserOpt = "admin", password_env: PassEnvOpt = "NETOPSAI_SSH_PASSWORD",
                     timeout: TimeoutOpt = 30) -> None:
    """Store each device's running config; a difference from the last one becomes a change record."""
    from netopsai.backends.napalm.config import snapshot
    from netopsai.common.errors import NetopsError
    from netopsai.copilot.frontend import store_engine

    targets = _targets(host, port, driver, username, password_env, timeout)
    result = snapshot(store_engine(), targets)
    for line in result.lines():
        echo(line)
    if result.errors and not result.taken:
        raise NetopsError(result.errors[0])
    for err in result.errors:
        echo(f"partial: {err}", err=True)
