"""Running one traceroute flow: a fixed 5-tuple (UDP to port 53 from one source port), so every
probe of the flow follows the same ECMP member, as Paris traceroute does. Hops are read as
traceroute prints them; a flow stops after a few silent hops instead of waiting to max TTL."""

from __future__ import annotations

import subprocess
import threading
from dataclasses import dataclass, field

from netopsai.backends.traceroute.parse import RawHop, parse_hop

SILENT_STOP = 2  # consecutive silent hops that end a flow (a drop or a null route)


@dataclass
class FlowSpec:
    dst: str
    sport: int
    queries: int = 1
    wait: float = 0.2
    max_hops: int = 30
    size: int = 60
    source: str | None = None  # -s: the probe's source address
    netns: str | None = None  # run inside this namespace (the namespace lab)


@dataclass
class Flow:
    spec: FlowSpec
    hops: list[RawHop] = field(default_factory=list)
    error: str | None = None  # traceroute could not send (e.g. no route at the source)


def command(f: FlowSpec) -> list[str]:
    cmd = ["traceroute", "-n", "-U", f"--sport={f.sport}", "-q", str(f.queries),
           "-w", f"{f.wait:g}", "-m", str(f.max_hops), "-F"]
    if f.source:
        cmd += ["-s", f.source]
    cmd += [f.dst, str(f.size)]
    return ["ip", "netns", "exec", f.netns, *cmd] if f.netns else cmd


def run_flow(f: FlowSpec, gate: threading.Semaphore | None = None) -> Flow:
    """One flow, holding `gate` (the backend's concurrency bound) while traceroute runs."""
    if gate is None:
        return _run(f)
    with gate:
        return _run(f)


def _run(f: FlowSpec) -> Flow:
    flow = Flow(f)
    timeout = f.max_hops * f.queries * f.wait + 5
    proc = subprocess.Popen(command(f), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, bufsize=1)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        assert proc.stdout is not None
        silent = 0
        for line in proc.stdout:
            hop = parse_hop(line)
            if hop is None:
                continue
            flow.hops.append(hop)
            silent = silent + 1 if not hop.answered else 0
            if silent >= SILENT_STOP or hop.code or hop.ip == f.dst:
                break  # the rest would only be stars, or the trace is done
    finally:
        proc.kill()
        _, err = proc.communicate()
        timer.cancel()
    if not flow.hops:
        lines = [x for x in (err or "").splitlines() if x.strip()]
        flow.error = lines[-1].strip() if lines else f"traceroute exited {proc.returncode}"
    return flow
