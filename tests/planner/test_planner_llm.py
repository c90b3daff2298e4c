"""The LLM planner over real HTTP: ChatOpenAI against the scripted server in fake_openai.py on
loopback. Covers tool calls, validation round trips, every failure falling back, token
accounting, what goes into the prompt, and that the API key never leaks."""

from __future__ import annotations

import json
import logging
import socket
from datetime import UTC, datetime
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from pydantic import SecretStr

from netopsai.copilot.evidence import Evidence
from netopsai.copilot.llm import LLMSettings, configured, estimate_tokens, make_chat_model, usage
from netopsai.planner import ToolCall
from netopsai.planner.llm import NOT_RUN, LLMPlanner
from netopsai.tools.registry import REGISTRY
from netopsai_testkit.fake_openai import (  # noqa: F401  (registers the fake_openai fixture)
    FakeOpenAI,
    Reply,
    call,
    calls,
    fake_openai_fixture,
    garbage,
    slow,
    status,
    text,
)

CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
KEY = "sk-netopsai-TEST-7f3a9c2e51"
TRACE = {"src": "10.1.3.20", "dst": "10.2.1.40"}
BAD_TRACE = {"src": "10.1.3.999", "dst": "10.2.1.40"}


def planner(server: FakeOpenAI, **kwargs: Any) -> LLMPlanner:
    return LLMPlanner(server.chat_model(**kwargs))


def sent_messages(server: FakeOpenAI, n: int = -1) -> list[dict[str, Any]]:
    return server.requests[n]["messages"]


def test_single_tool_call_is_validated_and_request_carries_every_schema(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(calls(call("traceroute", TRACE)))
    d = planner(fake_openai).plan("10.1.3.20 to 10.2.1.40 not communicating", CLOCK)
    assert d.fallback_reason is None
    assert d.calls == [ToolCall("traceroute", TRACE)]
    assert (d.done, d.llm_calls) == (False, 1)
    sent = {t["function"]["name"]: t["function"] for t in fake_openai.requests[0]["tools"]}
    assert set(sent) == set(REGISTRY)
    for name, t in REGISTRY.items():
        assert sent[name]["description"] == t.schema()["description"]
        assert sent[name]["parameters"] == t.schema()["parameters"]


def test_parallel_tool_calls_keep_order_and_normalise_arguments(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(calls(call("traceroute", {"src": " 10.1.3.20 ", "dst": "10.2.1.40"}),
                             call("changelog", {"devices": ["dc1-spine-02"], "window": "1h"}),
                             call("alarms", {"category": "dci", "window": "2h"})))
    d = planner(fake_openai).plan("why is 10.1.3.20 not reaching 10.2.1.40?", CLOCK)
    assert d.fallback_reason is None
    assert [c.tool for c in d.calls] == ["traceroute", "changelog", "alarms"]
    assert d.calls[0].args == TRACE  # the IPv4 type strips the blanks
    assert d.calls[2].args == {"category": "dci", "window": "2h"}  # no defaults filled in


def test_bad_ip_goes_back_once_with_the_error_then_corrected(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(calls(call("traceroute", BAD_TRACE)), calls(call("traceroute", TRACE)))
    d = planner(fake_openai).plan("trace 10.1.3.999 to 10.2.1.40", CLOCK)
    assert d.fallback_reason is None
    assert d.calls == [ToolCall("traceroute", TRACE)]
    assert d.llm_calls == 2
    assistant, reply = sent_messages(fake_openai)[-2:]
    assert assistant["tool_calls"][0]["function"]["name"] == "traceroute"
    assert reply["role"] == "tool"
    assert reply["tool_call_id"] == assistant["tool_calls"][0]["id"]
    assert "src" in reply["content"] and "not a valid IPv4 address" in reply["content"]
    assert "\n" not in reply["content"]


def test_every_call_of_a_bad_turn_gets_a_tool_reply(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(calls(call("alarms", {"window": "1h"}), call("traceroute", BAD_TRACE)),
                       calls(call("alarms", {"window": "1h"}), call("traceroute", TRACE)))
    d = planner(fake_openai).plan("q", CLOCK)
    assert [c.tool for c in d.calls] == ["alarms", "traceroute"]
    replies = [m for m in sent_messages(fake_openai) if m["role"] == "tool"]
    assert [r["content"] for r in replies][0] == NOT_RUN  # the API needs a reply for each call
    assert "not a valid IPv4 address" in replies[1]["content"]


def test_malformed_twice_falls_back_after_one_retry(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(calls(call("traceroute", BAD_TRACE)), calls(call("traceroute", {"src": "x"})),
                       text("never asked for"))
    d = planner(fake_openai).plan("trace", CLOCK)
    assert d.fallback_reason is not None and d.fallback_reason.startswith("invalid tool call: traceroute")
    assert (d.calls, d.done, d.llm_calls) == ([], False, 2)
    assert len(fake_openai.requests) == 2 and fake_openai.pending == 1


def test_arguments_that_are_not_json_go_back_once(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(calls(call("traceroute", "src=10.1.3.20 dst=10.2.1.40")),
                       calls(call("traceroute", TRACE)))
    d = planner(fake_openai).plan("trace", CLOCK)
    assert d.calls == [ToolCall("traceroute", TRACE)]
    assert "not valid JSON" in sent_messages(fake_openai)[-1]["content"]


def test_unknown_tool_is_sent_back_once_then_falls_back(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(calls(call("ping", {"dst": "10.2.1.40"})), calls(call("ping", {"dst": "10.2.1.40"})))
    d = planner(fake_openai).plan("ping 10.2.1.40", CLOCK)
    assert d.fallback_reason is not None
    assert d.fallback_reason.startswith("invalid tool call: unknown tool 'ping'")
    feedback = sent_messages(fake_openai)[-1]
    assert feedback["role"] == "tool" and "unknown tool 'ping'" in feedback["content"]
    assert len(fake_openai.requests) == 2


@pytest.mark.parametrize("reply, expect", [
    (status(500), "500"),
    (status(429, "rate limited"), "429"),
    (garbage(), "LLM call failed"),
    (Reply(raw=b'{"object": "chat.completion", "choices": null}'), "LLM call failed"),
])
def test_model_failures_fall_back_with_a_one_line_reason(fake_openai: FakeOpenAI, reply: Reply,
                                                         expect: str) -> None:
    fake_openai.script(reply)
    d = planner(fake_openai).plan("any DCI alarms in the last 2h?", CLOCK)
    assert d.fallback_reason is not None and expect in d.fallback_reason
    assert "\n" not in d.fallback_reason and len(d.fallback_reason) <= 240
    assert (d.calls, d.done, d.llm_calls) == ([], False, 1)


def test_garbage_stream_falls_back(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(garbage(b"data: {broken\n\n"))
    d = planner(fake_openai, streaming=True).plan("q", CLOCK)
    assert d.fallback_reason is not None and d.fallback_reason.startswith("LLM call failed")


def test_timeout_falls_back(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(slow(30, calls(call("traceroute", TRACE))))
    d = planner(fake_openai, timeout=1).plan("trace", CLOCK)
    assert d.fallback_reason is not None and "timed out" in d.fallback_reason.lower()
    assert d.calls == []


def test_connection_refused_falls_back() -> None:
    with socket.socket() as s:  # a loopback port that nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(model="m", base_url=f"http://127.0.0.1:{port}/v1", api_key=SecretStr(KEY), max_retries=0,
                     timeout=5)
    d = LLMPlanner(llm).plan("q", CLOCK)
    assert d.fallback_reason is not None and "connection" in d.fallback_reason.lower()
    assert KEY not in d.fallback_reason


def test_plain_answer_is_done_with_tokens_from_usage(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(text("10.1.3.20 reaches 10.2.1.40 in 5 hops [E1].", usage=(321, 12)))
    d = planner(fake_openai).plan("is it fixed?", CLOCK)
    assert (d.done, d.calls, d.fallback_reason) == (True, [], None)
    assert d.text == "10.1.3.20 reaches 10.2.1.40 in 5 hops [E1]."
    assert d.tokens == {"prompt": 321, "completion": 12} and not d.tokens_estimated


def test_tokens_add_up_over_the_retry(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(calls(call("traceroute", BAD_TRACE), usage=(100, 10)),
                       calls(call("traceroute", TRACE), usage=(150, 20)))
    d = planner(fake_openai).plan("trace", CLOCK)
    assert d.tokens == {"prompt": 250, "completion": 30} and d.llm_calls == 2


def test_tokens_are_estimated_and_flagged_without_usage(fake_openai: FakeOpenAI) -> None:
    answer = "Nothing is wrong on that path [E1]."
    fake_openai.script(text(answer, usage=None))
    d = planner(fake_openai).plan("q", CLOCK)
    sent = json.dumps(fake_openai.requests[0]["messages"]) + json.dumps(fake_openai.requests[0]["tools"])
    assert d.tokens_estimated
    assert d.tokens["completion"] == estimate_tokens(answer)
    assert len(sent) / 6 < d.tokens["prompt"] < len(sent) / 3  # prompt and schemas, ~4 chars each


def test_usage_helper_reads_metadata_or_estimates() -> None:
    real = AIMessage("hi", usage_metadata={"input_tokens": 7, "output_tokens": 3, "total_tokens": 10})
    assert usage(real) == {"prompt": 7, "completion": 3, "estimated": False}
    guessed = usage(AIMessage("12345678"), [HumanMessage("x" * 40)])
    assert guessed == {"prompt": 10, "completion": 2, "estimated": True}


def test_streaming_tool_calls_and_usage(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(calls(call("traceroute", TRACE), call("alarms", {"window": "1h"}), usage=(40, 9)))
    d = planner(fake_openai, streaming=True, stream_usage=True).plan("trace", CLOCK)
    assert fake_openai.requests[0]["stream"] is True
    assert d.calls == [ToolCall("traceroute", TRACE), ToolCall("alarms", {"window": "1h"})]
    assert d.tokens == {"prompt": 40, "completion": 9} and not d.tokens_estimated


def test_evidence_goes_in_as_summary_and_a_five_row_preview(fake_openai: FakeOpenAI) -> None:
    rows = [{"hop": i, "device": f"marker-row-{i:02d}"} for i in range(50)]
    ev = Evidence(id="E3", tool="traceroute", args=TRACE, summary="Traceroute stopped at dc1-leaf-03.",
                  columns=["hop", "device"], rows=rows)
    fake_openai.script(text("It stops at dc1-leaf-03 [E3]."))
    planner(fake_openai).plan("where does it stop?", CLOCK, evidence=[ev])
    ask = sent_messages(fake_openai)[-1]["content"]
    assert "[E3] traceroute" in ask and "Traceroute stopped at dc1-leaf-03." in ask
    assert all(f"marker-row-{i:02d}" in ask for i in range(5))
    assert "marker-row-05" not in ask and "marker-row-49" not in ask
    assert "rows: 50 (first 5)" in ask


def test_history_goes_in_as_plain_turns(fake_openai: FakeOpenAI) -> None:
    history = [HumanMessage("trace 10.1.3.20 to 10.2.1.40"),
               AIMessage("", tool_calls=[{"name": "traceroute", "args": TRACE, "id": "c1"}]),
               ToolMessage("hops...", tool_call_id="c1"),
               AIMessage("It reaches in 5 hops [E1].")]
    fake_openai.script(calls(call("metadata", {"query": "upstream", "ip": "10.1.3.20"})))
    d = planner(fake_openai).plan("and its upstream switch?", CLOCK, history=history)
    assert d.calls == [ToolCall("metadata", {"query": "upstream", "ip": "10.1.3.20"})]
    msgs = sent_messages(fake_openai)
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]
    assert msgs[2]["content"] == "It reaches in 5 hops [E1]." and "tool_calls" not in msgs[2]


def test_system_prompt_comes_from_the_file_with_clock_and_tools(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(text("ok"))
    planner(fake_openai).plan("q", CLOCK)
    system = sent_messages(fake_openai)[0]
    assert system["role"] == "system"
    assert "2025-11-04T20:00+00:00" in system["content"] and "read-only" in system["content"]
    assert all(f"- {name}:" in system["content"] for name in REGISTRY)
    assert "$" not in system["content"]


def test_empty_reply_falls_back(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(text(""))
    d = planner(fake_openai).plan("q", CLOCK)
    assert d.fallback_reason == "LLM returned neither tool calls nor an answer"


def test_api_key_never_in_bodies_reasons_or_logs(fake_openai: FakeOpenAI,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    # a proxy that quotes the credential back in its error: the exception text carries the key
    fake_openai.script(calls(call("traceroute", TRACE)), status(401, f"invalid key Bearer {KEY}"))
    p = LLMPlanner(fake_openai.chat_model(api_key=KEY))
    assert p.plan("trace", CLOCK).fallback_reason is None
    d = p.plan("trace", CLOCK)
    assert d.fallback_reason is not None and "401" in d.fallback_reason and "***" in d.fallback_reason
    assert KEY not in d.fallback_reason
    assert all(h.get("authorization") == f"Bearer {KEY}" for h in fake_openai.headers)  # it was used
    assert KEY not in json.dumps(fake_openai.requests)
    assert KEY not in caplog.text
    assert "falls back" in caplog.text  # the fallback was logged, scrubbed


def test_settings_from_env_make_a_working_model(fake_openai: FakeOpenAI,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_LLM_MODEL", "fake-model")
    monkeypatch.setenv("NETOPSAI_LLM_BASE_URL", fake_openai.url)
    monkeypatch.setenv("NETOPSAI_LLM_API_KEY", KEY)
    monkeypatch.setenv("NETOPSAI_LLM_TIMEOUT", "2.5")
    s = LLMSettings()
    assert configured(s) and KEY not in repr(s) and isinstance(s.api_key, SecretStr)
    llm = make_chat_model(s)
    assert (llm.request_timeout, llm.max_retries, llm.temperature) == (2.5, 0, 0.0)
    fake_openai.script(text("ok"))
    assert LLMPlanner(llm).plan("q", CLOCK).done
    assert fake_openai.headers[0]["authorization"] == f"Bearer {KEY}"
    assert fake_openai.requests[0]["model"] == "fake-model"


def test_not_configured_without_a_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("MODEL", "BASE_URL", "API_KEY"):
        monkeypatch.delenv(f"NETOPSAI_LLM_{var}", raising=False)
    assert not configured()
    assert not configured(LLMSettings(base_url="http://127.0.0.1:1/v1"))
    assert configured(LLMSettings(model="m", base_url="http://127.0.0.1:1/v1"))
    with pytest.raises(ValueError, match="no LLM configured"):
        make_chat_model(LLMSettings())
