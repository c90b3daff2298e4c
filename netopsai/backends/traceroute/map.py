"""Hop addresses to inventory devices and interfaces, and the inventory's graph for telling which
device comes after the last one that answered (a null route drops a probe before its TTL is
checked, so the dropping router itself never answers)."""

from __future__ import annotations

from collections import deque
from functools import cached_property

from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.store import tables as m
from netopsai.store.inventory import interface_of


class InventoryMap:
    """Lookups over the store's inventory, cached for one backend (the inventory changes far
    less often than paths are traced)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._owners: dict[str, tuple[str | None, str | None]] = {}

    def owner(self, ip: str) -> tuple[str | None, str | None]:
        """(device, interface) holding `ip`, or (None, None)."""
        if ip not in self._owners:
            self._owners[ip] = self._lookup(ip)
        return self._owners[ip]

    def _lookup(self, ip: str) -> tuple[str | None, str | None]:
        with Session(self.engine) as s:
            h = s.get(m.HostAddress, ip)
            if h:
                return h.device, h.interface
            held = interface_of(s, ip)  # any address of a port: a secondary, an IPv6 one
            if held:
                return held
            d = s.exec(select(m.Device).where(m.Device.loopback == ip)).first()
            return (d.name, "Loopback0") if d else (None, None)

    def tor_of(self, ip: str) -> str | None:
        with Session(self.engine) as s:
            h = s.get(m.HostAddress, ip)
            return h.tor if h else None

    @cached_property
    def _adjacency(self) -> dict[str, dict[str, tuple[str, str]]]:
        """device -> {neighbour: (local interface, neighbour interface)}."""
        adj: dict[str, dict[str, tuple[str, str]]] = {}
        with Session(self.engine) as s:
            for lk in s.exec(select(m.Link)):
                adj.setdefault(lk.a_device, {})[lk.b_device] = (lk.a_interface, lk.b_interface)
                adj.setdefault(lk.b_device, {})[lk.a_device] = (lk.b_interface, lk.a_interface)
        return adj

    def out_interface(self, device: str, next_device: str | None) -> str | None:
        return self._adjacency.get(device, {}).get(next_device or "", (None, None))[0]

    def neighbours(self, device: str) -> list[str]:
        return sorted(self._adjacency.get(device, {}))

    def distances(self, target: str) -> dict[str, int]:
        """Hops from every device to `target` over the inventory's links (hosts are leaves of
        the graph: never a way through)."""
        dist = {target: 0}
        queue = deque([target])
        with Session(self.engine) as s:
            hosts = set(s.exec(select(m.Device.name).where(m.Device.role == "host")))
        while queue:
            cur = queue.popleft()
            if cur in hosts and cur != target:
                continue
            for n in self._adjacency.get(cur, {}):
                if n not in dist:
                    dist[n] = dist[cur] + 1
                    queue.append(n)
        return dist

    def next_towards(self, device: str, target: str, exclude: set[str]) -> list[str]:
        """Neighbours of `device` one hop closer to `target`, less `exclude`."""
        dist = self.distances(target)
        here = dist.get(device)
        if here is None:
            return []
        return [n for n in self.neighbours(device) if dist.get(n) == here - 1 and n not in exclude]
