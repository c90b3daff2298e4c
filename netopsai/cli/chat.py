"""The terminal chat: steps stream as they complete, then the answer's headline and the cited
answer (rich). A question not placed shows numbered examples; typing a number asks that one."""

from __future__ import annotations

from rich.console import Console

from netopsai.cli.render import print_answer
from netopsai.cli.textout import markup
from netopsai.copilot.service import Copilot
from netopsai.copilot.steps import describe


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
