"""The slash command (/netops by default): ask, trace, device, alarms, batch, help. Each
subcommand becomes a plain question to the copilot (or a batch run); nothing here diagnoses."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from ipaddress import ip_address
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient

from netopsai.common.errors import NetopsError
from netopsai.copilot.payload import answer_of, dump_facts
from netopsai.tools.facts import TraceFacts
from netopsai.ui.slack.batch import inline_lines, run_batch
from netopsai.ui.slack.blocks import help_blocks, message_text, mrkdwn
from netopsai.ui.slack.work import (
    Progress,
    SlackContext,
    answer_question,
    guarded,
    render,
    stream_answer,
    thread_id,
)

SUBCOMMANDS = ("ask", "trace", "device", "alarms", "batch", "help")
WINDOW = re.compile(r"^\d+[smhdw]$", re.IGNORECASE)
DEFAULT_WINDOW = "2h"


def parse(text: str) -> tuple[str, list[str], str]:
    """(subcommand, its words, the rest as typed). Free text is a question; nothing is help."""
    text = text.strip()
    if not text:
        return "help", [], ""
    first, _, rest = text.partition(" ")
    if first.lower() not in SUBCOMMANDS:
        return "ask", text.split(), text
    return first.lower(), rest.split(), rest.strip()


def question_for(sub: str, words: list[str], rest: str, command: str) -> str:
    """The copilot question a subcommand stands for; NetopsError (with usage) when malformed."""
    if sub == "ask":
        if not rest:
            raise NetopsError(f"ask needs a question, e.g. `{command} ask who owns 10.1.3.20?`")
        return rest
    if sub == "trace":
        if len(words) != 2:
            raise NetopsError(f"trace needs a source and a destination IP, e.g. "
                              f"`{command} trace 10.1.3.20 10.2.1.40`")
        for word in words:
            try:
                ip_address(word)
            except ValueError:
                raise NetopsError(f"trace: {word!r} is not an IP address") from None
        return f"trace {words[0]} to {words[1]}"
    if sub == "device":
        if len(words) != 1:
            raise NetopsError(f"device needs one device name, e.g. `{command} device dc1-leaf-03`")
        return f"details of {words[0]}"
    if sub == "alarms":
        return _alarms_question(words, command)
    if sub == "batch" and not rest:
        raise NetopsError(f"batch needs IPs or src,dst pairs, e.g. `{command} batch 10.2.1.40 "
                          "10.1.3.20,10.2.1.41`, or DM me `batch` with a CSV/TXT file attached")
    return rest


def _alarms_question(words: list[str], command: str) -> str:
    windows = [w for w in words if WINDOW.match(w)]
    sites = [w for w in words if not WINDOW.match(w)]
    if len(windows) > 1 or len(sites) > 1:
        raise NetopsError(f"alarms takes at most a site and a window, e.g. `{command} alarms dc1 2h`")
    window = windows[0] if windows else DEFAULT_WINDOW
    where = f" at {sites[0]}" if sites else ""
    return f"alarms{where} in the last {window}"


def _reached(result: Mapping[str, Any]) -> bool:
    return all(dump_facts(ev, TraceFacts).get("reached", True)
               for ev in answer_of(result).get("evidence", []) if ev.get("tool") == "traceroute")


def trace(ctx: SlackContext, progress: Progress, question: str, user: str) -> None:
    """A trace; when it does not reach, the same thread asks why (the connectivity diagnosis)."""
    def work() -> list[dict[str, Any]]:
        thread = thread_id(progress.channel, progress.root)
        result = stream_answer(ctx.copilot, question, thread, user, progress.step)
        if not _reached(result):
            flow = question.removeprefix("trace ")
            progress.step("the trace did not reach its destination: diagnosing")
            result = stream_answer(ctx.copilot, f"{flow} not communicating", thread, user,
                                   progress.step)
        return render(ctx, result, thread)
    guarded(progress.start(), work)


def handle(ctx: SlackContext, ack: Callable[..., Any], command: dict[str, Any], client: WebClient,
           respond: Callable[..., Any]) -> None:
    """Ack at once (help, denials and usage errors are the ack itself, ephemeral), then work."""
    name = ctx.settings.command
    sub, words, rest = parse(command.get("text") or "")
    if sub == "help":
        ack(blocks=help_blocks(name), text="netopsai help", response_type="ephemeral")
        return
    user, channel = command["user_id"], command["channel_id"]
    is_dm = command.get("channel_name") == "directmessage" or channel.startswith("D")
    denial = ctx.settings.denial(user, channel, is_dm, batch=sub == "batch")
    if denial:
        ack(text=f":no_entry: Sorry, {denial}.", response_type="ephemeral")
        return
    try:
        question = question_for(sub, words, rest, name)
    except NetopsError as exc:
        ack(text=f":warning: {exc}", response_type="ephemeral")
        return
    ack()

    def fallback(blocks: list[dict[str, Any]]) -> None:
        respond(blocks=blocks, text=message_text(blocks), response_type="in_channel")
    title = f"<@{user}> `{mrkdwn(name + ' ' + (command.get('text') or '').strip())}`"
    progress = Progress(client, channel, title, fallback=fallback)
    if sub == "batch":
        run_batch(ctx, progress, lambda: inline_lines(question), user)
    elif sub == "trace":
        trace(ctx, progress, question, user)
    else:
        answer_question(ctx, progress, question, user)


def register(app: App, ctx: SlackContext) -> None:
    @app.command(ctx.settings.command)
    def netops(ack: Any, command: dict[str, Any], client: WebClient, respond: Any) -> None:
        handle(ctx, ack, command, client, respond)
