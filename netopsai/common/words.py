"""Words every front end shows the same way: a count with its noun in the right number
("1 change record", "3 change records"), and a root-cause label in plain words beside the label
itself. The nouns are ours (ports, alarms, entries ...), so English's regular rules cover them;
a plural library (inflect) cost 1.6 s of import on every `netopsai tool` call."""

from __future__ import annotations

import re

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
    "link.pfc_storm": "a port floods its rail with PFC pause frames",
    "link.ecmp_collision": "a job's flows crowd one uplink while its siblings idle",
    "none": "no fault found",
    "inconclusive": "no cause could be confirmed",
}


def count(n: int, noun: str) -> str:
    """'1 port', '2 ports', '0 change records', '3 entries'."""
    return f"{n} {noun if n == 1 else _plural(noun)}"


def _plural(noun: str) -> str:
    if re.search(r"[^aeiou]y$", noun):
        return noun[:-1] + "ies"
    if re.search(r"(?:s|x|z|ch|sh)$", noun):
        return noun + "es"
    return noun + "s"


def plain(label: str) -> str:
    """A label in words (unknown labels, e.g. a site's own taxonomy node, as they are)."""
    return PLAIN.get(label, label)
