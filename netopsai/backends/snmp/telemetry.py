"""Live telemetry over SNMP: each question polls the agents now, stores the reading (so the
answer and later history agree) and answers from the stored history, in the same row shapes as
the lab's backend. Devices that could not be read are returned beside the rows (`failures`), so
the telemetry tool marks its evidence partial and names them; credentials never appear there."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine

from netopsai.backends.base import IfaceSel
from netopsai.backends.rows import PortCounters, PortStatus
from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget
from netopsai.common.timewin import Window

if TYPE_CHECKING:
    from netopsai.config.network import NetConfig

__all__ = ["FailedRows", "SnmpAuth", "SnmpTarget", "SnmpTelemetry"]
LIVE_SLACK = timedelta(minutes=1)


class FailedRows(list[Any]):
    """Rows plus the devices that could not be read: device label -> reason (no secrets)."""

    def __init__(self, rows: Sequence[Mapping[str, Any]], failures: dict[str, str]) -> None:
        super().__init__(rows)
        self.failures = failures


class SnmpTelemetry:
    def __init__(self, engine: Engine, targets: list[SnmpTarget], timeout: float = 2.0,
                 retries: int = 1, concurrency: int = 32) -> None:
        self.engine, self.targets = engine, list(targets)
        self.opts: dict[str, Any] = {"timeout": timeout, "retries": retries,
                                     "concurrency": concurrency}

    def _store(self) -> Any:
        from netopsai.store.telemetry import StoreTelemetry

        return StoreTelemetry(self.engine)

    def _scoped(self, sel: IfaceSel) -> list[SnmpTarget]:
        """Targets the question is about: named ones in `devices`, and every unnamed one (its
        name is its sysName, known only once read)."""
        wanted = set(sel.get("devices") or [])
        return [t for t in self.targets if not wanted or not t.name or t.name in wanted]

    def poll(self, sel: IfaceSel) -> dict[str, str]:
        """Read the targets in scope now and store the readings; the failures."""
        from netopsai.backends.snmp.poller import poll_and_store

        targets = self._scoped(sel)
        if not targets:
            return {}
        return poll_and_store(self.engine, targets, **self.opts).failures

    def _read_now(self, sel: IfaceSel, window: Window) -> tuple[dict[str, str], Window]:
        """Poll, and stretch a window that ends 'now' over the poll just made (the tool fixed
        the window's end a moment before the agents answered)."""
        started = datetime.now(UTC)
        failures = self.poll(sel)
        if window.end >= started - LIVE_SLACK:
            window = Window(start=window.start, end=max(window.end, datetime.now(UTC)))
        return failures, window

    def oper_status(self, sel: IfaceSel, window: Window) -> tuple[list[PortStatus], int]:
        failures, window = self._read_now(sel, window)
        rows, total = self._store().oper_status(sel, window)
        return FailedRows(rows, failures), total

    def counters(self, sel: IfaceSel, window: Window, metric: str,
                 top: int = 20) -> tuple[list[PortCounters], int, int]:
        failures, window = self._read_now(sel, window)
        rows, total, flagged = self._store().counters(sel, window, metric, top)
        return FailedRows(rows, failures), total, flagged


def from_config(engine: Engine, cfg: NetConfig) -> SnmpTelemetry:
    """The backend registry's builder (netopsai.backends.registry)."""
    return SnmpTelemetry(engine=engine, **snmp_kwargs(cfg))


def snmp_kwargs(cfg: NetConfig) -> dict[str, Any]:
    """Targets with their credentials, as the SNMP backend and `netopsai poll` take them."""
    s = cfg.settings.snmp
    priv_protocol = None if s.priv_protocol == "none" else s.priv_protocol
    targets = []
    for t in s.targets:
        sec = cfg.secrets.snmp.for_target(t.name)
        auth = SnmpAuth(version=s.version, community=sec.community, user=sec.user,
                        auth_key=sec.auth_key, auth_protocol=s.auth_protocol,
                        priv_key=sec.priv_key if priv_protocol else None,
                        priv_protocol=priv_protocol or "aes")
        targets.append(SnmpTarget(host=t.host, port=t.port, name=t.device or "", auth=auth))
    return {"targets": targets, "timeout": s.timeout, "retries": s.retries,
            "concurrency": s.concurrency}
