"""The base of every config section."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Section(BaseModel):
    """A config section: unknown keys are errors (a typo must not silently fall back)."""

    model_config = ConfigDict(extra="forbid")
