"""A Slack thread's "Open in netopsai" link opened in Chromium (issue 26), at 1440×900 and on a
phone: the Slack conversation is on screen — its question, its answer with the headline in view,
a note that it lives in Slack — never an empty page; the address bar moves to the page's own web
thread (no signature left in it); a follow-up asked there is answered from that conversation.
The Slack bot's side is stood in for by a copilot that answered under the Slack thread's key in
the same NETOPSAI_HOME, and the link is signed as the bot signs it (the shared signing secret)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, expect

from netopsai.backends.lab import lab_backends
from netopsai.config.slack import SlackSettings
from netopsai.copilot.service import Copilot, sqlite_saver
from netopsai.store.engine import engine_for
from tests.browser_kit import browser, open_page, serving
from tests.screen_kit import SIZES, ask, assert_headline_in_view, headline, shot
from tests.store_helpers import acl_home

pytestmark = pytest.mark.browser
__all__ = ["browser"]
SECRET = "browser-slack-link-secret-5e"
KEY = "slack:COPS123:1700000100.000300"
QUESTION = "10.1.3.20 to 10.2.1.40 not communicating"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = acl_home(tmp_path_factory.mktemp("slack-thread"), "slack-thread")
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    Copilot(lab_backends(engine), checkpointer=sqlite_saver(home)).answer(QUESTION, KEY)
    engine.dispose()
    return home


@pytest.fixture(scope="module")
def server(home: Path) -> Iterator[str]:
    with serving(home, SLACK_SIGNING_SECRET=SECRET) as url:
        yield url


@pytest.mark.parametrize("width, height", SIZES)
def test_a_slack_thread_link_shows_the_conversation_and_goes_on_here(
        browser: Browser, server: str, width: int, height: int) -> None:
    sig = SlackSettings(signing_secret=SECRET).thread_sig(KEY)
    link = f"{server}?thread={quote(KEY, safe='')}&sig={sig}"
    with open_page(browser, link, width, height) as (pg, outside):
        asked = pg.locator("#chat .message-row.user-row")
        expect(asked).to_have_count(1, timeout=30_000)
        expect(asked.first).to_contain_text(QUESTION)
        expect(pg.locator("#chat-status")).to_contain_text("lives in Slack", timeout=15_000)
        expect(pg.locator("#chat-status")).to_contain_text("read-only")
        expect(pg.locator("#chat")).to_contain_text("From Slack (channel COPS123), read-only")
        assert "ACL" in headline(pg)  # the Slack answer's conclusion, pinned
        assert_headline_in_view(pg)
        pg.wait_for_function("() => !new URL(location.href).searchParams.get('thread')"
                             ".startsWith('slack')", timeout=15_000)
        assert "sig=" not in pg.url
        shot(pg, f"slack-thread-opened-{width}.png")
        ask(pg, "and its upstream switch?")
        expect(asked).to_have_count(2)
        expect(pg.locator("#chat .message-row.bot-row").last).to_contain_text("dc1-leaf-03")
        shot(pg, f"slack-thread-followup-{width}.png")
        assert outside == []
