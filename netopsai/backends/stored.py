"""The store as the backend of the roles it fills (config/sources.py: `store` for inventory,
changes and alarms): the inventory reader, and one events reader for both changes and alarms;
on the namespace lab the alarms its live state raises are added."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from netopsai.common.errors import NetopsError

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from netopsai.config.network import NetConfig


def inventory(engine: Engine, cfg: NetConfig) -> Any:
    from netopsai.store.inventory import StoreInventory

    return StoreInventory(engine)


def events(engine: Engine, cfg: NetConfig) -> Any:
    """Changes and alarms from the store; the namespace lab adds the alarms its live state raises."""
    from netopsai.store.events import StoreEvents
    from netopsai.store.network import has_netns_lab

    if has_netns_lab(engine):
        try:
            from netopsai.backends.netns.telemetry import NetnsAlarms

            return NetnsAlarms(engine)
        except NetopsError:
            pass  # the store's own alarms still answer
    return StoreEvents(engine)
