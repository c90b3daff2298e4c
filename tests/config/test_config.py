"""Configuration: config.yaml + env overrides + an owner-only secrets.yaml select each source's backend;
`netopsai config check` names every problem (file or variable, field, line, closest valid value);
the lab stays the default, and a store holding a real network works with tool and ask."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from netopsai.backends import registry as backend_registry
from netopsai.backends.lab.paths import LabPaths
from netopsai.backends.lab.telemetry import LabTelemetry
from netopsai.backends.snmp.telemetry import snmp_kwargs
from netopsai.common.errors import NetopsError
from netopsai.config.load import check_netconfig, load_netconfig
from netopsai.store.engine import engine_for
from netopsai.store.network import network_clock, network_kind
from netopsai.store.telemetry import StoreTelemetry
from tests.contract.stores import real_store
from tests.paths import DATA as TEST_DATA

DATA = TEST_DATA / "config"
_SCRIPT = Path(sys.executable).with_name("netopsai")
CLI = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "netopsai.cli"]


def home_with(tmp: Path, config: str | None = None, secrets: str | None = None,
              mode: int = 0o600) -> Path:
    """A NETOPSAI_HOME holding copies of the named data files."""
    home = tmp / "home"
    home.mkdir(parents=True, exist_ok=True)
    if config:
        shutil.copy(DATA / config, home / "config.yaml")
    if secrets:
        shutil.copy(DATA / secrets, home / "secrets.yaml")
        (home / "secrets.yaml").chmod(mode)
    return home


def run_cli(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items()
            if not k.startswith("NETOPSAI_") and k != "DATABASE_URL"}
    full.update(NETOPSAI_HOME=str(home), COLUMNS="200", NO_COLOR="1", TERM="dumb", **env)
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, env=full,
                          check=False)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("NETOPSAI_"):
            monkeypatch.delenv(key)


def test_no_files_means_the_lab(tmp_path: Path, lab_engine: object) -> None:
    cfg = load_netconfig(tmp_path)
    assert cfg.config_file is None and cfg.secrets_file is None
    assert (cfg.settings.backend.telemetry, cfg.settings.backend.paths) == ("auto", "auto")
    b = backend_registry.configured_backends(lab_engine, cfg)  # type: ignore[arg-type]
    assert type(b.telemetry) is LabTelemetry and type(b.paths) is LabPaths


def test_full_file_loads_and_secrets_stay_masked(tmp_path: Path) -> None:
    cfg = load_netconfig(home_with(tmp_path, "full.yaml", "full_secrets.yaml"))
    s = cfg.settings
    assert (s.backend.telemetry, s.backend.paths) == ("snmp", "system")
    assert [(t.name, t.port) for t in s.snmp.targets] == [("edge-sw-01", 16100), ("core-rtr-01", 16101)]
    assert (s.snmp.timeout, s.snmp.retries, s.snmp.concurrency) == (1.5, 2, 64)
    assert s.napalm[0].driver == "ios" and s.napalm[0].optional_args == {"transport": "ssh"}
    assert (s.traceroute.max_hops, s.traceroute.wait, s.ingest.trap_port) == (16, 0.5, 0)
    assert cfg.secrets.snmp.community is not None
    assert cfg.secrets.snmp.community.get_secret_value() == "netops-ro-community"
    assert "netops-ro-community" not in repr(cfg) and "netops-ssh-password" not in str(cfg)
    assert sorted(cfg.secret_values()) == ["netops-ro-community", "netops-ssh-password"]


def test_environment_overrides_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = home_with(tmp_path, "full.yaml", "full_secrets.yaml")
    monkeypatch.setenv("NETOPSAI_BACKEND_TELEMETRY", "prometheus")
    monkeypatch.setenv("NETOPSAI_TRACEROUTE_MAX_HOPS", "12")
    monkeypatch.setenv("NETOPSAI_PROMETHEUS_URL", "http://127.0.0.1:19090")
    s = load_netconfig(home).settings
    assert s.backend.telemetry == "prometheus" and s.backend.paths == "system"  # file kept
    assert s.traceroute.max_hops == 12 and s.traceroute.wait == 0.5
    assert s.prometheus.url == "http://127.0.0.1:19090"


@pytest.mark.parametrize(("config", "needles"), [
    ("typos.yaml", ["backend.telemetry (line 2): unknown telemetry 'snpm'; did you mean snmp?",
                    "backend.patths (line 3): unknown field 'patths'; did you mean paths?",
                    "tracerout (line 4): unknown section 'tracerout'; did you mean traceroute"]),
    ("bad_values.yaml", ["snmp.version (line 2): unknown version '4'; valid: 2c, 3",
                         "snmp.targets[0].port (line 5): Input should be less than or equal to 65535",
                         "napalm[0].driver (line 9): unknown NAPALM driver 'isos'; did you mean ios",
                         "napalm[1].optional_args (line 12): 'password' is a credential: put it in "
                         "secrets.yaml"]),
    ("syntax.yaml", ["config.yaml line 3: YAML syntax error: mapping values are not allowed here"]),
    ("not_mapping.yaml", ["the top level must be a mapping of sections"]),
])
def test_problems_name_file_field_line_and_closest_value(tmp_path: Path, config: str,
                                                         needles: list[str]) -> None:
    home = home_with(tmp_path, config)
    cfg, problems = check_netconfig(home)
    assert cfg is None and len(problems) == len(needles), problems
    for problem, needle in zip(problems, needles, strict=True):
        assert problem.startswith(str(home / "config.yaml")) and needle in problem, problem
    with pytest.raises(NetopsError, match="config.yaml"):
        load_netconfig(home)


def test_bad_env_value_names_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_BACKEND_PATHS", "sytem")
    _, problems = check_netconfig(home_with(tmp_path))
    assert problems == ["environment variable NETOPSAI_BACKEND_PATHS (backend.paths): unknown paths "
                        "'sytem'; did you mean system?"]


def test_group_readable_secrets_are_refused(tmp_path: Path) -> None:
    home = home_with(tmp_path, "full.yaml", "full_secrets.yaml", mode=0o640)
    path = home / "secrets.yaml"
    _, problems = check_netconfig(home)
    assert problems == [f"{path} is readable by group or others (mode 0640); it holds credentials: "
                        f"run 'chmod 600 {path}'"]
    path.chmod(0o600)
    assert check_netconfig(home)[1] == []


def test_secrets_problems_never_quote_a_value(tmp_path: Path) -> None:
    _, problems = check_netconfig(home_with(tmp_path, secrets="bad_secrets.yaml"))
    assert len(problems) == 2
    assert "snmp.comunity (line 2): unknown field 'comunity'; did you mean community?" in problems[0]
    assert "ssh.password (line 4): Input should be a valid string" in problems[1]
    text = (DATA / "bad_secrets.yaml").read_text()
    for value in ("a-secret-value", "secret-list-item"):
        assert value in text and not any(value in p for p in problems)


def test_selected_backends_need_their_targets_and_credentials(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    home = home_with(tmp_path)
    monkeypatch.setenv("NETOPSAI_BACKEND_TELEMETRY", "snmp")
    monkeypatch.setenv("NETOPSAI_BACKEND_PATHS", "napalm")
    _, problems = check_netconfig(home)
    assert any("backend.telemetry is snmp but snmp.targets is empty" in p for p in problems)
    assert any("napalm device list is empty" in p for p in problems)
    assert any("ssh.username is not set" in p for p in problems)
    monkeypatch.setenv("NETOPSAI_SNMP_TARGETS", '[{"host": "127.0.0.1", "device": "sw1"}, '
                                                '{"host": "127.0.0.2", "device": "sw2"}]')
    secrets = home / "secrets.yaml"
    secrets.write_text("snmp:\n  devices:\n    sw2: {community: own}\n    sw9: {community: x}\n")
    secrets.chmod(0o600)
    _, problems = check_netconfig(home)
    assert [p for p in problems if "SNMP" in p or "snmp.devices" in p] == [
        f"{secrets}: SNMP v2c needs snmp.community (target 'sw1' has none)",
        f"{secrets}: snmp.devices names 'sw9', which is no SNMP target in the config"]
    monkeypatch.setenv("NETOPSAI_SNMP_VERSION", "3")
    _, problems = check_netconfig(home)
    assert any("SNMP v3 needs snmp.user (target 'sw2' has none)" in p for p in problems)
    assert any("priv_protocol aes needs snmp.priv_key" in p for p in problems)


def test_per_device_snmp_credentials_override_the_shared_ones(tmp_path: Path) -> None:
    home = home_with(tmp_path, "full.yaml")
    (home / "secrets.yaml").write_text("snmp:\n  community: shared-c\n  devices:\n"
                                       "    core-rtr-01: {community: own-c}\n")
    (home / "secrets.yaml").chmod(0o600)
    cfg = load_netconfig(home)
    auth = {t.name: t.auth.community.get_secret_value()  # type: ignore[union-attr]
            for t in snmp_kwargs(cfg)["targets"]}
    assert auth == {"edge-sw-01": "shared-c", "core-rtr-01": "own-c"}
    assert sorted(cfg.secret_values()) == ["own-c", "shared-c"]


def test_missing_backend_module_is_a_clear_error(tmp_path: Path, lab_engine: object,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from netopsai.tools.registry import run_tool

    missing = backend_registry.Source("prometheus", "telemetry", "netopsai.backends.no_such_backend")
    monkeypatch.setitem(backend_registry.SOURCES, ("telemetry", "prometheus"), missing)
    monkeypatch.setenv("NETOPSAI_BACKEND_TELEMETRY", "prometheus")
    b = backend_registry.configured_backends(lab_engine, load_netconfig(home_with(tmp_path)))  # type: ignore[arg-type]
    ev = run_tool("telemetry", {"metric": "oper_status"}, b)
    assert ev.errors == ["backend prometheus not available in this installation "
                         "(netopsai.backends.no_such_backend is missing)"]
    assert run_tool("metadata", {"query": "sites"}, b).ok  # the other sources keep working


def test_real_store_reads_now_and_auto_picks_store_and_system(tmp_path: Path) -> None:
    engine = real_store(tmp_path / "real.db")
    assert network_kind(engine) == "real"
    assert abs(network_clock(engine) - datetime.now(UTC)) < timedelta(minutes=1)
    assert backend_registry.resolved_kinds(engine, load_netconfig(tmp_path)) == ("store", "system")
    b = backend_registry.build_telemetry("store", engine, load_netconfig(tmp_path))
    assert type(b) is StoreTelemetry


def test_empty_store_is_a_clear_error(tmp_path: Path) -> None:
    engine = engine_for(f"sqlite:///{tmp_path / 'empty.db'}")
    with pytest.raises(NetopsError, match="no lab or real network in the store; run 'netopsai lab init'"):
        backend_registry.configured_backends(engine, load_netconfig(tmp_path))


def test_cli_check_and_show(tmp_path: Path) -> None:
    home = home_with(tmp_path, "full.yaml", "full_secrets.yaml")
    r = run_cli(home, "config", "show")
    assert r.returncode == 0, r.stderr
    assert "telemetry: snmp" in r.stdout and "community: '**********'" in r.stdout
    assert "netops-ro-community" not in r.stdout + r.stderr
    assert "netops-ssh-password" not in r.stdout + r.stderr
    shutil.copy(DATA / "typos.yaml", home / "config.yaml")
    r = run_cli(home, "config", "check")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and "Traceback" not in r.stdout + r.stderr
    assert len(lines) == 3 and all(x.startswith(f"error: {home / 'config.yaml'}: ") for x in lines)
    r = run_cli(home_with(tmp_path / "fresh"), "config", "check")
    assert r.returncode == 0 and r.stdout.startswith("config ok: telemetry auto, paths auto")


def test_cli_tool_and_ask_work_on_a_real_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    real_store(home / "netopsai.db")
    r = run_cli(home, "config", "check")
    assert r.returncode == 0 and "for the store now: telemetry store, paths system" in r.stdout
    r = run_cli(home, "tool", "telemetry", '{"metric": "errors", "window": "1h"}', "--json")
    assert r.returncode == 0, r.stderr
    import json

    ev = json.loads(r.stdout)
    assert ev["rows"][0]["device"] == "edge-sw-01" and ev["rows"][0]["interface"] == "Gi0/2"
    assert ev["facts"]["flagged"] == 1 and ev["facts"]["ports"] == 6
    end = datetime.fromisoformat(ev["window"]["end"].replace("Z", "+00:00"))
    assert abs(end - datetime.now(UTC)) < timedelta(minutes=5)  # the wall clock, not a lab clock
    r = run_cli(home, "ask", "any link alarms in the last 2h?", "--json")
    assert r.returncode == 0, r.stderr
    answer = json.loads(r.stdout)
    assert "edge-sw-01" in answer["answer"] and answer["evidence"][0]["tool"] == "alarms"


def test_cli_without_a_network_says_what_to_run(tmp_path: Path) -> None:
    r = run_cli(tmp_path, "tool", "metadata", '{"query": "sites"}')
    assert r.returncode == 2 and r.stderr.startswith("error: no lab or real network in the store")
    assert len(r.stderr.strip().splitlines()) == 1
