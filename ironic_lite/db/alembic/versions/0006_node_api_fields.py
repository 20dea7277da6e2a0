"""Nodes: the Bare Metal API fields up to 1.115; conductors: group

The node columns of conductor groups (1.46), protection (1.48),
ownership and leases (1.50, 1.65), retirement (1.61), network data
(1.66), boot mode (1.75), shards (1.82), parent nodes (1.83), power-off
protection (1.95), instance names (1.104) and health (1.109), with the
read-only deploy/service steps, RAID configuration and inspection
timestamps; and the conductor group of each conductor, which the hash
ring honours.

Revision ID: 0006
Revises: 0003
"""

from alembic import op
import sqlalchemy as sa

revision = '0006'
down_revision = '0003'
branch_labels = None
depends_on = None

#: JSON kept as text (models.JSONText); existing rows get {}.
_JSON_COLUMNS = (
    'deploy_step',
    'service_step',
    'raid_config',
    'target_raid_config',
    'network_data',
)
#: (index, column) of the node columns lists filter on.
_INDEXES = (
    ('nodes_conductor_group_idx', 'conductor_group'),
    ('nodes_owner_idx', 'owner'),
    ('nodes_lessee_idx', 'lessee'),
    ('nodes_shard_idx', 'shard'),
    ('nodes_parent_node_idx', 'parent_node'),
)


def _string(name: str, length: int) -> sa.Column:
    return sa.Column(name, sa.String(length=length), nullable=True)


def _node_columns() -> list[sa.Column]:
    return [
        sa.Column(
            'conductor_group',
            sa.String(length=255),
            nullable=False,
            server_default='',
        ),
        sa.Column(
            'protected',
            sa.Boolean(),
            nullable=False,
            server_default=sa.false(),
        ),
        sa.Column('protected_reason', sa.Text(), nullable=True),
        sa.Column(
            'retired', sa.Boolean(), nullable=False, server_default=sa.false()
        ),
        sa.Column('retired_reason', sa.Text(), nullable=True),
        _string('owner', 255),
        _string('lessee', 255),
        _string('shard', 255),
        _string('parent_node', 36),
        sa.Column('inspection_started_at', sa.DateTime(), nullable=True),
        sa.Column('inspection_finished_at', sa.DateTime(), nullable=True),
        _string('boot_mode', 16),
        sa.Column('secure_boot', sa.Boolean(), nullable=True),
        _string('instance_name', 255),
        sa.Column(
            'disable_power_off',
            sa.Boolean(),
            nullable=False,
            server_default=sa.false(),
        ),
        _string('health', 32),
        *(
            sa.Column(name, sa.Text(), nullable=False, server_default='{}')
            for name in _JSON_COLUMNS
        ),
    ]


def upgrade() -> None:
    with op.batch_alter_table('nodes') as batch:
        for column in _node_columns():
            batch.add_column(column)
    with op.batch_alter_table('nodes') as batch:
        # The model sets these on insert; only the JSON defaults were
        # for the existing rows.
        for name in _JSON_COLUMNS:
            batch.alter_column(
                name,
                server_default=None,
                existing_type=sa.Text(),
                existing_nullable=False,
            )
    for index, column in _INDEXES:
        op.create_index(index, 'nodes', [column], unique=False)
    with op.batch_alter_table('conductors') as batch:
        batch.add_column(
            sa.Column(
                'conductor_group',
                sa.String(length=255),
                nullable=False,
                server_default='',
            )
        )


def downgrade() -> None:
    with op.batch_alter_table('conductors') as batch:
        batch.drop_column('conductor_group')
    for index, _column in _INDEXES:
        op.drop_index(index, table_name='nodes')
    with op.batch_alter_table('nodes') as batch:
        for column in reversed(_node_columns()):
            batch.drop_column(column.name)
