""""Is the network ok?" answered first: one sentence that says OK or Not OK, read from the
overview's own evidence (planner/overview.py: the open alarm cases, the ports that flapped
most, the change records), so the headline (headline.py: the answer's first sentence) answers
the question and can never say other than the rows under it. The rule is the open cases: a
case still open is Not OK; none open is OK, with what flapped and changed said beside it; an
alarms call that failed is "Unknown", never OK."""

from __future__ import annotations

import re

from netopsai.common.localtime import span
from netopsai.copilot.evidence import Evidence, facts_of
from netopsai.tools.facts import AlarmCase, AlarmFacts, ChangeFacts, PortStateFacts

SHOWN = 2  # cases named in the sentence; the rest are counted ("and 3 more")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _case(c: AlarmCase) -> str:
    """'C1 LINK_DOWN on dc1-spine-04 Ethernet3 (dc1; PoD dc1-pod1; no traffic loss reported)'."""
    where = " ".join(x for x in (c.get("root_device"), c.get("root_interface")) if x)
    impact = imp.get("summary", "") if (imp := c.get("impact")) else ""
    return (f"{c.get('case', '?')} {c.get('root_kind', 'alarm')}" + (f" on {where}" if where else "")
            + (f" ({impact})" if impact else ""))


def _open_cases(ev: Evidence) -> list[AlarmCase]:
    cases = facts_of(ev, AlarmFacts).get("cases")
    if isinstance(cases, list):
        return [c for c in cases if isinstance(c, dict) and c.get("state", "open") == "open"]
    return []


def verdict(evidence: list[Evidence], zone: str = "UTC") -> str:
    """The overview's first paragraph, '' when the turn has no alarms evidence (not an overview)."""
    by_tool = {ev.tool: ev for ev in evidence}
    alarms = by_tool.get("alarms")
    if alarms is None:
        return ""
    read = _read(alarms, zone)
    if alarms.errors:
        return (f"Unknown: the open alarms could not be read{read} — {alarms.errors[0]} "
                f"[{alarms.id}]")
    cases = _open_cases(alarms)
    open_alarms = int(facts_of(alarms, AlarmFacts).get("open", 0) or 0)
    others = _others(by_tool)
    if cases or open_alarms:
        if cases:
            named = "; ".join(_case(c) for c in cases[:SHOWN])
            more = f" and {len(cases) - SHOWN} more" if len(cases) > SHOWN else ""
            what = f"{_plural(len(cases), 'open case')}{read} — {named}{more}"
        else:  # open alarms the correlator did not group still mean something is wrong
            what = f"{_plural(open_alarms, 'open alarm')}{read}"
        return f"Not OK: {what} [{alarms.id}]{others}"
    return f"OK: no open cases{read} [{alarms.id}]{others}"


def _read(alarms: Evidence, zone: str) -> str:
    """' in the last 24h (2025-11-03 20:00 – 2025-11-04 20:00 UTC)': the window the answer read,
    on the network's clock."""
    if not alarms.window:
        return ""
    shown = span(alarms.window["start"], alarms.window["end"], zone)
    asked = str(alarms.args.get("window", ""))
    return f" in the last {asked} ({shown})" if re.fullmatch(r"\d+[smhdw]", asked) else f" in {shown}"


def _others(by_tool: dict[str, Evidence]) -> str:
    """'; 2 ports flapped, 2 changes recorded [E2] [E3]': the rest of the glance, each cited."""
    parts = []
    flaps = by_tool.get("telemetry")
    if flaps is not None and not flaps.errors:
        n = int(facts_of(flaps, PortStateFacts).get("changed", len(flaps.rows)) or 0)
        parts.append(f"{_plural(n, 'port')} changed state [{flaps.id}]" if n else
                     f"no port changed state [{flaps.id}]")
    changes = by_tool.get("changelog")
    if changes is not None and not changes.errors:
        n = int(facts_of(changes, ChangeFacts).get("changes", len(changes.rows)) or 0)
        parts.append(f"{_plural(n, 'change')} recorded [{changes.id}]" if n else
                     f"no change recorded [{changes.id}]")
    return ("; " + ", ".join(parts)) if parts else ""
