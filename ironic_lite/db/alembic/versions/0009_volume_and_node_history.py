"""Volume connectors, volume targets and node history

Revision ID: 0009
Revises: 0003
"""

from alembic import op
import sqlalchemy as sa

revision = '0009'
down_revision = '0006'
branch_labels = None
depends_on = None


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
    ]


def upgrade() -> None:
    op.create_table(
        'volume_connectors',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('node_id', sa.Integer(), nullable=False),
        sa.Column('type', sa.String(length=32), nullable=False),
        sa.Column('connector_id', sa.String(length=255), nullable=False),
        sa.Column('extra', sa.Text(), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
        sa.ForeignKeyConstraint(
            ['node_id'], ['nodes.id'], name='fk_volume_connectors0node_id'
        ),
        sa.UniqueConstraint('uuid', name='uniq_volumeconnectors0uuid'),
        sa.UniqueConstraint(
            'type',
            'connector_id',
            name='uniq_volumeconnectors0type0connector_id',
        ),
    )
    op.create_index(
        'volume_connectors_node_id_idx',
        'volume_connectors',
        ['node_id'],
        unique=False,
    )
    op.create_table(
        'volume_targets',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('node_id', sa.Integer(), nullable=False),
        sa.Column('volume_type', sa.String(length=64), nullable=False),
        sa.Column('properties', sa.Text(), nullable=False),
        sa.Column('boot_index', sa.Integer(), nullable=False),
        sa.Column('volume_id', sa.String(length=36), nullable=False),
        sa.Column('extra', sa.Text(), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
        sa.ForeignKeyConstraint(
            ['node_id'], ['nodes.id'], name='fk_volume_targets0node_id'
        ),
        sa.UniqueConstraint('uuid', name='uniq_volumetargets0uuid'),
        sa.UniqueConstraint(
            'node_id',
            'boot_index',
            name='uniq_volumetargets0node_id0boot_index',
        ),
    )
    op.create_table(
        'node_history',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('uuid', sa.String(length=36), nullable=False),
        sa.Column('node_id', sa.Integer(), nullable=False),
        sa.Column('conductor', sa.String(length=255), nullable=True),
        sa.Column('event_type', sa.String(length=255), nullable=True),
        sa.Column('severity', sa.String(length=255), nullable=True),
        sa.Column('event', sa.Text(), nullable=True),
        sa.Column('user', sa.String(length=64), nullable=True),
        sa.Column('project', sa.String(length=80), nullable=True),
        sa.Column('state', sa.String(length=255), nullable=True),
        sa.Column(
            'target_provision_state', sa.String(length=255), nullable=True
        ),
        sa.Column('duration_seconds', sa.Integer(), nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
        sa.ForeignKeyConstraint(
            ['node_id'], ['nodes.id'], name='fk_node_history0node_id'
        ),
        sa.UniqueConstraint('uuid', name='uniq_history0uuid'),
    )
    op.create_index(
        'history_node_id_idx', 'node_history', ['node_id'], unique=False
    )
    op.create_index(
        'history_conductor_idx', 'node_history', ['conductor'], unique=False
    )


def downgrade() -> None:
    # The indexes go with their tables (MySQL refuses to drop an index
    # a foreign key uses).
    op.drop_table('node_history')
    op.drop_table('volume_targets')
    op.drop_table('volume_connectors')
