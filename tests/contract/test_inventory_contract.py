"""The Inventory contract, for every store the inventory can come from (conftest.INVENTORY): the
embedded lab, a real network written by import/poll, NAPALM discovery, the namespace lab."""

from __future__ import annotations

import pytest

from netopsai.common.errors import NetopsError
from tests.contract.cases import Case


def test_clock_is_an_aware_time_not_before_the_data(inventory_case: Case) -> None:
    # the lab's own clock ends its data window; a real network's clock is now
    clock = inventory_case.backends.inventory.clock()
    assert clock.tzinfo is not None and clock >= inventory_case.window.end


def test_sites_and_devices_have_the_contract_shape(inventory_case: Case) -> None:
    inv = inventory_case.backends.inventory
    sites = inv.sites()
    assert sites and all({"site", "region", "pods", "network_devices", "hosts"} <= set(s) for s in sites)
    devices = inv.devices(None, None, None, None)
    names = {d["name"] for d in devices}
    assert set(inventory_case.devices) <= names
    assert all({"name", "role", "site"} <= set(d) and d["role"] != "host" for d in devices)
    assert sum(s["network_devices"] for s in sites) == len(devices)


def test_one_device_and_its_interfaces(inventory_case: Case) -> None:
    inv = inventory_case.backends.inventory
    name = inventory_case.devices[0]
    dev = inv.device(name)
    ports = inv.interfaces(name)
    assert dev["name"] == name and dev["interfaces"] == len(ports) > 0
    assert all(p["device"] == name and isinstance(p["name"], str) for p in ports)
    for n in inv.neighbors(name):
        assert {"interface", "neighbor", "neighbor_interface", "status"} <= set(n)


def test_an_address_maps_back_to_its_device(inventory_case: Case) -> None:
    inv = inventory_case.backends.inventory
    name = inventory_case.devices[0]
    with_ip = [p for p in inv.interfaces(name) if p.get("ip")]
    dev = inv.device(name)
    ip = with_ip[0]["ip"].split("/")[0] if with_ip else dev.get("loopback") or dev.get("mgmt_ip")
    if not ip:
        pytest.skip(f"{name} has no address in the {inventory_case.name} inventory")
    assert inv.ip_owner(ip)["device"] == name


def test_unknown_names_are_clear_errors(inventory_case: Case) -> None:
    inv = inventory_case.backends.inventory
    with pytest.raises(NetopsError, match=r"^unknown device 'no-such-device-9'"):
        inv.device("no-such-device-9")
    with pytest.raises(NetopsError, match=r"^unknown site 'no-such-site'"):
        inv.check_names(site="no-such-site")


def test_names_in_another_case_are_spelled_as_the_inventory_does(inventory_case: Case) -> None:
    inv = inventory_case.backends.inventory
    name = inventory_case.devices[0]
    other = name.swapcase()
    assert inv.spelled([other, name, "no-such-device-9"]) == {other: name}
