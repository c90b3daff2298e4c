"""The HTTP API's callers (issue 23, Low): a token name cannot carry ':' or control characters
(its threads are kept as api:NAME:THREAD, so `a:b` could reach `a`'s threads), and a batch job
belongs to the token that submitted it — another token is told it does not exist, each token
runs a bounded number at once, and a job can be cancelled."""

from __future__ import annotations

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
from netopsai.common.errors import NetopsError
from netopsai.copilot.batch import runner
from netopsai.copilot.service import Copilot
from netopsai.store.engine import engine_for
from tests.cli_helpers import run_cli

PAIRS = "\n".join(f"10.1.3.20,10.2.1.{40 + i % 20}" for i in range(200))


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    return engine_for(f"sqlite:///{tmp_path / 'tokens.db'}")


@pytest.mark.parametrize("name", ["a:b", "ide:alice", "bad\nname", "tab\there", "bell\x07", "x" * 65])
def test_a_token_name_that_could_collide_or_forge_is_refused(engine: Engine, name: str) -> None:
    with pytest.raises(NetopsError) as err:
        tokens.create(engine, name, ["read"])
    assert "\n" not in str(err.value) and "token name" in str(err.value)
    assert tokens.listing(engine) == []


def test_a_legacy_token_with_a_colon_is_no_longer_honoured(engine: Engine) -> None:
    good = tokens.create(engine, "ide-alice", ["read"])
    assert tokens.verify(engine, good) is not None
    from sqlmodel import Session, select

    from netopsai.store.tables import ApiToken

    with Session(engine) as s:  # as an older version could have made it
        row = s.exec(select(ApiToken)).one()
        row.name = "ide:alice"
        s.add(row)
        s.commit()
    assert tokens.verify(engine, good) is None


def test_the_cli_refuses_a_colon_in_one_line(tmp_path: Path) -> None:
    done = run_cli(tmp_path / "home", "tokens", "create", "a:b")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "cannot contain ':'" in done.stderr


@pytest.fixture
def api(backends: Backends, engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """The API in process; batch pairs are checked one at a time, slowly, so jobs stay running
    while the test looks at them."""
    real = runner.check_pair

    def slow(*args: Any) -> Any:
        time.sleep(0.05)
        return real(*args)
    monkeypatch.setattr(runner, "check_pair", slow)
    monkeypatch.setattr(api_jobs, "BatchChecker",
                        lambda b, concurrency: runner.BatchChecker(b, concurrency=1, processes=False))
    made = {name: tokens.create(engine, name, ["read"]) for name in ("alice", "mallory")}
    with TestClient(build_api(Copilot(backends), engine)) as client:
        yield {"client": client, "tokens": made}


def call(api: dict[str, Any], who: str, method: str, path: str, **kw: Any) -> Any:
    headers = {"Authorization": f"Bearer {api['tokens'][who]}"}
    return api["client"].request(method, path, headers=headers, **kw)


def test_another_token_gets_404_for_a_job(api: dict[str, Any]) -> None:
    job = call(api, "alice", "POST", "/api/batch", json={"pairs": PAIRS}).json()["job"]
    assert call(api, "alice", "GET", f"/api/batch/{job}").status_code == 200
    for method, path in (("GET", f"/api/batch/{job}"), ("GET", f"/api/batch/{job}/csv"),
                         ("DELETE", f"/api/batch/{job}")):
        theirs = call(api, "mallory", method, path)
        assert theirs.status_code == 404, (method, path)
        # the same answer as for a job that never existed: ids do not leak
        assert theirs.json()["error"] == call(api, "mallory", method, path.replace(job, "nope"))\
            .json()["error"].replace("nope", job)
    assert call(api, "alice", "GET", f"/api/batch/{job}").json()["state"] == "running"  # untouched
    call(api, "alice", "DELETE", f"/api/batch/{job}")


def test_running_jobs_are_capped_per_token_and_cancel_frees_a_slot(api: dict[str, Any]) -> None:
    started = [call(api, "alice", "POST", "/api/batch", json={"pairs": PAIRS})
               for _ in range(api_jobs.PER_CALLER)]
    assert [r.status_code for r in started] == [202] * api_jobs.PER_CALLER
    over = call(api, "alice", "POST", "/api/batch", json={"pairs": PAIRS})
    assert over.status_code == 429 and "at most" in over.json()["error"]
    theirs = call(api, "mallory", "POST", "/api/batch", json={"pairs": PAIRS})
    assert theirs.status_code == 202  # another token's cap is its own
    first = started[0].json()["job"]
    cancelled = call(api, "alice", "DELETE", f"/api/batch/{first}").json()
    assert cancelled["state"] in ("stopping", "stopped")
    deadline = time.monotonic() + 30
    while call(api, "alice", "GET", f"/api/batch/{first}").json()["state"] != "stopped":
        assert time.monotonic() < deadline, "a cancelled job did not stop"
        time.sleep(0.05)
    status = call(api, "alice", "GET", f"/api/batch/{first}").json()
    assert status["done"] < status["total"]  # stopped early; its CSV keeps what was checked
    csv = call(api, "alice", "GET", f"/api/batch/{first}/csv").text.splitlines()
    assert len(csv) == 1 + status["done"]
    again = call(api, "alice", "POST", "/api/batch", json={"pairs": PAIRS})
    assert again.status_code == 202
    running = [("alice", r.json()["job"]) for r in (*started[1:], again)]
    for who, job in [*running, ("mallory", theirs.json()["job"])]:  # leave nothing running
        assert call(api, who, "DELETE", f"/api/batch/{job}").status_code == 200
