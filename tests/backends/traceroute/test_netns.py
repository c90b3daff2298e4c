"""`netopsai lab netns up|inject|down`: the real namespace lab, its inventory record, and the
command line end to end (tool traceroute and ask over real traceroute)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlmodel import Session, select

from netopsai.backends.netns.inject import inject
from netopsai.backends.netns.sh import in_ns, namespaces
from netopsai.common.errors import NetopsError
from netopsai.lab.scenario import Scenario
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai_testkit.peers.netns import needs_netns, netns_lab, unique_prefix

LAB_NET = __import__("ipaddress").ip_network("198.18.0.0/15")


@pytest.mark.integration
@needs_netns
def test_up_registers_the_lab_and_down_removes_exactly_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    from netopsai.store.engine import create_all

    create_all(engine)
    with Session(engine) as s:  # a row of someone else's: down must leave it
        s.add(m.Site(name="other-site"))
        s.commit()
    with netns_lab(home) as (eng, lab):
        assert set(lab.namespaces.values()) <= namespaces()
        with Session(eng) as s:
            devices = {d.name: d for d in s.exec(select(m.Device))}
            hosts = list(s.exec(select(m.HostAddress)))
            links = list(s.exec(select(m.Link)))
        assert set(devices) == set(lab.namespaces)
        assert {d.role for d in devices.values()} == {"host", "leaf", "spine", "border"}
        assert {lk.kind for lk in links} == {"host", "fabric", "backbone", "dci"}
        for h in hosts:  # each registered host address is really on its namespace
            assert h.ip in _addrs(lab.ns(h.device))
        for ns in lab.namespaces.values():  # nothing outside the benchmarking range
            assert all(__import__("ipaddress").ip_address(a) in LAB_NET for a in _addrs(ns))
        spine = lab.ns("ns-dc1-spine-01")
        assert in_ns(spine, "sysctl", "-n", "net.ipv4.ip_forward").strip() == "1"
        assert in_ns(spine, "sysctl", "-n", "net.ipv4.icmp_ratelimit").strip() == "0"
        assert "nexthop" in in_ns(lab.ns("ns-dc1-leaf-01"), "ip", "route")  # ECMP routes
        made = set(lab.namespaces.values())
    assert not made & namespaces()
    with Session(engine) as s:
        assert [x.name for x in s.exec(select(m.Site))] == ["other-site"]
        assert not list(s.exec(select(m.Device)))
        assert s.get(m.Meta, "netns_lab") is None


def _addrs(ns: str) -> set[str]:
    data = json.loads(in_ns(ns, "ip", "-j", "addr", "show"))
    return {a["local"] for i in data for a in i.get("addr_info", [])
            if a["family"] == "inet" and not a["local"].startswith("127.")}


@pytest.mark.integration
@needs_netns
def test_inject_rejects_unsupported_kinds_and_unknown_targets(tmp_path: Path) -> None:
    with netns_lab(tmp_path / "home", "tiny") as (engine, _):
        def bad(fault: dict[str, object]) -> str:
            with pytest.raises(NetopsError) as err:
                inject(engine, Scenario.model_validate({"id": "x", "faults": [fault]}))
            return str(err.value)
        assert "link_down, acl_block, blackhole, crc_errors, device_down" in bad(
            {"kind": "congestion", "target": {"link": "ns-dc1-leaf-01:Ethernet3"}})
        assert "ns-dc1-leaf-01" in bad({"kind": "device_down", "target": {"device": "ns-dc1-leaf-1"}})
        assert "outside" in bad({"kind": "blackhole", "target": {"device": "ns-dc1-spine-01"},
                                 "params": {"dst": "10.1.0.0/16"}})


def test_without_root_the_error_is_one_clear_line(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    from netopsai.backends.netns import lab as netns

    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(NetopsError, match="needs root"):
        netns.up(engine_for(f"sqlite:///{tmp_path / 'x.db'}"))


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NETOPSAI_HOME": str(home)}
    env.pop("DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "netopsai.cli", *args], capture_output=True,
                          text=True, env=env, timeout=300)


@pytest.mark.integration
@needs_netns
def test_cli_up_tool_ask_inject_down(tmp_path: Path) -> None:
    home, prefix = tmp_path / "home", unique_prefix()
    up = _cli(home, "lab", "netns", "up", "--prefix", prefix)
    try:
        assert up.returncode == 0, up.stderr
        src, dst = "198.18.17.20", "198.18.35.20"
        tr = _cli(home, "tool", "traceroute", json.dumps({"src": src, "dst": dst}), "--json")
        assert tr.returncode == 0, tr.stderr
        ev = json.loads(tr.stdout)
        assert ev["facts"]["reached"] and ev["rows"][-1]["device"] == "ns-dc2-host-03-1"
        sc = tmp_path / "acl.yaml"
        sc.write_text("id: acl\nfaults:\n  - kind: acl_block\n    target: {device: ns-dc2-leaf-03}\n"
                      "    params: {dst: 198.18.35.0/24}\n")
        inj = _cli(home, "lab", "netns", "inject", str(sc))
        assert inj.returncode == 0 and "acl_block ns-dc2-leaf-03" in inj.stdout, inj.stderr
        ask = _cli(home, "ask", f"{src} to {dst} not communicating", "--json")
        assert ask.returncode == 0, ask.stderr
        rc = json.loads(ask.stdout)["root_cause"]
        assert rc["label"] == "config.acl_block" and rc["device"] == "ns-dc2-leaf-03"
        pairs = tmp_path / "pairs.csv"
        pairs.write_text(f"src,dst\n{src},198.18.34.20\n{src},{dst}\n")
        batch = _cli(home, "batch", str(pairs), "--json")
        assert batch.returncode == 1, batch.stderr  # one pair blocked (fping-style exit)
        rows = {r["dst"]: r for r in map(json.loads, batch.stdout.splitlines())}
        assert rows["198.18.34.20"]["reachable"] and rows["198.18.34.20"]["cause"] is None
        assert rows[dst]["cause"] == "config.acl_block"
        assert rows[dst]["failing_device"] == "ns-dc2-leaf-03"
        sc.write_text("id: cut\nfaults:\n  - kind: link_down\n"
                      "    target: {link: \"ns-dc2-leaf-02:Ethernet1\"}\n")
        assert _cli(home, "lab", "netns", "inject", str(sc)).returncode == 0
        ask = _cli(home, "ask", f"{src} to 198.18.34.20 not communicating", "--json")
        rc = json.loads(ask.stdout)["root_cause"]  # the configured backends read live port state
        assert rc["label"] == "link.down", ask.stdout[:600]
        assert rc["device"] in ("ns-dc2-leaf-02", "ns-dc2-host-02-1")
        bad = _cli(home, "lab", "netns", "inject", str(tmp_path / "missing.yaml"))
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    finally:
        down = _cli(home, "lab", "netns", "down")
    assert down.returncode == 0, down.stderr
    assert not any(n.startswith(prefix) for n in namespaces())
