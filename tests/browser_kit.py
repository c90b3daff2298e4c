"""Fixtures for the web app in a real browser: `netopsai serve` on loopback over a lab with an
injected ACL fault (module-scoped), Debian's Chromium driven by Playwright (headless), a page
whose every non-loopback request is aborted and recorded, screenshots to test-artifacts/.
A browser test module imports the fixtures it uses from here."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, Locator, Page, Route, expect, sync_playwright

from netopsai_testkit.peers.process import free_port, stop
from tests.store_helpers import acl_home

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
    return acl_home(tmp_path_factory.mktemp("netopsai-home"), "browser-acl")


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


@contextmanager
def open_page(browser: Browser, url: str, width: int = 1500,
              height: int = 1100) -> Iterator[tuple[Page, list[str]]]:
    """A fresh page (its own context) on `url`, and the list of non-loopback requests it tried
    (aborted)."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, accept_downloads=True)
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
    pg.goto(url)
    expect(pg.locator("#question textarea")).to_be_attached(timeout=30_000)
    try:
        yield pg, outside
    finally:
        ctx.close()


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[tuple[Page, list[str]]]:
    """A fresh page on the app, and the list of non-loopback requests it tried (aborted)."""
    with open_page(browser, server) as (pg, outside):
        expect(pg.locator("#question textarea")).to_be_visible(timeout=30_000)
        yield pg, outside


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


