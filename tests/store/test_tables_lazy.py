"""The tables' pydantic validators and serializers are built when a row first needs them, not
when the classes are made: a fresh process that imports the store builds none (a cold `ask`
paid for all 28, issue 28 item 4), and a row validated and dumped afterwards is the same row."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime

from netopsai.store import tables as m

FRESH = """
import json
from sqlmodel import SQLModel
import netopsai.store  # every table, probes' too
mappers = list(SQLModel._sa_registry.mappers)
print(json.dumps({"tables": len(mappers),
                  "built": sorted(mp.class_.__name__ for mp in mappers if mp.class_.__pydantic_complete__)}))
"""


def test_a_fresh_process_builds_no_table_schema() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    out = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True, env=env,
                         timeout=120, check=True)
    got = json.loads(out.stdout)
    assert got["tables"] >= 28
    assert got["built"] == []


def test_a_deferred_table_still_validates_and_dumps() -> None:
    row = {"name": "dc1-leaf-03", "role": "leaf", "site": "dc1", "asn": "4200000001",
           "booted_at": "2026-11-27T12:00:00Z"}
    device = m.Device.model_validate(row)
    dumped = device.model_dump()
    assert dumped["asn"] == 4200000001  # validated: the string became the column's integer
    assert dumped["booted_at"] == datetime(2026, 11, 27, 12, tzinfo=UTC)
    assert list(dumped) == list(m.Device.model_fields)
    assert m.Device.__pydantic_complete__
