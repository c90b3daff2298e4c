"""The lab's facts (lab_info) and its state at a moment (load_state, under router_for) are read with
Core statements over the tables' columns, not ORM ones (issue 28 item 4: the ORM's per-statement
compile and the first query's mapping of all 28 tables were ~10 ms of a cold diagnosis `ask`):
in a fresh process, tracing a flow configures no ORM mapper, and gives the route an ORM read of
the same rows gives."""

from __future__ import annotations

import subprocess
import sys

from sqlalchemy import Engine

CHILD = """
import sys
from sqlmodel.main import default_registry
from netopsai.lab.forwarding import router_for
from netopsai.lab.info import lab_info
from netopsai.lab.trace import trace
from netopsai.store.engine import engine_for
engine = engine_for(sys.argv[1])
info = lab_info(engine)
router = router_for(engine, info.version, info.clock)
t = trace(router, "10.1.3.20", "10.2.1.40")
print(default_registry._new_mappers, t.reached, len(t.hops), sorted(router.state.acl_deny))
from sqlmodel import Session, select
from netopsai.store import tables as m
with Session(engine) as s:  # an ORM read maps the tables: the check above can tell
    s.exec(select(m.Meta)).all()
print(default_registry._new_mappers)
"""


def test_a_trace_reads_the_lab_without_the_orm(lab_engine: Engine) -> None:
    out = subprocess.run([sys.executable, "-c", CHILD, str(lab_engine.url)], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    unmapped, reached, hops, denied = out[0].split(" ", 3)
    assert unmapped == "True"  # no ORM statement compiled: the mappers never configured
    assert reached == "True" and int(hops) >= 3 and denied == "[]"  # the healthy lab's route
    assert out[1] == "False"
