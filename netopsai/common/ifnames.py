"""Interface names as vendors write them: `Hu0/0/0/8`, `HundredGigE0/0/0/8` and
`HundredGigabitEthernet0/0/0/8` are one port (netutils canonicalises them), and IOS-XR names a
port's optics controller by the port's numbers (`Optics0/0/0/8`). Used wherever a name from an
on-call, a log line or a trap meets a name from the inventory."""

from __future__ import annotations

import re
from functools import lru_cache

from netutils.constants import BASE_INTERFACES
from netutils.interface import abbreviated_interface_name, split_interface

# IOS-XR controllers that carry their port's numbers: an alarm on one is an alarm on the port
CONTROLLERS = ("optics", "coherentdsp", "dwdm")
_NUMBERS = re.compile(r"(\d+(?:[/:]\d+)*)(?:\.\d+)?$")  # 0/0/0/8, 1/1, 49; a .unit dropped


# Junos logical interfaces whose unit is the thing itself, not a slice of a port: secure
# tunnels (st0.60 and st0.61 are two IPsec tunnels), GRE/IP-IP/logical/virtual tunnels, IRB
# and VLAN interfaces (irb.100 is VLAN 100's SVI): their unit stays
_UNIT_IS_THE_PORT = re.compile(r"(?:st|irb|vlan|gr-|ip-|lt-|vt-)[\d/-]*\.\d+$", re.I)
# a kernel's own name (Linux, BSD, VyOS, SONiC's management port): `eth1`, `eth0.5` (a VLAN
# device of its own). No network OS prints Ethernet1 as "eth1" (NX-OS writes Eth1/33, with its
# slot; EOS Et1), and on SONiC eth0 and Ethernet0 are two ports: netutils' expansion of "eth"
# is a CLI abbreviation, not a name a log line carries, so these stay as printed
_KERNEL_NAME = re.compile(r"eth\d+(?:\.\d+)?", re.I)
_UNIT = re.compile(r"\.\d+$")


@lru_cache(maxsize=4096)
def canonical(name: str) -> str:
    """The long form, without a sub-interface or unit (`xe-0/0/0.0` -> `xe-0/0/0`), except
    where the unit is the interface (`st0.60`, `irb.100`); a kernel's `eth1` stays itself."""
    name = name.strip()
    if _KERNEL_NAME.fullmatch(name):
        return name
    full = _long(name)
    if "." not in full or _UNIT_IS_THE_PORT.fullmatch(name):
        return full
    return _UNIT.sub("", full)


def _long(name: str) -> str:
    """netutils' canonical_interface_name, its way (the name's type, up to its numbers, looked
    up in its table): that function copies the whole table into a new dict on every call, half
    of a storm's port names' cost (every port of a storm is new to the cache above)."""
    kind, numbers = split_interface(name)
    long = BASE_INTERFACES.get(kind)
    return name if long is None else long + numbers


def _numbers(name: str) -> str:
    m = _NUMBERS.search(name.strip())
    return m.group(1) if m else ""


def _controller(name: str) -> bool:
    return name.strip().lower().startswith(CONTROLLERS)


def same_port(a: str, b: str) -> bool:
    """Whether two names are the same port: the same canonical name, or an optics controller
    and the port with its numbers."""
    if canonical(a).lower() == canonical(b).lower():
        return True
    nums = _numbers(a)
    return bool(nums) and nums == _numbers(b) and (_controller(a) or _controller(b))


def match(names: list[str], written: str) -> str | None:
    """The inventory's name (one of `names`) for a port as someone wrote it, if any."""
    if written in names:
        return written
    return next((n for n in names if same_port(n, written)), None)


def forms(name: str) -> list[str]:
    """The ways a log line may write this port: as given, long, short, and (for a port with
    numbers) its IOS-XR optics controller."""
    long = canonical(name)
    if _KERNEL_NAME.fullmatch(name.strip()):  # no short form: "Et1" is another port's
        return [name]
    out = [name, long, abbreviated_interface_name(name),
           re.sub(r"^(\w+)GigabitEthernet", r"\1GigE", long)]  # IOS-XR's TenGigE, HundredGigE
    if _numbers(name).count("/") >= 3 and not _controller(name):  # rack/slot/instance/port
        out.append(f"Optics{_numbers(name)}")
    return list(dict.fromkeys(f for f in out if f))


def mentions(text: str, name: str) -> bool:
    """Whether a message names this port in any of its forms (not a longer number)."""
    return any(re.search(rf"(?<![\w/]){re.escape(f)}(?![\w/:])", text, re.I) for f in forms(name))
