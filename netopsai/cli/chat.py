"""The terminal chat: steps stream as they complete, then the answer's headline and the cited
answer (rich). A question not placed shows numbered examples; typing a number asks that one."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from netopsai.cli.render import print_answer
from netopsai.cli.textout import markup
from netopsai.copilot.service import Copilot, Step


def describe(step: Step) -> str:
    """A one-line description of a step, as front ends show it collapsed."""
    d: dict[str, Any] = step.data
    if step.node == "planner":
        calls = ", ".join(f"{c['tool']}" for c in d.get("calls", [])) or "no tool calls"
        return f"planner: {d.get('intent') or 'next step'} -> {calls}"
    if step.node in ("tools", "coder"):
        return "; ".join(f"[{e['id']}] {e['tool']}: {e['summary'][:90]}" for e in d.get("evidence", []))
    if step.node == "diagnose":
        return f"diagnosis: {d.get('label')} {d.get('device') or ''}".rstrip()
    return step.node


def run_chat(copilot: Copilot, thread: str, console: Console | None = None) -> None:
    console = console or Console()
    copilot.warm_up()  # a session: the first analysis should not wait for pandas to load
    console.print(f"netopsai chat — thread [bold]{markup(thread)}[/bold]. Ask; 'exit' to leave.")
    offered: list[str] = []  # the examples the last answer numbered (a question not placed)
    while True:
        try:
            question = console.input("[bold cyan]you>[/bold cyan] ").strip()
        except (EOFError, KeyboardInterrupt):
            console.print()
            return
        if question.lower() in ("exit", "quit", ":q"):
            return
        if not question:
            continue
        if question.isdigit() and 0 < int(question) <= len(offered):  # one of the examples
            question = offered[int(question) - 1]
            console.print(f"[dim]  asking: {markup(question)}[/dim]")
        offered = []
        for step in copilot.ask(question, thread):  # steps and answer quote the network
            if step.node == "summarizer":  # the headline first, as in the web app and Slack
                offered = print_answer(str(step.data.get("answer", "")), console,
                                       pick="Type its number to ask it.")
            elif step.node != "done":
                console.print(f"[dim]  {markup(describe(step))} ({step.ms:.0f} ms)[/dim]")
