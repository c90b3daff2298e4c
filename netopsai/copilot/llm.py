"""The chat model: settings from the environment (NETOPSAI_LLM_*), the ChatOpenAI factory, and
token accounting. Any OpenAI-compatible endpoint works; with no model configured the copilot
runs offline (docs/architecture.md, "Principles")."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

if TYPE_CHECKING:  # typing only: langchain_openai (the openai SDK) costs ~1 s at start-up, and
    # every `netopsai ask` imports this module to learn whether a model is configured at all
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_openai import ChatOpenAI

CHARS_PER_TOKEN = 4  # the usual rough figure for English and JSON with BPE tokenizers
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


class Usage(TypedDict):
    prompt: int
    completion: int
    estimated: bool  # True when the response carried no usage and the figures are guessed


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


class ModelError(Exception):
    """A model call failed. Its message is one line with every secret replaced by ***: it is
    shown in answers, steps and logs, and kept in the thread. `kind` is the failure's class."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def secrets_of(llm: Any) -> list[str]:
    """The model's SecretStr fields (ChatOpenAI's API key), looked for through bindings
    (`bind_tools` wraps the model)."""
    found: list[str] = []
    node = llm
    while node is not None:
        found += [v.get_secret_value() for v in vars(node).values() if isinstance(v, SecretStr)]
        node = getattr(node, "bound", None)
    return [v for v in found if len(v) >= 4]  # scrubbing "x" would mangle every message


def scrub(text: str, secrets: Sequence[str], limit: int = 300) -> str:
    """One line, at most `limit` characters, no secret in it: exception texts may echo a
    request, a header or the configuration."""
    line = " ".join(text.split())
    for secret in secrets:
        line = line.replace(secret, "***")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def invoke(llm: Any, messages: Sequence[BaseMessage], secrets: Sequence[str] | None = None,
           limit: int = 300) -> Any:
    """Every model call goes through here (planner, coder, summarizer, ranker): a failure of
    any kind comes back as ModelError with its text scrubbed, never the raw exception."""
    try:
        return llm.invoke(list(messages))
    except Exception as exc:  # HTTP errors, timeouts, bad replies, a fake out of replies ...
        hidden = secrets if secrets is not None else secrets_of(llm)
        kind = type(exc).__name__
        raise ModelError(scrub(f"{kind}: {exc}", hidden, limit), kind) from None


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN) if text else 0  # ceiling: a short text is a token


def message_text(msg: BaseMessage) -> str:
    """What a message sends: its content and its tool calls' names and arguments."""
    calls = getattr(msg, "tool_calls", None) or []
    return msg.text + "".join(c["name"] + json.dumps(c["args"], default=str) for c in calls)


def usage(msg: AIMessage, prompt: str | Sequence[BaseMessage] = "") -> Usage:
    """Tokens of one LLM call: from the response's usage_metadata, else estimated from the
    prompt sent and the reply (~4 characters a token) and flagged as estimated."""
    meta = msg.usage_metadata
    if meta is not None:
        return Usage(prompt=meta["input_tokens"], completion=meta["output_tokens"], estimated=False)
    sent = prompt if isinstance(prompt, str) else "".join(message_text(m) for m in prompt)
    return Usage(prompt=estimate_tokens(sent), completion=estimate_tokens(message_text(msg)),
                 estimated=True)
