"""A lab reset (and the snapshot every init takes) copies SQLite files through connections that
are closed when the copy is done. `with sqlite3.connect()` only commits, and a connection sits
in a reference cycle, so each reset left two files open until the cyclic GC ran: a long-lived
server (or a test worker) piled them up. The GC is held off here so the count shows it."""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import Engine

from netopsai.lab.manage import lab_info, reset_lab


def _open_files() -> list[str]:
    out = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the listing's own descriptor, gone by now
            out.append(os.readlink(f"/proc/self/fd/{fd}"))
    return sorted(out)


@pytest.fixture
def no_gc() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_resets_leave_no_file_open(make_lab: Callable[..., Engine], no_gc: None) -> None:
    engine = make_lab()
    reset_lab(engine)  # the engine's pool opens what it keeps: counted in the start
    start = _open_files()
    versions = {reset_lab(engine).version for _ in range(5)}
    assert len(versions) == 5 and lab_info(engine).version in versions  # each reset did its work
    left = [f for f in _open_files() if f not in start]
    assert left == [] and len(_open_files()) == len(start)
