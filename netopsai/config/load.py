"""Reading config.yaml + secrets.yaml (+ env overrides) into a NetConfig, and saying exactly what is
wrong when they do not validate: the file or environment variable, the field, its line, and the
closest valid value. Messages never quote a value from the secrets file."""

from __future__ import annotations

import os
import re
import shutil
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from netopsai.common.errors import MalformedFile, NetopsError, parse_yaml, unknown
from netopsai.config.network import (
    CONFIG_FILE,
    ENV_PREFIX,
    SECRETS_FILE,
    NetConfig,
    NetSettings,
    Secrets,
)

if TYPE_CHECKING:
    import yaml


def default_home() -> Path:
    from netopsai.config.settings import StoreSettings

    return StoreSettings().home


def load_netconfig(home: Path | None = None) -> NetConfig:
    """The effective configuration; a NetopsError naming the first problem when it is invalid."""
    cfg, problems = check_netconfig(home, usage=False)
    if problems or cfg is None:
        raise NetopsError(problems[0] if problems else "invalid configuration")
    return cfg


def check_netconfig(home: Path | None = None, usage: bool = True) -> tuple[NetConfig | None, list[str]]:
    """Every problem found, one line each (empty when the configuration is sound). `usage` adds
    the checks of what the selected backends need (targets, credentials, binaries)."""
    home = home or default_home()
    cfg_path, sec_path = home / CONFIG_FILE, home / SECRETS_FILE
    problems: list[str] = []
    settings = read_settings(cfg_path, problems)
    secrets = _secrets(sec_path, problems)
    if settings is None or secrets is None:
        return None, problems
    cfg = NetConfig(settings=settings, secrets=secrets, home=home,
                    config_file=cfg_path if cfg_path.exists() else None,
                    secrets_file=sec_path if sec_path.exists() else None)
    if usage:
        problems += usage_problems(cfg)
    return cfg, problems


def _read_yaml(path: Path, problems: list[str], secret: bool) -> tuple[dict[str, Any], yaml.Node | None]:
    """The file's mapping and its node tree (for line numbers); {} when the file is absent."""
    if not path.exists():
        return {}, None
    import yaml  # here: most homes have no config.yaml, and a cold `ask` saves ~10 ms

    try:
        text = path.read_text(encoding="utf-8")
        data = parse_yaml(text, str(path))  # problem and line only: a snippet could show a secret
        tree = yaml.compose(text)
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{path}: cannot read: {type(exc).__name__}")
        return {}, None
    except MalformedFile as exc:
        where = f" line {exc.line}" if exc.line else ""
        problems.append(f"{path}{where}: YAML syntax error: {exc.problem}")
        return {}, None
    if data is None:
        return {}, tree
    if not isinstance(data, dict):
        kind = "secrets (snmp, ssh, webhook)" if secret else "sections (backend, snmp, napalm, ...)"
        problems.append(f"{path}: the top level must be a mapping of {kind}, not a {type(data).__name__}")
        return {}, None
    return data, tree


def read_settings(path: Path, problems: list[str]) -> NetSettings | None:
    before = len(problems)
    data, tree = _read_yaml(path, problems, secret=False)
    if len(problems) > before:
        return None
    try:
        return NetSettings(**data)
    except ValidationError as exc:
        problems += [_describe(err, NetSettings, path, tree, secret=False) for err in exc.errors()]
        return None


def secrets_mode_problem(path: Path) -> str | None:
    """A secrets file others can read is refused, with the command that fixes it."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        return (f"{path} is readable by group or others (mode {mode:04o}); it holds credentials: "
                f"run 'chmod 600 {path}'")
    return None


def _secrets(path: Path, problems: list[str]) -> Secrets | None:
    if path.exists():
        bad_mode = secrets_mode_problem(path)
        if bad_mode:
            problems.append(bad_mode)
            return None
    before = len(problems)
    data, tree = _read_yaml(path, problems, secret=True)
    if len(problems) > before:
        return None
    try:
        return Secrets.model_validate(data)
    except ValidationError as exc:
        problems += [_describe(err, Secrets, path, tree, secret=True) for err in exc.errors()]
        return None


def _describe(err: Any, model: type[BaseModel], path: Path, tree: yaml.Node | None,
              secret: bool) -> str:
    """One line for one pydantic error: where (env var, or file + field + line) and what."""
    loc = tuple(err["loc"])
    dotted = _dotted(loc)
    env = None if secret else _env_var(loc)
    if env:
        where = f"environment variable {env} ({dotted})"
    else:
        line = _line(tree, loc)
        where = f"{path}: {dotted}" + (f" (line {line})" if line else "")
    return f"{where}: {_what(err, model, loc, secret)}"


def _what(err: Any, model: type[BaseModel], loc: tuple[Any, ...], secret: bool) -> str:
    kind, name = err["type"], str(loc[-1]) if loc else "value"
    if kind == "extra_forbidden":
        what = "section" if len(loc) == 1 else "field"
        return str(unknown(what, name, _fields_at(model, loc[:-1])))
    if kind == "literal_error" and not secret:
        choices = re.findall(r"'([^']*)'", err.get("ctx", {}).get("expected", ""))
        return str(unknown(name, str(err["input"]), choices))
    if kind == "missing":
        return "required field is missing"
    msg = str(err["msg"]).removeprefix("Value error, ")
    if secret or kind == "value_error" or isinstance(err.get("input"), dict | list):
        return msg
    return f"{msg} (got {err['input']!r})"


def _dotted(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _env_var(loc: tuple[Any, ...]) -> str | None:
    """The environment variable a bad value came from, when it came from one."""
    env = {k.upper() for k in os.environ}
    names = [f"{ENV_PREFIX}{loc[0]}_{loc[1]}" if len(loc) > 1 else "", f"{ENV_PREFIX}{loc[0]}" if loc else ""]
    return next((n.upper() for n in names if n and n.upper() in env), None)


def _line(node: yaml.Node | None, loc: tuple[Any, ...]) -> int | None:
    """The line of the deepest key of `loc` found in the YAML tree."""
    if node is None:
        return None
    import yaml

    line = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            hit = next(((k, v) for k, v in node.value if str(k.value) == str(part)), None)
            if hit is None:
                return line
            line, node = hit[0].start_mark.line + 1, hit[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def _fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The valid field names of the model found at `loc` (through lists of models)."""
    current: type[BaseModel] | None = model
    for part in loc:
        if isinstance(part, int):
            continue
        field = current.model_fields.get(part) if current is not None else None
        if field is None:
            return []
        current = _model_in(field.annotation)
    return list(current.model_fields) if current is not None else []


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The BaseModel class inside X, list[X] or X | None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def usage_problems(cfg: NetConfig) -> list[str]:
    """What the selected backends need and do not have (targets, credentials, binaries)."""
    s, sec = cfg.settings, cfg.secrets
    where = str(cfg.config_file or cfg.home / CONFIG_FILE)
    secrets_at = str(cfg.home / SECRETS_FILE)
    out: list[str] = []
    if s.backend.telemetry == "snmp" and not s.snmp.targets:
        out.append(f"{where}: backend.telemetry is snmp but snmp.targets is empty; "
                   "add targets like [{host: 192.0.2.1, port: 161, device: NAME}]")
    out += _snmp_credentials(cfg, secrets_at)
    if s.backend.paths == "napalm":
        if not s.napalm:
            out.append(f"{where}: backend.paths is napalm but the napalm device list is empty; "
                       "add devices like [{name: NAME, host: ADDRESS, driver: ios}]")
        if not sec.ssh.username:
            out.append(f"{secrets_at}: backend.paths is napalm but ssh.username is not set")
        if sec.ssh.password is None and sec.ssh.key_file is None:
            out.append(f"{secrets_at}: backend.paths is napalm but neither ssh.password nor "
                       "ssh.key_file is set")
    if sec.ssh.key_file is not None and not sec.ssh.key_file.expanduser().is_file():
        out.append(f"{secrets_at}: ssh.key_file {sec.ssh.key_file} does not exist")
    if s.backend.paths == "system" and shutil.which("traceroute") is None:
        out.append("backend.paths is system but the traceroute program is not installed "
                   "(apt-get install traceroute)")
    out += _duplicates("snmp.targets", [t.name for t in s.snmp.targets], where)
    out += _duplicates("napalm", [d.name for d in s.napalm], where)
    return out


def _snmp_credentials(cfg: NetConfig, secrets_at: str) -> list[str]:
    """Each target's credentials (the shared ones, or its own under snmp.devices)."""
    snmp, out = cfg.settings.snmp, []
    for t in snmp.targets:
        sec, who = cfg.secrets.snmp.for_target(t.name), f"target {t.name!r}"
        if snmp.version == "2c" and sec.community is None:
            out.append(f"{secrets_at}: SNMP v2c needs snmp.community ({who} has none)")
        if snmp.version == "3" and not sec.user:
            out.append(f"{secrets_at}: SNMP v3 needs snmp.user ({who} has none)")
        if snmp.version == "3" and sec.auth_key is None:
            out.append(f"{secrets_at}: SNMP v3 needs snmp.auth_key ({who} has none)")
        if snmp.version == "3" and snmp.priv_protocol != "none" and sec.priv_key is None:
            out.append(f"{secrets_at}: SNMP v3 with priv_protocol {snmp.priv_protocol} needs "
                       f"snmp.priv_key ({who} has none; or set snmp.priv_protocol: none)")
    unknown_names = sorted(set(cfg.secrets.snmp.devices) - {t.name for t in snmp.targets})
    out += [f"{secrets_at}: snmp.devices names {n!r}, which is no SNMP target in the config"
            for n in unknown_names]
    return out


def _duplicates(what: str, names: list[str], where: str) -> list[str]:
    seen: set[str] = set()
    dup = sorted({n for n in names if n in seen or seen.add(n)})  # type: ignore[func-returns-value]
    return [f"{where}: {what} names {name!r} more than once" for name in dup]
