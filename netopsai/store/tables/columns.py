"""Column types the tables share."""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger
from sqlmodel import Field


def big(default: int | None = 0) -> Any:
    """A 64-bit integer column: ASNs (4-byte), counters (Counter64, octets per interval),
    sysUpTime ticks and file offsets pass 2**31, which PostgreSQL's INTEGER cannot hold."""
    return Field(default=default, sa_type=BigInteger)
