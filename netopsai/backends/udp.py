"""The receiving path of the UDP receivers (syslog, traps): a socket read on a thread of its own
that does no parsing. It blocks for a datagram, then drains everything else the kernel holds
(up to DRAIN) without blocking, and hands the whole batch, stamped with one receive time, to
`take` — the queued writer's `put_raw`, which spools it in one append. Each datagram is
stamped with the time it was read (microseconds since the epoch). Parsing happens behind
the spool, on the writer's side, so a storm is taken off the socket at the rate the kernel
delivers it, not at the rate the parser or the store can go.

The socket asks for a receive buffer of RCVBUF bytes (as root beyond net.core.rmem_max, with
SO_RCVBUFFORCE), so the kernel holds a burst while the thread waits for the interpreter. What
the kernel still dropped is read from /proc/net/udp (the socket's own `drops` column)."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger("netopsai.ingest")
RCVBUF = 64 * 1024 * 1024
DRAIN = 2048  # datagrams handed over at once at most
MAX_DATAGRAM = 65535
SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)  # Linux; Python does not name it

Address = tuple[Any, ...]  # (host, port) or (host, port, flowinfo, scope_id)
Datagrams = list[tuple[bytes, Address, int]]  # the datagram, its sender, when it was read (µs)
Take = Callable[[Datagrams], int]  # takes a drained batch; returns how many it kept


class UdpIntake:
    """Listens on host:port (0 = a free port; `port` is the bound one after `start`).
    `received`: datagrams `take` kept; `refused`: those it did not (a wrong community)."""

    def __init__(self, name: str, host: str, port: int, take: Take) -> None:
        self.name, self.host, self.port, self.take = name, host, port, take
        self.received = self.refused = self.errors = 0
        self._drops = 0  # the kernel's count when the socket was closed
        self.sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stopping = False

    def start(self) -> None:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_DGRAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
            with contextlib.suppress(OSError):  # root may go past net.core.rmem_max
                sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
            sock.bind((self.host, self.port))
        except BaseException:
            sock.close()
            raise
        self.sock, self.port = sock, sock.getsockname()[1]
        self._thread = threading.Thread(target=self._loop, name=f"netopsai-{self.name}",
                                        daemon=True)
        self._thread.start()

    @property
    def rcvbuf(self) -> int:
        """The receive buffer the kernel granted (bytes, its own doubled figure)."""
        return self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF) if self.sock else 0

    def kernel_drops(self) -> int:
        """Datagrams the kernel dropped for this socket (its receive buffer was full)."""
        return socket_drops(self.sock) if self.sock is not None else self._drops

    def kernel_queue(self) -> int:
        """Bytes waiting in the kernel for this socket, not yet read."""
        return self.kernel_counts()[1]

    def kernel_counts(self) -> tuple[int, int]:
        """(datagrams dropped, bytes waiting) from one read of the socket's /proc row: the
        kernel's side of the backlog, before the receiving thread took it."""
        row = _proc_row(self.sock) if self.sock is not None else None
        if row is None:
            return self._drops, 0
        return int(row[12]), int(row[4].split(":")[1], 16)

    def _loop(self) -> None:
        assert self.sock is not None
        recv, clock = self.sock.recvfrom, time.time_ns
        while not self._stopping:
            try:
                data, addr = recv(MAX_DATAGRAM)
            except OSError:
                if self._stopping:
                    return
                self.errors += 1
                time.sleep(0.01)
                continue
            if self._stopping:
                return
            batch: Datagrams = [(data, addr, clock() // 1000)]
            while len(batch) < DRAIN:
                try:
                    data, addr = recv(MAX_DATAGRAM, socket.MSG_DONTWAIT)
                except (BlockingIOError, InterruptedError):
                    break
                batch.append((data, addr, clock() // 1000))
            self._hand_over(batch)

    def _hand_over(self, batch: Datagrams) -> None:
        try:
            kept = self.take(batch)
        except Exception:  # a receiver must outlive any one batch
            self.errors += 1
            log.exception("%s: %d datagrams not taken in", self.name, len(batch))
            return
        self.received += kept
        self.refused += len(batch) - kept

    def stop(self) -> None:
        """Stop reading (what was taken in is the writer's); close the socket."""
        self._stopping = True
        if self.sock is None:
            return
        with contextlib.suppress(OSError):  # ENOTCONN is expected: it still wakes the read
            self.sock.shutdown(socket.SHUT_RD)
        if self._thread is not None:
            self._thread.join(10)
        self._drops = socket_drops(self.sock)
        self.sock.close()
        self.sock = None


def _proc_row(sock: socket.socket) -> list[str] | None:
    """This socket's row of /proc/net/udp (or udp6), found by its inode."""
    inode = str(os.fstat(sock.fileno()).st_ino)
    for table in ("udp", "udp6"):
        try:
            lines = Path(f"/proc/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 12 and fields[9] == inode:
                return fields
    return None


def socket_drops(sock: socket.socket) -> int:
    row = _proc_row(sock)
    return int(row[12]) if row else 0
