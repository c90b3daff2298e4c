"""The Slack surface's settings (SLACK_* environment variables): tokens as SecretStr, allow-lists.
In config/, below the front ends: the Slack bot, the web app's "Post to #channel" (through
copilot/oncall.py) and `netopsai report` all read them (issue 27: front ends do not import
each other)."""

from __future__ import annotations

import hashlib
import hmac
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
    # web login names that may read a Slack conversation in the web app from its "Open in
    # netopsai" link (SLACK_WEB_READERS); with web login on and this unset, nobody may
    web_readers: IdList = Field(default_factory=list)

    @field_validator("allowed_users", "allowed_channels", "batch_users", "batch_channels",
                     "web_readers", mode="before")
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


    def thread_sig(self, thread: str) -> str:
        """The signature an "Open in netopsai" link carries for a Slack thread (`&sig=`): an
        HMAC of the thread key under the signing secret, which the bot and the web app share;
        "" without a secret (the link opens nothing of Slack's then). A thread key alone
        (channel and message time) is guessable: the signature is what says Slack sent it."""
        if self.signing_secret is None:
            return ""
        secret = self.signing_secret.get_secret_value().encode()
        return hmac.new(secret, f"netopsai-web-link:{thread}".encode(), hashlib.sha256).hexdigest()[:32]

    def web_refusal(self, thread: str, sig: str, web_user: str | None) -> str | None:
        """Why the web app may not show this Slack thread (None: it may, read-only). The link
        must be signed for that thread; with web login on (`web_user` set) the user must be in
        SLACK_WEB_READERS, since a web login is not a Slack identity."""
        want = self.thread_sig(thread)
        if not want:
            return "Slack threads open here only when SLACK_SIGNING_SECRET is set for the web app too"
        if not sig or not hmac.compare_digest(want, sig):
            return "this Slack thread link is not signed by the bot (open it from Slack's button)"
        if web_user is not None and web_user not in self.web_readers:
            return (f"web user {web_user!r} may not read Slack threads here (SLACK_WEB_READERS "
                    "lists who may)")
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
