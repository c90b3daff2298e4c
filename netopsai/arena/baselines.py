"""The baselines the arena runs beside the full pipeline (AidAI's ablations):

- one-shot: a label from the question's words alone, no tool, no evidence;
- traceroute-only: one traceroute (and a jumbo probe when it passes) and a label read from
  those traces alone;
- cvd / history: the diagnosis engine's other strategies (run-every-check-then-decide, and
  incident memory alone), when the engine offers them;
- full: the whole copilot, through the same Copilot service the front ends use.

Each returns a Reply; run.py scores them alike."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from netopsai.copilot.evidence import Evidence

IP = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")
JUMBO = 9000
# question words -> the label a model would guess from them, first match wins
WORDS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bbig\b|\blarge\b|\bmtu\b|\bjumbo\b", re.I), "config.mtu_mismatch"),
    (re.compile(r"\bslow|\blatency\b", re.I), "link.congestion"),
    (re.compile(r"\bfew minutes\b|\bbriefly\b|\bstable now\b", re.I), "device.reboot"),
    (re.compile(r"\bloss\b|\blost\b|\bdrops?\b|\bflaky\b", re.I), "link.errors"),
    (re.compile(r"unreachable|can'?t|cannot|unable|not (?:able|communicat)|time out", re.I), "link.down"),
]


@dataclass
class Reply:
    """What a baseline answered: a label, a device, the answer text and its evidence."""

    label: str
    device: str | None = None
    answer: str = ""
    evidence: list[dict[str, Any]] = field(default_factory=list)
    llm_calls: int = 0
    prompt_tokens: int = 0


def one_shot(question: str) -> Reply:
    label = next((lb for rx, lb in WORDS if rx.search(question)), "inconclusive")
    return Reply(label, None, f"Guess from the question's words alone: {label}.")


def traceroute_only(question: str, run: Callable[[str, dict[str, Any]], Evidence]) -> Reply:
    """Label from the traceroute evidence alone: its stop code, then loss and latency. `run`
    is a tool runner whose ledger numbers the calls (Toolbox.runner)."""
    ips = IP.findall(question)
    if len(ips) < 2:
        return Reply("inconclusive", answer="The question names no two addresses to trace.")
    t = run("traceroute", {"src": ips[0], "dst": ips[1]})  # `run` numbers them: E1, E2
    evidence = [t]
    if not t.errors and t.facts.get("reached") and not t.facts.get("failing"):
        evidence.append(run("traceroute", {"src": ips[0], "dst": ips[1], "size": JUMBO}))
    label, device, cite = read_traces(evidence)
    answer = f"From the traceroute alone: {label}{' at ' + device if device else ''} [{cite}]."
    return Reply(label, device, answer, [e.model_dump(mode="json") for e in evidence])


def read_traces(traces: list[Evidence]) -> tuple[str, str | None, str]:
    """(label, device, evidence id) from traceroute evidence only."""
    for t in traces:
        if t.errors:
            continue
        f = t.facts
        if not f.get("reached"):
            return (*_stop(t), t.id)
        if f.get("failing"):
            fail = f["failing"]
            reason = str(fail.get("reason", ""))
            label = ("config.mtu_mismatch" if reason.startswith("MTU") else
                     "config.acl_block" if "ACL" in reason else "routing.blackhole")
            return label, fail.get("device"), t.id
    main = traces[0]
    return (*_degraded(main), main.id)


def _stop(t: Evidence) -> tuple[str, str | None]:
    status = str((t.rows[-1] if t.rows else {}).get("status", ""))
    reason, at = str(t.facts.get("reason", "")), t.facts.get("stopped_at")
    if status == "!X":
        return "config.acl_block", at
    if status.startswith("!F"):
        return "config.mtu_mismatch", at
    if "does not answer" in reason:
        host = re.search(r"host (\S+) does not answer", reason)
        return "host.down", host.group(1) if host else at
    if status == "*":
        return "routing.blackhole", at
    return "link.down", at


def _degraded(t: Evidence) -> tuple[str, str | None]:
    """A trace that delivers: loss means errors on the hop where it starts, a latency jump
    outside the DCI (long-haul) hops means congestion, else healthy."""
    prev_rtt, prev_dev = 0.0, None
    for hop in t.rows:
        rtt = hop.get("rtt_ms") or prev_rtt
        if rtt - prev_rtt > 2.0 and not _long_haul(prev_dev, hop.get("device")):
            return "link.congestion", hop.get("device")
        if hop.get("loss_pct"):
            return "link.errors", hop.get("device")
        prev_rtt, prev_dev = rtt, hop.get("device")
    return "none", None


def _long_haul(a: str | None, b: str | None) -> bool:
    return bool(a and b and "-dci-" in a and "-dci-" in b)


def engine_strategy(name: str) -> tuple[Callable[..., Any] | None, str]:
    """The engine's `diagnose` when it offers `strategy=name`, else None and why not: through
    the copilot room's door (a front end imports no diagnosis, not even by name at run time)."""
    from netopsai.copilot.arena_door import engine_strategy as door

    return door(name)
