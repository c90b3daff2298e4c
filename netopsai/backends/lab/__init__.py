"""The embedded lab as the copilot's backends."""

from __future__ import annotations

from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.lab.paths import LabPaths
from netopsai.backends.lab.telemetry import LabTelemetry
from netopsai.store.events import StoreEvents
from netopsai.store.inventory import StoreInventory


def lab_backends(engine: Engine) -> Backends:
    events = StoreEvents(engine)
    return Backends(inventory=StoreInventory(engine), telemetry=LabTelemetry(engine),
                    paths=LabPaths(engine), changes=events, alarms=events)
