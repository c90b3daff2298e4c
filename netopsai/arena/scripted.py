"""A scripted chat model for counting prompt tokens per diagnosis with no real LLM.

It plays the part a model plays in the copilot: asked to plan with no evidence yet, it calls
the traceroute for the question's two addresses; asked anything else (the summary), it writes
one sentence citing every evidence id it was shown (so its citations are as complete as the
evidence; the figures it is for are the prompt tokens). It reports no usage, so the tokens
the copilot records are its own estimate of what it sent (netopsai.copilot.llm.usage)."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

IP = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")
LISTED = re.compile(r"^\[(E\d+)\] ", re.M)  # an evidence entry of the prompt's evidence block
NO_EVIDENCE = "Evidence gathered so far: none."


class ScriptedChat(BaseChatModel):
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "netopsai-arena-scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.calls += 1
        last = messages[-1].text if messages else ""
        ips = IP.findall(last.split("\n", 1)[0])
        if NO_EVIDENCE in last and len(ips) >= 2:
            msg = AIMessage(content="", tool_calls=[{
                "name": "traceroute", "args": {"src": ips[0], "dst": ips[1]},
                "id": f"call_{self.calls}", "type": "tool_call"}])
        else:
            ids = list(dict.fromkeys(LISTED.findall("\n".join(m.text for m in messages)))) or ["E1"]
            msg = AIMessage(content="The diagnosis follows from the traceroute and the checks on "
                                    "the path " + "".join(f"[{i}]" for i in ids) + ".")
        return ChatResult(generations=[ChatGeneration(message=msg)])
