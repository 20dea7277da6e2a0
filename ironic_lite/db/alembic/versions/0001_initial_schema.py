"""Initial schema: nodes and conductors

Revision ID: 0001
Revises:
"""

from alembic import op
import sqlalchemy as sa

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
    ]


def _string(name: str, length: int, nullable: bool = True) -> sa.Column:
    return sa.Column(name, sa.String(length=length), nullable=nullable)


def _json(name: str) -> sa.Column:
    # JSON kept as text (models.JSONText).
    return sa.Column(name, sa.Text(), nullable=False)


def upgrade() -> None:
    op.create_table(
        'conductors',
        sa.Column('id', sa.Integer(), nullable=False),
        _string('hostname', 255, nullable=False),
        sa.Column('online', sa.Boolean(), nullable=False),
        _json('hardware_types'),
        sa.Column('heartbeat_at', sa.DateTime(), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('hostname', name='uniq_conductors0hostname'),
    )
    op.create_table(
        'nodes',
        sa.Column('id', sa.Integer(), nullable=False),
        _string('uuid', 36, nullable=False),
        _string('name', 255),
        _string('driver', 255, nullable=False),
        _string('power_interface', 255),
        _string('management_interface', 255),
        _string('deploy_interface', 255),
        _json('driver_info'),
        _json('driver_internal_info'),
        _json('properties'),
        _string('instance_uuid', 36),
        _json('instance_info'),
        _string('power_state', 15),
        _string('target_power_state', 15),
        _string('provision_state', 15, nullable=False),
        _string('target_provision_state', 15),
        sa.Column('provision_updated_at', sa.DateTime(), nullable=True),
        sa.Column('last_error', sa.Text(), nullable=True),
        sa.Column('maintenance', sa.Boolean(), nullable=False),
        sa.Column('maintenance_reason', sa.Text(), nullable=True),
        _string('fault', 255),
        _json('clean_step'),
        sa.Column('automated_clean', sa.Boolean(), nullable=True),
        _string('reservation', 255),
        sa.Column('conductor_affinity', sa.Integer(), nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('uuid', name='uniq_nodes0uuid'),
        sa.UniqueConstraint('name', name='uniq_nodes0name'),
        sa.UniqueConstraint('instance_uuid', name='uniq_nodes0instance_uuid'),
    )
    op.create_index(
        'nodes_provision_state_idx', 'nodes', ['provision_state'], unique=False
    )
    op.create_index(
        'nodes_reservation_idx', 'nodes', ['reservation'], unique=False
    )
    op.create_index(
        'nodes_maintenance_idx', 'nodes', ['maintenance'], unique=False
    )


def downgrade() -> None:
    op.drop_index('nodes_maintenance_idx', table_name='nodes')
    op.drop_index('nodes_reservation_idx', table_name='nodes')
    op.drop_index('nodes_provision_state_idx', table_name='nodes')
    op.drop_table('nodes')
    op.drop_table('conductors')
