"""common/ifnames.canonical looks netutils' table up itself (netutils' own function copies the
whole table on every call, half of a storm's per-port cost): it must answer what the
netutils-based version answered for every name a log line or a trap may carry."""

from __future__ import annotations

import re

from netutils.constants import BASE_INTERFACES
from netutils.interface import canonical_interface_name

from netopsai.common.ifnames import canonical

_UNIT_IS_THE_PORT = re.compile(r"(?:st|irb|vlan|gr-|ip-|lt-|vt-)[\d/-]*\.\d+$", re.I)
_KERNEL_NAME = re.compile(r"eth\d+(?:\.\d+)?", re.I)


def _reference(name: str) -> str:
    """The netutils-based canonical() as it was written before (4b906c9)."""
    if _KERNEL_NAME.fullmatch(name.strip()):
        return name.strip()
    full = canonical_interface_name(name.strip())
    if _UNIT_IS_THE_PORT.fullmatch(name.strip()):
        return full
    return re.sub(r"\.\d+$", "", full)


def _names() -> list[str]:
    numbers = ["1", "0/0/0/8", "1/1", "49", "1/0/1.100", "0/0/0.0", "2:1", " 1/2 ", "", "1.",
               "1/1.2.3", "0/1/2\\3"]
    names = [f"{kind}{n}" for kind in sorted(BASE_INTERFACES) for n in numbers]
    names += [f"{kind} {n}" for kind in ("Gi", "Ethernet", "Po") for n in numbers]
    names += ["eth0", "eth1.5", "ETH2", "Eth1/33", "Et1", "xe-0/0/0.0", "st0.60", "irb.100",
              "vlan.7", "gr-0/0/0.1", "lt-0/0/0.2", "ae0.0", "Optics0/0/0/8", "mgmt0", "lo0",
              "Loopback0", "  Gi1/0/1  ", "Tunnel5.3", "nve1", "unknown9/9", "", ".", "7",
              "HundredGigabitEthernet0/0/0/8", "TenGigE0/1/0/0.100", "Port-channel10.20"]
    return names


def test_canonical_answers_as_netutils_did() -> None:
    names = _names()
    assert len(names) > 1000  # the table is walked, not a handful
    canonical.cache_clear()
    differ = [(n, canonical(n), _reference(n)) for n in names if canonical(n) != _reference(n)]
    assert differ == []


def test_a_known_short_form_is_expanded_and_its_unit_dropped() -> None:
    canonical.cache_clear()
    assert canonical("Hu0/0/0/8.100") == "HundredGigabitEthernet0/0/0/8"
    assert canonical("Gi1/0/1") == "GigabitEthernet1/0/1"
    assert canonical("st0.60") == "st0.60" and canonical("eth1") == "eth1"
