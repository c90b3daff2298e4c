"""Shared pieces of the tests that fill an empty store (inventory import, NAPALM discovery): a
fresh SQLite store of the test's own, and a dump of everything in it, to compare two runs."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import Engine

from netopsai.store.engine import engine_for


def empty_store(tmp_path: Path) -> Engine:
    return engine_for(f"sqlite:///{tmp_path / 'netopsai.db'}")


def dump(engine: Engine) -> str:
    """The whole database as SQL, row by row."""
    with sqlite3.connect(str(engine.url.database)) as conn:
        return "\n".join(conn.iterdump())


def acl_home(home: Path, sid: str = "acl") -> Path:
    """NETOPSAI_HOME holding a small lab (seed 7) where dc1-leaf-03 drops traffic to
    10.2.1.0/24 since 25 minutes before the lab clock: the fault the front ends' tests ask about."""
    from netopsai.lab.inject import inject
    from netopsai.lab.manage import init_lab, lab_info
    from netopsai.lab.scenario import Scenario

    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7)
    inject(engine, Scenario.model_validate({
        "id": sid, "now": lab_info(engine).clock,
        "faults": [{"kind": "acl_block", "at": "-25m", "target": {"device": "dc1-leaf-03"},
                    "params": {"dst": "10.2.1.0/24"}}]}))
    return home
