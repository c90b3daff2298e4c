"""Role words that narrow a telemetry question to some of a switch's ports: "uplinks",
"downlinks", "towards the spines", "spine-facing", "host ports", "server ports". The telemetry
tool resolves them from the inventory's links (tools/port_answers/roles.py); here they become
its port_role / peer_role arguments, and the question's zone its zone (times shown in it)."""

from __future__ import annotations

import re
from typing import Any

from netopsai.planner.calls import ToolCall

_ROLE = r"(super[\s-]?spines?|spines?|leafs?|leaves|tors?|borders?|dcis?|hosts?|servers?)"
PEER = re.compile(
    rf"\b(?:towards?|facing|pointing (?:at|to))\s+(?:the\s+|our\s+)?{_ROLE}\b"
    rf"|\b(?:ports?|links?|interfaces?|uplinks?|downlinks?)\s+(?:(?:going|connected|that go)\s+)?"
    rf"(?:to|into)\s+(?:the\s+|our\s+)?{_ROLE}\b"
    rf"|\b{_ROLE}[\s-]facing\b", re.I)
UPLINK = re.compile(r"\bup-?links?\b|\bnorth-?bound\b", re.I)
DOWNLINK = re.compile(r"\bdown-?links?\b|\bsouth-?bound\b", re.I)
HOST = re.compile(r"\b(?:hosts?|servers?|access|edge)[\s-](?:ports?|links?|interfaces?)\b", re.I)
CANON = {"superspine": "superspine", "spine": "spine", "leaf": "leaf", "leave": "leaf", "tor": "leaf",
         "border": "border", "dci": "dci", "host": "host", "server": "host"}


def _canon(word: str) -> str:
    w = re.sub(r"[\s-]", "", word.lower())
    w = w[:-1] if w.endswith("s") and w[:-1] in CANON else w
    return CANON.get(w, w)


def port_words(text: str) -> dict[str, str]:
    """The telemetry arguments the question's role words mean (empty when it has none)."""
    out: dict[str, str] = {}
    m = PEER.search(text)
    peer = _canon(next(g for g in m.groups() if g)) if m else None
    if peer == "host" or HOST.search(text):
        out["port_role"] = "host"
    elif UPLINK.search(text):
        out["port_role"] = "uplink"
    elif DOWNLINK.search(text):
        out["port_role"] = "downlink"
    if peer and peer != "host":
        out["peer_role"] = peer
    return out


def _same(a: Any, b: str) -> bool:
    return a is not None and (a == b or {a, b} <= {"leaf", "tor"})


STATE = re.compile(r"\b(?:down|up|status|state|flap\w*|bounc\w*|dead|lost)\b", re.I)


def _uplink_states(calls: list[ToolCall], text: str, window: Any) -> list[ToolCall]:
    """"leaf4 uplinks down?" is routed to the upstream lookup (which links, to whom): their
    state history is read beside it, or the answer is the inventory's idea of the links."""
    if not (UPLINK.search(text) and STATE.search(text)):
        return calls
    return calls + [ToolCall("telemetry", {"metric": "oper_status", "devices": [c.args["name"]],
                                           "port_role": "uplink", **({"window": window} if window else {})})
                    for c in calls if c.tool == "metadata" and c.args.get("query") == "upstream"
                    and c.args.get("name")]


def port_scope(calls: list[ToolCall], text: str, zone: str | None = None,
               window: Any = None) -> list[ToolCall]:
    """Telemetry calls narrowed by the question's role words and shown in its zone. A role
    read only from "towards the spines" is the peer's, not the devices' to read: the call
    scoped to spines is dropped when another role is the scope, else loses its role."""
    calls = _uplink_states(calls, text, window)
    words = port_words(text)
    tele = [c for c in calls if c.tool == "telemetry"]
    if not tele or not (words or zone):
        return calls
    peer = words.get("peer_role", "")
    scoped = {c.args.get("role") for c in tele if not _same(c.args.get("role"), peer)}
    out = []
    for c in calls:
        if c.tool != "telemetry":
            out.append(c)
            continue
        args = {**c.args, **words, **({"zone": zone} if zone else {})}
        if peer and _same(args.get("role"), peer) and not args.get("devices"):
            if scoped - {None}:
                continue
            args.pop("role")
        out.append(ToolCall(c.tool, args))
    return out
