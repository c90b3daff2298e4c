"""Shared fixtures: small labs in temporary stores, at a fixed clock so tests are repeatable."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import tempfile
import weakref
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, event

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.lab.manage import init_lab
from netopsai.store.engine import engine_for

# Started as a background job (`cmd &` in a script, nohup), the suite inherits SIGINT ignored,
# and an ignored signal stays ignored across exec: every test that stops a `netopsai ingest` or
# `poll` with Ctrl-C would wait out its timeout (14 did, in a run started so). A handled signal
# is reset to the default in a child, so the children get Ctrl-C as an on-call's terminal sends it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)

# The suite never reads or writes the user's own state (issue 27 item 7): a machine where the
# web app was used keeps ~/.netopsai/incidents.db, and the diagnosis recalled its incidents in
# tests that expect none. Every test process (each xdist worker imports this file) gets a home
# of its own before any netopsai setting is read; tests that need another set it themselves.
SUITE_HOME = Path(tempfile.mkdtemp(prefix="netopsai-suite-home-"))
os.environ["NETOPSAI_HOME"] = str(SUITE_HOME)
atexit.register(shutil.rmtree, SUITE_HOME, True)


@pytest.fixture(autouse=True)
def _suite_home_kept() -> Iterator[None]:
    """A test that points NETOPSAI_HOME elsewhere (os.environ, not monkeypatch) leaves the
    suite's own home behind it for the next test."""
    yield
    os.environ["NETOPSAI_HOME"] = str(SUITE_HOME)


# Stores a test opened (its make_lab labs, a CLI's store in a tmp home, a fresh PostgreSQL
# database) keep their pooled connections (3 descriptors per SQLite one, a socket per PostgreSQL
# one) while caches hold the engine (engine_for's, the lab's load_state/router_for): a worker
# running thousands of tests passed 1,024 descriptors. After each test, every engine connected
# to during it gives its pool back; the engine itself still works (it reconnects when next
# used), so shared labs are unaffected.
_CONNECTED: weakref.WeakSet[Engine] = weakref.WeakSet()
event.listen(Engine, "engine_connect", lambda conn: _CONNECTED.add(conn.engine))


@pytest.fixture(autouse=True)
def _stores_closed() -> Iterator[None]:
    yield
    for engine in list(_CONNECTED):  # an in-memory SQLite lives in its pool: kept
        if not (engine.url.get_backend_name() == "sqlite" and engine.url.database in (None, "", ":memory:")):
            engine.dispose()
    _CONNECTED.clear()


def new_lab(path: Path, scale: str = "small", seed: int = 7) -> Engine:
    engine = engine_for(f"sqlite:///{path}")
    init_lab(engine, "default", scale, seed, CLOCK)
    return engine


@pytest.fixture(scope="session")
def lab_engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    """A healthy small lab shared by read-only tests: never inject into it."""
    return new_lab(tmp_path_factory.mktemp("lab") / "netopsai.db")


@pytest.fixture(scope="session")
def backends(lab_engine: Engine) -> Backends:
    return lab_backends(lab_engine)


@pytest.fixture
def make_lab(tmp_path: Path) -> Callable[..., Engine]:
    """A fresh small lab of the test's own, for tests that inject faults."""
    counter = iter(range(1000))

    def make(scale: str = "small", seed: int = 7) -> Engine:
        return new_lab(tmp_path / f"lab{next(counter)}.db", scale, seed)
    return make
