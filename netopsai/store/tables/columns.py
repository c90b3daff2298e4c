"""Column types the tables share."""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger
from sqlmodel import Field
from sqlmodel.main import SQLModelConfig

# every table's model_config: pydantic builds a table's validator and serializer when one is
# first used (a row validated or model_dump'ed), not when the class is made. Every process makes
# all 28 tables and most use none of them (rows are read through their columns, rowdump.py): a
# cold `ask` built them all for nothing, ~40 ms of its start-up (issue 28 item 4).
LAZY = SQLModelConfig(defer_build=True)


def big(default: int | None = 0) -> Any:
    """A 64-bit integer column: ASNs (4-byte), counters (Counter64, octets per interval),
    sysUpTime ticks and file offsets pass 2**31, which PostgreSQL's INTEGER cannot hold."""
    return Field(default=default, sa_type=BigInteger)
