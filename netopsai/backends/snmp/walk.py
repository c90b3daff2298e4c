"""Read system facts and the IF-MIB interface table of many SNMP agents at once (pysnmp 7, asyncio).

OIDs are numeric: no MIB files are needed (nor available offline). Each device is read with a
GET of the system scalars and one multi-column GETBULK walk of the interface columns; devices
run concurrently under a semaphore. A device that does not answer (down, or a community it
rejects: v2c agents drop those silently) comes back as a failed reading naming the device.

Big chassis and slow agents: the walk starts with one column per GETBULK and widens while
answers come back quickly; a request that times out is asked again narrower and waited for
longer (up to 16 times the configured timeout); a walk that passes its deadline returns what it
read, marked partial with the reason.
ifXTable columns are optional: an agent without them still gives its ifTable."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any

from netopsai.backends.snmp.auth import SnmpTarget

SYS = {"sys_descr": "1.3.6.1.2.1.1.1.0", "sys_uptime": "1.3.6.1.2.1.1.3.0",
       "sys_name": "1.3.6.1.2.1.1.5.0"}
IF_COLUMNS = {  # ifTable (2.2.1.x) and ifXTable (31.1.1.1.x)
    "descr": "1.3.6.1.2.1.2.2.1.2", "admin": "1.3.6.1.2.1.2.2.1.7", "oper": "1.3.6.1.2.1.2.2.1.8",
    "in_discards": "1.3.6.1.2.1.2.2.1.13", "in_errors": "1.3.6.1.2.1.2.2.1.14",
    "out_discards": "1.3.6.1.2.1.2.2.1.19",
    "name": "1.3.6.1.2.1.31.1.1.1.1", "in_octets": "1.3.6.1.2.1.31.1.1.1.6",
    "out_octets": "1.3.6.1.2.1.31.1.1.1.10", "speed_mbps": "1.3.6.1.2.1.31.1.1.1.15",
}
STATUS = {1: "up", 2: "down", 3: "testing", 4: "unknown", 5: "dormant", 6: "notPresent",
          7: "down"}  # lowerLayerDown is down as far as traffic goes
MAX_REQUESTS = 5000  # per walk: ~300,000 interface rows, far beyond any device
MAX_VARBINDS = 60  # per response: snmpsim caps at 64, real agents truncate big responses
WALK_DEADLINE_S = 120.0  # one device's interface walk; then what was read is kept, as partial
PATIENCE = 16  # a slow agent's request timeout may grow to this many times the configured one


OnReading = Callable[[int, "DeviceReading"], None]  # (index in the targets, its reading)


@dataclass
class IfReading:
    index: int
    name: str = ""
    descr: str = ""
    admin: str = "unknown"
    oper: str = "unknown"
    speed_mbps: int = 0
    in_octets: int | None = None
    out_octets: int | None = None
    in_errors: int | None = None
    in_discards: int | None = None
    out_discards: int | None = None


@dataclass
class DeviceReading:
    target: SnmpTarget
    at: datetime
    ok: bool = False
    error: str = ""
    sys_name: str = ""
    sys_descr: str = ""
    uptime_cs: int | None = None  # sysUpTime in hundredths of a second
    interfaces: dict[int, IfReading] = field(default_factory=dict)
    elapsed_s: float = 0.0
    partial: str = ""  # why the interface table is incomplete (ok is still True)

    @property
    def device(self) -> str:
        """The inventory name: the configured one, else the agent's sysName, else host:port."""
        return self.target.name or self.sys_name or self.target.endpoint


class SnmpFailure(Exception):
    """A device-level failure whose message is safe to show (never carries credentials)."""


class SnmpTimeout(SnmpFailure):
    """No answer in time: the request may be too big for the agent."""


def _text(v: Any) -> str:
    return bytes(v.asOctets()).decode("utf-8", "replace").strip("\x00 ").strip()


def _set(row: IfReading, key: str, v: Any) -> None:
    if key in ("descr", "name"):
        setattr(row, key, _text(v))
    elif key in ("admin", "oper"):
        setattr(row, key, STATUS.get(int(v), "unknown"))
    else:
        setattr(row, key, int(v))


class _Session:
    """One device's engine calls with its auth, transport and timeout."""

    def __init__(self, engine: Any, target: SnmpTarget, transport: Any) -> None:
        import pysnmp.hlapi.v3arch.asyncio as h

        self.h, self.engine, self.target, self.transport = h, engine, target, transport
        self.base_timeout = float(transport.timeout)
        self.auth = target.auth.pysnmp_auth()
        self.ctx = h.ContextData(contextName=target.auth.context) if target.auth.context \
            else h.ContextData()

    def _check(self, err_ind: Any, err_status: Any, err_index: Any) -> None:
        if err_ind:
            kind = type(err_ind).__name__
            if "Timed" in kind or "timed out" in str(err_ind).lower():
                t = self.transport
                raise SnmpTimeout(f"no SNMP response from {self.target.label} within "
                                  f"{t.timeout:g} s x {t.retries + 1} tries "
                                  f"(unreachable, or the credentials were rejected)")
            raise SnmpFailure(f"SNMP error from {self.target.label}: {err_ind}")
        if err_status and int(err_status):
            raise SnmpFailure(f"SNMP error from {self.target.label}: {err_status.prettyPrint()} "
                              f"at varbind {int(err_index)}")

    async def get(self, oids: list[str]) -> list[Any]:
        h = self.h
        res = await h.get_cmd(self.engine, self.auth, self.transport, self.ctx,
                              *[h.ObjectType(h.ObjectIdentity(o)) for o in oids], lookupMib=False)
        self._check(*res[:3])
        return [vb[1] for vb in res[3]]

    async def slower(self) -> bool:
        """Wait longer for each answer (an agent busy with a big table, or still working on
        the requests that timed out); False once the wait is already at its limit."""
        t = self.transport
        if t.timeout >= self.base_timeout * PATIENCE:
            return False
        self.transport = await self.h.UdpTransportTarget.create(
            (self.target.host, self.target.port), timeout=t.timeout * 2, retries=t.retries)
        return True

    async def bulk(self, keys: list[str], last: dict[str, tuple[int, ...]], reps: int) -> Any:
        h = self.h
        res = await h.bulk_cmd(self.engine, self.auth, self.transport, self.ctx, 0, reps,
                               *[h.ObjectType(h.ObjectIdentity(".".join(map(str, last[k]))))
                                 for k in keys], lookupMib=False)
        self._check(*res[:3])
        return res[3]

    async def walk(self, columns: dict[str, str], deadline_s: float | None = None,
                   ) -> tuple[dict[int, IfReading], str]:
        """Walk several table columns in GETBULK chains; a column ends when it leaves its
        subtree (or an agent stops increasing its OIDs), and rows are keyed by ifIndex. Returns
        the rows and, when the walk stopped early, why."""
        deadline_s = WALK_DEADLINE_S if deadline_s is None else deadline_s
        rows: dict[int, IfReading] = {}
        prefixes = {key: tuple(int(x) for x in oid.split(".")) for key, oid in columns.items()}
        last = dict(prefixes)  # where each column's walk has got to
        loop = asyncio.get_running_loop()
        # columns per request: an agent's cost grows with columns far more than with
        # repetitions, so start with one and widen while answers come back quickly
        cols, ceiling, end = 1, len(columns), loop.time() + deadline_s
        for _ in range(MAX_REQUESTS):
            if not last:
                return rows, ""
            if loop.time() > end:
                done = len(columns) - len(last)
                return rows, (f"interface walk stopped after {deadline_s:g} s (a slow agent): "
                              f"{done} of {len(columns)} columns read for {len(rows)} "
                              "interfaces; the others are unknown for this poll")
            keys = list(last)[:cols]
            t0 = loop.time()
            try:
                vbs = await self.bulk(keys, last, max(1, MAX_VARBINDS // len(keys)))
            except SnmpTimeout:  # fewer columns, and more patience, until answers come
                if not await self.slower() and cols == 1:
                    raise
                ceiling = cols = max(1, cols // 2)  # never again as wide as what timed out
                continue
            if loop.time() - t0 < self.transport.timeout / 4:
                cols = min(ceiling, cols * 2)
            for key in _take(keys, prefixes, vbs, rows, last):
                last.pop(key)
        raise SnmpFailure(f"SNMP walk of {self.target.label} did not end after {MAX_REQUESTS} "
                          "requests (an agent that keeps answering without progress)")


_END = ("EndOfMibView", "NoSuchObject", "NoSuchInstance", "Null")


def _take(keys: list[str], prefixes: dict[str, tuple[int, ...]], vbs: Any,
          rows: dict[int, IfReading], last: dict[str, tuple[int, ...]]) -> set[str]:
    """Fold one GETBULK response (rows of len(keys) varbinds) into `rows`; the finished columns."""
    done: set[str] = set() if vbs else set(keys)
    for i, (name, val) in enumerate(vbs):
        key = keys[i % len(keys)]
        if key in done:
            continue
        oid, pre = tuple(name), prefixes[key]
        if oid[:len(pre)] != pre or oid <= last[key] or type(val).__name__ in _END:
            done.add(key)
            continue
        _set(rows.setdefault(oid[-1], IfReading(oid[-1])), key, val)
        last[key] = oid
    return done


async def read_device(engine: Any, target: SnmpTarget, timeout: float, retries: int) -> DeviceReading:
    import pysnmp.hlapi.v3arch.asyncio as h

    reading = DeviceReading(target=target, at=datetime.now(UTC))
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    try:
        transport = await h.UdpTransportTarget.create((target.host, target.port),
                                                      timeout=timeout, retries=retries)
        sess = _Session(engine, target, transport)
        descr, uptime, name = await sess.get(list(SYS.values()))
        # a scalar the agent lacks (noSuchObject/-Instance: a partial view) is unknown, not a failure
        reading.sys_descr, reading.sys_name = _text(descr), _text(name)
        reading.uptime_cs = None if type(uptime).__name__ in _END else int(uptime)
        reading.interfaces, reading.partial = await sess.walk(IF_COLUMNS)
        reading.ok = True
    except SnmpFailure as exc:
        reading.error = str(exc)
    except Exception as exc:  # a bad host name, a malformed response: name the device only
        reading.error = f"SNMP poll of {target.label} failed: {type(exc).__name__}"
    reading.elapsed_s = loop.time() - t0
    return reading


def _engine_key(target: SnmpTarget) -> tuple[str, ...]:
    """v3 users live in an engine's USM table by name: one engine per distinct v3 credential
    set, so the same user name with other keys elsewhere cannot overwrite it. v2c shares one."""
    a = target.auth
    return ("2c",) if a.version == "2c" else ("3", a.user or "", a.auth_protocol, a.priv_protocol,
                                              *a.secrets())


async def read_many(targets: list[SnmpTarget], concurrency: int = 32, timeout: float = 2.0,
                    retries: int = 1, on_reading: OnReading | None = None) -> list[DeviceReading]:
    """Poll every target, at most `concurrency` at a time; results in the targets' order.
    `on_reading(index, reading)` hears each as it arrives (the poll writers store while reading)."""
    import pysnmp.hlapi.v3arch.asyncio as h

    engines: dict[tuple[str, ...], Any] = {}
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(i: int, t: SnmpTarget) -> DeviceReading:
        key = _engine_key(t)
        if key not in engines:  # SnmpEngine() is not cheap: only one per credential set
            engines[key] = h.SnmpEngine()
        async with gate:
            reading = await read_device(engines[key], t, timeout, retries)
        if on_reading is not None:
            on_reading(i, reading)
        return reading
    try:
        return list(await asyncio.gather(*(one(i, t) for i, t in enumerate(targets))))
    finally:
        for engine in engines.values():
            engine.close_dispatcher()


def poll_targets(targets: list[SnmpTarget], concurrency: int = 32, timeout: float = 2.0,
                 retries: int = 1, on_reading: OnReading | None = None) -> list[DeviceReading]:
    """The synchronous entry: a private event loop (on a worker thread when the caller is
    itself inside one, as a web front end may be), so callers need no asyncio."""
    run = partial(asyncio.run, read_many(targets, concurrency, timeout, retries, on_reading))
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return run()
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run).result()
