"""The chat model: settings from the environment (NETOPSAI_LLM_*) and the ChatOpenAI factory.
Any OpenAI-compatible endpoint works; with no model configured the copilot runs offline
(docs/architecture.md, "Principles"). Calling it and token accounting are common/chat.py's (the
planner and the diagnosis call the model they are handed through it), re-exported here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

# calling a model and counting its tokens, one home for every room (the copilot's callers import
# them from here as they always have)
from netopsai.common.chat import (
    CHARS_PER_TOKEN,
    ModelError,
    Usage,
    estimate_tokens,
    invoke,
    message_text,
    scrub,
    secrets_of,
    usage,
)

if TYPE_CHECKING:  # typing only: langchain_openai (the openai SDK) costs ~1 s at start-up, and
    # every `netopsai ask` imports this module to learn whether a model is configured at all
    from langchain_openai import ChatOpenAI

__all__ = ["CHARS_PER_TOKEN", "NO_KEY", "LLMSettings", "ModelError", "Usage", "configured",
           "estimate_tokens", "invoke", "make_chat_model", "message_text", "scrub", "secrets_of",
           "usage"]

NO_KEY = "unused"  # local servers take any key, but the openai client refuses none


class LLMSettings(BaseSettings):
    """NETOPSAI_LLM_MODEL, _BASE_URL, _API_KEY, _TIMEOUT, _TEMPERATURE, _MAX_TOKENS."""

    model_config = SettingsConfigDict(env_prefix="NETOPSAI_LLM_", extra="ignore")

    model: str | None = Field(default=None, description="Model name, e.g. gpt-4o-mini")
    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint, .../v1")
    api_key: SecretStr | None = None
    timeout: float = Field(default=30.0, gt=0, description="Seconds per request")
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_tokens: int = Field(default=1024, gt=0, description=(
        "Completion tokens per request, sent as max_tokens: local OpenAI-compatible servers "
        "(llama.cpp, vLLM) ignore the newer max_completion_tokens, and a small model left "
        "unbounded writes until its context is full"))


def configured(settings: LLMSettings | None = None) -> bool:
    """A model is named and there is somewhere to send it: a base URL or an API key (for the
    default OpenAI endpoint)."""
    s = settings if settings is not None else LLMSettings()
    return bool(s.model) and (bool(s.base_url) or s.api_key is not None)


def make_chat_model(settings: LLMSettings | None = None) -> ChatOpenAI:
    """ChatOpenAI from settings. No retries: a failing call falls back to the offline planner
    for the turn instead of making the on-call wait."""
    from langchain_openai import ChatOpenAI

    s = settings if settings is not None else LLMSettings()
    if not configured(s):
        raise ValueError("no LLM configured: set NETOPSAI_LLM_MODEL and NETOPSAI_LLM_BASE_URL "
                         "or NETOPSAI_LLM_API_KEY")
    key = s.api_key if s.api_key is not None else SecretStr(NO_KEY)
    return ChatOpenAI(model=s.model or "", base_url=s.base_url, api_key=key, timeout=s.timeout,
                      temperature=s.temperature, max_retries=0,
                      extra_body={"max_tokens": s.max_tokens})
