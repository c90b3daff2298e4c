"""The `system` Paths backend: real traceroute from the probe host (inside the source host's
namespace for the namespace lab), rows and facts shaped like the lab's (netopsai.lab.trace).

One call traces a few flows that differ only in their UDP source port. Routers hash flows onto
their ECMP groups, so the flows walk different equal-cost paths: the first flow is the traced
path (more probes per hop, for loss); the others reveal the ECMP fan-out, and a flow that fails
while the traced one works is reported as the failing member, as the lab does.
"""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from ipaddress import ip_address, ip_network
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from netopsai.backends.netns.lab import read_lab
from netopsai.backends.netns.plan import LAB_NET
from netopsai.backends.rows import Trace
from netopsai.backends.traceroute.map import InventoryMap
from netopsai.backends.traceroute.run import Flow, FlowSpec, run_flow
from netopsai.backends.traceroute.stop import flow_rows, next_seen, outcome
from netopsai.common.errors import NetopsError

if TYPE_CHECKING:
    from netopsai.config.network import NetConfig

SPORT_FIRST, SPORT_SPAN = 33000, 28000  # source ports handed out in turn: two flows running
_ports = itertools.count()  # at once from one address must not share one (bind fails)
_ports_lock = threading.Lock()
NETNS_WAIT = 0.2  # veth round trips take microseconds: a longer wait only slows failures
NETNS_MAX_HOPS = 12


class SystemPaths:
    def __init__(self, engine: Engine, source: str | None = None, max_hops: int = 30,
                 wait: float = 1.0, concurrency: int = 8, flows: int = 4, queries: int = 3,
                 netns_wait: float = NETNS_WAIT) -> None:
        self.engine, self.source = engine, source
        self.max_hops, self.wait, self.flows, self.queries = max_hops, wait, flows, queries
        self.netns_wait = netns_wait
        self.gate = threading.BoundedSemaphore(concurrency)  # traceroute processes at once
        self.map = InventoryMap(engine)
        lab = read_lab(engine)
        self.netns = lab.namespaces if lab else {}

    def traceroute(self, src: str, dst: str, size: int, at: datetime | None) -> Trace:
        now = datetime.now(UTC)
        if at is not None and now - at > timedelta(minutes=1):
            raise NetopsError("the system traceroute traces the network now; it cannot trace as "
                              "of a past time (leave 'at' out)")
        specs = self._specs(src, dst, size)
        if len(specs) == 1:
            flows = [run_flow(specs[0], self.gate)]
        else:
            with ThreadPoolExecutor(max_workers=len(specs)) as pool:
                flows = list(pool.map(lambda f: run_flow(f, self.gate), specs))
        return self._row(src, dst, self._confirm(flows), now)

    def _confirm(self, flows: list[Flow]) -> list[Flow]:
        """Re-run, with twice the probes, flows that went silent: on a lossy link a few lost
        probes in a row look like a drop, while a null route stays silent."""
        silent = [i for i, f in enumerate(flows) if f.hops and not f.hops[-1].answered]
        if not silent:
            return flows
        again = [replace(flows[i].spec, queries=2 * self.queries) for i in silent]
        with ThreadPoolExecutor(max_workers=len(again)) as pool:
            redone = list(pool.map(lambda f: run_flow(f, self.gate), again))
        for i, flow in zip(silent, redone, strict=True):
            flows[i] = flow
        return flows

    def _specs(self, src: str, dst: str, size: int) -> list[FlowSpec]:
        ns, source = self._probe_point(src, dst)
        wait = min(self.wait, self.netns_wait) if ns else self.wait
        hops = min(self.max_hops, NETNS_MAX_HOPS) if ns else self.max_hops
        return [FlowSpec(dst, _next_port(), self.queries if i == 0 else min(2, self.queries),
                         wait, hops, size, source, ns) for i in range(max(1, self.flows))]

    def _probe_point(self, src: str, dst: str) -> tuple[str | None, str | None]:
        """(namespace, source address): the source host's namespace in the namespace lab,
        else the probe host itself (with the configured source address)."""
        device, _ = self.map.owner(src)
        if device and device in self.netns:
            if ip_address(dst) not in ip_network(LAB_NET):
                raise NetopsError(f"{dst} is outside the namespace lab ({LAB_NET}); traces from "
                                  f"its hosts stay inside it")
            return self.netns[device], src
        if self.netns and ip_address(src) in ip_network(LAB_NET):
            raise NetopsError(f"no device of the namespace lab holds source address {src}")
        return None, self.source

    def _row(self, src: str, dst: str, flows: list[Flow], at: datetime) -> Trace:
        rows = [flow_rows(f, src, dst, self.map) for f in flows]
        first = [outcome(f, r, src, dst, self.map) for f, r in zip(flows, rows, strict=True)]
        seen = next_seen(first)  # where flows that got through went: not the silent router
        outs = [outcome(f, r, src, dst, self.map, seen) for f, r in zip(flows, rows, strict=True)]
        main = outs[0]
        paths = {tuple(o.devices) for o in outs}
        good = {tuple(o.devices) for o in outs if o.reached}
        failing = next((o.failing() for o in outs[1:] if o.failing()), None)
        ecmp_devices = sorted({d for o in outs for d in o.devices}
                              | {o.stopped_at for o in outs if o.stopped_at})
        return {"hops": rows[0], "reached": main.reached, "stopped_at": main.stopped_at,
                "reason": main.reason, "ecmp_paths": len(paths), "good_paths": len(good),
                "path_devices": main.devices, "ecmp_devices": ecmp_devices, "at": at,
                "failing": failing if main.reached else None,
                "flows": len(flows), "probe": "system traceroute"}


def _next_port() -> int:
    with _ports_lock:
        return SPORT_FIRST + next(_ports) % SPORT_SPAN


def from_config(engine: Engine, cfg: NetConfig) -> SystemPaths:
    """The backend registry's builder (netopsai.backends.registry)."""
    t = cfg.settings.traceroute
    return SystemPaths(engine=engine, source=t.source, max_hops=t.max_hops, wait=t.wait,
                       concurrency=t.concurrency)
