"""Who the web app answers (issue 23, B5): the real Gradio app on loopback behind its guard.
A page that rebinds its own name to 127.0.0.1 still sends its own name as Host and is refused,
while localhost, 127.0.0.1, [::1] and configured names work; a login posted from another site's
page is refused; wrong passwords from one address do not lock the name for another (the guard
hands the caller's address to the throttle: clients connect from 127.0.0.2 and 127.0.0.3);
and a visitor cannot open the API's, MCP's, Slack's or the owner's CLI threads by id."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from netopsai.backends.base import Backends
from netopsai.config.settings import UiSettings
from netopsai.copilot.service import Copilot
from netopsai.ui.gradio import auth
from netopsai.ui.gradio.app import allowed_hosts, build_app, launch_options
from netopsai.ui.gradio.chat import ChatHandler
from netopsai_testkit.peers.process import free_port

pytestmark = pytest.mark.integration
PASSWORD = "correct horse battery"


def launched(copilot: Copilot, checker: Any) -> Iterator[str]:
    """The app as `netopsai serve` launches it (same options, guard included) on a free port,
    with ops.example.com configured as an allowed name."""
    port = free_port()
    app = build_app(copilot)
    options = launch_options("127.0.0.1", port, checker, UiSettings(allowed_hosts=["ops.example.com"]))
    app.queue().launch(**options, prevent_thread_lock=True)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        app.close()


@pytest.fixture(scope="module")
def copilot(backends: Backends) -> Copilot:
    return Copilot(backends)


@pytest.fixture(scope="module")
def open_app(copilot: Copilot) -> Iterator[str]:
    yield from launched(copilot, None)


@pytest.fixture(scope="module")
def login_app(copilot: Copilot, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    users = tmp_path_factory.mktemp("users") / "users"
    auth.add_user(users, "oncall", PASSWORD)
    yield from launched(copilot, auth.authenticator(users))


def get(url: str, host: str, path: str = "/") -> httpx.Response:
    return httpx.get(url + path, headers={"Host": host}, timeout=30, trust_env=False)


def test_a_foreign_host_is_refused_and_loopback_names_work(open_app: str) -> None:
    port = open_app.rsplit(":", 1)[1]
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}"):
        r = get(open_app, host)
        assert r.status_code == 400 and "host name" in r.text, host
    # the rebinding attack itself: an API call on the app, under the attacker's name
    attack = httpx.post(open_app + "/gradio_api/call/open_thread", json={"data": ["x", ""]},
                        headers={"Host": f"evil.example:{port}"}, timeout=30, trust_env=False)
    assert attack.status_code == 400
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "LOCALHOST",
                 f"ops.example.com:{port}"):
        assert get(open_app, host).status_code == 200, host


def test_allowed_hosts_add_the_bound_address_not_a_wildcard() -> None:
    assert "10.0.0.5" in allowed_hosts("10.0.0.5")
    assert allowed_hosts("0.0.0.0") == allowed_hosts("::") == {"localhost", "127.0.0.1", "::1"}
    assert "ops.example.com" in allowed_hosts("0.0.0.0", ["OPS.example.com:443"])


def login(url: str, password: str, origin: str | None = None, source: str = "127.0.0.1") -> httpx.Response:
    headers = {"Origin": origin} if origin else {}
    transport = httpx.HTTPTransport(local_address=source)  # 127.0.0.0/8 is all loopback
    with httpx.Client(transport=transport, timeout=30, trust_env=False) as c:
        return c.post(url + "/login", data={"username": "oncall", "password": password},
                      headers=headers)


def test_a_login_from_another_sites_page_is_refused(login_app: str) -> None:
    refused = [login(login_app, PASSWORD, origin) for origin in
               ("http://evil.example", "null", "http://localhost:1", "https://127.0.0.1.evil.example")]
    assert [r.status_code for r in refused] == [403] * 4  # another port of localhost is another site
    assert "another site" in refused[0].text
    assert login(login_app, PASSWORD, login_app).json() == {"success": True}  # the app's own page
    assert login(login_app, PASSWORD, "https://ops.example.com").json() == {"success": True}
    assert login(login_app, PASSWORD).status_code == 200  # no Origin: a script, not a page


def test_wrong_passwords_from_one_address_do_not_lock_another(login_app: str) -> None:
    wrong = [login(login_app, f"guess-{i}", source="127.0.0.2") for i in range(auth.Throttle.FREE)]
    assert [r.status_code for r in wrong] == [400] * auth.Throttle.FREE
    assert login(login_app, PASSWORD, source="127.0.0.2").status_code == 400  # locked from there
    assert login(login_app, PASSWORD, source="127.0.0.3").json() == {"success": True}  # not here


def open_thread(url: str, tid: str) -> str:
    """The Chat tab's open_thread event over Gradio's HTTP API (what a page would call)."""
    with httpx.Client(base_url=url, timeout=60, trust_env=False) as c:
        event = c.post("/gradio_api/call/open_thread", json={"data": [tid, ""]}).json()["event_id"]
        return c.get(f"/gradio_api/call/open_thread/{event}").text


def test_a_visitor_cannot_open_other_front_ends_threads(open_app: str, copilot: Copilot) -> None:
    secret_question = "who owns 10.1.3.20?"
    for key in ("api:tok:t1", "mcp:ide:t1", "slack:C1:1700000000.1", "cli-0a1b2c3d"):
        copilot.answer(secret_question, key)
        assert copilot.thread(key).answer  # there is something to steal
    for tid in ("api:tok:t1", "mcp:ide:t1", "slack:C1:1700000000.1"):
        shown = open_thread(open_app, tid)
        assert "event: complete" in shown and "not a web thread id" in shown, shown[:300]
        assert "dc1-host-03-1" not in shown and secret_question not in shown
    # an id without a prefix is the web's own (web:anonymous:…), never the owner's CLI thread
    shown = open_thread(open_app, "cli-0a1b2c3d")
    assert "not found" in shown and secret_question not in shown


def test_asking_in_another_front_ends_thread_is_one_line(copilot: Copilot) -> None:
    if not copilot.thread("api:tok:t1").answer:  # its own question, not the test above's
        copilot.answer("who owns 10.1.3.20?", "api:tok:t1")
    chat = ChatHandler(copilot)
    views = list(chat.turn("and its upstream switch?", [], "api:tok:t1"))
    last = views[-1]
    assert last.status == "error" and "not a web thread id" in str(last.history[-1].content)
    assert "Traceback" not in json.dumps(str(last.history))
    # and the API's thread was not touched: still its one question
    assert [m.type for m in copilot.thread("api:tok:t1").state["messages"]].count("human") == 1


def test_web_threads_are_namespaced(copilot: Copilot, tmp_path: Path) -> None:
    chat = ChatHandler(copilot)
    list(chat.turn("who owns 10.1.3.20?", [], "webonly1"))
    assert copilot.thread("web:anonymous:webonly1").answer
    assert not copilot.thread("webonly1").answer  # not under the bare id any more


def test_an_upload_past_the_batch_limit_is_refused_before_it_is_kept(open_app: str) -> None:
    """The second hostile pass: anyone reaching the app stored 100 MB under /tmp/gradio."""
    from netopsai.ui.gradio.batch import MAX_INPUT

    big = b"10.1.3.20 10.2.1.40\n" * (MAX_INPUT // 20 + 1000)
    r = httpx.post(open_app + "/gradio_api/upload", files={"files": ("pairs.txt", big)},
                   timeout=60, trust_env=False)
    assert r.status_code in (400, 413), r.status_code
    small = httpx.post(open_app + "/gradio_api/upload",
                       files={"files": ("pairs.txt", b"10.1.3.20 10.2.1.40\n")}, timeout=60,
                       trust_env=False)
    assert small.status_code == 200, small.text[:200]
