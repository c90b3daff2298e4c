"""Calling a chat model, whoever holds it (issue 27 item 6: the copilot, the LLM planner and the
diagnosis' ranker all call one, and the two below the copilot must not import it): every call
through `invoke` (a failure is a one-line ModelError with every secret scrubbed), and token
accounting (`usage`: the reply's own figures, else an estimate). The model itself is any object
with `invoke(messages)`, built from settings by copilot/llm.py and passed down."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from pydantic import SecretStr

if TYPE_CHECKING:  # typing only: the messages' module is not needed to call a model
    from langchain_core.messages import AIMessage, BaseMessage

CHARS_PER_TOKEN = 4  # the usual rough figure for English and JSON with BPE tokenizers


class Usage(TypedDict):
    prompt: int
    completion: int
    estimated: bool  # True when the response carried no usage and the figures are guessed


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
