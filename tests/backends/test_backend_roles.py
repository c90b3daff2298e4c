"""Every role a copilot reads is in the one backend table (config/sources.py): a package can
register an alarms source, config.yaml can choose it, and the store stays the default."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from netopsai.backends import registry as backend_registry
from netopsai.common.errors import NetopsError
from netopsai.config.load import load_netconfig
from netopsai.store.events import StoreEvents


class SiteAlarms(StoreEvents):
    """A site's own alarm source: the store's events, marked as another object."""


def test_a_registered_alarms_source_is_chosen_by_config(tmp_path: Path, lab_engine: Any,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("site_alarms_backend")
    module.from_config = lambda engine, cfg: SiteAlarms(engine)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "site_alarms_backend", module)
    source = backend_registry.Source("site", "alarms", "site_alarms_backend")
    monkeypatch.setitem(backend_registry.SOURCES, ("alarms", "site"), source)
    (tmp_path / "config.yaml").write_text("backend:\n  alarms: site\n")
    b = backend_registry.configured_backends(lab_engine, load_netconfig(tmp_path))
    assert isinstance(b.alarms, SiteAlarms)
    assert type(b.changes) is StoreEvents  # the other roles keep the store


def test_the_store_is_one_reader_for_changes_and_alarms(tmp_path: Path, lab_engine: Any) -> None:
    b = backend_registry.configured_backends(lab_engine, load_netconfig(tmp_path))
    assert b.changes is b.alarms and type(b.alarms) is StoreEvents


def test_an_unregistered_name_for_a_store_role_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("backend:\n  inventory: netbox\n")
    with pytest.raises(NetopsError, match="backend.inventory .*unknown inventory 'netbox'; valid: store"):
        load_netconfig(tmp_path)
