""""Post to #channel" clicked in a real browser (issue 26 item 8): the web app started with a bot
token and an on-call channel whose Slack Web API is a fake on loopback (testkit's fake_slack_api.py).
One click after an answer posts the escalation — the headline the page shows, what was asked,
the ruled-out lines in words, the thread's link — to that channel, and the page says it was
posted. The lab is the alarms tests' (a link down on dc1-leaf-03 among other faults), whose
diagnosis of the path rules hypotheses out."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from netopsai_testkit.fake_slack_api import FakeSlackAPI
from tests.browser_kit import browser, open_page, serving
from tests.screen_kit import SIZES, ask, headline, shot
from tests.ui.gradio.test_browser_alarms import faulted_home

pytestmark = pytest.mark.browser
__all__ = ["browser"]
TOKEN = "xoxb-web-page-token-31c9"
PAGER = "CPAGER01"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeSlackAPI]:
    api = FakeSlackAPI().start()
    yield api
    api.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, fake: FakeSlackAPI) -> Iterator[str]:
    home = faulted_home(tmp_path_factory.mktemp("page-post"))
    with serving(home, SLACK_BOT_TOKEN=TOKEN, SLACK_ONCALL_CHANNEL=PAGER,
                 SLACK_API_URL=fake.api_url) as url:
        yield url


@pytest.mark.parametrize("width, height", SIZES)
def test_post_to_the_oncall_channel_posts_the_escalation(browser: Browser, server: str,
                                                         fake: FakeSlackAPI, width: int,
                                                         height: int) -> None:
    fake.reset()
    with open_page(browser, server, width, height) as (pg, outside):
        ask(pg)
        shown = headline(pg).strip()
        assert shown
        post = pg.locator("#page-post")
        expect(post).to_have_text(f"Post to {PAGER}")
        assert fake.of("chat.postMessage") == []  # nothing posted before the click
        post.click()
        draft = pg.locator("#page-draft")
        expect(draft).to_contain_text(f"Posted to {PAGER}.", timeout=20_000)  # said on screen
        posts = fake.of("chat.postMessage")
        assert len(posts) == 1 and posts[0]["channel"] == PAGER
        text = str(posts[0]["text"])
        assert text == draft.locator("textarea").input_value()  # what was posted is what is shown
        lines = text.splitlines()
        thread = pg.url.split("thread=")[1].split("&")[0]
        # the headline the on-call reads on the page leads the post
        assert lines[0].startswith("[netopsai] ")
        posted = " ".join(lines[0].removeprefix("[netopsai] ").split())
        assert posted and " ".join(shown.split()).endswith(posted)  # after the page's tag
        assert "Asked: 10.1.3.20 to 10.2.1.40 not communicating" in lines
        ruled = lines[lines.index("Ruled out:") + 1:-1]
        assert ruled and all(x.startswith("  - ") for x in ruled)
        # plain words first, the taxonomy label as a tag in brackets, never "link.down: …" first
        assert all(not x[4:].split(" ")[0].count(".") for x in ruled), ruled
        assert lines[-1].startswith("Thread: ") and lines[-1].endswith(f"?thread={thread}")
        assert fake.auth_headers[-1] == f"Bearer {TOKEN}"  # the configured bot posted it
        assert TOKEN not in pg.content()  # the token never reaches the page
        draft.scroll_into_view_if_needed()
        shot(pg, f"page-post-{width}.png")
        assert outside == []
