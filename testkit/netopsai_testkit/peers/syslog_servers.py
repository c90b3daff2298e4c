"""Real syslog servers on loopback, started by a test or bench harness with their own config in a
temporary folder: rsyslog (`rsyslogd -n -f CONF -i PIDFILE`) and syslog-ng (`syslog-ng -F -f
CONF -p PIDFILE --persist-file … --control …`). Never the system service, never /etc: each
listens on an unprivileged UDP port of 127.0.0.1 and writes only into its folder.

What each writes, in the forms syslog servers commonly leave behind:
- rsyslog: `rsyslog-traditional.log` (RSYSLOG_TraditionalFileFormat), `rsyslog-rfc3339.log`
  (RSYSLOG_FileFormat), and every message forwarded as RFC 5424 (RSYSLOG_SyslogProtocol23Format)
  over UDP to a port the caller captures raw (`UdpCapture`).
- syslog-ng: `syslog-ng.log` (its default file format) and every message relayed over UDP by a
  `network()` destination (its default, legacy BSD header) to another captured port.

Debian ships rsyslog and syslog-ng-core as conflicting packages (both provide
system-log-daemon), so scripts/system-deps.sh installs syslog-ng-core and unpacks rsyslog's
package into /opt/rsyslog; either binary is also found on PATH. `missing()` says why a server
cannot run (for pytest.skip)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from netopsai_testkit.peers.process import free_port, stop

RSYSLOG_UNPACKED = Path("/opt/rsyslog")  # where system-deps.sh unpacks the package


def rsyslogd() -> tuple[str, str | None] | None:
    """(binary, module folder or None for the built-in one), or None when rsyslog is absent."""
    unpacked = RSYSLOG_UNPACKED / "usr/sbin/rsyslogd"
    if unpacked.is_file():
        return str(unpacked), str(RSYSLOG_UNPACKED / "usr/lib/x86_64-linux-gnu/rsyslog")
    system = Path("/usr/sbin/rsyslogd")
    found = shutil.which("rsyslogd") or (str(system) if system.is_file() else None)
    return (found, None) if found else None


def syslog_ng() -> str | None:
    found = shutil.which("syslog-ng")
    return found or ("/usr/sbin/syslog-ng" if Path("/usr/sbin/syslog-ng").is_file() else None)


def missing() -> str | None:
    """Why the real servers cannot run here, or None."""
    gone = [name for name, have in (("rsyslog", rsyslogd()), ("syslog-ng-core", syslog_ng()))
            if not have]
    if gone:
        return (f"{' and '.join(gone)} not installed (scripts/system-deps.sh installs them; "
                "Debian: apt-get install syslog-ng-core, rsyslog unpacked into /opt/rsyslog)")
    return None


class UdpCapture:
    """A UDP listener on 127.0.0.1 that keeps every datagram as received (a relay's output)."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = int(self.sock.getsockname()[1])
        self.datagrams: list[tuple[bytes, str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"udp-capture-{self.port}",
                                        daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                data, addr = self.sock.recvfrom(65535)
            except TimeoutError:
                continue
            except OSError:
                return
            self.datagrams.append((data, addr[0]))

    def texts(self) -> list[str]:
        return [d.decode("utf-8", "replace") for d, _ in list(self.datagrams)]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.sock.close()


class _Server:
    name = "server"
    files: tuple[tuple[str, str], ...] = ()  # (form, file name)

    def __init__(self, folder: Path) -> None:
        self.dir = folder
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port(socket.SOCK_DGRAM)
        self.capture = UdpCapture()
        self.proc: subprocess.Popen[Any] | None = None
        self.log = self.dir / f"{self.name}.stderr"

    def command(self) -> list[str]:
        raise NotImplementedError

    def start(self) -> None:
        with self.log.open("wb") as err:
            self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                         stdout=err, stderr=subprocess.STDOUT)

    def outputs(self) -> dict[str, list[str]]:
        """Each output form's lines so far: the files, then the relayed datagrams."""
        out: dict[str, list[str]] = {}
        for form, fname in self.files:
            path = self.dir / fname
            out[form] = (path.read_text("utf-8", "replace").splitlines()
                         if path.exists() else [])
        out[self.relay_form] = self.capture.texts()
        return out

    relay_form = "relay"

    def wait_for(self, marker: str, timeout: float = 30) -> None:
        """Until `marker` is in every output; a clear error with the server's log if not."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited {self.proc.returncode}: "
                                   f"{self.log.read_text()[-2000:]}")
            outs = self.outputs()
            if all(any(marker in line for line in lines) for lines in outs.values()):
                return
            time.sleep(0.1)
        have = {k: sum(marker in x for x in v) for k, v in self.outputs().items()}
        raise RuntimeError(f"{self.name}: {marker!r} not in every output after {timeout:.0f} s "
                           f"({have}); log: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)
        self.capture.close()


class Rsyslog(_Server):
    name = "rsyslog"
    files = (("rsyslog_traditional", "rsyslog-traditional.log"),
             ("rsyslog_rfc3339", "rsyslog-rfc3339.log"))
    relay_form = "rsyslog_fwd_rfc5424"

    def command(self) -> list[str]:
        found = rsyslogd()
        if found is None:
            raise RuntimeError(missing() or "rsyslog missing")
        binary, modules = found
        d = self.dir
        # One ruleset for the network input only: rsyslog's own start-up messages stay out of
        # the files. DNS off: the header host of a sender that names none is its address.
        conf = f"""global(workDirectory="{d}" net.enableDNS="off" maxMessageSize="64k")
module(load="imudp")
input(type="imudp" address="127.0.0.1" port="{self.port}" ruleset="net")
ruleset(name="net") {{
  action(type="omfile" file="{d}/rsyslog-traditional.log" template="RSYSLOG_TraditionalFileFormat")
  action(type="omfile" file="{d}/rsyslog-rfc3339.log" template="RSYSLOG_FileFormat")
  action(type="omfwd" target="127.0.0.1" port="{self.capture.port}" protocol="udp"
         template="RSYSLOG_SyslogProtocol23Format")
}}
"""
        (d / "rsyslog.conf").write_text(conf)
        cmd = [binary, "-n", "-f", str(d / "rsyslog.conf"), "-i", str(d / "rsyslog.pid")]
        return cmd + (["-M", modules] if modules else [])


class SyslogNg(_Server):
    name = "syslog-ng"
    files = (("syslogng_file", "syslog-ng.log"),)
    relay_form = "syslogng_relay"

    def command(self) -> list[str]:
        binary = syslog_ng()
        if binary is None:
            raise RuntimeError(missing() or "syslog-ng missing")
        d = self.dir
        # Debian's own options (no DNS, no chained names), plus keep-hostname(yes) as a relay
        # is set up (the name the device gives survives; a sender naming none gets its address).
        conf = f"""@version: 3.38
options {{ chain_hostnames(off); flush_lines(0); use_dns(no); use_fqdn(no); dns_cache(no);
  keep_hostname(yes); stats_freq(0); log_msg_size(65536); }};
source s_net {{ network(ip("127.0.0.1") port({self.port}) transport("udp")
  so_rcvbuf(4194304)); }};
destination d_file {{ file("{d}/syslog-ng.log"); }};
destination d_relay {{ network("127.0.0.1" port({self.capture.port}) transport("udp")); }};
log {{ source(s_net); destination(d_file); destination(d_relay); }};
"""
        (d / "syslog-ng.conf").write_text(conf)
        return [binary, "-F", "-f", str(d / "syslog-ng.conf"), "-p", str(d / "syslog-ng.pid"),
                "--persist-file", str(d / "syslog-ng.persist"),
                "--control", str(d / "syslog-ng.ctl"), "--no-caps"]


SERVERS = (Rsyslog, SyslogNg)
