"""NAPALM discovery keeps every address a device reports on an interface (get_interfaces_ip:
IPv4 secondaries and IPv6), so the inventory finds the device by any of them (issue 24 item 5),
and a later discovery that reports fewer takes the dropped ones away."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pydantic import SecretStr
from sqlalchemy import Engine

from netopsai.backends.napalm.device import DeviceTarget
from netopsai.backends.napalm.discovery import discover
from netopsai.common.errors import NetopsError
from netopsai.store.inventory import StoreInventory
from tests.paths import DATA
from tests.store_helpers import empty_store

OK = DATA / "napalm" / "ok"


def _target(folder: Path, addresses: dict[str, object]) -> DeviceTarget:
    """The recorded `ok` device (the napalm mock driver replays its getters), its interface
    addresses as given."""
    shutil.copytree(OK, folder)
    (folder / "get_interfaces_ip.1").write_text(json.dumps(addresses))
    return DeviceTarget(host="edge-r1.lab.example.net", driver="mock", username="netops",
                        password=SecretStr("x"), name="edge-r1",
                        optional_args={"path": str(folder)})


def _owner(engine: Engine, ip: str) -> tuple[str | None, str | None]:
    try:
        got = StoreInventory(engine).ip_owner(ip)
    except NetopsError:  # not in the inventory
        return None, None
    return got.get("device"), got.get("interface")


def test_discovery_keeps_every_address_of_an_interface(tmp_path: Path) -> None:
    engine = empty_store(tmp_path)
    recorded = json.loads((OK / "get_interfaces_ip.1").read_text())
    port = next(p for p in recorded if not p.lower().startswith("loopback"))
    more = {**recorded, port: {"ipv4": {**recorded[port]["ipv4"], "198.51.100.1": {"prefix_length": 24}},
                               "ipv6": {"2001:db8:0:12::1": {"prefix_length": 64}}}}
    result = discover(engine, [_target(tmp_path / "first", more)])
    assert not result.errors, result.errors
    device = result.devices[0]
    first = next(iter(recorded[port]["ipv4"]))
    for ip in (first, "198.51.100.1", "2001:db8:0:12::1"):
        assert _owner(engine, ip) == (device, port), ip
    result = discover(engine, [_target(tmp_path / "second", recorded)])  # the extras removed
    assert not result.errors, result.errors
    assert _owner(engine, first) == (device, port)
    assert _owner(engine, "2001:db8:0:12::1") == (None, None)
