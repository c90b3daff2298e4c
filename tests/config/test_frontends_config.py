"""Every front end reads through the backends config.yaml selects (netopsai.copilot.frontend): the
`netopsai batch` command, the Gradio app's copilot and batch tab, and the Slack bot.

The proof is a pair whose answer depends on the paths backend: 10.1.3.20 -> 127.0.0.2. The lab
simulation knows no segment holding 127.0.0.2 (an error); the system traceroute traces it on
this machine's loopback (reached in one hop). Only loopback destinations are traced here: the
lab's 10.x addresses are data, never probed."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from slack_sdk import WebClient

from netopsai.common.errors import NetopsError
from netopsai.copilot.service import Copilot
from netopsai.lab.manage import init_lab
from netopsai.store.engine import engine_for
from netopsai_testkit.fake_slack_api import FakeSlackAPI, SlackSender
from tests.paths import REPO

PAIR = "10.1.3.20,127.0.0.2"
LAB_ERROR = "127.0.0.2 is in no segment of the inventory"
CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
ROOT = REPO
NAPALM_EMPTY = "backend.paths is napalm but the napalm device list is empty"
SECRET, TOKEN = "frontend-signing-secret-3c", "xoxb-frontend-token-8d"
needs_traceroute = pytest.mark.skipif(shutil.which("traceroute") is None,
                                      reason="the traceroute program is not installed")


def _clean_env(home: Path) -> dict[str, str]:
    """The environment of a run on `home`: no store, backend, probe or LLM settings of ours."""
    ours = ("NETOPSAI_BACKEND", "NETOPSAI_TRACEROUTE", "NETOPSAI_LLM", "NETOPSAI_PROBE")
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL" and not k.startswith(ours)}
    return env | {"NETOPSAI_HOME": str(home), "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}


@pytest.fixture
def use_home(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], None]:
    """Point this process at `home`, as `netopsai serve` or `netopsai slack` started there."""
    def use(home: Path) -> None:
        for k in list(os.environ):
            if k not in _clean_env(home):
                monkeypatch.delenv(k)
        monkeypatch.setenv("NETOPSAI_HOME", str(home))
    return use


def _configure(home: Path, backend: dict[str, str] | None) -> Path:
    cfg = home / "config.yaml"
    cfg.unlink(missing_ok=True)
    if backend is not None:
        cfg.write_text(yaml.safe_dump({"backend": backend}))
    return home


@pytest.fixture(scope="module")
def lab_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """NETOPSAI_HOME holding the embedded lab."""
    home = tmp_path_factory.mktemp("lab-home")
    init_lab(engine_for(f"sqlite:///{home / 'netopsai.db'}"), "default", "small", 7, CLOCK)
    return home


@pytest.fixture(scope="module")
def real_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """NETOPSAI_HOME holding a network imported from a YAML inventory: not the lab."""
    home = tmp_path_factory.mktemp("real-home")
    done = subprocess.run([sys.executable, "-m", "netopsai.cli", "inventory", "import",
                           str(ROOT / "inventory" / "default.yaml"), "--scale", "small", "--replace"],
                          env=_clean_env(home), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return home


def _batch(home: Path, tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(text)
    return subprocess.run([sys.executable, "-m", "netopsai.cli", "batch", str(pairs)],
                          env=_clean_env(home), capture_output=True, text=True, timeout=300)


def _rows(done: subprocess.CompletedProcess[str]) -> dict[str, dict[str, str]]:
    rows = {r["dst"]: r for r in csv.DictReader(io.StringIO(done.stdout))}
    ok = all(r["status"] == "reachable" for r in rows.values())
    assert rows and done.returncode == (0 if ok else 1), done.stderr  # fping's exit codes
    return rows


# ---------------------------------------------------------------- netopsai batch


@pytest.mark.integration
@needs_traceroute
def test_cli_batch_traces_through_the_configured_paths(lab_home: Path, tmp_path: Path) -> None:
    lab = _rows(_batch(_configure(lab_home, None), tmp_path, PAIR + "\n"))["127.0.0.2"]
    assert lab["reachable"] == "false" and LAB_ERROR in lab["error"]  # the default: the lab
    system = _rows(_batch(_configure(lab_home, {"paths": "system"}), tmp_path, PAIR + "\n"))
    _configure(lab_home, None)
    row = system["127.0.0.2"]
    assert (row["reachable"], row["hops"], row["error"]) == ("true", "1", "")
    assert row["evidence"] == "traceroute E1"


@pytest.mark.integration
@needs_traceroute
def test_cli_batch_on_a_real_network_uses_the_system_traceroute(real_home: Path,
                                                               tmp_path: Path) -> None:
    # auto on a store holding a real network: the system traceroute; a bare IP is checked from
    # the imported inventory's first dc1 host, as for the lab
    rows = _rows(_batch(_configure(real_home, None), tmp_path, f"{PAIR}\n127.0.0.3\n"))
    assert {d: (r["src"], r["reachable"], r["hops"]) for d, r in rows.items()} == {
        "127.0.0.2": ("10.1.3.20", "true", "1"), "127.0.0.3": ("10.1.1.20", "true", "1")}


def test_cli_batch_reports_an_unusable_config_in_one_line(real_home: Path, tmp_path: Path) -> None:
    done = _batch(_configure(real_home, {"paths": "napalm"}), tmp_path, PAIR + "\n")
    _configure(real_home, None)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [f"error: {_napalm_problem(real_home)}"]


def _napalm_problem(home: Path) -> str:
    return (f"{home / 'config.yaml'}: {NAPALM_EMPTY}; "
            "add devices like [{name: NAME, host: ADDRESS, driver: ios}]")


# ---------------------------------------------------------------- the Gradio app


def _gradio_batch(copilot: Copilot, tmp_path: Path, text: str) -> dict[str, Any]:
    from netopsai.ui.gradio.batch import BatchHandler

    final = list(BatchHandler(copilot.toolbox.backends, out_dir=tmp_path).run(text, None, ""))[-1]
    assert final.csv_path is not None
    return {r.dst: r for r in final.results}


@pytest.mark.integration
@needs_traceroute
def test_gradio_copilot_and_batch_tab_use_the_config(lab_home: Path, tmp_path: Path,
                                                     use_home: Callable[[Path], None]) -> None:
    from netopsai.ui.gradio import app as gradio_app

    use_home(_configure(lab_home, None))
    lab = _gradio_batch(gradio_app._copilot(), tmp_path, PAIR)["127.0.0.2"]
    assert not lab.reachable and lab.error is not None and LAB_ERROR in lab.error
    use_home(_configure(lab_home, {"paths": "system"}))
    copilot = gradio_app._copilot()
    _configure(lab_home, None)
    got = _gradio_batch(copilot, tmp_path, PAIR)["127.0.0.2"]
    assert (got.reachable, got.hops, got.error) == (True, 1, None)
    app = gradio_app.build_app(copilot)  # the Alarms tab reads the same (configured) backends
    assert {"Chat", "Batch", "Alarms"} <= {getattr(b, "label", None) for b in app.blocks.values()}


@pytest.mark.integration
@needs_traceroute
def test_gradio_first_run_builds_the_lab_then_honours_the_config(
        tmp_path: Path, use_home: Callable[[Path], None], capfd: pytest.CaptureFixture[str]) -> None:
    from netopsai.store.network import network_kind
    from netopsai.ui.gradio import app as gradio_app

    home = tmp_path / "home"
    home.mkdir()
    use_home(_configure(home, {"paths": "napalm"}))
    with pytest.raises(NetopsError, match=NAPALM_EMPTY):
        gradio_app._copilot()  # a bad config fails before any lab is built
    with pytest.raises(NetopsError, match="no lab or real network"):
        network_kind(engine_for(f"sqlite:///{home / 'netopsai.db'}"))
    _configure(home, {"paths": "system"})
    copilot = gradio_app._copilot()
    assert "first run: building the embedded lab" in capfd.readouterr().err
    assert network_kind(engine_for(f"sqlite:///{home / 'netopsai.db'}")) == "lab"
    assert _gradio_batch(copilot, tmp_path, PAIR)["127.0.0.2"].reachable


# ---------------------------------------------------------------- the Slack bot


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeSlackAPI]:
    api = FakeSlackAPI().start()
    yield api
    api.stop()


def _slack_batch(copilot: Copilot, fake: FakeSlackAPI, text: str) -> str:
    """`/netops batch TEXT` through the bot on 127.0.0.1; the final message's blocks, as text."""
    from netopsai.ui.slack.app import EVENTS_PATH, build_app, serve_http
    from netopsai.ui.slack.settings import SlackSettings

    settings = SlackSettings.model_validate({
        "bot_token": TOKEN, "signing_secret": SECRET, "api_url": fake.api_url,
        "allowed_users": ["UONCALL"], "allowed_channels": ["COPS"], "batch_users": ["UONCALL"]})
    app = build_app(copilot, settings, WebClient(token=TOKEN, base_url=fake.api_url),
                    process_before_response=True)
    server = serve_http(app, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    fake.reset()
    try:
        sender = SlackSender(f"http://127.0.0.1:{server.server_port}{EVENTS_PATH}", SECRET,
                             f"{fake.base}/response/1")
        status, _ = sender.slash(f"batch {text}", "UONCALL", "COPS")
    finally:
        server.shutdown()
        server.server_close()
    assert status == 200
    return json.dumps(fake.of("chat.update")[-1]["blocks"])


@pytest.mark.integration
@needs_traceroute
def test_slack_bot_checks_through_the_configured_backends(
        lab_home: Path, real_home: Path, fake: FakeSlackAPI, use_home: Callable[[Path], None]) -> None:
    from netopsai.ui.slack import app as slack_app

    use_home(_configure(lab_home, None))
    lab = _slack_batch(slack_app._copilot(), fake, PAIR)
    assert "*reachable*\\n0" in lab and LAB_ERROR in lab
    use_home(_configure(real_home, {"paths": "system"}))
    real = _slack_batch(slack_app._copilot(), fake, PAIR)
    assert "*total*\\n1" in real and "*reachable*\\n1" in real and LAB_ERROR not in real


def test_slack_bot_refuses_an_unusable_config(real_home: Path,
                                              use_home: Callable[[Path], None]) -> None:
    from netopsai.ui.slack import app as slack_app

    use_home(_configure(real_home, {"paths": "napalm"}))
    try:
        with pytest.raises(NetopsError) as exc:
            slack_app._copilot()
    finally:
        _configure(real_home, None)
    assert str(exc.value) == _napalm_problem(real_home)
