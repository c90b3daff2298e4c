"""Batch checks and SNMP polling on Ray (issue 14 §3): the same rows as the local engine.

A batch on a lab with injected faults (so the driver diagnoses some pairs) gives a byte-identical
CSV on a private local Ray cluster and on a running one (`ray start --head` on 127.0.0.1, joined
with --address or config.yaml's `ray: address`); a poll of the snmpsim recordings stores the same
rows through either engine; an address nobody listens on is a one-line error. Lab addresses are
data: nothing here sends them a packet; Ray and snmpsim live on loopback."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.backends.lab import lab_backends
from netopsai.lab.inject import inject
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai_testkit.peers.process import free_port
from netopsai_testkit.peers.snmpsim import CISCO, SnmpSim, snmpsim  # noqa: F401
from tests.batch.test_batch import FAULTS, fault_pairs, small_lab
from tests.batch.test_batch_cli import env_for

pytestmark = pytest.mark.integration
RAY_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
DEVICES = 6  # configured SNMP targets, all served by snmpsim's recording of a real Cisco switch


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    h = tmp_path_factory.mktemp("rayhome")
    inject(small_lab(h / "netopsai.db"), FAULTS)
    return h


@pytest.fixture(scope="module")
def pairs(home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The batch tests' failing pairs (ACL, link down, device down, an unknown segment) and
    300 more spread over the lab, healthy or not: 325 lines."""
    hosts = lab_backends(engine_for(f"sqlite:///{home / 'netopsai.db'}")).inventory.hosts(None, None, None)
    ips = [h["ip"] for h in hosts]
    more = itertools.islice(itertools.permutations(ips, 2), 0, None, 211)
    text = fault_pairs(hosts) + "".join(f"{s},{d}\n" for s, d in itertools.islice(more, 300))
    path = tmp_path_factory.mktemp("raypairs") / "pairs.csv"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A running Ray cluster on loopback, started as an operator would (`ray start --head`).
    --block keeps it our child: SIGTERM to that one process stops its processes, and no other
    Ray on the machine (`ray stop` would stop them all). A private temp dir, short for the
    sockets' path limit, keeps it from being anyone's 'current cluster'."""
    port = free_port()
    temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    log = Path(temp) / "start.log"
    ray = Path(sys.executable).with_name("ray")
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(ray), "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={port}",
             "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}"],
            stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **RAY_ENV})
    try:
        _wait_started(proc, log)
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()  # the node drains and stops the processes it started
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(temp, ignore_errors=True)


def _wait_started(proc: subprocess.Popen[bytes], log: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if b"Ray runtime started" in log.read_bytes():
            return
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    pytest.fail(f"ray start did not come up:\n{log.read_text(errors='replace')[-3000:]}")


def netopsai(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "netopsai.cli", *args], capture_output=True,
                          text=True, timeout=600, env=env_for(home), check=False)


def batch(home: Path, pairs: Path, out: Path, *args: str) -> tuple[bytes, list[str]]:
    """The CSV written and the summary lines on stderr (exit 1: some pairs fail)."""
    r = netopsai(home, "batch", str(pairs), "-o", str(out), *args)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    return out.read_bytes(), r.stderr.splitlines()


@pytest.fixture(scope="module")
def local_csv(home: Path, pairs: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, list[str]]:
    return batch(home, pairs, tmp_path_factory.mktemp("local") / "local.csv")


def test_a_local_ray_cluster_writes_the_same_csv(home: Path, pairs: Path, local_csv: tuple[bytes, list[str]],
                                                 tmp_path: Path) -> None:
    csv, summary = batch(home, pairs, tmp_path / "ray.csv", "--engine", "ray")
    assert csv == local_csv[0]
    assert summary == local_csv[1]
    assert any(line.startswith("checked 325 pairs: ") for line in summary)
    assert any("config.acl_block" in line for line in summary)  # diagnosed on the driver


def test_a_running_cluster_by_address_or_config(home: Path, pairs: Path, cluster: str,
                                                local_csv: tuple[bytes, list[str]], tmp_path: Path) -> None:
    csv, summary = batch(home, pairs, tmp_path / "ray.csv", "--engine", "ray", "--address", cluster)
    assert (csv, summary) == local_csv
    configured = tmp_path / "home"
    configured.mkdir()
    for f in home.glob("netopsai.db*"):  # with its write-ahead log: the faults may be there yet
        shutil.copy(f, configured / f.name)
    (configured / "config.yaml").write_text(f"ray:\n  address: '{cluster}'\n  workers: 1\n")
    csv, summary = batch(configured, pairs, tmp_path / "ray1.csv", "--engine", "ray")
    assert (csv, summary) == local_csv


@pytest.mark.parametrize("command", ["batch", "poll"])
def test_an_unreachable_address_is_one_line(home: Path, pairs: Path, tmp_path: Path, command: str) -> None:
    closed = f"127.0.0.1:{free_port()}"
    args = ([str(pairs)] if command == "batch"
            else ["--once", "--target", "127.0.0.1:161", "--community", "public"])
    where = home if command == "batch" else tmp_path
    r = netopsai(where, command, *args, "--engine", "ray", "--address", closed)
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert lines == [f"error: cannot reach the Ray cluster at {closed}: Connection refused"], r.stderr
    assert r.stdout == ""
    local = netopsai(where, command, *args, "--address", closed)  # an address needs --engine ray
    assert local.returncode != 0 and local.stderr.strip() == "error: --address goes with --engine ray"


# ---------------------------------------------------------------- SNMP polling


def poll_home(root: Path, sim: SnmpSim) -> Path:
    """A fresh store with DEVICES configured targets on snmpsim (one community for all)."""
    root.mkdir()
    targets = "".join(f"    - {{host: 127.0.0.1, port: {sim.port}, device: sw-{i:02d}}}\n"
                      for i in range(1, DEVICES + 1))
    (root / "config.yaml").write_text(f"snmp:\n  timeout: 30\n  retries: 1\n  targets:\n{targets}")
    secrets = root / "secrets.yaml"
    secrets.write_text(f"snmp:\n  community: {CISCO}\n")
    secrets.chmod(0o600)
    return root


def stored(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row a poll writes, without what honestly differs between two polls: row ids, the
    poll's wall-clock time (`at`, `seen_at`), and what is derived from it (booted_at is the
    poll time minus the agent's uptime, which ticks in hundredths of a second between the two)."""
    skip = {"id", "at", "seen_at", "booted_at", "uptime_cs"}
    out: dict[str, list[tuple[Any, ...]]] = {}
    with Session(engine) as s:
        for table in (m.Device, m.Interface, m.InterfaceEvent, m.CounterSample, m.SnmpCounterState):
            cols = [c.name for c in table.__table__.columns if c.name not in skip]  # type: ignore[attr-defined]
            rows = [tuple(getattr(r, c) for c in cols) for r in s.exec(select(table))]
            out[table.__name__] = sorted(rows, key=repr)
    return out


def test_a_poll_on_ray_stores_the_same_rows(snmpsim: SnmpSim, cluster: str, tmp_path: Path) -> None:  # noqa: F811
    """Two rounds each (the second makes counter samples): locally, and on the running cluster."""
    homes = {engine: poll_home(tmp_path / engine, snmpsim) for engine in ("local", "ray")}
    for _ in range(2):
        for engine, h in homes.items():
            extra = ["--engine", "ray", "--address", cluster] if engine == "ray" else []
            r = netopsai(h, "poll", "--once", "--sample-every", "0", "--json", *extra)
            assert r.returncode == 0, r.stderr
            assert CISCO not in r.stdout + r.stderr and "Traceback" not in r.stderr
    local, ray = (stored(engine_for(f"sqlite:///{h / 'netopsai.db'}")) for h in homes.values())
    assert len(local["Device"]) == DEVICES
    assert len(local["Interface"]) >= len(local["CounterSample"]) > DEVICES  # ports with counters
    assert ray == local
