"""Every address of an interface (interfaceaddress); the neighbour a session alarm names
(alarm.neighbor).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table("interfaceaddress",
                    sa.Column("id", sa.Integer(), nullable=False),
                    sa.Column("device", AutoString(), nullable=False),
                    sa.Column("interface", AutoString(), nullable=False),
                    sa.Column("ip", AutoString(), nullable=False),
                    sa.Column("prefixlen", sa.Integer(), nullable=True),
                    sa.PrimaryKeyConstraint("id"))
    op.create_index(op.f("ix_interfaceaddress_ip"), "interfaceaddress", ["ip"], unique=False)
    op.create_index("ix_ifaddr_device_interface", "interfaceaddress", ["device", "interface"],
                    unique=False)
    # the addresses stores hold already (one per interface until now) are read from
    # interface.ip as well, so none is copied
    op.add_column("alarm", sa.Column("neighbor", AutoString(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("alarm") as batch:
        batch.drop_column("neighbor")
    op.drop_index("ix_ifaddr_device_interface", table_name="interfaceaddress")
    op.drop_index(op.f("ix_interfaceaddress_ip"), table_name="interfaceaddress")
    op.drop_table("interfaceaddress")
