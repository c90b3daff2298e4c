"""An alarms answer as a list: one line per alarm with its severity mark, kind, place, when and
impact, and its acknowledgement; open alarms carry Ack and Silence buttons. The buttons act on
our store (netopsai.store.acks, the same rows and the same store the web app's Alarms tab reads
and writes), as the Slack user who clicked, never on a device."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from netopsai.backends.rows import AlarmRow
from netopsai.common.localtime import at
from netopsai.copilot.doors import ack_states, acks_store
from netopsai.copilot.payload import answer_of, dump_rows
from netopsai.ui.slack.blocks import mrkdwn

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from netopsai.backends.base import Backends

ACK_ACTION, SILENCE_ACTION = "netops_alarm_ack", "netops_alarm_silence"
SILENCE_FOR = "2h"  # one click: long enough for a fix in flight; the web app or CLI set others
MAX_ALARMS = 10  # two blocks each, within a message's 50
MARKS = {"critical": ":red_circle:", "major": ":large_orange_circle:",
         "minor": ":large_yellow_circle:", "warning": ":large_yellow_circle:",
         "info": ":large_blue_circle:"}
RANK = {"critical": 0, "major": 1, "minor": 2, "warning": 3, "info": 4}
IMPACT = {"traffic_lost": "traffic lost", "degraded": "traffic degraded"}


def alarm_rows(result: dict[str, Any]) -> list[AlarmRow]:
    """The alarms an alarms answer listed (not a diagnosis that read alarms on the way): rows of
    its alarms evidence, each once, open first, then by severity and newest."""
    answer = answer_of(result)
    evidence = answer.get("evidence") or []
    if answer.get("root_cause") or not evidence or evidence[0].get("tool") != "alarms":
        return []
    rows: dict[Any, AlarmRow] = {}
    for ev in evidence:
        if ev.get("tool") == "alarms":
            for r in dump_rows(ev, AlarmRow):
                if r.get("id") is not None:
                    rows.setdefault(r["id"], r)
    newest = sorted(rows.values(), key=lambda r: str(r.get("raised_at") or ""), reverse=True)
    return sorted(newest, key=lambda r: (r.get("state") != "open",  # stable: newest first within
                                         RANK.get(str(r.get("severity")), 9)))


def _when(raised: Any, zone: str) -> str:
    """The alarms tool's ISO UTC time to the minute, in the network's zone with UTC beside it,
    as the web app's Alarms tab shows it: '2025-11-04 11:20 PST (19:20 UTC)', in UTC
    '2025-11-04 19:20 UTC'."""
    return at(raised, zone, beside=True)


def alarm_line(r: AlarmRow, ack: str = "", zone: str = "UTC") -> str:
    """`:red_circle: *critical* LINK_DOWN on dc1-leaf-03 Ethernet49 (peer dc1-spine-01) ·
    open since 2025-11-04 19:20 UTC · traffic degraded · acked by slack:U1`; times in `zone`,
    the network's."""
    sev = str(r.get("severity") or "unknown")
    where = " ".join(str(x) for x in (r.get("device"), r.get("interface")) if x)
    peer = f" (peer {r['peer']})" if r.get("peer") else ""
    state = "open since" if r.get("state") == "open" else f"{r.get('state') or 'raised'}, raised"
    parts = [f"{MARKS.get(sev, ':white_circle:')} *{mrkdwn(sev)}* "
             f"{mrkdwn(str(r.get('kind') or 'alarm'))} on {mrkdwn(where or '?')}{mrkdwn(peer)}",
             f"{state} {mrkdwn(_when(r.get('raised_at'), zone))}".strip()]
    if r.get("impact") in IMPACT:
        parts.append(IMPACT[str(r["impact"])])
    if ack:
        parts.append(f"_{mrkdwn(ack)}_")
    return " · ".join(parts)


def _buttons(alarm_id: int) -> dict[str, Any]:
    value = json.dumps({"a": alarm_id})
    return {"type": "actions", "block_id": f"netops_alarm_buttons_{alarm_id}", "elements": [
        {"type": "button", "action_id": ACK_ACTION, "value": value,
         "text": {"type": "plain_text", "text": "Ack"}},
        {"type": "button", "action_id": SILENCE_ACTION, "value": value,
         "text": {"type": "plain_text", "text": f"Silence {SILENCE_FOR}"}}]}


def alarm_blocks(rows: list[AlarmRow], acks_text: dict[int, str],
                 zone: str = "UTC") -> list[dict[str, Any]]:
    """One section per alarm (block_id netops_alarm_ID, so a click can update its line), the
    open ones followed by their buttons; past MAX_ALARMS, a line says how many more. Times in
    `zone`, the network's."""
    blocks: list[dict[str, Any]] = []
    for r in rows[:MAX_ALARMS]:
        aid = int(r["id"])
        blocks.append({"type": "section", "block_id": f"netops_alarm_{aid}",
                       "text": {"type": "mrkdwn", "text": alarm_line(r, acks_text.get(aid, ""), zone)}})
        if r.get("state") == "open":
            blocks.append(_buttons(aid))
    if len(rows) > MAX_ALARMS:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": (
            f"… and {len(rows) - MAX_ALARMS} more alarms (Show evidence or Full table has them "
            "all; the web app's Alarms tab acts on any)")}]})
    return blocks


def ack_texts(engine: Engine, ids: list[int], now: datetime, zone: str = "UTC") -> dict[int, str]:
    """Each acknowledged or silenced alarm's one-line state, as the web app's ack column says;
    a silence's end in `zone`, the network's. Read through the copilot's door from `engine`,
    the store the web app's Alarms tab acks in (doors.acks_store)."""
    return {i: st.text(zone) for i, st in ack_states(None, ids, now, engine).items()}


def list_for(result: dict[str, Any], backends: Backends) -> list[dict[str, Any]]:
    """The alarm list blocks of an answer ([] when it lists no alarms)."""
    rows = alarm_rows(result)
    if not rows:
        return []
    ids = [int(r["id"]) for r in rows[:MAX_ALARMS]]
    return alarm_blocks(rows, ack_texts(acks_store(backends), ids, backends.inventory.clock(),
                                        backends.zone), backends.zone)
