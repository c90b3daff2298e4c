"""The embedded lab as the copilot's backends."""

from __future__ import annotations

from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.lab_events import LabEvents
from netopsai.backends.lab_inventory import LabInventory
from netopsai.backends.lab_paths import LabPaths
from netopsai.backends.lab_telemetry import LabTelemetry


def lab_backends(engine: Engine) -> Backends:
    events = LabEvents(engine)
    return Backends(inventory=LabInventory(engine), telemetry=LabTelemetry(engine),
                    paths=LabPaths(engine), changes=events, alarms=events)
