"""The Slack bot's settings: SLACK_* as config/slack.py reads them (kept there, below the front
ends, since the web app's on-call post and `netopsai report` read them too)."""

from netopsai.config.slack import IdList, SlackSettings, read_settings

__all__ = ["IdList", "SlackSettings", "read_settings"]
