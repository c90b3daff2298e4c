"""A kernel's port names are its own (issue 24 item 3): a Linux/BSD/VyOS `eth1` is stored and
shown as `eth1`, never as Cisco's `Ethernet1`, and on SONiC `eth0` (the management port) and
`Ethernet0` (a front-panel port) are two ports. Real abbreviations still meet the inventory's
long names (`Gi2/0/11` is GigabitEthernet2/0/11, NX-OS `Eth1/33` is Ethernet1/33).

Lines are from bench/real_logs by id, each with its source in the corpus:
- linux_nic-0636..0644: an XCP-ng host's igc eth1 bouncing (xcp-ng forum paste);
- sonic-0009..0011 and sonic-0001: a SONiC switch's eth0 and Ethernet0 in portsyncd's lines;
- cisco_ios-0305: a Catalyst's BPDU guard disabling Gi2/0/11.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.backends.syslog.files import load_files
from netopsai.common.ifnames import canonical, match, same_port
from netopsai.store import tables as m
from netopsai.store.engine import create_all, engine_for
from tests.real_logs_kit import corpus

XCP = [f"linux_nic-{n:04d}" for n in range(636, 645)]


@pytest.fixture
def store(tmp_path: Path) -> Engine:
    engine = engine_for(f"sqlite:///{tmp_path / 'ports.db'}")
    create_all(engine)
    return engine


def _load(engine: Engine, tmp_path: Path, ids: list[str], written: str,
          device: str | None = None) -> None:
    path = tmp_path / f"{ids[0]}.log"
    path.write_text("".join(corpus()[i]["line"] + "\n" for i in ids))
    stamp = datetime.fromisoformat(written).replace(tzinfo=UTC).timestamp()
    os.utime(path, (stamp, stamp))
    load_files(str(engine.url), [path], device=device)


def _stored(engine: Engine) -> tuple[set[str | None], set[str | None]]:
    with Session(engine) as s:
        lines = {r.interface for r in s.exec(select(m.RawEvent))}
        alarms = {a.interface for a in s.exec(select(m.Alarm))}
    return lines, alarms


def test_a_linux_hosts_eth1_is_stored_as_printed(store: Engine, tmp_path: Path) -> None:
    _load(store, tmp_path, XCP, "2023-11-07")
    lines, alarms = _stored(store)
    assert lines == {"eth1"} and corpus()[XCP[0]]["expect"]["interface"] == "eth1"
    assert alarms and alarms <= {"eth1"}  # its flap and down alarms name eth1 too


def test_sonic_eth0_is_not_its_ethernet0(store: Engine, tmp_path: Path) -> None:
    """SONiC's management port eth0 is stored as eth0; the corpus labels it so, and labels
    Ethernet0 (sonic-0001) as another port."""
    _load(store, tmp_path, ["sonic-0009", "sonic-0010", "sonic-0011"], "2021-02-16")
    lines, _ = _stored(store)
    assert lines == {"eth0"}
    eth0, front = (corpus()[i]["expect"]["interface"] for i in ("sonic-0009", "sonic-0001"))
    assert (eth0, front) == ("eth0", "Ethernet0") and not same_port(eth0, front)


def test_a_real_abbreviation_still_meets_the_inventory(store: Engine, tmp_path: Path) -> None:
    with Session(store) as s:
        s.add(m.Device(name="sw2", role="access", site="s1", mgmt_ip="192.0.2.2", vendor="cisco"))
        s.add(m.Interface(device="sw2", name="GigabitEthernet2/0/11"))
        s.commit()
    _load(store, tmp_path, ["cisco_ios-0305"], "2020-10-22", device="sw2")
    lines, _ = _stored(store)
    assert lines == {"GigabitEthernet2/0/11"}


@pytest.mark.parametrize(("inventory", "written"), [
    (["Ethernet1/33", "eth1"], "Eth1/33"),  # NX-OS prints its slot
    (["GigabitEthernet1/0/1"], "Gi1/0/1"),
    (["Ethernet1", "eth1"], "eth1"),
    (["Ethernet1"], "Et1"),
])
def test_abbreviations_by_what_they_abbreviate(inventory: list[str], written: str) -> None:
    want = {"Eth1/33": "Ethernet1/33", "Gi1/0/1": "GigabitEthernet1/0/1", "eth1": "eth1",
            "Et1": "Ethernet1"}[written]
    assert match(inventory, written) == want


def test_kernel_names_keep_their_vlan_unit() -> None:
    """vyos-0024 and linux_nic-0207 name a VLAN device (eth3.10, eth0.1): a port of its own."""
    for rid in ("vyos-0024", "linux_nic-0207"):
        name = corpus()[rid]["expect"]["interface"]
        assert canonical(name) == name and not same_port(name, name.split(".")[0])
    assert match(["Ethernet1"], "eth1") is None  # no inventory Ethernet1 for a kernel's eth1
