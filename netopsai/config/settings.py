"""Settings read from the environment (NETOPSAI_HOME, DATABASE_URL; NETOPSAI_UI_* for the web
app)."""

from __future__ import annotations

import re
import stat
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class StoreSettings(BaseSettings):
    """Where state lives: NETOPSAI_HOME holds the database, checkpoints and config."""

    model_config = SettingsConfigDict(extra="ignore")

    netopsai_home: Path = Field(default=Path("~/.netopsai"))
    database_url: str | None = None

    @property
    def home(self) -> Path:
        return self.netopsai_home.expanduser()

    @property
    def url(self) -> str:
        return self.database_url or f"sqlite:///{self.home / 'netopsai.db'}"

    @property
    def sqlite_path(self) -> Path | None:
        """The database file when the store is the default SQLite file."""
        url = self.url
        return Path(url.removeprefix("sqlite:///")) if url.startswith("sqlite:///") else None


class UiSettings(BaseSettings):
    """The web app's (`netopsai serve`): NETOPSAI_UI_USERS, the users file that turns login on;
    NETOPSAI_UI_ALLOWED_HOSTS, the names it answers to besides localhost, 127.0.0.1 and [::1]
    ("ops.example.com,10.0.0.5"): a request naming any other Host is refused, so a page that
    rebinds its own name to this server's address gets nothing."""

    model_config = SettingsConfigDict(env_prefix="NETOPSAI_UI_", extra="ignore")

    users: str | None = None
    allowed_hosts: Annotated[list[str], NoDecode] = Field(default_factory=list)

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [v for v in re.split(r"[\s,]+", value) if v]
        return value


def private_dir(path: Path) -> Path:
    """Create NETOPSAI_HOME closed to other users (0700): it holds the store and every
    conversation. An existing folder is left as it is: `config check` reports one that is open."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def open_to_others(home: Path) -> list[str]:
    """NETOPSAI_HOME, when users other than its owner can enter or read it, with the command
    that closes it (the files inside are then out of their reach whatever their modes)."""
    if not home.is_dir():
        return []
    mode = stat.S_IMODE(home.stat().st_mode)
    if not mode & 0o077:
        return []
    return [f"{home} is open to other users (mode {mode:o}); it holds the store and every "
            f"conversation: chmod 700 {home}"]
