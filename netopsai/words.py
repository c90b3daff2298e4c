"""Words every front end shows the same way: a count with its noun in the right number
("1 change record", "3 change records"; inflect knows English plurals), and a root-cause
label in plain words beside the label itself."""

from __future__ import annotations

import inflect

_ENGINE = inflect.engine()

PLAIN = {  # shared/specs/scenario.md's labels, as an on-call says them
    "link.down": "a link is down",
    "link.flapping": "a link is flapping",
    "link.errors": "a link is dropping packets with errors",
    "link.congestion": "a link is congested",
    "device.down": "a device is down",
    "device.reboot": "a device rebooted",
    "config.acl_block": "an ACL blocks the traffic",
    "config.mtu_mismatch": "an MTU mismatch drops large packets",
    "routing.bgp_down": "a BGP session is down",
    "routing.adjacency_down": "an OSPF/IS-IS/BFD adjacency is down",
    "routing.blackhole": "a route sends the traffic nowhere (null route)",
    "dci.link_down": "a DCI or backbone link is down",
    "host.down": "the host itself is down",
    "none": "no fault found",
    "inconclusive": "no cause could be confirmed",
}


def count(n: int, noun: str) -> str:
    """'1 port', '2 ports', '0 change records'."""
    return f"{n} {_ENGINE.plural_noun(noun, n)}"


def plain(label: str) -> str:
    """A label in words (unknown labels, e.g. a site's own taxonomy node, as they are)."""
    return PLAIN.get(label, label)
