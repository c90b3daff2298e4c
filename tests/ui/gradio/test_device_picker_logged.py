"""The Device tab's picker (issue 24 item 2): devices known only from loaded logs (provisional)
are pickable beside the inventory's, marked as such, listed once whatever spellings they are
stored under, and a page load lists the ones whose lines arrived after the app was built.
Over the real lines of tests/planner/test_hostnames_real_logs.py and
tests/planner/test_hostnames_domains.py."""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import gradio as gr
import pytest

from netopsai.backends.base import Backends
from netopsai.backends.registry import configured_backends
from netopsai.config.load import load_netconfig
from netopsai.copilot.service import Copilot
from netopsai.store.engine import engine_for
from netopsai.ui.gradio.app import build_app
from netopsai.ui.gradio.device import device_page
from tests.cli_helpers import run_cli
from tests.planner.test_hostnames_domains import BARE, FQDN, home, imported  # noqa: F401 - fixtures
from tests.planner.test_hostnames_real_logs import corpus_lines, real_home  # noqa: F401 - the fixture
from tests.planner.test_logs_questions import _At

MARK = " · from logs, not in the inventory"
INVENTORY = ["edge-20", "es-tf-sw-224", "nexus-35"]


def backends_of(where: Path, monkeypatch: pytest.MonkeyPatch) -> Backends:
    monkeypatch.setenv("NETOPSAI_HOME", str(where))
    engine = engine_for(f"sqlite:///{where / 'netopsai.db'}")
    return replace(configured_backends(engine, load_netconfig(where)),
                   inventory=_At(engine, datetime(2023, 11, 7, 8, 30, tzinfo=UTC)))


def picker_of(app: gr.Blocks) -> gr.Dropdown:
    [picker] = [b for b in app.blocks.values() if getattr(b, "elem_id", None) == "device-picker"]
    assert isinstance(picker, gr.Dropdown)
    return picker


def choices(picker: gr.Dropdown) -> list[tuple[str, str]]:
    return [(str(label), str(value)) for label, value in picker.choices]


def test_the_picker_lists_devices_known_only_from_logs_marked_so(
        real_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811 - the fixture
    backends = backends_of(real_home, monkeypatch)
    listed = choices(picker_of(build_app(Copilot(backends), backends)))
    assert sorted(listed) == sorted([(n, n) for n in INVENTORY]
                                    + [(f"{n}{MARK}", n) for n in ("HHHHHHHH", "xcp-ng-mfshjjxr")])
    page = device_page(backends, "xcp-ng-mfshjjxr", "7d")  # what picking it opens
    assert page.status.startswith("xcp-ng-mfshjjxr (not in the inventory)")
    assert len(page.events) == 9


def test_a_device_stored_under_two_names_is_listed_once(
        home: Path, imported: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    provisional = build_app(Copilot(b := backends_of(home, monkeypatch)), b)
    assert choices(picker_of(provisional)) == [(f"{BARE}{MARK}", BARE)]  # not FQDN as well
    known = build_app(Copilot(b := backends_of(imported, monkeypatch)), b)
    assert choices(picker_of(known)) == [(BARE, BARE)]  # its full-name lines are its own


def test_a_page_load_lists_devices_logged_since_the_app_was_built(
        imported: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811 - the fixture
    backends = backends_of(imported, monkeypatch)
    app = build_app(Copilot(backends), backends)
    assert choices(picker_of(app)) == [(BARE, BARE)]
    new = imported / "superserver.log"  # linux_nic-0001/-0002: a host new to the network
    new.write_text("\n".join(corpus_lines(["linux_nic-0001", "linux_nic-0002"])) + "\n")
    stamp = datetime(2017, 11, 18, tzinfo=UTC).timestamp()
    os.utime(new, (stamp, stamp))
    done = run_cli(imported, "ingest", "--file", str(new))
    assert done.returncode == 0, done.stderr
    [load] = [f for f in app.fns.values() if getattr(f.fn, "__name__", "") == "on_load"
              and getattr(f.fn, "__self__", None).__class__.__module__.endswith("device_tab")]
    update: Any = load.fn("", None)[1]  # the picker's, on a load without ?device=
    assert [tuple(c) for c in update["choices"]] == [(BARE, BARE), (f"superserver{MARK}", "superserver")]
