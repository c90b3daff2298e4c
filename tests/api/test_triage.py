"""Auto-triage: Alertmanager-format webhook POSTs to a real `netopsai api` process configured
with triage rules; selected firing alerts are diagnosed and the cited answer lands in the
rule's channel on a fake Slack Web API (loopback); others are left alone; a re-sent alert is not
diagnosed twice. Matchers and the question asked are unit-tested too."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from netopsai.api.triage import question_for
from netopsai.common.errors import NetopsError
from netopsai.config.matchers import matches, parse_matcher
from netopsai_testkit.fake_slack_api import FakeSlackAPI
from netopsai_testkit.peers.process import free_port, stop, wait_listening
from tests.api.test_api import cli, home
from tests.backends.prometheus.test_ingest_alertmanager import _alert, _payload

__all__ = ["home"]
CHANNEL = "C0NETOPS"
STARTS = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)


def test_matchers_follow_alertmanager() -> None:
    labels = {"alertname": "DCILinkDown", "severity": "critical", "env": "prod"}
    assert matches(["severity=critical", "alertname=~DCI.*"], labels)
    assert not matches(["alertname=~DCI"], labels)  # anchored: the whole value
    assert matches(['alertname!~"BGP.*"', "env!=lab", "team="], labels)  # absent label is ""
    assert not matches(["severity=critical", "env=lab"], labels)
    for bad in ("severity", "x=~(", "1abc=2"):
        with pytest.raises(NetopsError, match="label matcher"):
            parse_matcher(bad)


def test_the_question_an_on_call_would_ask() -> None:
    assert question_for({"src": "10.1.3.20", "dst": "10.2.1.40"}, None) == \
        "10.1.3.20 to 10.2.1.40 not communicating"
    assert question_for({"device": "dc1-leaf-03"}, "Ethernet1") == "what happened to dc1-leaf-03 Ethernet1?"
    assert question_for({"instance": "dc1-spine-01:9116"}, None) == "what is wrong with dc1-spine-01?"
    assert question_for({"alertname": "Watchdog"}, None) is None


def test_a_bad_matcher_in_config_is_one_line(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "home"
    other.mkdir()
    (other / "config.yaml").write_text("triage:\n  rules:\n    - match: ['severity']\n      channel: C1\n")
    r = subprocess.run([sys.executable, "-m", "netopsai.cli", "config", "check"], capture_output=True,
                       text=True, env={**os.environ, "NETOPSAI_HOME": str(other)}, timeout=60)
    assert r.returncode != 0 and "bad label matcher 'severity'" in r.stderr and "Traceback" not in r.stderr


@pytest.fixture(scope="module")
def slack() -> Iterator[FakeSlackAPI]:
    fake = FakeSlackAPI().start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def triage_url(home: Path, slack: FakeSlackAPI) -> Iterator[tuple[str, str]]:
    (home / "config.yaml").write_text(
        "triage:\n  rules:\n    - match: ['severity=critical', 'alertname=~Device.*|Interface.*']\n"
        f"      channel: {CHANNEL}\n")
    token = cli(home, "tokens", "create", "alertmanager").stdout.strip()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "SLACK_"))}
    env.update(NETOPSAI_HOME=str(home), SLACK_BOT_TOKEN="xoxb-test-token", SLACK_API_URL=slack.api_url)
    log = home / "triage-api.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "netopsai.cli", "api", "--port", str(port)],
                                env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_listening(port, proc, log)
        yield f"http://127.0.0.1:{port}/api/triage/alertmanager", token
    finally:
        stop(proc)
        (home / "config.yaml").unlink()


def posts(slack: FakeSlackAPI, n: int, timeout: float = 60) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and len(slack.of("chat.postMessage")) < n:
        time.sleep(0.2)
    return slack.of("chat.postMessage")


@pytest.mark.integration
def test_selected_alerts_are_diagnosed_into_the_channel(triage_url: tuple[str, str],
                                                        slack: FakeSlackAPI) -> None:
    url, token = triage_url
    alerts = [_alert("DeviceDropsTraffic", "firing", {"device": "dc1-leaf-03", "severity": "critical"},
                     "f00000000000001", STARTS),
              _alert("InterfaceErrors", "firing", {"device": "dc1-leaf-01", "ifName": "Ethernet1",
                                                   "severity": "warning"}, "f00000000000002", STARTS),
              _alert("DeviceDropsTraffic", "resolved", {"device": "dc1-leaf-04", "severity": "critical"},
                     "f00000000000003", STARTS, STARTS + timedelta(minutes=2))]
    auth = {"Authorization": f"Bearer {token}"}
    assert httpx.post(url, json=_payload("firing", alerts), timeout=30).status_code == 401
    r = httpx.post(url, json=_payload("firing", alerts), headers=auth, timeout=30)
    assert r.status_code == 202, r.text
    assert r.json() == {"diagnosing": [{"question": "what is wrong with dc1-leaf-03?",
                                        "channel": CHANNEL}], "skipped": 2}
    [post] = posts(slack, 1)
    assert post["channel"] == CHANNEL and "config.acl_block" in str(post["blocks"])
    assert "dc1-leaf-03" in post["text"]
    again = httpx.post(url, json=_payload("firing", alerts[:1]), headers=auth, timeout=30)
    assert again.json()["diagnosing"] == [] and again.json()["skipped"] == 1  # re-sent: once
    bad = httpx.post(url, content=b'{"alerts": "no"}', headers=auth, timeout=30)
    assert bad.status_code == 400 and "Alertmanager" in bad.json()["error"]
    time.sleep(1)
    assert len(slack.of("chat.postMessage")) == 1
