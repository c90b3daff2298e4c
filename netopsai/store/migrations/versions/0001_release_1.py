"""Release 1: the base schema, as it landed before versioned migrations.

Every table of the lab, the real-network store, ingest and incident memory. A store made by
that release has all of it already and is stamped at this revision, not re-created
(netopsai.store.migrate).

Revision ID: 0001
Revises:
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('aclentry',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('device', AutoString(), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('action', AutoString(), nullable=False),
    sa.Column('src', AutoString(), nullable=False),
    sa.Column('dst', AutoString(), nullable=False),
    sa.Column('name', AutoString(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=True),
    sa.Column('removed_at', UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_aclentry_device'), 'aclentry', ['device'], unique=False)
    op.create_table('alarm',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', AutoString(), nullable=False),
    sa.Column('category', AutoString(), nullable=False),
    sa.Column('severity', AutoString(), nullable=False),
    sa.Column('device', AutoString(), nullable=False),
    sa.Column('interface', AutoString(), nullable=True),
    sa.Column('link_id', sa.Integer(), nullable=True),
    sa.Column('site', AutoString(), nullable=False),
    sa.Column('raised_at', UTCDateTime(), nullable=False),
    sa.Column('cleared_at', UTCDateTime(), nullable=True),
    sa.Column('state', AutoString(), nullable=False),
    sa.Column('message', AutoString(), nullable=False),
    sa.Column('source', AutoString(), nullable=False),
    sa.Column('impact', AutoString(), nullable=False),
    sa.Column('traffic_lost', sa.Boolean(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_alarm_category'), 'alarm', ['category'], unique=False)
    op.create_index(op.f('ix_alarm_device'), 'alarm', ['device'], unique=False)
    op.create_index('ix_alarm_raised', 'alarm', ['raised_at'], unique=False)
    op.create_index(op.f('ix_alarm_site'), 'alarm', ['site'], unique=False)
    op.create_table('bgpsession',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('link_id', sa.Integer(), nullable=False),
    sa.Column('a_device', AutoString(), nullable=False),
    sa.Column('b_device', AutoString(), nullable=False),
    sa.Column('a_ip', AutoString(), nullable=False),
    sa.Column('b_ip', AutoString(), nullable=False),
    sa.Column('a_asn', sa.Integer(), nullable=False),
    sa.Column('b_asn', sa.Integer(), nullable=False),
    sa.Column('state', AutoString(), nullable=False),
    sa.Column('since', UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_bgpsession_a_device'), 'bgpsession', ['a_device'], unique=False)
    op.create_index(op.f('ix_bgpsession_b_device'), 'bgpsession', ['b_device'], unique=False)
    op.create_index(op.f('ix_bgpsession_link_id'), 'bgpsession', ['link_id'], unique=False)
    op.create_table('change',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('ticket', AutoString(), nullable=False),
    sa.Column('device', AutoString(), nullable=False),
    sa.Column('site', AutoString(), nullable=False),
    sa.Column('start', UTCDateTime(), nullable=False),
    sa.Column('end', UTCDateTime(), nullable=True),
    sa.Column('kind', AutoString(), nullable=False),
    sa.Column('summary', AutoString(), nullable=False),
    sa.Column('author', AutoString(), nullable=False),
    sa.Column('status', AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_change_device'), 'change', ['device'], unique=False)
    op.create_index(op.f('ix_change_site'), 'change', ['site'], unique=False)
    op.create_index('ix_change_start', 'change', ['start'], unique=False)
    op.create_index(op.f('ix_change_ticket'), 'change', ['ticket'], unique=False)
    op.create_table('configsnapshot',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('device', AutoString(), nullable=False),
    sa.Column('taken_at', UTCDateTime(), nullable=False),
    sa.Column('running', AutoString(), nullable=False),
    sa.Column('sha256', AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_cfgsnap_dev_taken', 'configsnapshot', ['device', 'taken_at'], unique=False)
    op.create_index(op.f('ix_configsnapshot_sha256'), 'configsnapshot', ['sha256'], unique=False)
    op.create_table('countersample',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('device', AutoString(), nullable=False),
    sa.Column('interface', AutoString(), nullable=False),
    sa.Column('at', UTCDateTime(), nullable=False),
    sa.Column('in_octets', sa.Integer(), nullable=False),
    sa.Column('out_octets', sa.Integer(), nullable=False),
    sa.Column('in_errors', sa.Integer(), nullable=False),
    sa.Column('crc_errors', sa.Integer(), nullable=False),
    sa.Column('in_discards', sa.Integer(), nullable=False),
    sa.Column('out_discards', sa.Integer(), nullable=False),
    sa.Column('rx_power_dbm', sa.Float(), nullable=True),
    sa.Column('source', AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_sample_at', 'countersample', ['at'], unique=False)
    op.create_index('ix_sample_dev_if_at', 'countersample', ['device', 'interface', 'at'], unique=False)
    op.create_table('device',
    sa.Column('name', AutoString(), nullable=False),
    sa.Column('role', AutoString(), nullable=False),
    sa.Column('vendor', AutoString(), nullable=False),
    sa.Column('model', AutoString(), nullable=False),
    sa.Column('os_version', AutoString(), nullable=False),
    sa.Column('mgmt_ip', AutoString(), nullable=True),
    sa.Column('loopback', AutoString(), nullable=True),
    sa.Column('asn', sa.Integer(), nullable=True),
    sa.Column('site', AutoString(), nullable=False),
    sa.Column('pod', AutoString(), nullable=True),
    sa.Column('rack', AutoString(), nullable=True),
    sa.Column('status', AutoString(), nullable=False),
    sa.Column('booted_at', UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('name')
    )
    op.create_index(op.f('ix_device_loopback'), 'device', ['loopback'], unique=False)
    op.create_index(op.f('ix_device_mgmt_ip'), 'device', ['mgmt_ip'], unique=False)
    op.create_index(op.f('ix_device_pod'), 'device', ['pod'], unique=False)
    op.create_index(op.f('ix_device_role'), 'device', ['role'], unique=False)
    op.create_index(op.f('ix_device_site'), 'device', ['site'], unique=False)
    op.create_index('ix_device_site_role_pod', 'device', ['site', 'role', 'pod'], unique=False)
    op.create_table('hostaddress',
    sa.Column('ip', AutoString(), nullable=False),
    sa.Column('device', AutoString(), nullable=False),
    sa.Column('interface', AutoString(), nullable=False),
    sa.Column('segment', AutoString(), nullable=False),
    sa.Column('tor', AutoString(), nullable=False),
    sa.Column('tor_interface', AutoString(), nullable=False),
    sa.Column('pod', AutoString(), nullable=True),
    sa.Column('site', AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('ip')
    )
    op.create_index(op.f('ix_hostaddress_device'), 'hostaddress', ['device'], unique=False)
    op.create_index(op.f('ix_hostaddress_segment'), 'hostaddress', ['segment'], unique=False)
    op.create_index(op.f('ix_hostaddress_tor'), 'hostaddress', ['tor'], unique=False)
    op.create_table('incident',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('symptoms', AutoString(), nullable=False),
    sa.Column('label', AutoString(), nullable=False),
    sa.Column('device', AutoString(), nullable=True),
    sa.Column('interface', AutoString(), nullable=True),
    sa.Column('evidence_summary', AutoString(), nullable=False),
    sa.Column('question', AutoString(), nullable=False),
    sa.Column('confirmed_by', AutoString(), nullable=False),
    sa.Column('source', AutoString(), nullable=False),
    sa.Column('at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_incident_label'), 'incident', ['label'], unique=False)
    op.create_table('interface',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('device', AutoString(), nullable=False),
    sa.Column('name', AutoString(), nullable=False),
    sa.Column('speed_mbps', sa.Integer(), nullable=False),
    sa.Column('mtu', sa.Integer(), nullable=False),
    sa.Column('ip', AutoString(), nullable=True),
    sa.Column('admin_status', AutoString(), nullable=False),
    sa.Column('oper_status', AutoString(), nullable=False),
    sa.Column('description', AutoString(), nullable=False),
    sa.Column('link_id', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_interface_device_name', 'interface', ['device', 'name'], unique=True)
    op.create_index(op.f('ix_interface_ip'), 'interface', ['ip'], unique=False)
    op.create_table('interfaceevent',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('device', AutoString(), nullable=False),
    sa.Column('interface', AutoString(), nullable=False),
    sa.Column('at', UTCDateTime(), nullable=False),
    sa.Column('state', AutoString(), nullable=False),
    sa.Column('reason', AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_ifevent_at', 'interfaceevent', ['at'], unique=False)
    op.create_index('ix_ifevent_dev_if', 'interfaceevent', ['device', 'interface'], unique=False)
    op.create_table('labfault',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', AutoString(), nullable=False),
    sa.Column('device', AutoString(), nullable=True),
    sa.Column('interface', AutoString(), nullable=True),
    sa.Column('link_id', sa.Integer(), nullable=True),
    sa.Column('start', UTCDateTime(), nullable=False),
    sa.Column('end', UTCDateTime(), nullable=True),
    sa.Column('params', sa.JSON(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_labfault_device'), 'labfault', ['device'], unique=False)
    op.create_table('link',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('a_device', AutoString(), nullable=False),
    sa.Column('a_interface', AutoString(), nullable=False),
    sa.Column('b_device', AutoString(), nullable=False),
    sa.Column('b_interface', AutoString(), nullable=False),
    sa.Column('kind', AutoString(), nullable=False),
    sa.Column('circuit_id', AutoString(), nullable=True),
    sa.Column('provider', AutoString(), nullable=True),
    sa.Column('status', AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_link_a_device'), 'link', ['a_device'], unique=False)
    op.create_index(op.f('ix_link_b_device'), 'link', ['b_device'], unique=False)
    op.create_index(op.f('ix_link_kind'), 'link', ['kind'], unique=False)
    op.create_table('meta',
    sa.Column('key', AutoString(), nullable=False),
    sa.Column('value', AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('key')
    )
    op.create_table('pod',
    sa.Column('name', AutoString(), nullable=False),
    sa.Column('site', AutoString(), nullable=False),
    sa.Column('index', sa.Integer(), nullable=False),
    sa.Column('description', AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('name')
    )
    op.create_index(op.f('ix_pod_site'), 'pod', ['site'], unique=False)
    op.create_table('rawevent',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('received_at', UTCDateTime(), nullable=False),
    sa.Column('at', UTCDateTime(), nullable=True),
    sa.Column('device_time', UTCDateTime(), nullable=True),
    sa.Column('skew_s', sa.Float(), nullable=True),
    sa.Column('source', AutoString(), nullable=False),
    sa.Column('host', AutoString(), nullable=False),
    sa.Column('hostname', AutoString(), nullable=True),
    sa.Column('device', AutoString(), nullable=True),
    sa.Column('interface', AutoString(), nullable=True),
    sa.Column('program', AutoString(), nullable=True),
    sa.Column('mnemonic', AutoString(), nullable=True),
    sa.Column('fingerprint', AutoString(), nullable=True),
    sa.Column('facility', AutoString(), nullable=True),
    sa.Column('severity', AutoString(), nullable=True),
    sa.Column('message', AutoString(), nullable=False),
    sa.Column('kind', AutoString(), nullable=True),
    sa.Column('key', AutoString(), nullable=True),
    sa.Column('alarm_id', sa.Integer(), nullable=True),
    sa.Column('count', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_rawevent_alarm_id'), 'rawevent', ['alarm_id'], unique=False)
    op.create_index('ix_rawevent_at', 'rawevent', ['at'], unique=False)
    op.create_index('ix_rawevent_device_at', 'rawevent', ['device', 'at'], unique=False)
    op.create_index(op.f('ix_rawevent_fingerprint'), 'rawevent', ['fingerprint'], unique=False)
    op.create_index(op.f('ix_rawevent_key'), 'rawevent', ['key'], unique=False)
    op.create_index('ix_rawevent_received', 'rawevent', ['received_at'], unique=False)
    op.create_index(op.f('ix_rawevent_source'), 'rawevent', ['source'], unique=False)
    op.create_table('segment',
    sa.Column('cidr', AutoString(), nullable=False),
    sa.Column('name', AutoString(), nullable=False),
    sa.Column('vlan', sa.Integer(), nullable=False),
    sa.Column('vrf', AutoString(), nullable=False),
    sa.Column('gateway', AutoString(), nullable=False),
    sa.Column('site', AutoString(), nullable=False),
    sa.Column('pod', AutoString(), nullable=True),
    sa.Column('tor', AutoString(), nullable=True),
    sa.PrimaryKeyConstraint('cidr')
    )
    op.create_index(op.f('ix_segment_pod'), 'segment', ['pod'], unique=False)
    op.create_index(op.f('ix_segment_site'), 'segment', ['site'], unique=False)
    op.create_index(op.f('ix_segment_tor'), 'segment', ['tor'], unique=False)
    op.create_table('site',
    sa.Column('name', AutoString(), nullable=False),
    sa.Column('region', AutoString(), nullable=False),
    sa.Column('description', AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('name')
    )
    op.create_table('snmpcounterstate',
    sa.Column('device', AutoString(), nullable=False),
    sa.Column('if_index', sa.Integer(), nullable=False),
    sa.Column('interface', AutoString(), nullable=False),
    sa.Column('at', UTCDateTime(), nullable=False),
    sa.Column('seen_at', UTCDateTime(), nullable=True),
    sa.Column('uptime_cs', sa.Integer(), nullable=True),
    sa.Column('oper_status', AutoString(), nullable=False),
    sa.Column('in_octets', sa.Integer(), nullable=True),
    sa.Column('out_octets', sa.Integer(), nullable=True),
    sa.Column('in_errors', sa.Integer(), nullable=True),
    sa.Column('in_discards', sa.Integer(), nullable=True),
    sa.Column('out_discards', sa.Integer(), nullable=True),
    sa.PrimaryKeyConstraint('device', 'if_index')
    )
    op.create_table('spoolmark',
    sa.Column('name', AutoString(), nullable=False),
    sa.Column('segment', sa.Integer(), nullable=False),
    sa.Column('offset', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('name')
    )
    op.create_table('staticroute',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('device', AutoString(), nullable=False),
    sa.Column('prefix', AutoString(), nullable=False),
    sa.Column('next_hop', AutoString(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=True),
    sa.Column('removed_at', UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index(op.f('ix_staticroute_device'), 'staticroute', ['device'], unique=False)


def downgrade() -> None:
    raise NotImplementedError("0001 is the base schema: remove the database to start over")
