"""How the Slack bot runs: its settings from the environment, the CLI's one-line errors,
`netopsai slack --http` on loopback, the production ack mode (work after the ack, on bolt's
threads), and where the bot token may be sent. Loopback traffic only."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from slack_sdk import WebClient

from netopsai.backends.base import Backends
from netopsai.copilot.service import Copilot
from netopsai.ui.slack.app import EVENTS_PATH, build_app, serve_http
from netopsai.ui.slack.settings import SlackSettings
from netopsai_testkit.fake_slack_api import FakeSlackAPI, SlackSender

SECRET = "test-signing-secret-77c2"
TOKEN = "xoxb-test-bot-token-31b0"


@pytest.fixture
def fake() -> Iterator[FakeSlackAPI]:
    api = FakeSlackAPI().start()
    yield api
    api.stop()


def test_acked_at_once_then_answered_on_bolt_threads(backends: Backends, fake: FakeSlackAPI) -> None:
    """process_before_response=False (production): the slash command's HTTP reply is the empty
    ack; the listener goes on after it and the answer lands in the placeholder."""
    settings = SlackSettings.model_validate({"bot_token": TOKEN, "signing_secret": SECRET,
                                             "api_url": fake.api_url})
    app = build_app(Copilot(backends), settings, WebClient(token=TOKEN, base_url=fake.api_url))
    server = serve_http(app, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        sender = SlackSender(f"http://127.0.0.1:{server.server_port}{EVENTS_PATH}", SECRET,
                             f"{fake.base}/response/1")
        status, body = sender.slash("device dc1-leaf-03", "U1", "C1")
        assert status == 200 and body == ""
        deadline = time.monotonic() + 120  # a bound on waiting, not a performance threshold
        while not _answered(fake) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _answered(fake), fake.methods()
        assert fake.methods().index("chat.postMessage") < fake.methods().index("chat.update")
    finally:
        server.shutdown()
        server.server_close()


def _answered(fake: FakeSlackAPI) -> bool:
    updates: list[dict[str, Any]] = fake.of("chat.update")
    return any("NX-OS" in str(u.get("blocks")) for u in updates)


def test_the_token_goes_only_to_slack_file_hosts() -> None:
    from netopsai.ui.slack.batch import _trusted

    api = "https://slack.com/api/"
    assert _trusted("https://files.slack.com/files-pri/T1-F1/download/pairs.csv", api)
    assert not _trusted("https://files.slack.com.evil.example/x", api)
    assert not _trusted("http://files.slack.com/x", api)  # never over plain HTTP
    assert _trusted("http://127.0.0.1:5/files/F1", "http://127.0.0.1:5/api/")
    assert not _trusted("http://127.0.0.1:6/files/F1", "http://127.0.0.1:5/api/")


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("SLACK_ALLOWED_USERS", "U1, U2 U3")
    monkeypatch.setenv("SLACK_BATCH_USERS", "U1")
    s = SlackSettings()
    assert s.allowed_users == ["U1", "U2", "U3"] and s.batch_users == ["U1"]
    assert s.bot_token is not None and s.bot_token.get_secret_value() == TOKEN
    assert TOKEN not in repr(s)
    assert s.denial("U2", "C1", is_dm=False) is None
    assert "batch" in (s.denial("U2", "C1", is_dm=False, batch=True) or "")
    assert "allow-list" in (s.denial("U9", "D1", is_dm=True) or "")


def test_cli_without_tokens_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    from netopsai.launch.app import main

    for var in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path))
    assert main(["slack"]) == 2
    assert "SLACK_BOT_TOKEN is not set" in capsys.readouterr().err
    monkeypatch.setenv("SLACK_BOT_TOKEN", TOKEN)
    assert main(["slack"]) == 2
    assert "SLACK_APP_TOKEN is not set" in capsys.readouterr().err
    assert main(["slack", "--http"]) == 2
    err = capsys.readouterr().err
    assert "SLACK_SIGNING_SECRET is not set" in err and TOKEN not in err


def test_http_mode_of_the_cli_serves_on_loopback(fake: FakeSlackAPI, tmp_path: Path) -> None:
    """`netopsai slack --http` as on-calls run it: first-run lab, 127.0.0.1, signed requests."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "NETOPSAI_HOME": str(tmp_path / "home"),
           "SLACK_BOT_TOKEN": TOKEN, "SLACK_SIGNING_SECRET": SECRET, "SLACK_API_URL": fake.api_url}
    cmd = [sys.executable, "-c", "from netopsai.launch.app import run; run()", "slack", "--http",
           "--port", str(port)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert f"listening on http://127.0.0.1:{port}/slack/events" in line, (
            proc.stderr.read() if proc.stderr else line)
        sender = SlackSender(f"http://127.0.0.1:{port}{EVENTS_PATH}", SECRET, "")
        status, body = sender.slash("help", "U1", "C1")
        assert status == 200 and "/netops trace" in body
        assert sender.slash("help", "U1", "C1", secret="x")[0] == 401
        assert "auth.test" in fake.methods()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
