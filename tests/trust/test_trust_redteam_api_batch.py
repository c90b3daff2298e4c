"""`POST /api/batch` refuses before it parses (red team 2, B): a 38 MB body used to be parsed
whole (15.7 s, 735 MB) before the token's running-job cap or MAX_PAIRS was looked at. Now the
cap is checked before the body is read and the lines are counted in the raw bytes before any
of it is parsed; each refusal is one line."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from netopsai.api import jobs as api_jobs
from netopsai.api import tokens
from netopsai.api.http import build_api
from netopsai.backends.base import Backends
from netopsai.copilot.batch import runner
from netopsai.copilot.service import Copilot
from netopsai.store.engine import engine_for

PAIRS = "\n".join(f"10.1.3.20,10.2.1.{40 + i % 20}" for i in range(200))


@pytest.fixture
def api(backends: Backends, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    engine: Engine = engine_for(f"sqlite:///{tmp_path / 'tokens.db'}")
    real = runner.check_pair

    def slow(*args: Any) -> Any:
        time.sleep(0.05)
        return real(*args)
    monkeypatch.setattr(runner, "check_pair", slow)
    monkeypatch.setattr(api_jobs, "BatchChecker",
                        lambda b, concurrency: runner.BatchChecker(b, concurrency=1, processes=False))
    parsed: list[int] = []
    real_parse = api_jobs.parse_input

    def counting(text: str, source: str | None) -> Any:
        parsed.append(len(text))
        return real_parse(text, source)
    monkeypatch.setattr(api_jobs, "parse_input", counting)
    token = tokens.create(engine, "alice", ["read"])
    with TestClient(build_api(Copilot(backends), engine)) as client:
        client.headers["Authorization"] = f"Bearer {token}"
        yield client, parsed


def test_too_many_lines_are_refused_before_parsing(api: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    client, parsed = api
    monkeypatch.setattr(api_jobs, "MAX_PAIRS", 1000)
    big = "\n".join("10.1.3.20,10.2.1.40" for _ in range(5000))
    t0 = time.monotonic()
    r = client.post("/api/batch", json={"pairs": big})
    assert r.status_code == 400 and "1000 pairs" in r.json()["error"]
    assert "\n" not in r.json()["error"] and parsed == []
    # lines broken by what str.splitlines also breaks at are counted too (not only \n)
    r = client.post("/api/batch", json={"pairs": "\u2028".join(big.splitlines())})
    assert r.status_code == 400 and parsed == []
    assert time.monotonic() - t0 < 10
    ok = client.post("/api/batch", json={"pairs": PAIRS})
    assert ok.status_code == 202, ok.text
    client.delete(f"/api/batch/{ok.json()['job']}")


def test_the_tokens_cap_is_checked_before_the_body_is_parsed(api: Any) -> None:
    client, parsed = api
    started = [client.post("/api/batch", json={"pairs": PAIRS}) for _ in range(api_jobs.PER_CALLER)]
    assert [r.status_code for r in started] == [202] * api_jobs.PER_CALLER
    parsed.clear()
    body = json.dumps({"pairs": "\n".join("10.1.3.20,10.2.1.40" for _ in range(200_000))})
    over = client.post("/api/batch", content=body, headers={"Content-Type": "application/json"})
    assert over.status_code == 429 and "at most" in over.json()["error"]
    assert "\n" not in over.json()["error"] and parsed == []
    bad = client.post("/api/batch", content=b"{not json")
    assert bad.status_code == 429  # the cap first, whatever the body
    for r in started:
        client.delete(f"/api/batch/{r.json()['job']}")


def test_a_malformed_body_is_one_line(api: Any) -> None:
    client, _ = api
    for body in (b"{not json", b'{"source": "x"}', b'{"pairs": 3}'):
        r = client.post("/api/batch", content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and "\n" not in r.json()["error"], r.text
