"""Firmware components (API 1.86; vendor, model, serial_number 1.114)

What a node's firmware interface last recorded of each component, one
row per component of a node, deleted with the node.

Revision ID: 0015
Revises: 0014
"""

from alembic import op
import sqlalchemy as sa

revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'firmware_information',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('node_id', sa.Integer(), nullable=False),
        sa.Column('component', sa.String(255), nullable=False),
        sa.Column('initial_version', sa.String(255), nullable=True),
        sa.Column('current_version', sa.String(255), nullable=True),
        sa.Column('last_version_flashed', sa.String(255), nullable=True),
        sa.Column('vendor', sa.String(255), nullable=True),
        sa.Column('model', sa.String(255), nullable=True),
        sa.Column('serial_number', sa.String(255), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ['node_id'], ['nodes.id'], name='fk_firmware_information0node_id'
        ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'node_id',
            'component',
            name='uniq_firmware_information0node_id0component',
        ),
    )


def downgrade() -> None:
    op.drop_table('firmware_information')
