"""Who a received event is about: the inventory's device for the name or address the event
gives (or its sender's), and the inventory's name for the port it writes — remembered for a
while, since the inventory changes rarely and events come often."""

from __future__ import annotations

import ipaddress
import re
import time
from dataclasses import dataclass

from sqlmodel import Session, or_, select

from netopsai.ifnames import canonical, match
from netopsai.store import tables as m


@dataclass(frozen=True)
class Named:
    """Who an event is about: the inventory's name and site when the inventory knows it."""

    name: str
    site: str = ""


_RE = re.compile(r"^re[01][-.]|[-.]re[01]$", re.I)  # Junos dual routing engines: re0-mx1, mx1-re0


def resolve_device(s: Session, name: str | None, sender: str) -> Named:
    """The inventory device the event is about: by the name it gives (exact, without its
    domain, without a Junos routing-engine prefix, in lower case), by an address it gives, then
    by the sender's address (unless the sender is a relay: Event.resolve_sender); else the name
    it gives, else the sender's address."""
    names: list[str] = []
    short = ""
    if name and not is_ip(name):
        bare = _RE.sub("", name)
        short = bare.split(".")[0]
        names = list(dict.fromkeys([name, bare, short, name.lower(), short.lower()]))
    for candidate in names:
        dev = s.get(m.Device, candidate)
        if dev is not None:
            return Named(dev.name, dev.site)
    for ip in (name if name and is_ip(name) else None, sender):
        if ip and is_ip(ip):
            dev = s.exec(select(m.Device).where(
                or_(m.Device.mgmt_ip == ip, m.Device.loopback == ip))).first()
            if dev is not None:
                return Named(dev.name, dev.site)
    return Named(short if names else name or sender)


class DeviceCache:
    """resolve_device, remembered for `ttl` seconds: the inventory changes rarely, events often."""

    def __init__(self, ttl: float = 60.0) -> None:
        self.ttl = ttl
        self._known: dict[tuple[str | None, str], tuple[Named, float]] = {}
        self._ports: dict[str, tuple[list[str], float]] = {}  # device -> its interface names

    def get(self, s: Session, name: str | None, sender: str) -> Named:
        now = time.monotonic()
        hit = self._known.get((name, sender))
        if hit is not None and now - hit[1] < self.ttl:
            return hit[0]
        if len(self._known) > 50_000:
            self._known.clear()
        found = resolve_device(s, name, sender)
        self._known[(name, sender)] = (found, now)
        return found

    def port(self, s: Session, device: str, written: str | None) -> str | None:
        """The inventory's name for a port as a message wrote it (`Hu0/0/0/8`, its optics
        controller `Optics0/0/0/8`), else one canonical form, so raise and clear meet."""
        if not written:
            return written
        now = time.monotonic()
        hit = self._ports.get(device)
        if hit is None or now - hit[1] >= self.ttl:
            names = list(s.exec(select(m.Interface.name).where(m.Interface.device == device)))
            hit = self._ports[device] = (names, now)
        return match(hit[0], written) or canonical(written)


def is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
