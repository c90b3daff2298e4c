"""The copilot benchmark's report: the markdown section written into bench/RESULTS.md from the
figures bench_copilot.py measured."""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from bench.bench_foundation import _quant
from bench.copilot_config import (
    CLASSES,
    CLI_QUESTION,
    CLOCK,
    COLD_TARGET_S,
    LAB_SEED,
    NODES,
    REPEAT,
    SCALE,
    TOKEN_TARGET,
)


def _ms(v: float | None) -> str:
    if v is None or v != v:
        return "—"
    return f"{v:.1f} ms" if v < 1000 else f"{v / 1000:.2f} s"


def _met(value: float, limit: float | None) -> str:
    if limit is None:
        return "—"
    return "yes" if value <= limit else f"**NO** ({value / limit:.1f}x the target)"


def _rows(res: dict[str, Any]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []

    def add(label: str, xs: list[float], cold: float | None, limit: float | None,
            fmt: Any = _ms, shown: str = "") -> None:
        p50, p95 = _quant(xs)
        target = f"p50 ≤ {shown or fmt(limit)}" if limit is not None else "—"
        rows.append((label, str(len(xs)), fmt(p50), fmt(p95), fmt(cold) if cold is not None
                     else "—", target, _met(p50, limit)))

    for name, res_c in res["classes"].items():
        title, limit = CLASSES[name]
        recs = res_c["records"]
        warm = recs[1:]
        add(title, [r["wall_ms"] for r in warm], recs[0]["wall_ms"], limit)
        kinds = list(dict.fromkeys(r["kind"] for r in warm))
        if len(kinds) > 1:
            for k in kinds:
                add(f"— {k}", [r["wall_ms"] for r in warm if r["kind"] == k], None, limit)
        if name == "faulted":
            again = res_c["again"]
            add(REPEAT[1], [r["wall_ms"] for r in again[1:]], None, REPEAT[2])
    cold = res["cold"]
    if cold:
        add("`netopsai ask` cold start (new process, wall)", [x * 1000 for x in cold["walls_s"]],
            cold["first_s"] * 1000, COLD_TARGET_S * 1000)
        if cold.get("cpu_s"):
            add("— its CPU time (user + sys; what a quiet machine's wall would be)",
                [x * 1000 for x in cold["cpu_s"]], None, None)
    tok = res["tokens"]
    if tok:
        def t(v: float | None) -> str:
            return "—" if v is None else f"{v:,.0f}"
        runs = tok["runs"]
        add("prompt tokens per diagnosis (copilot's estimate, `tokens.prompt`)",
            [float(r["prompt"]) for r in runs], None, TOKEN_TARGET, t, f"{TOKEN_TARGET:,}")
        add("— cross-check: request body bytes / 4", [sum(r["request_bytes"]) / 4 for r in runs],
            None, TOKEN_TARGET, t, f"{TOKEN_TARGET:,}")
    return rows


def _checks(res: dict[str, Any]) -> list[str]:
    """What says the figures are real: intents, evidence errors, citations, labels, coder runs."""
    out = []
    for name, rc in res["classes"].items():
        recs = rc["records"] + rc.get("again", [])
        bad_intent = [r["q"] for r in recs if not r["intent_ok"]]
        errs = [e for r in recs for e in r["errors"]]
        cites = sum(r["citations_ok"] for r in recs)
        line = (f"{name}: {len(recs)} answers, intent as expected {len(recs) - len(bad_intent)}/"
                f"{len(recs)}, citations valid {cites}/{len(recs)}, tool errors {len(errs)}")
        if bad_intent:
            line += f" (unexpected intent e.g. {bad_intent[0]!r})"
        if errs:
            line += f" (e.g. {errs[0][:120]})"
        if name == "analysis":
            runs = [c for r in recs for c in r["coder"]]
            ok = sum(c["ok"] for c in runs)
            recipes = Counter(c["recipe"] for c in runs)
            sbx = [c["sandbox_ms"] for c in runs if c["sandbox_ms"] and c.get("warm")]
            cold = [c["sandbox_ms"] for c in runs if c["sandbox_ms"] and not c.get("warm")]
            line += (f"; coder ran {len(runs)}x ({ok} ok; " + ", ".join(
                f"{k} {v}" for k, v in recipes.items()) + f"; {len(sbx)} forked from the warm "
                f"sandbox worker, {len(cold)} cold), sandbox run median warm "
                f"{_ms(statistics.median(sbx)) if sbx else '—'}, cold "
                f"{_ms(statistics.median(cold)) if cold else '—'}; an empty sandbox run warm "
                f"{_ms(rc.get('sandbox_floor_ms'))}, cold {_ms(rc.get('sandbox_cold_floor_ms'))}; "
                f"`python -I -c 'import pandas'` alone {_ms(rc.get('pandas_import_ms'))}")
        if name in ("diagnosis", "faulted"):
            labels = Counter(r["label"] for r in recs)
            line += "; root causes " + ", ".join(f"{k} {v}" for k, v in labels.items())
        if name == "faulted":
            good = sum(r.get("label_ok", False) for r in rc["records"])
            line += (f"; right label and device {good}/{len(rc['records'])} (first asks); "
                     f"inject (untimed) median {_ms(statistics.median(rc['inject_ms']))}")
        out.append(line)
    return out


def _breakdown(res: dict[str, Any]) -> list[str]:
    out = ["| class | wall p50 | " + " | ".join(NODES) + " | outside the graph |",
           "| --- | ---: |" + " ---: |" * (len(NODES) + 1)]
    for name, rc in res["classes"].items():
        for label, recs in ((name, rc["records"][1:]), (f"{name} (again)", rc.get("again", [])[1:])):
            if not recs:
                continue
            cells = []
            for node in NODES:
                xs = [r["nodes"].get(node, 0.0) for r in recs]
                cells.append(_ms(statistics.median(xs)) if any(xs) else "—")
            rest = statistics.median(r["wall_ms"] - sum(r["nodes"].values()) for r in recs)
            out.append(f"| {label} | {_ms(statistics.median(r['wall_ms'] for r in recs))} | "
                       + " | ".join(cells) + f" | {_ms(rest)} |")
    return out


def _profile_lines(res: dict[str, Any]) -> list[str]:
    out = []
    for name, p in res["profiles"].items():
        ours = "; ".join(f"`{r['where']}` {_ms(r['cum_ms'])}" for r in p["ours"][:8])
        own = "; ".join(f"`{r['where']}` {_ms(r['tot_ms'])}" for r in p["self"][:5])
        out.append(f"- {name}, {', '.join(p['kinds'])} (cProfile over {p['n']} warm questions, "
                   f"tool calls serial; per question, {_ms(p['total_ms'])} profiled) — project "
                   f"code, cumulative (wrappers that pass ≥ 90% on left out): {ours}. Self time, "
                   f"anywhere: {own}.")
    return out


def _token_split(runs: list[dict[str, Any]]) -> str:
    """Where a diagnosis's prompt bytes go, summed over its LLM calls (median diagnosis)."""
    split = {k: statistics.median(sum(p[k] for p in r["parts"]) for r in runs)
             for k in ("tools", "system", "rest")}
    whole = sum(split.values()) or 1
    planner = statistics.median(sum(1 for p in r["parts"] if p["tools"]) for r in runs)
    return (f"Per diagnosis the prompts carry tool schemas {split['tools'] / 1024:.1f} KiB "
            f"({split['tools'] / whole:.0%}, re-sent with each of the {planner:.0f} planner calls), the "
            f"system prompt {split['system'] / 1024:.1f} KiB ({split['system'] / whole:.0%}) and the "
            f"question, evidence and history {split['rest'] / 1024:.1f} KiB "
            f"({split['rest'] / whole:.0%}).")


def render(res: dict[str, Any], machine: dict[str, str], opts: argparse.Namespace) -> str:
    c = res["counts"]
    roles = ", ".join(f"{n} {r}" for r, n in c["roles"].items())
    t = c["tables"]
    out = [f"## Copilot — {SCALE}", "",
           f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; code {machine['rev']}",
           f"- Machine: {machine['cpu']}, {machine['cores']} logical cores, {machine['ram']} RAM; "
           f"Python {machine['python']}, SQLite {machine['sqlite']}, {machine['os']}; 1-min load "
           f"average {res['load'][0]:.2f} before, {res['load'][1]:.2f} after (other work skews figures)",
           f"- Lab: spec `default`, scale `{SCALE}`, seed {LAB_SEED}, clock {CLOCK:%Y-%m-%dT%H:%MZ}; "
           f"{sum(n for r, n in c['roles'].items() if r != 'host')} network devices ({roles}); "
           f"{t['interface']} interfaces, {t['link']} links, {t['hostaddress']} host addresses, "
           f"{t['alarm']} alarms, {t['change']} changes",
           f"- Runs: each query class in a fresh process with one offline Copilot (in-memory "
           f"checkpointer) and a fresh thread per question; {opts.n} varied questions per class "
           f"(IPs, devices, sites and PoDs drawn with a fixed seed from the metadata tool's "
           f"inventory) after a first, cold one (reported apart, excluded from p50/p95). Latency is "
           f"the wall time of `Copilot.answer`. The analysis class's Copilot starts the sandbox's warm "
           f"worker when built (`Copilot.warm_up`, as the terminal chat does); runs it cannot "
           f"take (not ready yet, busy) go cold. Faults (ACL block on the source ToR with its change "
           f"record, or the flow's ToR uplink down; noise 20 alarms, 6 changes, 2 flaps) are "
           f"injected before each question, untimed; each is then asked a second time. Cold start: "
           f"`.venv/bin/netopsai ask \"{CLI_QUESTION}\" --json` as a new process, median of "
           f"{opts.cold_runs} after one unrecorded run (its time is the cold column). Tokens: "
           f"scripted LLM over HTTP on 127.0.0.1 (traceroute; changelog + alarms on the path + DCI "
           f"alarms; done; the cited answer: 4 LLM calls), replies without usage. p95 is the "
           f"interpolated 95th percentile (with n = 5 or 8, close to the worst run).", "",
           "| measurement | n | p50 | p95 | cold (first) | target | met |",
           "| --- | ---: | ---: | ---: | ---: | --- | --- |"]
    out += ["| " + " | ".join(r) + " |" for r in _rows(res)]
    out += ["", "Median time per graph node (the steps' `ms`), warm questions:", ""]
    out += _breakdown(res)
    out += ["", "Checks: " + "; ".join(_checks(res)) + ".",
            "1-min load average as each class started: " + ", ".join(
                f"{k} {v['load']:.1f}" for k, v in res["classes"].items()) + "."]
    cold = res["cold"]
    if cold:
        imp, sp = cold["imports"], cold["split"]
        pk = ", ".join(f"{k} {_ms(v)}" for k, v in imp["packages"])
        ours = ", ".join(f"{k} {_ms(v)}" for k, v in imp["ours"])
        entries = ", ".join(f"{k} {_ms(v)}" for k, v in imp["entries"])
        ans = [x for x in cold["answer_ms"] if x == x]
        out.append(
            f"Cold start: wall p50 {_ms(statistics.median(cold['walls_s']) * 1000)} at 1-min load "
            f"{cold.get('load', (0, 0))[0]:.1f} to {cold.get('load', (0, 0))[1]:.1f} on 2 cores, of "
            f"which the "
            f"answer itself (`elapsed_ms`) {_ms(statistics.median(ans) if ans else None)}; answers "
            f"{'correct' if cold['ok'] else '**WRONG or failed**'}. The same steps timed inside a "
            f"fresh process (median of 3): `import netopsai.launch.app` {_ms(sp['import_cli_ms'])}, "
            f"`cli._copilot()` (imports the service, langgraph and the lab backends, opens the store "
            f"and the checkpointer) {_ms(sp['copilot_ms'])}, `answer` {_ms(sp['answer_ms'])}, JSON "
            f"{_ms(sp['json_ms'])}; the rest of the wall time is interpreter start-up and site "
            f"imports. `python -X importtime` over the "
            f"same path (median of 3 runs, its own overhead included): imports "
            f"{_ms(imp['total_ms'])}; third-party packages where netopsai first imports them: {pk} "
            f"(heaviest entry points: {entries}); netopsai's own module bodies {_ms(imp['own_ms'])}; "
            f"heaviest netopsai modules, cumulative: {ours}.")
    tok = res["tokens"]
    if tok:
        runs = tok["runs"]
        calls = Counter(r["llm_calls"] for r in runs)
        per_call = [statistics.median(r["request_bytes"][i] for r in runs if len(r["request_bytes"]) > i)
                    for i in range(max(len(r["request_bytes"]) for r in runs))]
        bad = [r for r in runs if r["left"] or r["unscripted"] or not r["citations_ok"]
               or not r["llm_answer"] or r["tools"][:1] != ["traceroute"]]
        out.append(
            f"Tokens: {len(runs)} scripted diagnoses ({', '.join(dict.fromkeys(r['kind'] for r in runs))}); "
            f"LLM calls per diagnosis {dict(calls)}; median request body per call "
            + ", ".join(f"#{i + 1} {b / 1024:.1f} KiB" for i, b in enumerate(per_call))
            + f"; completion tokens p50 {statistics.median(r['completion'] for r in runs):.0f}; wall "
            f"p50 {_ms(statistics.median(r['wall_ms'] for r in runs))} on loopback. "
            + _token_split(runs) + " "
            + ("All ran as scripted, answers were the model's and cited valid ids."
               if not bad else f"**{len(bad)} run(s) went off script**: {bad[0]['q']}"))
    prof = _profile_lines(res)
    if prof:
        out += ["", "Where the time goes in the classes that missed:", "", *prof]
    return "\n".join(out) + "\n"
