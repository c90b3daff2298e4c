"""Probe history (proberesult): each pair of a recorded batch run (`netopsai batch --record`).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table("proberesult",
                    sa.Column("id", sa.Integer(), nullable=False),
                    sa.Column("at", UTCDateTime(), nullable=False),
                    sa.Column("src", AutoString(), nullable=False),
                    sa.Column("dst", AutoString(), nullable=False),
                    sa.Column("status", AutoString(), nullable=False),
                    sa.Column("src_device", AutoString(), nullable=True),
                    sa.Column("dst_device", AutoString(), nullable=True),
                    sa.Column("src_site", AutoString(), nullable=True),
                    sa.Column("src_pod", AutoString(), nullable=True),
                    sa.Column("dst_site", AutoString(), nullable=True),
                    sa.Column("dst_pod", AutoString(), nullable=True),
                    sa.Column("failing_device", AutoString(), nullable=True),
                    sa.Column("cause", AutoString(), nullable=True),
                    sa.PrimaryKeyConstraint("id"))
    op.create_index("ix_probe_at", "proberesult", ["at"])
    op.create_index("ix_probe_pair_at", "proberesult", ["src", "dst", "at"])


def downgrade() -> None:
    op.drop_index("ix_probe_pair_at", table_name="proberesult")
    op.drop_index("ix_probe_at", table_name="proberesult")
    op.drop_table("proberesult")
