"""The weekly digest in Slack (opt-in: config `reliability.digest_channel`) as Block Kit: a header
(the window in the network's zone, named), the week's totals, a section per worst scope by bad
minutes, the repeat offenders, time to repair p50/p90, and a plain `text` fallback for
notifications. A scheduler runs `netopsai report
reliability --window 7d --slack` (deploy/systemd/).

Names come from the network (a device's name or description can say anything): each is escaped
with the bot's mrkdwn rules (render.py: &, <, > — so no `<!channel>` and no `<url|link>`) and put in a
code span (so `_` and `*` stay characters); the text objects are `verbatim` (Slack does not
auto-link a plain "@here" or URL in them) and the message is posted with `parse=none`. Slack's
limits hold: at most 50 blocks, 3000 characters per text, 150 in the header; what does not fit
is cut with "… and N more"."""

from __future__ import annotations

from typing import Any

from netopsai.common.localtime import span
from netopsai.reliability.model import Report
from netopsai.reliability.render import mrkdwn

MAX_BLOCKS = 50
MAX_TEXT = 3000
MAX_HEADER = 150
NAME_CHARS = 80  # one name in a line; a longer one is cut (escaping may then grow it)
SCOPES_SHOWN = 10  # a section each: the rest is one "… and N more" line
FALLBACK_SHOWN = 3


def _fmt(v: Any) -> str:
    return "–" if v is None else f"{v:g}"


def _name(name: Any) -> str:
    """A network name on one line, cut to NAME_CHARS, escaped (render.mrkdwn)."""
    text = " ".join(str(name).split())
    return mrkdwn(text if len(text) <= NAME_CHARS else text[: NAME_CHARS - 1] + "…")


def _code(name: Any) -> str:
    """A network name as data: escaped, in a code span it cannot close."""
    return f"`{_name(str(name).replace('`', chr(39)))}`"


def _fit(lines: list[str], limit: int = MAX_TEXT) -> str:
    """As many whole lines as fit in `limit` characters, then "… and N more" (room for which is
    kept while lines remain)."""
    shown: list[str] = []
    for i, line in enumerate(lines):
        left = len(lines) - i - 1
        tail = f"\n… and {left} more" if left else ""
        if len("\n".join([*shown, line])) + len(tail) > limit:
            return "\n".join([*shown, f"… and {len(lines) - i} more"])
        shown.append(line)
    return "\n".join(shown)


def _text(text: str) -> dict[str, Any]:
    return {"type": "mrkdwn", "text": text, "verbatim": True}


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": _text(_fit(text.split("\n")))}


def _title(report: Report) -> str:
    """'Reliability 2026-03-09 08:00 – 2026-03-10 08:00 EDT (12:00 – 2026-03-10 12:00 UTC) by
    pod': the window on the network's clock, its zone named (common/localtime)."""
    w = report.window
    return f"Reliability {span(w['start'], w['end'], report.zone)} by {report.by}"[:MAX_HEADER]


def _totals(report: Report) -> str:
    t = report.totals
    return (f"{t['alarms']} alarms in {t['cases']} cases ({t['compression']:g} alarms per case), "
            f"{t['bad_cases']} bad, {t['open_cases']} open")


def _bad(report: Report) -> list[dict[str, Any]]:
    return [r for r in report.scopes if r["bad_minutes"]]


def _scope_blocks(report: Report) -> list[dict[str, Any]]:
    bad = _bad(report)
    blocks = [_section(f"*Worst {report.by}s by bad minutes*" + ("" if bad else ": none"))]
    for r in bad[:SCOPES_SHOWN]:
        blocks.append(_section(f"{_code(r['scope'])} *{r['bad_minutes']}* bad minutes "
                               f"({r.get('bad_percent', 0):g}% of the window), "
                               f"{r.get('bad_cases', 0)} bad cases"))
    if len(bad) > SCOPES_SHOWN:
        blocks.append({"type": "context", "elements": [_text(
            f"… and {len(bad) - SCOPES_SHOWN} more {report.by}s with bad minutes")]})
    return blocks


def _offenders(report: Report) -> dict[str, Any]:
    lines = [f"• {_name(r['kind'])} {_code(r['name'])}: {r['cases']} cases"
             for r in report.offenders]
    body = _fit(["*Repeat offenders* (two or more cases)", *lines] if lines
                else ["*Repeat offenders*: none"])
    return {"type": "section", "text": _text(body)}


def _ttr(report: Report) -> dict[str, Any]:
    every = [r for r in report.ttr if r["category"] == "all"]
    fields = [_text(f"*{r['stage']}*\n{_fmt(r['p50_min'])} / {_fmt(r['p90_min'])} min "
                    f"({r['cases']} of {r['of']} cases)") for r in every][:10]
    block: dict[str, Any] = {"type": "section", "text": _text(
        "*Time to repair*, p50 / p90 minutes from detection" + ("" if fields else ": no cases"))}
    if fields:
        block["fields"] = fields
    return block


def digest_blocks(report: Report) -> list[dict[str, Any]]:
    """The digest's blocks, within Slack's limits."""
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": _title(report)}},
        _section(_totals(report)), {"type": "divider"}, *_scope_blocks(report),
        {"type": "divider"}, _offenders(report), _ttr(report)]
    if len(blocks) > MAX_BLOCKS:  # not with today's counts; kept true if they grow
        cut = len(blocks) - MAX_BLOCKS + 1
        blocks = [*blocks[: MAX_BLOCKS - 1], {"type": "context", "elements": [_text(
            f"… and {cut} more blocks: `netopsai report reliability` shows all")]}]
    return blocks


def digest_text(report: Report) -> str:
    """The plain fallback (notifications, clients without blocks): the header, totals, the
    worst scopes. Escaped like the blocks: Slack parses this text too."""
    bad = _bad(report)
    worst = ", ".join(f"{_name(r['scope'])} {r['bad_minutes']}"
                      for r in bad[:FALLBACK_SHOWN])
    more = f" and {len(bad) - FALLBACK_SHOWN} more" if len(bad) > FALLBACK_SHOWN else ""
    return (f"{_title(report)}: {_totals(report)}. Bad minutes: {worst or 'none'}{more}")[:MAX_TEXT]


def post_digest(client: Any, channel: str, report: Report) -> Any:
    """Post the digest with a slack_sdk WebClient (or anything with its chat_postMessage)."""
    return client.chat_postMessage(channel=channel, text=digest_text(report),
                                   blocks=digest_blocks(report), parse="none", link_names=False,
                                   unfurl_links=False, unfurl_media=False)
