"""The leaderboard: one markdown page from the runner's results."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

# issue 6, section 6: what the full pipeline must reach on the public set
TARGETS = {"micro_f1": 0.97, "macro_f1": 0.95, "location": 0.95, "citations": 1.0,
           "tool_calls_max": 12, "wall_ms_p50": 1000.0}
TOKEN_TARGET = 6000


def _f(x: Any, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _row(name: str, b: dict[str, Any]) -> str:
    if not b["available"]:
        return f"| {name} | not available: {b['reason']} |" + " |" * 8
    s = b["summary"]
    if not s.get("n"):
        return f"| {name} | no scenarios |" + " |" * 8
    return (f"| {name} | {_f(s['micro_f1'])} | {_f(s['macro_f1'])} | {_f(s['location'])} | "
            f"{_f(s['citations'])} | {s['tool_calls_p50']:.0f} / {s['tool_calls_max']:.0f} | "
            f"{s['llm_calls_mean']:.1f} | {s['prompt_tokens_p50']:.0f} / {s['prompt_tokens_max']:.0f} | "
            f"{s['wall_ms_p50']:.0f} / {s['wall_ms_p95']:.0f} | {s['errors']} |")


def _targets(s: dict[str, Any], llm: str) -> list[str]:
    if not s.get("n"):
        return []
    checks = [("micro-F1", s["micro_f1"], ">=", TARGETS["micro_f1"]),
              ("macro-F1", s["macro_f1"], ">=", TARGETS["macro_f1"]),
              ("location", s["location"], ">=", TARGETS["location"]),
              ("citations valid", s["citations"], ">=", TARGETS["citations"]),
              ("tool calls (max)", s["tool_calls_max"], "<=", TARGETS["tool_calls_max"]),
              ("wall time p50 (ms)", s["wall_ms_p50"], "<=", TARGETS["wall_ms_p50"])]
    if llm == "scripted":
        checks.append(("prompt tokens per diagnosis (max)", s["prompt_tokens_max"], "<=", TOKEN_TARGET))
    out = []
    for name, value, op, limit in checks:
        met = value >= limit if op == ">=" else value <= limit
        out.append(f"- {name}: {value:.3g} (target {op} {limit:g}) — {'met' if met else 'NOT met'}")
    return out


def _labels(s: dict[str, Any]) -> list[str]:
    lines = ["| label | support | TP | FP | FN | F1 |", "|---|---|---|---|---|---|"]
    for lb, c in sorted(s.get("labels", {}).items()):
        lines.append(f"| {lb} | {c['support']:.0f} | {c['tp']:.0f} | {c['fp']:.0f} | {c['fn']:.0f} | "
                     f"{c['f1']:.3f} |")
    return lines


def _by_category(results: dict[str, Any], baseline: str) -> list[str]:
    cats = results.get("categories") or {}
    if not cats:
        return []
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for o in results["outcomes"]:
        if o["baseline"] != baseline or o["scenario"] not in cats:
            continue
        e = cats[o["scenario"]]
        for key in (f"category {e['category']}", f"place {e.get('place', '–')}"):
            tally[key][0] += o["expected"] == o["predicted"]
            tally[key][1] += 1
    lines = ["| slice | right / scenarios |", "|---|---|"]
    lines += [f"| {k} | {v[0]} / {v[1]} |" for k, v in sorted(tally.items())]
    return lines


def _misses(results: dict[str, Any], baseline: str, limit: int = 40) -> list[str]:
    rows = [o for o in results["outcomes"] if o["baseline"] == baseline
            and (o["expected"] != o["predicted"] or not o["device_ok"] or not o["citations_ok"])]
    if not rows:
        return ["None."]
    lines = ["| scenario | expected | answered | device | citations |", "|---|---|---|---|---|"]
    for o in rows[:limit]:
        why = "ok" if o["citations_ok"] else "; ".join(o["citation_problems"][:2]) or (o["error"] or "")
        lines.append(f"| {o['scenario']} | {o['expected']} | {o['predicted']} | "
                     f"{o['device'] or '–'}{'' if o['device_ok'] else ' (wrong)'} | {why} |")
    if len(rows) > limit:
        lines.append(f"| … {len(rows) - limit} more in results.json | | | | |")
    return lines


def consistency(results: dict[str, Any]) -> list[str]:
    """The headline/evidence check's count per baseline whose answers are ours, and the first
    contradictions found (issue 25 item 6: it must be 0)."""
    judged = {n: b["summary"] for n, b in results["baselines"].items()
              if b.get("available") and b["summary"].get("judged")}
    if not judged:
        return []
    counts = ", ".join(f"{n} {s['contradictions']} in {s['contradicting']} of {s['judged']} answers"
                       for n, s in judged.items())
    lines = ["", "Headline/evidence consistency (netopsai/diagnosis/consistency.py) over every "
             f"answer: contradictions: {counts} (target: 0).", ""]
    bad = [(o["scenario"], o["baseline"], c) for o in results["outcomes"]
           for c in o.get("contradictions") or []]
    lines += [f"- {sid} ({name}): {c}" for sid, name, c in bad[:20]]
    if len(bad) > 20:
        lines.append(f"- … {len(bad) - 20} more in results.json")
    return lines


def leaderboard(results: dict[str, Any]) -> str:
    m, bl = results["meta"], results["baselines"]
    held = m.get("held_out")
    title = (f"held-out scenarios (seed {held['seed']}, {held.get('scale', 'small')} lab, lab seed "
             f"{held.get('lab_seed', 7)})" if held else "scenarios")
    memory = ("online (each scenario's true cause confirmed into incident memory after it is "
              "scored)" if m.get("memory") == "online" else "none")
    lines = [f"### NetOpsArena: {m['scenarios']} {title}, LLM: {m['llm']}, incident memory: {memory}",
             "",
             f"Run {m['started']} on {m['machine']}; load average before {m['load_before']}, after "
             f"{m['load_after']}; {m['wall_s']} s in all.", "",
             "| baseline | micro-F1 | macro-F1 | location | citations valid | tool calls p50 / max | "
             "LLM calls (mean) | prompt tokens p50 / max | wall ms p50 / p95 | errors |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    lines += [_row(name, b) for name, b in bl.items()]
    lines += consistency(results)
    full = bl.get("full", {})
    if full.get("available") and full["summary"].get("n"):
        lines += ["", "Targets for the full pipeline (issue 6, section 6):", "",
                  *_targets(full["summary"], m["llm"]), "", "Per label (full pipeline):", "",
                  *_labels(full["summary"])]
        cat = _by_category(results, "full")
        if cat:
            lines += ["", "By scenario category and fault place (full pipeline):", "", *cat]
        lines += ["", "Misses of the full pipeline (label, device or citations):", "",
                  *_misses(results, "full")]
    return "\n".join(lines) + "\n"
