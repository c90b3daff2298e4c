"""The web app in a real browser (fixtures in browser_kit): the chat, batch, alarms and login
as a person sees them. Every request the page makes must stay on loopback."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from netopsai.backends.lab import lab_backends
from netopsai.lab.manage import init_lab, lab_info
from netopsai.store.engine import engine_for
from netopsai.ui.gradio.auth import add_user
from tests.browser_kit import QUESTION, browser, expand, home, page, server, serving, shot

pytestmark = pytest.mark.browser
__all__ = ["browser", "home", "page", "server"]  # fixtures pytest finds by name


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
    # the status cell is coloured by status: red for unreachable, green for reachable
    colours = pg.evaluate("""() => { const out = {};
      document.querySelectorAll('#batch-table [role=gridcell]').forEach(c => {
        out[c.innerText.trim()] = getComputedStyle(c).backgroundColor; });
      return out; }""")
    assert colours.get("unreachable") == "rgb(254, 226, 226)", colours
    assert colours.get("reachable") == "rgb(220, 252, 231)", colours
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
