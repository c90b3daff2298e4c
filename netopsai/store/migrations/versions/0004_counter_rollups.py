"""Hourly counter roll-ups (counterrollup), kept after 5-minute samples are pruned.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_BIG = ("in_octets", "out_octets", "in_errors", "crc_errors", "discards", "io_sum", "errors_max",
        "discards_max", "io_max", "errors_last", "discards_last", "io_last")


def upgrade() -> None:
    op.create_table("counterrollup",
                    sa.Column("id", sa.Integer(), nullable=False),
                    sa.Column("device", AutoString(), nullable=False),
                    sa.Column("interface", AutoString(), nullable=False),
                    sa.Column("at", UTCDateTime(), nullable=False),
                    sa.Column("samples", sa.Integer(), nullable=False),
                    *(sa.Column(name, sa.BigInteger(), nullable=False) for name in _BIG),
                    sa.Column("rx_min", sa.Float(), nullable=True),
                    sa.Column("rx_sum", sa.Float(), nullable=False),
                    sa.Column("rx_samples", sa.Integer(), nullable=False),
                    sa.Column("rx_last", sa.Float(), nullable=True),
                    sa.Column("source", AutoString(), nullable=False),
                    sa.PrimaryKeyConstraint("id"))
    op.create_index("ix_rollup_dev_if_at", "counterrollup", ["device", "interface", "at"])
    op.create_index("ix_rollup_at", "counterrollup", ["at"])


def downgrade() -> None:
    op.drop_index("ix_rollup_at", table_name="counterrollup")
    op.drop_index("ix_rollup_dev_if_at", table_name="counterrollup")
    op.drop_table("counterrollup")
