"""Port names in a question, in every form real devices print them (issue 24 item 3; the forms
are the `interface` labels of bench/real_logs): the vendors' (`Gi1/0/1`, `xe-0/0/2`, `st0.60`,
`MgmtEth0/RP0/CPU0/0`, netutils' table and the forms it lacks), a kernel's (FreeBSD's NIC
drivers `igb2`, `ix0`, `re0`, `vtnet0`, OPNsense's `igb1_vlan221`, Linux's `eth1`, `enp1s0f0`,
`bond0.25`, `docker6906a59`, OpenWrt's `lan1`, `wan_6`, MikroTik's `ether1`), and the forms only
their place says are ports: right after the device ("what happened to sw3 1/1/38", "… gw wan",
"… sw3 port 22", "… sw3 port A12"). A word is a port by its shape (letters then a number), or
by its place and a shape no sentence has; an ordinary word ("and", "wan" on its own) never is.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from netutils.constants import BASE_INTERFACES

# netutils' table of interface types (long and short, two letters or more), and the vendor forms
# it lacks (Junos xe-/et-/ge-, Huawei 100GE, SONiC/Cumulus swp, IOS-XR Bundle-Ether and optics
# controllers, IOS's internal and dial-up interfaces, SONiC's InfiniBand-facing Ethernet-IB)
_IFTYPES = sorted({n.lower() for n in BASE_INTERFACES if len(n) >= 2 and n.lower() != "two"}
                  | {"xe", "et", "ge", "ae", "swp", "bundle-ether", "be", "optics", "10ge", "25ge",
                     "40ge", "100ge", "400ge", "xge", "mgmt", "irb", "st", "bri", "lsmpi",
                     "li-null", "virtual-ppp", "embedded-service-engine", "ethernet-ib"},
                  key=len, reverse=True)
VENDOR = re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(n) for n in _IFTYPES)
                    + r")-?\d+(?:[/:]\d+)*(?:\.\d+)?\b", re.I)
# IOS-XR's management port: rack, route processor, CPU, port
MGMT_ETH = re.compile(r"(?<![\w-])MgmtEth\d+/RP\d+/CPU\d+/\d+\b", re.I)
# kernel interface names: FreeBSD/OPNsense drivers and clones, Linux's classic and predictable
# names (eno1, ens33, enp7s0, enp1s0f0, end0), bonds, bridges, tunnels, OpenWrt's DSA ports
# (lan1, wan), MikroTik's ether1; each is a driver or kind, then a unit number
_KERNEL_KINDS = ("em", "igb", "igc", "ix", "ixl", "ixv", "ice", "bge", "bce", "bnxt", "re", "rl",
                 "vtnet", "vmx", "ax", "axe", "axge", "ue", "nfe", "msk", "fxp", "cxl", "mce",
                 "mlxen", "mlx", "lagg", "bridge", "tap", "tun", "tuns", "gif", "wg", "ovpns",
                 "ovpnc", "eth", "eno", "ens", "enp", "end", "wlan", "wlp", "bond", "vxlan",
                 "ppp", "wan", "lan", "net", "ten", "ether", "br", "lag")
KERNEL = re.compile(r"(?<![\w-])(?:" + "|".join(sorted(_KERNEL_KINDS, key=len, reverse=True))
                    + r")_?\d+(?:[a-z]\d+)*(?:_(?:vlan)?\d+)?(?:\.\d+)?(?![\w-])"
                    # docker's and veth's generated names: a hex tail with a digit in it
                    r"|(?<![\w-])(?:docker|veth)(?=[0-9a-f]*\d)[0-9a-f]{1,12}(?![\w-])", re.I)
# ports that carry no number, read only in a port's place (right after the device)
WORDLESS = re.compile(r"(?:wan|lan|wwan|mgmt|(?:br|pppoe|wg|tun)-[a-z0-9]+)", re.I)
_PORT_WORD = r"(?:port|interface|intf)"
_PLACED_SHAPE = re.compile(r"[A-Za-z]{0,2}\d+")  # ProCurve's A12, a bare 7 after "port"
# what may follow a device: an optional "port"/"interface", then one token of port characters
_AFTER = r"(?:\s+(?P<word>" + _PORT_WORD + r"))?\s+(?P<tok>[\w][\w./:-]*?)(?=[\s,;!?)]|[.:](?:\s|$)|$)"


def found(masked: str, names: Collection[str]) -> list[re.Match[str]]:
    """The port names in `masked` by their shape, left to right, except a word that is one of
    `names` (an inventory or stored device name: a device "lan1" is a device)."""
    hits = [m for rx in (MGMT_ETH, VENDOR, KERNEL) for m in rx.finditer(masked)
            if m.group(0).lower() not in names]
    hits.sort(key=lambda m: (m.start(), -m.end()))
    out: list[re.Match[str]] = []
    for m in hits:  # the longest at each place; none inside another
        if not out or m.start() >= out[-1].end():
            out.append(m)
    return out


def placed(raw: str, masked: str, typed: Iterable[str]) -> list[tuple[int, int, str]]:
    """Ports only their place says are ports: the token right after a device as the question
    typed it (`typed`), when no other pass read it. A number, letters with a number (`A12`,
    `1/1/38`, `0004:01:00.0`), or a known port word (`wan`, `br-lan`); a lone integer only
    after "port"/"interface" ("sw3 port 22"), since "sw3 3" says nothing."""
    out = []
    for name in dict.fromkeys(typed):
        rx = re.compile(rf"(?<![\w.-]){re.escape(name)}(?![\w-]){_AFTER}", re.I)
        for m in rx.finditer(raw):
            s, e = m.span("tok")
            tok = m.group("tok")
            if masked[s:e] != raw[s:e] or not _port_token(tok, bool(m.group("word"))):
                continue
            out.append((s, e, tok))
    return out


def _port_token(tok: str, said: bool) -> bool:
    """A port by its place: a port word, or a number-bearing token shaped as ports are and words
    are not (a letter or two then a number, `A12`; numbers with separators, `1/1/38`,
    `0004:01:00.0`, `mdio-bus:1f`); after "port"/"interface" any token with a number. "ipv6"
    or "bgp4" right after a device are words."""
    if WORDLESS.fullmatch(tok):
        return True
    if not any(c.isdigit() for c in tok):
        return False
    if said:
        return True
    return not tok.isdigit() and bool(_PLACED_SHAPE.fullmatch(tok) or re.search(r"[/:.]", tok))
