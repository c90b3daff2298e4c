"""Asks running at once are bounded (red team 2, A): callers that send a question and leave at
once used to leave each answer running with nothing counting them (six grew the API to 2.5 GB).
Now each token runs at most NETOPSAI_HTTP_MAX_ASKS_PER_TOKEN asks at once (429 past it) and the
server NETOPSAI_HTTP_MAX_ASKS (503), refused before any work, and a slot is held until the
work's thread ends — also for MCP tool calls."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine

from netopsai.api import mcp_server, tokens
from netopsai.api.http import build_api
from netopsai.api.limits import Busy, Slots, Work
from netopsai.api.mcp_server import build_server
from netopsai.backends.base import Backends
from netopsai.copilot.service import Copilot
from netopsai.store.engine import engine_for


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    return engine_for(f"sqlite:///{tmp_path / 'tokens.db'}")


def test_the_extra_ask_is_refused_at_once_and_the_slots_free_again(
        backends: Backends, engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HTTP_MAX_ASKS", "3")
    monkeypatch.setenv("NETOPSAI_HTTP_MAX_ASKS_PER_TOKEN", "2")
    copilot = Copilot(backends)
    gate, started = threading.Event(), threading.Semaphore(0)

    def answer(question: str, *_a: Any, **_k: Any) -> dict[str, Any]:
        started.release()
        gate.wait(30)
        return {"answer": f"ok {question}"}
    monkeypatch.setattr(copilot, "answer", answer)
    made = {n: tokens.create(engine, n, ["read"]) for n in ("alice", "bob")}
    app = build_api(copilot, engine)

    async def run() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            def ask(who: str) -> Any:
                return client.post("/api/ask", json={"question": "why"}, timeout=30,
                                   headers={"Authorization": f"Bearer {made[who]}"})

            async def started_n(n: int) -> None:
                for _ in range(n):
                    assert await asyncio.to_thread(started.acquire, True, 10)

            held = [asyncio.create_task(ask("alice")) for _ in range(2)]
            await started_n(2)
            t0 = time.monotonic()
            mine = await ask("alice")
            assert mine.status_code == 429 and "NETOPSAI_HTTP_MAX_ASKS_PER_TOKEN" in mine.json()["error"]
            held.append(asyncio.create_task(ask("bob")))
            await started_n(1)
            full = await ask("bob")
            assert full.status_code == 503 and "NETOPSAI_HTTP_MAX_ASKS" in full.json()["error"]
            assert time.monotonic() - t0 < 5  # refused at once, not queued
            assert "\n" not in mine.json()["error"] + full.json()["error"]
            assert app.state.slots.running() == 3
            gate.set()
            assert [r.status_code for r in await asyncio.gather(*held)] == [200] * 3
            deadline = time.monotonic() + 10
            while app.state.slots.running():
                assert time.monotonic() < deadline
                await asyncio.sleep(0.02)
            again = await asyncio.gather(ask("alice"), ask("alice"), ask("bob"))
            assert [r.status_code for r in again] == [200] * 3
    asyncio.run(run())


def test_a_slot_is_held_until_the_work_ends_not_until_the_caller_leaves() -> None:
    slots = Slots(total=1, per_caller=1)
    gate = threading.Event()

    async def run() -> None:
        work = Work(lambda stop: iter([gate.wait(10)]), slots.take("a"), budget=30)
        work.stop.set()  # as when the caller went away: the step in progress keeps running
        with pytest.raises(Busy) as busy:
            slots.take("b")
        assert busy.value.status == 503
        gate.set()
        deadline = time.monotonic() + 10
        while slots.running():
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        slots.take("b")()
    asyncio.run(run())


def test_mcp_calls_share_the_cap(backends: Backends, monkeypatch: pytest.MonkeyPatch) -> None:
    import mcp_types as types

    copilot = Copilot(backends)
    gate = threading.Event()

    def answer(question: str, *_a: Any, **_k: Any) -> dict[str, Any]:
        gate.wait(30)
        return {"answer": "ok"}
    monkeypatch.setattr(copilot, "answer", answer)
    slots = Slots(total=1, per_caller=1)
    seen: dict[str, Any] = {}
    monkeypatch.setattr(mcp_server, "Server", lambda _name, **kw: seen.update(kw))
    build_server(copilot, slots)
    handler = seen["on_call_tool"]

    async def run() -> None:
        params = types.CallToolRequestParams(name="diagnose", arguments={"question": "why"})
        first = asyncio.create_task(handler(_Ctx(), params))
        deadline = time.monotonic() + 10
        while not slots.running():
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        busy = await handler(_Ctx(), params)
        assert busy.is_error and "NETOPSAI_HTTP_MAX_ASKS" in busy.content[0].text
        gate.set()
        assert not (await first).is_error
    asyncio.run(run())


class _Ctx:
    request = None
