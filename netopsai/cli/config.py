"""netopsai command group: config (registered by the launcher, launch/app.py).

`config check` validates NETOPSAI_HOME/config.yaml, secrets.yaml and the NETOPSAI_<SECTION>_<FIELD>
overrides and names every problem (file or variable, field, line, closest valid value);
`config show` prints the effective configuration with every secret masked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from netopsai.common.textsafe import visible

if TYPE_CHECKING:
    from netopsai.config.network import NetConfig

config_app = typer.Typer(no_args_is_help=True, help="Backends, targets and credentials (config.yaml).")


def _fail(problems: list[str]) -> NoReturn:
    """Every problem on its own line (stderr), then a non-zero exit: never a traceback."""
    for line in problems:
        typer.echo(f"error: {visible(line)}", err=True)
    raise typer.Exit(2)


def _availability(cfg: NetConfig) -> list[str]:
    """Selected real backends whose module cannot be imported here."""
    from netopsai.backends.registry import Role, lookup, module_of
    from netopsai.common.errors import NetopsError

    out = []
    choice = cfg.settings.backend
    chosen: tuple[tuple[Role, str], ...] = (("telemetry", choice.telemetry), ("paths", choice.paths))
    for role, kind in chosen:
        source = lookup(role, kind)
        try:
            if source is not None:
                module_of(source)
        except NetopsError as exc:
            out.append(str(exc))
    return sorted(out)


def _sources(cfg: NetConfig) -> list[str]:
    import os

    from netopsai.config.network import CONFIG_FILE, ENV_PREFIX, SECRETS_FILE

    sections = ("BACKEND", "SNMP", "NAPALM", "PROMETHEUS", "TRACEROUTE", "INGEST")
    env = sorted(k for k in os.environ if k.upper().startswith(tuple(f"{ENV_PREFIX}{s}" for s in sections)))
    return [f"config: {cfg.config_file or f'{cfg.home / CONFIG_FILE} (absent: defaults)'}",
            f"secrets: {cfg.secrets_file or f'{cfg.home / SECRETS_FILE} (absent: none)'}",
            f"environment overrides: {', '.join(env) or 'none'}"]


def check() -> None:
    """Validate the configuration; exit non-zero naming each problem."""
    from netopsai.config.load import check_netconfig
    from netopsai.config.settings import open_to_others

    cfg, problems = check_netconfig()
    if cfg is not None:
        problems += _availability(cfg)
        for line in open_to_others(cfg.home):  # a warning: older releases made it 0755
            typer.echo(f"warning: {visible(line)}", err=True)
    if problems or cfg is None:
        _fail(problems)
        return
    in_use = _in_use(cfg)  # before "config ok": a store out of reach fails the check
    b = cfg.settings.backend
    typer.echo(f"config ok: telemetry {b.telemetry}, paths {b.paths}; inventory, changes and alarms "
               f"from the store; {len(cfg.settings.snmp.targets)} SNMP targets, "
               f"{len(cfg.settings.napalm)} NAPALM devices")
    for line in [*_sources(cfg), in_use]:
        typer.echo(f"  {visible(line)}")


def _in_use(cfg: NetConfig) -> str:
    """What `auto` means for the store as it is now (or why it cannot be said)."""
    from netopsai.backends.registry import resolved_kinds
    from netopsai.common.errors import NetopsError
    from netopsai.config.settings import StoreSettings
    from netopsai.copilot.admin import StoreUnreachable, store_at

    store = StoreSettings()
    if store.sqlite_path is not None and not store.sqlite_path.exists():  # checking creates nothing
        return f"store: no database yet at {store.sqlite_path}"
    try:
        telemetry, paths = resolved_kinds(store_at(store.url), cfg)
    except StoreUnreachable as exc:  # DATABASE_URL is configuration too: the check fails
        _fail([str(exc)])
    except NetopsError as exc:
        return f"store: {exc}"
    return f"for the store now: telemetry {telemetry}, paths {paths}"


def show(as_json: bool = False) -> None:
    """Print the effective configuration (file + environment), secrets masked."""
    import json

    import yaml

    from netopsai.config.load import check_netconfig

    cfg, problems = check_netconfig(usage=False)
    if problems or cfg is None:
        _fail(problems)
        return
    data: dict[str, Any] = {**cfg.settings.model_dump(mode="json"),
                            "secrets": cfg.secrets.model_dump(mode="json", exclude_none=True)}
    if as_json:
        typer.echo(json.dumps(data, indent=2))
        return
    for line in _sources(cfg):
        typer.echo(f"# {line}")
    typer.echo(yaml.safe_dump(data, sort_keys=False).rstrip())


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add this group's commands; heavy imports stay inside the commands."""
    config_app.command("check")(check)

    @config_app.command("show")
    def show_cmd(as_json: Annotated[bool, typer.Option("--json", help="JSON instead of YAML")] = False,
                 ) -> None:
        """Print the effective configuration (file + environment), secrets masked."""
        show(as_json)

    app.add_typer(config_app, name="config")
