"""Settings read from the environment (NETOPSAI_HOME, DATABASE_URL)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


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
