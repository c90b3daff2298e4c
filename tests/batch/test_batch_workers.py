"""Worker processes of a big lab batch (issue 28 items 3, 4): `netopsai batch` leaves nothing in
its process group when it ends (multiprocessing's resource tracker used to outlive it there);
workers are forked on Linux when the driver runs no other thread (no re-import of the store,
lab and diagnosis), spawned otherwise; and a forked worker opens its own engine instead of the
driver's pooled connections."""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest

from netopsai.copilot.batch import workers
from netopsai.copilot.batch.runner import PROCESS_MIN
from netopsai.copilot.batch.workers import start_method
from netopsai.store.engine import engine_for
from tests.store_helpers import acl_home


def test_fork_only_on_linux_with_no_other_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers.sys, "platform", "linux")
    monkeypatch.setattr(workers.threading, "active_count", lambda: 1)
    assert start_method() == "fork"
    monkeypatch.setattr(workers.threading, "active_count", lambda: 2)  # a server's threads
    assert start_method() == "spawn"
    monkeypatch.setattr(workers.threading, "active_count", lambda: 1)
    monkeypatch.setattr(workers.sys, "platform", "darwin")
    assert start_method() == "spawn"


def _store(tmp_path: Path) -> str:
    """An empty SQLite store's URL."""
    sqlite3.connect(tmp_path / "store.db").close()
    return f"sqlite:///{tmp_path / 'store.db'}"


def _in_forked_worker(target: Callable[[str, Any], None], url: str) -> tuple[int, int]:
    """What `target(url, queue)` reports from a forked child, the child joined."""
    ctx = mp.get_context("fork")
    out: mp.Queue[tuple[int, int]] = ctx.Queue()
    child = ctx.Process(target=target, args=(url, out))
    child.start()
    got = out.get(timeout=120)
    child.join(60)
    out.close()
    out.join_thread()
    return got


def _engine_id_after_init(url: str, out: mp.Queue[tuple[int, int]]) -> None:
    inherited = id(engine_for(url))
    workers.worker_init(url, None)
    out.put((inherited, id(engine_for(url))))


@pytest.mark.skipif(sys.platform != "linux", reason="fork is used on Linux only")
def test_a_forked_worker_opens_its_own_engine(tmp_path: Path) -> None:
    url = _store(tmp_path)
    driver = engine_for(url)
    with driver.connect():  # a pooled connection the child must not use
        pass
    inherited, own = _in_forked_worker(_engine_id_after_init, url)
    assert inherited == id(driver) and own != id(driver)
    driver.dispose()


def _pairs_file(home: Path, n: int) -> Path:
    with sqlite3.connect(home / "netopsai.db") as c:
        ips = [r[0] for r in c.execute("select ip from hostaddress order by ip")]
    pairs = [(a, b) for a in ips for b in ips if a != b][:n]
    assert len(pairs) == n
    path = home / "pairs.csv"
    path.write_text("src,dst\n" + "".join(f"{a},{b}\n" for a, b in pairs))
    return path


def _group(pgid: int) -> list[str]:
    left = []
    for p in psutil.process_iter(["pid", "name"]):
        try:
            if os.getpgid(p.pid) == pgid:
                left.append(f"{p.info['pid']} {p.info['name']}")
        except (ProcessLookupError, psutil.Error):
            continue
    return left


@pytest.mark.integration
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="worker processes need two cores")
def test_batch_leaves_nothing_in_its_process_group(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir(mode=0o700)
    home = acl_home(tmp_path / "home", "workers")
    pairs = _pairs_file(home, PROCESS_MIN)  # big enough for worker processes
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    proc = subprocess.Popen([sys.executable, "-m", "netopsai.cli", "batch", str(pairs), "-o",
                             str(home / "out.csv")], env={**env, "NETOPSAI_HOME": str(home)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # its own process group, as from a shell
    _, err = proc.communicate(timeout=600)
    assert proc.returncode in (0, 1), err
    assert len((home / "out.csv").read_text().splitlines()) == PROCESS_MIN + 1
    time.sleep(0.5)  # what lingers is still there half a second later
    assert _group(proc.pid) == []


def _frozen_after_init(url: str, out: mp.Queue[tuple[int, int]]) -> None:
    before = gc.get_freeze_count()
    workers.worker_init(url, None)
    out.put((before, gc.get_freeze_count()))


@pytest.mark.skipif(sys.platform != "linux", reason="fork is used on Linux only")
def test_a_worker_keeps_the_heap_it_starts_with_out_of_the_collector(tmp_path: Path) -> None:
    """Its full collections then scan only what the worker allocates, not the imports and the
    driver's objects again and again (RESULTS "batch-speed-2")."""
    url = _store(tmp_path)
    before, after = _in_forked_worker(_frozen_after_init, url)
    assert before == gc.get_freeze_count()  # the driver's collector is left as it was
    assert after > before + 10_000  # the imports' objects at least
    engine_for(url).dispose()
