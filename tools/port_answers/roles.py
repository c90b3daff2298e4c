"""Which ports a role word means, from the inventory's links: a port whose peer sits a tier
higher is an uplink (a leaf's port to a spine, a spine's to a superspine or border), one whose
peer sits lower is a downlink, one whose peer is a host is a host port; "towards the spines"
names the peer's role. Tiers are the lab's (host < leaf < spine < superspine < border < dci)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from netopsai.backends.base import Inventory
from netopsai.common.ifnames import canonical
from netopsai.common.roles import HOST_ROLES, TIERS

PORT_ROLES = {"uplink": "uplinks", "downlink": "downlinks", "host": "host ports"}
Port = tuple[str, str]


def port_key(device: str, name: str) -> Port:
    """A port as both the inventory and a telemetry source may spell it: the inventory's link
    says Hu0/0/0/1, snmp_exporter's ifName HundredGigE0/0/0/1. A sub-interface stays itself
    (its parent's role is not its own traffic)."""
    return device, (name if "." in name else canonical(name)).lower()


def _peer_role(n: Mapping[str, Any], roles: Mapping[str, str]) -> str:
    """A neighbour's role; one the inventory does not list as a network device is a host when
    its link says so (hosts are often not devices of their own in a real inventory)."""
    role = roles.get(n["neighbor"], "")
    return role or ("host" if n.get("kind") == "host" else "")


def _same(a: str, b: str) -> bool:
    return a == b or {a, b} <= {"leaf", "tor"} or {a, b} <= set(HOST_ROLES)


def wanted(port_role: str | None, peer_role: str | None) -> Callable[[str, str], bool]:
    """(own role, peer role) -> is this port meant."""
    def test(mine: str, peer: str) -> bool:
        if peer_role and not _same(peer, peer_role):
            return False
        if port_role == "host":
            return peer in HOST_ROLES
        if port_role in ("uplink", "downlink") and peer:
            up = TIERS.get(peer, 0) > TIERS.get(mine, 1)
            down = TIERS.get(peer, 0) < TIERS.get(mine, 1)
            return up if port_role == "uplink" else down
        return port_role is None
    return test


def role_ports(inv: Inventory, devices: Iterable[str], port_role: str | None,
               peer_role: str | None) -> set[Port]:
    """The ports (port_key) of `devices` that the role words mean."""
    roles = {d["name"]: d["role"] for d in inv.devices(None, None, None, None)}
    test = wanted(port_role, peer_role)
    out: set[Port] = set()
    for dev in devices:
        mine = roles.get(dev) or inv.device(dev)["role"]
        out.update(port_key(dev, n["interface"]) for n in inv.neighbors(dev)
                   if test(mine, _peer_role(n, roles)))
    return out


def label(port_role: str | None, peer_role: str | None) -> str:
    """'uplinks', 'ports towards spines', 'uplinks towards spines'."""
    words = PORT_ROLES.get(port_role or "", "ports")
    return f"{words} towards {peer_role}s" if peer_role else words
