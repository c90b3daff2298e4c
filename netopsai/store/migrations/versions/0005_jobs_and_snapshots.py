"""Compute jobs (job) and device snapshots taken when an alarm opens (devicesnapshot).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table("job",
                    sa.Column("id", AutoString(), nullable=False),
                    sa.Column("name", AutoString(), nullable=False),
                    sa.Column("owner", AutoString(), nullable=False),
                    sa.Column("hosts", sa.JSON(), nullable=True),
                    sa.Column("start", UTCDateTime(), nullable=True),
                    sa.Column("end", UTCDateTime(), nullable=True),
                    sa.Column("state", AutoString(), nullable=False),
                    sa.Column("source", AutoString(), nullable=False),
                    sa.PrimaryKeyConstraint("id"))
    op.create_index("ix_job_start", "job", ["start"])
    op.create_table("devicesnapshot",
                    sa.Column("id", sa.Integer(), nullable=False),
                    sa.Column("device", AutoString(), nullable=False),
                    sa.Column("taken_at", UTCDateTime(), nullable=False),
                    sa.Column("alarm_id", sa.Integer(), nullable=True),
                    sa.Column("source", AutoString(), nullable=False),
                    sa.Column("data", sa.JSON(), nullable=True),
                    sa.Column("config_diff", AutoString(), nullable=False),
                    sa.Column("errors", sa.JSON(), nullable=True),
                    sa.PrimaryKeyConstraint("id"))
    op.create_index("ix_devsnap_dev_taken", "devicesnapshot", ["device", "taken_at"])
    op.create_index(op.f("ix_devicesnapshot_alarm_id"), "devicesnapshot", ["alarm_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_devicesnapshot_alarm_id"), table_name="devicesnapshot")
    op.drop_index("ix_devsnap_dev_taken", table_name="devicesnapshot")
    op.drop_table("devicesnapshot")
    op.drop_index("ix_job_start", table_name="job")
    op.drop_table("job")
