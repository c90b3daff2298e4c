"""Slack listeners, one module per kind, each with `register(app, ctx)`."""

from __future__ import annotations

from slack_bolt import App

from netopsai.ui.slack.listeners import actions, alarms, commands, events, feedback, nextmove
from netopsai.ui.slack.work import SlackContext

KINDS = (commands, events, actions, feedback, alarms, nextmove)


def register_all(app: App, ctx: SlackContext) -> None:
    for kind in KINDS:
        kind.register(app, ctx)
