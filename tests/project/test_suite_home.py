"""Issue 27 item 7: the suite runs with a home of its own. An incident planted in a fake user
home (as a machine where the web app confirmed a diagnosis keeps it) is never read by a test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from netopsai.config.settings import StoreSettings
from netopsai.diagnosis.memory import IncidentMemory, default_memory
from tests.conftest import SUITE_HOME


def test_the_suite_home_is_its_own_and_not_under_the_users_home() -> None:
    assert os.environ["NETOPSAI_HOME"] == str(SUITE_HOME)
    assert StoreSettings().home == SUITE_HOME
    assert not SUITE_HOME.is_relative_to(Path("~").expanduser())


def test_an_incident_in_the_users_home_is_not_recalled(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    fake_user = tmp_path / "user"
    planted = fake_user / ".netopsai"
    planted.mkdir(parents=True, mode=0o700)
    IncidentMemory.at(planted / "incidents.db", embed=None).add(
        "dc2-leaf-05 DEVICE_UNREACHABLE down", "host.down", device="dc2-leaf-05")
    monkeypatch.setenv("HOME", str(fake_user))  # the user's home, with their incident in it
    assert Path("~/.netopsai").expanduser() == planted
    assert recalled() == []
    monkeypatch.delenv("NETOPSAI_HOME")  # what a test would read without the suite's own home
    assert recalled() == ["dc2-leaf-05"]


def recalled() -> list[str | None]:
    memory = default_memory()
    if memory is None:
        return []
    memory.embed = None
    return [m.incident.device for m in memory.search("dc2-leaf-05 DEVICE_UNREACHABLE")]
