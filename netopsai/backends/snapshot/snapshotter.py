"""Snapshots on demand, off the receiving path: `request` returns at once and a small thread
pool logs in. Two limits keep an alarm storm from becoming a storm of logins: at most
`workers` devices are read at once, and a device is read at most once per `min_interval_s`
(a request inside that window, or while its snapshot is being taken, is counted and dropped:
the snapshot already taken or under way describes the same moment). Only devices the
configuration can reach are read: a NAPALM entry first, else an SNMP target."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine

from netopsai.backends.napalm.device import DeviceTarget
from netopsai.backends.snapshot.capture import Captured, read_napalm, read_snmp, to_row
from netopsai.backends.snmp.auth import SnmpTarget
from netopsai.common.errors import NetopsError
from netopsai.store import tables as m
from netopsai.store.engine import create_all
from netopsai.store.snapshots import save

if TYPE_CHECKING:
    from netopsai.config.network import NetConfig

log = logging.getLogger("netopsai.snapshot")
WORKERS = 4
MIN_INTERVAL_S = 600.0


@dataclass
class SnapshotStats:
    requested: int = 0
    rate_limited: int = 0  # dropped: the device was read (or is being read) within the window
    unknown: int = 0  # dropped: no NAPALM entry nor SNMP target for the device
    taken: int = 0
    failed: int = 0  # a capture that raised (its device could not even be reported on)


class Snapshotter:
    """Bounded, rate-limited snapshots of configured devices; `close()` waits for those under way."""

    def __init__(self, engine: Engine, napalm: Mapping[str, DeviceTarget],
                 snmp: Mapping[str, SnmpTarget] | None = None, *, workers: int = WORKERS,
                 min_interval_s: float = MIN_INTERVAL_S, snmp_timeout: float = 2.0,
                 snmp_retries: int = 1, driver_cls: Any = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        create_all(engine)  # a new store: the writer may not have made the tables yet
        self.engine, self.napalm, self.snmp = engine, dict(napalm), dict(snmp or {})
        self.min_interval_s, self.driver_cls, self.clock = min_interval_s, driver_cls, clock
        self.snmp_opts = (snmp_timeout, snmp_retries)
        self.stats = SnapshotStats()
        self._last: dict[str, float] = {}  # device -> when its last snapshot was requested
        self._lock = threading.Lock()
        self._futures: set[Future[m.DeviceSnapshot | None]] = set()
        self._pool = ThreadPoolExecutor(max(1, workers), thread_name_prefix="netopsai-snapshot")

    def knows(self, device: str) -> bool:
        return device in self.napalm or device in self.snmp

    def request(self, device: str, alarm_id: int | None = None) -> bool:
        """Queue a snapshot of the device for this alarm; False when it was dropped."""
        now = self.clock()
        with self._lock:
            self.stats.requested += 1
            if not self.knows(device):
                self.stats.unknown += 1
                return False
            last = self._last.get(device)
            if last is not None and now - last < self.min_interval_s:
                self.stats.rate_limited += 1
                return False
            self._last[device] = now
            fut = self._pool.submit(self._run, device, alarm_id)
            self._futures.add(fut)
        fut.add_done_callback(self._forget)
        return True

    def on_opened(self, opened: Iterable[tuple[int, str]]) -> None:
        """The writer's observer: (alarm id, device) of each alarm a committed batch opened."""
        for alarm_id, device in opened:
            self.request(device, alarm_id)

    def on_poll(self, went_down: Iterable[tuple[str, str]]) -> None:
        """The poller's ports that went down (no alarm row: the snapshot links to none)."""
        for device, _port in went_down:
            self.request(device)

    def take(self, device: str, alarm_id: int | None = None) -> m.DeviceSnapshot:
        """A snapshot now, on this thread (the CLI): no rate limit, errors in the row."""
        if not self.knows(device):
            known = sorted({*self.napalm, *self.snmp})
            raise NetopsError(f"{device} has no NAPALM entry nor SNMP target in config.yaml"
                              + (f"; configured: {', '.join(known[:10])}" if known else ""))
        return save(self.engine, to_row(self.engine, self.capture(device), alarm_id))

    def capture(self, device: str) -> Captured:
        if device in self.napalm:
            return read_napalm(self.napalm[device], self.driver_cls)
        cap = read_snmp(self.snmp[device], *self.snmp_opts)
        cap.device = device  # the configured name, as alarms name it
        return cap

    def _run(self, device: str, alarm_id: int | None) -> m.DeviceSnapshot | None:
        try:
            snap = save(self.engine, to_row(self.engine, self.capture(device), alarm_id))
        except Exception as exc:  # noqa: BLE001 - a worker must outlive one bad capture
            with self._lock:
                self.stats.failed += 1
            log.error("snapshot of %s failed: %s", device, type(exc).__name__)
            return None
        with self._lock:
            self.stats.taken += 1
        log.info("snapshot %s of %s for alarm %s (%d not read)", snap.id, device, alarm_id,
                 len(snap.errors))
        return snap

    def _forget(self, fut: Future[m.DeviceSnapshot | None]) -> None:
        with self._lock:
            self._futures.discard(fut)

    def wait_idle(self, timeout: float) -> bool:
        """True once every snapshot requested so far is stored (or failed)."""
        end = time.monotonic() + timeout
        while True:
            with self._lock:
                pending = list(self._futures)
            if not pending:
                return True
            left = end - time.monotonic()
            if left <= 0:
                return False
            wait(pending, timeout=left)

    def close(self) -> None:
        self._pool.shutdown(wait=True)


def from_config(engine: Engine, cfg: NetConfig, **options: Any) -> Snapshotter | None:
    """A Snapshotter over config.yaml's NAPALM devices and SNMP targets (credentials from
    secrets.yaml) as `snapshots:` says; None when it is off or neither lists a device."""
    from netopsai.backends.napalm.device import napalm_targets
    from netopsai.backends.snmp.telemetry import snmp_kwargs

    want = cfg.settings.snapshots
    if not want.enabled:
        return None
    options.setdefault("workers", want.workers)
    options.setdefault("min_interval_s", want.min_interval_minutes * 60)
    napalm = napalm_targets(cfg)
    snmp_opts = snmp_kwargs(cfg) if cfg.settings.snmp.targets else {"targets": []}
    snmp = {t.name or t.endpoint: t for t in snmp_opts["targets"]}
    if not napalm and not snmp:
        return None
    options.setdefault("snmp_timeout", snmp_opts.get("timeout", 2.0))
    options.setdefault("snmp_retries", snmp_opts.get("retries", 1))
    return Snapshotter(engine, napalm, snmp, **options)
