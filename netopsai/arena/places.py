"""The lab as the scenario generator sees it: a scratch in-memory copy of the healthy lab, its
hosts, and the devices and links a flow between two hosts really crosses (the lab's own
forwarding model and traceroute decide, so a fault placed on a flow's path is on it)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, create_engine
from sqlalchemy.pool import StaticPool

from netopsai.copilot.arena_door import device_roles, host_rows, link_rows
from netopsai.lab.manage import init_lab, lab_info

# the place a link is named after: its lower end's role (a DCI circuit joins two DCI routers)
LINK_PLACE = {"host": "host", "leaf": "leaf", "spine": "spine", "superspine": "superspine",
              "border": "border", "dci": "dci"}
TIER = {"host": 0, "leaf": 1, "spine": 2, "superspine": 3, "border": 4, "dci": 5}
PAIR_KINDS = ("same-pod", "other-pod", "cross-site")
# which pair kinds can cross a place: (device at place, link named after place)
CROSSES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "host": (PAIR_KINDS, PAIR_KINDS),
    "leaf": (PAIR_KINDS, PAIR_KINDS),
    "spine": (PAIR_KINDS, ("other-pod", "cross-site")),
    "superspine": (("other-pod", "cross-site"), ("cross-site",)),
    "border": (("cross-site",), ("cross-site",)),
    "dci": (("cross-site",), ("cross-site",)),
}


@dataclass(frozen=True)
class Host:
    ip: str
    name: str
    tor: str
    segment: str
    pod: str
    site: str


@dataclass(frozen=True)
class PathLink:
    """A link of a flow's path, lower-tier end first; `place` is named after that end."""

    a: str
    a_if: str
    b: str
    b_if: str
    kind: str
    place: str

    def ends(self) -> list[str]:
        return sorted({self.a, self.b})


@dataclass
class Flow:
    src: Host
    dst: Host
    pair_kind: str
    devices: list[str]  # the traced path in order, both hosts included
    links: list[PathLink]
    ecmp: set[str] = field(default_factory=set)  # every device on any equal-cost path
    reached: bool = True


class LabView:
    """A healthy lab built in memory for one (spec, scale, seed, clock)."""

    def __init__(self, spec: str, scale: str, seed: int, clock: datetime) -> None:
        self.engine: Engine = create_engine("sqlite://", poolclass=StaticPool)
        init_lab(self.engine, spec, scale, seed, clock)
        self.clock = clock
        self.cache: dict[str, Any] = {}
        self.role = device_roles(self.engine)
        self.hosts = [Host(h["ip"], h["device"], h["tor"] or "", h["segment"], h["pod"] or "",
                           h["site"] or "") for h in host_rows(self.engine)]
        self.link_rows = link_rows(self.engine)
        self._by_port = {(r[f"{e}_device"], r[f"{e}_interface"]): r
                         for r in self.link_rows for e in ("a", "b")}

    def router(self) -> Any:
        from netopsai.lab.forwarding import router_for

        return router_for(self.engine, lab_info(self.engine).version, self.clock)

    def pair(self, rng: random.Random, kind: str) -> tuple[Host, Host]:
        a = rng.choice(self.hosts)
        pool = [h for h in self.hosts if h.tor != a.tor and (
            (kind == "same-pod" and h.pod == a.pod)
            or (kind == "other-pod" and h.site == a.site and h.pod != a.pod)
            or (kind == "cross-site" and h.site != a.site))]
        return a, rng.choice(pool)

    def flow(self, src: Host, dst: Host, pair_kind: str) -> Flow:
        from netopsai.lab.trace import trace

        router = self.router()
        t = trace(router, src.ip, dst.ip)
        devices = [src.name, *(h.device for h in t.hops if h.device)]
        links = self._path_links(src, t.hops)
        ecmp = set(t.ecmp_devices) | set(devices) | {src.name, dst.name}
        return Flow(src, dst, pair_kind, devices, links, ecmp, t.reached)

    def _path_links(self, src: Host, hops: list[Any]) -> list[PathLink]:
        out = [self._link(src.name, "eth0")]
        for prev, nxt in zip(hops, hops[1:], strict=False):
            row = self._by_port.get((prev.device, prev.out_interface or ""))
            row = row or self._by_port.get((nxt.device, nxt.interface or ""))
            out.append(self._as_path_link(row))
        return out

    def _link(self, device: str, ifname: str) -> PathLink:
        return self._as_path_link(self._by_port.get((device, ifname)))

    def _as_path_link(self, row: dict[str, Any] | None) -> PathLink:
        if row is None:
            raise RuntimeError("a traced hop has no link in the inventory")
        a, a_if, b, b_if = row["a_device"], row["a_interface"], row["b_device"], row["b_interface"]
        if TIER[self.role[a]] > TIER[self.role[b]]:
            a, a_if, b, b_if = b, b_if, a, a_if
        return PathLink(a, a_if, b, b_if, row["kind"], LINK_PLACE[self.role[a]])

    def off_path_links(self, flow: Flow, kinds: tuple[str, ...] = ("fabric",)) -> list[dict[str, Any]]:
        """Links with neither end on any equal-cost path of the flow."""
        return [r for r in self.link_rows if r["kind"] in kinds
                and r["a_device"] not in flow.ecmp and r["b_device"] not in flow.ecmp]

    def off_path_devices(self, flow: Flow, roles: tuple[str, ...]) -> list[str]:
        return sorted(d for d, r in self.role.items() if r in roles and d not in flow.ecmp)
