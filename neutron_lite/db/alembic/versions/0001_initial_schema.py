"""Initial schema: networks, subnets, ports, their addresses and tags

Revision ID: 0001
Revises:
"""

from alembic import op
import sqlalchemy as sa

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def _standard() -> list[sa.Column]:
    return [
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('description', sa.String(255), nullable=False),
        sa.Column('revision_number', sa.BigInteger(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=False),
    ]


def _json(name: str) -> sa.Column:
    # JSON kept as text (lite_common.db.JSONText).
    return sa.Column(name, sa.Text(), nullable=False)


def upgrade() -> None:
    op.create_table(
        'networks',
        sa.Column('id', sa.String(36), nullable=False),
        *_standard(),
        sa.Column('admin_state_up', sa.Boolean(), nullable=False),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('shared', sa.Boolean(), nullable=False),
        sa.Column('external', sa.Boolean(), nullable=False),
        sa.Column('mtu', sa.Integer(), nullable=False),
        sa.Column('port_security_enabled', sa.Boolean(), nullable=False),
        sa.Column('network_type', sa.String(32), nullable=False),
        sa.Column('physical_network', sa.String(64), nullable=True),
        sa.Column('segmentation_id', sa.Integer(), nullable=True),
        sa.Column('segment_key', sa.String(128), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('segment_key', name='uniq_networks0segment_key'),
    )
    op.create_index('ix_networks_project_id', 'networks', ['project_id'])
    op.create_table(
        'subnets',
        sa.Column('id', sa.String(36), nullable=False),
        *_standard(),
        sa.Column('network_id', sa.String(36), nullable=False),
        sa.Column('ip_version', sa.Integer(), nullable=False),
        sa.Column('cidr', sa.String(64), nullable=False),
        sa.Column('gateway_ip', sa.String(64), nullable=True),
        sa.Column('enable_dhcp', sa.Boolean(), nullable=False),
        sa.Column('ipv6_ra_mode', sa.String(16), nullable=True),
        sa.Column('ipv6_address_mode', sa.String(16), nullable=True),
        _json('allocation_pools'),
        _json('dns_nameservers'),
        _json('host_routes'),
        sa.ForeignKeyConstraint(['network_id'], ['networks.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_subnets_project_id', 'subnets', ['project_id'])
    op.create_index('ix_subnets_network_id', 'subnets', ['network_id'])
    op.create_table(
        'ports',
        sa.Column('id', sa.String(36), nullable=False),
        *_standard(),
        sa.Column('network_id', sa.String(36), nullable=False),
        sa.Column('mac_address', sa.String(32), nullable=False),
        sa.Column('admin_state_up', sa.Boolean(), nullable=False),
        sa.Column('status', sa.String(16), nullable=False),
        sa.Column('device_id', sa.String(255), nullable=False),
        sa.Column('device_owner', sa.String(255), nullable=False),
        sa.Column('port_security_enabled', sa.Boolean(), nullable=False),
        sa.Column('binding_host_id', sa.String(255), nullable=False),
        sa.Column('binding_vnic_type', sa.String(64), nullable=False),
        _json('binding_profile'),
        sa.Column('binding_vif_type', sa.String(64), nullable=False),
        _json('binding_vif_details'),
        sa.Column('dns_name', sa.String(255), nullable=False),
        _json('allowed_address_pairs'),
        sa.ForeignKeyConstraint(['network_id'], ['networks.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'network_id', 'mac_address', name='uniq_ports0network_id0mac'
        ),
    )
    op.create_index('ix_ports_project_id', 'ports', ['project_id'])
    op.create_index('ix_ports_network_id', 'ports', ['network_id'])
    op.create_index('ports_device_id_idx', 'ports', ['device_id'])
    op.create_table(
        'ip_allocations',
        sa.Column('subnet_id', sa.String(36), nullable=False),
        sa.Column('ip_address', sa.String(64), nullable=False),
        sa.Column('port_id', sa.String(36), nullable=False),
        sa.Column('network_id', sa.String(36), nullable=False),
        sa.ForeignKeyConstraint(['subnet_id'], ['subnets.id']),
        sa.ForeignKeyConstraint(['port_id'], ['ports.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('subnet_id', 'ip_address'),
    )
    op.create_index('ix_ip_allocations_port_id', 'ip_allocations', ['port_id'])
    op.create_table(
        'tags',
        sa.Column('resource_type', sa.String(32), nullable=False),
        sa.Column('resource_id', sa.String(36), nullable=False),
        sa.Column('tag', sa.String(255), nullable=False),
        sa.PrimaryKeyConstraint('resource_type', 'resource_id', 'tag'),
    )


def downgrade() -> None:
    for table in ('tags', 'ip_allocations', 'ports', 'subnets', 'networks'):
        op.drop_table(table)
