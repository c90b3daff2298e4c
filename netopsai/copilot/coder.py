"""The coder agent: pandas analysis over evidence tables, run in the sandbox, as Evidence.

Offline the planner picks a recipe (netopsai/copilot/recipes.py); with an LLM the code is generated from
prompts/coder.md, which sees each input's id, tool, columns and a 5-row preview, never a whole
table. Either way the code, its output and any error or sandbox violation become an Evidence
(tool "coder") that answers cite like any tool's; nothing here raises into the agent loop.
"""

from __future__ import annotations

import json
import re
from string import Template
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from netopsai.copilot.evidence import DATA_NOTE, Evidence, Ledger, quoted
from netopsai.copilot.recipes import RECIPES, params_for
from netopsai.prompts import load as load_prompt
from netopsai.sandbox import SandboxResult, SandboxSettings, run_code

PREVIEW_ROWS = 5
CELL_CHARS = 120  # a preview cell longer than this is cut: the prompt stays small
CODE_RE = re.compile(r"```[ \t]*(python|py)?[ \t]*\n(.*?)```", re.S | re.I)
RETRY_MARK = "---- retry ----"


def run_recipe(name: str, inputs: list[Evidence], question: str = "",
               settings: SandboxSettings | None = None) -> Evidence:
    """Run one library recipe over the planner's evidence in the sandbox."""
    args: dict[str, Any] = {"recipe": name, "inputs": [e.id for e in inputs]}
    recipe = RECIPES.get(name)
    if recipe is None:
        return _failed(args, inputs, f"unknown recipe {name!r}; valid: {', '.join(RECIPES)}")
    missing = [t for t in recipe.needs if not any(e.tool == t for e in inputs)]
    if missing:
        return _failed(args, inputs, f"recipe {name} needs {' and '.join(missing)} evidence "
                                     f"among its inputs; got {_tools(inputs) or 'none'}")
    args["params"] = params = params_for(question)
    res = run_code(recipe.source, tables(inputs), params, settings)
    what = f"{recipe.title} (from {_ids(inputs)})"
    summary = (f"{what}: {recipe.describe(res.rows, params, inputs)}." if res.ok
               else _failure(what, res.error, res.violation))
    summary += "".join(f" {e.id} ({e.tool}) had failed: {e.errors[0]}" for e in inputs if e.errors)
    return _evidence(args, inputs, res, recipe.source, summary, {"recipe": name})


def run_generated(llm: BaseChatModel, question: str, inputs: list[Evidence],
                  settings: SandboxSettings | None = None) -> Evidence:
    """Ask the model for code, run it; on failure send it the error once and run its fix."""
    args: dict[str, Any] = {"generated": question, "inputs": [e.id for e in inputs]}
    main, retry = _templates()
    messages: list[BaseMessage] = [HumanMessage(main.safe_substitute(
        question=question, inputs=render_inputs(inputs)))]
    attempts: list[dict[str, Any]] = []
    tokens = {"prompt": 0, "completion": 0}
    ran = ""  # the last code that actually ran
    res = SandboxResult(ok=False, error="no attempt was made")
    for _ in range(2):
        reply = _ask(llm, messages, tokens)
        if isinstance(reply, str):  # the model call itself failed: nothing to run or retry
            res = SandboxResult(ok=False, error=f"model error: {reply}")
            break
        code = extract_code(reply.text)
        ran = code or ran
        res = run_code(code, tables(inputs), {}, settings) if code else SandboxResult(
            ok=False, error="the reply had no ```python code block")
        attempts.append({"code": code, "ok": res.ok, "error": res.error, "violation": res.violation})
        if res.ok:
            break
        messages += [reply, HumanMessage(retry.safe_substitute(
            error=res.error, stdout=f"stdout:\n{res.stdout}" if res.stdout else ""))]
    what = f"Generated pandas code over {_ids(inputs)}"
    summary = (f"{what} {_describe_result(res)}" if res.ok
               else _failure(what, res.error, res.violation))
    if res.ok and len(attempts) > 1:
        first = attempts[0]
        summary += f" {_failure('Its first attempt', first['error'], first['violation'])[:-1]}; " \
                   "the corrected code ran."
    return _evidence(args, inputs, res, ran, summary, {
        "attempts": attempts, "tokens": tokens,
        "violations": [a["violation"] for a in attempts if a["violation"]]})


def tables(inputs: list[Evidence]) -> dict[str, dict[str, Any]]:
    """The sandbox's inputs: each evidence table with what the code may want to know about it."""
    return {e.id: {"columns": e.columns, "rows": e.rows,
                   "meta": {"tool": e.tool, "args": e.args, "facts": e.facts, "window": e.window,
                            "summary": e.summary}} for e in inputs}


def render_inputs(inputs: list[Evidence]) -> str:
    """Id, tool, arguments, summary, columns and a 5-row preview per input (never all rows)."""
    parts = []
    for e in inputs:
        preview = "\n".join(json.dumps({k: _cell(v) for k, v in r.items()}, default=str, ensure_ascii=False)
                            for r in e.preview(PREVIEW_ROWS))
        parts.append(f"### {e.id} — {e.tool} {json.dumps(e.args, default=str)}\n"
                     f"Summary: {quoted(e.summary)}\nRows: {len(e.rows)}; columns: "
                     f"{', '.join(' '.join(str(c).split()) for c in e.columns)}\n"
                     f"First rows:\n{preview or '(none)'}")
    return (DATA_NOTE + "\n\n" + "\n\n".join(parts)) if parts else "(no evidence tables)"


def extract_code(text: str) -> str | None:
    """The first ```python block of a reply (else its first unlabelled block)."""
    blocks = CODE_RE.findall(text or "")
    code = next((b for lang, b in blocks if lang), None) or next((b for _, b in blocks), None)
    return code.strip() + "\n" if code and code.strip() else None


def _templates() -> tuple[Template, Template]:
    text = load_prompt("coder.md")
    main, _, retry = text.partition(RETRY_MARK)
    return Template(main.strip() + "\n"), Template(retry.strip() + "\n")


def _ask(llm: BaseChatModel, messages: list[BaseMessage], tokens: dict[str, int]) -> AIMessage | str:
    """The model's reply, or a one-line error: a failing model must not crash the answer."""
    from netopsai.copilot.llm import ModelError, invoke, usage

    try:
        reply = invoke(llm, messages)
    except ModelError as exc:  # scrubbed: the text lands in evidence, the answer and the thread
        return str(exc)
    if not isinstance(reply, AIMessage):
        return f"unexpected reply type {type(reply).__name__}"
    used = usage(reply, messages)
    tokens["prompt"] += used["prompt"]
    tokens["completion"] += used["completion"]
    return reply


def _cell(v: Any) -> Any:
    text = v if isinstance(v, str) else None
    return text[:CELL_CHARS] + "…" if text and len(text) > CELL_CHARS else v


def _ids(inputs: list[Evidence]) -> str:
    return ", ".join(e.id for e in inputs) or "no evidence"


def _tools(inputs: list[Evidence]) -> str:
    return ", ".join(dict.fromkeys(e.tool for e in inputs))


def _failure(what: str, error: str | None, violation: str | None) -> str:
    kind = f"was stopped by the sandbox ({violation})" if violation else "failed"
    return f"{what} {kind}: {error}."


def _describe_result(res: SandboxResult) -> str:
    if not res.columns:
        return f"returned {json.dumps(res.value, default=str)[:300]}."
    if not res.rows:
        return f"returned an empty table (columns {', '.join(res.columns)})."
    first = ", ".join(f"{k}={v}" for k, v in list(res.rows[0].items())[:6])
    more = " (truncated)" if res.truncated else ""
    return (f"returned {len(res.rows)} row{'s' if len(res.rows) != 1 else ''}{more} with columns "
            f"{', '.join(res.columns)}; first: {first}.")


def _window(inputs: list[Evidence]) -> dict[str, str] | None:
    """The span of the inputs' windows (ISO strings of one format compare as times)."""
    wins = [e.window for e in inputs if e.window]
    if not wins:
        return None
    return {"start": min(w["start"] for w in wins), "end": max(w["end"] for w in wins)}


def _evidence(args: dict[str, Any], inputs: list[Evidence], res: SandboxResult, code: str,
              summary: str, extra: dict[str, Any]) -> Evidence:
    columns, rows = res.columns, res.rows
    if res.ok and not columns:  # a scalar answer is a one-cell table, so it renders like any other
        columns, rows = ["result"], [{"result": res.value}]
    facts = {"code": code, "stdout": res.stdout, "violation": res.violation,
             "elapsed_ms": res.elapsed_ms, "rows": len(rows), "isolation": res.isolation,
             "warm": res.warm, **extra}
    if res.value is not None:
        facts["value"] = res.value
    error = f"sandbox violation ({res.violation}): {res.error}" if res.violation else res.error
    # the graph renumbers it in its thread
    return Evidence(id=Ledger.following(inputs).mint(), tool="coder", args=args, window=_window(inputs),
                    summary=summary, columns=columns, rows=rows, facts=facts,
                    partial=res.truncated or any(e.partial for e in inputs),
                    errors=[] if res.ok else [error or "the analysis failed"])


def _failed(args: dict[str, Any], inputs: list[Evidence], message: str) -> Evidence:
    res = SandboxResult(ok=False, error=message)
    return _evidence(args, inputs, res, "", f"The coder could not run: {message}.", {})
