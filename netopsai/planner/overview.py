""""Is the network ok?": the on-call's first question, answered offline from the tools that
already exist — the open alarms grouped into cases, the worst places (the ports that flapped
most), and what changed recently. No new tool and no guess: three calls the summarizer cites."""

from __future__ import annotations

import re

from netopsai.planner.calls import ToolCall
from netopsai.planner.entities import Entities

INTENT = "overview"
WINDOW = "24h"  # "recently", when the question names no window
# the whole network's health, asked without naming a place, a port or a metric: "is the network
# ok?", "is everything ok", "network status", "any problems?", "how is the network doing"
ASK = re.compile(
    r"^\s*(?:(?:hi|hey|so|ok(?:ay)?)\W+)?(?:(?:is|are)\s+(?:the\s+)?(?:network|everything|all|"
    r"things|fabric|dcs?)\s+(?:ok(?:ay)?|fine|good|healthy|alright|all right|up|working)"
    r"|(?:overall\s+)?(?:network|fabric)\s+(?:status|health|overview)"
    r"|(?:status|health|overview)\s+of\s+(?:the\s+)?(?:network|fabric)"
    r"|how(?:'s| is)\s+(?:the\s+)?(?:network|fabric)(?:\s+doing)?"
    r"|(?:any|are there(?: any)?)\s+(?:problems|issues|incidents|outages)"
    r"|what(?:'s| is)\s+(?:wrong|broken)\s+(?:in|on|with)\s+the\s+(?:network|fabric)"
    r"|anything\s+(?:wrong|broken))"
    r"(?:\s+(?:right\s+)?now|\s+today|\s+at the moment)?"
    r"(?:\s+(?:in|over|for|during|since|of)(?:\s+the)?)?\W*$", re.I)  # a window's words, masked


def is_overview(rest: str, ent: Entities) -> bool:
    """The question asks about the whole network: its words say so and it names nothing more
    precise (a device, an address, a place, a metric: those have their own answers). `rest`:
    the question with its entities and window blanked (planner/entities.py)."""
    named = (ent.devices or ent.ips or ent.invalid or ent.unknown or ent.sites or ent.pods or ent.roles
             or ent.interfaces or ent.metric or ent.categories or ent.tickets)
    return not named and bool(ASK.search(rest))


def overview_calls(ent: Entities) -> tuple[list[ToolCall], list[str]]:
    """The open alarm cases raised in the window, the ports that flapped most and the change
    records of the window (the last 24h unless the question named one)."""
    window = ent.window or WINDOW
    calls = [ToolCall("alarms", {"state": "open", "correlate": True, "window": window}),
             ToolCall("telemetry", {"metric": "flaps", "window": window, "top": 5}),
             ToolCall("changelog", {"window": window})]
    notes = ["the network at a glance: open alarm cases, the ports that flapped most and what "
             f"changed in the last {window}" if not ent.window else
             "the network at a glance: open alarm cases, the ports that flapped most and what changed"]
    return calls, notes
