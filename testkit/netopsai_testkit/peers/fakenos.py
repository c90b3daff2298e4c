"""Cisco IOS devices served over real SSH by FakeNOS on 127.0.0.1, with state a test can change.

Each `IosDevice` answers the show commands NAPALM's ios driver sends (version, interfaces,
addresses, LLDP, running config, traceroute, ping) from its own fields, through FakeNOS custom
commands that are Python callables: change a field and the next SSH session sees it. The
exact traceroute/ping command lines (`traces`, `pings`) are registered at start, so set them first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from fakenos import FakeNOS

from netopsai_testkit.peers.process import free_port

PROMPTS = ["{base_prompt}>", "{base_prompt}#"]


@dataclass
class IosPort:
    name: str
    ip: str | None = None  # address/prefixlen
    description: str = ""
    up: bool = True
    enabled: bool = True
    mtu: int = 1500
    bw_kbit: int = 1_000_000


@dataclass
class IosDevice:
    hostname: str
    ports: dict[str, IosPort] = field(default_factory=dict)
    lldp: list[tuple[str, str, str]] = field(default_factory=list)  # local, peer, peer port
    config: list[str] = field(default_factory=list)  # running-config lines after the ports
    traces: dict[str, list[str]] = field(default_factory=dict)  # exact command -> hop lines
    pings: dict[str, str] = field(default_factory=dict)  # exact command -> result line
    uptime: str = "3 weeks, 2 days, 4 hours, 11 minutes"
    seen: list[str] = field(default_factory=list)  # every command this device answered

    def add_port(self, name: str, **kw: Any) -> IosPort:
        self.ports[name] = IosPort(name, **kw)
        return self.ports[name]

    def show_version(self) -> str:
        return (f"Cisco IOS Software, IOSv Software (VIOS-ADVENTERPRISEK9-M), Version 15.9(3)M4, "
                f"RELEASE SOFTWARE (fc3)\nTechnical Support: http://www.cisco.com/techsupport\n"
                f"ROM: Bootstrap program is IOSv\n\n{self.hostname} uptime is {self.uptime}\n"
                f"System returned to ROM by reload\nSystem image file is \"flash0:/vios-adventerprisek9-m\"\n"
                f"Cisco IOSv (revision 1.0) with 460137K/62464K bytes of memory.\n"
                f"Processor board ID 9KJ4NVW2XQ7{len(self.hostname)}\n"
                f"{len(self.ports)} Gigabit Ethernet interfaces\n"
                f"Configuration register is 0x2102\n")

    def show_ip_int_brief(self) -> str:
        lines = ["Interface                  IP-Address      OK? Method Status                Protocol"]
        for p in self.ports.values():
            status = "up" if p.enabled and p.up else ("administratively down" if not p.enabled else "down")
            ip = p.ip.split("/")[0] if p.ip else "unassigned"
            lines.append(f"{p.name:<27}{ip:<16}YES NVRAM  {status:<22}{'up' if p.up else 'down'}")
        return "\n".join(lines)

    def show_interfaces(self) -> str:
        out = []
        for n, p in enumerate(self.ports.values(), start=1):
            state = "administratively down" if not p.enabled else ("up" if p.up else "down")
            out.append(f"{p.name} is {state}, line protocol is {'up' if p.up else 'down'} ")
            out.append(f"  Hardware is iGbE, address is 5254.00ab.{n:04x} (bia 5254.00ab.{n:04x})")
            if p.description:
                out.append(f"  Description: {p.description}")
            out.append(f"  MTU {p.mtu} bytes, BW {p.bw_kbit} Kbit/sec, DLY 10 usec, ")
            out.append("     reliability 255/255, txload 1/255, rxload 1/255")
            out.append("  Encapsulation ARPA, loopback not set")
        return "\n".join(out)

    def show_ip_interface(self) -> str:
        out = []
        for p in self.ports.values():
            out.append(f"{p.name} is {'up' if p.up else 'down'}, line protocol is {'up' if p.up else 'down'}")
            out.append(f"  Internet address is {p.ip}" if p.ip else "  Internet protocol processing disabled")
            if p.ip:
                out.append(f"  Broadcast address is 255.255.255.255\n  MTU is {p.mtu} bytes")
        return "\n".join(out)

    def show_lldp_detail(self) -> str:
        blocks = []
        for local, peer, port in self.lldp:
            blocks.append(
                f"------------------------------------------------\nLocal Intf: {local}\n"
                f"Chassis id: 5254.00cd.{sum(map(ord, peer)) % 65536:04x}\nPort id: {port}\n"
                f"Port Description: {port}\nSystem Name: {peer}\n\nSystem Description: \n"
                f"Cisco IOS Software, IOSv Software\n\nTime remaining: 101 seconds\n"
                f"System Capabilities: B,R\nEnabled Capabilities: R\nManagement Addresses:\n"
                f"    IP: 10.250.9.{len(peer)}\nAuto Negotiation - not supported\n"
                f"Physical media capabilities - not advertised\n"
                f"Media Attachment Unit type - not advertised\nVlan ID: - not advertised\n")
        return "\n".join(blocks) + f"\nTotal entries displayed: {len(self.lldp)}\n"

    def running_config(self) -> str:
        lines = ["Building configuration...", "", "Current configuration : 2048 bytes", "!",
                 "version 15.9", f"hostname {self.hostname}", "!"]
        for p in self.ports.values():
            lines.append(f"interface {p.name}")
            if p.description:
                lines.append(f" description {p.description}")
            lines.append(f" ip address {_ios_addr(p.ip)}" if p.ip else " no ip address")
            if not p.enabled:
                lines.append(" shutdown")
            lines.append("!")
        return "\n".join(lines + self.config + ["end"])

    def traceroute(self, command: str) -> str:
        hops = self.traces.get(command)
        if hops is None:
            return "% Unrecognized host or address, or protocol not running."
        dst = command.split()[1]
        return ("Type escape sequence to abort.\nTracing the route to " + dst + "\n"
                "VRF info: (vrf in name/id, vrf out name/id)\n" + "\n".join(hops) + "\n")

    def ping(self, command: str) -> str:
        dst = command.split()[1]
        result = self.pings.get(command, "Success rate is 0 percent (0/5)")
        marks = "!!!!!" if "100 percent" in result else "....."
        return (f"Type escape sequence to abort.\nSending 5, 100-byte ICMP Echos to {dst}, "
                f"timeout is 2 seconds:\n{marks}\n{result}\n")

    def commands(self) -> dict[str, dict[str, Any]]:
        """FakeNOS custom commands; the callables read this object's current state."""
        table = {"show version": self.show_version, "show hosts": lambda: (
                     "Default domain is lab.example.net\nName/address lookup uses static mappings"),
                 "show ip interface brief": self.show_ip_int_brief,
                 "show interfaces": self.show_interfaces, "show ip interface": self.show_ip_interface,
                 "show ipv6 interface": lambda: "", "show lldp neighbors detail": self.show_lldp_detail,
                 "show running-config": self.running_config}
        cmds = {name: self._command(lambda _line, fn=fn: fn()) for name, fn in table.items()}
        for line in self.traces:
            cmds[line] = self._command(self.traceroute)
        for line in self.pings:
            cmds[line] = self._command(self.ping)
        return cmds

    def _command(self, render: Any) -> dict[str, Any]:
        # A plain function (not a bound method): FakeNOS deep-copies its command table, and a
        # deep copy of a bound method would copy this device's state with it.
        def output(_device: Any, **kw: Any) -> str:
            self.seen.append(kw["command"])
            return str(render(kw["command"]))
        return {"output": output, "prompt": PROMPTS, "help": "netopsai test command"}


def _ios_addr(ip: str) -> str:
    from ipaddress import ip_interface

    itf = ip_interface(ip)
    return f"{itf.ip} {itf.network.netmask}"


def _listening(port: int) -> bool:
    """Whether 127.0.0.1:port is in LISTEN state, read from /proc (a probe connection would
    make FakeNOS log a failed SSH handshake)."""
    want = f"0100007F:{port:04X}"
    with open("/proc/net/tcp") as f:
        return any(ln.split()[1] == want and ln.split()[3] == "0A" for ln in f.readlines()[1:])


class FakeIosNetwork:
    """Start FakeNOS serving `devices` over SSH on free loopback ports; `stop()` ends it."""

    def __init__(self, devices: list[IosDevice], username: str = "netops",
                 password: str = "fake-pass") -> None:
        self.devices = {d.hostname: d for d in devices}
        self.username, self.password = username, password
        self.ports: dict[str, int] = {}
        self.net: FakeNOS | None = None

    def start(self) -> FakeIosNetwork:
        hosts = {}
        for name, dev in self.devices.items():
            self.ports[name] = free_port()
            hosts[name] = {"username": self.username, "password": self.password,
                           "port": self.ports[name], "platform": "cisco_ios",
                           "server": {"plugin": "ParamikoSshServer",
                                      "configuration": {"address": "127.0.0.1", "timeout": 1}},
                           "nos": {"plugin": "cisco_ios", "configuration": {"commands": dev.commands()}}}
        self.net = FakeNOS(inventory={"hosts": hosts})
        self.net.start()
        deadline = time.monotonic() + 10
        while not all(_listening(p) for p in self.ports.values()):
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("FakeNOS did not start listening")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self.net is not None:
            sessions = [s for h in self.net.hosts.values() if h.server is not None
                        for s in list(getattr(h.server, "_active_sessions", ()))]
            self.net.stop()
            self.net = None
            # FakeNOS waits for a client's channel with no timeout (paramiko accept()), and
            # closing the transport does not wake it: a client that left without opening one (a
            # wrong password) kept a non-daemon thread, and its socket, alive, and the test
            # process hung at exit. Woken, accept() returns None and the thread ends.
            for session in sessions:
                with session.lock:
                    session.server_accept_cv.notify_all()
