"""Slack parity with the web app (issue 26 items 2 and 7), end to end on loopback: signed
requests go through the bot's WSGI server, the fake Slack Web API records what it posted.
The headline first (the first section and the notification text), alarms as a list with marks
and Ack / Silence buttons that write the web app's store, facts in words, citations in id
order, next steps before the rest, Open buttons only when the web app's address is set, and a
big table in a modal. The lab has an ACL on dc1-leaf-03 and a link down on its uplink."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import citations
from netopsai.copilot.headline import headline
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.manage import init_lab, lab_info
from netopsai.lab.scenario import Scenario
from netopsai.store import acks
from netopsai.store.engine import engine_for
from netopsai.ui.gradio.alarms import Filters, read_alarms
from netopsai.ui.slack.alarm_list import ACK_ACTION, MARKS, SILENCE_ACTION
from netopsai.ui.slack.blocks import mrkdwn
from netopsai.ui.slack.settings import SlackSettings
from netopsai_testkit.fake_slack_api import FakeSlackAPI, SlackSender, served_bot

SECRET = "parity-signing-secret-77c1"
TOKEN = "xoxb-parity-token-31d0"
ONCALL, STRANGER, OPS = "UONCALL", "USTRANGER", "COPS"
WEB = "https://netopsai.example.net/ops"
CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
Blocks = list[dict[str, Any]]


@pytest.fixture(scope="module")
def copilot(tmp_path_factory: pytest.TempPathFactory) -> Copilot:
    engine = engine_for(f"sqlite:///{tmp_path_factory.mktemp('parity') / 'lab.db'}")
    init_lab(engine, "default", "small", 7, CLOCK)
    inject(engine, Scenario.model_validate({
        "id": "parity", "now": lab_info(engine).clock,
        "question": "10.1.3.20 to 10.2.1.40 not communicating",
        "faults": [{"kind": "acl_block", "at": "-25m", "target": {"device": "dc1-leaf-03"},
                    "params": {"dst": "10.2.1.0/24"}},
                   {"kind": "link_down", "at": "-40m",
                    "target": {"link": "dc1-leaf-03:Ethernet49"}}]}))
    return Copilot(lab_backends(engine))


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeSlackAPI]:
    api = FakeSlackAPI().start()
    yield api
    api.stop()


def _serve(copilot: Copilot, fake: FakeSlackAPI, web: str | None) -> Iterator[str]:
    settings = SlackSettings.model_validate({
        "bot_token": TOKEN, "signing_secret": SECRET, "api_url": fake.api_url,
        "allowed_users": [ONCALL], "allowed_channels": [OPS], "web_base_url": web})
    yield from served_bot(copilot, settings, fake)


@pytest.fixture(scope="module")
def bot(copilot: Copilot, fake: FakeSlackAPI) -> Iterator[str]:
    """The bot as most deployments start it: no web address configured."""
    yield from _serve(copilot, fake, None)


@pytest.fixture(scope="module")
def linked(copilot: Copilot, fake: FakeSlackAPI) -> Iterator[str]:
    """The same bot with SLACK_WEB_BASE_URL set."""
    yield from _serve(copilot, fake, WEB)


@pytest.fixture(autouse=True)
def clean(fake: FakeSlackAPI) -> None:
    fake.reset()


def sender(bot: str, fake: FakeSlackAPI) -> SlackSender:
    return SlackSender(bot, SECRET, f"{fake.base}/response/1")


def answered(bot: str, fake: FakeSlackAPI, text: str) -> dict[str, Any]:
    """A slash command's final message (the last chat.update of its placeholder)."""
    fake.reset()
    status, _ = sender(bot, fake).slash(text, ONCALL, OPS)
    assert status == 200
    return fake.of("chat.update")[-1]


def number(eid: str) -> int:
    return int(eid.lstrip("E"))


@pytest.fixture(scope="module")
def alarms_reply(bot: str, fake: FakeSlackAPI) -> dict[str, Any]:
    return answered(bot, fake, "alarms dc1 2h")


@pytest.fixture(scope="module")
def trace_reply(linked: str, fake: FakeSlackAPI) -> dict[str, Any]:
    return answered(linked, fake, "trace 10.1.3.20 10.2.1.40")


def test_the_headline_is_the_first_block_and_the_notification(alarms_reply: dict[str, Any],
                                                             copilot: Copilot) -> None:
    answer = copilot.thread(f"slack:{OPS}:{alarms_reply['ts']}").answer
    head = headline(answer)
    assert head and not answer.startswith(head)  # the answer opens with its window line
    first = alarms_reply["blocks"][0]
    assert first["type"] == "section" and first["text"]["text"] == f"*{mrkdwn(head)}*"
    assert alarms_reply["text"] == mrkdwn(head)[:300]  # the notification: not the window line
    assert not alarms_reply["text"].startswith("_Window")
    assert alarms_reply["blocks"][1]["elements"][0]["text"].startswith("_Window: last 2h")


def test_a_diagnosis_headline_leads_too(trace_reply: dict[str, Any], copilot: Copilot) -> None:
    answer = copilot.thread(f"slack:{OPS}:{trace_reply['ts']}").answer
    assert trace_reply["text"].startswith("Reachable: no · ") and "dc1-leaf-03" in trace_reply["text"]
    assert trace_reply["blocks"][0]["text"]["text"] == f"*{mrkdwn(headline(answer))}*"


def alarm_lines(blocks: Blocks) -> dict[int, str]:
    return {int(b["block_id"].rsplit("_", 1)[1]): b["text"]["text"] for b in blocks
            if re.fullmatch(r"netops_alarm_\d+", str(b.get("block_id", "")))}


def test_alarms_are_a_list_with_marks_and_buttons(alarms_reply: dict[str, Any],
                                                  copilot: Copilot) -> None:
    thread = copilot.thread(f"slack:{OPS}:{alarms_reply['ts']}")
    rows = {r["id"]: r for e in thread.turn_evidence if e["tool"] == "alarms" for r in e["rows"]}
    lines = alarm_lines(alarms_reply["blocks"])
    assert len(rows) >= 3 and set(lines) == set(rows)  # one line per alarm
    for aid, line in lines.items():
        r = rows[aid]
        assert line.startswith(MARKS[r["severity"]] + f" *{r['severity']}* {r['kind']} on {r['device']}")
        assert ("open since" in line) == (r["state"] == "open")
    blocks = alarms_reply["blocks"]
    for i, b in enumerate(blocks):
        aid = next((a for a in lines if b.get("block_id") == f"netops_alarm_{a}"), None)
        if aid is not None and rows[aid]["state"] == "open":
            buttons = blocks[i + 1]["elements"]
            assert [(x["action_id"], json.loads(x["value"])) for x in buttons] == [
                (ACK_ACTION, {"a": aid}), (SILENCE_ACTION, {"a": aid})]


def _click(bot: str, fake: FakeSlackAPI, action: str, aid: int, reply: dict[str, Any],
           user: str = ONCALL, **kw: Any) -> int:
    fake.reset()
    message = {"type": "message", "ts": reply["ts"], "text": reply["text"],
               "blocks": reply["blocks"]}
    s = sender(bot, fake)
    payload = {"type": "block_actions", "user": {"id": user}, "team": {"id": "T1"},
               "api_app_id": "A1", "channel": {"id": OPS}, "message": message,
               "container": {"type": "message", "message_ts": reply["ts"], "channel_id": OPS},
               "trigger_id": "1.2.3", "response_url": s.response_url,
               "actions": [{"type": "button", "action_id": action, "block_id": action,
                            "value": json.dumps({"a": aid})}]}
    from urllib.parse import urlencode

    status, _ = s.post(urlencode({"payload": json.dumps(payload)}),
                       "application/x-www-form-urlencoded", **kw)
    return status


def _open_ids(reply: dict[str, Any]) -> list[int]:
    return [json.loads(b["elements"][0]["value"])["a"] for b in reply["blocks"]
            if str(b.get("block_id", "")).startswith("netops_alarm_buttons_")]


def test_ack_and_silence_write_the_web_apps_store(bot: str, fake: FakeSlackAPI,
                                                  alarms_reply: dict[str, Any],
                                                  copilot: Copilot) -> None:
    first, second = _open_ids(alarms_reply)[:2]
    backends = copilot.backends
    engine, now = backends.inventory.engine, backends.inventory.clock()
    assert acks.states(engine, [first, second], now) == {}
    assert _click(bot, fake, ACK_ACTION, first, alarms_reply) == 200
    state = acks.states(engine, [first], now)[first]
    assert (state.state, state.by) == ("acked", f"slack:{ONCALL}")
    web = read_alarms(backends, Filters(), "24h")  # the web app's Alarms tab reads this
    row = next(r for r in web.open_rows if r["id"] == first)
    assert row["ack_state"] == "acked" and row["ack"].startswith(f"acked by slack:{ONCALL}")
    [update] = fake.of("chat.update")  # the line in the message now says so
    assert f"acked by slack:{ONCALL}" in alarm_lines(update["blocks"])[first]
    assert "acknowledged" in fake.of("chat.postEphemeral")[0]["text"]

    assert _click(bot, fake, SILENCE_ACTION, second, alarms_reply) == 200
    assert acks.states(engine, [second], now)[second].state == "silenced"
    web = read_alarms(backends, Filters(), "24h")
    assert second not in {r["id"] for r in web.open_rows} and web.hidden >= 1
    shown = read_alarms(backends, Filters(show_silenced=True), "24h").open_rows
    assert next(r for r in shown if r["id"] == second)["ack_state"] == "silenced"


def test_ack_is_refused_to_strangers_and_forgeries(bot: str, fake: FakeSlackAPI,
                                                   alarms_reply: dict[str, Any],
                                                   copilot: Copilot) -> None:
    aid = _open_ids(alarms_reply)[-1]
    engine = copilot.backends.inventory.engine
    before = len(acks.history(engine, aid))
    assert _click(bot, fake, ACK_ACTION, aid, alarms_reply, user=STRANGER) == 200
    assert "allow-list" in fake.of("chat.postEphemeral")[0]["text"]
    assert _click(bot, fake, ACK_ACTION, aid, alarms_reply, secret="forged") == 401
    assert len(acks.history(engine, aid)) == before and fake.of("chat.update") == []
    assert _click(bot, fake, ACK_ACTION, 999_999, alarms_reply) == 200  # no such alarm
    assert "unknown alarm id 999999" in fake.of("chat.postEphemeral")[0]["text"]


def test_facts_are_in_words(trace_reply: dict[str, Any]) -> None:
    fields = next(b for b in trace_reply["blocks"] if "fields" in b)["fields"]
    pairs = dict(f["text"].split("\n", 1) for f in fields)
    assert pairs["*Reached the destination*"] == "no"
    assert pairs["*Equal-cost paths*"].isdigit()
    text = json.dumps(trace_reply["blocks"], ensure_ascii=False)
    assert not re.search(r"\breached (False|True)\b|ecmp paths|ecmp_paths", text)
    # the citations' arguments too: "24 devices", not "devices=<24 items>" or "correlate=False"
    assert "items&gt;" not in text and not re.search(r"\w=(False|True)\b", text)
    assert re.search(r"\[E\d+\] alarms · window \d+h, state any, \d+ devices", text)


def test_citations_in_id_order(trace_reply: dict[str, Any], copilot: Copilot) -> None:
    cited = citations(copilot.thread(f"slack:{OPS}:{trace_reply['ts']}").answer)
    assert cited != sorted(cited, key=number)  # the prose cites out of order: the test bites
    shown = [re.match(r"\[(E\d+)\]", e["text"]).group(1)  # type: ignore[union-attr]
             for b in trace_reply["blocks"] if b["type"] == "context" for e in b["elements"]
             if e["text"].startswith("[E")]
    assert shown == sorted(set(cited), key=number)


def test_next_steps_come_before_the_rest(trace_reply: dict[str, Any]) -> None:
    heads = [b["text"]["text"].split("\n")[0] for b in trace_reply["blocks"]
             if b["type"] == "section" and "text" in b]
    steps = heads.index("*Next steps*")
    assert steps == 2  # the headline, the conclusion, then what to do
    assert all(heads.index(h) > steps for h in ("*Checked and found clean*",) if h in heads)


def test_open_buttons_only_when_configured(trace_reply: dict[str, Any], bot: str,
                                           linked: str, fake: FakeSlackAPI) -> None:
    [opens] = [b for b in trace_reply["blocks"] if b.get("block_id") == "netops_open"]
    urls = [x["url"] for x in opens["elements"]]
    thread = f"slack%3A{OPS}%3A{trace_reply['ts']}"
    # the thread's link is signed for that thread (the web app opens nothing of Slack's without)
    sig = SlackSettings(signing_secret=SECRET).thread_sig(f"slack:{OPS}:{trace_reply['ts']}")
    assert sig and urls[0] == f"{WEB}/?thread={thread}&sig={sig}"
    assert f"{WEB}/?device=dc1-leaf-03" in urls
    plain = answered(bot, fake, "trace 10.1.3.20 10.2.1.40")
    assert "netops_open" not in json.dumps(plain["blocks"]) and WEB not in json.dumps(plain)
    # a link button's click is acknowledged and does nothing else
    fake.reset()
    s = sender(linked, fake)
    status, _ = s.click(opens["elements"][0]["action_id"], "", ONCALL, OPS,
                        {"ts": trace_reply["ts"], "type": "message"})
    assert status == 200 and fake.methods() == []


def test_a_big_table_opens_in_a_modal(linked: str, fake: FakeSlackAPI, copilot: Copilot) -> None:
    reply = answered(linked, fake, "ask list the devices of dc1")
    [ev] = copilot.thread(f"slack:{OPS}:{reply['ts']}").turn_evidence
    assert len(ev["rows"]) > 30
    buttons = [x for b in reply["blocks"] if b["type"] == "actions" for x in b["elements"]
               if x["action_id"].startswith("netops_table_")]
    assert [json.loads(x["value"])["id"] for x in buttons] == [ev["id"]]
    fake.reset()
    status, _ = sender(linked, fake).click(buttons[0]["action_id"], buttons[0]["value"], ONCALL,
                                           OPS, {"ts": reply["ts"], "type": "message"})
    assert status == 200
    [opened] = fake.of("views.open")
    view = opened["view"] if isinstance(opened["view"], dict) else json.loads(opened["view"])
    assert opened["trigger_id"] == "1.2.3" and view["type"] == "modal"
    table = "".join(b["text"]["text"] for b in view["blocks"][1:])
    assert all(r["name"] in table for r in ev["rows"])  # every row, not the message's 30


def test_the_web_address_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    from netopsai.common.errors import NetopsError
    from netopsai.ui.slack.app import _settings

    monkeypatch.setenv("SLACK_WEB_BASE_URL", "https://ops.example.net/netops/")
    assert _settings().web_base_url == "https://ops.example.net/netops"  # no doubled slash
    monkeypatch.setenv("SLACK_WEB_BASE_URL", "javascript:alert(1)")
    with pytest.raises(NetopsError, match=r"^SLACK_WEB_BASE_URL: .*https?://") as err:
        _settings()
    assert "\n" not in str(err.value)
    monkeypatch.setenv("SLACK_WEB_BASE_URL", "")
    assert _settings().web_base_url is None  # empty: no Open buttons


def test_the_list_puts_open_worst_newest_first_and_says_how_many_more() -> None:
    from netopsai.ui.slack.alarm_list import MAX_ALARMS, alarm_blocks, alarm_rows

    def row(i: int, state: str, sev: str, hour: int) -> dict[str, Any]:
        return {"id": i, "state": state, "severity": sev, "kind": "LINK_DOWN",
                "device": f"leaf-{i}", "raised_at": f"2025-11-04T{hour:02d}:00:00Z"}
    rows = [row(1, "closed", "critical", 19), row(2, "open", "minor", 18),
            row(3, "open", "critical", 10), row(4, "open", "critical", 12),
            *(row(10 + i, "closed", "minor", i) for i in range(9))]
    ordered = alarm_rows({"evidence": [{"tool": "alarms", "rows": rows}], "root_cause": None})
    assert [r["id"] for r in ordered[:5]] == [4, 3, 2, 1, 18]
    assert alarm_rows({"evidence": [{"tool": "alarms", "rows": rows}],
                       "root_cause": {"label": "link.down"}}) == []  # a diagnosis: no list
    blocks = alarm_blocks(ordered, {4: "acked by slack:U1"})
    lines = alarm_lines(blocks)
    assert len(lines) == MAX_ALARMS and lines[4].endswith("_acked by slack:U1_")
    assert len([b for b in blocks if b["type"] == "actions"]) == 3  # the open ones only
    assert f"and {len(rows) - MAX_ALARMS} more alarms" in blocks[-1]["elements"][0]["text"]
