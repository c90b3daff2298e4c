"""64-bit integers for ASNs, counters, sysUpTime ticks and spool offsets.

PostgreSQL's INTEGER stops at 2**31: a 4-byte ASN, a Counter64 or the octets of a 5-minute
interval on a fast port do not fit. SQLite stores any integer in any INTEGER column, so its
stores are left as they are (no table rewrite for nothing).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

COUNTERS = ("in_octets", "out_octets", "in_errors", "in_discards", "out_discards")
WIDE = {"bgpsession": ("a_asn", "b_asn"), "device": ("asn",),
        "countersample": (*COUNTERS, "crc_errors"), "snmpcounterstate": ("uptime_cs", *COUNTERS),
        "spoolmark": ("offset",)}


def _alter(to: type[sa.types.TypeEngine[int]], was: type[sa.types.TypeEngine[int]]) -> None:
    if op.get_context().dialect.name == "sqlite":
        return
    for table, columns in WIDE.items():
        for column in columns:
            op.alter_column(table, column, type_=to(), existing_type=was())


def upgrade() -> None:
    _alter(sa.BigInteger, sa.Integer)


def downgrade() -> None:
    _alter(sa.Integer, sa.BigInteger)
