"""Secrets never leave secrets.yaml: with a distinctive SNMP community and SSH password configured
for backends that really use them (SNMP polls and NAPALM logins to closed loopback ports, so
every call fails with an error message), config check/show, tool calls and `ask` (offline, and
with an LLM over real HTTP) run with logging at DEBUG; the secrets appear in no log record, no
output, no evidence, no error, no request sent to the model, and nothing stored."""

from __future__ import annotations

import json
import logging
import os
import socket
from pathlib import Path

import pytest

from netopsai.config.load import load_netconfig
from netopsai.launch.app import main
from netopsai_testkit.fake_openai import MODEL, FakeOpenAI, call, calls, fake_openai_fixture, text  # noqa: F401
from tests.contract.stores import real_store

COMMUNITY = "Zq7-community-S3CRET-4411"
PASSWORD = "Pw-ssh-S3CRET-9932"
AUTH_KEY = "Ak-v3-S3CRET-7310"
SECRETS = (COMMUNITY, PASSWORD, AUTH_KEY)
TRACE = {"src": "127.0.0.1", "dst": "127.0.0.2"}  # from the NAPALM device's own address


def _closed_port(kind: int) -> int:
    """A loopback port nothing listens on (bound by the OS, then released)."""
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store holding a real network whose config sends telemetry to SNMP and paths to NAPALM
    (both at closed loopback ports: every read fails), with the secrets to log in."""
    home = tmp_path / "home"
    home.mkdir()
    real_store(home / "netopsai.db")
    (home / "config.yaml").write_text(
        "backend: {telemetry: snmp, paths: napalm}\n"
        "snmp:\n  timeout: 0.2\n  retries: 0\n"
        f"  targets: [{{host: 127.0.0.1, port: {_closed_port(socket.SOCK_DGRAM)}, device: edge-sw-01}}]\n"
        f"napalm: [{{name: edge-sw-01, host: 127.0.0.1, port: {_closed_port(socket.SOCK_STREAM)}, "
        "driver: ios}]\n")
    secrets = home / "secrets.yaml"
    secrets.write_text(f"snmp:\n  community: {COMMUNITY}\n  user: netops\n  auth_key: {AUTH_KEY}\n"
                       f"ssh:\n  username: netops\n  password: {PASSWORD}\n")
    secrets.chmod(0o600)
    for key in list(os.environ):
        if key.startswith("NETOPSAI_") or key == "DATABASE_URL":
            monkeypatch.delenv(key)
    monkeypatch.setenv("NETOPSAI_HOME", str(home))
    monkeypatch.setenv("COLUMNS", "200")
    return home


def _run(capfd: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    out, err = capfd.readouterr()
    return code, out + err


def _assert_nowhere(*texts: str) -> None:
    for secret in SECRETS:
        for t in texts:
            assert secret not in t


def _stored(home: Path) -> str:
    """Every file the runs left in NETOPSAI_HOME except secrets.yaml, as text."""
    return "".join(p.read_bytes().decode("latin-1") for p in home.iterdir()
                   if p.is_file() and p.name != "secrets.yaml")


def test_secrets_reach_no_log_output_evidence_or_store(home: Path, caplog: pytest.LogCaptureFixture,
                                                        capfd: pytest.CaptureFixture[str]) -> None:
    assert sorted(load_netconfig(home).secret_values()) == sorted(SECRETS)  # really configured
    caplog.set_level(logging.DEBUG)
    outputs = []
    for args in (("config", "check"), ("config", "show"), ("config", "show", "--json")):
        code, out = _run(capfd, *args)
        # check also fails while a selected backend's module is missing from this tree
        assert code == 0 or all("not available" in x for x in out.splitlines() if x.strip()), out
        outputs.append(out)
    assert "'**********'" in outputs[1]  # show prints the secrets masked
    code, out = _run(capfd, "tool", "telemetry", '{"metric": "errors", "devices": ["edge-sw-01"]}',
                     "--json")
    ev = json.loads(out.splitlines()[0])
    assert ev["partial"] and "edge-sw-01" in ev["errors"][0]  # SNMP really polled, and failed
    outputs.append(out)
    code, out = _run(capfd, "tool", "traceroute", json.dumps(TRACE), "--json")
    assert code != 0 and out.strip()  # the NAPALM login fails: an error message was written
    outputs.append(out)
    for question in ("input errors on edge-sw-01 in the last hour?",
                     "trace 127.0.0.1 to 127.0.0.2"):
        code, out = _run(capfd, "ask", question, "--json")
        assert code == 0, out
        answer = json.loads(out.strip().splitlines()[-1])
        assert answer["evidence"], answer  # tools ran (and failed) behind the answer
        outputs.append(out)
    assert caplog.records  # DEBUG logging really captured something
    _assert_nowhere(caplog.text, *outputs, _stored(home))
    _assert_nowhere(*(str(r.exc_info) for r in caplog.records if r.exc_info))


def test_secrets_never_reach_the_llm(home: Path, fake_openai: FakeOpenAI, caplog: pytest.LogCaptureFixture,
                                     capfd: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_LLM_MODEL", MODEL)
    monkeypatch.setenv("NETOPSAI_LLM_BASE_URL", fake_openai.url)
    monkeypatch.setenv("NETOPSAI_LLM_API_KEY", "x")
    fake_openai.script(calls(call("telemetry", {"metric": "errors", "devices": ["edge-sw-01"]}),
                             call("traceroute", TRACE)),
                       text("Telemetry could not be read [E1] and the trace failed [E2]."))
    caplog.set_level(logging.DEBUG)
    code, out = _run(capfd, "ask", "is edge-sw-01 healthy and can 127.0.0.1 reach 127.0.0.2?",
                     "--json")
    assert code == 0, out
    answer = json.loads(out.strip().splitlines()[-1])
    assert answer["llm_calls"] >= 2 and len(fake_openai.requests) >= 2
    tools = {e["tool"]: e for e in answer["evidence"]}
    assert {"telemetry", "traceroute"} <= set(tools) and tools["traceroute"]["errors"]
    # the model saw the failed calls' results (the evidence summaries) ...
    assert any("[E2] traceroute" in json.dumps(r) for r in fake_openai.requests)
    # ... and no secret in any request body or header
    _assert_nowhere(json.dumps(fake_openai.requests), json.dumps(fake_openai.headers), caplog.text, out,
                    _stored(home))
