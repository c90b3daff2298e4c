"""A real SNMP agent on loopback: snmpsim's command responder serving chosen recordings of real
devices from snmpsim-data plus recordings we generate (and rewrite between polls).

The community of a recording is its path under the data dir without the extension. Recordings
are served uncompressed: snmpsim reads .bz2 files by seeking, which decompresses from the start
on every lookup and makes a large router's walk take tens of seconds."""

from __future__ import annotations

import bz2
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from netopsai_testkit.peers.process import stop

CISCO = "network/switch/cisco-c3750"
JUNIPER = "network/router/juniper-mx960-13-3r9-13"
REAL = (CISCO, JUNIPER)
STARTUP_S = 900.0  # indexing: ~15 s for the plain recordings, ~60 s for the .bz2 ones on a quiet
# 2-core machine, past 300 s at load 10 (a bound to give up, not a timing assertion)


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _responder() -> str:
    exe = Path(sys.executable).with_name("snmpsim-command-responder")
    found = str(exe) if exe.exists() else shutil.which("snmpsim-command-responder")
    if not found:
        pytest.skip("snmpsim-command-responder is not installed (pip install snmpsim)")
    return found


def real_recording(community: str) -> Path:
    try:
        import snmpsim_data
    except ImportError:
        pytest.skip("snmpsim-data is not installed (pip install snmpsim-data)")
    path = Path(snmpsim_data.__file__).parent / "data" / f"{community}.snmprec.bz2"
    if not path.exists():
        pytest.skip(f"snmpsim-data has no recording {community}")
    return path


@dataclass
class Port:
    """One interface of a generated recording (values as an agent would report them)."""

    index: int
    name: str
    oper: int = 1  # 1 up, 2 down
    admin: int = 1
    speed_mbps: int = 10000
    in_octets: int = 0
    out_octets: int = 0
    in_errors: int = 0
    in_discards: int = 0
    out_discards: int = 0


@dataclass
class Agent:
    sys_name: str
    sys_descr: str = "Cisco NX-OS(tm) n9000, Software (n9000-dk9), Version 10.2(5)"
    uptime_cs: int = 8_640_000  # one day
    ports: list[Port] = field(default_factory=list)


def snmprec(agent: Agent) -> str:
    """An .snmprec for the agent: `OID|tag|value` lines sorted by OID."""
    recs: list[tuple[tuple[int, ...], str, Any]] = [
        ((1, 3, 6, 1, 2, 1, 1, 1, 0), "4", agent.sys_descr),
        ((1, 3, 6, 1, 2, 1, 1, 3, 0), "67", agent.uptime_cs),
        ((1, 3, 6, 1, 2, 1, 1, 5, 0), "4", agent.sys_name)]
    cols = {(2, 2, 1, 2): ("4", "name"), (2, 2, 1, 7): ("2", "admin"), (2, 2, 1, 8): ("2", "oper"),
            (2, 2, 1, 13): ("65", "in_discards"), (2, 2, 1, 14): ("65", "in_errors"),
            (2, 2, 1, 19): ("65", "out_discards"), (31, 1, 1, 1, 1): ("4", "name"),
            (31, 1, 1, 1, 6): ("70", "in_octets"), (31, 1, 1, 1, 10): ("70", "out_octets"),
            (31, 1, 1, 1, 15): ("66", "speed_mbps")}
    for p in agent.ports:
        for col, (tag, attr) in cols.items():
            recs.append(((1, 3, 6, 1, 2, 1, *col, p.index), tag, getattr(p, attr)))
    recs.sort(key=lambda r: r[0])
    return "".join(f"{'.'.join(map(str, oid))}|{tag}|{val}\n" for oid, tag, val in recs)


class SnmpSim:
    """snmpsim-command-responder on 127.0.0.1:<free port> over a temporary data dir."""

    def __init__(self, root: Path, real: Sequence[str] = REAL,
                 generated: Mapping[str, Agent] | None = None, compressed: bool = False) -> None:
        """`compressed`: serve the real recordings as .bz2, which snmpsim reads by decompressing
        from the start on every lookup: a slow agent, about a second per column requested."""
        self.root, self.data, self.cache = root, root / "data", root / "cache"
        self.port = free_udp_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = root / "snmpsim.log"
        for community in real:
            dest = self.data / f"{community}.snmprec{'.bz2' if compressed else ''}"
            dest.parent.mkdir(parents=True, exist_ok=True)
            data = real_recording(community).read_bytes()
            dest.write_bytes(data if compressed else bz2.decompress(data))
        for community, agent in (generated or {}).items():
            self.write(community, agent)
        self.cache.mkdir(parents=True, exist_ok=True)

    def path(self, community: str) -> Path:
        return self.data / f"{community}.snmprec"

    def write(self, community: str, agent: Agent) -> None:
        """(Re)write a generated recording. snmpsim compares file and index mtimes in whole
        seconds, so the new mtime is pushed clear of any index built this second."""
        path = self.path(community)
        path.parent.mkdir(parents=True, exist_ok=True)
        old = path.stat().st_mtime if path.exists() else 0.0
        path.write_text(snmprec(agent))
        stamp = int(max(time.time(), old)) + 2
        os.utime(path, (stamp, stamp))

    def start(self, timeout: float = STARTUP_S) -> None:
        env = {**os.environ, "SNMPSIM_ALLOW_ROOT": "true"}
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [_responder(), f"--data-dir={self.data}", f"--cache-dir={self.cache}",
                 f"--agent-udpv4-endpoint=127.0.0.1:{self.port}"],
                stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if b"Listening at" in self.log.read_bytes():
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        tail = self.log.read_bytes()[-500:].decode(errors="replace")
        raise RuntimeError(f"snmpsim did not start on 127.0.0.1:{self.port}: {tail}")

    def warm(self, communities: Sequence[str], timeout: float = 120.0) -> None:
        """One GET of sysDescr per recording: snmpsim opens (and indexes) a recording on its
        first request, which for a large router takes seconds on a busy machine; tests should
        not pay it. A full poll here would walk every interface table once more for nothing."""
        import asyncio

        import pysnmp.hlapi.v3arch.asyncio as h

        async def one(community: str) -> None:
            transport = await h.UdpTransportTarget.create(("127.0.0.1", self.port),
                                                          timeout=timeout, retries=0)
            await h.get_cmd(h.SnmpEngine(), h.CommunityData(community), transport,
                            h.ContextData(), h.ObjectType(h.ObjectIdentity("1.3.6.1.2.1.1.1.0")),
                            lookupMib=False)

        async def all_of() -> None:
            await asyncio.gather(*(one(c) for c in communities))

        asyncio.run(all_of())

    def stop(self) -> None:
        if self.proc:
            stop(self.proc)
        self.proc = None


def dead_udp_port() -> int:
    """A loopback port nothing listens on (bound and released, so nothing else took it)."""
    return free_udp_port()


def start_snmpsim(real: Sequence[str] = REAL, generated: Mapping[str, Agent] | None = None,
                  compressed: bool = False) -> Iterator[SnmpSim]:
    """Start, yield, and always stop and clean up: the body of a fixture."""
    root = Path(tempfile.mkdtemp(prefix="netopsai-snmpsim-"))
    sim = SnmpSim(root, real, generated, compressed)
    try:
        sim.start()
        sim.warm(real)
        yield sim
    finally:
        sim.stop()
        shutil.rmtree(root, ignore_errors=True)


def ports(n: int, **over: Any) -> list[Port]:
    """n healthy 10G ports Ethernet1..n with moving-looking counters; `over` sets fields of all."""
    return [Port(index=i, name=f"Ethernet{i}", in_octets=1_000_000 * i, out_octets=500_000 * i,
                 **over) for i in range(1, n + 1)]


# Our generated agents, one per test that rewrites it (tests never share a mutable recording).
GENERATED: dict[str, Agent] = {
    **{f"netopsai/{name}": Agent(sys_name=f"gen-{name}", ports=ports(4))
       for name in ("flip", "counters", "restart", "cli", "live", "partial", "prom", "tool")},
}

_shared: dict[str, SnmpSim] = {}


@pytest.fixture(scope="session")
def snmpsim(request: pytest.FixtureRequest) -> SnmpSim:
    """One snmpsim per test session (indexing the real recordings is the slow part), serving
    the real Cisco and Juniper recordings and GENERATED; stopped at the session's end."""
    if "sim" not in _shared:
        gen = start_snmpsim(REAL, GENERATED)
        _shared["sim"] = next(gen)

        def stop() -> None:
            _shared.pop("sim", None)
            next(gen, None)
        request.session.config.add_cleanup(stop)
    return _shared["sim"]
