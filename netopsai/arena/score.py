"""Scoring (shared/specs/scenario.md): label micro/macro F1, location, citations, cost.

Every scenario has one expected and one predicted label, so per label: a right answer is a
true positive of its label; a wrong one is a false positive of the predicted label and a
false negative of the expected one. Micro F1 pools the counts (for single-label answers it
equals accuracy); macro F1 averages the per-label F1 over every label that was expected or
predicted (as scikit-learn does), so a label answered wrongly everywhere counts as 0."""

from __future__ import annotations

import re
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any

from netopsai.copilot.evidence import citations, validate_citations

NO_DIAGNOSIS = "no-diagnosis"  # the answer carried no root cause at all
EVIDENCE_INDEX = re.compile(r"^#+ Evidence\s*$.*?(?=^#|\Z)", re.M | re.S)


@dataclass
class Outcome:
    """One scenario answered by one baseline."""

    scenario: str
    baseline: str
    expected: str
    predicted: str
    device: str | None = None
    device_ok: bool = False
    citations_ok: bool = False
    cited_tools: list[str] = field(default_factory=list)
    citation_problems: list[str] = field(default_factory=list)
    tool_calls: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    wall_ms: float = 0.0
    error: str | None = None
    contradictions: list[str] | None = None  # headline vs evidence (None: not our answer)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def device_matches(expected: str | list[str] | None, predicted: str | None) -> bool:
    """The predicted device is the expected one (any of a list); no device expected means the
    answer must name none."""
    if expected is None or expected == []:
        return predicted is None
    names = [expected] if isinstance(expected, str) else expected
    return predicted is not None and predicted.lower() in {n.lower() for n in names}


def claim_citations(answer: str) -> list[str]:
    """Ids cited by the answer's text, leaving out its evidence index (which lists every
    evidence of the turn, cited or not)."""
    return citations(EVIDENCE_INDEX.sub("", answer))


def check_citations(answer: str, evidence: list[dict[str, Any]],
                    must_cite: list[str]) -> tuple[bool, list[str], list[str]]:
    """(ok, tools cited in the claims, problems): every citation resolves, every factual
    paragraph cites, and the claims cite evidence of each must-cite tool."""
    tool_of = {e["id"]: e["tool"] for e in evidence}
    problems = validate_citations(answer, set(tool_of)) if answer.strip() else ["no answer"]
    cited = sorted({tool_of[c] for c in claim_citations(answer) if c in tool_of})
    problems += [f"cites no {t} evidence" for t in must_cite if t not in cited]
    return not problems, cited, problems


def lookup_label(answer: str, evidence: list[dict[str, Any]], want: str,
                 devices: str | list[str] | None) -> tuple[str, str | None]:
    """A look-up answer (no diagnosis: "any DCI link alarms?") scored by what it shows: the
    expected fault's label when the answer names an expected device and a row it cites puts
    that device in a faulty state (an open alarm, a port down at the window's end); `none`
    otherwise, an all-clear over the fault."""
    names = [devices] if isinstance(devices, str) else list(devices or [])
    if want == "none" or not names:
        return "none", None
    text = EVIDENCE_INDEX.sub("", answer)
    cited = set(claim_citations(answer))
    for e in evidence:
        for r in e.get("rows", []) if e.get("id") in cited else []:
            dev = r.get("device")
            if dev in names and dev in text and (r.get("state") == "open"
                                                 or r.get("state_at_end") == "down"):
                return want, str(dev)
    return "none", None


def judge(answer: str, evidence: list[dict[str, Any]], label: str, device: str | None,
          question: str) -> list[str]:
    """The answer's headline against its own evidence rows (diagnosis/consistency.py, through
    the copilot's door)."""
    from netopsai.copilot.arena_door import contradictions

    rc = None if label == NO_DIAGNOSIS else {"label": label, "device": device}
    return contradictions(answer, evidence, rc, question)


def f1_table(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """Micro and macro F1 and per-label counts over (expected, predicted) pairs."""
    labels = sorted({x for pair in pairs for x in pair})
    per: dict[str, dict[str, float]] = {lb: {"tp": 0, "fp": 0, "fn": 0} for lb in labels}
    for want, got in pairs:
        if want == got:
            per[want]["tp"] += 1
        else:
            per[got]["fp"] += 1
            per[want]["fn"] += 1
    for c in per.values():
        c["f1"] = _f1(c["tp"], c["fp"], c["fn"])
        c["support"] = c["tp"] + c["fn"]
    tp, fp, fn = (sum(c[k] for c in per.values()) for k in ("tp", "fp", "fn"))
    macro = statistics.fmean(c["f1"] for c in per.values()) if per else 0.0
    return {"micro_f1": _f1(tp, fp, fn), "macro_f1": macro, "labels": per}


def _f1(tp: float, fp: float, fn: float) -> float:
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def summarize(outcomes: list[Outcome]) -> dict[str, Any]:
    """One baseline's figures over its outcomes."""
    n = len(outcomes)
    if not n:
        return {"n": 0}
    f1 = f1_table([(o.expected, o.predicted) for o in outcomes])
    faults = [o for o in outcomes if o.expected != "none"]
    cost = {k: [float(getattr(o, k)) for o in outcomes]
            for k in ("tool_calls", "llm_calls", "prompt_tokens", "wall_ms")}
    return {
        "n": n, "micro_f1": f1["micro_f1"], "macro_f1": f1["macro_f1"], "labels": f1["labels"],
        "location": sum(o.device_ok for o in outcomes) / n,
        "location_faults": sum(o.device_ok for o in faults) / len(faults) if faults else None,
        "citations": sum(o.citations_ok for o in outcomes) / n,
        "errors": sum(o.error is not None for o in outcomes),
        "judged": sum(o.contradictions is not None for o in outcomes),
        "contradictions": sum(len(o.contradictions or []) for o in outcomes),
        "contradicting": sum(bool(o.contradictions) for o in outcomes),
        **{f"{k}_mean": statistics.fmean(v) for k, v in cost.items()},
        **{f"{k}_p50": _pct(v, 0.5) for k, v in cost.items()},
        **{f"{k}_p95": _pct(v, 0.95) for k, v in cost.items()},
        **{f"{k}_max": max(v) for k, v in cost.items()},
    }
