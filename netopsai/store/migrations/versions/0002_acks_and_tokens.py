"""Alarm acknowledgements and silences (alarmack); the HTTP API's tokens (apitoken).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table("alarmack",
                    sa.Column("id", sa.Integer(), nullable=False),
                    sa.Column("alarm_id", sa.Integer(), nullable=False),
                    sa.Column("action", AutoString(), nullable=False),
                    sa.Column("by", AutoString(), nullable=False),
                    sa.Column("why", AutoString(), nullable=False),
                    sa.Column("at", UTCDateTime(), nullable=False),
                    sa.Column("until", UTCDateTime(), nullable=True),
                    sa.PrimaryKeyConstraint("id"))
    op.create_index(op.f("ix_alarmack_alarm_id"), "alarmack", ["alarm_id"], unique=False)
    op.create_table("apitoken",
                    sa.Column("id", sa.Integer(), nullable=False),
                    sa.Column("name", AutoString(), nullable=False),
                    sa.Column("token_hash", AutoString(), nullable=False),
                    sa.Column("scopes", AutoString(), nullable=False),
                    sa.Column("created_at", UTCDateTime(), nullable=False),
                    sa.Column("revoked_at", UTCDateTime(), nullable=True),
                    sa.PrimaryKeyConstraint("id"))
    op.create_index(op.f("ix_apitoken_name"), "apitoken", ["name"], unique=True)
    op.create_index(op.f("ix_apitoken_token_hash"), "apitoken", ["token_hash"], unique=True)


def downgrade() -> None:
    op.drop_index(op.f("ix_apitoken_token_hash"), table_name="apitoken")
    op.drop_index(op.f("ix_apitoken_name"), table_name="apitoken")
    op.drop_table("apitoken")
    op.drop_index(op.f("ix_alarmack_alarm_id"), table_name="alarmack")
    op.drop_table("alarmack")
