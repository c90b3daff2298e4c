"""The weekly digest in Slack (opt-in: config `reliability.digest_channel`): the week's figures in
a few lines — the worst scopes by bad minutes, repeat offenders, time to repair, noise. A
scheduler runs `netopsai report reliability --window 7d --slack` (deploy/systemd/)."""

from __future__ import annotations

from typing import Any

from netopsai.reliability.model import Report

SHOWN = 5


def _fmt(v: Any) -> str:
    return "–" if v is None else f"{v:g}"


def digest_text(report: Report) -> str:
    """Slack mrkdwn; network text (device names, alarm kinds) goes in code spans, as data."""
    t, w = report.totals, report.window
    lines = [f"*Reliability {w['start'][:10]} .. {w['end'][:10]}* (by {report.by}): "
             f"{t['alarms']} alarms in {t['cases']} cases ({t['compression']:g} alarms per case), "
             f"{t['bad_cases']} bad, {t['open_cases']} open"]
    bad = [r for r in report.scopes if r["bad_minutes"]][:SHOWN]
    lines.append("*Bad minutes:* " + (", ".join(f"`{_safe(r['scope'])}` {r['bad_minutes']}"
                                                 for r in bad) if bad else "none"))
    if report.offenders:
        lines.append("*Repeat offenders:* " + ", ".join(
            f"{r['kind']} `{_safe(r['name'])}` ({r['cases']} cases)" for r in report.offenders[:SHOWN]))
    every = {r["stage"]: r for r in report.ttr if r["category"] == "all"}
    lines.append("*Time to repair (p50/p90 min):* " + ", ".join(
        f"{stage} {_fmt(r['p50_min'])}/{_fmt(r['p90_min'])} ({r['cases']} of {r['of']})"
        for stage, r in every.items()))
    return "\n".join(lines)


def _safe(text: str) -> str:
    """No backticks, mentions or links out of network text."""
    return str(text).replace("`", "'").replace("<", "‹").replace(">", "›").replace("@", "(at)")


def post_digest(client: Any, channel: str, report: Report) -> Any:
    """Post the digest with a slack_sdk WebClient (or anything with its chat_postMessage)."""
    text = digest_text(report)
    return client.chat_postMessage(channel=channel, text=text, unfurl_links=False,
                                   blocks=[{"type": "section", "text": {"type": "mrkdwn", "text": text}}])
