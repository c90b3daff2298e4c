"""The Slack bot end to end on loopback: signed slash commands, events and button clicks go
through bolt's WSGI handler on a 127.0.0.1 server we start; the bot's WebClient talks to a fake
Slack Web API (testkit's fake_slack_api.py) that records what the bot posted. The lab has an ACL
on dc1-leaf-03 dropping traffic to 10.2.1.0/24."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.manage import init_lab, lab_info
from netopsai.lab.scenario import Scenario
from netopsai.store.engine import engine_for
from netopsai.ui.slack.settings import SlackSettings
from netopsai_testkit.fake_slack_api import FakeSlackAPI, SlackSender, served_bot

SECRET = "test-signing-secret-4f1d"
TOKEN = "xoxb-test-bot-token-9a7e"
ONCALL, JUNIOR, STRANGER = "UONCALL", "UJUNIOR", "USTRANGER"
OPS, PRIVATE = "COPS", "CPRIV"
CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
Blocks = list[dict[str, Any]]


@pytest.fixture(scope="module")
def copilot(tmp_path_factory: pytest.TempPathFactory) -> Copilot:
    engine = engine_for(f"sqlite:///{tmp_path_factory.mktemp('slack') / 'lab.db'}")
    init_lab(engine, "default", "small", 7, CLOCK)
    inject(engine, Scenario.model_validate({
        "id": "slack-acl", "now": lab_info(engine).clock,
        "question": "10.1.3.20 to 10.2.1.40 not communicating",
        "faults": [{"kind": "acl_block", "at": "-25m", "target": {"device": "dc1-leaf-03"},
                    "params": {"dst": "10.2.1.0/24"}}]}))
    return Copilot(lab_backends(engine))


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeSlackAPI]:
    api = FakeSlackAPI().start()
    yield api
    api.stop()


@pytest.fixture(scope="module")
def settings(fake: FakeSlackAPI) -> SlackSettings:
    return SlackSettings.model_validate({
        "bot_token": TOKEN, "signing_secret": SECRET, "api_url": fake.api_url,
        "allowed_users": [ONCALL, JUNIOR], "allowed_channels": [OPS, PRIVATE],
        "batch_users": [ONCALL]})


@pytest.fixture(scope="module")
def bot(copilot: Copilot, settings: SlackSettings, fake: FakeSlackAPI) -> Iterator[str]:
    """The app behind a WSGI server on 127.0.0.1:0; the URL Slack would post to."""
    yield from served_bot(copilot, settings, fake)


@pytest.fixture(autouse=True)
def clean(fake: FakeSlackAPI) -> None:
    fake.reset()


def slash(bot: str, fake: FakeSlackAPI, text: str, user: str = ONCALL, channel: str = OPS,
          **kw: Any) -> tuple[int, str]:
    return SlackSender(bot, SECRET, f"{fake.base}/response/1").slash(text, user, channel, **kw)


def event(bot: str, ev: dict[str, Any]) -> tuple[int, str]:
    return SlackSender(bot, SECRET, "").event(ev)


def click(bot: str, value: str, channel: str, message: dict[str, Any]) -> tuple[int, str]:
    return SlackSender(bot, SECRET, "").click("netops_evidence", value, ONCALL, channel, message)


def texts(blocks: Blocks | dict[str, Any]) -> str:
    """All the text in some blocks, to search."""
    return json.dumps(blocks)


def said(blocks: Blocks) -> str:
    """The answer's conclusion: its first section after the headline (ui/slack/answer.py)."""
    return next(b["text"]["text"] for b in blocks[1:] if b["type"] == "section" and "text" in b)


def block(blocks: Blocks, kind: str, key: str | None = None) -> dict[str, Any]:
    return next(b for b in blocks if b["type"] == kind and (key is None or key in b))


@pytest.fixture(scope="module")
def traced(bot: str, fake: FakeSlackAPI) -> dict[str, Any]:
    """`/netops trace` across the ACL, run once: the calls it made, for several tests."""
    fake.reset()
    status, body = slash(bot, fake, "trace 10.1.3.20 10.2.1.40")
    return {"status": status, "body": body, "posts": fake.of("chat.postMessage"),
            "updates": fake.of("chat.update")}


def test_help_is_an_ephemeral_ack(bot: str, fake: FakeSlackAPI) -> None:
    status, body = slash(bot, fake, "help")
    assert status == 200
    reply = json.loads(body)
    assert reply["response_type"] == "ephemeral"
    for sub in ("ask", "trace", "device", "alarms", "batch", "help"):
        assert f"/netops {sub}" in texts(reply["blocks"])
    assert fake.of("chat.postMessage") == []


def test_trace_names_the_acl_with_fields_citations_and_button(traced: dict[str, Any]) -> None:
    assert traced["status"] == 200
    [placeholder] = traced["posts"]
    assert placeholder["channel"] == OPS and "hourglass" in texts(placeholder["blocks"])
    final = traced["updates"][-1]["blocks"]
    conclusion = said(final)
    assert "config.acl_block" in conclusion and "dc1-leaf-03" in conclusion
    fields = {f["text"].split("\n")[0]: f["text"].split("\n")[1]
              for f in block(final, "section", "fields")["fields"]}
    assert fields["*Root cause*"] == "an ACL blocks the traffic (`config.acl_block`)"
    assert fields["*Device*"] == "dc1-leaf-03"
    assert "*Impact:*" in conclusion and "*Since:*" in conclusion  # the whole conclusion block
    cites = texts(block(final, "context")["elements"])
    # the trace cited at its moment on the network's clock (UTC here, named), not as ISO
    assert "traceroute" in cites and "window 2025-11-04 20:00 UTC" in cites, cites
    button = block(final, "actions")["elements"][0]
    assert button["action_id"] == "netops_evidence" and json.loads(button["value"])["ids"]


def test_progress_updates_come_before_the_answer(traced: dict[str, Any]) -> None:
    updates = traced["updates"]
    assert len(updates) >= 3 and len({u["ts"] for u in updates}) == 1  # one placeholder
    progress = [u for u in updates[:-1] if "hourglass" in texts(u["blocks"])]
    assert len(progress) == len(updates) - 1  # every update but the last is progress
    steps = texts(progress[-1]["blocks"])
    assert "planner" in steps and "traceroute" in steps and "diagnosing" in steps
    assert "hourglass" not in texts(updates[-1]["blocks"])


def test_evidence_button_posts_rows_in_the_thread(bot: str, fake: FakeSlackAPI,
                                                  traced: dict[str, Any]) -> None:
    final = traced["updates"][-1]
    value = block(final["blocks"], "actions")["elements"][0]["value"]
    status, _ = click(bot, value, OPS, {"ts": final["ts"], "type": "message"})
    assert status == 200
    [rows] = fake.of("chat.postMessage")
    assert rows["thread_ts"] == final["ts"] and rows["channel"] == OPS
    shown = texts(rows["blocks"])
    assert "```" in shown and "!X" in shown and "dc1-leaf-03" in shown
    ids = json.loads(value)["ids"]
    assert all(f"*[{i}] " in shown for i in ids) and "] traceroute*" in shown


def test_evidence_of_another_channel_is_not_shown(bot: str, fake: FakeSlackAPI,
                                                  traced: dict[str, Any]) -> None:
    final = traced["updates"][-1]
    value = block(final["blocks"], "actions")["elements"][0]["value"]
    click(bot, value, PRIVATE, {"ts": final["ts"], "type": "message"})
    assert fake.of("chat.postMessage") == []
    assert "no longer available" in fake.of("chat.postEphemeral")[0]["text"]


@pytest.mark.parametrize("value", ["not json", "[1, 2]", '{"t": 5, "ids": "E1"}'])
def test_a_forged_button_value_is_a_one_line_reply(bot: str, fake: FakeSlackAPI,
                                                    traced: dict[str, Any], value: str) -> None:
    """A click whose value the bot never wrote (not JSON, not an object, wrong types) is told
    the evidence is gone; it raised in the listener before (every button listener reads its
    value through one `clicked`)."""
    final = traced["updates"][-1]
    fake.reset()
    status, _ = click(bot, value, OPS, {"ts": final["ts"], "type": "message"})
    assert status == 200
    assert fake.of("chat.postMessage") == []
    [told] = fake.of("chat.postEphemeral")
    assert "no longer available" in told["text"]


def test_mentions_answer_in_their_thread_and_keep_its_context(bot: str, fake: FakeSlackAPI,
                                                             copilot: Copilot) -> None:
    root = "1700000000.000100"
    event(bot, {"type": "app_mention", "user": ONCALL, "channel": OPS, "ts": "1700000000.000200",
                "thread_ts": root, "text": "<@UBOT> who owns 10.1.3.20?"})
    event(bot, {"type": "app_mention", "user": ONCALL, "channel": OPS, "ts": "1700000000.000300",
                "thread_ts": root, "text": "<@UBOT> what is its upstream switch?"})
    posts = fake.of("chat.postMessage")
    assert [p["thread_ts"] for p in posts] == [root, root]
    final = fake.of("chat.update")[-1]["blocks"]
    assert "Upstream of 10.1.3.20: dc1-leaf-03" in said(final)  # from the thread
    state = copilot.thread(f"slack:{OPS}:{root}").state
    assert {e["tool"] for e in state["evidence"]} == {"metadata"} and len(state["evidence"]) == 2


def test_top_level_mention_starts_a_thread(bot: str, fake: FakeSlackAPI) -> None:
    event(bot, {"type": "app_mention", "user": ONCALL, "channel": OPS, "ts": "1700000001.000100",
                "text": "<@UBOT> details of dc1-leaf-03"})
    [placeholder] = fake.of("chat.postMessage")
    assert placeholder["thread_ts"] == "1700000001.000100"
    assert "NX-OS" in said(fake.of("chat.update")[-1]["blocks"])


def test_direct_messages_are_chat_and_bot_messages_are_ignored(bot: str, fake: FakeSlackAPI) -> None:
    event(bot, {"type": "message", "channel_type": "im", "user": ONCALL, "channel": "D42",
                "ts": "1700000002.000100", "bot_id": "BOTHER", "text": "details of dc1-leaf-03"})
    assert fake.of("chat.postMessage") == []
    event(bot, {"type": "message", "channel_type": "im", "user": ONCALL, "channel": "D42",
                "ts": "1700000002.000200", "text": "alarms at dc1 in the last 24h"})
    [placeholder] = fake.of("chat.postMessage")
    assert placeholder["channel"] == "D42" and placeholder["thread_ts"] == "1700000002.000200"
    final = fake.of("chat.update")[-1]["blocks"]
    blocks = [b["text"]["text"] for b in final if "text" in b]
    # the window the question named, right under the headline
    assert final[1]["elements"][0]["text"].startswith("_Window: last 24h")
    assert any("alarms in the window" in b for b in blocks)


def test_bad_signature_is_401(bot: str, fake: FakeSlackAPI) -> None:
    status, _ = slash(bot, fake, "device dc1-leaf-03", secret="not-the-secret")
    assert status == 401
    assert fake.methods() == []


def test_stale_timestamp_is_401(bot: str, fake: FakeSlackAPI) -> None:
    status, _ = slash(bot, fake, "device dc1-leaf-03", age=10 * 60)
    assert status == 401
    assert fake.methods() == []


def test_unauthorised_user_is_denied_ephemerally(bot: str, fake: FakeSlackAPI) -> None:
    status, body = slash(bot, fake, "device dc1-leaf-03", user=STRANGER)
    reply = json.loads(body)
    assert status == 200 and reply["response_type"] == "ephemeral" and "allow-list" in reply["text"]
    event(bot, {"type": "app_mention", "user": STRANGER, "channel": OPS, "ts": "1700000003.000100",
                "text": "<@UBOT> details of dc1-leaf-03"})
    [denied] = fake.of("chat.postEphemeral")
    assert denied["user"] == STRANGER and "allow-list" in denied["text"]
    assert fake.of("chat.postMessage") == [] and fake.of("chat.update") == []


def test_channel_outside_the_allow_list_is_denied(bot: str, fake: FakeSlackAPI) -> None:
    _, body = slash(bot, fake, "device dc1-leaf-03", channel="CRANDOM")
    assert "channel" in json.loads(body)["text"]
    assert fake.of("chat.postMessage") == []


def test_batch_has_its_own_allow_list(bot: str, fake: FakeSlackAPI) -> None:
    _, body = slash(bot, fake, "batch 10.2.1.40", user=JUNIOR)
    reply = json.loads(body)
    assert reply["response_type"] == "ephemeral" and "batch" in reply["text"]
    assert fake.of("chat.postMessage") == []
    slash(bot, fake, "device dc1-leaf-03", user=JUNIOR)  # the same user may still ask
    assert len(fake.of("chat.postMessage")) == 1


def test_usage_errors_are_ephemeral(bot: str, fake: FakeSlackAPI) -> None:
    _, body = slash(bot, fake, "trace 10.1.3.20 not-an-ip")
    assert "'not-an-ip' is not an IP address" in json.loads(body)["text"]
    _, body = slash(bot, fake, "alarms dc1 dc2")
    assert "at most a site and a window" in json.loads(body)["text"]
    assert fake.of("chat.postMessage") == []


def test_answer_goes_through_response_url_where_the_bot_cannot_post(bot: str,
                                                                    fake: FakeSlackAPI) -> None:
    fake.refuse.add(PRIVATE)
    try:
        slash(bot, fake, "device dc1-leaf-03", channel=PRIVATE)
    finally:
        fake.refuse.discard(PRIVATE)
    [answer] = fake.of("/response/1")
    assert answer["response_type"] == "in_channel" and "NX-OS" in texts(answer["blocks"])
    assert fake.of("chat.update") == []


def test_secrets_stay_out_of_logs_and_messages(bot: str, fake: FakeSlackAPI, settings: SlackSettings,
                                               caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        slash(bot, fake, "device dc1-leaf-03")
        slash(bot, fake, "device dc1-leaf-03", secret="wrong")
    assert fake.of("chat.update") and caplog.records  # something was said and logged
    said = json.dumps(fake.calls) + caplog.text + repr(settings) + str(settings.model_dump())
    assert TOKEN not in said and SECRET not in said
    assert set(fake.auth_headers) == {f"Bearer {TOKEN}"}  # the token only as the API credential


def test_batch_inline_reports_progress_groups_and_bad_lines(bot: str, fake: FakeSlackAPI) -> None:
    status, _ = slash(bot, fake, "batch 10.1.3.20,10.2.1.40 10.1.3.30,10.2.1.50 "
                                 "10.1.3.20,10.1.1.20 10.2.2.20 10.1.3.20,not-an-ip")
    assert status == 200
    updates = fake.of("chat.update")
    assert "4/4 pairs checked" in texts(updates[-2]["blocks"])  # progress, then the summary
    final = updates[-1]["blocks"]
    fields = texts(block(final, "section", "fields"))
    assert "*total*\\n4" in fields and "*reachable*\\n2" in fields and "*failing*\\n2" in fields
    assert "2 pairs fail at dc1-leaf-03: config.acl_block" in texts(final)
    assert "line 2: 10.1.3.30 -&gt; 10.2.1.50: config.acl_block at dc1-leaf-03" in texts(final)
    assert "line 5: 'not-an-ip'" in texts(block(final, "context"))  # the bad line, by number


def test_batch_from_an_attached_file_in_a_dm(bot: str, fake: FakeSlackAPI) -> None:
    fake.add_file("F1", "pairs.csv", b"src,dst\n10.1.3.20,10.2.1.40\n10.1.3.20,10.1.1.20\n")
    event(bot, {"type": "message", "subtype": "file_share", "channel_type": "im", "user": ONCALL,
                "channel": "D42", "ts": "1700000004.000100", "text": "batch",
                "files": [{"id": "F1", "name": "pairs.csv"}]})
    assert [a["file"] for a in fake.of("files.info")] == ["F1"]
    download = fake.methods().index("GET /files/F1")
    assert fake.auth_headers[download] == f"Bearer {TOKEN}"
    final = texts(fake.of("chat.update")[-1]["blocks"])
    assert "1 pair fails at dc1-leaf-03: config.acl_block" in final and "*total*\\n2" in final


def _signed(bot: str, body: str, ts: str) -> Any:
    """One request, signed with the real secret, that can be sent more than once unchanged."""
    import hashlib
    import hmac
    import urllib.request

    digest = hmac.new(SECRET.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
    return urllib.request.Request(bot, data=body.encode(), method="POST", headers={
        "Content-Type": "application/json", "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": f"v0={digest}"})


def _send(req: Any) -> int:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as err:
        return int(err.code)


def test_a_malformed_timestamp_is_400_and_does_nothing(bot: str, fake: FakeSlackAPI) -> None:
    body = json.dumps({"type": "event_callback", "event_id": "EvBad", "event": {
        "type": "app_mention", "user": ONCALL, "channel": OPS, "ts": "1700000009.000100",
        "text": "<@UBOT> details of dc1-leaf-03"}})
    assert _send(_signed(bot, body, "soon")) == 400
    assert fake.methods() == []


def test_a_replayed_request_is_processed_once(bot: str, fake: FakeSlackAPI) -> None:
    body = json.dumps({"token": "legacy", "team_id": "T1", "api_app_id": "A1", "type": "event_callback",
                       "event_id": "EvReplay", "event_time": 1700000010, "event": {
                           "type": "app_mention", "user": ONCALL, "channel": OPS,
                           "ts": "1700000010.000100", "text": "<@UBOT> details of dc1-leaf-03"}})
    import time

    req = _signed(bot, body, str(int(time.time())))
    assert _send(req) == 200
    first = len(fake.of("chat.postMessage"))
    assert first >= 1
    assert _send(req) == 200  # acknowledged ...
    assert len(fake.of("chat.postMessage")) == first  # ... but not answered a second time
