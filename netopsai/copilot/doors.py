"""What front ends reach besides a conversation, behind the copilot's one door: one tool call
numbered by a ledger, alarm acknowledgements and silences (ours, kept in the store, never sent
to a device), a device's stored snapshots and batch pair checks. `Copilot` offers each as a
method (`Doors`); the functions take the backends, so a front end's pure views (which tests
call with backends alone) go through the same door without building a copilot."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from netopsai.backends.base import Backends
from netopsai.copilot.evidence import Evidence, Ledger
from netopsai.tools.registry import REGISTRY, Tool, run_tool

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from netopsai.copilot.device import DeviceView
    from netopsai.copilot.pairs import Pair, PairResult
    from netopsai.store.acks import AckState
    from netopsai.store.tables import AlarmAck


def tool_catalog() -> dict[str, Tool]:
    """Every tool a front end may call, by name: its description and schema (the LLM's)."""
    return dict(REGISTRY)


def call_tool(backends: Backends, name: str, args: dict[str, Any] | str) -> Evidence:
    """One tool call as a turn of its own: its id is the first of a new ledger (E1)."""
    return run_tool(name, args, backends, Ledger().mint())


def acks_store(backends: Backends) -> Engine:
    """The store the inventory reads (acks live beside the alarms), else NETOPSAI_HOME's."""
    from sqlalchemy import Engine

    engine = getattr(backends.inventory, "engine", None)
    if isinstance(engine, Engine):
        return engine
    from netopsai.copilot.frontend import store_engine

    return store_engine()


def ack_states(backends: Backends | None, alarm_ids: Iterable[int], now: datetime,
               engine: Engine | None = None) -> dict[int, AckState]:
    """Each alarm's acknowledgement or silence at `now` (alarms with none are left out). Without
    backends, `engine` names the store (a front end that already holds acks_store's)."""
    from netopsai.store import acks

    if engine is None:
        if backends is None:
            raise ValueError("ack_states needs backends or the store's engine")
        engine = acks_store(backends)
    return acks.states(engine, alarm_ids, now)


def record_ack(backends: Backends | None, alarm_id: int, action: str, who: str, why: str,
               now: datetime, until: datetime | None = None, engine: Engine | None = None,
               ) -> AlarmAck:
    """Store an ack, a silence (until `until`) or an unack, checked as the store checks it (a
    known alarm, a name, plain text): a NetopsError otherwise. The row stored comes back.
    Without backends, `engine` names the store (the CLI's, which builds no backends)."""
    from netopsai.store import acks

    if engine is None:
        if backends is None:
            raise ValueError("record_ack needs backends or the store's engine")
        engine = acks_store(backends)
    return acks.record(engine, alarm_id, action, who, why, now, until)


def ack_history(engine: Engine, alarm_id: int | None = None) -> list[AlarmAck]:
    """Acknowledgements and silences, newest first: of one alarm (a known id, else the store's
    one-line error naming the newest) or of all (`netopsai alarms acks`)."""
    from netopsai.store.acks import check_alarm, history

    if alarm_id is not None:
        check_alarm(engine, alarm_id)
    return history(engine, alarm_id)


def store_clock(engine: Engine) -> datetime:
    """'Now' for an ack read from the store alone: the lab's clock, the wall clock for a real
    network (a front end with backends reads backends.inventory.clock instead)."""
    from netopsai.store.network import network_clock

    return network_clock(engine)


def silence_end(now: datetime, span: str) -> datetime:
    """When a silence of `span` ("2h") started at `now` ends, capped as the store caps it."""
    from netopsai.store import acks

    return acks.silence_end(now, span)


def snapshot_rows(backends: Backends, device: str) -> list[dict[str, Any]]:
    """A device's stored snapshots, newest first, as their listing rows (never the data)."""
    from netopsai.store.snapshots import device_snapshots, summary_row

    return [summary_row(s) for s in device_snapshots(acks_store(backends), device)]


def snapshot_detail(backends: Backends, device: str, snapshot_id: str) -> dict[str, Any] | None:
    """One stored snapshot of `device`, opened: its listing row with what was read (`data`:
    interfaces, LLDP, BGP as NAPALM returned them). Looked up within the device's own
    snapshots, so an id of another device's opens nothing (None)."""
    from netopsai.store.snapshots import device_snapshots, summary_row

    snap = next((s for s in device_snapshots(acks_store(backends), device)
                 if str(s.id) == snapshot_id), None)
    return None if snap is None else {**summary_row(snap), "data": snap.data or {}}


class Doors:
    """Copilot's doors besides `ask`: each a method over the copilot's own backends."""

    @property
    def backends(self) -> Backends:
        raise NotImplementedError

    def tools(self) -> dict[str, Tool]:
        return tool_catalog()

    def tool(self, name: str, args: dict[str, Any] | str) -> Evidence:
        """One tool call (`netopsai tool`, the API's and MCP's tools): its evidence is E1."""
        return call_tool(self.backends, name, args)

    def device(self, name: str, window: str = "24h") -> DeviceView:
        """One device's page model: which device the name stands for and each panel's read."""
        from netopsai.copilot.device import read_device

        return read_device(self.backends, name, window)

    def alarms(self, window: str = "24h", state: str = "any", site: str | None = None,
               category: str | None = None) -> Evidence:
        """The window's alarms grouped into cases (`facts.cases`), through the alarms tool."""
        args = {"window": window, "state": state, "site": site, "category": category,
                "correlate": True}
        return self.tool("alarms", {k: v for k, v in args.items() if v is not None})

    def ack_states(self, alarm_ids: Iterable[int]) -> dict[int, AckState]:
        return ack_states(self.backends, alarm_ids, self.backends.inventory.clock())

    def ack(self, alarm_id: int, who: str, why: str = "") -> None:
        record_ack(self.backends, alarm_id, "ack", who, why, self.backends.inventory.clock())

    def silence(self, alarm_id: int, who: str, why: str, span: str) -> None:
        now = self.backends.inventory.clock()
        record_ack(self.backends, alarm_id, "silence", who, why, now, silence_end(now, span))

    def snapshots(self, device: str) -> list[dict[str, Any]]:
        return snapshot_rows(self.backends, device)

    def snapshot(self, device: str, snapshot_id: str) -> dict[str, Any] | None:
        return snapshot_detail(self.backends, device, snapshot_id)

    def check_pairs(self, pairs: Iterable[Pair]) -> list[PairResult]:
        """Batch connectivity checks, one pair after another: each traced, a failing one
        diagnosed as `ask` would, the tool reads many pairs make alike fetched once (the batch
        runner adds concurrency, worker processes and Ray over the same per-pair check)."""
        from netopsai.copilot.pairs import SharedEvidence, check_pair

        shared = SharedEvidence(self.backends)
        return [check_pair(self.backends, shared, p) for p in pairs]
