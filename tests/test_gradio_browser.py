"""The web app in a real browser: `netopsai serve` on loopback over a lab with an injected ACL
fault, driven by Playwright through Debian's Chromium (headless). Screenshots go to
test-artifacts/. Every request the page makes must stay on loopback."""

from __future__ import annotations

import csv
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, Locator, Page, Route, expect, sync_playwright

from netopsai.backends.lab import lab_backends
from netopsai.lab.inject import inject
from netopsai.lab.manage import init_lab, lab_info
from netopsai.lab.scenario import Scenario
from netopsai.store.engine import engine_for
from netopsai.ui.gradio.auth import add_user
from tests.peers.process import stop

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
QUESTION = "10.1.3.20 to 10.2.1.40 not communicating"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not at /usr/bin/chromium (scripts/test.sh installs it as root)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """NETOPSAI_HOME with a small lab where dc1-leaf-03 drops traffic to 10.2.1.0/24."""
    home = tmp_path_factory.mktemp("netopsai-home")
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7)
    inject(engine, Scenario.model_validate({
        "id": "browser-acl", "now": lab_info(engine).clock, "question": QUESTION,
        "faults": [{"kind": "acl_block", "at": "-25m", "target": {"device": "dc1-leaf-03"},
                    "params": {"dst": "10.2.1.0/24"}}]}))
    return home


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_up(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"netopsai serve exited {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"netopsai serve did not answer on {url} in {timeout:.0f} s:\n{log.read_text()[-3000:]}")


@contextmanager
def serving(home: Path, **extra: str) -> Iterator[str]:
    """`netopsai serve` itself, offline (no LLM), on a free loopback port."""
    port = free_port()
    log = home / f"serve-{port}.log"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NETOPSAI_", "DATABASE_URL", "HTTP_PROXY", "HTTPS_PROXY"))}
    env.update(NETOPSAI_HOME=str(home), GRADIO_ANALYTICS_ENABLED="False", NO_PROXY="127.0.0.1,localhost",
               **extra)
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "netopsai.cli", "serve", "--port", str(port)],
                                env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_up(url, proc, log)
        yield url
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def server(home: Path) -> Iterator[str]:
    with serving(home) as url:
        yield url


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[tuple[Page, list[str]]]:
    """A fresh page on the app, and the list of non-loopback requests it tried (aborted)."""
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100}, accept_downloads=True)
    outside: list[str] = []

    def guard(route: Route) -> None:
        url = route.request.url
        if urlparse(url).scheme in ("http", "https", "ws", "wss") and urlparse(url).hostname not in LOOPBACK:
            outside.append(url)
            route.abort()
        else:
            route.continue_()
    ctx.route("**/*", guard)
    pg = ctx.new_page()
    pg.goto(server)
    expect(pg.locator("#question textarea")).to_be_visible(timeout=30_000)
    yield pg, outside
    ctx.close()


def shot(pg: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / name), full_page=True)


def expand(step: Locator, text: str) -> None:
    """Click a collapsed step open. The chatbot may still be rendering the last streamed update
    when the click lands (a re-render collapses it again), so try a few times."""
    for _ in range(4):
        step.locator(".title").click()
        try:
            expect(step).to_contain_text(text, timeout=2_000)
            return
        except AssertionError:
            continue
    expect(step).to_contain_text(text)


def test_chat_shows_the_cited_conclusion_and_expandable_steps(page: tuple[Page, list[str]],
                                                              server: str) -> None:
    pg, outside = page
    box = pg.locator("#question textarea")
    box.fill(QUESTION)
    box.press("Enter")
    chat = pg.locator("#chat")
    expect(chat).to_contain_text("Likely root cause", timeout=30_000)
    expect(chat).to_contain_text("an ACL blocks the traffic at dc1-leaf-03")  # in words
    expect(chat).to_contain_text("config.acl_block")  # and the label as a tag
    expect(pg.locator("#chat-status")).to_contain_text("answered in")
    step = pg.locator("#chat .thought-group").filter(has_text="planner: diagnose.connectivity").first
    expect(step).to_contain_text(re.compile(r"\(\d+(\.\d+)?m?s\)"))  # the step's duration
    expect(step).not_to_contain_text("intent:")  # collapsed ...
    expand(step, "intent: diagnose.connectivity")  # ... and expands on click
    expect(pg.locator("#path-panel")).to_contain_text("dc1-leaf-03 !X")
    step.scroll_into_view_if_needed()
    shot(pg, "chat-steps.png")
    pg.locator('#chat a[href="#ev-E1"]').first.click()  # a citation opens its evidence rows
    target = pg.locator("#evidence-panel #ev-E1")
    expect(target).to_be_in_viewport()
    expect(target).to_contain_text("administratively prohibited")
    expect(target.locator("table")).to_contain_text("!X")
    shot(pg, "chat-evidence.png")
    thread = re.search(r"thread (\w+)", pg.locator("#chat-status").inner_text())
    assert thread, "the status names the thread"
    pg.goto(f"{server}?thread={thread.group(1)}")  # a reload resumes the conversation
    expect(pg.locator("#chat")).to_contain_text("an ACL blocks the traffic at dc1-leaf-03",
                                                timeout=30_000)
    expect(pg.locator("#chat-status")).to_contain_text("resumed thread")
    assert outside == []


def batch_pairs(home: Path, n: int = 50) -> str:
    inv = lab_backends(engine_for(f"sqlite:///{home / 'netopsai.db'}")).inventory
    src = [h["ip"] for h in inv.hosts("dc1", None, None)]
    dst = [h["ip"] for h in inv.hosts("dc2", None, None)]
    blocked = [f"{s},{d}" for s in src if s.startswith("10.1.3.") for d in dst if d.startswith("10.2.1.")]
    other = [f"{s},{d}" for s, d in zip(src[::3], dst[::2], strict=False) if not s.startswith("10.1.3.")]
    return "\n".join((blocked[:10] + other)[:n])


WATCH = """() => { window.__progress = []; const el = document.querySelector('#batch-progress-panel');
  new MutationObserver(() => window.__progress.push(el.innerText)).observe(
    el, {subtree: true, childList: true, characterData: true}); }"""


def test_batch_of_50_pairs_shows_progress_table_and_csv(page: tuple[Page, list[str]], home: Path) -> None:
    pg, outside = page
    pg.get_by_role("tab", name="Batch").click()
    pg.locator("#batch-input textarea").fill(batch_pairs(home))
    pg.evaluate(WATCH)
    pg.locator("#batch-run").click()
    expect(pg.locator("#batch-progress")).to_be_attached(timeout=30_000)
    shot(pg, "batch-progress.png")  # 50 lab pairs take well under a second: often done already
    download = pg.locator("#batch-download")
    expect(download).to_be_visible(timeout=60_000)
    seen: list[str] = pg.evaluate("window.__progress")
    assert any("running" in s for s in seen), seen  # the bar showed while the checks ran
    expect(pg.locator("#batch-progress-panel")).to_contain_text("50/50 pairs checked")
    expect(pg.locator("#batch-summary")).to_contain_text("10 pairs fail at dc1-leaf-03: config.acl_block")
    expect(pg.locator("#batch-table")).to_contain_text("dc1-leaf-03")
    shot(pg, "batch-done.png")
    with pg.expect_download() as got:
        download.click()
    with open(got.value.path(), newline="") as fh:
        rows: list[dict[str, Any]] = list(csv.DictReader(fh))
    assert len(rows) == 50
    failing = [r for r in rows if r["reachable"] == "false"]
    assert {(r["failing_device"], r["cause"]) for r in failing} == {("dc1-leaf-03", "config.acl_block")}
    assert len(failing) == 10
    assert outside == []


def test_alarms_tab_filters(page: tuple[Page, list[str]]) -> None:
    pg, outside = page
    pg.get_by_role("tab", name="Alarms").click()
    expect(pg.locator("#alarms-summary")).to_contain_text("alarms in the window", timeout=30_000)
    window = pg.locator("#alarms-window input")
    window.fill("7d")
    window.press("Enter")
    recent = pg.locator("#alarms-recent")
    expect(recent).to_contain_text("closed", timeout=30_000)
    expect(recent).to_contain_text("dc1-")
    pg.locator("#alarms-site input").click()
    pg.get_by_role("option", name="dc2").click()
    expect(recent).not_to_contain_text("dc1-", timeout=30_000)
    expect(recent).to_contain_text("dc2-")
    shot(pg, "alarms.png")
    assert outside == []


def test_login_when_a_users_file_is_set(browser: Browser, home: Path) -> None:
    users = home / "users"
    add_user(users, "oncall", "correct horse")
    with serving(home, NETOPSAI_UI_USERS=str(users)) as url:
        pg = browser.new_page(viewport={"width": 1200, "height": 800})
        pg.goto(url)
        for password in ("wrong", "correct horse"):
            pg.get_by_label("username").fill("oncall")
            pg.get_by_label("password").fill(password)
            pg.get_by_role("button", name="Login").click()
            if password == "wrong":
                expect(pg.get_by_text("Incorrect Credentials")).to_be_visible(timeout=10_000)
        expect(pg.locator("#question textarea")).to_be_visible(timeout=30_000)
        shot(pg, "login-done.png")
        pg.close()


def test_hostile_alarm_text_makes_the_browser_fetch_nothing(browser: Browser, tmp_path: Path) -> None:
    """Trust F7: an alarm whose message carries an <img> and a markdown image pointing at a
    listener on loopback is shown in the chat as text; the browser never requests either."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    from sqlmodel import Session

    from netopsai.store import tables as m

    hits: list[str] = []

    class Catch(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            hits.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    trap = ThreadingHTTPServer(("127.0.0.1", 0), Catch)
    Thread(target=trap.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{trap.server_address[1]}"
    home = tmp_path / "home"
    home.mkdir()
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7)
    from datetime import timedelta
    with Session(engine) as s:
        s.add(m.Alarm(kind="LINK_DOWN", category="link", device="dc1-leaf-03", site="dc1",
                      raised_at=lab_info(engine).clock - timedelta(minutes=10), source="syslog",
                      message=f'port down <img src="{base}/html-img"> ![x]({base}/md-img) [y]({base}/link)'))
        s.commit()
    try:
        with serving(home) as url:
            ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
            pg = ctx.new_page()
            pg.goto(url)
            assert "Content-Security-Policy" in pg.content()
            box = pg.locator("#question textarea")
            expect(box).to_be_visible(timeout=30_000)
            box.fill("any alarms on dc1-leaf-03 in the last 24h?")
            box.press("Enter")
            expect(pg.locator("#chat-status")).to_contain_text("answered in", timeout=30_000)
            expect(pg.locator("#chat")).to_contain_text("![x](")  # shown as text, not rendered
            pg.wait_for_timeout(1500)  # time for any image the page would load
            shot(pg, "chat-hostile-alarm.png")
            ctx.close()
    finally:
        trap.shutdown()
    assert hits == []
