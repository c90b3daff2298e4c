"""The Slack surface's settings (SLACK_* environment variables): tokens as SecretStr, allow-lists.
In config/, below the front ends: the Slack bot, the web app's "Post to #channel" (through
copilot/oncall.py) and `netopsai report` all read them (issue 27: front ends do not import
each other)."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

IdList = Annotated[list[str], NoDecode]  # "U1,U2" or "U1 U2" in the environment, not JSON


class SlackSettings(BaseSettings):
    """Who may use the bot and how it reaches Slack. An empty allow-list allows everyone in the
    workspace; the batch lists, when set, restrict batch checks further (they are the costly ones)."""

    model_config = SettingsConfigDict(env_prefix="SLACK_", extra="ignore")

    bot_token: SecretStr | None = None
    signing_secret: SecretStr | None = None
    app_token: SecretStr | None = None
    api_url: str = "https://slack.com/api/"
    command: str = "/netops"
    allowed_users: IdList = Field(default_factory=list)
    allowed_channels: IdList = Field(default_factory=list)
    batch_users: IdList = Field(default_factory=list)
    batch_channels: IdList = Field(default_factory=list)
    batch_concurrency: int = Field(default=8, ge=1, le=64)
    max_file_bytes: int = Field(default=1_000_000, ge=1)
    # the web app's address as on-calls reach it (SLACK_WEB_BASE_URL, e.g.
    # https://netopsai.example.net): answers get "Open in netopsai" buttons to it; unset, none
    web_base_url: str | None = None
    # where "Page the on-call" posts its draft (SLACK_ONCALL_CHANNEL: a channel id like C0123ABC,
    # or #name); unset, the draft is only shown for copying and Slack offers no page button
    oncall_channel: str | None = None

    @field_validator("allowed_users", "allowed_channels", "batch_users", "batch_channels",
                     mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [v for v in re.split(r"[\s,]+", value) if v]
        return value

    @field_validator("web_base_url", mode="before")
    @classmethod
    def _web_url(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip().rstrip("/") or None
            if value and not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", value):
                raise ValueError(f"SLACK_WEB_BASE_URL must be an http(s) address like "
                                 f"https://netopsai.example.net, not {value[:60]!r}")
        return value

    @field_validator("oncall_channel", mode="before")
    @classmethod
    def _oncall(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip() or None
            if value and not re.fullmatch(r"[CGD][A-Z0-9]{6,20}|#?[a-z0-9][a-z0-9._-]{0,79}", value):
                raise ValueError("SLACK_ONCALL_CHANNEL must be a channel id like C0123ABC or a "
                                 f"name like #netops-oncall, not {value[:60]!r}")
        return value

    @property
    def oncall_label(self) -> str:
        """The on-call channel as a person reads it: #name, or the id."""
        ch = self.oncall_channel or ""
        return ch if ch.startswith("#") or re.fullmatch(r"[CGD][A-Z0-9]{6,20}", ch) else f"#{ch}"

    def pager(self) -> bool:
        """Whether "Page the on-call" can post: a bot token and an on-call channel are set."""
        return bool(self.bot_token and self.oncall_channel)

    def denial(self, user: str, channel: str, is_dm: bool, batch: bool = False) -> str | None:
        """Why this user in this channel may not ask (None when allowed). DMs are not channels:
        only the user lists apply there."""
        if self.allowed_users and user not in self.allowed_users:
            return "you are not on this bot's allow-list of users; ask the on-call lead to add you"
        if not is_dm and self.allowed_channels and channel not in self.allowed_channels:
            return "this channel is not on the bot's allow-list; ask in an allowed channel or a DM"
        if batch and self.batch_users and user not in self.batch_users:
            return "batch checks are restricted to a separate allow-list of users, which you are not on"
        if batch and not is_dm and self.batch_channels and channel not in self.batch_channels:
            return "batch checks are not allowed in this channel"
        return None


def read_settings() -> SlackSettings:
    """SLACK_* read and checked; a bad value is one line naming the variable (never its value:
    it may be a token)."""
    from pydantic import ValidationError

    from netopsai.common.errors import NetopsError

    try:
        return SlackSettings()
    except ValidationError as exc:
        err = exc.errors()[0]
        name = "SLACK_" + str(err["loc"][0]).upper() if err.get("loc") else "a SLACK_ variable"
        msg = str(err["msg"]).removeprefix("Value error, ").removeprefix(f"{name} ")  # said once
        raise NetopsError(f"{name}: {msg}") from None
