"""The copilot benchmark's measuring children (bench_copilot.py runs each in a fresh
interpreter): one query class offline, the scripted-LLM token runs, and the `ask` path's phases."""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import time
from typing import Any

from bench.copilot_config import CLI_QUESTION, CLOCK, FAULT_AT, LAB_SEED, SCALE
from bench.copilot_questions import _backends


def _nodes(steps: list[dict[str, Any]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for s in steps:
        out[s["node"]] = out.get(s["node"], 0.0) + float(s["ms"])
    return out


def _record(spec: dict[str, Any], r: dict[str, Any], wall_ms: float) -> dict[str, Any]:
    from netopsai.copilot.evidence import validate_citations

    ids = {e["id"] for e in r["evidence"]}
    coder = [e for e in r["evidence"] if e["tool"] == "coder"]
    rc = r["root_cause"] or {}
    return {"q": spec["q"], "kind": spec["kind"], "wall_ms": wall_ms, "elapsed_ms": r["elapsed_ms"],
            "intent": r["intent"], "intent_ok": r["intent"] == spec["intent"],
            "tools": [e["tool"] for e in r["evidence"]],
            "errors": [f"{e['tool']}: {e['errors'][0]}" for e in r["evidence"] if e["errors"]],
            "citations_ok": not validate_citations(r["answer"], ids) and bool(r["citations"]),
            "label": rc.get("label"), "device": rc.get("device"), "nodes": _nodes(r["steps"]),
            "coder": [{"recipe": (e["args"] or {}).get("recipe"), "ok": not e["errors"],
                       "sandbox_ms": (e["facts"] or {}).get("elapsed_ms"),
                       "warm": bool((e["facts"] or {}).get("warm"))} for e in coder]}


def _scenario(spec: dict[str, Any], i: int) -> Any:
    from netopsai.lab.scenario import Scenario

    return Scenario.model_validate({
        "id": f"bench-{i}", "lab": {"spec": "default", "scale": SCALE, "seed": LAB_SEED},
        "now": CLOCK, "question": spec["q"], "faults": [{"at": FAULT_AT, **f} for f in spec["faults"]],
        "noise": {"alarms": 20, "changes": 6, "flaps": 2}})


def child_class(name: str, questions: list[dict[str, Any]]) -> dict[str, Any]:
    """One query class in this fresh process: one Copilot, a fresh thread per question."""
    from netopsai.copilot.service import Copilot

    b = _backends()
    t0 = time.perf_counter()
    copilot = Copilot(b)
    build_ms = (time.perf_counter() - t0) * 1000
    if name == "analysis":  # a long-lived front end (chat, web app) starts the sandbox worker
        copilot.warm_up()
    out: dict[str, Any] = {"build_ms": build_ms, "records": [], "again": [], "inject_ms": [],
                           "load": os.getloadavg()[0]}
    for i, spec in enumerate(questions):
        if name == "faulted":
            from netopsai.lab.inject import inject
            from netopsai.store.engine import get_engine

            t0 = time.perf_counter()
            inject(get_engine(), _scenario(spec, i))
            out["inject_ms"].append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        r = copilot.answer(spec["q"], f"{name}-{i}")
        rec = _record(spec, r, (time.perf_counter() - t0) * 1000)
        if name == "faulted":
            rec["label_ok"] = (rec["label"] == spec["expect"]["label"]
                               and rec["device"] in spec["expect"]["devices"])
            t0 = time.perf_counter()
            again = copilot.answer(spec["q"], f"{name}-{i}-again")
            out["again"].append(_record(spec, again, (time.perf_counter() - t0) * 1000))
        out["records"].append(rec)
    if name == "faulted":
        from netopsai.lab.manage import reset_lab
        from netopsai.store.engine import get_engine

        reset_lab(get_engine())  # the next children see the healthy lab
    if name == "analysis":  # the sandbox's fixed cost: a child that runs nothing
        from netopsai.sandbox import SandboxSettings, prestart, run_code

        prestart(wait=True)
        floor = [run_code("result = 1\n") for _ in range(5)]
        out["sandbox_floor_ms"] = statistics.median(r.elapsed_ms for r in floor if r.warm)
        cold = SandboxSettings(warm=False)
        out["sandbox_cold_floor_ms"] = statistics.median(
            run_code("result = 1\n", settings=cold).elapsed_ms for _ in range(5))
        pandas = []
        for _ in range(5):  # what any such child pays before its code: python -I + pandas
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-I", "-c", "import pandas"], check=True)
            pandas.append((time.perf_counter() - t0) * 1000)
        out["pandas_import_ms"] = statistics.median(pandas)
    return out


def child_tokens(pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """Scripted-LLM diagnoses: the model traces, checks changes and alarms on the path, answers
    citing the evidence; the replies carry no usage, so `tokens.prompt` is the copilot's own
    estimate of what it sent. The request bodies' exact sizes come from Content-Length."""
    from netopsai.copilot.evidence import validate_citations
    from netopsai.copilot.service import Copilot
    from netopsai.lab.inject import inject
    from netopsai.lab.manage import reset_lab
    from netopsai.store.engine import get_engine
    from netopsai_testkit.fake_openai import FakeOpenAI, call, calls, text

    b = _backends()
    out: list[dict[str, Any]] = []
    with FakeOpenAI() as fake:
        copilot = Copilot(b, llm=fake.chat_model(timeout=10))
        for i, spec in enumerate(pairs):
            if spec.get("faults"):
                inject(get_engine(), _scenario(spec, 900 + i))
            else:
                reset_lab(get_engine())
            src, dst = re.findall(r"\d+\.\d+\.\d+\.\d+", spec["q"])
            first = len(fake.requests)
            # the model plans the trace; the engine verifies and diagnoses; the model writes
            fake.script(
                calls(call("traceroute", {"src": src, "dst": dst}), usage=None),
                text(f"Connectivity from {src} to {dst}: see the traceroute [E1].\n\n"
                     "Change records on the path devices in the last hour are listed in [E2].\n\n"
                     "Alarms on the path devices [E3] and DCI alarms [E4] were checked.", usage=None))
            t0 = time.perf_counter()
            r = copilot.answer(spec["q"], f"tokens-{i}")
            wall = (time.perf_counter() - t0) * 1000
            sizes = [int(h.get("content-length", 0)) for h in fake.headers[first:]]
            parts = [_request_parts(body) for body in fake.requests[first:]]
            ids = {e["id"] for e in r["evidence"]}
            out.append({"q": spec["q"], "kind": spec["kind"], "prompt": r["tokens"]["prompt"],
                        "completion": r["tokens"]["completion"], "llm_calls": r["llm_calls"],
                        "request_bytes": sizes, "parts": parts, "wall_ms": wall,
                        "tools": [e["tool"] for e in r["evidence"]],
                        "label": (r["root_cause"] or {}).get("label"),
                        "llm_answer": r["answer"].startswith("Connectivity from"),
                        "citations_ok": not validate_citations(r["answer"], ids),
                        "left": fake.pending, "unscripted": fake.unscripted})
            fake.replies.clear()
        reset_lab(get_engine())
    return {"runs": out}


def child_cli_split() -> dict[str, Any]:
    """The `ask` path's phases in one fresh process, as cli.py runs them."""
    t0 = time.perf_counter()
    import netopsai.launch.app  # noqa: F401  (the whole command line, as `netopsai ask` loads it)
    from netopsai.cli import core as cli

    t1 = time.perf_counter()
    copilot = cli._copilot()
    t2 = time.perf_counter()
    r = copilot.answer(CLI_QUESTION, f"split-{os.getpid()}")
    t3 = time.perf_counter()
    json.dumps(r, default=str)
    return {"import_cli_ms": (t1 - t0) * 1000, "copilot_ms": (t2 - t1) * 1000,
            "answer_ms": (t3 - t2) * 1000, "json_ms": (time.perf_counter() - t3) * 1000}


def _request_parts(body: dict[str, Any]) -> dict[str, int]:
    """Bytes of one chat request by part (re-serialised compactly, so a little under the wire
    size): the tool schemas, the system prompt, everything else (question, evidence, history)."""
    def size(x: Any) -> int:
        return len(json.dumps(x, separators=(",", ":")))
    msgs = body.get("messages") or []
    system = sum(size(m.get("content")) for m in msgs if m.get("role") == "system")
    return {"tools": size(body["tools"]) if body.get("tools") else 0, "system": system,
            "rest": size(msgs) - system}


