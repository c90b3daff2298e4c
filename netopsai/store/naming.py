"""Who a received event is about: the inventory's device for the name or address the event
gives (or its sender's), and the inventory's name for the port it writes — remembered for a
while, since the inventory changes rarely and events come often.

Devices speak for themselves: a name in the event (a syslog HOSTNAME, a trap's sysName) is
believed only when the sender's address is that device's (its management, loopback, interface
or host address in the inventory), or when the sender may speak for others (a relay listed in
`ingest.relays`, an operator's log file, the Alertmanager webhook: `Event.resolve_sender`). An
event naming an inventory device its sender is not is kept, about its sender and marked
(`Named.claimed`), and never raises an alarm on the device it names — anyone who can reach the
receiver's port could otherwise open LINK_DOWN on a spine."""

from __future__ import annotations

import fnmatch
import ipaddress
import re
import time
from dataclasses import dataclass
from functools import lru_cache

from sqlalchemy import Connection, Table
from sqlalchemy import select as sa_select  # over core tables (sqlmodel's is typed for models)
from sqlmodel import Session, col, func, or_, select

from netopsai.common.ifnames import canonical, match
from netopsai.store import tables as m


@dataclass(frozen=True)
class Named:
    """Who an event is about: the inventory's name and site when the inventory knows it.
    `claimed`: the inventory device the event named although its sender may not speak for it
    (then `name` is the sender's own device, or its address)."""

    name: str
    site: str = ""
    claimed: str | None = None


_RE = re.compile(r"^re[01][-.]|[-.]re[01]$", re.I)  # Junos dual routing engines: re0-mx1, mx1-re0


def resolve_device(s: Session, name: str | None, sender: str) -> Named:
    """The inventory device the event is about: by the name it gives (see _by_name) or an
    address it gives, which the sender must own unless `sender` is empty (a relay, a file, the
    webhook: they may name any device); else the sender's own device (a device whose hostname
    is not the inventory's name); else the name it gives, whole (a device the inventory does
    not know: `host.example.net` stays itself, not an unknown `host`), else the address."""
    given = _given(name)
    named = _by_name(s, name, given)
    kept = _RE.sub("", name) if name and not is_ip(name) else name
    if not sender:  # the sender may speak for any device
        return named or Named(kept or "")
    owners = owners_of(s, sender)
    if named is None:
        if owners:  # the sender's own device, logging under another hostname
            return owners[0]
        return Named(kept or sender)  # a device new to the inventory
    if any(o.name == named.name for o in owners):
        return named
    own = owners[0] if owners else Named(sender)
    return Named(own.name, own.site, claimed=named.name)


def _given(name: str | None) -> list[str]:
    """The inventory names an event's device name may stand for: as given, without a Junos
    routing-engine prefix, without its domain."""
    if not name or is_ip(name):
        return []
    bare = _RE.sub("", name)
    return list(dict.fromkeys([name, bare, bare.split(".")[0]]))


def _by_name(s: Session, name: str | None, given: list[str]) -> Named | None:
    """The inventory device a header's host names: exactly, then in any case, then by its
    domain learned from the inventory (`leaf1` for an inventory's `leaf1.dc1.example.net`, or
    `leaf1.dc1.example.net` for its `leaf1`, when one device alone fits); an address by the
    device that holds it."""
    for candidate in given:
        dev = s.get(m.Device, candidate)
        if dev is not None:
            return Named(dev.name, dev.site)
    if name and is_ip(name):
        found = owners_of(s, name)
        return found[0] if found else None
    if not given:
        return None
    lowered = list(dict.fromkeys(g.lower() for g in given))
    rows = list(s.exec(select(m.Device.name, m.Device.site).where(
        func.lower(m.Device.name).in_(lowered))))
    if not rows:  # the inventory's names carry a domain the header's does not
        short = lowered[-1]
        rows = list(s.exec(select(m.Device.name, m.Device.site).where(
            func.lower(m.Device.name).like(f"{_like(short)}.%", escape="\\")).limit(2)))
    return Named(rows[0][0], rows[0][1]) if len(rows) == 1 else None


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def owners_of(s: Session, address: str) -> list[Named]:
    """The inventory devices that hold this address: as management or loopback address, on an
    interface, or as a host's address (several, for an address shared by a pair)."""
    ip = _plain(address)
    if ip is None:
        return []
    names = set(s.exec(select(m.Device.name).where(
        or_(m.Device.mgmt_ip == ip, m.Device.loopback == ip))))
    names.update(s.exec(select(m.Interface.device).where(
        or_(m.Interface.ip == ip, col(m.Interface.ip).startswith(f"{ip}/")))))
    names.update(s.exec(select(m.InterfaceAddress.device).where(m.InterfaceAddress.ip == ip)))
    names.update(s.exec(select(m.HostAddress.device).where(m.HostAddress.ip == ip)))
    if not names:
        return []
    sites = {n: site for n, site in s.exec(select(m.Device.name, m.Device.site).where(
        col(m.Device.name).in_(names)))}
    return [Named(n, sites.get(n, "")) for n in sorted(names)]


def interface_holding(s: Session, address: str) -> tuple[str, str] | None:
    """(device, interface) holding `address` among every address of each interface (a
    second address, an IPv6 one written in any case)."""
    ip = _plain(address)
    if ip is None:
        return None
    row = s.exec(select(m.InterfaceAddress.device, m.InterfaceAddress.interface).where(
        m.InterfaceAddress.ip == ip)).first()
    return (row[0], row[1]) if row else None


def _plain(address: str) -> str | None:
    """An address as the inventory writes it: an IPv4 sender on a dual-stack socket arrives as
    ::ffff:a.b.c.d."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def is_relay(sender: str, relays: tuple[str, ...]) -> bool:
    """Whether `sender` is among `relays`: addresses, CIDRs (10.0.0.0/24) or globs (10.0.0.*)."""
    if not relays or not sender:
        return False
    nets, globs = _relay_forms(relays)
    ip = _plain(sender)
    if ip is not None and any(ipaddress.ip_address(ip) in net for net in nets):
        return True
    return any(fnmatch.fnmatchcase(sender, glob) for glob in globs)


GLOB_CHARS = frozenset("*?[")


@lru_cache(maxsize=32)
def _relay_forms(relays: tuple[str, ...]) -> tuple[list[ipaddress.IPv4Network | ipaddress.IPv6Network],
                                                    list[str]]:
    nets, globs = [], []
    for entry in relays:
        if GLOB_CHARS & set(entry):
            globs.append(entry)
            continue
        try:
            nets.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            globs.append(entry)  # the config refuses these; a hand-built context matches exactly
    return nets, globs


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


_IFACE: Table = m.Interface.__table__  # type: ignore[attr-defined]
_LINK: Table = m.Link.__table__  # type: ignore[attr-defined]
_BGP: Table = m.BgpSession.__table__  # type: ignore[attr-defined]


def session_link(conn: Connection, device: str, peer: str | None) -> tuple[str, int, str] | None:
    """A BGP session by its peer address: (this device's interface, the link, its kind), from
    the inventory's sessions, else from the address on the neighbour's interface."""
    if not peer or not is_ip(peer):
        return None
    link_id = conn.execute(sa_select(_BGP.c.link_id).where(or_(
        (_BGP.c.a_device == device) & (_BGP.c.b_ip == peer),
        (_BGP.c.b_device == device) & (_BGP.c.a_ip == peer)))).scalar()
    if link_id is None:
        link_id = _far_link(conn, _plain(peer) or peer)
    if link_id is None:
        return None
    lk = conn.execute(sa_select(_LINK).where(_LINK.c.id == link_id)).first()
    if lk is None or device not in (lk.a_device, lk.b_device):
        return None
    return (lk.a_interface if lk.a_device == device else lk.b_interface), int(link_id), lk.kind


_ADDR: Table = m.InterfaceAddress.__table__  # type: ignore[attr-defined]


def _far_link(conn: Connection, peer: str) -> int | None:
    """The link under the neighbour's interface that holds `peer` (any of its addresses)."""
    far = conn.execute(sa_select(_IFACE.c.link_id).where(
        _IFACE.c.ip.like(f"{peer}/%"), _IFACE.c.link_id.is_not(None))).first()
    if far is None:
        far = conn.execute(sa_select(_IFACE.c.link_id).select_from(_ADDR.join(
            _IFACE, (_IFACE.c.device == _ADDR.c.device) & (_IFACE.c.name == _ADDR.c.interface)))
            .where(_ADDR.c.ip == peer, _IFACE.c.link_id.is_not(None))).first()
    return int(far[0]) if far else None
