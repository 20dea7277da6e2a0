"""Ports and portgroups of a node (API 1.1, 1.23)

Revision ID: 0010
Revises: 0004
"""

from alembic import op
import sqlalchemy as sa

revision = '0010'
down_revision = '0004'
branch_labels = None
depends_on = None


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
    ]


def upgrade() -> None:
    op.create_table(
        'portgroups',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('node_id', sa.Integer(), nullable=False),
        sa.Column('address', sa.String(18), nullable=True),
        sa.Column('extra', sa.Text(), nullable=False),
        sa.Column('internal_info', sa.Text(), nullable=False),
        sa.Column('standalone_ports_supported', sa.Boolean(), nullable=False),
        sa.Column('mode', sa.String(255), nullable=True),
        sa.Column('properties', sa.Text(), nullable=False),
        sa.Column('physical_network', sa.String(64), nullable=True),
        sa.Column('category', sa.String(80), nullable=True),
        sa.Column('dynamic_portgroup', sa.Boolean(), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
        sa.ForeignKeyConstraint(
            ['node_id'], ['nodes.id'], name='fk_portgroups0node_id'
        ),
        sa.UniqueConstraint('uuid', name='uniq_portgroups0uuid'),
        sa.UniqueConstraint('address', name='uniq_portgroups0address'),
        sa.UniqueConstraint('name', name='uniq_portgroups0name'),
        sa.Index('portgroups_node_id_idx', 'node_id'),
    )
    op.create_table(
        'ports',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('address', sa.String(18), nullable=False),
        sa.Column('node_id', sa.Integer(), nullable=False),
        sa.Column('portgroup_id', sa.Integer(), nullable=True),
        sa.Column('extra', sa.Text(), nullable=False),
        sa.Column('local_link_connection', sa.Text(), nullable=False),
        sa.Column('internal_info', sa.Text(), nullable=False),
        sa.Column('pxe_enabled', sa.Boolean(), nullable=False),
        sa.Column('physical_network', sa.String(64), nullable=True),
        sa.Column('is_smartnic', sa.Boolean(), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('description', sa.String(255), nullable=True),
        sa.Column('vendor', sa.String(32), nullable=True),
        sa.Column('category', sa.String(80), nullable=True),
        sa.Column(
            'available_for_dynamic_portgroup', sa.Boolean(), nullable=False
        ),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
        sa.ForeignKeyConstraint(
            ['node_id'], ['nodes.id'], name='fk_ports0node_id'
        ),
        sa.ForeignKeyConstraint(
            ['portgroup_id'], ['portgroups.id'], name='fk_ports0portgroup_id'
        ),
        sa.UniqueConstraint('uuid', name='uniq_ports0uuid'),
        sa.UniqueConstraint('address', name='uniq_ports0address'),
        sa.UniqueConstraint('name', name='uniq_ports0name'),
        sa.Index('ports_node_id_idx', 'node_id'),
        sa.Index('ports_portgroup_id_idx', 'portgroup_id'),
    )


def downgrade() -> None:
    op.drop_table('ports')
    op.drop_table('portgroups')
