"""Nodes: the other ten interfaces; conductors: what they load

The interface columns of boot, network (API 1.20), bios (1.40),
console, inspect, raid, vendor (1.31), firmware (1.86), rescue (1.38)
and storage (1.33); existing nodes keep NULL there (their conductor
then uses the hardware type's default). And, per conductor, the
interfaces it loads for each hardware type (GET /v1/drivers, 1.30).
And the node's console_enabled (1.1: PUT .../states/console), and its
BIOS settings (1.40; the registry fields of 1.74).

Revision ID: 0011
Revises: 0010
"""

from alembic import op
import sqlalchemy as sa

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None

_KINDS = (
    'boot',
    'network',
    'bios',
    'console',
    'firmware',
    'inspect',
    'raid',
    'rescue',
    'storage',
    'vendor',
)


def upgrade() -> None:
    with op.batch_alter_table('nodes') as batch:
        for kind in _KINDS:
            batch.add_column(
                sa.Column(
                    f'{kind}_interface', sa.String(length=255), nullable=True
                )
            )
        batch.add_column(
            sa.Column(
                'console_enabled',
                sa.Boolean(),
                nullable=False,
                server_default=sa.false(),
            )
        )
    with op.batch_alter_table('conductors') as batch:
        batch.add_column(
            sa.Column(
                'hardware_interfaces',
                sa.Text(),
                nullable=False,
                server_default='{}',
            )
        )
    op.create_table(
        'bios_settings',
        sa.Column('node_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('value', sa.Text(), nullable=True),
        sa.Column('attribute_type', sa.String(255), nullable=True),
        sa.Column('allowable_values', sa.Text(), nullable=True),
        sa.Column('lower_bound', sa.Integer(), nullable=True),
        sa.Column('max_length', sa.Integer(), nullable=True),
        sa.Column('min_length', sa.Integer(), nullable=True),
        sa.Column('read_only', sa.Boolean(), nullable=True),
        sa.Column('reset_required', sa.Boolean(), nullable=True),
        sa.Column('unique', sa.Boolean(), nullable=True),
        sa.Column('upper_bound', sa.Integer(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ['node_id'], ['nodes.id'], name='fk_bios_settings0node_id'
        ),
        sa.PrimaryKeyConstraint('node_id', 'name'),
    )


def downgrade() -> None:
    op.drop_table('bios_settings')
    with op.batch_alter_table('conductors') as batch:
        batch.drop_column('hardware_interfaces')
    with op.batch_alter_table('nodes') as batch:
        batch.drop_column('console_enabled')
        for kind in reversed(_KINDS):
            batch.drop_column(f'{kind}_interface')
