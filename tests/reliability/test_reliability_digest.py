"""The weekly digest as Block Kit, posted with slack_sdk's WebClient over real HTTP to the fake
Slack Web API on loopback: what arrives is read back and checked against Slack's limits (50
blocks, 3000 characters a text, 150 a header) and for names from the network that try to
mention @channel, link out or break out of their code span. The report is built by hand so
its sizes and names are the test's; test_reliability checks the digest of a computed report."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from slack_sdk import WebClient

from netopsai.reliability.digest import SCOPES_SHOWN, post_digest
from netopsai.reliability.model import Report
from netopsai_testkit.fake_slack_api import FakeSlackAPI

PING = "<!channel> <https://evil.example/x|click me> @here"
TICKED = "leaf`*bold*`_x_"


def report(scopes: int, offenders: int) -> Report:
    ttr: list[dict[str, Any]] = [
        {"category": c, "stage": s, "cases": 5, "of": 7, "p50_min": 12.0, "p90_min": 40.5}
        for c in ("link", "all") for s in ("acknowledged", "mitigated", "closed")]
    ttr[-1] = {**ttr[-1], "cases": 0, "p50_min": None, "p90_min": None}
    names = [PING, TICKED] + [f"dc{i // 8}-pod{i % 8}" for i in range(scopes - 2)]
    return Report(
        window={"start": "2026-03-03T12:00:00Z", "end": "2026-03-10T12:00:00Z"}, by="pod",
        definitions=[],
        scopes=[{"scope": n, "bad_minutes": 500 - i, "bad_percent": 4.5, "bad_cases": 2}
                for i, n in enumerate(names)] + [{"scope": "quiet", "bad_minutes": 0}],
        offenders=[{"kind": "device", "name": f"{PING} dev-{i:03d} " + "x" * 60, "cases": 9 - i % 3}
                   for i in range(offenders)],
        ttr=ttr, totals={"alarms": 120, "cases": 30, "compression": 4.0, "bad_cases": 12,
                         "open_cases": 3})


@pytest.fixture
def slack() -> Iterator[tuple[FakeSlackAPI, WebClient]]:
    fake = FakeSlackAPI().start()
    try:
        yield fake, WebClient(token="xoxb-test", base_url=fake.api_url)
    finally:
        fake.stop()


def posted(slack: tuple[FakeSlackAPI, WebClient], rep: Report) -> dict[str, Any]:
    fake, client = slack
    post_digest(client, "C-WEEKLY", rep)
    [args] = fake.of("chat.postMessage")
    return args


def texts(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every text object in the blocks (section text and fields, context elements, header)."""
    out = []
    for b in blocks:
        out += [b["text"]] if "text" in b else []
        out += b.get("fields", []) + b.get("elements", [])
    return out


def test_a_big_week_fits_slacks_limits(slack: tuple[FakeSlackAPI, WebClient]) -> None:
    args = posted(slack, report(scopes=60, offenders=400))
    blocks = args["blocks"]
    assert args["channel"] == "C-WEEKLY" and args["parse"] == "none"
    assert len(blocks) <= 50
    assert blocks[0] == {"type": "header", "text": {
        "type": "plain_text", "text": "Reliability 2026-03-03 12:00 – 2026-03-10 12:00 UTC by pod"}}
    assert all(len(t["text"]) <= 3000 for t in texts(blocks))
    assert all(t.get("verbatim") is True for t in texts(blocks) if t["type"] == "mrkdwn")
    sections = [b["text"]["text"] for b in blocks if b["type"] == "section"]
    assert "120 alarms in 30 cases (4 alarms per case), 12 bad, 3 open" in sections[0]
    scoped = [s for s in sections if " bad minutes (" in s]
    assert len(scoped) == SCOPES_SHOWN  # a section each, worst first
    assert scoped[2] == "`dc0-pod0` *498* bad minutes (4.5% of the window), 2 bad cases"
    notes = [e["text"] for b in blocks if b["type"] == "context" for e in b["elements"]]
    assert f"… and {60 - SCOPES_SHOWN} more pods with bad minutes" in notes
    [offenders] = [s for s in sections if s.startswith("*Repeat offenders*")]
    listed = offenders.count("\n• ")
    more = re.search(r"\n… and (\d+) more$", offenders)
    assert more and listed + int(more.group(1)) == 400 and len(offenders) > 2500
    [ttr] = [b for b in blocks if b["type"] == "section" and "Time to repair" in b["text"]["text"]]
    assert [f["text"] for f in ttr["fields"]] == [
        "*acknowledged*\n12 / 40.5 min (5 of 7 cases)", "*mitigated*\n12 / 40.5 min (5 of 7 cases)",
        "*closed*\n– / – min (0 of 7 cases)"]
    assert args["text"].startswith("Reliability 2026-03-03 12:00 – 2026-03-10 12:00 UTC by pod: 120 alarms")
    assert args["text"].endswith("and 57 more")


def test_network_names_cannot_ping_or_link(slack: tuple[FakeSlackAPI, WebClient]) -> None:
    args = posted(slack, report(scopes=5, offenders=2))
    every = [t["text"] for t in texts(args["blocks"])] + [args["text"]]
    assert not [t for t in every if "<" in t or ">" in t]  # no <!channel>, no <url|text>
    body = "\n".join(every)
    assert "`&lt;!channel&gt; &lt;https://evil.example/x|click me&gt; @here`" in body
    assert "`leaf'*bold*'_x_`" in body  # the backticks cannot close the code span
    assert "&lt;!channel&gt;" in args["text"]


def test_a_quiet_week(slack: tuple[FakeSlackAPI, WebClient]) -> None:
    rep = report(scopes=2, offenders=0)
    rep.scopes = [{"scope": "dc1-pod1", "bad_minutes": 0}]
    rep.ttr = []
    args = posted(slack, rep)
    sections = [b["text"]["text"] for b in args["blocks"] if b["type"] == "section"]
    assert "*Worst pods by bad minutes*: none" in sections
    assert "*Repeat offenders*: none" in sections
    assert "*Time to repair*, p50 / p90 minutes from detection: no cases" in sections
    assert args["text"].endswith("Bad minutes: none")
